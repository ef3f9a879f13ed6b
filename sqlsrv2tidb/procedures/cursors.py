"""Cursors over a SELECT: OPEN sends the query and keeps its rows on the client; FETCH reads them there.

One round trip per OPEN, however many rows are fetched: what an application that reads the rows
into a list and loops over them does. The rows are those OPEN saw (a STATIC cursor's). FETCH NEXT
works on any cursor; PRIOR, FIRST, LAST, ABSOLUTE n and RELATIVE n on a SCROLL (or STATIC, KEYSET,
DYNAMIC) one, as SQL Server allows. @@FETCH_STATUS is 0 for a row, -1 past either end.
https://learn.microsoft.com/sql/t-sql/language-elements/fetch-transact-sql
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import program as p
from .failures import TsqlError
from .sending import Sender
from .state import CallState, Cursor, Frame
from .values import assign

Assign = Callable[[Frame, str, Any], None]
"""Sets a variable of a frame by its declared type (the runner's)."""


def cursor_step(sender: Sender, state: CallState, frame: Frame, step: p.CursorDeclare | p.CursorAction,
                assign_variable: Assign) -> None:
    if isinstance(step, p.CursorDeclare):
        state.cursors[step.name] = Cursor(step)
        state.rowcount = 1
        return
    cursor = state.cursors.get(step.name)
    if cursor is None:
        raise TsqlError(16916, f"A cursor with the name '{step.name}' does not exist.")
    if step.action == "open":
        if cursor.rows is not None:
            raise TsqlError(16905, "The cursor is already open.")
        cursor.rows, cursor.position = sender.send_all(state, frame, cursor.declared.statements).rows, -1
        state.cursor_rows = len(cursor.rows)
    elif step.action == "close":
        if cursor.rows is None:
            raise TsqlError(16917, "Cursor is not open.")
        cursor.rows = None
        state.rowcount = 0
    elif step.action == "deallocate":
        del state.cursors[step.name]
        state.rowcount = 0
    else:
        _fetch(sender, state, frame, cursor, step, assign_variable)


def _fetch(sender: Sender, state: CallState, frame: Frame, cursor: Cursor, step: p.CursorAction,
           assign_variable: Assign) -> None:
    if cursor.rows is None:
        raise TsqlError(16917, "Cursor is not open.")
    if step.direction != "NEXT" and not cursor.declared.scroll:
        raise TsqlError(16911, f"fetch: The fetch type {step.direction} cannot be used with forward only cursors.")
    count = len(cursor.rows)
    offset = assign(sender.value(state, frame, step.offset), "int") if step.offset is not None else 0
    target = {"NEXT": cursor.position + 1, "PRIOR": cursor.position - 1, "FIRST": 0, "LAST": count - 1,
              "ABSOLUTE": (offset - 1 if offset > 0 else count + offset) if offset else -1,
              "RELATIVE": cursor.position + offset}[step.direction]
    if 0 <= target < count:
        cursor.position = target
        row = cursor.rows[target]
        if step.into and len(step.into) != len(row):
            raise TsqlError(16924, "Cursorfetch: The number of variables declared in the INTO list must match that of "
                                   "selected columns.")
        for name, value in zip(step.into, row, strict=False):
            assign_variable(frame, name, value)
        state.fetch_status, state.rowcount = 0, 1
    else:
        cursor.position = count if target >= count else -1
        state.fetch_status, state.rowcount = -1, 0
