"""Latency histograms and per-second counters that add up across connections, processes and machines.

A replay's measurements are made in many places at once (threads in worker processes, later
perhaps several client machines), so every statistic here is a sum: a histogram is counts per
bucket, and merging two runs' histograms is adding their counts. Percentiles are read only at the
end. Buckets are log-linear in microseconds: exact below 128 µs, then 64 buckets per power of two,
so any value is off by at most 1/64 (1.6 %) whatever its size, and a day-long latency still fits
in under 2,000 buckets. The serialised form (`to_json`) is what `replay.json` stores, so a later
tool can merge histograms from several files.

    >>> h = Histogram()
    >>> for us in (100, 200, 300, 400):
    ...     h.record(us)
    >>> h.count, h.percentile(50), h.max_us
    (4, 200.5, 400)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

SUB_BITS = 6
_EXACT = 1 << (SUB_BITS + 1)  # 128: values below are their own bucket


def bucket_of(us: int) -> int:
    """The bucket index of a value in microseconds (negative values count as 0)."""
    if us < _EXACT:
        return us if us > 0 else 0
    shift = us.bit_length() - (SUB_BITS + 1)
    return (shift << SUB_BITS) + (us >> shift)


def bucket_bounds(index: int) -> tuple[int, int]:
    """[low, high) in microseconds of a bucket."""
    if index < _EXACT:
        return index, index + 1
    shift = (index >> SUB_BITS) - 1
    top = index - (shift << SUB_BITS)
    return top << shift, (top + 1) << shift


@dataclass
class Histogram:
    """Counts per log-linear bucket of microseconds; `merge` adds another histogram in place."""

    counts: Counter[int] = field(default_factory=Counter)
    count: int = 0
    total_us: int = 0
    max_us: int = 0

    def record(self, us: int) -> None:
        self.counts[bucket_of(us)] += 1
        self.count += 1
        self.total_us += us
        if us > self.max_us:
            self.max_us = us

    def merge(self, other: Histogram) -> Histogram:
        self.counts.update(other.counts)
        self.count += other.count
        self.total_us += other.total_us
        self.max_us = max(self.max_us, other.max_us)
        return self

    def percentile(self, p: float) -> float | None:
        """The value below which `p` percent of the recordings fall (bucket midpoint; None if empty)."""
        if not self.count:
            return None
        rank = max(1, -(-self.count * p // 100))  # ceil, at least the first recording
        seen = 0
        for index in sorted(self.counts):
            seen += self.counts[index]
            if seen >= rank:
                low, high = bucket_bounds(index)
                return min((low + high - 1) / 2, float(self.max_us))
        return float(self.max_us)

    def summary_ms(self) -> dict[str, float | None]:
        """p50/p95/p99/max and mean in milliseconds, as replay.json writes them."""

        def ms(us: float | None) -> float | None:
            return None if us is None else round(us / 1000, 3)

        return {
            "p50": ms(self.percentile(50)),
            "p95": ms(self.percentile(95)),
            "p99": ms(self.percentile(99)),
            "max": ms(self.max_us) if self.count else None,
            "mean": ms(self.total_us / self.count) if self.count else None,
        }

    def to_json(self) -> dict[str, Any]:
        return {
            "unit": "us",
            "sub_bucket_bits": SUB_BITS,
            "count": self.count,
            "total_us": self.total_us,
            "max_us": self.max_us,
            "buckets": {str(k): v for k, v in sorted(self.counts.items())},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Histogram:
        if data.get("sub_bucket_bits", SUB_BITS) != SUB_BITS:
            raise ValueError(f"histogram with {data.get('sub_bucket_bits')} sub-bucket bits cannot merge with {SUB_BITS}")
        return cls(
            Counter({int(k): int(v) for k, v in data.get("buckets", {}).items()}),
            int(data.get("count", 0)), int(data.get("total_us", 0)), int(data.get("max_us", 0)),
        )


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

    def merge(self, other: ClassSecond) -> ClassSecond:
        self.sent += other.sent
        self.ok += other.ok
        self.errors += other.errors
        self.latency.merge(other.latency)
        self.service.merge(other.service)
        self.max_lag_us = max(self.max_lag_us, other.max_lag_us)
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
        if lag > sent_cell.max_lag_us:
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
