"""The sending side of a replay: worker processes, each driving its share of connections on schedule.

Python runs one thread at a time per process, so the run is spread over processes (one per core by
default). Inside a worker each connection owns one shard of the schedule (see `schedule`) and is
driven by its own thread (blocking drivers, which release the GIL while they wait for the server)
or its own asyncio task (asyncmy). A connection waits until its next intended send time, sends,
and records the result in a `Recorder` only it touches; there is no queue and no lock per
statement. When the target is slow the connection is late, sends at once, and the lateness is in
the latency (open loop). Sends still due when the run's time is up are counted as `missed`.

Measurements leave the worker once per second, as whole seconds, over a multiprocessing queue:
`("ready", w, error)`, `("seconds", w, {second: {class: ClassSecond}})`, and finally
`("done", w, WorkerTotals)`. SIGINT is ignored in workers; the parent asks them to stop through a
shared flag they look at four times a second, and they still send everything measured.
"""

from __future__ import annotations

import asyncio
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..procedures.workload import CallPlan
from ..target import Target
from . import drivers
from .params import ParameterMaker, ParameterPlan
from .procedure_calls import run_call
from .schedule import RateSchedule, Schedule
from .stats import Recorder

RECONNECT_PAUSE = 0.1
"""Seconds between attempts to reopen a lost connection; sends due meanwhile count as errors."""
SAMPLES_PER_CODE = 3


@dataclass(frozen=True)
class Statement:
    """One replayable query class: the driver-ready text and where its values come from.

    A translated batch holds several statements; drivers send one at a time (no multi-statement
    mode), so `batch` then lists each statement with its number of markers, sent in order as one
    replayed execution. `prepared` lists the statements the same way, with `?` markers, when the
    class is sent as server-side prepared statements (see `protocol`); it is empty for text.
    """

    id: str
    sql: str
    plan: ParameterPlan
    batch: tuple[tuple[str, int], ...] = ()
    prepared: tuple[tuple[str, int], ...] = ()
    call: CallPlan | None = None
    """A class that calls procedures: each send is one call, run by the procedure runner (`procedure_calls`)."""


def run_batch(run: Callable[[str, tuple[Any, ...]], Any], batch: tuple[tuple[str, int], ...],
              params: tuple[Any, ...]) -> None:
    offset = 0
    for sql, count in batch:
        run(sql, params[offset:offset + count])
        offset += count


async def run_batch_async(run: Callable[[str, tuple[Any, ...]], Any], batch: tuple[tuple[str, int], ...],
                          params: tuple[Any, ...]) -> None:
    offset = 0
    for sql, count in batch:
        await run(sql, params[offset:offset + count])
        offset += count


@dataclass(frozen=True)
class Job:
    """Everything a worker needs; inherited by the forked worker process."""

    target: Target
    driver: str
    statements: tuple[Statement, ...]
    schedule: Schedule
    seed: int
    connect_timeout: float = 5.0
    step: int = 0
    """Which schedule of the run this is (a ramp's step): generated values differ from step to step."""
    serial_base: int = 0
    """Send numbers the earlier steps may have used (see `params.serial_span`)."""
    prepared: bool = False
    """Some statements are sent as server-side prepared statements: connections are opened for them."""
    procedures: bool = False
    """Some classes call procedures (sent through the procedure runner)."""


@dataclass
class WorkerTotals:
    """What a worker reports once, at the end: error groups, reconnects, missed sends."""

    errors: dict[int, list[Any]] = field(default_factory=dict)
    """code → [count, [(class id, message), ...] up to SAMPLES_PER_CODE]."""
    reconnects: int = 0
    missed: int = 0
    fatal: str | None = None
    cpu_s: float = 0.0
    """CPU seconds the worker process used (all its threads), to report client cost per statement."""
    calls: dict[str, list[int]] = field(default_factory=dict)
    """Procedure calls by class id: [calls, statements run, round trips, calls that failed]."""

    def call(self, class_id: str, statements: int, round_trips: int, failed: bool) -> None:
        entry = self.calls.get(class_id)
        if entry is None:
            entry = self.calls[class_id] = [0, 0, 0, 0]
        entry[0] += 1
        entry[1] += statements
        entry[2] += round_trips
        entry[3] += int(failed)

    def error(self, code: int, class_id: str, message: str) -> None:
        entry = self.errors.get(code)
        if entry is None:
            entry = self.errors[code] = [0, []]
        entry[0] += 1
        if len(entry[1]) < SAMPLES_PER_CODE and (class_id, message) not in entry[1]:
            entry[1].append((class_id, message))

    def merge(self, other: WorkerTotals) -> WorkerTotals:
        for code, (count, samples) in other.errors.items():
            entry = self.errors.setdefault(code, [0, []])
            entry[0] += count
            for s in samples:
                if len(entry[1]) < SAMPLES_PER_CODE and s not in entry[1]:
                    entry[1].append(s)
        for class_id, figures in other.calls.items():
            entry = self.calls.setdefault(class_id, [0, 0, 0, 0])
            for i, figure in enumerate(figures):
                entry[i] += figure
        self.reconnects += other.reconnects
        self.missed += other.missed
        self.fatal = self.fatal or other.fatal
        self.cpu_s += other.cpu_s
        return self


class Pacer:
    """Waits for intended send times on an injectable clock and sleep; `wait` returns False once stopped.

    Sleeps are cut into slices of at most `SLICE` seconds so a stop request is seen quickly, and a
    delay under `MIN_SLEEP` is not slept at all: a timer wake-up costs more CPU (tens of µs in a
    VM) and overshoots by more than that, so the send leaves at once, a few µs early.
    """

    SLICE = 0.2
    MIN_SLEEP = 50e-6

    def __init__(self, start: float, clock: Callable[[], float], sleep: Callable[[float], Any]) -> None:
        self.start, self.clock, self.sleep = start, clock, sleep
        self.stopped = False

    def now(self) -> float:
        return self.clock() - self.start

    def wait(self, t: float) -> bool:
        delay = t - (self.clock() - self.start)
        while delay > self.MIN_SLEEP and not self.stopped:
            self.sleep(delay if delay < self.SLICE else self.SLICE)
            delay = t - (self.clock() - self.start)
        return not self.stopped


class _Sender:
    """Shared logic of one connection's loop: values, errors, reconnects (thread or asyncio flavour)."""

    def __init__(self, job: Job, shard: int, totals: WorkerTotals, recorder: Recorder, pacer: Pacer) -> None:
        self.job, self.shard, self.totals, self.recorder, self.pacer = job, shard, totals, recorder, pacer
        self.makers: dict[int, ParameterMaker] = {}
        self.last_attempt = -1e9
        self.end = job.schedule.duration

    def values(self, cls: int, captured: tuple[Any, ...] | None) -> tuple[Any, ...]:
        statement = self.job.statements[cls]
        maker = self.makers.get(cls)
        if maker is None:
            maker = self.makers[cls] = ParameterMaker(statement.plan, self.job.seed, self.shard,
                                                      self.job.schedule.shards, statement.id, self.job.step,
                                                      self.job.serial_base)
        if captured is not None and statement.plan.takes_captured:
            if all(m.index < len(captured) for m in statement.plan.markers):
                return maker.next(captured)
        return maker.next()

    def failed(self, cls: int, exc: BaseException) -> str:
        """Count a failure; returns its kind (`lost` means: drop the connection)."""
        code, message, kind = drivers.classify(exc)
        self.totals.error(code, self.job.statements[cls].id, message)
        if kind == "fatal":
            self.totals.fatal = self.totals.fatal or f"MySQL error {code}: {message}"
            self.pacer.stopped = True  # every connection of the worker stops; the parent stops the others
        return kind

    def may_reconnect(self, now: float) -> bool:
        if now - self.last_attempt < RECONNECT_PAUSE:
            return False
        self.last_attempt = now
        return True

    def count_missed(self, t: float, stream: Any) -> None:
        """Count the send due at `t`, which time ran out for, and every later one of this shard."""
        schedule = self.job.schedule
        left = schedule.sends_from(self.shard, t) if isinstance(schedule, RateSchedule) else None
        self.totals.missed += left if left is not None else 1 + sum(1 for s, _, _ in stream if s < self.end)


def run_thread_connection(job: Job, shard: int, conn: drivers.Connection | None, pacer: Pacer,
                          totals: WorkerTotals, recorder: Recorder, errors: tuple[type[BaseException], ...]) -> None:
    """Drive one blocking connection through its shard, recording into `recorder` and `totals` (its own)."""
    sender = _Sender(job, shard, totals, recorder, pacer)
    statements, clock, start, done = job.statements, pacer.clock, pacer.start, sender.recorder.done
    end = sender.end
    stream = job.schedule.stream(shard)
    for t, cls, captured in stream:
        if not pacer.wait(t) or totals.fatal:
            break
        if clock() - start > end:
            sender.count_missed(t, stream)
            break
        params = sender.values(cls, captured)
        if conn is None and sender.may_reconnect(clock() - start):
            try:
                conn = drivers.connect(job.target, job.driver, timeout=job.connect_timeout, prepared=job.prepared,
                                       found_rows=True)
                totals.reconnects += 1
            except errors as exc:
                sender.failed(cls, exc)
                now = clock() - start
                done(cls, t, now, now, False)
                continue
        sent = clock() - start
        if conn is None:
            totals.error(2003, statements[cls].id, "not connected (waiting to reconnect)")
            done(cls, t, sent, sent, False)
            continue
        statement = statements[cls]
        if statement.call is not None:
            ok, lost = run_call(conn, job.driver, statement.id, statement.call, params, totals)
            if lost:
                conn.close()
                conn = None
            done(cls, t, sent, clock() - start, ok)
            continue
        try:
            if statement.prepared:
                run_batch(conn.run_prepared, statement.prepared, params)  # type: ignore[arg-type]
            elif statement.batch:
                run_batch(conn.run, statement.batch, params)
            else:
                conn.run(statement.sql, params)
            ok = True
        except errors as exc:
            ok = False
            if sender.failed(cls, exc) == "lost":
                conn.close()
                conn = None
        done(cls, t, sent, clock() - start, ok)
    if conn is not None:
        conn.close()


async def run_async_connection(job: Job, shard: int, conn: drivers.AsyncConnection | None, pacer: Pacer,
                               totals: WorkerTotals, recorder: Recorder,
                               errors: tuple[type[BaseException], ...]) -> None:
    """The asyncio twin of `run_thread_connection` (asyncmy)."""
    sender = _Sender(job, shard, totals, recorder, pacer)
    statements, clock, start, done = job.statements, pacer.clock, pacer.start, sender.recorder.done
    end = sender.end
    stream = job.schedule.stream(shard)
    for t, cls, captured in stream:
        delay = t - (clock() - start)
        while delay > Pacer.MIN_SLEEP and not pacer.stopped:
            await asyncio.sleep(min(delay, 0.2))
            delay = t - (clock() - start)
        if pacer.stopped or totals.fatal:
            break
        if clock() - start > end:
            sender.count_missed(t, stream)
            break
        params = sender.values(cls, captured)
        if conn is None and sender.may_reconnect(clock() - start):
            try:
                conn = await drivers.connect_async(job.target, timeout=job.connect_timeout)
                totals.reconnects += 1
            except errors as exc:
                sender.failed(cls, exc)
                now = clock() - start
                done(cls, t, now, now, False)
                continue
        sent = clock() - start
        if conn is None:
            totals.error(2003, statements[cls].id, "not connected (waiting to reconnect)")
            done(cls, t, sent, sent, False)
            continue
        try:
            statement = statements[cls]
            if statement.batch:
                await run_batch_async(conn.run, statement.batch, params)
            else:
                await conn.run(statement.sql, params)
            ok = True
        except errors as exc:
            ok = False
            if sender.failed(cls, exc) == "lost":
                conn.close()
                conn = None
        done(cls, t, sent, clock() - start, ok)
    if conn is not None:
        conn.close()


def worker_main(job: Job, worker: int, shards: tuple[int, ...], queue: Any, start_at: Any, stop: Any) -> None:
    """Entry point of a worker process: connect, wait for the common start, send, report.

    A cluster worker runs it in a thread of its own process (`cluster_task`), where `queue`, `start_at` and
    `stop` are in-process stand-ins and Ctrl-C is the coordinator's business, not this thread's.
    """
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    cpu_at_start = time.process_time()
    totals = WorkerTotals()
    recorders = [Recorder() for _ in shards]
    try:
        errors = drivers.driver_errors(job.driver)
        if job.driver == "asyncmy":
            asyncio.run(_async_worker(job, worker, shards, queue, start_at, stop, totals, recorders, errors,
                                      cpu_at_start))
            return
        try:
            conns = [drivers.connect(job.target, job.driver, timeout=job.connect_timeout, prepared=job.prepared,
                                     found_rows=True) for _ in shards]
        except errors as exc:
            queue.put(("ready", worker, _describe(exc)))
            return
        queue.put(("ready", worker, None))
        _wait_for_start(start_at, stop)
        pacer = Pacer(start_at.value, time.perf_counter, time.sleep)
        pacer.stopped = bool(stop.value)
        # Each connection counts into its own totals (no lock on the hot path); merged when all are done.
        own = [WorkerTotals() for _ in shards]
        runners = [threading.Thread(target=_guarded, args=(job, s, c, pacer, t, r, errors), daemon=True)
                   for s, c, t, r in zip(shards, conns, own, recorders, strict=True)]
        for thread in runners:
            thread.start()
        while any(thread.is_alive() for thread in runners):
            next(thread for thread in runners if thread.is_alive()).join(0.25)
            if stop.value:
                pacer.stopped = True
            _send_seconds(queue, worker, recorders, int(pacer.now()) - 1)
        for part in own:
            totals.merge(part)
    except Exception as exc:  # noqa: BLE001 - a worker's failure must reach the parent as a message, not a traceback
        totals.fatal = totals.fatal or f"worker {worker} failed: {type(exc).__name__}: {exc}"
    _send_seconds(queue, worker, recorders, None)
    totals.cpu_s = time.process_time() - cpu_at_start
    queue.put(("done", worker, totals))


def _wait_for_start(start_at: Any, stop: Any) -> None:
    """Wait until the parent sets the common start time (or asks to stop before it)."""
    while not start_at.value and not stop.value:
        time.sleep(0.001)


def _guarded(job: Job, shard: int, conn: drivers.Connection, pacer: Pacer, totals: WorkerTotals,
             recorder: Recorder, errors: tuple[type[BaseException], ...]) -> None:
    """A connection thread that turns any surprise into a fatal stop instead of a thread traceback."""
    try:
        run_thread_connection(job, shard, conn, pacer, totals, recorder, errors)
    except Exception as exc:  # noqa: BLE001 - reported through the totals, the run stops cleanly
        totals.fatal = totals.fatal or f"connection {shard} failed: {type(exc).__name__}: {exc}"
        pacer.stopped = True


def _describe(exc: BaseException) -> str:
    code, message, _ = drivers.classify(exc)
    return f"MySQL error {code}: {message}" if code else message


def _send_seconds(queue: Any, worker: int, recorders: list[Recorder], before: int | None) -> None:
    from .stats import merge_seconds

    out: dict[int, dict[int, Any]] = {}
    for recorder in recorders:
        merge_seconds(out, recorder.take(before))
    if out:
        queue.put(("seconds", worker, out))


async def _async_worker(job: Job, worker: int, shards: tuple[int, ...], queue: Any, start_at: Any, stop: Any,
                        totals: WorkerTotals, recorders: list[Recorder],
                        errors: tuple[type[BaseException], ...], cpu_at_start: float) -> None:
    """One asyncio loop per worker: connect, start together, one task per connection, flush each second."""
    loop = asyncio.get_running_loop()
    try:
        conns = [await drivers.connect_async(job.target, timeout=job.connect_timeout) for _ in shards]
    except errors as exc:
        queue.put(("ready", worker, _describe(exc)))
        return
    queue.put(("ready", worker, None))
    await loop.run_in_executor(None, _wait_for_start, start_at, stop)
    pacer = Pacer(start_at.value, time.perf_counter, lambda _delay: False)
    pacer.stopped = bool(stop.value)
    own = [WorkerTotals() for _ in shards]
    tasks = [asyncio.ensure_future(run_async_connection(job, s, c, pacer, t, r, errors))
             for s, c, t, r in zip(shards, conns, own, recorders, strict=True)]
    while not all(task.done() for task in tasks):
        await asyncio.wait(tasks, timeout=0.25)
        if stop.value:
            pacer.stopped = True
        _send_seconds(queue, worker, recorders, int(pacer.now()) - 1)
    for part in own:
        totals.merge(part)
    for task in tasks:
        if task.exception() is not None:
            totals.fatal = totals.fatal or f"worker {worker} failed: {task.exception()!r}"
    _send_seconds(queue, worker, recorders, None)
    totals.cpu_s = time.process_time() - cpu_at_start
    queue.put(("done", worker, totals))
