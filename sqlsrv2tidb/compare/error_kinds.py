"""What kind of error refused a write, on either server: the same kind on both sides is the same answer.

SQL Server and the target number their errors differently (547 for a CHECK or a foreign key, 3819 and
1452 on TiDB), and an application branches on the kind, not the number: a write both servers refuse
for a CHECK is the same outcome, one refused for a CHECK on one side and for a unique key on the other
is not. The runner already gives a target error SQL Server's number where one matches
(`procedures.sending.TARGET_ERRORS`); the kind is read from the number and, where one number covers
two kinds (547), from the message.
https://learn.microsoft.com/sql/relational-databases/errors-events/database-engine-events-and-errors
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CHECK, FOREIGN_KEY, UNIQUE, NOT_NULL, TRUNCATION, CONVERSION, ARITHMETIC, RAISED, TRIGGER, DEADLOCK, OTHER = (
    "CHECK constraint", "foreign key", "unique key", "NOT NULL", "truncation", "conversion", "arithmetic",
    "raised by the code", "ended in a trigger", "deadlock or lock timeout", "other")
JSON, MISSING, SYNTAX = "JSON text or path", "an object that does not exist", "syntax"

_BY_NUMBER = {
    2627: UNIQUE, 2601: UNIQUE, 515: NOT_NULL, 8152: TRUNCATION, 2628: TRUNCATION,
    245: CONVERSION, 8114: CONVERSION, 241: CONVERSION, 242: CONVERSION, 8115: ARITHMETIC, 220: ARITHMETIC,
    8134: ARITHMETIC, 232: ARITHMETIC, 8169: CONVERSION, 3609: TRIGGER, 1205: DEADLOCK, 1222: DEADLOCK,
    3819: CHECK, 1062: UNIQUE, 1451: FOREIGN_KEY, 1452: FOREIGN_KEY, 1216: FOREIGN_KEY, 1217: FOREIGN_KEY,
    1048: NOT_NULL, 1364: NOT_NULL, 1406: TRUNCATION, 1366: CONVERSION, 1292: CONVERSION, 1264: ARITHMETIC, 1690: ARITHMETIC,
    1365: ARITHMETIC, 4025: CHECK,
    13609: JSON, 13608: JSON, 13611: JSON, 13610: JSON, 3140: JSON, 3141: JSON, 3143: JSON,
    208: MISSING, 207: MISSING, 2812: MISSING, 1146: MISSING, 1054: MISSING,
    102: SYNTAX, 156: SYNTAX, 170: SYNTAX, 1064: SYNTAX,
}
"""SQL Server's numbers, then the target's (MySQL's codes, which TiDB and MariaDB share) where no SQL Server number
was given to the error."""
_FOREIGN = re.compile(r"FOREIGN KEY|REFERENCE constraint|foreign key constraint", re.IGNORECASE)
_NATIVE = re.compile(r"\((\d+)\)\s*(?:\(SQL\w+\))?\s*$")


@dataclass(frozen=True)
class WriteError:
    """An error a side answered a write with: its number (SQL Server's where known), message and kind."""

    number: int | None
    message: str
    kind: str
    target_code: int | None = None

    def said(self) -> str:
        code = f" {self.number}" if self.number else ""
        return f"{self.kind} (error{code}: {self.message[:200]})"


_UNMAPPED = 33557097
"""The number the test endpoint gives every error it has no SQL Server number for (docs/babelfish.md): its kind is
read from its PostgreSQL message."""
_BY_MESSAGE = (
    (re.compile(r"violates check constraint", re.IGNORECASE), CHECK),
    (re.compile(r"violates foreign key constraint", re.IGNORECASE), FOREIGN_KEY),
    (re.compile(r"duplicate key value violates unique constraint", re.IGNORECASE), UNIQUE),
    (re.compile(r"violates not-null constraint", re.IGNORECASE), NOT_NULL),
    (re.compile(r"value too long for type", re.IGNORECASE), TRUNCATION),
    (re.compile(r"type json\b|\bJSON\b", re.IGNORECASE), JSON),
    (re.compile(r"invalid input syntax for type", re.IGNORECASE), CONVERSION),
    (re.compile(r"division by zero|out of range", re.IGNORECASE), ARITHMETIC),
    (re.compile(r"(relation|column|function|procedure) .* does not exist", re.IGNORECASE), MISSING),
    (re.compile(r"syntax error", re.IGNORECASE), SYNTAX),
)


def kind_of(number: int | None, message: str) -> str:
    if number == _UNMAPPED:
        return next((kind for pattern, kind in _BY_MESSAGE if pattern.search(message)), OTHER)
    if number == 547:
        return FOREIGN_KEY if _FOREIGN.search(message) else CHECK
    if number is not None and number >= 50000:
        return RAISED
    if number is not None and number in _BY_NUMBER:
        return _BY_NUMBER[number]
    if "check constraint" in message.lower():
        return CHECK
    return OTHER


def sql_server_error(text: str) -> WriteError:
    """A pyodbc error's text as the driver gives it: SQL Server's own number is the last parenthesis."""
    found = _NATIVE.search(text)
    number = int(found[1]) if found else None
    message = re.sub(r"\s*\(\d+\)\s*(?:\(SQL\w+\))?\s*$", "", text)
    message = re.sub(r"^(\[\w+\]\s*)?(\[[^\]]+\])+\s*", "", message) if "][" in message[:120] else message
    return WriteError(number, message, kind_of(number, message))


def target_error(number: int, message: str, target_code: int | None) -> WriteError:
    """An error the procedure runner reported for the target (SQL Server's number where one matches)."""
    kind = kind_of(number, message)
    if kind == OTHER and target_code is not None:
        kind = kind_of(target_code, message)
    return WriteError(number, message, kind, target_code)
