"""The data section: what `data copy`, `data synthesize` or `data verify` left in OUT/data.json.

Per table: rows, size and rate of the load, rejects, and the verify result; then the rows verify
found different, with their keys, and what the run noted (each view `--create-tables` could not
create among it). The page only lays these out.
"""

from __future__ import annotations

from typing import Any

from . import formatting as fmt
from .shape import obj, objs, seq
from .viewmodel import Cell, DataSection, Fact, GenericTable

_MODES = {"copy": "Copied from SQL Server", "synthesize": "Synthesized from SQL Server's statistics",
          "verify": "Verified against SQL Server"}


def data_fact(doc: dict[str, Any] | None) -> Fact | None:
    """One line for the summary: how many rows the target holds from a data run, and whether they verified."""
    if not doc:
        return None
    summary = obj(doc.get("summary"))
    verified = f"{summary.get('equal', 0)} of {summary.get('tables', 0)} tables verified equal"
    if summary.get("different"):
        verified += f", {summary['different']} different"
    return Fact("Data in the target", f"{_MODES.get(str(doc.get('mode')), 'Loaded')}: {fmt.number(summary.get('rows'))} "
                                      f"rows in {fmt.number(summary.get('tables'))} tables; {verified}")


def build_data(doc: dict[str, Any] | None) -> DataSection | None:
    if not doc:
        return None
    summary, settings = obj(doc.get("summary")), obj(doc.get("settings"))
    facts = [Fact("Mode", _MODES.get(str(doc.get("mode")), str(doc.get("mode") or "—"))),
             Fact("Source", str(obj(doc.get("source")).get("name") or "—")),
             Fact("Target", str(doc.get("target") or "—")),
             Fact("Rows", fmt.number(summary.get("rows"))), Fact("Size", fmt.size(summary.get("bytes"))),
             Fact("Time", fmt.seconds(summary.get("seconds"))),
             Fact("Rate", f"{fmt.number(summary.get('rows_per_s'))} rows/s, {fmt.number(summary.get('mb_per_s'), 1)} MB/s"),
             Fact("Rejected rows", fmt.number(summary.get("rejects")) + (
                 f" ({fmt.number(summary['refused_by_target'])} refused by the target)"
                 if summary.get("refused_by_target") else "")),
             Fact("Verified", f"{summary.get('equal', 0)} equal, {summary.get('different', 0)} different, "
                              f"{summary.get('not_verified', 0)} not verified")]
    for key, label in (("method", "Loaded with"), ("sample", "Sample"), ("scale", "Scale"), ("jobs", "Tables at once")):
        if settings.get(key) not in (None, ""):
            facts.append(Fact(label, fmt.scalar(settings[key])))
    if isinstance(doc.get("views"), dict):
        facts.append(Fact("Views", _views(obj(doc.get("views")))))
    if isinstance(doc.get("check_constraints"), dict):
        facts.append(Fact("CHECK constraints", _checks(obj(doc.get("check_constraints")))))
    if doc.get("interrupted"):
        facts.append(Fact("Interrupted", "yes: run the same command again to continue from the checkpoint"))
    rows, differences = [], []
    for t in sorted(objs(doc.get("tables")), key=lambda t: (str(t.get("schema")), str(t.get("name")))):
        name = f"{t.get('schema')}.{t.get('name')}"
        check = obj(t.get("verify"))
        rows.append((Cell(name), Cell(str(t.get("status") or "—")), _num(t.get("rows")), Cell(fmt.size(t.get("bytes")),
                     str(t.get("bytes") or 0), True), _num(t.get("rows_per_s")), _num(t.get("rejects")),
                     Cell(str(t.get("chunking") or "—")), Cell(str(check.get("status") or "not verified")),
                     Cell(str(t.get("message") or "; ".join(str(n) for n in seq(t.get("notes"))) or ""))))
        for d in objs(check.get("first_differences")):
            key = ", ".join(f"{k}={v}" for k, v in obj(d.get("key")).items()) or "—"
            differences.append((Cell(name), Cell(str(d.get("kind") or "")), Cell(key),
                                Cell(", ".join(str(c) for c in seq(d.get("columns"))))))
    table = GenericTable("data-tables", ("Table", "Status", "Rows", "Size", "Rows/s", "Rejected", "Chunks by", "Verify",
                                          "Notes"), (False, False, True, True, True, True, False, False, False),
                         tuple(rows))
    diff = GenericTable("data-differences", ("Table", "Difference", "Key", "Columns"), (False,) * 4,
                        tuple(differences)) if differences else None
    notes = tuple(str(n) for n in seq(doc.get("notes")))
    if doc.get("rejects_file"):
        notes += (f"Rejected rows (values with no target form, rows the target refused, with the server's reason) and "
                  f"target warnings, each with its table and key: {doc['rejects_file']} beside this page.",)
    return DataSection(tuple(facts), table, diff, notes)


def _checks(checks: dict[str, Any]) -> str:
    """`6 of 6 on the target; tidb_enable_check_constraint turned ON by this load (it was OFF)`."""
    text = f"{fmt.number(checks.get('present'))} of {fmt.number(checks.get('planned'))} on the target"
    setting = obj(checks.get("setting"))
    if setting.get("turned_on"):
        text += f"; {setting.get('name')} turned ON for the whole server by this load (it was OFF)"
    elif setting.get("refused"):
        text += f"; {setting.get('name')} is OFF and this login could not turn it on: they are not enforced"
    return text


def _views(views: dict[str, Any]) -> str:
    """`14 created, 2 not created (see the notes)`: what --create-tables did with the plan's views."""
    parts = [f"{len(seq(views.get('created')))} created"]
    for key, said in (("already_there", "already on the target"), ("not_created", "not created (see the notes)"),
                      ("not_translated", "not translated (kept as comments in ddl/06-views.sql)")):
        if seq(views.get(key)):
            parts.append(f"{len(seq(views.get(key)))} {said}")
    return ", ".join(parts)


def _num(value: Any) -> Cell:
    return Cell(fmt.number(value) if value is not None else "—", str(value if value is not None else ""), True)
