"""BEGIN TRAN, COMMIT, ROLLBACK and SAVE TRAN as SQL Server counts them, on one target transaction.

SQL Server nests transactions only in its count: BEGIN TRAN adds one to @@TRANCOUNT, COMMIT takes one
away and commits only when the count comes back to 0, ROLLBACK rolls everything back (or back to a
savepoint it names). The target gets BEGIN when the count leaves 0, COMMIT when it comes back,
ROLLBACK and SAVEPOINT as they come. A transaction an error doomed under XACT_ABORT cannot commit.
https://learn.microsoft.com/sql/t-sql/functions/trancount-transact-sql

A call that must leave nothing behind (compare's writes) runs `rolled_back`, as compare runs the same
call on SQL Server: in implicit-transaction mode with a BEGIN TRAN in front, so @@TRANCOUNT starts at 2
(the unseen BEGIN of implicit mode, then ours), a COMMIT of the code's own never reaches 0, a ROLLBACK
takes it to 0 and the next statement opens a new implicit transaction. On the target the call runs in
one transaction from a savepoint: BEGIN and COMMIT send nothing, ROLLBACK goes back to the savepoint,
and a COMMIT that would take the count to 0 (which would commit on SQL Server) stops the call
(`WouldCommit`) before anything is committed anywhere.
https://learn.microsoft.com/sql/t-sql/statements/set-implicit-transactions-transact-sql
"""

from __future__ import annotations

from collections.abc import Callable

from . import program as p
from .failures import TsqlError, WouldCommit
from .sending import Sender
from .state import CallState

CALL_SAVEPOINT = "sqlsrv2tidb_call"
ROLLED_BACK_TRANCOUNT = 2
"""@@TRANCOUNT when a rolled-back call starts: implicit-transaction mode's unseen BEGIN, then the caller's."""


def transaction(sender: Sender, state: CallState, step: p.Transaction) -> None:
    state.rowcount = 0
    if state.rolled_back:
        _rolled_back(sender, state, step)
        return
    if step.action == "begin":
        if state.trancount == 0:
            sender.text(state, "BEGIN")
            state.transaction_name = step.name
        state.trancount += 1
    elif step.action == "commit":
        _may_commit(state)
        state.trancount -= 1
        if state.trancount == 0:
            sender.text(state, "COMMIT")
    elif step.action == "save":
        _save(sender, state, step)
    else:
        _rollback(sender, state, step, "ROLLBACK")


def _rolled_back(sender: Sender, state: CallState, step: p.Transaction) -> None:
    """The same statements inside the caller's transaction, which only the caller ends (with a rollback)."""
    if step.action == "begin":
        state.trancount = ROLLED_BACK_TRANCOUNT if state.trancount == 0 else state.trancount + 1
        state.transaction_name = state.transaction_name or step.name
    elif step.action == "commit":
        _may_commit(state)
        if state.trancount == 1:
            raise WouldCommit("a COMMIT that takes @@TRANCOUNT to 0 (more COMMITs than BEGIN TRANs, or one after a "
                              "ROLLBACK), which would commit on SQL Server")
        state.trancount -= 1
    elif step.action == "save":
        _save(sender, state, step)
    else:
        _rollback(sender, state, step, f"ROLLBACK TO SAVEPOINT `{CALL_SAVEPOINT}`")


def _may_commit(state: CallState) -> None:
    """SQL Server's refusals of a COMMIT: no transaction, or one an error under XACT_ABORT left uncommittable."""
    if state.trancount == 0:
        raise TsqlError(3902, "The COMMIT TRANSACTION request has no corresponding BEGIN TRANSACTION.")
    if state.doomed:
        raise TsqlError(3930, "The current transaction cannot be committed and cannot support operations that "
                              "write to the log file. Roll back the transaction.")


def _save(sender: Sender, state: CallState, step: p.Transaction) -> None:
    if state.trancount == 0:
        raise TsqlError(628, "Cannot issue SAVE TRANSACTION when there is no active transaction.")
    sender.text(state, f"SAVEPOINT `{step.name}`")


def _rollback(sender: Sender, state: CallState, step: p.Transaction, whole: str) -> None:
    """ROLLBACK of a savepoint the call saved, else of the whole transaction (`whole`: what undoes it)."""
    if state.trancount == 0:
        raise TsqlError(3903, "The ROLLBACK TRANSACTION request has no corresponding BEGIN TRANSACTION.")
    if step.name and step.name != state.transaction_name and not state.doomed:
        sender.text(state, f"ROLLBACK TO SAVEPOINT `{step.name}`")
        return
    sender.text(state, whole)
    state.trancount, state.doomed = 0, False


def implicit_begin(state: CallState) -> None:
    """A statement of a rolled-back call that opens SQL Server's implicit transaction when none is open."""
    if state.rolled_back and state.trancount == 0:
        state.trancount = 1


def atomic(sender: Sender, state: CallState, line: int, body: Callable[[], None]) -> None:
    """BEGIN ATOMIC (a natively compiled body): all of it or none of it. Outside a transaction it is one (committed at
    its end, rolled back when an error leaves it); inside one, a savepoint the error rolls back to.
    https://learn.microsoft.com/sql/relational-databases/in-memory-oltp/atomic-blocks-in-native-procedures"""
    # Inside a transaction, or a call compare rolls back (nothing may commit there), the block is a savepoint.
    savepoint = f"sqlsrv2tidb_atomic_{line}" if state.trancount or state.rolled_back else None
    if savepoint is None:
        sender.text(state, "BEGIN")
        state.trancount += 1
    else:
        sender.text(state, f"SAVEPOINT `{savepoint}`")
    try:
        body()
    except BaseException:
        if savepoint is None:
            if state.trancount:
                sender.text(state, "ROLLBACK")
            state.trancount, state.doomed = 0, False
        elif state.trancount:
            sender.text(state, f"ROLLBACK TO SAVEPOINT `{savepoint}`")
        raise
    if savepoint is None and state.trancount:
        sender.text(state, "COMMIT")
        state.trancount -= 1
