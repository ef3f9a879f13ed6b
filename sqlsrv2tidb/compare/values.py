"""One result row made comparable: each value as the target's result column holds it.

A query's answer has no DDL of its own, but the target says what type each result column has (the
driver's description: MySQL's type code, a decimal's scale, a date-time's fractional digits, the
column's collation). That type is the one the translated query promised to return, so both sides'
values are passed through the data stage's normalizer for it (`data.normalize.converter`): a
date-time at its precision, CHAR without its padding, a bit as 0/1. A decimal is compared by its exact
value (1.50 is 1.5), never rounded to the column's scale: rounding SQL Server's 1.414213562373095 to
the target's DECIMAL(38, 1) would hide that the translation kept one place where SQL Server keeps 15.
Floating-point values are compared with a relative tolerance (rounded to `FLOAT_DIGITS` significant
digits), since two engines may add the same numbers in a different order; a FLOAT (SQL Server's
real) is compared as the single-precision number it is. Text is
compared without case only where the target column's collation ignores case and so does the SQL
Server database's (`fold_case`). A value the column type cannot hold (a fraction in an integer
column) is kept as it is, tagged, so it differs from anything the other side returns.

Text compares as SQL Server compares it, without its trailing spaces (PAD SPACE: 'abc' = 'abc  ', so
GROUP BY and DISTINCT may return either spelling); a binary value keeps every byte, and CHAR's
padding is gone already.

Each row is reduced to a 64-bit digest (`data.normalize.row_digest`), which is what the answers
are compared by; the normalized values are kept only for the rows that are shown. A row with
numbered columns (`ties.Numbered`) is reduced to several (`RowShape.items`): the row with the
numbers blanked out, and each number with its window's keys.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ..data.normalize import TargetType, Unconvertible, converter, row_digest
from .ties import Numbered

FLOAT_DIGITS = 12

# MySQL protocol type codes (include/field_types.h); TiDB and MariaDB send the same.
_DECIMAL = {0, 246}
_INTEGER = {1, 2, 3, 8, 9, 13}
_DATETIME = {7, 12}
_TEXT = {15, 249, 250, 251, 252, 253, 245, 247, 248}
_NAMES = {0: "DECIMAL", 246: "DECIMAL", 1: "TINYINT", 2: "SMALLINT", 3: "INT", 8: "BIGINT", 9: "MEDIUMINT",
          13: "YEAR", 4: "FLOAT", 5: "DOUBLE", 7: "TIMESTAMP", 12: "DATETIME", 10: "DATE", 14: "DATE", 11: "TIME",
          16: "BIT", 245: "JSON", 254: "CHAR", 255: "GEOMETRY", 6: "NULL"}
BINARY_CHARSET = 63
_CI = re.compile(r"_ci$", re.I)


@dataclass(frozen=True)
class ResultColumn:
    """A target result column as the driver describes it."""

    name: str
    type_code: int
    scale: int | None = None
    collation: str | None = None
    """The column's collation name (None: unknown or binary)."""
    binary: bool = False

    def target_type(self) -> TargetType:
        code = self.type_code
        scale = self.scale if self.scale is not None and self.scale < 31 else None
        if code in _DECIMAL:
            return TargetType("decimal", f"DECIMAL(65,{scale or 0})", precision=65, scale=scale or 0)
        if code in _DATETIME:
            return TargetType("datetime", f"DATETIME({scale or 0})", scale=scale or 0)
        if code == 11:
            return TargetType("time", f"TIME({scale or 0})", scale=scale or 0)
        if code in (10, 14):
            return TargetType("date", "DATE")
        if code in _INTEGER:
            return TargetType("integer", "BIGINT")
        if code == 4:
            return TargetType("float", "FLOAT")
        if code == 5:
            return TargetType("double", "DOUBLE")
        if code == 16:
            return TargetType("bit", "BIT")
        if code == 254:
            return TargetType("binary" if self.binary else "char", "BINARY" if self.binary else "CHAR", length=None)
        if code in _TEXT:
            return TargetType("varbinary" if self.binary else "string", "VARBINARY" if self.binary else "VARCHAR")
        return TargetType("other", _NAMES.get(code, str(code)))

    @property
    def type_text(self) -> str:
        name = _NAMES.get(self.type_code, "VARBINARY" if self.binary else "VARCHAR")
        if self.type_code in _DECIMAL | _DATETIME | {11} and self.scale is not None and self.scale < 31:
            return f"{name}({self.scale})" if self.type_code not in _DECIMAL else f"DECIMAL(·,{self.scale})"
        return name


def fold_case(column: ResultColumn, source_collation: str | None) -> bool:
    """Whether text of this column compares without case: its collation and SQL Server's both ignore case.

    A SQL Server collation the capture does not name is the install default, SQL_Latin1_General_CP1_CI_AS,
    as the planner assumes when it maps collations."""
    source = source_collation or "SQL_Latin1_General_CP1_CI_AS"
    return bool(column.collation and _CI.search(column.collation) and "_ci" in source.casefold())


@dataclass(frozen=True)
class Unheld:
    """A value the target column's type cannot hold: compared as what it was, so it matches nothing normalized."""

    value: Any
    why: str

    def __repr__(self) -> str:
        return f"{self.value!r} (not a {self.why})"


COARSE_FLOAT_DIGITS = 9
"""Digits of a second look at answers that differ only where doubles round otherwise (see `RowShape`)."""


def _value_normalizer(column: ResultColumn, float_digits: int) -> Callable[[Any], Any]:
    target = column.target_type()
    convert: Callable[[Any], Any] | None
    if target.family == "integer":
        convert = _integral
    elif target.family == "bit":
        convert = _bit
    elif target.family == "double":
        convert = _rounded_float if float_digits == FLOAT_DIGITS else lambda v: _rounded_float(v, float_digits)
    elif target.family == "float":
        convert = _rounded_float32
    elif target.family == "decimal":
        convert = _exact_decimal
    else:
        convert = converter(target)
    if convert is None:
        return lambda v: v
    family = target.family

    def normalize(value: Any) -> Any:
        if value is None:
            return None
        try:
            return convert(value)
        except (Unconvertible, ValueError, TypeError, OverflowError) as exc:
            return Unheld(value, f"{family} value: {exc}")

    return normalize


def _integral(value: Any) -> int:
    """A whole number of any width (a result column's integer type may be wider than BIGINT on either side)."""
    if type(value) is int:
        return value
    if isinstance(value, (bytes, bytearray)):
        return int.from_bytes(value, "big")
    if isinstance(value, float):
        if not value.is_integer():
            raise Unconvertible(f"{value!r} is not a whole number")
        return int(value)
    if isinstance(value, str):
        value = value.strip()
    from decimal import Decimal, InvalidOperation

    try:
        d = value if isinstance(value, Decimal) else Decimal(int(value) if isinstance(value, bool) else value)
    except (InvalidOperation, ValueError, TypeError):
        raise Unconvertible(f"{value!r} is not a whole number") from None
    if d != d.to_integral_value():
        raise Unconvertible(f"{value} is not a whole number")
    return int(d)


def _exact_decimal(value: Any) -> Decimal:
    """A number as its exact decimal value, trailing zeros dropped (1.50 and 1.5 are one value).

    Not rounded to the target column's scale: SQL Server's 1.414213562373095 is not the target's 1.4, and
    a translation that keeps fewer places than SQL Server must show as a difference."""
    if isinstance(value, bool):
        value = int(value)
    d = value if isinstance(value, Decimal) else Decimal(repr(value) if isinstance(value, float) else str(value).strip())
    if not d.is_finite():
        raise Unconvertible(f"{value!r} is not a finite number")
    if d.is_zero():
        return Decimal(0)
    return d.quantize(Decimal(1)) if d == d.to_integral_value() else d.normalize()


def _bit(value: Any) -> int:
    if isinstance(value, (bytes, bytearray)):
        return int.from_bytes(value, "big")
    return _integral(value)


def _rounded_float(value: Any, digits: int = FLOAT_DIGITS) -> float:
    f = float(value)
    if f != f or f in (float("inf"), float("-inf")):
        raise Unconvertible(f"{f!r} has no DOUBLE value")
    return float(format(f, f".{digits}g")) + 0.0


def _rounded_float32(value: Any) -> float:
    """A FLOAT (SQL Server's real) value as the single-precision number it is: SQL Server sends its exact value
    widened to a double (0.4814814925193787), TiDB and MySQL its shortest text ('0.4814815'); both read back to
    the same single. (Rounding to six digits would put 0.48148149 and 0.4814815 on two sides of a boundary.)"""
    f = float(value)
    if f != f or f in (float("inf"), float("-inf")):
        raise Unconvertible(f"{f!r} has no FLOAT value")
    try:
        return struct.unpack("<f", struct.pack("<f", f))[0] + 0.0
    except OverflowError:
        raise Unconvertible(f"{f!r} is outside FLOAT's range") from None


class RowShape:
    """How the rows of one class's answer are normalized and digested (one per answer, from the target's columns).

    Doubles are rounded to `float_digits` significant digits. Two engines that add or average the same
    numbers in another order may end a unit apart in the last binary place, and when the exact value lies
    on a rounding boundary (ln 2 sums over many equal scores did, at 0.3106133312235) the two round to
    neighbouring 12-digit values, and a whole tie group moves. Answers that differ so are looked at again
    with `COARSE_FLOAT_DIGITS`, whose boundaries lie elsewhere (runner.py)."""

    @property
    def has_doubles(self) -> bool:
        return any(c.target_type().family == "double" for c in self.columns)

    def __init__(self, columns: Sequence[ResultColumn], source_collation: str | None,
                 numbered: Sequence[Numbered] = (), float_digits: int = FLOAT_DIGITS) -> None:
        self.columns = tuple(columns)
        self.float_digits = float_digits
        self._normalizers = tuple(_value_normalizer(c, float_digits) for c in self.columns)
        self.folds = tuple(fold_case(c, source_collation) and c.target_type().is_text for c in self.columns)
        self.pads = tuple(c.target_type().is_text for c in self.columns)
        self.numbered = tuple(n for n in numbered if n.position < len(self.columns)
                              and all(k < len(self.columns) for k in n.keys))
        self.items = self._items if self.numbered else self._one
        if self.numbered:
            blank = set(n.position for n in self.numbered)
            self._kept = tuple(i for i in range(len(self.columns)) if i not in blank)

    def normalize(self, row: Sequence[Any]) -> tuple[Any, ...]:
        if len(row) != len(self._normalizers):
            raise ValueError(f"a row of {len(row)} values for {len(self._normalizers)} columns")
        return tuple([n(v) for n, v in zip(self._normalizers, row, strict=True)])

    def digest(self, values: Sequence[Any]) -> int:
        return row_digest(values, self.folds, self.pads)

    def _one(self, values: Sequence[Any]) -> tuple[int, ...]:
        return (row_digest(values, self.folds, self.pads),)

    def _items(self, values: Sequence[Any]) -> tuple[int, ...]:
        """The row without its numbers, then each number with its window's keys (tagged by its column)."""
        kept = self._kept
        found = [row_digest([_ROW, *(values[i] for i in kept)], [False, *(self.folds[i] for i in kept)],
                            [False, *(self.pads[i] for i in kept)])]
        for n in self.numbered:
            found.append(row_digest([n.position, *(values[k] for k in n.keys), values[n.position]],
                                    [False, *(self.folds[k] for k in n.keys), False],
                                    [False, *(self.pads[k] for k in n.keys), False]))
        return tuple(found)

    def key_of(self, values: Sequence[Any], positions: Sequence[int]) -> tuple[Any, ...]:
        """The ORDER BY key of a normalized row, as SQL Server ties it: text without case where the column
        ignores case, and without trailing spaces."""
        return tuple(_folded(values[i], self.folds[i], self.pads[i]) for i in positions)


_ROW = "the row without its numbers"
"""The first value of a numbered row's first item, so it never digests like a (keys, number) item."""


def _folded(value: Any, fold: bool, pad: bool) -> Any:
    if isinstance(value, str):
        value = value.rstrip(" ") if pad else value
        return value.casefold() if fold else value
    return value if not isinstance(value, Unheld) else repr(value)
