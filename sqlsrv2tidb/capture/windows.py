"""Finds the time windows worth replaying in a capture that did not name any.

Sizing a TiDB cluster needs the load it must carry: the busiest hour, and the sustained write
bursts of batch jobs (seed 000's nightly insert at 50,000 QPS next to a daytime read load). Query
Store and Extended Events give rates per interval but no names, so this module names them:

- `peak` (kind `busiest_hour`): the hour with the most executions; the whole capture if shorter.
- `batch-1`, `batch-2`, ... (kind `batch`), in time order: runs of at least five minutes where
  writes are at least half of the statements, the write rate is three times the median interval's
  and the total rate one and a half times the median.
- `peak-outside-batches` (kind `busiest_hour`), when the busiest hour is a batch's: the busiest hour
  that overlaps no batch. On seed 000's day the peak is the nightly insert, and this is the daytime
  load the team also had to replay.

Windows the user gave (a workload spec, a `.sql` directive) are kept as they are and nothing is
detected beside them.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from statistics import median

from ..model import Window, Workload
from ..model.workload import format_time, parse_time
from ..tsql.fingerprint import is_write

HOUR = 3600.0
MIN_BATCH_SECONDS = 300.0
WRITE_SHARE = 0.5
WRITE_FACTOR = 3.0
RATE_FACTOR = 1.5


@dataclass(frozen=True)
class _Bucket:
    start: float
    end: float
    executions: float
    writes: float

    @property
    def seconds(self) -> float:
        return self.end - self.start

    @property
    def rate(self) -> float:
        return self.executions / self.seconds

    @property
    def write_rate(self) -> float:
        return self.writes / self.seconds


def with_detected_windows(workload: Workload) -> Workload:
    """The workload with `peak` and `batch-N` windows added, unless it already has windows."""
    if workload.windows or not workload.intervals:
        return workload
    windows = detect_windows(workload)
    return replace(workload, windows=tuple(windows)) if windows else workload


def detect_windows(workload: Workload) -> list[Window]:
    buckets = _buckets(workload)
    if not buckets:
        return []
    peak, batches = _busiest_hour(buckets), _batches(buckets)
    spans = [(parse_time(b.start).timestamp(), parse_time(b.end).timestamp()) for b in batches]
    start, end = parse_time(peak.start).timestamp(), parse_time(peak.end).timestamp()
    if any(s < end and start < e for s, e in spans):
        other = _busiest_hour(buckets, avoid=spans)
        if other is not None:
            return [peak, other, *batches]
    return [peak, *batches]


def _buckets(workload: Workload) -> list[_Bucket]:
    """Total and write executions per distinct interval, in time order (zero-length ones carry no rate)."""
    kinds = {q.id: q.kind for q in workload.queries}
    totals: dict[tuple[float, float], list[float]] = {}
    for i in workload.intervals:
        start, end = parse_time(i.start).timestamp(), parse_time(i.end).timestamp()
        if end <= start:
            continue
        entry = totals.setdefault((start, end), [0.0, 0.0])
        entry[0] += i.executions
        if is_write(kinds.get(i.query_id, "other")):
            entry[1] += i.executions
    return [_Bucket(s, e, n, w) for (s, e), (n, w) in sorted(totals.items())]


def _busiest_hour(buckets: list[_Bucket], avoid: list[tuple[float, float]] | None = None) -> Window | None:
    """The hour with the most executions; with `avoid`, the best hour that overlaps none of those
    spans (None when there is no such hour)."""
    first = min(b.start for b in buckets)
    last = max(b.end for b in buckets)
    if last - first <= HOUR:
        if avoid is not None:
            return None  # the whole capture is the peak: no other hour
        total = sum(b.executions for b in buckets)
        return Window("peak", _iso(first), _iso(last), kind="busiest_hour",
                      description=f"the whole capture (under an hour): {_qps(total / (last - first))}")
    starts = [b.start for b in buckets]
    longest = max(b.seconds for b in buckets)
    # The executions in a sliding hour change slope only where its start or end meets an interval
    # boundary, so the best hour starts at an interval start or ends at an interval end.
    # Hours that start at an interval start come first, so a tie keeps the rounder window.
    # The hour stays inside the capture (its end rounded up to a whole second). Spans to avoid
    # begin and end at interval boundaries, so the best hour beside one is among these too.
    latest = max(math.ceil(last - HOUR), first)
    at_starts = sorted({min(max(s, first), latest) for s in starts})
    at_ends = sorted({min(max(b.end - HOUR, first), latest) for b in buckets} - set(at_starts))
    candidates = [c for c in at_starts + at_ends if not any(s < c + HOUR and c < e for s, e in avoid or ())]
    if not candidates:
        return None
    best, best_total = candidates[0], -1.0
    for c in candidates:
        total = 0.0
        i = bisect_left(starts, c - longest)
        while i < len(buckets) and buckets[i].start < c + HOUR:
            b = buckets[i]
            covered = min(b.end, c + HOUR) - max(b.start, c)
            if covered > 0:
                total += b.executions * covered / b.seconds
            i += 1
        if total > best_total + 1e-9:
            best, best_total = c, total
        elif abs(total - best_total) <= 1e-9 and c < best and c in at_starts:
            best = c
    if avoid is not None:
        return Window("peak-outside-batches", _iso(best), _iso(best + HOUR), kind="busiest_hour",
                      description=f"the busiest hour outside the batch windows: {_qps(best_total / HOUR)}")
    return Window("peak", _iso(best), _iso(best + HOUR), kind="busiest_hour",
                  description=f"the busiest hour: {_qps(best_total / HOUR)}")


def _batches(buckets: list[_Bucket]) -> list[Window]:
    if len(buckets) < 3:
        return []  # a median of one or two intervals says nothing about what is usual
    usual_rate = median(b.rate for b in buckets)
    usual_writes = median(b.write_rate for b in buckets)
    hot = [
        b for b in buckets
        if b.executions and b.writes / b.executions >= WRITE_SHARE and b.write_rate > 0
        and b.write_rate >= WRITE_FACTOR * usual_writes and b.rate >= RATE_FACTOR * usual_rate
    ]
    runs: list[list[_Bucket]] = []
    for b in hot:
        if runs and b.start - runs[-1][-1].end <= max(runs[-1][-1].seconds, 60.0):
            runs[-1].append(b)
        else:
            runs.append([b])
    windows = []
    for run in runs:
        start, end = run[0].start, run[-1].end
        if end - start < MIN_BATCH_SECONDS:
            continue
        executions = sum(b.executions for b in run)
        writes = sum(b.writes for b in run)
        seconds = sum(b.seconds for b in run)
        windows.append(Window(
            f"batch-{len(windows) + 1}", _iso(start), _iso(end), kind="batch",
            description=(f"sustained writes: {writes / executions:.0%} of {_qps(executions / seconds)}, "
                         f"against a median of {_qps(usual_rate)}"),
        ))
    return windows


def _qps(rate: float) -> str:
    return f"{rate:,.1f} qps" if rate >= 10 else f"{rate:.3g} qps"


def _iso(seconds: float) -> str:
    return format_time(datetime.fromtimestamp(round(seconds, 3), UTC))
