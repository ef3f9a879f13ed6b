"""The workload model: what ran on SQL Server, grouped into query classes with rates over time.

Query Store, Extended Events, plain `.sql` files and the hand-written workload spec all reduce to
the same three things: query classes (one per fingerprint), per-interval statistics for each class
(so any time window's QPS can be computed), and, when the source has them, individual timed
events (so a capture can be replayed with its original spacing).

All times are UTC ISO-8601 strings (`2024-05-01T09:00:00Z`) in files; durations are microseconds,
as SQL Server reports them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property, lru_cache
from typing import Any, Literal, Protocol, TypeVar

from .schema import SourceRef

Scalar = int | float | str | bool | None
"""A parameter value in JSON form. Binary values are kept as `0x...` text, dates as ISO text."""

QueryKind = Literal["select", "insert", "update", "delete", "merge", "exec", "ddl", "other"]
Call = Literal["rpc", "batch"]
"""How the application sent a statement: `rpc`, a call with parameters (sp_executesql, sp_prepexec and
sp_execute, a cursor prepare), which a MySQL client sends as a prepared statement; `batch`, SQL text."""
Origin = Literal["query_store", "xevents", "sql_file", "spec", "plan_cache"]


@lru_cache(maxsize=65536)
def parse_time(text: str) -> datetime:
    """Read a stored timestamp (UTC unless it carries its own offset).

    Remembered: a capture's intervals share a few boundaries (hourly ones, say), and the rates of
    every class in every window read them again: 100,000 classes read some 3.6 million times.
    A datetime cannot change, so handing out the same one is safe."""
    value = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def format_time(value: datetime) -> str:
    """Write a timestamp as UTC ISO-8601 with `Z`, dropping microseconds when they are zero."""
    value = value.astimezone(UTC)
    text = value.isoformat(timespec="microseconds" if value.microsecond else "seconds")
    return text.replace("+00:00", "Z")


@dataclass(frozen=True)
class Parameter:
    """A declared parameter: `@P1` with its T-SQL type text (`nvarchar(50)`)."""

    name: str
    type: str


@dataclass(frozen=True)
class Generator:
    """How to make a value for a parameter when the capture has none (workload spec YAML).

    kind: `random_int` (min..max inclusive, like seed 000's `random(1, 8)`), `random_float`,
    `choice` (one of `values`), `sequence` (start, step), `constant`, `random_string` (length),
    `uuid`, `now`.
    """

    kind: str
    min: float | None = None
    max: float | None = None
    values: tuple[Scalar, ...] = ()
    length: int | None = None
    start: int | None = None
    step: int | None = None
    value: Scalar = None


@dataclass(frozen=True)
class QueryClass:
    """All executions of one statement shape.

    `fingerprint` is the statement with literals and parameter markers normalised; `id` is a
    short stable hash of it (`q` + 12 hex digits). `text` is a representative statement as
    captured: with `@P1`-style markers when `parameters` is non-empty, else with its literals. An
    ad-hoc statement's values (`WHERE pub_id = '0736'`) are parameters too, named `@1`, `@2`, ... as
    SQL Server's simple parameterization names them (`tsql.parameterize`), so that each execution's
    own values are kept.

    `samples` are captured parameter value sets, in `parameters` order: a uniform sample (a
    reservoir, repeats included) of the `samples_from` executions whose values were seen, so that
    drawing from it follows the captured proportions. Query Store keeps only compiled values:
    its samples are distinct sets and `samples_from` is 0.
    """

    id: str
    fingerprint: str
    text: str
    kind: QueryKind = "other"
    parameters: tuple[Parameter, ...] = ()
    samples: tuple[tuple[Scalar, ...], ...] = ()
    samples_from: int = 0
    """Executions whose values the samples were drawn from (0: not counted, as in Query Store)."""
    generators: dict[str, Generator] = field(default_factory=dict)
    database: str | None = None
    user: str | None = None
    application: str | None = None
    procedure: str | None = None
    """The module this statement ran in, when Query Store or XE says so."""
    origin: Origin = "sql_file"
    source: SourceRef = field(default_factory=SourceRef)
    name: str | None = None
    """The user's label for the statement (a workload spec's `name: keywords-insert`); None when the source has none."""
    description: str | None = None
    """The user's words about it (a workload spec's `description:`)."""
    call: Call | None = None
    """How most of its executions were sent (see `Call`); None when the source does not say."""
    batch: str | None = None
    """The batch the statement ran in, from its start through this statement, as one execution sent it;
    kept only when the statement uses what an earlier statement of the batch made (a temp table, a
    table variable, a variable that is none of its parameters), so that it can be run after them
    (`compare`). None when it needs nothing of its batch, or the source holds the statement alone."""


@dataclass(frozen=True)
class IntervalStat:
    """What one query class did in one capture interval (a Query Store runtime_stats interval).

    Totals, not averages, so intervals and plans add up exactly; averages are derived.
    """

    query_id: str
    start: str
    end: str
    executions: int
    total_duration_us: float | None = None
    min_duration_us: float | None = None
    max_duration_us: float | None = None
    total_cpu_us: float | None = None
    total_logical_reads: float | None = None
    total_rows: float | None = None
    errors: int = 0
    """Executions that were aborted or ended in an exception (Query Store execution_type 3/4)."""
    duration_buckets: tuple[tuple[int, int], ...] = ()
    """Each execution's duration as (bucket, count) pairs of `sqlsrv2tidb.histogram`, where every
    execution was seen (Extended Events), so percentiles can be read; empty for Query Store, which
    keeps only totals, minimum and maximum."""

    @property
    def seconds(self) -> float:
        return (parse_time(self.end) - parse_time(self.start)).total_seconds()

    @property
    def avg_duration_us(self) -> float | None:
        if self.total_duration_us is None or not self.executions:
            return None
        return self.total_duration_us / self.executions


@dataclass(frozen=True)
class Window:
    """A named stretch of the capture period to replay or size for (`normal`, `nightly`, `peak`)."""

    name: str
    start: str
    end: str
    kind: Literal["busiest_hour", "batch", "user", "spec"] = "user"
    description: str | None = None

    @property
    def seconds(self) -> float:
        return (parse_time(self.end) - parse_time(self.start)).total_seconds()


@dataclass(frozen=True)
class Event:
    """One captured execution (an XE event): enough to replay it at its original time."""

    timestamp: str
    query_id: str
    values: tuple[Scalar, ...] = ()
    session_id: int | None = None
    duration_us: int | None = None
    cpu_us: int | None = None
    rows: int | None = None
    logical_reads: int | None = None
    event: str | None = None
    error: bool = False


class _Identified(Protocol):
    @property
    def id(self) -> str: ...


_HasId = TypeVar("_HasId", bound=_Identified)


def first_by_id(items: Iterable[_HasId]) -> dict[str, _HasId]:
    """The first item of each `id`, built once: a lookup per query class must not scan a
    100,000-class workload (`Workload.query`, `Translation.query`)."""
    index: dict[str, _HasId] = {}
    for item in items:
        index.setdefault(item.id, item)
    return index


@dataclass(frozen=True)
class Workload:
    queries: tuple[QueryClass, ...] = ()
    intervals: tuple[IntervalStat, ...] = ()
    windows: tuple[Window, ...] = ()
    events: tuple[Event, ...] = ()
    notes: tuple[str, ...] = ()

    def query(self, query_id: str) -> QueryClass | None:
        return self._by_id.get(query_id)

    @cached_property
    def _by_id(self) -> dict[str, QueryClass]:
        return first_by_id(self.queries)

    def window(self, name: str) -> Window | None:
        folded = name.casefold()
        return next((w for w in self.windows if w.name.casefold() == folded), None)

    @property
    def is_empty(self) -> bool:
        return not self.queries


def jsonable(value: Any) -> Scalar:
    """Reduce a driver value (Decimal, datetime, bytes, UUID) to a `Scalar` for storage."""
    from datetime import date, time
    from decimal import Decimal
    from uuid import UUID

    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (date, time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "0x" + bytes(value).hex().upper()
    if isinstance(value, UUID):
        return str(value).upper()
    return str(value)
