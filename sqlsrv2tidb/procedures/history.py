"""A system-versioned table's history, kept by the runner for the writes it sends, as SQL Server keeps it.

SQL Server writes a temporal table's history itself: an UPDATE or DELETE moves each old row into the
history table with its period closed (`ValidTo` = the time of the change), and the rows an INSERT or
UPDATE leave start their period then (`ValidFrom`), in UTC. TiDB does none of it, so after each such
statement the runner does, with the rows the statement changed (`affected`, read by key in its
transaction): one INSERT of the old rows into the history table (500 a statement) and one UPDATE of
the new rows' period start, at the target's UTC_TIMESTAMP(6) (SQL Server takes the transaction's start
time; within one statement they agree). A statement that sets the period columns itself (possible only
with SYSTEM_VERSIONING switched off, as data loads do) is left as it is: the application keeps the
history then. After the move, nothing keeps it: the application must, which the translation notes say.
https://learn.microsoft.com/sql/relational-databases/tables/temporal-tables
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlglot import exp

from ..model import Database
from ..translate.naming import NameMap
from ..translate.session import SentStatement
from . import program as p
from .affected import KEY_CHUNK, Change, ChangePlan, changed_table
from .sending import Sender
from .state import CallState
from .table_rows import insert_rows


def history_of(tree: exp.Expr, plan: ChangePlan | None, database: Database, names: NameMap) -> p.HistoryPlan | None:
    """The history a DML statement must write, or None (no temporal table, rows not read, period columns set)."""
    if plan is None or plan.unknown is not None:
        return None
    found = changed_table(tree, database)
    if found is None:
        return None
    table = found[0]
    temporal = table.temporal
    if temporal is None or not temporal.history_table or not temporal.period_start or not temporal.period_end:
        return None
    period = {temporal.period_start.casefold(), temporal.period_end.casefold()}
    if isinstance(tree, exp.Insert) and isinstance(tree.this, exp.Schema):
        if any(c.name.casefold() in period for c in tree.this.expressions):
            return None
    if isinstance(tree, exp.Update):
        if any(isinstance(a.this, exp.Column) and a.this.name.casefold() in period for a in tree.expressions):
            return None
    history = names.object(temporal.history_schema or table.schema, temporal.history_table).quoted()
    return p.HistoryPlan(history, tuple(c.name for c in table.columns), temporal.period_start, temporal.period_end)


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def keep_history(sender: Sender, state: CallState, history: p.HistoryPlan, change: Change) -> None:
    """The old rows into the history table, their period closed now; the new rows' period started now."""
    kind = change.plan.kind
    if not change.deleted and not change.keys:
        return
    now = sender.execute(state, "SELECT UTC_TIMESTAMP(6)", ()).rows[0][0]
    if kind in ("update", "delete", "merge") and change.deleted:
        # SQL Server's names are case-insensitive: PERIOD FOR SYSTEM_TIME may spell a column otherwise than its list
        end = [c.casefold() for c in history.columns].index(history.period_end.casefold())
        rows = [tuple(now if i == end else v for i, v in enumerate(row)) for row in change.deleted]
        insert = SentStatement(f"INSERT INTO {history.history} ({', '.join(_quote(c) for c in history.columns)}) VALUES "
                               f"({', '.join('?' * len(history.columns))})")
        insert_rows(sender, state, insert, rows)
    if kind in ("insert", "update", "merge"):
        _start_periods(sender, state, history, change, now)


def _start_periods(sender: Sender, state: CallState, history: p.HistoryPlan, change: Change, now: Any) -> None:
    table = change.table
    keys: Sequence[tuple[Any, ...]] = [k for k in change.keys if k and all(v is not None for v in k)]
    for start in range(0, len(keys), KEY_CHUNK):
        chunk = keys[start:start + KEY_CHUNK]
        if len(table.key) == 1:
            where = f"{_quote(table.key[0])} IN ({', '.join('?' * len(chunk))})"
        else:
            one = "(" + ", ".join("?" * len(table.key)) + ")"
            where = f"({', '.join(_quote(k) for k in table.key)}) IN ({', '.join([one] * len(chunk))})"
        sender.execute(state, f"UPDATE {table.target} SET {_quote(history.period_start)} = ? WHERE {where}",
                       [now, *[v for k in chunk for v in k]])
