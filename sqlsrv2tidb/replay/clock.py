"""How far a cluster worker's clock is from the coordinator's, so every share starts at one instant.

The shares of a run start together at an instant the coordinator picks on its own clock; each
worker sleeps until that instant on *its* clock, which may be off by milliseconds (NTP) or by
seconds (no NTP). So the coordinator measures each worker's offset first, the way NTP does: it
notes its clock before asking (t0), the worker answers with its clock (t1), the coordinator notes
its clock when the answer is back (t2). If the way there and back took equal time, the worker read
its clock at (t0 + t2) / 2 of ours, so offset = t1 - (t0 + t2) / 2, wrong by at most half the round
trip. Of several samples the one with the shortest round trip is kept: a sample delayed on one
leg only (a busy scheduler, a GC pause) is the one that would mislead.
(https://datatracker.ietf.org/doc/html/rfc5905#section-8)

    >>> best_offset([(10.0, 15.004, 10.010), (20.0, 25.0015, 20.003)])
    ClockOffset(offset_s=5.0, rtt_s=0.003)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ClockOffset:
    offset_s: float
    """The worker's clock minus the coordinator's (positive: the worker's clock is ahead)."""
    rtt_s: float
    """The round trip of the sample the offset came from: the offset is right to within half of it."""


def best_offset(samples: Sequence[tuple[float, float, float]]) -> ClockOffset:
    """The offset of the (t0, t_worker, t2) sample with the shortest round trip."""
    if not samples:
        raise ValueError("no clock samples")
    t0, t1, t2 = min(samples, key=lambda s: s[2] - s[0])
    return ClockOffset(round(t1 - (t0 + t2) / 2, 9), round(t2 - t0, 9))


def measure(ask: Callable[[], float], clock: Callable[[], float], samples: int = 7) -> ClockOffset:
    """Ask a worker's clock `samples` times (`ask` returns its reading) and keep the best sample."""
    taken = []
    for _ in range(samples):
        t0 = clock()
        t1 = ask()
        taken.append((t0, t1, clock()))
    return best_offset(taken)


def local_start(start: float, offset: ClockOffset) -> float:
    """The coordinator's start instant read on the worker's clock."""
    return start + offset.offset_s
