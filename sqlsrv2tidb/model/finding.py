"""Findings: everything the tool wants a DBA to know, from an unreadable statement to a write hotspot.

A finding names the rule that raised it (its code in the `rules/` catalogue), the object it is
about and where that object was defined, so the report can link to the file and line and to the
rule's TiDB documentation. Readers, the DDL planner, the query translator and the rules engine
all produce the same kind of finding.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class Severity(enum.StrEnum):
    """How much a finding stands in the way of the migration, lowest first."""

    INFO = "info"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    BLOCKER = "blocker"

    @property
    def rank(self) -> int:
        return list(Severity).index(self)

    def __ge__(self, other: object) -> bool:  # type: ignore[override]
        if not isinstance(other, Severity):
            return NotImplemented
        return self.rank >= other.rank

    def __gt__(self, other: object) -> bool:  # type: ignore[override]
        if not isinstance(other, Severity):
            return NotImplemented
        return self.rank > other.rank

    def __le__(self, other: object) -> bool:  # type: ignore[override]
        if not isinstance(other, Severity):
            return NotImplemented
        return self.rank <= other.rank

    def __lt__(self, other: object) -> bool:  # type: ignore[override]
        if not isinstance(other, Severity):
            return NotImplemented
        return self.rank < other.rank


@dataclass(frozen=True)
class Finding:
    rule: str
    """The rule code, e.g. `CP01`; its YAML in `rules/` holds the rationale, remediation and links."""
    severity: Severity
    object: str
    """What the finding is about, in the user's terms: `Sales.SalesOrderHeader`, `query q1a2b3c4d5e6`."""
    message: str
    file: str | None = None
    line: int | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def location(self) -> str:
        if self.file is None:
            return ""
        return f"{self.file}:{self.line}" if self.line else self.file
