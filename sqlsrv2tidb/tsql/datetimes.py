"""How SQL Server reads a string as a datetime, with its default language (us_english, DATEFORMAT mdy).

SQL Server converts a string compared with, or cast to, a date or datetime by rules of its own:
`'2019'` is 2019-01-01, `'1/5/2016'` is January 5, `'1-1-09'` is 2009-01-01, `'Apr 15 1996'` and
`'15 April, 1996'` are dates, `'10:30 PM'` is 22:30 on 1900-01-01. TiDB reads only forms close to
ISO 8601 and compares anything else as a string, so such a literal must be written out for it.
https://learn.microsoft.com/sql/t-sql/data-types/datetime-transact-sql#supported-string-literal-formats-for-datetime
https://learn.microsoft.com/sql/t-sql/statements/set-dateformat-transact-sql

    >>> read_datetime("1/5/2016 3:04 PM")
    datetime.datetime(2016, 1, 5, 15, 4)
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

_MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                "november", "december")
_MONTH_WORDS = {**{name: i + 1 for i, name in enumerate(_MONTH_NAMES)}, **{name[:3]: i + 1 for i, name in enumerate(_MONTH_NAMES)}}
_TIME = re.compile(
    r"(?P<h>\d{1,2})(?::(?P<mi>\d{1,2})(?::(?P<s>\d{1,2})(?:(?P<sep>[.:])(?P<f>\d{1,7}))?)?)?\s*(?P<ampm>[AaPp][Mm])?$")
_NUMERIC = re.compile(r"(?P<a>\d{1,4})(?P<sep>[/.-])(?P<b>\d{1,2})(?P=sep)(?P<c>\d{1,4})$")
_UNSEPARATED = re.compile(r"(?P<y>\d{4}|\d{2})(?P<m>\d{2})(?P<d>\d{2})$")
_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(.+?)Z?$")


def read_datetime(text: str) -> datetime | None:
    """The datetime SQL Server reads `text` as, or None where it would fail to convert. An empty string (or
    only spaces) is day 0, 1900-01-01, as SQL Server converts it (`ClosedDate != ''` holds for every date)."""
    text = " ".join(text.strip().split())
    if not text:
        return datetime(1900, 1, 1)
    iso = _ISO.match(text)
    if iso:
        day = _date(int(iso[1]), int(iso[2]), int(iso[3]))
        clock = _clock(iso[4])
        return day.replace(**clock) if day and clock is not None else None
    date_part, time_part = _split(text)
    clock = _clock(time_part) if time_part else {}
    if clock is None:
        return None
    day = _read_date(date_part) if date_part else datetime(1900, 1, 1)
    return day.replace(**clock) if day is not None else None


def datetime_ticks(value: datetime) -> datetime:
    """A value as SQL Server's `datetime` stores it: in 1/300 s ticks, shown as .000, .003 or .007 (`.005` is
    `.007`, `23:59:59.999` the next day's midnight).
    https://learn.microsoft.com/sql/t-sql/data-types/datetime-transact-sql"""
    of_second = value.microsecond
    ticks = (of_second * 300 + 500_000) // 1_000_000  # the nearest tick, half up
    milliseconds = (ticks * 1000 + 150) // 300  # the tick as the milliseconds SQL Server shows
    return value.replace(microsecond=0) + timedelta(milliseconds=milliseconds)


def smalldatetime_minute(value: datetime) -> datetime:
    """A value as SQL Server's `smalldatetime` stores it: to the minute, 29.998 s and less down, 29.999 s up.
    https://learn.microsoft.com/sql/t-sql/data-types/smalldatetime-transact-sql"""
    whole = value.replace(second=0, microsecond=0)
    return whole + timedelta(minutes=1) if value.second * 1_000_000 + value.microsecond >= 29_998_500 else whole


def written_for_tidb(value: datetime, with_time: bool = True) -> str:
    """The ISO text TiDB reads as the same datetime (`2016-01-05 15:04:00`, or `2016-01-05` for a date)."""
    if not with_time:
        return value.strftime("%Y-%m-%d")
    text = value.strftime("%Y-%m-%d %H:%M:%S")
    return f"{text}.{value.microsecond:06d}".rstrip("0") if value.microsecond else text


def _split(text: str) -> tuple[str, str]:
    """(date, time): the time is the part from the first `hh:` or a trailing `n AM`/`n PM`."""
    m = re.search(r"(?:^|\s)(\d{1,2}:\S*(?:\s*[AaPp][Mm])?|\d{1,2}\s*[AaPp][Mm])$", text)
    if m is None:
        return text, ""
    return text[: m.start()].strip(), m.group(1)


def _clock(text: str) -> dict[str, int] | None:
    m = _TIME.match(text.strip())
    if m is None:
        return None
    hour, minute, second = int(m["h"]), int(m["mi"] or 0), int(m["s"] or 0)
    fraction = m["f"] or ""
    micro = int(fraction) * 1000 if m["sep"] == ":" else int((fraction + "000000")[:6]) if fraction else 0
    if m["ampm"]:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if m["ampm"].upper() == "PM" else 0)
    if hour > 23 or minute > 59 or second > 59 or micro > 999999:
        return None
    return {"hour": hour, "minute": minute, "second": second, "microsecond": micro}


def _read_date(text: str) -> datetime | None:
    if re.fullmatch(r"\d{4}", text):  # a year alone is January 1 of it
        return _date(int(text), 1, 1)
    m = _UNSEPARATED.match(text)
    if m:
        return _date(_year(m["y"]), int(m["m"]), int(m["d"]))
    m = _NUMERIC.match(text)
    if m:
        a, b, c = m["a"], m["b"], m["c"]
        if len(a) == 4:  # year first: y-m-d whatever the separator
            return _date(int(a), int(b), int(c))
        return _date(_year(c), int(a), int(b))  # DATEFORMAT mdy
    return _alphabetic(text)


def _alphabetic(text: str) -> datetime | None:
    """`Apr 15 1996`, `April 15, 1996`, `15 Apr 96`, `1996 APRIL 15`, `Apr 1996` (day 1): a 4-digit number
    is the year, and otherwise the first number the day and the second the year."""
    if re.search(r"[^A-Za-z0-9,\s]", text):
        return None
    words = re.findall(r"[A-Za-z]+|\d+", text)
    months = [_MONTH_WORDS.get(w.lower()) for w in words if w.isalpha()]
    numbers = [w for w in words if w.isdigit()]
    if len(months) != 1 or months[0] is None or not 1 <= len(numbers) <= 2:
        return None
    if len(numbers) == 1:
        return _date(int(numbers[0]), months[0], 1) if len(numbers[0]) == 4 else None
    years = [n for n in numbers if len(n) == 4]
    if len(years) > 1:
        return None
    year = years[0] if years else numbers[1]
    day = numbers[1] if years and numbers[0] == year else numbers[0]
    return _date(_year(year), months[0], int(day))


def _year(text: str) -> int:
    """A two-digit year: 50-99 are 1950-1999, 00-49 are 2000-2049 (two digit year cutoff 2049)."""
    year = int(text)
    if len(text) <= 2:
        return year + (1900 if year >= 50 else 2000)
    return year


def _date(year: int, month: int, day: int) -> datetime | None:
    try:
        return datetime(year, month, day)
    except ValueError:
        return None
