"""Rates derived from a workload's interval statistics: the one place QPS is computed.

Replay sends each class at its captured rate, the planner needs each table's insert rate, and the
report charts QPS over time; all three must agree, so all three call these functions. An interval
that only partly overlaps a window contributes in proportion to the overlap.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from .model import IntervalStat, Window, Workload
from .model.workload import format_time, parse_time


def capture_span(workload: Workload) -> tuple[datetime, datetime] | None:
    if not workload.intervals:
        return None
    return (
        min(parse_time(i.start) for i in workload.intervals),
        max(parse_time(i.end) for i in workload.intervals),
    )


def whole_capture(workload: Workload) -> Window | None:
    span = capture_span(workload)
    if span is None:
        return None
    return Window("all", format_time(span[0]), format_time(span[1]), kind="user", description="whole capture")


def _overlap(interval: IntervalStat, start: datetime, end: datetime) -> float:
    i_start, i_end = parse_time(interval.start), parse_time(interval.end)
    length = (i_end - i_start).total_seconds()
    if length <= 0:
        return 1.0 if start <= i_start < end else 0.0
    covered = (min(i_end, end) - max(i_start, start)).total_seconds()
    return max(0.0, covered) / length


def executions_in(workload: Workload, window: Window | None) -> dict[str, float]:
    """Executions per query class inside the window (the whole capture when None)."""
    totals: dict[str, float] = defaultdict(float)
    if window is None:
        for i in workload.intervals:
            totals[i.query_id] += i.executions
        return dict(totals)
    start, end = parse_time(window.start), parse_time(window.end)
    for i in workload.intervals:
        share = _overlap(i, start, end)
        if share:
            totals[i.query_id] += i.executions * share
    return dict(totals)


def class_rates(workload: Workload, window: Window | None = None) -> dict[str, float]:
    """Queries per second of each class over the window (the whole capture when None)."""
    window = window or whole_capture(workload)
    if window is None or window.seconds <= 0:
        return {}
    return {qid: n / window.seconds for qid, n in executions_in(workload, window).items()}


def total_rate(workload: Workload, window: Window | None = None) -> float:
    return sum(class_rates(workload, window).values())


def peak_window(workload: Workload) -> Window | None:
    """The window with the highest total rate; the whole capture when no window is named."""
    if not workload.windows:
        return whole_capture(workload)
    return max(workload.windows, key=lambda w: total_rate(workload, w))


def timeline(workload: Workload) -> list[tuple[str, str, float]]:
    """(start, end, total QPS) per distinct capture interval, in time order, for charts."""
    buckets: dict[tuple[str, str], int] = defaultdict(int)
    for i in workload.intervals:
        buckets[(i.start, i.end)] += i.executions
    out = []
    for (start, end), n in sorted(buckets.items(), key=lambda kv: parse_time(kv[0][0])):
        seconds = (parse_time(end) - parse_time(start)).total_seconds()
        out.append((start, end, n / seconds if seconds > 0 else 0.0))
    return out
