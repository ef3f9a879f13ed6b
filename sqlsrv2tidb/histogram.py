"""Latency histograms that add up: counts per log-linear bucket of microseconds.

Durations are measured in many places at once: SQL Server's own, one per captured Extended Events
execution, and the replay's, in threads of several worker processes (later perhaps several client
machines). So a histogram is counts per bucket, and merging two is adding their counts;
percentiles are read only at the end. Buckets are exact below 128 µs, then 64 per power of two,
so any value is off by at most 1/64 (1.6 %) whatever its size, and a day-long latency still fits
in under 2,000 buckets. The serialised form (`to_json`) is what `replay.json` stores, so a later
tool can merge histograms from several files; `pairs`/`from_pairs` is the compact form a capture
keeps per interval.

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


def us_to_ms(us: float | None) -> float | None:
    """Microseconds as the milliseconds result files write (3 decimals); None stays None."""
    return None if us is None else round(us / 1000, 3)


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
        ms = us_to_ms
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

    def pairs(self) -> tuple[tuple[int, int], ...]:
        """(bucket, count) pairs in bucket order: the compact form a captured interval keeps."""
        return tuple(sorted(self.counts.items()))

    @classmethod
    def from_pairs(cls, pairs: tuple[tuple[int, int], ...] | list[list[int]]) -> Histogram:
        """The histogram of `pairs`; count, total and maximum are estimated from the bucket bounds."""
        h = cls()
        for index, count in pairs:
            low, high = bucket_bounds(int(index))
            h.counts[int(index)] += int(count)
            h.count += int(count)
            h.total_us += int(count) * (low + high - 1) // 2
            h.max_us = max(h.max_us, high - 1)
        return h

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Histogram:
        if data.get("sub_bucket_bits", SUB_BITS) != SUB_BITS:
            raise ValueError(f"histogram with {data.get('sub_bucket_bits')} sub-bucket bits cannot merge with {SUB_BITS}")
        return cls(
            Counter({int(k): int(v) for k, v in data.get("buckets", {}).items()}),
            int(data.get("count", 0)), int(data.get("total_us", 0)), int(data.get("max_us", 0)),
        )
