"""Runs one schedule over worker processes and gathers their measurements (one ramp step, or a whole run).

The parent starts the workers (forked, one per core by default), waits until every connection is
open, gives all of them one common start time, then only listens: it merges the per-second
measurements as they arrive and shows the live rate, p99 and errors. Ctrl-C (or a fatal error
reported by a worker, or a worker that dies) asks every worker to stop; they stop sending, report
what they measured, and the run comes back marked as interrupted or failed, with its data, so the
caller can still write it.
"""

from __future__ import annotations

import multiprocessing
import queue as queue_module
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConnectionFailed, Interrupted
from .shares import ClusterStep
from .stats import ClassSecond, Histogram, merge_seconds
from .workers import Job, WorkerTotals, worker_main

START_MARGIN = 0.3
"""Seconds between telling workers the start time and the start, so that all begin together."""


@dataclass
class StepData:
    """What one run of a schedule measured."""

    seconds: dict[int, dict[int, ClassSecond]] = field(default_factory=dict)
    totals: WorkerTotals = field(default_factory=WorkerTotals)
    started: float = 0.0
    """Wall-clock (epoch) time of the schedule's start."""
    elapsed: float = 0.0
    interrupted: bool = False
    fatal: str | None = None
    workers: int = 0
    coordinator_cpu_s: float = 0.0
    """CPU seconds this (parent) process spent starting workers and merging their measurements."""
    cluster: ClusterStep | None = None
    """A run sent by Dask workers (`cluster`): each worker's share and what it measured, lost shares included."""


def run_schedule(job: Job, workers: int, live: Callable[[StepData, int], None] | None = None,
                 *, connect_wait: float = 60.0) -> StepData:
    """Send `job.schedule` with `workers` processes; returns the data even when stopped early."""
    shards = job.schedule.shards
    workers = max(1, min(workers, shards))
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    queue: Any = ctx.Queue()
    # Plain shared values, polled by the workers, rather than Events: an Event's set() waits for every
    # sleeper to wake, and hangs for good if one of them sat in a worker that has already exited.
    stop = ctx.RawValue("b", 0)
    start_at = ctx.RawValue("d", 0.0)
    """0 until every worker is connected; then the perf_counter time at which all of them start."""
    procs = [
        ctx.Process(target=worker_main, args=(job, w, tuple(range(w, shards, workers)), queue, start_at, stop),
                    daemon=True, name=f"sqlsrv2tidb-replay-{w}")
        for w in range(workers)
    ]
    data = StepData(workers=workers)
    cpu_at_start = time.process_time()
    interrupt = InterruptFlag()
    with interrupt:
        for p in procs:
            p.start()
        try:
            _wait_ready(queue, procs, connect_wait, interrupt, job)
        except BaseException as exc:
            stop.value = 1
            _reap(procs)
            if isinstance(exc, KeyboardInterrupt):
                raise Interrupted("interrupted while connecting: nothing was sent or measured") from None
            raise
        data.started = time.time() + START_MARGIN
        start_at.value = time.perf_counter() + START_MARGIN
        _collect(queue, procs, stop, interrupt, data, start_at.value, live)
    data.elapsed = max(0.0, time.perf_counter() - start_at.value)
    _reap(procs)
    data.coordinator_cpu_s = time.process_time() - cpu_at_start
    return data


def _wait_ready(queue: Any, procs: list[Any], wait: float, interrupt: InterruptFlag, job: Job) -> None:
    ready, deadline = 0, time.monotonic() + wait
    while ready < len(procs):
        if interrupt.is_set():
            raise KeyboardInterrupt
        try:
            kind, worker, payload = queue.get(timeout=0.2)
        except queue_module.Empty:
            if time.monotonic() > deadline:
                raise ConnectionFailed(f"{job.target.display}: connections not open after {wait:.0f}s") from None
            if not all(p.is_alive() for p in procs):
                raise ConnectionFailed(f"{job.target.display}: a replay worker exited while connecting") from None
            continue
        if kind == "ready" and payload is not None:
            raise ConnectionFailed(f"{job.target.display}: {payload}")
        ready += kind == "ready"


def _collect(queue: Any, procs: list[Any], stop: Any, interrupt: InterruptFlag, data: StepData, start: float,
             live: Callable[[StepData, int], None] | None) -> None:
    done: set[int] = set()
    shown = -1
    while len(done) < len(procs):
        if interrupt.is_set() and not stop.value:
            data.interrupted = True
            stop.value = 1
        try:
            kind, worker, payload = queue.get(timeout=0.2)
        except queue_module.Empty:
            dead = [i for i, p in enumerate(procs) if not p.is_alive() and i not in done]
            if dead and queue.empty():
                time.sleep(0.2)  # a last message may still be in the pipe
                if queue.empty():
                    data.fatal = data.fatal or f"replay worker {dead[0]} exited unexpectedly"
                    stop.value = 1
                    done.update(dead)
            kind = None
        if kind == "seconds":
            merge_seconds(data.seconds, payload)
        elif kind == "done":
            done.add(worker)
            data.totals.merge(payload)
            if payload.fatal and not stop.value:
                data.fatal = data.fatal or payload.fatal
                stop.value = 1
        now = int(time.perf_counter() - start)
        if live is not None and now != shown and now > 0:
            shown = now
            live(data, now)


def _reap(procs: list[Any]) -> None:
    for p in procs:
        p.join(timeout=10)
        if p.is_alive():
            p.terminate()
            p.join(timeout=5)


class InterruptFlag:
    """Turns Ctrl-C into a flag while a run is collecting, so a half-merged second is never lost."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._previous: Any = None

    def is_set(self) -> bool:
        return self._event.is_set()

    def __enter__(self) -> InterruptFlag:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, lambda *_: self._event.set())
        return self

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)


def recent(data: StepData, second: int) -> tuple[int, int, Histogram]:
    """(completed, errors, latency histogram) of one second over all classes, for live display."""
    row = data.seconds.get(second, {})
    hist = Histogram()
    for cell in row.values():
        hist.merge(cell.latency)
    return sum(c.ok for c in row.values()), sum(c.errors for c in row.values()), hist


def live_printer(stream: Any = None, every: int = 1) -> Callable[[StepData, int], None]:
    """A live line on stderr: the last complete second's rate, p99 and errors."""
    out = stream or sys.stderr
    tty = getattr(out, "isatty", lambda: False)()

    def show(data: StepData, now: int) -> None:
        if now % every:
            return
        # Workers send a second once it is over, so the newest second received is complete.
        latest = max(data.seconds, default=None)
        done, errors, hist = recent(data, latest) if latest is not None else (0, 0, Histogram())
        p99 = hist.percentile(99)
        total_errors = sum(c.errors for row in data.seconds.values() for c in row.values())
        text = (f"replay {now:>4}s  {done:>7} q/s  p99 {p99 / 1000 if p99 is not None else 0:8.2f} ms  "
                f"errors {errors}/s ({total_errors} total)")
        out.write(("\r" + text) if tty else text + "\n")
        out.flush()

    return show
