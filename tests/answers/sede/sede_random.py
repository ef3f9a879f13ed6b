"""The seeded draws the Stack Exchange rows are made from: the same seed, the same rows, byte for byte.

Only `random.Random(seed).random()` is used: Python documents that its output for a given seed stays
the same across versions, which it does not promise for `randrange`, `choice` or `shuffle`. Every
other draw here is built from it. Each table draws from its own stream (`Draw(seed, "Votes")`), so
generating one table differently never shifts another's values.
"""

from __future__ import annotations

import hashlib
import math
import random
from bisect import bisect_right
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TypeVar

T = TypeVar("T")

START = datetime(2008, 7, 31, 21, 42, 52, 667000)
"""The first question on the site."""
END = datetime(2023, 12, 31, 23, 59, 59, 997000)
_TICKS = (0, 3, 7)
"""SQL Server's datetime holds milliseconds rounded to .000, .003 or .007: drawn values are already on them."""


class Draw:
    """One seeded stream of draws."""

    def __init__(self, seed: int, stream: str) -> None:
        digest = hashlib.sha256(f"{seed}:{stream}".encode()).digest()
        self._random = random.Random(int.from_bytes(digest[:8], "big"))

    def random(self) -> float:
        return self._random.random()

    def below(self, n: int) -> int:
        """0..n-1, evenly."""
        return min(int(self.random() * n), n - 1)

    def between(self, low: int, high: int) -> int:
        """low..high inclusive, evenly."""
        return low + self.below(high - low + 1)

    def chance(self, p: float) -> bool:
        return self.random() < p

    def pick(self, items: Sequence[T]) -> T:
        return items[self.below(len(items))]

    def weighted(self, items: Sequence[T], cumulative: Sequence[float]) -> T:
        """An item drawn by weight; `cumulative` is the running sum of the weights (see `running`)."""
        at = bisect_right(cumulative, self.random() * cumulative[-1])
        return items[min(at, len(items) - 1)]

    def heavy(self, alpha: float, cap: int) -> int:
        """A heavy-tailed count 0, 1, 2, ...: mostly small, now and then large (a discrete Pareto), at most `cap`."""
        u = 1.0 - self.random()  # in (0, 1]
        return min(int(u ** (-1.0 / alpha)) - 1, cap)

    def lognormal(self, mu: float, sigma: float) -> float:
        """exp(N(mu, sigma)), from two uniform draws (Box-Muller)."""
        u1, u2 = 1.0 - self.random(), self.random()
        return math.exp(mu + sigma * math.sqrt(-2.0 * math.log(u1)) * math.cos(2 * math.pi * u2))

    def moment(self, low: datetime, high: datetime) -> datetime:
        """A datetime between low and high, on SQL Server's datetime ticks."""
        span = max((high - low).total_seconds(), 0.0)
        at = low + timedelta(seconds=int(self.random() * span))
        return at.replace(microsecond=(self.below(100) * 10 + self.pick(_TICKS)) * 1000)

    def after(self, moment: datetime, typical_seconds: float, limit: datetime = END) -> datetime:
        """A moment after `moment`: heavy-tailed (mostly soon, some much later), never past `limit`."""
        delay = timedelta(seconds=1 + self.lognormal(math.log(max(typical_seconds, 1.0)), 1.6))
        at = min(moment + delay, limit)
        at = at.replace(microsecond=(self.below(100) * 10 + self.pick(_TICKS)) * 1000)
        return at if at > moment else moment + timedelta(milliseconds=3)

    def guid(self) -> str:
        """A uniqueidentifier as SQL Server prints it (upper case)."""
        value = 0
        for _ in range(4):
            value = (value << 32) | int(self.random() * 2**32)
        text = f"{value:032X}"
        return f"{text[:8]}-{text[8:12]}-4{text[13:16]}-{text[16:20]}-{text[20:]}"


def running(weights: Sequence[float]) -> list[float]:
    """The running sum of `weights`, for `Draw.weighted`."""
    out, total = [], 0.0
    for w in weights:
        total += w
        out.append(total)
    return out


def day_of(moment: datetime) -> datetime:
    """Midnight of the moment's day (SEDE keeps only the day of a vote)."""
    return moment.replace(hour=0, minute=0, second=0, microsecond=0)
