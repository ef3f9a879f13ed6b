"""The answers section: what `compare` left in OUT/compare.json, beside the replay's latencies.

Per class: its text (the user's name for it, else the start of its T-SQL), linked to the query's
entry, its verdict (same, same up to ties, differs, error, not comparable), why, and its row counts on
each side; the statements each side ran are shown on demand. Then the first rows that differ, side by
side; then the classes that were not compared and why. A differing class is also a high finding (RP09),
which the summary counts.
"""

from __future__ import annotations

import json
from typing import Any

from . import formatting as fmt
from .links import Anchors, cut_sql, query_label
from .shape import obj, objs, seq
from .viewmodel import AnswerRow, AnswersSection, Cell, Fact, GenericTable

_ORDER = {"differs": 0, "error": 1, "not comparable": 2, "same up to ties": 3, "same": 4}


def compare_fact(doc: dict[str, Any] | None) -> Fact | None:
    """One line for the summary: how many classes answer the same on the target, and what became of the writes."""
    if not doc:
        return None
    s = obj(doc.get("summary"))
    w = obj(s.get("writes"))
    reads = {key: (s.get(key) or 0) - (w.get(key) or 0) for key in ("classes", "same", "same_up_to_ties", "differs",
                                                                    "error", "not_comparable")}
    tied = reads["same_up_to_ties"]
    text = (f"{fmt.number(reads['same'] + tied)} of {fmt.number(reads['classes'])} read classes answer the same on "
            f"{doc.get('target') or 'the target'}{f' ({fmt.number(tied)} up to ties)' if tied else ''}; "
            f"{fmt.number(reads['differs'])} differ, {fmt.number(reads['error'])} fail, "
            f"{fmt.number(reads['not_comparable'])} not comparable")
    return Fact("Answers compared", text + "; " + writes_said(w))


def writes_said(w: dict[str, Any]) -> str:
    """What became of the write classes, in one clause: compared (and how), or left out and which flags send them."""
    if w.get("classes"):
        return (f"{fmt.number(w['classes'])} write classes compared by their effect on the rows: "
                f"{fmt.number((w.get('same') or 0) + (w.get('same_up_to_ties') or 0))} the same, "
                f"{fmt.number(w.get('differs'))} differ, {fmt.number(w.get('error'))} fail")
    if w.get("left_out_without_allow_writes"):
        return (f"{fmt.number(w['left_out_without_allow_writes'])} write classes left out: --allow-writes "
                "--confirm-database NAME runs them on both servers, each in a transaction rolled back")
    return "no write classes"


def _shown(values: Any) -> str:
    return json.dumps(values, ensure_ascii=False, default=str) if values is not None else "(no row)"


def build_compare(doc: dict[str, Any] | None, anchors: Anchors) -> AnswersSection | None:
    if not doc:
        return None
    s, settings = obj(doc.get("summary")), obj(doc.get("settings"))
    facts = (Fact("Target", str(doc.get("target") or "—")), Fact("SQL Server", str(obj(doc.get("source")).get("name") or "—")),
             Fact("Classes", f"{fmt.number(s.get('classes'))}: {fmt.number(s.get('same'))} same, "
                             f"{fmt.number(s.get('same_up_to_ties') or 0)} same up to ties, "
                             f"{fmt.number(s.get('differs'))} differ, {fmt.number(s.get('error'))} error, "
                             f"{fmt.number(s.get('not_comparable'))} not comparable; "
                             f"{fmt.number(s.get('left_out'))} left out"),
             Fact("Parameter sets per class", fmt.scalar(settings.get("parameter_sets"))),
             Fact("Statement timeout", f"{fmt.scalar(settings.get('timeout_s'))} s per side"),
             Fact("Time", fmt.seconds(s.get("seconds"))))
    w = obj(s.get("writes"))
    facts += (Fact("Writes", writes_said(w)),)
    if w.get("identity_consumed_on_sql_server"):
        facts += (Fact("IDENTITY values taken on SQL Server",
                       f"{', '.join(map(str, w['identity_consumed_on_sql_server']))}: the writes were rolled back, the "
                       "values they took are not given out again (SQL Server never reuses them)"),)
    rows, differences = [], []
    queries = sorted(objs(doc.get("queries")), key=lambda q: (_ORDER.get(str(q.get("verdict")), 4), str(q.get("id"))))
    for q in queries:
        qid = str(q.get("id") or "")
        counts = obj(q.get("rows"))
        shown = "—" if not counts else f"{fmt.number(counts.get('sql_server'))} / {fmt.number(counts.get('target'))}"
        verdict = str(q.get("verdict") or "")
        if verdict == "error" and q.get("side"):
            verdict += f" ({str(q['side']).replace('_', ' ')})"
        tsql, cut_a = cut_sql(str(q.get("sql_server_sql") or ""))
        target, cut_b = cut_sql(str(q.get("target_sql") or ""))
        how = tuple(str(q[key]) for key in ("batch", "retried") if q.get(key)) + _effects(q)
        label = anchors.labels.get(qid) or query_label({"id": qid, "source_sql": q.get("sql_server_sql")})
        rows.append(AnswerRow(qid, anchors.queries.get(qid), label, verdict, str(q.get("reason") or ""), shown,
                              tsql, target, cut_a or cut_b, how, str(q.get("statement_kind") or "read")))
        for d in objs(q.get("first_differences")):
            position = d.get("position")
            differences.append((Cell(qid), Cell("—" if position is None else fmt.number(position + 1)),
                                Cell(_shown(d.get("sql_server"))), Cell(_shown(d.get("target")))))
        for table in objs(q.get("end_state")):
            for d in objs(table.get("first_differences")):
                differences.append((Cell(qid), Cell(str(table.get("table"))), Cell(_shown(d.get("sql_server"))),
                                    Cell(_shown(d.get("target")))))
    diff = GenericTable("compare-differences", ("Query", "Row or table", "SQL Server", "Target"), (False, True, False, False),
                        tuple(differences)) if differences else None
    left = tuple((Cell(str(x.get("id"))), Cell(str(x.get("reason") or ""))) for x in seq(doc.get("left_out"))
                 if isinstance(x, dict))
    left_table = GenericTable("compare-left-out", ("Query", "Why not compared"), (False, False), left) if left else None
    return AnswersSection(facts, tuple(rows), diff, left_table)


def _effects(q: dict[str, Any]) -> tuple[str, ...]:
    """What a write did on each side, in lines: refusals, rows affected, the rows it left table by table."""
    if not q.get("write"):
        return ()
    lines = []
    refused = obj(q.get("refused"))
    mine, theirs = seq(refused.get("sql_server")), seq(refused.get("target"))
    if mine or theirs:
        lines.append(f"Refused: SQL Server {'; '.join(map(str, mine)) or 'no'}; the target {'; '.join(map(str, theirs)) or 'no'}")
    affected = obj(q.get("rows_affected"))
    if affected:
        lines.append(f"Rows affected: SQL Server {', '.join(map(str, seq(affected.get('sql_server'))))}; the target "
                     f"{', '.join(map(str, seq(affected.get('target'))))}")
    for table in objs(q.get("end_state")):
        rows = obj(table.get("rows"))
        taken = obj(table.get("identity_values_taken"))
        lines.append(f"{table.get('table')}: {fmt.number(rows.get('sql_server'))} / {fmt.number(rows.get('target'))} "
                     f"row(s) read by key after the write, {'the same' if table.get('equal') else 'different'}"
                     + (f"; IDENTITY values taken (offsets): SQL Server {seq(taken.get('sql_server'))}, the target "
                        f"{seq(taken.get('target'))}" if taken else ""))
    return tuple(lines)
