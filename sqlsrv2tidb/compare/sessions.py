"""Both sides' sessions kept usable through a long run, and each breakage put on the class that caused it.

A run of hundreds of classes outlives sessions: a server restarts, a connection is cut, a class
breaks the session it ran on. The rules (docs/compare.md):

- Before a class, a side without a session is opened again, waiting as `reopen` says; a side still
  down after the bound makes this class an error that says so (`unreachable`), and the next class
  tries again.
- After any error on a side, that side's session is probed (`SELECT 1`). A session lost (the
  connection cut, the server starting, recovering or stopping) or that does not answer the probe is
  opened again, and the class run once more on the new session: a server that went away and one
  that the class broke look alike until then. Broken again, it is this class's error: it breaks its
  session, which is opened again for the next class.
- A SQL Server statement past its timeout always costs its session (the server may still be running
  it, and the session would wait for it); the timeout is the class's error, not run again.
- `Reconnect.down_classes` classes in a row that find a side down stop the run (`Stopped`): what was
  judged is written, the rest is listed as not run, and the command ends with one error line.
"""

from __future__ import annotations

from collections.abc import Callable

from .reopen import Reconnect, Reopened, SideDown, reopen
from .sides import SQL_SERVER, SideError, SqlServerSide, TargetSide

Side = SqlServerSide | TargetSide


class Stopped(Exception):
    """A side stayed down for `down_classes` classes in a row: the run ends after the classes judged."""


class Sessions:
    """The two sides of a run, the waiting policy, and how many classes in a row found a side down."""

    def __init__(self, sql_server: SqlServerSide, target: TargetSide, policy: Reconnect | None = None,
                 note: Callable[[str], None] | None = None, sleep: Callable[[float], None] | None = None) -> None:
        self.sql_server, self.target = sql_server, target
        self.policy = policy or Reconnect()
        self.note = note or (lambda line: None)
        self.sleep = sleep
        self.down_in_a_row = 0
        self.reopened: list[Reopened] = []
        """Every session opened again during the run, in order."""

    def side(self, name: str) -> Side:
        return self.sql_server if name == SQL_SERVER else self.target

    def reopen(self, side: Side, why: str) -> Reopened:
        """Open `side` again (waiting while it cannot be reached); SideDown when the bound passes."""
        side.drop()
        extra = {"sleep": self.sleep} if self.sleep is not None else {}
        done = reopen(side.connect_again, side=side.name, what=side.display, why=why, policy=self.policy,
                      note=self.note, **extra)
        self.reopened.append(done)
        return done

    def ready(self) -> SideDown | None:
        """Before a class: every side has a session, or the first one that cannot get one within the bound."""
        for side in (self.sql_server, self.target):
            if not side.connected:
                try:
                    self.reopen(side, f"{side.display} had no session after the previous class")
                except SideDown as down:
                    return down
        return None

    def broken(self, errors: list[SideError]) -> dict[str, str]:
        """The sides a class's errors left without a usable session, each with why: a lost session, or one that
        answers no probe after the error (a server that went away, or a session the class broke, look alike)."""
        found = {}
        for name in dict.fromkeys(e.side for e in errors):
            error = next(e for e in reversed(errors) if e.side == name)
            if error.lost:
                found[name] = error.message
            elif not (error.timed_out and name == SQL_SERVER) and not self.side(name).probe():
                found[name] = f"its session answered no probe after the error ({error.message})"
        return found

    def settle(self, errors: list[SideError]) -> tuple[dict[str, str], list[str]]:
        """After a class's last run: each session it left broken, or busy with a SQL Server statement past its
        timeout (the server may still run it), opened again for the next class. Returns the broken sides and,
        for a side that could not be opened again, what the class's reason should add."""
        broken = self.broken(errors)
        renew = dict(broken)
        for error in errors:
            if error.timed_out and error.side == SQL_SERVER:
                renew.setdefault(SQL_SERVER, error.message)
        said = []
        for name, why in renew.items():
            try:
                self.reopen(self.side(name), why)
            except SideDown as down:
                said.append(str(down))
        return broken, said

    def judged(self, unreachable: bool) -> None:
        """Count a class that found a side down (or not); Stopped once `down_classes` did in a row."""
        self.down_in_a_row = self.down_in_a_row + 1 if unreachable else 0
        if unreachable and self.down_in_a_row >= self.policy.down_classes:
            raise Stopped(f"a side stayed unreachable for {self.down_in_a_row} classes in a row, each after "
                          f"waiting {self.policy.within:g} s")
