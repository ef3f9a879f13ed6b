"""Running a table's AFTER triggers once a statement has changed it (`triggers`): what the application will do.

The statement and its triggers are one unit in SQL Server: an error in a trigger (XACT_ABORT is ON in
every trigger) rolls the statement back with it, and a ROLLBACK in a trigger ends the transaction and
the batch (3609). On the target the runner gives them a transaction of their own when the call has
none open (BEGIN before the statement, COMMIT after its triggers), so a failing trigger takes the
statement with it; inside the call's own transaction, the failure rolls that transaction back, as SQL
Server does. `inserted` and `deleted` are filled from the rows the runner read before and after the
statement (at most `affected.ROW_LIMIT` of each: past it the call says the trigger saw only those).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .affected import Change, ChangePlan
from .failures import TsqlError
from .sending import Sender
from .state import CallState, Frame
from .transactions import CALL_SAVEPOINT
from .triggers import Trigger, trigger_key

FILL_ROWS = 200
"""Rows of `inserted` or `deleted` sent in one INSERT."""

RunProgram = Callable[[CallState, Any, list, int], Any]
"""The runner's own way into a program: (state, program, arguments, level)."""


def firing(triggers: Mapping[str, tuple[Trigger, ...]], plan: ChangePlan | None) -> tuple[Trigger, ...]:
    """The AFTER triggers a statement fires: those of its table for its action (a MERGE's: all of them)."""
    if plan is None or not triggers:
        return ()
    found = triggers.get(trigger_key(plan.table.qualified_name), ())
    return tuple(t for t in found if not t.disabled and t.timing == "after"
                 and (plan.kind == "merge" or plan.kind in t.actions))


def begin_for_triggers(sender: Sender, state: CallState) -> bool:
    """A transaction for the statement and its triggers when the call has none open; True when it began one."""
    if state.trancount > 0 or state.rolled_back:
        return False
    sender.text(state, "BEGIN")
    return True


def fire(run_program: RunProgram, sender: Sender, state: CallState, frame: Frame, triggers: Sequence[Trigger],
         change: Change, own: bool) -> None:
    """Each trigger in turn, then COMMIT of the transaction begun for them (`own`); on a failure, the statement and
    what the triggers did are rolled back, and the failure goes on to the caller."""
    if own:
        state.trancount += 1  # a trigger runs in its statement's transaction: @@TRANCOUNT is 1 at least
    try:
        for trigger in triggers:
            if trigger.name in state.firing:
                continue  # RECURSIVE_TRIGGERS is OFF by default: a trigger does not fire itself again
            _one(run_program, sender, state, frame, trigger, change)
    except BaseException:
        _undo(sender, state, own)
        raise
    if own:
        state.trancount -= 1
        sender.text(state, "COMMIT")


def _one(run_program: RunProgram, sender: Sender, state: CallState, frame: Frame, trigger: Trigger,
         change: Change) -> None:
    kind = change.plan.kind
    made = [trigger.inserted_name, trigger.deleted_name]
    for statement in (*trigger.inserted, *trigger.deleted):
        sender.execute(state, statement.sql, ())
    try:
        if kind != "delete":
            _fill(sender, state, trigger.inserted_name, change.inserted)
        if kind != "insert":
            _fill(sender, state, trigger.deleted_name, change.deleted)
        if change.truncated:
            state.result.notes.append(f"{trigger.name} saw the first {len(change.inserted or change.deleted):,} rows of "
                                      f"the {change.rowcount:,} its statement changed")
        folded = [c.casefold() for c in trigger.columns]
        set_columns = change.plan.set_columns if kind == "update" else trigger.columns if kind != "delete" else ()
        saved = (state.xact_abort, state.rowcount, state.updated)
        state.xact_abort, state.rowcount = True, change.rowcount
        state.updated = frozenset(folded.index(c.casefold()) for c in set_columns if c.casefold() in folded)
        before = state.trancount
        state.firing.append(trigger.name)
        try:
            run_program(state, trigger.program, [], frame.level + 1)
        finally:
            state.firing.pop()
            state.xact_abort, state.rowcount, state.updated = saved
        if before > 0 and state.trancount == 0:
            raise TsqlError(3609, "The transaction ended in the trigger. The batch has been aborted.", 16)
    finally:
        names = ", ".join(f"`{n}`" for n in made if n)
        if names:
            sender.text(state, f"DROP TEMPORARY TABLE IF EXISTS {names}")


def _fill(sender: Sender, state: CallState, table: str, rows: Sequence[tuple[Any, ...]]) -> None:
    for start in range(0, len(rows), FILL_ROWS):
        chunk = rows[start:start + FILL_ROWS]
        one = "(" + ", ".join("?" * len(chunk[0])) + ")"
        sender.execute(state, f"INSERT INTO `{table}` VALUES {', '.join([one] * len(chunk))}",
                       [v for row in chunk for v in row])


def _undo(sender: Sender, state: CallState, own: bool) -> None:
    """A failed statement-and-triggers unit rolled back: the whole transaction, as XACT_ABORT does in a trigger."""
    try:
        if state.rolled_back:
            sender.text(state, f"ROLLBACK TO SAVEPOINT `{CALL_SAVEPOINT}`")
        elif own or state.trancount > 0:
            sender.text(state, "ROLLBACK")
    except Exception:  # noqa: BLE001 - a lost connection rolled back on the server already
        pass
    state.trancount, state.doomed = 0, False
