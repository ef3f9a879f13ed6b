"""Copying tables into the target, chunk by chunk in key order, several tables at once.

Each table is one job: a reader thread walks the rows in key order (from SQL Server, or from the
synthesizer), converts every value to what its target column holds and writes chunks of LOAD DATA
text, while the job's own thread loads the previous chunk; a bounded queue between them keeps at
most a few chunks in memory whatever the table's size. `--jobs` tables run at once, each as soon
as the tables its target foreign keys reference are done (order.py). A large table is instead cut
into key ranges (ranges.py) that worker processes load at once (worker.py), each range through the
same `ChunkLoader` as a whole table here.

A value that cannot be converted skips its row into the rejects file (table, key, column, reason)
and the load goes on; a warning the target raised while loading a chunk is recorded there too.
A lost connection is retried: to SQL Server by reading on from the last key read, to the target
by deleting what the interrupted chunk left and loading it again. Ctrl-C stops every job after
its current chunk; the checkpoint then holds exactly what is loaded.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConnectionFailed, ToolError
from .checkpoint import Checkpoint, decode_key, encode_key
from .encode import line_encoder, literal_from_text
from .landing import Budget, ChunkRows, Landing, landed
from .load import LocalInfileRefused, insert_rows, load_rows, wait_briefly, writers
from .meter import Meter
from .normalize import Unconvertible
from .order import LoadOrder
from .ranges import parts_for, totals
from .ranges import plan as plan_ranges
from .tables import TableSpec
from .targetdb import TargetDb, TargetLost

REJECTS_FILE = "data-rejects.jsonl"
QUEUE_CHUNKS = 2


@dataclass(frozen=True)
class CopySettings:
    jobs: int = 4
    chunk_rows: int = 10_000
    chunk_bytes: int = 8 << 20
    retries: int = 3
    truncate: bool = False


@dataclass
class Chunk:
    lines: list[Any]
    rows: int = 0
    size: int = 0
    last_key: tuple[Any, ...] | None = None
    """The source key of the chunk's last row, as read."""
    last_target_key: tuple[Any, ...] | None = None
    rejects: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class TableResult:
    spec: TableSpec
    status: str = "pending"
    """done, already done (loaded by an earlier run), interrupted or failed."""
    rows: int = 0
    bytes: int = 0
    seconds: float = 0.0
    chunks: int = 0
    rejects: int = 0
    """Rows not loaded: values that do not convert, and rows the target refused."""
    refused: int = 0
    """Of those, the rows the target refused (landing.py)."""
    method: str | None = None
    message: str | None = None
    resumed: bool = False
    checks_off: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


Rows = Callable[[TableSpec, tuple[Any, ...] | None], Iterator[Sequence[Sequence[Any]]]]
"""Batches of raw rows of a table in key order, after a key (None: from the start)."""


class Rejects:
    """OUT/data-rejects.jsonl: one line per rejected value or target warning, written as its chunk commits."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def write(self, entries: list[dict[str, Any]]) -> None:
        if not entries:
            return
        with self._lock, open(self.path, "a", encoding="utf-8") as fh:
            for entry in entries:
                fh.write(json.dumps(entry, ensure_ascii=False, default=str) + "\n")


def chunks(spec: TableSpec, batches: Iterator[Sequence[Sequence[Any]]], *, literal: bool, chunk_rows: int,
           chunk_bytes: int, keep: Callable[[Sequence[Any]], bool] | None = None) -> Iterator[Chunk]:
    """Raw rows → chunks of encoded rows (LOAD DATA lines, or INSERT literal tuples).

    This loop is the copy's Python cost per value, so it does only what a column needs: columns
    whose values pass as they are (tables.py decides) are not converted, and a chunk's last key is
    taken once, when the chunk is full.
    """
    converting = [(i, c.convert) for i, c in enumerate(spec.columns) if c.convert is not None]
    write = writers(spec, literal)
    line_of = line_encoder([c.target for c in spec.columns], [c.source.nullable for c in spec.columns])
    null = "NULL" if literal else "\\N"
    key = spec.key
    chunk = Chunk([])
    last_row: Sequence[Any] = ()
    last_values: Sequence[Any] = ()
    for batch in batches:
        for row in batch:
            if keep is not None and not keep(row):
                continue
            values = row
            if converting:
                values = list(row)
                try:
                    for i, convert in converting:
                        if values[i] is not None:
                            values[i] = convert(values[i])
                except Unconvertible:
                    chunk.rejects.append(reject(spec, row))
                    continue
            if literal:
                fields = [null if v is None else w(v) for v, w in zip(values, write, strict=True)]
                chunk.lines.append(fields)
                chunk.size += sum(len(f) for f in fields) + len(fields)
            else:
                line = line_of(values)
                chunk.lines.append(line)
                chunk.size += len(line) + 1
            chunk.rows += 1
            last_row, last_values = row, values
            if chunk.rows >= chunk_rows or chunk.size >= chunk_bytes:
                _close(chunk, key, last_row, last_values)
                yield chunk
                chunk = Chunk([])
    if chunk.rows or chunk.rejects:
        if chunk.rows:
            _close(chunk, key, last_row, last_values)
        yield chunk


def _close(chunk: Chunk, key: tuple[int, ...], row: Sequence[Any], values: Sequence[Any]) -> None:
    if key:
        chunk.last_key = tuple(row[i] for i in key)
        chunk.last_target_key = tuple(values[i] for i in key)


def reject(spec: TableSpec, row: Sequence[Any]) -> dict[str, Any]:
    """The rejects-file entry of a row whose value does not convert: which column, and why."""
    for value, column in zip(row, spec.columns, strict=True):
        if value is None or column.convert is None:
            continue
        try:
            column.convert(value)
        except Unconvertible as exc:
            return {"table": spec.label, "key": key_text(spec, row), "column": column.source.name,
                    "value": repr(value)[:200], "reason": str(exc)}
    return {"table": spec.label, "key": key_text(spec, row), "reason": "the row does not convert"}


def key_text(spec: TableSpec, row: Sequence[Any]) -> dict[str, Any] | None:
    if not spec.key:
        return None
    return {c.source.name: (row[i] if isinstance(row[i], (int, str)) or row[i] is None else str(row[i]))
            for i, c in zip(spec.key, spec.key_columns, strict=True)}


def encoded_body(chunk: Chunk, spec: TableSpec) -> bytes:
    """A chunk's LOAD DATA bytes; a row with text UTF-8 cannot carry (a lone surrogate) is rejected."""
    try:
        return ("\n".join(chunk.lines) + "\n").encode("utf-8") if chunk.lines else b""
    except UnicodeEncodeError:
        kept, lines = [], []
        for line in chunk.lines:
            try:
                kept.append(line.encode("utf-8"))
                lines.append(line)
            except UnicodeEncodeError as exc:
                chunk.rows -= 1
                chunk.rejects.append({"table": spec.label, "key": None, "value": line[:200],
                                      "reason": f"text that UTF-8 cannot hold: {exc.reason}"})
        chunk.lines = lines  # the rows sent, in the order the server counts them
        return b"\n".join(kept) + b"\n" if kept else b""


def _background(produce: Callable[[Callable[[Any], None]], None], stop: threading.Event) -> Iterator[Any]:
    """Run `produce(put)` in a thread and yield what it puts; its exception is raised here.

    When the consumer stops early (an error, or Ctrl-C), the producer's next `put` ends it.
    """
    items: queue.Queue[Any] = queue.Queue(QUEUE_CHUNKS)
    end = object()
    failure: list[BaseException] = []
    halt = threading.Event()

    def put(item: Any) -> None:
        while not halt.is_set():
            try:
                items.put(item, timeout=0.2)
                return
            except queue.Full:
                continue
        raise _Stopped

    def run() -> None:
        try:
            produce(put)
        except _Stopped:
            pass
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer, which raises it
            failure.append(exc)
        finally:
            try:
                put(end)
            except _Stopped:
                pass

    thread = threading.Thread(target=run, daemon=True, name="sqlsrv2tidb-reader")
    thread.start()
    try:
        while (item := items.get()) is not end:
            yield item
    finally:
        halt.set()
        thread.join(60)
    if failure:
        raise failure[0]


class _Stopped(Exception):
    pass


def prefetched(batches: Iterator[Any], stop: threading.Event) -> Iterator[Any]:
    """The source's batches fetched by a thread of their own: pyodbc waits for the server with the GIL
    released, so the next batch arrives while this one is converted (about a third more rows per second)."""
    def produce(put: Callable[[Any], None]) -> None:
        for batch in batches:
            put(batch)
    return _background(produce, stop)


class Copier:
    """Loads a set of tables into the target, resuming from the checkpoint."""

    def __init__(self, *, open_target: Callable[[bool], TargetDb], reader: Callable[[], Any],
                 checkpoint: Checkpoint, settings: CopySettings, rejects: Rejects, meter: Meter,
                 stop: threading.Event, method: str, expected: Callable[[Any, TableSpec], int | None] | None = None,
                 keep: dict[str, Callable[[Sequence[Any]], bool]] | None = None, resume_by_key: bool = True,
                 workers: Any = None) -> None:
        self.open_target, self.reader, self.checkpoint = open_target, reader, checkpoint
        self.workers = workers
        """worker.RangeWorkers where large tables may be split into key ranges copied by processes of their own."""
        self.settings, self.rejects, self.meter, self.stop = settings, rejects, meter, stop
        self.method, self.expected, self.keep = method, expected, keep or {}
        self.resume_by_key = resume_by_key
        """False where rows do not come in key order (synthesized): an unfinished table starts again whole."""
        self.interrupted = False
        self.retries: dict[str, int] = {}
        """Chunks read or loaded again after a lost connection, per table."""
        self._lock = threading.Lock()
        self._splitting = threading.Lock()
        self._loading: set[Any] = set()
        """The target connections loading now (`TargetDb`), which Ctrl-C stops."""

    def run(self, specs: list[TableSpec], order: LoadOrder) -> list[TableResult]:
        results = {s.target_name.casefold(): TableResult(s, checks_off=s.target_name.casefold() in order.checks_off)
                   for s in specs}
        pending = [s.target_name.casefold() for s in specs]
        done: set[str] = set()
        running: dict[Future, str] = {}
        with ThreadPoolExecutor(max_workers=max(1, self.settings.jobs), thread_name_prefix="sqlsrv2tidb-copy") as pool:
            try:
                while pending or running:
                    for name in [n for n in pending if order.ready(n, done)]:
                        if len(running) >= max(1, self.settings.jobs) or self.stop.is_set():
                            break
                        pending.remove(name)
                        running[pool.submit(self._table, results[name])] = name
                    if not running:
                        if pending and not self.stop.is_set():
                            # Waiting on a table that failed: these cannot load in order.
                            for name in pending:
                                results[name].status = "failed"
                                results[name].message = "not loaded: a table it references did not load"
                        break
                    finished, _ = wait(list(running), timeout=0.5, return_when=FIRST_COMPLETED)
                    for future in finished:
                        name = running.pop(future)
                        future.result()
                        if results[name].status in ("done", "already done"):
                            done.add(name)
            except KeyboardInterrupt:
                self.stop.set()  # every running job stops after its chunk; leaving `with` waits for them
                self.interrupted = True
                with self._lock:
                    loading = list(self._loading)
                for db in loading:  # a statement that waits (on a lock, say) is stopped, not waited for
                    db.cancel()
            except BaseException:
                self.stop.set()
                raise
        for name in pending:
            if results[name].status == "pending":
                results[name].status = "interrupted" if self.stop.is_set() else results[name].status
        return [results[s.target_name.casefold()] for s in specs]

    def _retried(self, spec: TableSpec) -> None:
        with self._lock:
            self.retries[spec.label] = self.retries.get(spec.label, 0) + 1

    # One table ---------------------------------------------------------------------------------

    def _table(self, result: TableResult) -> None:
        spec = result.spec
        name = spec.label
        state = self.checkpoint.state(name)
        if state.status == "done":
            result.status, result.rows, result.bytes, result.chunks = "already done", state.rows, state.bytes, state.chunks
            result.rejects, result.seconds, result.method = state.rejects, state.seconds, self.method
            result.refused = state.refused
            if state.ranges:
                result.extra["ranges"] = len(state.ranges)
            return
        started = time.perf_counter()
        db = None
        reader = None
        try:
            db = self.open_target(not result.checks_off)
            with self._lock:
                self._loading.add(db)
            after = self._prepare(db, result, state)
            reader = self.reader()
            expected = self.expected(reader, spec) if self.expected else None
            if state.ranges is None and state.rows == 0 and after is None:
                self._split(reader, result, expected)
            ranges = self.checkpoint.state(name).ranges
            self.meter.start(name, expected, parts=len(ranges) if ranges else None)
            if ranges:
                result.extra["ranges"] = len(ranges)
                with self._splitting:  # one split table at a time: its --jobs workers are the copy's processes
                    if not self.stop.is_set():
                        self.workers.run(self, result, not result.checks_off)
            else:
                self._load_chunks(db, reader, result, after)
            if result.status != "failed":
                result.status = "interrupted" if self.stop.is_set() else "done"
        except ToolError as exc:
            if self.stop.is_set():  # Ctrl-C stopped the statement it was running: interrupted, not failed
                result.status = "interrupted"
            else:
                result.status, result.message = "failed", str(exc)
        finally:
            if db is not None:
                with self._lock:
                    self._loading.discard(db)
            result.extra["retries"] = self.retries.get(name, 0)
            result.seconds = state.seconds + (time.perf_counter() - started)
            if result.status == "done":
                self.checkpoint.update(name, status="done", seconds=result.seconds)
            self.meter.finish(name)
            if reader is not None and hasattr(reader, "close"):
                reader.close()
            if db is not None:
                db.close()

    def _split(self, reader: Any, result: TableResult, expected: int | None) -> None:
        """Cut a large keyed table into key ranges (ranges.py) and record them before any row loads."""
        spec = result.spec
        if self.workers is None or not spec.key or not self.resume_by_key or spec.label in self.keep:
            return
        if self.settings.jobs < 2 or self.workers.split_rows <= 0:
            return
        rows = expected or reader.count(spec)  # a capture whose statistics say 0 rows is asked again
        if parts_for(rows, self.settings.jobs, self.workers.split_rows) < 2:
            return
        # The statistics decide whether to split; the cuts need the true count, or the ranges come out unequal
        # (a count estimated before the last rows arrived). Finding the cuts walks the key's index as far anyway.
        if expected:
            rows = reader.count(spec)
        parts = parts_for(rows, self.settings.jobs, self.workers.split_rows)
        if parts < 2:
            return
        entries = plan_ranges(spec, reader.boundaries(spec, parts, rows))
        if entries is not None:
            self.checkpoint.update(spec.label, ranges=entries)

    def _prepare(self, db: TargetDb, result: TableResult, state: Any) -> tuple[Any, ...] | None:
        spec = result.spec
        if state.status == "partial" and state.ranges:
            result.resumed = True  # each range deletes what its own unfinished chunk left (worker.py)
            summed = totals(state.ranges)
            result.rows, result.bytes, result.chunks, result.rejects = (summed["rows"], summed["bytes"],
                                                                         summed["chunks"], summed["rejects"])
            result.refused = summed["refused"]
            return None
        if state.status == "partial":
            result.resumed = True
            if spec.key and self.resume_by_key and state.last_target_key is not None:
                db.delete_after(spec, decode_key(state.last_target_key))
                result.rows, result.bytes, result.chunks, result.rejects = state.rows, state.bytes, state.chunks, state.rejects
                result.refused = state.refused
                return decode_key(state.last_key)
            db.delete_after(spec, None)
            self.checkpoint.update(spec.label, status="partial", rows=0, bytes=0, chunks=0, rejects=0, refused=0,
                                   last_key=None, last_target_key=None)
            return None
        if not db.is_empty(spec.target_name):
            db.truncate(spec.target_name)  # only with --truncate: the preflight refused non-empty tables otherwise
        self.checkpoint.update(spec.label, status="partial", rows=0, bytes=0, chunks=0, rejects=0, refused=0)
        return None

    def _load_chunks(self, db: TargetDb, reader: Any, result: TableResult, after: tuple[Any, ...] | None) -> None:
        spec = result.spec

        def committed(chunk: Chunk, landing: Landing) -> None:
            result.method = loader.method
            result.extra["warnings"] = result.extra.get("warnings", 0) + landing.warned
            result.refused += landing.refused
            result.rows += landing.kept
            result.bytes += chunk.size
            result.chunks += 1
            result.rejects += len(chunk.rejects) + landing.refused
            state = self.checkpoint.state(spec.label)
            self.checkpoint.update(
                spec.label, status="partial", rows=result.rows, bytes=result.bytes, chunks=result.chunks,
                rejects=result.rejects, refused=result.refused,
                last_key=encode_key(chunk.last_key) if chunk.last_key is not None else state.last_key,
                last_target_key=encode_key(chunk.last_target_key) if chunk.last_target_key is not None
                else state.last_target_key)
            self.rejects.write(chunk.rejects + landing.entries)
            self.meter.add(spec.label, landing.kept)

        state = self.checkpoint.state(spec.label)
        loader = ChunkLoader(db, reader, spec, self.settings, self.method, self.stop, keep=self.keep.get(spec.label),
                             resume_by_key=self.resume_by_key, committed=committed, retried=lambda: self._retried(spec))
        try:
            loader.run(Span(after=after, committed_target=decode_key(state.last_target_key) if after is not None else None))
        finally:
            self.method = loader.method


@dataclass
class Span:
    """The part of a table one loader reads and loads, in key order.

    `after` is the source key to read after (None: from the first row), `upto` the source key of the
    last row to read (None: to the end), `upto_target` the same row's key as the target stores it. A
    lost target connection deletes what the target holds after `committed_target` (the target key of
    the last row whose chunk committed; None: from `lower_target`, the span's own start) up to
    `upto_target`, so a span never touches rows of another span loading at the same time.
    """

    after: tuple[Any, ...] | None = None
    upto: tuple[Any, ...] | None = None
    upto_target: tuple[Any, ...] | None = None
    committed_target: tuple[Any, ...] | None = None
    lower_target: tuple[Any, ...] | None = None
    bounded: bool = False
    """A key range of a split table: deletes stay between its bounds."""


class ChunkLoader:
    """One table's (or one key range's) rows read, converted and loaded chunk by chunk over one pair
    of connections; `committed(chunk, landing)` is called after each chunk is in the target, with what
    the target kept of it, refused and changed (landing.py).

    The copier runs one per table on its threads; a range worker (worker.py) runs one in a process
    of its own, so that the same reading, converting and retrying serves both.
    """

    def __init__(self, db: TargetDb, reader: Any, spec: TableSpec, settings: CopySettings, method: str,
                 stop: Any, *, keep: Callable[[Sequence[Any]], bool] | None = None, resume_by_key: bool = True,
                 committed: Callable[[Chunk, Landing], None], retried: Callable[[], None]) -> None:
        self.db, self.reader, self.spec, self.settings, self.method = db, reader, spec, settings, method
        self.stop, self.keep, self.resume_by_key = stop, keep, resume_by_key
        self.committed, self.retried = committed, retried
        self.budget = Budget()

    def run(self, span: Span) -> None:
        for chunk in _background(self._produce(span), self.stop):
            landing = self._load_one(chunk, span)
            if chunk.last_target_key is not None:
                span.committed_target = chunk.last_target_key
            self.committed(chunk, landing)
            if self.stop.is_set():
                return

    def _produce(self, span: Span) -> Callable:
        settings, spec, reader = self.settings, self.spec, self.reader

        def produce(put: Callable[[Any], None]) -> None:
            position, attempts = span.after, 0
            while True:
                try:
                    rows = reader.rows(spec, position, upto=span.upto) if span.upto is not None \
                        else reader.rows(spec, position)
                    for chunk in chunks(spec, prefetched(rows, self.stop), literal=self.method == "insert",
                                        chunk_rows=settings.chunk_rows, chunk_bytes=settings.chunk_bytes,
                                        keep=self.keep):
                        put(chunk)
                        if chunk.last_key is not None:
                            position = chunk.last_key
                        if self.stop.is_set():
                            return
                    return
                except ConnectionFailed:
                    attempts += 1
                    if attempts > settings.retries or not spec.key or not self.resume_by_key or not hasattr(reader, "reconnect"):
                        raise
                    self.retried()
                    wait_briefly()
                    reader.reconnect()
        return produce

    def _load_one(self, chunk: Chunk, span: Span) -> Landing:
        """Load one chunk and read what the target kept of it, refused and changed, on the same connection:
        a connection lost before that was read loads the chunk again (the warnings went with it)."""
        db, spec = self.db, self.spec
        attempts = 0
        while True:
            try:
                literal = self.method == "insert"
                if literal:
                    statements = insert_rows(db, spec, chunk.lines)
                else:
                    try:
                        body = encoded_body(chunk, spec)
                        statements = load_rows(db, spec, body, len(chunk.lines))
                    except LocalInfileRefused:
                        self.method = "insert"
                        chunk.lines = [[literal_from_text(f, c.target) for f, c in
                                        zip(line.split("\t"), spec.columns, strict=True)] for line in chunk.lines]
                        literal = True
                        statements = insert_rows(db, spec, chunk.lines)
                return landed(db, spec, ChunkRows(spec, chunk.lines, literal), statements, method=self.method,
                              budget=self.budget, chunk_end=lambda: _json_key(chunk.last_key))
            except TargetLost:
                attempts += 1
                if attempts > self.settings.retries or not spec.key or not self.resume_by_key:
                    raise
                self.retried()
                wait_briefly()
                db.reconnect()
                if span.bounded:
                    db.delete_range(spec, span.lower_target if span.committed_target is None else span.committed_target,
                                    span.upto_target)
                else:
                    db.delete_after(spec, span.committed_target)


def _json_key(key: tuple[Any, ...] | None) -> list[Any] | None:
    return None if key is None else [k if isinstance(k, (int, str)) else str(k) for k in key]
