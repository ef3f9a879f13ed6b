"""The procedures section: each stored procedure as the procedure runner sees it, and what its calls cost.

From assessment.json's `procedures`: whether the runner runs the procedure on TiDB as it stands
(every statement translated; a straight port) or what stops it and where, the statements of its body
and the TiDB statements it sends in one pass. From replay.json's `procedures`, when a replay sent the
captured calls: calls, statements and round trips per call, the target's latency per call beside
SQL Server's captured duration per call, failed calls. From compare.json, the calls compared. A
procedure that administers the database (auditing, indexing, partitioning, in-memory, PolyBase,
row-level security, roles) is classed apart, with what TiDB does instead, and the application's
coverage counts the others.
"""

from __future__ import annotations

from typing import Any

from . import formatting as fmt
from .shape import obj, objs, seq
from .viewmodel import Cell, Fact, GenericTable, ProceduresSection


def procedures_fact(doc: dict[str, Any]) -> Fact | None:
    """One line for the summary: how many procedures the runner runs on the target as they stand."""
    rows = objs(doc.get("procedures"))
    if not rows:
        return None
    application = [r for r in rows if not r.get("administration")]
    runs = sum(1 for r in application if r.get("runs"))
    apart = len(rows) - len(application)
    return Fact("Procedures the runner runs", f"{fmt.number(runs)} of the application's {fmt.number(len(application))} "
                                              "as they stand (a straight port each); the others say what stops them"
                + (f"; {fmt.number(apart)} more administer the database" if apart else ""))


def build_procedures(doc: dict[str, Any], replay: dict[str, Any] | None,
                     compare: dict[str, Any] | None) -> ProceduresSection | None:
    rows = objs(doc.get("procedures"))
    triggers = _triggers(objs(doc.get("triggers")))
    if not rows:
        return ProceduresSection((Fact("Procedures", "0"),), None, triggers) if triggers else None
    measured = {str(p.get("procedure", "")).casefold(): p for p in objs(obj(replay).get("procedures"))}
    compared = _compared(compare)
    application = [r for r in rows if not r.get("administration")]
    runs = sum(1 for r in application if r.get("runs"))
    facts = [Fact("Procedures", fmt.number(len(rows))),
             Fact("The application's, run by the runner as they stand",
                  f"{fmt.number(runs)} of {fmt.number(len(application))} (a straight port each)"),
             Fact("The application's, stopped", fmt.number(len(application) - runs))]
    if len(application) < len(rows):
        facts.append(Fact("Administration, apart (what TiDB does instead in the table)",
                          fmt.number(len(rows) - len(application))))
    if measured:
        calls = sum(int(p.get("calls") or 0) for p in measured.values())
        facts.append(Fact("Calls replayed", f"{fmt.number(calls)} of {fmt.number(len(measured))} procedure(s)"))
    table = []
    for row in sorted(rows, key=lambda r: (not r.get("runs"), str(r.get("name")).casefold())):
        name = str(row.get("name") or "")
        m = measured.get(name.casefold(), {})
        writes = seq(row.get("writes"))
        administered = obj(row.get("administration"))
        stops = str(row.get("stops") or ("" if row.get("runs") else "—"))
        if administered:
            stops = (f"administration ({administered.get('kind')}): {administered.get('instead')}"
                     + (f"; {stops}" if row.get("stops") else ""))
        table.append((
            Cell(name),
            Cell("runs" if row.get("runs") else "stopped"),
            Cell(stops),
            _num(row.get("statements")), _num(row.get("target_statements")),
            Cell(", ".join(str(w) for w in writes[:3]) + (" …" if len(writes) > 3 else "") if writes else "reads only"),
            _num(m.get("calls")), _num(m.get("statements_per_call")), _num(m.get("round_trips_per_call")),
            _ms(m.get("target_ms_per_call")), _ms(m.get("sql_server_ms_per_call")), _num(m.get("failed_calls")),
            Cell(compared.get(name.casefold(), "")),
        ))
    return ProceduresSection(tuple(facts), GenericTable(
        "procedures", ("Procedure", "On TiDB", "What stops it", "Statements", "TiDB statements", "Writes",
                       "Calls replayed", "Statements per call", "Round trips per call", "TiDB ms per call",
                       "SQL Server ms per call", "Failed calls", "Answers"),
        (False, False, False, True, True, False, True, True, True, True, True, True, False), tuple(table)), triggers)


def _triggers(rows: list[dict[str, Any]]) -> GenericTable | None:
    """Each DML trigger: what it does, and whether the runner runs it after the statements that fire it."""
    if not rows:
        return None
    return GenericTable("triggers", ("Trigger", "Table", "What it does", "Run after its statements", "What stops it"),
                        (False, False, False, False, False),
                        tuple((Cell(str(t.get("name") or "")), Cell(str(t.get("table") or "")),
                               Cell(str(t.get("does") or "")), Cell("yes" if t.get("runs") else "no"),
                               Cell(str(t.get("stops") or ""))) for t in rows))


def _compared(doc: dict[str, Any] | None) -> dict[str, str]:
    found: dict[str, list[str]] = {}
    for q in objs(obj(doc).get("queries")):
        call = obj(q.get("procedure_call"))
        for name in seq(call.get("procedures")):
            found.setdefault(str(name).casefold(), []).append(str(q.get("verdict") or ""))
    return {name: ", ".join(sorted(set(verdicts))) for name, verdicts in found.items()}


def _num(value: Any) -> Cell:
    if value is None:
        return Cell("—", "", True)
    return Cell(fmt.number(value) if isinstance(value, int) else f"{value:g}" if isinstance(value, float) else str(value),
                str(value), True)


def _ms(value: Any) -> Cell:
    return Cell("—", "", True) if value is None else Cell(f"{value:.2f}", str(value), True)
