"""What each replayed class sends: its driver-ready text, text or prepared, and where its values come from.

Decided once, before the workers start, from the translation, the capture and what the target
holds: the markers' columns, the written tables' keys (whose captured values are replaced by fresh
ones), values already in a compared column (so lookups that would otherwise get random values find
rows), and the protocol of each class (`protocol`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model import Capture
from ..model.workload import jsonable
from ..translate.emit import split_target_sql
from . import drivers, evidence
from .params import MarkerColumn, ParameterPlan, marker_columns, plan_parameters
from .procedure_calls import plan_values
from .protocol import Choice, choose
from .selection import Selection
from .sqltext import to_format_style
from .workers import Statement

POOL_ROWS = 1000


@dataclass(frozen=True)
class Prepared:
    """The statements of a run, how each is sent, and what replay.json says about them."""

    statements: tuple[Statement, ...]
    choice: Choice
    plans: dict[str, ParameterPlan]
    texts: dict[str, tuple[str, ...]]
    """Each class's statements with `?` markers, as the server's digests see them."""

    def described(self) -> dict[str, dict[str, Any]]:
        """Per class: where the values came from and how it was sent (replay.json's `per_query[]`)."""
        return {s.id: {"values": self.plans[s.id].summary(), "protocol": self.choice.protocols[s.id],
                       "protocol_why": self.choice.why[s.id]} for s in self.statements}


def prepare(probe: drivers.Connection, capture: Capture, selection: Selection, protocol: str,
            driver: str) -> Prepared:
    """Driver-ready statements with their parameter plans and protocols (see the module docstring)."""
    out, plans, markers = [], {}, {}
    parts_of: dict[str, tuple[str, ...]] = {}
    calls: dict[str, Any] = {}
    for chosen in selection.chosen:
        tq = chosen.query
        if chosen.call is not None:  # a procedure call: the runner sends its statements (`procedure_calls`)
            plans[tq.id] = plan_values(capture, chosen, lambda column: target_values(probe, column),
                                       lambda columns: written_keys(probe, capture, columns))
            markers[tq.id], parts_of[tq.id], calls[tq.id] = 0, (), chosen.call.plan
            out.append((tq.id, "", plans[tq.id]))
            continue
        sql, count = to_format_style(tq.target_sql or "")
        columns = marker_columns(tq.target_sql or "") if count else []
        keys = written_keys(probe, capture, columns) if tq.kind == "insert" else frozenset()
        plan = plan_parameters(chosen.source, tq, count, capture.database, None, columns, keys)
        # Lookups should find rows: a compared value with nothing better to go on comes from the target.
        wanted = [i for i, (m, col) in enumerate(zip(plan.markers, columns, strict=False))
                  if m.kind == "type" and col.role == "where"]
        pools = {i: pool for i in wanted if (pool := target_values(probe, columns[i]))}
        if pools:
            plan = plan_parameters(chosen.source, tq, count, capture.database, pools, columns, keys)
        plans[tq.id], markers[tq.id] = plan, count
        parts_of[tq.id] = tuple(split_target_sql(tq.target_sql or ""))
        out.append((tq.id, sql, plan))
    choice = choose(protocol, selection.chosen, driver, markers)
    for qid in calls:
        choice.protocols[qid] = "text"
        choice.why[qid] = "a procedure call: the runner sends the procedure's statements as text, one by one"
    statements = []
    for qid, sql, plan in out:
        parts = parts_of[qid]
        batch = tuple(to_format_style(part) for part in parts) if len(parts) > 1 else ()
        prepared = tuple((part, to_format_style(part)[1]) for part in parts) \
            if choice.protocols[qid] == "prepared" else ()
        statements.append(Statement(qid, sql, plan, batch, prepared, calls.get(qid)))
    return Prepared(tuple(statements), choice, plans, parts_of)


def written_keys(probe: drivers.Connection, capture: Capture, columns: list[MarkerColumn]) -> frozenset[str]:
    """The primary and unique key columns (case-folded) of the table an INSERT's markers fill.

    The target says which columns are keys (its tables are what the inserts meet); where it cannot
    (no such table yet), the captured schema does.
    """
    table = next((c.table for c in columns if c.role == "insert" and c.table), None)
    if table is None:
        return frozenset()
    schema, _, name = table.rpartition(".")
    try:
        rows = probe.fetch("SELECT COLUMN_NAME FROM information_schema.STATISTICS WHERE NON_UNIQUE = 0 "
                           "AND TABLE_SCHEMA = COALESCE(%s, DATABASE()) AND TABLE_NAME = %s", (schema or None, name))
    except Exception:  # noqa: BLE001 - a server without the view: fall back to the captured schema
        rows = []
    if rows:
        return frozenset(str(r[0]).casefold() for r in rows)
    found = capture.database.table(schema or None, name) or capture.database.table(None, name)
    if found is None:
        return frozenset()
    keys = [k for k in (found.primary_key, *found.unique_keys) if k is not None]
    keys += [i for i in found.indexes if i.unique]
    return frozenset(c.name.casefold() for k in keys for c in k.columns)


def target_values(probe: drivers.Connection, col: MarkerColumn) -> tuple[Any, ...]:
    """Up to POOL_ROWS values of a column already in the target (none if the table is empty).

    No DISTINCT or ORDER BY: on a large TiDB table either would read the whole table; the first rows
    are enough to make lookups hit.
    """
    if not col.table or not col.column:
        return ()
    column = "`" + col.column.replace("`", "``") + "`"
    try:
        rows = probe.fetch(f"SELECT {column} FROM {evidence.quote_table(col.table)} LIMIT {POOL_ROWS}")
    except Exception:  # noqa: BLE001 - a table the target lacks just means: generate from the type
        return ()
    return tuple(jsonable(r[0]) for r in rows if r[0] is not None)
