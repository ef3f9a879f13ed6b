"""A value as the target column stores it: the one place SQL Server values meet TiDB's types.

Copying a row, checksumming it on either side, and (next) comparing a query's answers between SQL
Server and TiDB all ask the same question: given a value read from one server, what does a TiDB
column of this type hold for it? `TargetType.parse("DATETIME(3)")` describes the column;
`converter(target, source)` returns the function that answers; `normalize` is the one-value form.

    >>> t = TargetType.parse("DATETIME(6)")
    >>> normalize("2020-01-01 10:00:00.1234567", t)      # datetime2(7) text: the 7th digit rounds
    datetime.datetime(2020, 1, 1, 10, 0, 0, 123457)
    >>> normalize(b"ab", TargetType.parse("BINARY(4)"))  # BINARY pads with zero bytes
    b'ab\\x00\\x00'
    >>> normalize("ab   ", TargetType.parse("CHAR(5)"))  # CHAR drops trailing spaces on read
    'ab'

The values that come back are plain Python values of one canonical kind per family (int, Decimal
at the column's scale, float, datetime/date, timedelta for TIME, str, bytes), whichever driver
(pyodbc, PyMySQL, mysqlclient) or text they came from, so equal values compare equal. A value the
column cannot hold raises `Unconvertible` with the reason (NaN in a DOUBLE, a decimal too wide).

Rounding follows TiDB: fractional seconds and decimals round half away from zero
(https://docs.pingcap.com/tidb/stable/data-type-date-and-time). MariaDB truncates a seventh digit
instead, so values are rounded here, before either server sees them, and both store the same.
A date-time that would round past 9999-12-31 23:59:59.999999 keeps its truncated value (the
"end of time" that applications write as 9999-12-31 23:59:59.9999999 stays the end of time).
"""

from __future__ import annotations

import hashlib
import math
import re
import struct
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from decimal import ROUND_HALF_UP, Context, Decimal, InvalidOperation
from itertools import repeat
from typing import Any

from ..model.hierarchy_path import NotAPath
from ..model.hierarchy_path import encode as encode_path

_INT_RANGES = {
    "TINYINT": (-(1 << 7), (1 << 7) - 1), "SMALLINT": (-(1 << 15), (1 << 15) - 1),
    "MEDIUMINT": (-(1 << 23), (1 << 23) - 1), "INT": (-(1 << 31), (1 << 31) - 1),
    "INTEGER": (-(1 << 31), (1 << 31) - 1), "BIGINT": (-(1 << 63), (1 << 63) - 1),
}
_CASE_INSENSITIVE = re.compile(r"_ci$|_ai_ci$", re.I)
_TYPE = re.compile(r"^\s*([A-Za-z]+)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?\s*(UNSIGNED)?", re.I)
_MAX_DATETIME = datetime(9999, 12, 31, 23, 59, 59, 999999)
_WIDE = Context(prec=100)
"""Decimal arithmetic wide enough for DECIMAL(65,30), TiDB's widest (Python's default context keeps 28 digits)."""


class Unconvertible(ValueError):
    """The target column cannot hold this value; `str()` is the reason, for the rejects file."""


@dataclass(frozen=True)
class TargetType:
    """What the normalizer needs to know about a TiDB column: its family and its limits."""

    family: str
    """integer, decimal, double, float, datetime, date, time, char, string, binary, varbinary, json, bit, other."""
    text: str
    length: int | None = None
    scale: int | None = None
    precision: int | None = None
    unsigned: bool = False
    case_insensitive: bool = False
    """The column's collation ignores case, so values that differ only in case are the same value."""
    collation: str | None = field(default=None, compare=False)
    """The text column's collation, as the target names it (a key compared with a value of the load's own
    is compared in it)."""

    @classmethod
    def parse(cls, ddl_type: str, collation: str | None = None) -> TargetType:
        """From DDL text (`DECIMAL(19,4)`, `CHAR(36)`, `TINYINT UNSIGNED`) and the column's collation."""
        m = _TYPE.match(ddl_type)
        name = m[1].upper() if m else ddl_type.strip().upper()
        a = int(m[2]) if m and m[2] else None
        b = int(m[3]) if m and m[3] else None
        unsigned = bool(m and m[4])
        ci = bool(collation and _CASE_INSENSITIVE.search(collation))
        if name in _INT_RANGES or name in ("BOOL", "BOOLEAN", "YEAR"):
            return cls("integer", ddl_type, unsigned=unsigned)
        if name in ("DECIMAL", "NUMERIC", "DEC"):
            return cls("decimal", ddl_type, precision=a or 10, scale=b or 0)
        if name in ("DOUBLE", "REAL"):
            return cls("double", ddl_type)
        if name == "FLOAT":
            return cls("double" if a and a > 24 else "float", ddl_type)
        if name in ("DATETIME", "TIMESTAMP"):
            return cls("datetime", ddl_type, scale=a or 0)
        if name == "DATE":
            return cls("date", ddl_type)
        if name == "TIME":
            return cls("time", ddl_type, scale=a or 0)
        if name == "CHAR":
            return cls("char", ddl_type, length=a or 1, case_insensitive=ci, collation=collation)
        if name in ("VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT", "ENUM", "SET"):
            return cls("string", ddl_type, length=a, case_insensitive=ci, collation=collation)
        if name == "BINARY":
            return cls("binary", ddl_type, length=a or 1)
        if name in ("VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB"):
            return cls("varbinary", ddl_type, length=a)
        if name == "JSON":
            return cls("json", ddl_type)
        if name == "BIT":
            return cls("bit", ddl_type, length=a or 1)
        return cls("other", ddl_type)

    @property
    def is_text(self) -> bool:
        return self.family in ("char", "string", "json", "other")

    @property
    def is_binary(self) -> bool:
        return self.family in ("binary", "varbinary")


Converter = Callable[[Any], Any]


def normalize(value: Any, target: TargetType, source: str | None = None) -> Any:
    """`value` as a column of type `target` holds it (None stays None); see `converter`."""
    if value is None:
        return None
    convert = converter(target, source)
    return value if convert is None else convert(value)


def converter(target: TargetType, source: str | None = None) -> Converter | None:
    """The function from a read value to the stored one, or None where the value passes as it is.

    `source` is the SQL Server type name when the value comes from SQL Server: it says what a
    string means where the target type alone cannot (a uniqueidentifier's text into BINARY(16)).
    The function is never called with None.
    """
    family = target.family
    if family == "integer":
        low, high = _int_range(target)
        return lambda v: _integer(v, low, high)
    if family == "decimal":
        return _decimal_converter(target)
    if family == "double":
        return _double
    if family == "float":
        return _float32
    if family == "datetime":
        fsp = target.scale or 0
        return lambda v: _datetime(v, fsp)
    if family == "date":
        return _date
    if family == "time":
        fsp = target.scale or 0
        return lambda v: _time(v, fsp)
    if family == "char":
        return _uuid_text if source == "uniqueidentifier" else _char
    if family in ("string", "json", "other"):
        if source == "hierarchyid":
            return _hierarchy_path
        return _uuid_text if source == "uniqueidentifier" else _text
    if family == "binary":
        length = target.length or 1
        if source == "uniqueidentifier":
            return lambda v: _uuid_bytes(v).ljust(length, b"\0")
        return lambda v: _bytes(v).ljust(length, b"\0")
    if family == "varbinary":
        return _uuid_bytes if source == "uniqueidentifier" else _bytes
    if family == "bit":
        return lambda v: int.from_bytes(v, "big") if isinstance(v, (bytes, bytearray)) else int(v)
    return None


def _int_range(target: TargetType) -> tuple[int, int]:
    m = _TYPE.match(target.text)
    name = m[1].upper() if m else ""
    low, high = _INT_RANGES.get(name, (-(1 << 63), (1 << 63) - 1))
    if target.unsigned:
        return 0, 2 * high + 1
    return low, high


def _integer(v: Any, low: int, high: int) -> int:
    if type(v) is not int:
        if type(v) is bool:  # a bit column: the commonest value that is not already an int
            return int(v)
        if isinstance(v, (bytes, bytearray)):
            v = int.from_bytes(v, "big")
        elif isinstance(v, float):
            if not v.is_integer():
                raise Unconvertible(f"{v!r} is not a whole number")
            v = int(v)
        elif isinstance(v, Decimal):
            if v != v.to_integral_value():
                raise Unconvertible(f"{v} is not a whole number")
            v = int(v)
        else:
            try:
                v = int(v)
            except (TypeError, ValueError):
                raise Unconvertible(f"{_show(v)} is not a whole number") from None
    if not low <= v <= high:
        raise Unconvertible(f"{v} is outside the column's range {low}..{high}")
    return v


def _decimal_converter(target: TargetType) -> Converter:
    scale = target.scale or 0
    quantum = Decimal(1).scaleb(-scale)
    limit = Decimal(10) ** ((target.precision or 10) - scale)

    def convert(v: Any) -> Decimal:
        try:
            d = v if isinstance(v, Decimal) else Decimal(repr(v) if isinstance(v, float) else str(v).strip())
            d = d.quantize(quantum, rounding=ROUND_HALF_UP, context=_WIDE)
        except (InvalidOperation, ValueError):
            raise Unconvertible(f"{_show(v)} is not a number {target.text} can hold") from None
        if not d.is_finite() or d.copy_abs().compare(limit, context=_WIDE) >= 0:
            raise Unconvertible(f"{_show(v)} does not fit {target.text}")
        return d.copy_abs() if d.is_zero() else d  # -0.00 reads back as 0.00

    return convert


def _double(v: Any) -> float:
    f = v if type(v) is float else _to_float(v)
    if f != f or f in (math.inf, -math.inf):
        raise Unconvertible(f"{f!r} has no TiDB DOUBLE value (TiDB and MySQL store no NaN or infinity)")
    return f + 0.0 if f == 0 else f  # -0.0 is stored as 0


def _float32(v: Any) -> float:
    f = _double(v)
    try:
        return struct.unpack("<f", struct.pack("<f", f))[0] + 0.0
    except OverflowError:
        raise Unconvertible(f"{f!r} is outside FLOAT's range (±3.4e38)") from None


def _to_float(v: Any) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        raise Unconvertible(f"{_show(v)} is not a number") from None


_DT_TEXT = re.compile(
    r"^\s*(-?\d{1,4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*"
    r"(Z|[+-]\d{2}:?\d{2})?\s*$")


def _datetime(v: Any, fsp: int) -> datetime:
    if isinstance(v, datetime):
        if v.tzinfo is not None:
            v = v.astimezone(UTC).replace(tzinfo=None)
        return _round_datetime(v, v.microsecond * 1000, fsp)
    if isinstance(v, date):
        return datetime(v.year, v.month, v.day)
    if isinstance(v, str):
        m = _DT_TEXT.match(v)
        if not m:
            raise Unconvertible(f"{_show(v)} is not a date and time")
        try:
            base = datetime(int(m[1]), int(m[2]), int(m[3]), int(m[4] or 0), int(m[5] or 0), int(m[6] or 0))
        except ValueError as exc:
            raise Unconvertible(f"{_show(v)} is not a valid date and time ({exc})") from None
        if m[8]:
            base = _to_utc(base, m[8])
        return _round_datetime(base, int((m[7] or "0").ljust(9, "0")), fsp)
    raise Unconvertible(f"{_show(v)} is not a date and time")


def _to_utc(value: datetime, offset: str) -> datetime:
    if offset == "Z":
        return value
    sign = -1 if offset[0] == "-" else 1
    digits = offset[1:].replace(":", "")
    return value - sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:]))


def _round_datetime(base: datetime, nanos: int, fsp: int) -> datetime:
    unit = 10 ** (9 - fsp)
    rounded = (nanos + unit // 2) // unit * unit
    whole = base.replace(microsecond=0)
    if rounded >= 1_000_000_000:
        try:
            return whole + timedelta(seconds=1)
        except OverflowError:
            return _MAX_DATETIME.replace(microsecond=(999_999 // (unit // 1000)) * (unit // 1000) if fsp else 0)
    return whole.replace(microsecond=rounded // 1000)


def _date(v: Any) -> date:
    if isinstance(v, datetime):
        return v.date()
    if isinstance(v, date):
        return v
    return _datetime(v, 0).date() if isinstance(v, str) else _unconvertible(v, "a date")


_TIME_TEXT = re.compile(r"^\s*(-)?(\d{1,3}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?\s*$")


def _time(v: Any, fsp: int) -> timedelta:
    if isinstance(v, timedelta):
        nanos = (v.days * 86400 + v.seconds) * 1_000_000_000 + v.microseconds * 1000
    elif isinstance(v, time):
        nanos = ((v.hour * 60 + v.minute) * 60 + v.second) * 1_000_000_000 + v.microsecond * 1000
    elif isinstance(v, str):
        m = _TIME_TEXT.match(v)
        if not m:
            raise Unconvertible(f"{_show(v)} is not a time of day")
        seconds = (int(m[2]) * 60 + int(m[3])) * 60 + int(m[4] or 0)
        nanos = seconds * 1_000_000_000 + int((m[5] or "0").ljust(9, "0"))
        nanos = -nanos if m[1] else nanos
    else:
        return _unconvertible(v, "a time of day")
    unit = 10 ** (9 - fsp)
    sign = -1 if nanos < 0 else 1
    rounded = sign * ((abs(nanos) + unit // 2) // unit * unit)
    return timedelta(microseconds=rounded // 1000)


def _char(v: Any) -> str:
    return _text(v).rstrip(" ")


def _text(v: Any) -> str:
    if type(v) is str:
        return v
    if isinstance(v, (bytes, bytearray)):
        try:
            return bytes(v).decode("utf-8")
        except UnicodeDecodeError:
            raise Unconvertible(f"{_show(v)} is not UTF-8 text") from None
    if isinstance(v, uuid.UUID):
        return str(v).upper()
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, datetime):
        return v.isoformat(" ")
    return str(v)


def _hierarchy_path(v: Any) -> str:
    """A hierarchyid read as its ToString() path, in the form the target's column sorts (model/hierarchy_path.py)."""
    try:
        return encode_path(_text(v))
    except NotAPath as error:
        raise Unconvertible(str(error)) from None


def _uuid_text(v: Any) -> str:
    return str(v).upper() if isinstance(v, uuid.UUID) else _text(v).upper()


def _uuid_bytes(v: Any) -> bytes:
    if isinstance(v, (bytes, bytearray)):
        return bytes(v)
    try:
        return (v if isinstance(v, uuid.UUID) else uuid.UUID(str(v))).bytes
    except ValueError:
        raise Unconvertible(f"{_show(v)} is not a uniqueidentifier") from None


def _bytes(v: Any) -> bytes:
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v)
    if isinstance(v, str):
        return v.encode("utf-8")
    if isinstance(v, uuid.UUID):
        return v.bytes
    return _unconvertible(v, "binary data")


def _unconvertible(v: Any, what: str) -> Any:
    raise Unconvertible(f"{_show(v)} is not {what}")


def _show(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


# Comparing ---------------------------------------------------------------------------------------

def token(value: Any, case_insensitive: bool = False, pad_space: bool = False) -> bytes:
    """Bytes that stand for a normalized value in a checksum: equal values, equal tokens.

    Each kind has its own tag, so 1 (int) and '1' (text) differ; text is case-folded where the
    column's collation ignores case (the same value to TiDB), never otherwise. `pad_space` compares
    text as SQL Server does, without its trailing spaces ('abc' = 'abc  ', PAD SPACE): an answer's
    comparison asks for it; a copied table's verification does not, since the copy must keep them.
    https://learn.microsoft.com/sql/t-sql/language-elements/string-comparison-assignment
    """
    if value is None:
        return b"\x00"
    kind = type(value)
    if kind is int:
        return b"i" + str(value).encode()
    if kind is str:
        if pad_space:
            value = value.rstrip(" ")
        return b"s" + (value.casefold() if case_insensitive else value).encode("utf-8", "surrogatepass")
    if kind is bytes:
        return b"b" + value
    if kind is Decimal:
        return b"d" + format(value, "f").encode()
    if kind is float:
        return b"f" + repr(value).encode()
    if kind is datetime:
        return b"t" + value.isoformat(" ").encode()
    if kind is date:
        return b"D" + value.isoformat().encode()
    if kind is timedelta:
        return b"T" + str(value).encode()
    return b"?" + repr(value).encode()


def row_digest(values: Sequence[Any], folds: Sequence[bool], pads: Sequence[bool] | None = None) -> int:
    """A 64-bit digest of one row's normalized values (`folds`: which columns ignore case; `pads`: which
    compare text without its trailing spaces)."""
    h = hashlib.blake2b(digest_size=8)
    for value, fold, pad in zip(values, folds, pads if pads is not None else repeat(False, len(folds)), strict=True):
        t = token(value, fold, pad)
        h.update(len(t).to_bytes(4, "little"))
        h.update(t)
    return int.from_bytes(h.digest(), "little")
