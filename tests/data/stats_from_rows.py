"""SQL Server's statistics, computed from rows the tests hold, with SQL Server's own definitions.

`sys.dm_db_stats_histogram` / `DBCC SHOW_STATISTICS ... WITH HISTOGRAM`
(https://learn.microsoft.com/sql/t-sql/database-console-commands/dbcc-show-statistics-transact-sql):
at most 200 steps; NULLs, when present, are the first step (RANGE_HI_KEY NULL, EQ_ROWS their
count); the first non-NULL step's key is the smallest value (RANGE_ROWS 0) and the last step's is
the largest; each step's RANGE_ROWS counts the rows strictly between the previous key and its own,
over DISTINCT_RANGE_ROWS distinct values, AVG_RANGE_ROWS = RANGE_ROWS / DISTINCT_RANGE_ROWS (1
when there are none); EQ_ROWS counts the rows equal to the key. Text compares case-insensitively,
as SQL Server's default collations do. Keys are written as the capture keeps them (text).
"""

from __future__ import annotations

from collections import Counter
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

from sqlsrv2tidb.model import ColumnStatistics, HistogramStep

MAX_STEPS = 200


def order(value: Any) -> Any:
    return value.casefold().rstrip(" ") if isinstance(value, str) else value


def key_text(value: Any) -> str:
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, datetime):
        return value.isoformat(" ")
    if isinstance(value, (date, time)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray)):
        return "0x" + bytes(value).hex().upper()
    if isinstance(value, Decimal):
        return format(value, "f")
    return str(value)


def histogram(values: list[Any]) -> tuple[HistogramStep, ...]:
    nulls = sum(1 for v in values if v is None)
    counts: Counter[Any] = Counter()
    shown: dict[Any, Any] = {}
    for v in values:
        if v is not None:
            counts[order(v)] += 1
            shown.setdefault(order(v), v)
    distinct = sorted(counts)
    room = MAX_STEPS - (1 if nulls else 0)
    if len(distinct) <= room:
        keys = distinct
    else:
        # Step keys where the running count crosses each equal share of the rows, always the first and last.
        total, running, keys = sum(counts.values()), 0, [distinct[0]]
        per = total / (room - 1)
        for value in distinct[1:-1]:
            running += counts[value]
            if running >= per * len(keys) and len(keys) < room - 1:
                keys.append(value)
        keys.append(distinct[-1])
    steps = [HistogramStep(None, 0, nulls, 0, 1)] if nulls else []
    at = 0
    for key in keys:
        inside = []
        while distinct[at] != key:
            inside.append(distinct[at])
            at += 1
        at += 1
        range_rows = sum(counts[v] for v in inside)
        steps.append(HistogramStep(key_text(shown[key]), float(range_rows), float(counts[key]), float(len(inside)),
                                   range_rows / len(inside) if inside else 1.0))
    return tuple(steps)


def column_statistics(name: str, values: list[Any]) -> ColumnStatistics:
    return ColumnStatistics(column=name, stats_name=f"_WA_Sys_{name}", rows=float(len(values)),
                            rows_sampled=float(len(values)), histogram=histogram(values))


def step_counts(steps: tuple[HistogramStep, ...], values: list[Any], parse) -> list[tuple[float, int]]:
    """(expected, found) rows per non-NULL step: found counts values in (previous key, key]."""
    keys = [order(parse(s.range_hi_key)) for s in steps if s.range_hi_key is not None]
    expected = [s.range_rows + s.eq_rows for s in steps if s.range_hi_key is not None]
    found = [0] * len(keys)
    from bisect import bisect_left

    for v in values:
        if v is None:
            continue
        at = bisect_left(keys, order(v))
        if at < len(keys):
            found[at] += 1
    return list(zip(expected, found, strict=True))
