"""When each statement is meant to be sent: the pure, open-loop pacing of a replay.

A schedule is decided before anything is sent and never moves: if the target falls behind, the
sender is late, and that lateness is counted in the latency (the "coordinated omission" that a
closed loop hides). The total rate is split over `shards` (one per connection): with uniform
arrivals, shard `s` sends the global sends `s, s + N, s + 2N, ...` of one evenly spaced stream, so
the merged stream is exactly uniform; with Poisson arrivals each shard draws exponential gaps at
rate R/N, and the merged stream is again Poisson at rate R.

The query class of each send follows the captured rates (`workload_rates.class_rates`) through a
golden-ratio sequence over the global send number: deterministic, spread evenly in time, and
exact in proportion even for a class that runs once a minute. Everything is reproducible from
the seed, and nothing here reads a clock: the sender compares these offsets with its own clock.

A timed schedule replays captured Extended Events at their original spacing (divided by a speed
factor); each session stays on one shard so its statements keep their order.

    >>> s = RateSchedule(("a", "b"), (3.0, 1.0), total_qps=4.0, duration=1.0, shards=1)
    >>> [(round(t, 2), s.classes[c]) for t, c, _ in s.stream(0)]
    [(0.0, 'a'), (0.25, 'a'), (0.5, 'b'), (0.75, 'a')]
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from ..model.workload import Event, Scalar, parse_time

_PHI = (math.sqrt(5) - 1) / 2
Send = tuple[float, int, "tuple[Scalar, ...] | None"]
"""(seconds after the start, class index, captured values or None to generate them)."""


@dataclass(frozen=True)
class RateSchedule:
    """Sends at a fixed total rate, split over classes by their weights (captured rates)."""

    classes: tuple[str, ...]
    weights: tuple[float, ...]
    total_qps: float
    duration: float
    """Seconds of sends, warm-up included."""
    shards: int = 1
    arrival: str = "uniform"
    seed: int = 1

    def __post_init__(self) -> None:
        if len(self.classes) != len(self.weights) or not self.classes:
            raise ValueError("a schedule needs one weight per class and at least one class")
        if self.total_qps <= 0 or self.shards < 1:
            raise ValueError("a schedule needs a positive rate and at least one shard")

    def _cumulative(self) -> list[float]:
        total = sum(self.weights)
        acc, out = 0.0, []
        for w in self.weights:
            acc += w / total
            out.append(acc)
        out[-1] = 1.0
        return out

    def stream(self, shard: int) -> Iterator[Send]:
        """The sends of one shard, in time order, ending before `duration`."""
        cumulative = self._cumulative()
        last = len(cumulative) - 1
        offset = random.Random(f"mix:{self.seed}").random()
        n, rate = self.shards, self.total_qps
        if self.arrival == "poisson":
            rng = random.Random(f"arrival:{self.seed}:{shard}")
            per_shard = rate / n
            t, k = rng.expovariate(per_shard), 0
            while t < self.duration:
                g = shard + k * n
                u = (offset + g * _PHI) % 1.0
                yield t, min(bisect.bisect_right(cumulative, u), last), None
                t += rng.expovariate(per_shard)
                k += 1
            return
        g = shard
        while True:
            t = g / rate
            if t >= self.duration:
                return
            u = (offset + g * _PHI) % 1.0
            yield t, min(bisect.bisect_right(cumulative, u), last), None
            g += n

    def sends_from(self, shard: int, t: float) -> int | None:
        """How many sends of `shard` are due at `t` (one of its send times) or later, counted
        without walking them; None for Poisson arrivals, whose times must be drawn.

        A sender that runs out of time counts what it never sent: when a run asks for more than
        the client can send, that is most of the stream, and walking it cost more CPU than sending.
        """
        if self.arrival != "uniform":
            return None
        n, rate = self.shards, self.total_qps
        g = round(t * rate)  # the global send number stream() gave time g / rate
        end = math.ceil(self.duration * rate)  # the first number at or past the duration, as stream() decides
        while end > 0 and (end - 1) / rate >= self.duration:
            end -= 1
        while end / rate < self.duration:
            end += 1
        return max(0, -(-(end - g) // n))

    def sends_per_class(self, shards: Sequence[int] | None = None) -> dict[str, int]:
        """Count the sends per class (for tests and the result's planned counts)."""
        counts = dict.fromkeys(self.classes, 0)
        for shard in shards if shards is not None else range(self.shards):
            for _, c, _ in self.stream(shard):
                counts[self.classes[c]] += 1
        return counts


@dataclass(frozen=True)
class TimedSchedule:
    """Captured events at their original spacing, divided by `speed`, cut at `duration`."""

    classes: tuple[str, ...]
    events: tuple[Event, ...]
    duration: float
    shards: int = 1
    speed: float = 1.0
    sends: tuple[tuple[float, int, tuple[Scalar, ...] | None, int], ...] = field(init=False, repr=False,
                                                                                compare=False)
    """(offset, class index, captured values, session key) of every kept event, computed once."""

    def __post_init__(self) -> None:
        index = {qid: i for i, qid in enumerate(self.classes)}
        kept = sorted(((parse_time(e.timestamp), e) for e in self.events if e.query_id in index),
                      key=lambda pair: pair[0])
        sends = []
        if kept:
            origin = kept[0][0]
            for number, (moment, e) in enumerate(kept):
                t = (moment - origin).total_seconds() / self.speed
                if t >= self.duration:
                    break
                key = e.session_id if e.session_id is not None else number
                sends.append((t, index[e.query_id], tuple(e.values) if e.values else None, key))
        object.__setattr__(self, "sends", tuple(sends))

    @property
    def expected_sends(self) -> float:
        return float(len(self.sends))

    @property
    def total_qps(self) -> float:
        return self.expected_sends / self.duration if self.duration > 0 else 0.0

    def stream(self, shard: int) -> Iterator[Send]:
        shards = self.shards
        for t, c, values, key in self.sends:
            if key % shards == shard:
                yield t, c, values


Schedule = RateSchedule | TimedSchedule
