"""Per-second counters of a replay that add up across connections, processes and machines.

Every statistic here is a sum, so measurements made in threads of several worker processes merge
exactly; latencies go into the mergeable histograms of `sqlsrv2tidb.histogram`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..histogram import Histogram, bucket_bounds, bucket_of

__all__ = ["LATE_US", "ClassSecond", "Histogram", "Recorder", "bucket_bounds", "bucket_of", "merge_seconds"]

LATE_US = 10_000
"""A send that left more than this after its intended time counts as late: beyond a timer's overshoot or a
pause of the client, so the sender (or the target, holding its connection) was behind."""


@dataclass
class ClassSecond:
    """What one query class did in one second of the run (by completion time; `sent` by send time)."""

    sent: int = 0
    ok: int = 0
    errors: int = 0
    latency: Histogram = field(default_factory=Histogram)
    """From the intended send time to the answer: includes waiting when the target fell behind."""
    service: Histogram = field(default_factory=Histogram)
    """From the actual send to the answer: the target's own time."""
    max_lag_us: int = 0
    """How late the latest send of the second left, against its intended time."""
    late: int = 0
    """Sends of the second that left more than `LATE_US` after their intended time."""

    def merge(self, other: ClassSecond) -> ClassSecond:
        self.sent += other.sent
        self.ok += other.ok
        self.errors += other.errors
        self.latency.merge(other.latency)
        self.service.merge(other.service)
        self.max_lag_us = max(self.max_lag_us, other.max_lag_us)
        self.late += other.late
        return self


class Recorder:
    """One sender's measurements: `{second: {class index: ClassSecond}}`, owned by one thread.

    The hot path (`sent`, `done`) touches only this thread's dicts, so no lock is needed; a
    flusher in the same process takes whole seconds out with `take(before)` once they are over.
    """

    __slots__ = ("seconds",)

    def __init__(self) -> None:
        self.seconds: dict[int, dict[int, ClassSecond]] = {}

    def _cell(self, second: int, cls: int) -> ClassSecond:
        row = self.seconds.get(second)
        if row is None:
            row = self.seconds[second] = {}
        cell = row.get(cls)
        if cell is None:
            cell = row[cls] = ClassSecond()
        return cell

    def done(self, cls: int, intended: float, sent_at: float, finished: float, ok: bool) -> None:
        """Record one statement; times are seconds after the run's start."""
        sent_cell = self._cell(int(sent_at) if sent_at >= 0 else int(sent_at) - 1, cls)
        sent_cell.sent += 1
        lag = int((sent_at - intended) * 1e6)
        if lag > LATE_US:
            sent_cell.late += 1
            if lag > sent_cell.max_lag_us:
                sent_cell.max_lag_us = lag
        elif lag > sent_cell.max_lag_us:
            sent_cell.max_lag_us = lag
        cell = self._cell(int(finished) if finished >= 0 else int(finished) - 1, cls)
        if ok:
            cell.ok += 1
            cell.latency.record(int((finished - intended) * 1e6))
            cell.service.record(int((finished - sent_at) * 1e6))
        else:
            cell.errors += 1

    def take(self, before: int | None = None) -> dict[int, dict[int, ClassSecond]]:
        """Remove and return the seconds older than `before` (all of them when None)."""
        out = {}
        for second in sorted(self.seconds):
            if before is not None and second >= before:
                break
            out[second] = self.seconds.pop(second)
        return out


def merge_seconds(into: dict[int, dict[int, ClassSecond]], part: dict[int, dict[int, ClassSecond]]) -> None:
    for second, row in part.items():
        target = into.setdefault(second, {})
        for cls, cell in row.items():
            if cls in target:
                target[cls].merge(cell)
            else:
                target[cls] = cell
