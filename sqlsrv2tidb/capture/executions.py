"""Collects executions of statements into query classes, per-minute intervals and timed events.

Extended Events and `.sql` workload files both end up with a stream of "this statement ran (at
this time, for this long, with these values)". This module turns that stream into the workload
model: one `QueryClass` per fingerprint (translated once, however often it ran), per-minute
`IntervalStat` totals so any window's QPS can be computed, and the individual `Event`s for a timed
replay. Fingerprints are cached by a statement's literal-free shape, so ten thousand executions of
three shapes cost three fingerprint computations.

Each class keeps a uniform sample of its executions' values (`reservoir`), so replay sends the
values production sent in the proportions it sent them. An ad-hoc statement's values are its
literals: its class's text names them `@1`, `@2`, ... (`tsql.parameterize`), and each execution
keeps its own.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Generic, TypeVar, cast

from ..histogram import bucket_of
from ..model.schema import SourceRef
from ..model.workload import (
    Call,
    Event,
    IntervalStat,
    Origin,
    Parameter,
    QueryClass,
    QueryKind,
    Scalar,
    format_time,
    parse_time,
)
from ..tsql.fingerprint import fingerprint, query_id, statement_kind
from ..tsql.parameterize import parameterize
from .reservoir import Reservoir
from .wrappers import procedure_name

BUCKET_SECONDS = 60

V = TypeVar("V")


class TextCache(Generic[V]):
    """Results keyed by SQL text, emptied when what it holds passes a budget of characters.

    Long texts are keyed by a 128-bit digest, so a capture of large batches does not keep every
    batch twice; a capture of few statements run many times hits the cache almost always.
    """

    def __init__(self, budget: int = 20_000_000) -> None:
        self.budget = budget
        self._entries: dict[str | bytes, V] = {}
        self._size = 0

    @staticmethod
    def _key(text: str) -> str | bytes:
        if len(text) <= 256:
            return text
        return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()

    def get(self, text: str) -> V | None:
        return self._entries.get(self._key(text))

    def put(self, text: str, value: V, weight: int = 0) -> None:
        """Store `value`; `weight` is the characters the value itself holds."""
        key = self._key(text)
        cost = (len(key) if isinstance(key, str) else 16) + weight + 64
        if self._size + cost > self.budget:
            self._entries.clear()
            self._size = 0
        self._entries[key] = value
        self._size += cost


@dataclass(frozen=True)
class Piece:
    """One statement ready to be classed: its text, literal-free shape and this execution's values.

    `values` is None when the parameters' values are not known (a variable set by a subquery);
    such executions count but add no sample. `literals` are the values an ad-hoc statement (one
    without parameters) holds in value positions (`tsql.parameterize`).
    """

    text: str
    key: str
    line: int = 1
    parameters: tuple[Parameter, ...] = ()
    values: tuple[Scalar, ...] | None = ()
    literals: tuple[Scalar, ...] = ()
    batch: str | None = None
    """Its batch through the end of this statement, when it uses what the batch made before it
    (`QueryClass.batch`)."""


@dataclass(frozen=True)
class Metrics:
    """What one execution cost, as the source reported it (durations and CPU in microseconds)."""

    duration_us: float | None = None
    cpu_us: float | None = None
    logical_reads: float | None = None
    rows: float | None = None
    error: bool = False

    def share(self, parts: int) -> Metrics:
        """This execution's cost split evenly over the `parts` statements of its batch."""
        if parts <= 1:
            return self

        def div(x: float | None) -> float | None:
            return None if x is None else x / parts

        return Metrics(div(self.duration_us), div(self.cpu_us), div(self.logical_reads), div(self.rows), self.error)


@dataclass(frozen=True)
class Context:
    """Who ran it: the database, login and application name, and the procedure it ran in."""

    database: str | None = None
    user: str | None = None
    application: str | None = None
    procedure: str | None = None


@dataclass
class _Bucket:
    executions: int = 0
    duration: float | None = None
    min_duration: float | None = None
    max_duration: float | None = None
    cpu: float | None = None
    reads: float | None = None
    rows: float | None = None
    errors: int = 0
    durations: Counter[int] = field(default_factory=Counter)
    """Histogram buckets of each execution's duration (see `sqlsrv2tidb.histogram`)."""

    def add(self, m: Metrics, count: int) -> None:
        self.executions += count
        self.errors += count if m.error else 0
        if m.duration_us is not None:
            self.durations[bucket_of(int(m.duration_us))] += count
            self.duration = (self.duration or 0.0) + m.duration_us * count
            self.min_duration = m.duration_us if self.min_duration is None else min(self.min_duration, m.duration_us)
            self.max_duration = m.duration_us if self.max_duration is None else max(self.max_duration, m.duration_us)
        if m.cpu_us is not None:
            self.cpu = (self.cpu or 0.0) + m.cpu_us * count
        if m.logical_reads is not None:
            self.reads = (self.reads or 0.0) + m.logical_reads * count
        if m.rows is not None:
            self.rows = (self.rows or 0.0) + m.rows * count


@dataclass
class _Class:
    query: QueryClass
    samples: Reservoir
    executions: int = 0
    literal: bool = False
    """Its parameters are the literals of an ad-hoc statement (`@1`, `@2`, ...)."""
    calls: Counter[str] = field(default_factory=Counter)


class Collector:
    """Accumulates executions from one source file; `classes()`, `intervals()` and `events()` read it out."""

    def __init__(self, origin: Origin, file: str, *, keep_events: bool = True) -> None:
        self.origin = origin
        self.file = file
        self.keep_events = keep_events
        self._classes: dict[str, _Class] = {}
        self._shapes: TextCache[tuple[str, str, QueryKind]] = TextCache()
        self._buckets: dict[tuple[str, int], _Bucket] = {}
        self._events: list[Event] = []
        self._first: datetime | None = None
        self._last: datetime | None = None
        self._moments = 0
        self._previous: datetime | None = None

    def classify(self, piece: Piece) -> tuple[str, str, QueryKind]:
        """(fingerprint, query id, kind) of a statement, computed once per literal-free shape."""
        hit = self._shapes.get(piece.key)
        if hit is None:
            fp = fingerprint(piece.text)
            hit = (fp, query_id(fp), statement_kind(piece.text))
            self._shapes.put(piece.key, hit, len(fp))
        return hit

    def add(
        self,
        piece: Piece,
        *,
        line: int | None,
        when: datetime | None = None,
        count: int = 1,
        metrics: Metrics | None = None,
        context: Context | None = None,
        session_id: int | None = None,
        event: str | None = None,
    ) -> str:
        """Record `count` executions of `piece`; returns the query class id."""
        fp, qid, kind = self.classify(piece)
        cls = self._classes.get(qid)
        if cls is None:
            ctx = context or Context()
            procedure = ctx.procedure or (procedure_name(piece.text) if kind == "exec" else None)
            text, parameters, literal = piece.text, piece.parameters, False
            if not parameters and piece.literals:
                text, parameters, _ = parameterize(piece.text)
                literal = bool(parameters)
            cls = self._classes[qid] = _Class(QueryClass(
                id=qid, fingerprint=fp, text=text, kind=kind, parameters=parameters,
                database=ctx.database, user=ctx.user, application=ctx.application, procedure=procedure,
                origin=self.origin, source=SourceRef(self.file, line), batch=piece.batch,
            ), Reservoir(qid), literal=literal)
        elif piece.batch is not None and cls.query.batch is None:
            cls.query = replace(cls.query, batch=piece.batch)  # the first execution that showed its batch
        cls.executions += count
        if event is not None:
            cls.calls["rpc" if event == "rpc_completed" and piece.parameters else "batch"] += count
        values = self._sample(cls, piece, count)
        if when is None:
            return qid
        metrics = metrics or Metrics()
        if when != self._previous:  # statements split from one event share its moment
            self._moments += 1
            self._previous = when
        self._first = when if self._first is None or when < self._first else self._first
        self._last = when if self._last is None or when > self._last else self._last
        bucket_key = (qid, int(when.timestamp() // BUCKET_SECONDS))
        bucket = self._buckets.get(bucket_key)
        if bucket is None:
            bucket = self._buckets[bucket_key] = _Bucket()
        bucket.add(metrics, count)
        if self.keep_events:
            self._events.append(Event(
                timestamp=format_time(when), query_id=qid, values=values, session_id=session_id,
                duration_us=_int(metrics.duration_us), cpu_us=_int(metrics.cpu_us), rows=_int(metrics.rows),
                logical_reads=_int(metrics.logical_reads), event=event, error=metrics.error,
            ))
        return qid

    def _sample(self, cls: _Class, piece: Piece, count: int) -> tuple[Scalar, ...]:
        """Offer this execution's values to the class's reservoir; returns them in the class's parameter order.

        An execution whose values do not line up with the class's parameters (another IN-list
        length, another spelling's parameters, a value set by a subquery) counts but adds no sample.
        """
        if cls.literal:
            if piece.parameters or len(piece.literals) != len(cls.query.parameters):
                return ()
            values = tuple(piece.literals)
        else:
            if piece.values is None or not piece.parameters:
                return ()
            names = [p.name.casefold() for p in cls.query.parameters]
            if names != [p.name.casefold() for p in piece.parameters]:
                return ()
            values = tuple(piece.values)
        for _ in range(min(count, 2 * cls.samples.limit)):  # `GO 100000` weighs as much as a full reservoir
            cls.samples.add(values)
        cls.samples.seen += max(0, count - 2 * cls.samples.limit)
        return values

    @property
    def executions(self) -> int:
        return sum(c.executions for c in self._classes.values())

    def counts(self) -> dict[str, int]:
        return {qid: c.executions for qid, c in self._classes.items()}

    def classes(self) -> tuple[QueryClass, ...]:
        out = []
        for c in self._classes.values():
            q = c.query
            call = cast(Call, c.calls.most_common(1)[0][0]) if c.calls else None
            out.append(QueryClass(
                id=q.id, fingerprint=q.fingerprint, text=q.text, kind=q.kind, parameters=q.parameters,
                samples=tuple(c.samples.items), samples_from=c.samples.seen, database=q.database, user=q.user,
                application=q.application, procedure=q.procedure, origin=q.origin, source=q.source, call=call,
                batch=q.batch,
            ))
        return tuple(out)

    def intervals(self) -> tuple[IntervalStat, ...]:
        """Per-minute totals; the first and last minute are clipped to the capture's estimated span.

        A capture starts before its first event and ends after its last one. With n events over
        a span, arrivals spread evenly would leave span/(n-1) on each side, so that is the margin:
        a ten-second capture keeps its real rate instead of being spread over a minute, and a
        sparse one is not squeezed into the second of its last event. One event gets its minute.
        """
        if self._first is None or self._last is None:
            return ()
        first, last = self._first.timestamp(), self._last.timestamp()
        margin = (last - first) / (self._moments - 1) if self._moments > 1 else BUCKET_SECONDS
        span_start = round(first - margin, 3)
        span_end = round(last + margin, 3)
        out = []
        for (qid, index), b in self._buckets.items():
            start = max(index * BUCKET_SECONDS, span_start)
            end = min((index + 1) * BUCKET_SECONDS, span_end)
            if end <= start:
                end = start + 0.001
            out.append(IntervalStat(
                query_id=qid, start=_iso(start), end=_iso(end), executions=b.executions,
                total_duration_us=b.duration, min_duration_us=b.min_duration, max_duration_us=b.max_duration,
                total_cpu_us=b.cpu, total_logical_reads=b.reads, total_rows=b.rows, errors=b.errors,
                duration_buckets=tuple(sorted(b.durations.items())),
            ))
        out.sort(key=lambda i: (parse_time(i.start), i.query_id))
        return tuple(out)

    def events(self) -> tuple[Event, ...]:
        # Sort by time, not by text: `...:04Z` and `...:04.5Z` do not compare in time order as strings.
        return tuple(sorted(self._events, key=lambda e: parse_time(e.timestamp)))


def _iso(seconds: float) -> str:
    return format_time(datetime.fromtimestamp(seconds, UTC))


def _int(value: float | None) -> int | None:
    return None if value is None else int(round(value))
