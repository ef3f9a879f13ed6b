"""What one call of a procedure gave its caller: result sets, OUTPUT values, the return status, errors and messages.

With it, what the call cost the target: the T-SQL statements the runner worked through and the round
trips it made (statements sent, every one a round trip on a MySQL-protocol connection), the figures
an application that takes the procedure's logic over will live with.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .affected import Change
from .session import Failure


@dataclass
class ResultSet:
    """One result set the call returned to its caller, and the statement that produced it."""

    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]]
    description: Any
    tsql: str
    procedure: str
    line: int


@dataclass(frozen=True)
class CallError:
    """An error that reached the caller (not one a CATCH block handled)."""

    number: int
    message: str
    severity: int
    state: int
    procedure: str
    line: int | None
    target_code: int | None = None
    """The target's own error code when the target raised it."""

    def text(self) -> str:
        where = f", procedure {self.procedure}" + (f", line {self.line}" if self.line else "")
        code = f" (target error {self.target_code})" if self.target_code else ""
        return f"Msg {self.number}, level {self.severity}, state {self.state}{where}: {self.message}{code}"


@dataclass
class CallResult:
    procedure: str
    result_sets: list[ResultSet] = field(default_factory=list)
    output: dict[str, Any] = field(default_factory=dict)
    """OUTPUT parameters' values, by name (`@ErrorLogID`)."""
    return_status: int | None = None
    errors: list[CallError] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    """PRINT and RAISERROR of severity 10 or less."""
    statements: int = 0
    """T-SQL statements run (a WHILE's condition counts each time it is tested)."""
    round_trips: int = 0
    """Statements sent to the target."""
    aborted: bool = False
    """An error ended the call before its end."""
    lost: Failure | None = None
    """The connection was lost; the call stopped there."""
    notes: list[str] = field(default_factory=list)
    """What the runner did that SQL Server would not (a transaction left open, rolled back)."""
    left_out: str | None = None
    """A call run to be rolled back stopped before what would have committed (a COMMIT, DDL): why."""
    changes: list[Change] = field(default_factory=list)
    """What each statement that changed a table changed, in order (when the runner was asked to read it)."""
    counts: list[tuple[str, int, int]] = field(default_factory=list)
    """(procedure, line, rows affected) of each statement that changed a table while NOCOUNT was OFF: the counts
    SQL Server sends its client."""

    @property
    def ok(self) -> bool:
        return not self.errors and self.lost is None
