"""What the query translator hands on: each query class's TiDB text, status and why."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from .finding import Finding
from .workload import QueryKind, first_by_id

Status = Literal["translated", "rewritten", "review", "unsupported"]
"""`translated`: same meaning; `rewritten`: changed to keep the meaning; `review`: runs on TiDB but the
meaning may differ; `unsupported`: no TiDB statement could be produced."""

STATUSES: tuple[Status, ...] = ("translated", "rewritten", "review", "unsupported")


@dataclass(frozen=True)
class Note:
    """One construct that changed a statement: `code` is a rule in the catalogue (`QY03`)."""

    code: str
    message: str
    status: Status | None = None
    """The status this construct alone implies (`translated` for a purely informative note); None if unknown."""


@dataclass(frozen=True)
class TranslatedQuery:
    id: str
    fingerprint: str
    source_sql: str
    target_sql: str | None
    status: Status
    notes: tuple[Note, ...] = ()
    kind: QueryKind = "other"
    parameters: tuple[str, ...] = ()
    """The source parameter (`@P1`) bound to each `?` marker of `target_sql`, in order."""


@dataclass(frozen=True)
class Translation:
    queries: tuple[TranslatedQuery, ...] = ()
    findings: tuple[Finding, ...] = ()

    def query(self, query_id: str) -> TranslatedQuery | None:
        return self._by_id.get(query_id)

    @cached_property
    def _by_id(self) -> dict[str, TranslatedQuery]:
        return first_by_id(self.queries)
