"""What a call sends to the target and what it works out itself: values, conditions, statements with their variables.

Every statement goes out with the variables it names bound as values (`?`), the runner's own values
(@@ROWCOUNT, ERROR_MESSAGE()...) among them. Each one sent is a round trip of the call. A value or
condition the client can work out by T-SQL's rules (`expressions`) is worked out here and sends
nothing. A failure the target reports becomes the procedure's error with SQL Server's number for it
where one matches (the target's code kept); a lost connection ends the call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..translate.session import SentStatement
from . import program as p
from .expressions import RUNTIME_PREFIX, NotLocal, Scope, evaluate
from .failures import TsqlError, WouldCommit
from .session import Failure, Outcome, TargetSession
from .state import CallState, Frame

_COMMITS = re.compile(r"\s*(?:(?:CREATE|ALTER|DROP)\s+(?!TEMPORARY\b)|TRUNCATE\b|RENAME\b|GRANT\b|REVOKE\b|LOCK\b|"
                      r"UNLOCK\b|COMMIT\b|ANALYZE\b|OPTIMIZE\b|FLUSH\b)", re.IGNORECASE)
"""Statements the target commits at once, whatever transaction is open (its DDL): never sent in a rolled-back call."""
TARGET_ERRORS = {1062: 2627, 1451: 547, 1452: 547, 1216: 547, 1217: 547, 3819: 547, 4025: 547, 1048: 515, 1264: 8115, 1690: 8115,
                 1365: 8134, 1213: 1205, 1205: 1222, 1406: 2628, 1146: 208, 1054: 207, 1366: 245, 1292: 241}
"""A target's error code -> SQL Server's number for the same error (ERROR_NUMBER(), @@ERROR)."""


class Lost(Exception):
    """The connection to the target is gone: the call ends."""

    def __init__(self, failure: Failure) -> None:
        self.failure = failure


class Sender:
    """One call's way to the target, and to the values it works out on the client."""

    def __init__(self, session: TargetSession, case_insensitive: bool = True) -> None:
        self.session, self.case_insensitive = session, case_insensitive

    def scope(self, state: CallState, frame: Frame) -> Scope:
        return Scope(frame.variables, state.runtime, self.case_insensitive)

    def value(self, state: CallState, frame: Frame, value: p.Value | None) -> Any:
        if value is None:
            return None
        if value.local is not None:
            try:
                return evaluate(value.local, self.scope(state, frame))
            except NotLocal:
                if not value.remote:
                    raise TsqlError(50000, f"the value of `{value.text}` needs the server's rules, and its translation "
                                           "is not runnable", 16) from None
        outcome = self.send_all(state, frame, value.remote)
        return outcome.rows[0][0] if outcome.rows and outcome.rows[0] else None

    def condition(self, state: CallState, frame: Frame, condition: p.Value) -> bool:
        if condition.local is not None:
            try:
                return evaluate(condition.local, self.scope(state, frame)) is True
            except NotLocal:
                if not condition.remote:
                    raise TsqlError(50000, f"the condition `{condition.text}` needs the server's rules, and its "
                                           "translation is not runnable", 16) from None
        outcome = self.send_all(state, frame, condition.remote)
        return bool(outcome.rows) and outcome.rows[0][0] == 1

    def send_all(self, state: CallState, frame: Frame, statements: Sequence[SentStatement]) -> Outcome:
        """Each statement in turn; the last one's answer."""
        outcome = Outcome()
        for statement in statements:
            outcome = self.send(state, frame, statement)
        return outcome

    def send(self, state: CallState, frame: Frame, statement: SentStatement) -> Outcome:
        values = [self.bound(state, frame, name) for name in statement.parameters]
        return self.execute(state, statement.sql, values)

    def bound(self, state: CallState, frame: Frame, name: str) -> Any:
        key = name.lstrip("@").lower()
        if key.startswith(RUNTIME_PREFIX):
            return state.runtime(key[len(RUNTIME_PREFIX):])
        if key not in frame.variables:
            raise TsqlError(137, f'Must declare the scalar variable "{name}".', 15)
        return frame.variables[key]

    def text(self, state: CallState, sql: str) -> None:
        """A statement of the runner's own (BEGIN, COMMIT, SAVEPOINT, a DROP), without values."""
        self.execute(state, sql, ())

    def execute(self, state: CallState, sql: str, values: Sequence[Any]) -> Outcome:
        if state.rolled_back and _COMMITS.match(sql):
            raise WouldCommit(f"`{' '.join(sql.split())[:80]}` commits on the target at once (DDL is not "
                              "transactional there)")
        state.result.round_trips += 1
        try:
            return self.session.execute(sql, values)
        except Exception as exc:  # noqa: BLE001 - the session says which exceptions are the target's answers
            failure = self.session.failure(exc)
            if failure is None:
                raise
            if failure.lost:
                raise Lost(failure) from None
            raise TsqlError(TARGET_ERRORS.get(failure.code, failure.code or 50000), failure.message, 16, 1,
                            target_code=failure.code) from None
