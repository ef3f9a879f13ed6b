"""What a Dask worker runs for a cluster replay: one share, with the local engine's own worker loop.

A Dask worker is a process; it needs this package installed and nothing else. The coordinator
(`cluster`) sends `run_share` a `ShareTask` holding the job (the schedule, the translated
statements, the target with its password) in the task itself, in memory: nothing is written on the
worker, and the task's repr, which Dask logs when a task fails, names the target without its
password (`Target` and `Secret` print none). `run_share` calls `workers.worker_main`, the loop a
local worker process runs, in this task's thread; the queue and the two shared flags that a local
parent gives a worker process are replaced by `_Share`, which the coordinator reads and sets through
`client.run` (the functions below run on the worker's event loop, beside the task):

- `about`: this worker's tool version, installed drivers and host, checked before anything is sent;
- `now`: this worker's clock, sampled for the clock offset (`clock`);
- `poll`: the share's state (`waiting` for the task to start, `connecting`, `ready`, `unreachable`,
  `sending`) and the seconds measured since the last poll, pickled (kept here too: the task returns
  all of them, so a poll that goes astray loses nothing; the polled ones stand in for a share whose
  worker is lost);
- `start`: the agreed start instant, already on this worker's clock; `stop`: stop sending.

A task whose future is cancelled (the coordinator's client went away) stops as if told to, so an
abandoned run ends on its own. While a share sends, the worker's diagnostics are paused: its
statistical profiler (100 samples a second, of every thread), its event-loop tick (50 a second),
and its memory and system monitors (the dashboard's figures, and the spilling of data to disk, which
a share has none of). Together they cost an idle worker ~35 ms of CPU per second, against ~5 ms for a
local worker process (measured, benchmarks/replay/RESULTS.md), which a replay would count as the cost
of its statements; with them paused a Dask worker costs ~3 ms a second more than a local one. They
start again when the share ends.
"""

from __future__ import annotations

import os
import pickle
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from .. import __version__
from . import drivers
from .stats import ClassSecond, merge_seconds
from .workers import Job, WorkerTotals, worker_main

PAUSED_CALLBACKS = ("profile", "profile-cycle", "tick", "ticks", "memory_monitor", "monitor")
DRIVERS = ("mysqlclient", "pymysql", "asyncmy")


@dataclass(frozen=True, repr=False)
class ShareTask:
    """One share of one step of a run: its connections (shards) of `job.schedule`."""

    run: str
    """Names this step of this run on the worker (for `poll`, `start`, `stop`)."""
    share: int
    shards: tuple[int, ...]
    job: Job

    def __repr__(self) -> str:
        return (f"ShareTask(run={self.run!r}, share={self.share}, connections={len(self.shards)}, "
                f"target={self.job.target.display!r})")


@dataclass
class ShareOutcome:
    """What `run_share` returns: every second it measured and its totals."""

    share: int
    host: str
    state: str
    """`done`, or `unreachable` (the worker could not connect to the target; `error` says why)."""
    error: str | None = None
    seconds: dict[int, dict[int, ClassSecond]] = field(default_factory=dict)
    totals: WorkerTotals = field(default_factory=WorkerTotals)
    start_late_s: float = 0.0
    stopped_after_s: float | None = None
    """Seconds after its start when the share saw a stop request (None: it ran to the end of its schedule)."""


class _Value:
    """The in-process stand-in for a local worker's shared `start_at` value."""

    __slots__ = ("value",)

    def __init__(self, value: float) -> None:
        self.value = value


class _Stop:
    """The stand-in for the shared stop flag: set by `stop`, or when this task has been cancelled.

    `worker_main` looks at it four times a second and then stops its connections; `seen` is when it
    first saw it set (perf_counter), so the share can say how long it really sent.
    """

    def __init__(self, tasks: Any, key: Any) -> None:
        self.asked = False
        self.seen: float | None = None
        self._tasks, self._key = tasks, key

    @property
    def value(self) -> int:
        task = self._tasks.get(self._key)
        if self.asked or task is None or task.state == "cancelled":
            if self.seen is None:
                self.seen = time.perf_counter()
            return 1
        return 0


class _Share:
    """A running share in this process: the queue `worker_main` reports into, and what `poll` hands out."""

    def __init__(self, task: ShareTask, stop: _Stop) -> None:
        self.task, self.stop = task, stop
        self.start_at = _Value(0.0)
        self.state, self.error = "connecting", None
        self.seconds: dict[int, dict[int, ClassSecond]] = {}
        self.totals = WorkerTotals()
        self.start_late_s = 0.0
        self._unread: list[bytes] = []
        self._lock = threading.Lock()

    def put(self, message: tuple[str, int, Any]) -> None:
        kind, _, payload = message
        if kind == "ready":
            self.state, self.error = ("ready", None) if payload is None else ("unreachable", payload)
        elif kind == "seconds":
            blob = pickle.dumps(payload)  # a copy, taken before the cells are merged into (and shared with) `seconds`
            merge_seconds(self.seconds, payload)
            with self._lock:
                self._unread.append(blob)
        elif kind == "done":
            self.totals = payload

    def take(self) -> list[bytes]:
        with self._lock:
            unread, self._unread = self._unread, []
        return unread


_RUNNING: dict[str, _Share] = {}


def run_share(task: ShareTask) -> ShareOutcome:
    """The Dask task: connect this share's connections, wait for the start, send, return the measurements."""
    from distributed import get_worker

    worker = get_worker()
    share = _Share(task, _Stop(worker.state.tasks, worker.get_current_task()))
    _RUNNING[task.run] = share
    paused = _pause(worker)
    try:
        worker_main(task.job, task.share, task.shards, share, share.start_at, share.stop)
    finally:
        _resume(worker, paused)
        _RUNNING.pop(task.run, None)
    state = "unreachable" if share.state == "unreachable" else "done"
    started, seen = share.start_at.value, share.stop.seen
    sent_for = seen - started if started and seen is not None and seen > started else None
    return ShareOutcome(task.share, socket.gethostname(), state, share.error, share.seconds, share.totals,
                        share.start_late_s, sent_for)


def _pause(worker: Any) -> list[Any]:
    callbacks = [pc for name, pc in worker.periodic_callbacks.items() if name in PAUSED_CALLBACKS and pc.is_running()]
    worker.loop.add_callback(lambda: [pc.stop() for pc in callbacks])  # tornado's callbacks belong to the loop
    return callbacks


def _resume(worker: Any, callbacks: list[Any]) -> None:
    worker.loop.add_callback(lambda: [pc.start() for pc in callbacks])


def about() -> dict[str, Any]:
    """This worker as the coordinator needs to know it before sending it anything."""
    return {"version": __version__, "drivers": [d for d in DRIVERS if drivers.installed(d)],
            "host": socket.gethostname(), "pid": os.getpid()}


def now() -> float:
    return time.time()


def poll(run: str) -> dict[str, Any]:
    share = _RUNNING.get(run)
    if share is None:
        return {"state": "waiting", "error": None, "seconds": []}
    return {"state": share.state, "error": share.error, "seconds": share.take()}


def start(run: str, starts: dict[str, float], dask_worker: Any = None) -> None:
    """Start this worker's share at `starts[its address]`, an instant already on this worker's clock."""
    share = _RUNNING.get(run)
    if share is None or dask_worker is None:
        return
    delay = starts[dask_worker.address] - time.time()
    share.start_late_s = max(0.0, -delay)
    share.state = "sending"
    share.start_at.value = time.perf_counter() + delay


def stop(run: str) -> None:
    share = _RUNNING.get(run)
    if share is not None:
        share.stop.asked = True
