"""Rows the runner has on the client sent into a temporary table it made: OPENJSON's rows, a table-valued parameter's.

The table is made by the translator's statements for a table variable (DROP and CREATE TEMPORARY TABLE)
the first time, emptied after; the rows go in one INSERT per 500, its one-row VALUES group repeated. The
procedure's frame keeps the table's name, so the runner drops it when the procedure ends, as SQL Server
drops a table variable.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..translate.session import SentStatement
from .failures import TsqlError
from .sending import Sender
from .state import CallState, Frame

_CHUNK = 500
_CREATE = re.compile(r"CREATE\s+TEMPORARY\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(`[^`]+`|\S+)", re.IGNORECASE)


def created_table(statements: Sequence[SentStatement]) -> str | None:
    """The temporary table a table variable's statements create."""
    for statement in statements:
        m = _CREATE.search(statement.sql)
        if m:
            return m[1].strip("`")
    return None


def fill_table(sender: Sender, state: CallState, frame: Frame, declare: Sequence[SentStatement],
               clear: Sequence[SentStatement], insert: SentStatement, rows: Sequence[Sequence[Any]]) -> None:
    """The table made (or emptied, when this frame made it before) and `rows` inserted."""
    table = created_table(declare)
    if table is not None and table in frame.temp_tables and clear:
        sender.send_all(state, frame, clear)
    else:
        sender.send_all(state, frame, declare)
        if table is not None and table not in frame.temp_tables:
            frame.temp_tables.append(table)
    insert_rows(sender, state, insert, rows)


def insert_rows(sender: Sender, state: CallState, insert: SentStatement, rows: Sequence[Sequence[Any]]) -> None:
    """`rows` inserted with one row's INSERT (`?` per column), its VALUES group repeated, 500 rows a statement."""
    head, group = values_clause(insert.sql)
    for start in range(0, len(rows), _CHUNK):
        chunk = rows[start:start + _CHUNK]
        sender.execute(state, head + ", ".join([group] * len(chunk)), [v for row in chunk for v in row])


def values_clause(sql: str) -> tuple[str, str]:
    """`INSERT INTO t (a, b) VALUES (?, ?)` -> (`INSERT INTO t (a, b) VALUES `, `(?, ?)`)."""
    at = sql.upper().rfind("VALUES")
    group = sql[at + len("VALUES"):].strip()
    if at < 0 or not re.fullmatch(r"\(\s*\?(?:\s*,\s*\?)*\s*\)", group):
        raise TsqlError(50000, f"the runner cannot send rows with `{sql[:80]}`", 16)
    return sql[:at + len("VALUES")] + " ", group
