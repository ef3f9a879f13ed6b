"""A statement run with its change read: the rows before it, the statement, the rows after it (`affected`).

The runner calls `run_changing` for a statement whose program step carries a `ChangePlan` when the
caller asked for changes (`Runner(..., changes=True)`: compare's end state, a trigger's `inserted`
and `deleted`). Everything is sent on the call's own connection, inside the call's transaction, so
the reads see exactly what the statement saw and left. A statement that fails changes nothing and
records nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .affected import ROW_LIMIT, Change, ChangePlan, above, read_keys
from .sending import Sender
from .session import Outcome
from .state import CallState, Frame


def run_changing(sender: Sender, state: CallState, frame: Frame, plan: ChangePlan, line: int,
                 send: Callable[[], Outcome]) -> tuple[Outcome, Change]:
    """Run the statement (`send`) between the reads of its rows; its outcome and what it changed."""
    change = Change(plan, frame.program.name, line, 0)
    if plan.unknown is not None:
        outcome = send()
        change.rowcount = outcome.rowcount
        return outcome, change
    width = len(plan.table.columns)
    old: list[tuple[Any, ...]] = []
    new: list[tuple[Any, ...]] = []
    if plan.before:
        found = sender.send_all(state, frame, plan.before)
        change.description = found.description  # the table's columns first: what a DELETE's rows are described by
        change.truncated = len(found.rows) > ROW_LIMIT
        for row in found.rows[:ROW_LIMIT]:
            change.deleted.append(tuple(row[:width]))
            old.append(plan.table.key_of(row))
            if len(row) > width:  # an UPDATE that sets the key: the key the row will have
                new.append(_new_key(plan, row, width))
    if plan.new_keys:
        found = sender.send_all(state, frame, plan.new_keys)
        change.truncated = change.truncated or len(found.rows) > ROW_LIMIT
        new.extend(tuple(row) for row in found.rows[:ROW_LIMIT])
    highest = None
    if plan.generated and plan.kind == "merge":
        highest = sender.execute(state, above(plan)[0], ()).rows[0][0]
    outcome = send()
    change.rowcount = outcome.rowcount
    if plan.generated and plan.kind == "merge":
        added = sender.execute(state, above(plan)[1], (highest if highest is not None else -(2**63),)).rows
        change.truncated = change.truncated or len(added) > ROW_LIMIT
        new.extend(plan.table.key_of(row) for row in added[:ROW_LIMIT])
    if plan.generated and plan.kind == "insert" and outcome.rowcount > 0:
        count = min(outcome.rowcount, ROW_LIMIT)
        if plan.table.identity is None and plan.table.sequence is not None:
            # The key's default drew from a sequence: one INSERT takes its values in a row, the last is LASTVAL().
            last = sender.execute(state, f"SELECT LASTVAL({plan.table.sequence})", ()).rows[0][0]
            step = plan.table.sequence_increment
            change.generated = [int(last) - step * (outcome.rowcount - 1 - n) for n in range(count)]
        else:
            first = sender.execute(state, "SELECT LAST_INSERT_ID()", ()).rows[0][0]
            change.generated = [int(first) + n for n in range(count)]
        change.truncated = change.truncated or outcome.rowcount > ROW_LIMIT
        numbered = (plan.table.identity,) if plan.table.identity is not None else plan.table.key
        new.extend((value,) if plan.table.key == numbered else () for value in change.generated)
        new = [k for k in new if k]
    change.keys = list(dict.fromkeys([*old, *new]))
    if plan.kind == "delete":
        return outcome, change

    def fetch(sql: str, values: Sequence[Any]) -> tuple[list[tuple[Any, ...]], Any]:
        answer = sender.execute(state, sql, values)
        return [tuple(r) for r in answer.rows], answer.description

    change.inserted, change.description = read_keys(plan, change.keys, fetch)
    return outcome, change


def _new_key(plan: ChangePlan, row: Sequence[Any], width: int) -> tuple[Any, ...]:
    """The key a row has after an UPDATE that sets some of its key columns (the others keep theirs)."""
    key = list(plan.table.key_of(row))
    for name, value in zip(plan.new_key_columns, row[width:], strict=False):
        key[plan.table.key.index(name)] = value
    return tuple(key)
