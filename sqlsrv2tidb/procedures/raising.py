"""RAISERROR and THROW: the message, severity and state a procedure raises, and where the error goes.

THROW number, message, state raises error `number` (50000 or more) at severity 16 and ends the call
outside TRY; `THROW;` in a CATCH block raises the error it handles again. RAISERROR(message, severity,
state, args...) formats the message printf-style (`%s`, `%d`...): severity 10 or less is a message
(like PRINT), 11 to 19 an error that goes to CATCH or reaches the caller while the procedure goes on,
20 and more ends the call. A message number instead of a text names sys.messages, which the runner
does not hold: the number is kept, the text says so.
https://learn.microsoft.com/sql/t-sql/language-elements/raiserror-transact-sql
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from . import program as p
from .failures import TsqlError
from .sending import Sender
from .state import CallState, Frame
from .values import assign

Fail = Callable[..., None]
"""The runner's way with an error met: to the nearest CATCH, else to the caller (`aborts=True`: the call ends)."""


def raise_step(sender: Sender, state: CallState, frame: Frame, step: p.Raise, fail: Fail) -> None:
    """Raise what a RAISERROR or THROW step says, or record a RAISERROR of severity 10 or less as a message."""
    state.rowcount = 0
    if step.kind == "rethrow":
        if not state.handling:
            raise TsqlError(10704, "To rethrow an error, a THROW statement must be used inside a CATCH block.")
        again = state.handling[-1]
        fail(state, TsqlError(again.number, again.message, again.severity, again.state, again.line, again.target_code),
             aborts=True)
        return
    values = [sender.value(state, frame, v) for v in step.arguments]
    if step.kind == "throw":
        number = assign(values[0], "int")
        if number is None or number < 50000:
            raise TsqlError(35100, "Error number in THROW statement is outside the valid range.")
        error = TsqlError(number, text_of(values[1]), 16, assign(values[2], "int") or 1, step.line)
        error.procedure = frame.program.name
        fail(state, error, aborts=True)
        return
    message, number = values[0], 50000
    if isinstance(message, int):
        number, message = message, f"(message {message} of sys.messages)"
    severity = assign(values[1], "int") or 0
    text = formatted(text_of(message), values[3:])
    if severity <= 10:
        state.result.messages.append(text)
        return
    error = TsqlError(number, text, severity, assign(values[2], "int") or 1, step.line)
    error.procedure = frame.program.name
    fail(state, error)


def text_of(value: Any) -> str:
    return "" if value is None else str(value)


_PRINTF = re.compile(r"%[-+ 0#]*(\d+|\*)?(?:\.(\d+|\*))?(?:h|l|I64)?([diosuxX%])")


def formatted(message: str, args: Sequence[Any]) -> str:
    """RAISERROR's printf-style message: `%s`, `%d`, `%i`, `%u`, `%x`, widths ignored."""
    values = iter(args)

    def one(match: re.Match[str]) -> str:
        if match[3] == "%":
            return "%"
        value = next(values, None)
        if value is None:
            return "(null)"
        if match[3] in "xX" and isinstance(value, int):
            return format(value, match[3])
        return str(value)

    return _PRINTF.sub(one, message)
