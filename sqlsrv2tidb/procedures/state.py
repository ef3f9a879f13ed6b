"""What a call keeps while it runs: each procedure's variables, and what T-SQL keeps per session.

Per procedure on the call stack (a `Frame`): its variables with their declared types, the temp
tables it made (dropped when it ends, as SQL Server drops a procedure's #tables). Per call (the
`CallState`): @@ROWCOUNT, @@ERROR, @@FETCH_STATUS, @@TRANCOUNT and whether the transaction can
still commit (XACT_STATE), SET NOCOUNT / XACT_ABORT / ROWCOUNT, the cursors with their rows, the
error a CATCH block is handling (ERROR_MESSAGE() and the others), and what the call returned.
https://learn.microsoft.com/sql/t-sql/functions/system-functions-transact-sql
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .failures import TsqlError
from .program import CursorDeclare, Program
from .results import CallError, CallResult


@dataclass
class Frame:
    """One procedure (or batch) running: its program, variables (lower-case name -> value) and their types."""

    program: Program
    variables: dict[str, Any] = field(default_factory=dict)
    types: dict[str, str] = field(default_factory=dict)
    temp_tables: list[str] = field(default_factory=list)
    level: int = 1


@dataclass
class Cursor:
    declared: CursorDeclare
    rows: list[tuple[Any, ...]] | None = None
    """None until OPEN (and after CLOSE)."""
    position: int = -1


@dataclass
class CallState:
    result: CallResult
    rowcount: int = 0
    error: int = 0
    fetch_status: int = -1
    cursor_rows: int = 0
    trancount: int = 0
    doomed: bool = False
    """XACT_STATE() = -1: an error under XACT_ABORT left the transaction uncommittable."""
    transaction_name: str | None = None
    enclosing: bool = False
    """The call runs in its caller's transaction (`Runner.call(..., enclosing=True)`)."""
    rolled_back: bool = False
    """The call runs inside a transaction its caller rolls back, as compare runs a write on SQL Server
    (`transactions.rolled_back`): nothing it does may commit."""
    deadline: float | None = None
    """The monotonic time past which the call stops (`Limits.seconds`)."""
    nocount: bool = False
    xact_abort: bool = False
    row_limit: int = 0
    """SET ROWCOUNT n (0: none)."""
    try_depth: int = 0
    handling: list[TsqlError] = field(default_factory=list)
    """Errors the CATCH blocks now running handle, innermost last."""
    cursors: dict[str, Cursor] = field(default_factory=dict)
    frames: list[Frame] = field(default_factory=list)
    bound: dict[str, Any] = field(default_factory=dict)
    """Values bound for one statement only (the row an INSERT ... EXEC inserts)."""
    firing: list[str] = field(default_factory=list)
    """The triggers running now, innermost last (`firing`)."""
    updated: frozenset[int] = frozenset()
    """In a trigger: the positions of the columns its statement set (UPDATE(column))."""

    def runtime(self, name: str) -> Any:
        """The value of `@@ROWCOUNT`, `ERROR_MESSAGE()`, `XACT_STATE()`... by the runner's name for it."""
        if name == "rowcount":
            return self.rowcount
        if name == "error":
            return self.error
        if name == "trancount":
            return self.trancount
        if name == "fetch_status":
            return self.fetch_status
        if name == "cursor_rows":
            return self.cursor_rows
        if name == "nestlevel":
            return self.frames[-1].level if self.frames else 0
        if name == "xact_state":
            return 0 if self.trancount == 0 else -1 if self.doomed else 1
        if name.startswith("c") and name[1:].isdigit():
            return self.bound.get(name)
        if name.startswith("updated_") and name[8:].isdigit():
            return 1 if int(name[8:]) in self.updated else 0
        handled = self.handling[-1] if self.handling else None
        if handled is None:
            return None
        return {"error_number": handled.number, "error_message": handled.message, "error_severity": handled.severity,
                "error_state": handled.state, "error_line": handled.line,
                "error_procedure": handled.procedure}.get(name)

    def to_client(self, error: TsqlError) -> None:
        """An error the caller sees (no CATCH took it)."""
        self.result.errors.append(CallError(error.number, error.message, error.severity, error.state,
                                            error.procedure or self.result.procedure, error.line, error.target_code))
