"""A bounded, uniform sample of each query class's captured values, however long the capture.

A capture of gigabytes holds millions of executions of a few classes; replay needs each class's
values in the proportions they ran with, not all of them. A reservoir (Vitter's Algorithm R) keeps
`limit` value sets such that every execution had the same chance to be kept, repeats included, and
counts every execution it saw; drawing uniformly from it then follows the captured distribution.
The random stream is seeded by the class id, so reading the same capture twice keeps the same sets.
(https://en.wikipedia.org/wiki/Reservoir_sampling#Simple:_Algorithm_R)

    >>> r = Reservoir("q1", limit=2)
    >>> for v in [(1,), (2,), (3,)]:
    ...     r.add(v)
    >>> len(r.items), r.seen
    (2, 3)
"""

from __future__ import annotations

import random

from ..model.workload import Scalar

LIMIT = 1000
"""Value sets kept per class: enough to reproduce the skew of real traffic, small enough for any capture."""

Values = tuple[Scalar, ...]


class Reservoir:
    """Algorithm R over one class's value sets; `seen` counts every set offered."""

    __slots__ = ("items", "limit", "rng", "seen")

    def __init__(self, key: str, limit: int = LIMIT) -> None:
        self.items: list[Values] = []
        self.limit = limit
        self.seen = 0
        self.rng = random.Random(f"reservoir:{key}")

    def add(self, values: Values) -> None:
        self.seen += 1
        if len(self.items) < self.limit:
            self.items.append(values)
            return
        j = self.rng.randrange(self.seen)
        if j < self.limit:
            self.items[j] = values


def merge(key: str, a: tuple[Values, ...], a_seen: int, b: tuple[Values, ...], b_seen: int,
          limit: int = LIMIT) -> tuple[tuple[Values, ...], int]:
    """Two classes' samples as one (the same class read from two files), weighted by what each saw.

    A side that counted nothing (Query Store's distinct compiled values, an older capture) weighs as
    many executions as it kept sets. Each kept set is drawn from a side with that side's share.
    """
    a_seen, b_seen = a_seen or len(a), b_seen or len(b)
    if not a or not b:
        kept = a or b
        return tuple(kept[:limit]), a_seen + b_seen
    if len(a) + len(b) <= limit and len(a) == a_seen and len(b) == b_seen:
        return a + b, a_seen + b_seen  # both whole: nothing to draw
    rng = random.Random(f"reservoir-merge:{key}")
    share = a_seen / (a_seen + b_seen)
    size = min(limit, len(a) + len(b))
    out = [rng.choice(a) if rng.random() < share else rng.choice(b) for _ in range(size)]
    return tuple(out), a_seen + b_seen
