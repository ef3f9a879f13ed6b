"""A value given to a T-SQL variable or parameter takes the variable's declared type, as SQL Server converts it.

`DECLARE @n int; SET @n = 2.7` holds 2; `DECLARE @c char(5) = 'ab'` holds `'ab   '`;
`DECLARE @s varchar(3) = 'abcdef'` holds `'abc'` (an assignment to a variable truncates silently);
`decimal(5,2)` rounds to two places; `bit` is 1 for any value but 0. The runner keeps variables on
the client, so it applies these rules itself when it assigns: from a call's arguments, a SET, a
SELECT @v = ..., a FETCH ... INTO, an OUTPUT parameter.
https://learn.microsoft.com/sql/t-sql/data-types/data-type-conversion-database-engine
"""

from __future__ import annotations

import re
import struct
from datetime import date, datetime, time, timedelta
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from ..tsql.datetimes import read_datetime, stored_as_datetime, stored_as_smalldatetime
from .failures import TsqlError

_TYPE = re.compile(r"^\s*(\w+)\s*(?:\(\s*(max|\d+)\s*(?:,\s*(\d+)\s*)?\))?", re.IGNORECASE)
_INTEGERS = {"tinyint": (0, 255), "smallint": (-(2**15), 2**15 - 1), "int": (-(2**31), 2**31 - 1),
             "bigint": (-(2**63), 2**63 - 1)}
_TEXT = {"char", "nchar", "varchar", "nvarchar", "sysname", "text", "ntext"}
_PADDED = {"char", "nchar"}
_DATES = {"datetime", "datetime2", "smalldatetime", "datetimeoffset"}
_SYNONYMS = {"integer": "int", "dec": "decimal", "character": "char", "double": "float"}


def base_type(type_text: str) -> tuple[str, str | None, str | None]:
    """`nvarchar(50)` -> ('nvarchar', '50', None); `decimal(18,2)` -> ('decimal', '18', '2')."""
    m = _TYPE.match(type_text or "")
    if m is None:
        return "", None, None
    base = m[1].lower()
    return _SYNONYMS.get(base, base), (m[2] or "").lower() or None, m[3]


def assign(value: Any, type_text: str | None) -> Any:
    """`value` as a variable of `type_text` holds it; TsqlError where SQL Server fails the conversion."""
    if value is None or not type_text:
        return value
    base, size, scale = base_type(type_text)
    if base in _INTEGERS:
        return _integer(value, base)
    if base == "bit":
        return _bit(value)
    if base in ("decimal", "numeric", "money", "smallmoney"):
        places = 4 if "money" in base else int(scale or 0)
        number = _decimal(value, base)
        return number.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    if base in ("float", "real"):
        number = float(_decimal(value, base)) if not isinstance(value, float) else value
        return struct.unpack("f", struct.pack("f", number))[0] if base == "real" else number
    if base in _TEXT:
        return _text(value, base, size)
    if base in _DATES or base in ("date", "time"):
        return _moment(value, base, size)
    if base == "uniqueidentifier" and isinstance(value, str):
        return value.strip().upper()
    if base in ("binary", "varbinary") and isinstance(value, (bytes, bytearray)) and size and size != "max":
        data = bytes(value)[: int(size)]
        return data.ljust(int(size), b"\0") if base == "binary" else data
    return value


def _integer(value: Any, base: str) -> int:
    if isinstance(value, bool):
        number = int(value)
    elif isinstance(value, int):
        number = value
    elif isinstance(value, (Decimal, float)):
        number = int(value)  # toward zero, as SQL Server converts decimal and float to an integer
    elif isinstance(value, str) and re.fullmatch(r"\s*[-+]?\d+\s*", value):
        number = int(value)
    else:
        raise TsqlError(245, f"Conversion failed when converting the value '{value}' to data type {base}.")
    low, high = _INTEGERS[base]
    if not low <= number <= high:
        raise TsqlError(8115, f"Arithmetic overflow error converting expression to data type {base}.")
    return number


def _bit(value: Any) -> int:
    if isinstance(value, str):
        text = value.strip().upper()
        if text in ("TRUE", "FALSE"):
            return 1 if text == "TRUE" else 0
        try:
            return 0 if Decimal(text) == 0 else 1
        except InvalidOperation:
            raise TsqlError(245, f"Conversion failed when converting the value '{value}' to data type bit.") from None
    return 0 if value == 0 else 1


def _decimal(value: Any, base: str) -> Decimal:
    if isinstance(value, bool):
        return Decimal(int(value))
    if isinstance(value, (int, Decimal)):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value))
    if isinstance(value, str):
        try:
            return Decimal(value.strip())
        except InvalidOperation:
            pass
    raise TsqlError(8114, f"Error converting data type to {base}.")


def _text(value: Any, base: str, size: str | None) -> Any:
    if isinstance(value, bool):
        text = str(int(value))
    elif isinstance(value, (int, Decimal)):
        text = str(value)
    elif isinstance(value, str):
        text = str(value)  # JSON text JSON_QUERY returned is a plain string once a variable holds it
    else:
        return value  # a date or a float written as text follows styles the server applies; kept as it is
    if size and size != "max":
        length = int(size)
        text = text[:length]
        if base in _PADDED:
            text = text.ljust(length)
    elif base in _PADDED and size is None:
        text = text[:1].ljust(1)  # char without a length is char(1)
    elif base in ("varchar", "nvarchar") and size is None:
        text = text[:1]  # a variable declared without a length is (n)varchar(1)
    return text


def _moment(value: Any, base: str, size: str | None = None) -> Any:
    if isinstance(value, str):
        parsed = read_datetime(value)
        if parsed is None:
            raise TsqlError(241, "Conversion failed when converting date and/or time from character string.")
        value = parsed
    if base == "date":
        return value.date() if isinstance(value, datetime) else value
    if base == "time":
        return value.time() if isinstance(value, datetime) else value
    if isinstance(value, date) and not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day)
    if isinstance(value, time):
        value = datetime(1900, 1, 1, value.hour, value.minute, value.second, value.microsecond)
    if not isinstance(value, datetime):
        return value
    if base in ("datetime", "smalldatetime"):  # 1/300 s ticks ('10:30:00.005' is held as .007), or the minute
        held = stored_as_datetime(value) if base == "datetime" else stored_as_smalldatetime(value)
        if held is None:
            raise TsqlError(242, f"The conversion of a value to a {base} data type resulted in an out-of-range value.")
        return held
    if base in ("datetime2", "datetimeoffset") and size is not None and size.isdigit() and int(size) < 6:
        step = 10 ** (6 - int(size))  # datetime2(n) rounds to n digits (half up)
        return value.replace(microsecond=0) + timedelta(microseconds=(value.microsecond + step // 2) // step * step)
    return value
