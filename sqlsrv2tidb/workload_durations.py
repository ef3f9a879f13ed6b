"""SQL Server's own durations per query class, from the captured intervals: the one place they are summed.

The assessment lists each class's captured duration and the replay compares the target's latency
with it, so both read it here. Query Store keeps totals, minimum and maximum per interval, so its
classes have an average and extremes only; Extended Events see every execution, so their classes
also have a histogram (`IntervalStat.duration_buckets`) and real percentiles.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .histogram import Histogram
from .model import Window, Workload
from .model.workload import parse_time


@dataclass
class CapturedDuration:
    """One class's durations over the intervals that touch a window, in microseconds."""

    executions: int = 0
    total_us: float = 0.0
    min_us: float | None = None
    max_us: float | None = None
    histogram: Histogram = field(default_factory=Histogram)
    """Empty unless the source saw every execution (Extended Events)."""

    @property
    def avg_us(self) -> float | None:
        return self.total_us / self.executions if self.executions else None

    def percentile_us(self, p: float) -> float | None:
        """The p-th percentile, where the source kept each execution's duration; else None."""
        return self.histogram.percentile(p) if self.histogram.count else None


def captured_durations(workload: Workload, window: Window | None = None) -> dict[str, CapturedDuration]:
    """Durations per query class, over the intervals that overlap `window` (all of them when None)."""
    start = parse_time(window.start) if window else None
    end = parse_time(window.end) if window else None
    out: dict[str, CapturedDuration] = {}
    for i in workload.intervals:
        if i.total_duration_us is None:
            continue
        if start is not None and end is not None and (parse_time(i.end) <= start or parse_time(i.start) >= end):
            continue
        d = out.get(i.query_id)
        if d is None:
            d = out[i.query_id] = CapturedDuration()
        d.executions += i.executions
        d.total_us += i.total_duration_us
        if i.min_duration_us is not None:
            d.min_us = i.min_duration_us if d.min_us is None else min(d.min_us, i.min_duration_us)
        if i.max_duration_us is not None:
            d.max_us = i.max_duration_us if d.max_us is None else max(d.max_us, i.max_duration_us)
        if i.duration_buckets:
            d.histogram.merge(Histogram.from_pairs(i.duration_buckets))
    return out
