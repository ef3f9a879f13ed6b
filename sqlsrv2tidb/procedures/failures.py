"""An error T-SQL raises in a procedure the runner runs: SQL Server's number, message, severity and state.

The runner's own (a failed conversion, a cursor that is not open, THROW and RAISERROR) and the target's
(its error code kept beside SQL Server's number for the same error) are raised alike, so a CATCH block
reads ERROR_NUMBER() and ERROR_MESSAGE() the same way for both.
"""

from __future__ import annotations


class TsqlError(Exception):
    """An error T-SQL raises: SQL Server's number, its message, severity and state."""

    def __init__(self, number: int, message: str, severity: int = 16, state: int = 1, line: int | None = None,
                 target_code: int | None = None) -> None:
        super().__init__(message)
        self.number, self.message, self.severity, self.state, self.line = number, message, severity, state, line
        self.target_code = target_code
        self.procedure: str | None = None


class WouldCommit(Exception):
    """A call that must be rolled back (`transactions`, compare's writes) met what would commit: a COMMIT that takes
    @@TRANCOUNT to 0 on SQL Server, or a statement the target commits at once. The call stops before it."""
