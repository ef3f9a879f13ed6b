"""Opening a side's session again after it was lost: increasing waits up to a bound, each one told.

A server that restarts (after a crash, a failover, a deployment) first refuses connections, then
answers that it is starting up or recovering, then serves again. `compare` waits for it rather than
judge every class left an error: the first attempt is at once, then each wait is twice the last, up
to a longest wait, and the waits together stop at a bound (`Reconnect.within`: 120 s unless
`--reconnect-within` says otherwise). Every wait is one line on the progress display. When the bound
passes the side is down: `SideDown` says so with the server's last words, the class is an error
saying so, and the next class tries again from the first wait. The rule that stops a run whose side
stays down is the runner's (`Reconnect.down_classes`).

The schedule is pure and the sleep is given, so the waits are tested without a server.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..errors import ConnectionFailed, one_line


@dataclass(frozen=True)
class Reconnect:
    """How long `compare` waits for a lost server, and when it stops waiting for good (docs/compare.md)."""

    within: float = 120.0
    """Seconds of waiting, in all, before a side is taken as down for this class (0: one attempt only)."""
    first_wait: float = 1.0
    longest_wait: float = 15.0
    down_classes: int = 3
    """Classes in a row that find a side down (each after waiting `within`) stop the run."""

    def waits(self) -> Iterator[float]:
        """The waits before each attempt after the first: 1, 2, 4, 8, 15, 15, ... s, `within` in all."""
        total, wait = 0.0, self.first_wait
        while total < self.within:
            step = min(wait, self.longest_wait, self.within - total)
            yield step
            total += step
            wait *= 2


@dataclass(frozen=True)
class Reopened:
    """A session opened again: after how many attempts and how many seconds of waiting."""

    side: str
    attempts: int
    waited: float
    why: str
    """What made it necessary, one line (the error that lost the session, or the probe that failed)."""

    def to_json(self) -> dict[str, object]:
        return {"side": self.side, "attempts": self.attempts, "waited_s": round(self.waited, 1), "why": self.why}


class SideDown(Exception):
    """A side could not be reached again within the bound: who, its last error, how long it was tried."""

    def __init__(self, side: str, what: str, last: str, attempts: int, waited: float) -> None:
        self.side, self.what, self.last, self.attempts, self.waited = side, what, last, attempts, waited
        super().__init__(f"{what} was unreachable: {attempts} attempt(s) over {waited:g} s failed, "
                         f"the last with: {last}")


def reopen(connect: Callable[[], None], *, side: str, what: str, why: str, policy: Reconnect,
           note: Callable[[str], None], sleep: Callable[[float], None] = time.sleep) -> Reopened:
    """Call `connect` until it opens a session (it raises ConnectionFailed while it cannot), waiting as
    `policy` says between attempts, with one `note` line per wait; SideDown once the waits run out."""
    attempts, waited = 0, 0.0
    waits = policy.waits()
    while True:
        attempts += 1
        try:
            connect()
        except ConnectionFailed as exc:
            last = one_line(str(exc), 200)
        else:
            return Reopened(side, attempts, waited, one_line(why, 200))
        wait = next(waits, None)
        if wait is None:
            raise SideDown(side, what, last, attempts, waited)
        note(f"{what}: attempt {attempts} to reconnect failed ({last}); waiting {wait:g} s "
             f"({waited + wait:g} of {policy.within:g} s)")
        sleep(wait)
        waited += wait
