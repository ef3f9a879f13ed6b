"""The connection the runner sends a procedure's statements on: a small interface replay and compare implement.

The runner imports no database driver. Replay hands it a connection of its workers (`replay.drivers`),
compare one of its target side; each implements `TargetSession`: run one statement with its
values (`?` markers, in order) and return its whole answer, and say what a failure was. A failure
the target reports is the procedure's error (it may go to a CATCH block); a lost connection ends
the call; anything else is a fault of the runner or the driver and is raised.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass
class Outcome:
    """What one statement answered: its result set (columns None when it returned none), rows changed or returned."""

    columns: tuple[str, ...] | None = None
    rows: list[tuple[Any, ...]] = field(default_factory=list)
    rowcount: int = 0
    description: Any = None
    """The driver's own description of the columns (compare reads the types from it); opaque here."""


@dataclass(frozen=True)
class Failure:
    """A statement the target refused: its error code and message, and whether the connection is gone."""

    code: int
    message: str
    lost: bool = False


class TargetSession(Protocol):
    """One connection to the target, with autocommit on (the runner sends BEGIN and COMMIT itself)."""

    def execute(self, sql: str, values: Sequence[Any]) -> Outcome:
        """Run one statement (`?` markers bound to `values` in order) and read its whole answer."""
        ...

    def failure(self, error: BaseException) -> Failure | None:
        """The target's answer an exception from `execute` carries, or None when it is no answer of the target's."""
        ...
