"""One step of a cluster replay: the shares submitted, started at one instant, watched, merged.

The order is the local engine's (`engine.run_schedule`), with Dask in place of a process pool:

1. each share's worker has its clock offset measured (`clock`), and gets one task (`cluster_task.run_share`)
   pinned to it: a share never moves to another worker, since a share restarted late would send its
   whole schedule at once;
2. every share connects; the coordinator waits until all are ready. One that cannot reach the target, a
   worker that leaves, or Ctrl-C ends the step here: every share is stopped and nothing has been sent;
3. the start is an instant `START_MARGIN` ahead on this machine's clock, sent to each worker on its own
   clock, so the shares (and the steps of a ramp) line up whatever the workers' clocks say;
4. while they send, the coordinator polls their finished seconds (the live line) and the scheduler's list
   of workers. A worker that leaves, or whose task fails, is a lost share: its seconds so far are kept,
   the others go on to the end, and the step says which share was lost. Ctrl-C, or a fatal error in a
   share, stops every share; each returns what it measured;
5. the step's data are the shares' own, merged: the finished shares' complete measurements, and the
   polled ones of a lost share.
"""

from __future__ import annotations

import pickle
import time
import uuid
from collections.abc import Callable
from typing import Any

from ..errors import ConnectionFailed, Interrupted, one_line
from . import cluster_task
from .cluster import Cluster
from .engine import InterruptFlag, StepData
from .shares import ClusterStep, ShareData, share_rate, share_shards
from .stats import ClassSecond, merge_seconds
from .workers import Job

START_MARGIN = 1.0
"""Seconds between sending the start instant and the instant itself: time for it to reach every worker."""
POLL_READY = 0.1
POLL_SENDING = 1.0
"""Seconds between polls while sending: the live line's pace, and how fresh a lost share's last seconds are
(each poll costs every worker a little CPU, which counts against its statements)."""
STOP_WAIT = 20.0
"""Seconds a share has to return its measurements once asked to stop."""
OVERRUN = 60.0
"""Seconds past the schedule's end after which the shares still out are asked to stop (a statement that
never returns, a start order that never arrived)."""


def run_step(cluster: Cluster, job: Job, live: Callable[[StepData, int], None] | None = None,
             *, connect_wait: float = 60.0) -> StepData:
    """Send `job.schedule` with the cluster's workers, one share each; returns the data even when stopped early."""
    run = uuid.uuid4().hex[:16]
    step = ClusterStep(cluster.address)
    for number, shards in enumerate(share_shards(job.schedule.shards, len(cluster.workers))):
        worker = cluster.workers[number]
        offset = cluster.offset(worker)
        step.shares.append(ShareData(number, worker, shards, share_rate(job.schedule, shards), cluster.host(worker),
                                     clock_offset_s=offset.offset_s, clock_rtt_s=offset.rtt_s))
    data = StepData(workers=len(step.shares), cluster=step)
    scheduler_cpu, cpu_at_start = cluster.scheduler_cpu(), time.process_time()
    watch = _Watch(cluster, run, step, job)
    with InterruptFlag() as interrupt:
        try:
            watch.wait_ready(connect_wait, interrupt)
        except BaseException:
            watch.abandon()
            raise
        start = time.time() + START_MARGIN
        watch.start({s.worker: start + s.clock_offset_s for s in step.shares})
        data.started = start
        watch.collect(interrupt, data, live)
    # A stopped run was measured until its shares stopped sending, not until they had handed in their data.
    stops = [s.stopped_after_s for s in step.shares if s.stopped_after_s is not None]
    data.elapsed = max(stops) if stops and watch.stopped_at else max(0.0, (watch.stopped_at or time.time()) - start)
    for share in step.shares:
        merge_seconds(data.seconds, _copied(share.seconds))
        data.totals.merge(share.totals)
    after = cluster.scheduler_cpu()
    step.scheduler_cpu_s = after - scheduler_cpu if after is not None and scheduler_cpu is not None else None
    data.coordinator_cpu_s = time.process_time() - cpu_at_start
    return data


def _copied(seconds: dict[int, dict[int, ClassSecond]]) -> dict[int, dict[int, ClassSecond]]:
    return {s: {c: ClassSecond().merge(cell) for c, cell in row.items()} for s, row in seconds.items()}


class _Watch:
    """The coordinator's view of a step's shares: their futures, what they reported, which are still out."""

    def __init__(self, cluster: Cluster, run: str, step: ClusterStep, job: Job) -> None:
        self.cluster, self.client, self.run, self.step, self.job = cluster, cluster.client, run, step, job
        self.pending = {s.share: s for s in step.shares}
        self.futures = {
            s.share: self.client.submit(cluster_task.run_share, cluster_task.ShareTask(run, s.share, s.connections, job),
                                        key=f"sqlsrv2tidb-replay-{run}-{s.share}", workers=[s.worker],
                                        allow_other_workers=False, pure=False)
            for s in step.shares
        }
        self.view = StepData()
        """Every polled second, merged: what the live line shows."""
        self.last_second: dict[int, int] = {}
        self.started: float | None = None
        self.stopped_at: float | None = None

    def describe(self, share: ShareData) -> str:
        return share.describe(len(self.step.shares))

    # -- before the start ----------------------------------------------------------------------------
    def wait_ready(self, wait: float, interrupt: InterruptFlag) -> None:
        deadline = time.monotonic() + wait
        target = self.job.target.display
        while True:
            if interrupt.is_set():
                raise Interrupted("interrupted while connecting: nothing was sent or measured")
            self._harvest()
            for share in self.step.shares:
                if share.status in ("lost", "stopped"):
                    raise ConnectionFailed(f"{target}: {self.describe(share)} was lost before the start ({share.note}); "
                                           "nothing was sent")
                if share.share not in self.pending:
                    why = f"cannot reach the target: {share.note}" if share.note else "ended before the start"
                    raise ConnectionFailed(f"{target}: {self.describe(share)} {why}; nothing was sent")
            states = self._poll()
            for number, (state, error) in states.items():
                if state == "unreachable":
                    raise ConnectionFailed(f"{target}: {self.describe(self.pending[number])} cannot reach the target: "
                                           f"{error}; nothing was sent")
            if self.pending and all(states.get(n, ("",))[0] == "ready" for n in self.pending):
                return
            if time.monotonic() > deadline:
                waiting = ", ".join(f"{self.describe(s)} is {_WAITING.get(states.get(n, ('',))[0], 'not ready')}"
                                    for n, s in self.pending.items() if states.get(n, ("",))[0] != "ready")
                raise ConnectionFailed(f"{target}: not every share was ready after {wait:.0f}s: {waiting}; "
                                       "nothing was sent")
            time.sleep(POLL_READY)

    # -- while sending -------------------------------------------------------------------------------
    def collect(self, interrupt: InterruptFlag, data: StepData, live: Callable[[StepData, int], None] | None) -> None:
        start = data.started
        self.started = start
        stop_by: float | None = None
        shown, polled = -1, 0.0
        while self.pending:
            if interrupt.is_set() and stop_by is None:
                data.interrupted = True
                stop_by = self._stop()
            if stop_by is None and time.time() > start + self.job.schedule.duration + OVERRUN:
                stop_by = self._stop()
            for share in self._harvest():
                if share.totals.fatal and stop_by is None:
                    data.fatal = data.fatal or share.totals.fatal
                    stop_by = self._stop()
            if stop_by is not None and time.monotonic() > stop_by:
                for share in list(self.pending.values()):
                    self._lose(share, "stopped", f"it did not return its measurements within {STOP_WAIT:.0f}s of the stop")
                break
            if time.monotonic() - polled >= POLL_SENDING and self.pending:
                polled = time.monotonic()
                self._poll()
            now = int(time.time() - start)
            if live is not None and now != shown and now > 0:
                shown = now
                live(self._complete_view(), now)
            time.sleep(0.1)

    def _complete_view(self) -> StepData:
        """The polled seconds every share still sending has passed (a second half-reported reads as a dip)."""
        ends = [self.last_second.get(n, -1) for n in self.pending] or [max(self.view.seconds, default=-1)]
        done = min(ends)
        return StepData(seconds={s: row for s, row in self.view.seconds.items() if s <= done})

    def _stop(self) -> float:
        self.stopped_at = time.time()
        self._on_workers(cluster_task.stop, [s.worker for s in self.pending.values()])
        return time.monotonic() + STOP_WAIT

    def start(self, starts: dict[str, float]) -> None:
        self._on_workers(cluster_task.start, list(starts), starts)

    def _on_workers(self, function: Callable[..., Any], workers: list[str], *args: Any) -> dict[str, Any] | None:
        """`function(run, *args)` on each worker's event loop; None when the call itself failed (a worker that
        left between the scheduler's list and the call): the next poll sees what happened."""
        if not workers:
            return {}
        try:
            return self.client.run(function, self.run, *args, workers=workers, on_error="return")
        except Exception:  # noqa: BLE001 - decided by the next look at the scheduler's workers
            return None

    # -- both ----------------------------------------------------------------------------------------
    def _harvest(self) -> list[ShareData]:
        """Take the results of the shares whose tasks have ended; returns the shares that finished."""
        finished = []
        for number, share in list(self.pending.items()):
            future = self.futures[number]
            if not future.done():
                continue
            if future.status != "finished":
                self._lose(share, "lost", f"its task failed: {one_line(_exception(future))}")
                continue
            outcome: cluster_task.ShareOutcome = future.result()
            del self.pending[number]
            share.host = outcome.host or share.host
            share.seconds, share.totals, share.start_late_s = outcome.seconds, outcome.totals, outcome.start_late_s
            share.stopped_after_s = outcome.stopped_after_s
            share.status = "done"
            if outcome.state == "unreachable":
                share.note = outcome.error or "no connection"
            finished.append(share)
        return finished

    def _poll(self) -> dict[int, tuple[str, str | None]]:
        """Each pending share's state and error; merges the seconds they measured since the last poll."""
        alive = self.cluster.alive()
        for share in list(self.pending.values()):
            if share.worker not in alive:
                self._lose(share, "lost", "its worker left the cluster")
        if not self.pending:
            return {}
        by_worker = {s.worker: s for s in self.pending.values()}
        answers = self._on_workers(cluster_task.poll, list(by_worker))
        if answers is None:
            return {}
        states = {}
        for worker, share in by_worker.items():
            answer = answers.get(worker)
            if not isinstance(answer, dict):
                self._lose(share, "lost", f"its worker stopped answering ({type(answer).__name__})")
                continue
            for blob in answer["seconds"]:
                part = pickle.loads(blob)
                merge_seconds(share.seconds, part)
                merge_seconds(self.view.seconds, _copied(part))
                self.last_second[share.share] = max(part, default=self.last_second.get(share.share, -1))
            states[share.share] = (answer["state"], answer["error"])
        return states

    def _lose(self, share: ShareData, status: str, why: str) -> None:
        """Give up on a share: what it reported so far stays in `share.seconds`; its task is cancelled."""
        self.pending.pop(share.share, None)
        share.status, share.note = status, why
        if self.started is not None:
            share.lost_at_s = max(0.0, time.time() - self.started)
        self.client.cancel([self.futures[share.share]])

    def abandon(self) -> None:
        """Stop every share that may still be connecting or waiting, and drop their tasks."""
        self._on_workers(cluster_task.stop, [s.worker for s in self.pending.values()])
        self.client.cancel(list(self.futures.values()))


_WAITING = {"waiting": "waiting for its worker to start the task (is the worker busy?)", "connecting": "still connecting"}


def _exception(future: Any) -> str:
    try:
        return repr(future.exception(timeout=5))
    except Exception as exc:  # noqa: BLE001 - a cancelled future has no exception to show
        return type(exc).__name__
