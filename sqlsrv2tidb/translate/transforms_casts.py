"""Conversions whose result differs between SQL Server and TiDB although both write them as CAST.

SQL Server truncates a decimal or float converted to an integer (10.6496 -> 10) and rounds money
(and datetime) converted to one; MySQL's CAST ... AS SIGNED rounds all of them. And SQL Server reads
a datetime as a number of days since 1900-01-01 (`CAST(d AS float)`, `CAST(2 AS datetime)`,
`d1 - d2`), where MySQL reads it as the digits YYYYMMDDhhmmss. The rewrites here keep SQL Server's
results; `ticks` and `from_ticks` express the day numbering in microseconds, which TiDB counts
exactly with TIMESTAMPDIFF/TIMESTAMPADD.
https://learn.microsoft.com/sql/t-sql/functions/cast-and-convert-transact-sql#truncating-and-rounding-results
"""

from __future__ import annotations

from sqlglot import exp

from .templates import call, fill, paren
from .transforms import Context
from .typing import NUMERIC, category

D = exp.DType
INTEGER_TYPES = frozenset({D.TINYINT, D.UTINYINT, D.SMALLINT, D.INT, D.BIGINT})
_MONEY = frozenset({D.MONEY, D.SMALLMONEY})
_FRACTIONAL_TYPES = frozenset({D.FLOAT, D.DOUBLE, D.DECIMAL, D.MONEY, D.SMALLMONEY})
# Only datetime and smalldatetime are numbers of days; date, time and datetime2 do not convert to numbers.
_DAY_NUMBERED = frozenset({D.DATETIME, D.SMALLDATETIME})
_DAY = 86400000000  # microseconds
_DOCS = "https://learn.microsoft.com/sql/t-sql/functions/cast-and-convert-transact-sql#truncating-and-rounding-results"


def ticks(datetime: exp.Expr) -> exp.Expr:
    """Microseconds from 1900-01-01 (SQL Server's day 0) to a datetime: an exact integer in TiDB."""
    inner = datetime.this if isinstance(datetime, exp.Paren) else datetime
    if inner.meta.get("ticks") is not None:
        return inner.meta["ticks"].copy()  # a datetime built by from_ticks: its own count
    return fill("TIMESTAMPDIFF(MICROSECOND, CAST('1900-01-01' AS DATETIME), d)", d=datetime)


def from_ticks(count: exp.Expr) -> exp.Expr:
    """The datetime `count` microseconds after 1900-01-01; remembers `count` for a later conversion back."""
    node = fill("TIMESTAMPADD(MICROSECOND, n, CAST('1900-01-01' AS DATETIME))", n=count)
    node.meta["ticks"] = count.copy()
    return node


def days_to_ticks(days: exp.Expr, integral: bool) -> exp.Expr:
    """A number of days (SQL Server's numeric view of a datetime) as microseconds."""
    product = exp.Mul(this=paren(days.copy()), expression=exp.Literal.number(_DAY))
    return product if integral else exp.Round(this=product)


def numeric_conversions(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`CAST(price AS int)` -> `CAST(TRUNCATE(price, 0) AS SIGNED)`; `CAST(d AS float)` ->
    `CAST(TIMESTAMPDIFF(MICROSECOND, '1900-01-01', d) AS DOUBLE) / 86400000000`; `CAST(2 AS datetime)` ->
    `DATE_ADD('1900-01-01', INTERVAL 2 * 86400000000 MICROSECOND)`.

    SQL Server truncates decimal and float values converted to an integer type and rounds money and
    datetime ones (to the nearest day); MySQL rounds them all. A datetime converts to and from the
    number of days since 1900-01-01, with the time as a fraction of a day.
    https://learn.microsoft.com/sql/t-sql/functions/cast-and-convert-transact-sql#truncating-and-rounding-results
    https://docs.pingcap.com/tidb/stable/mathematical-functions
    """
    if not isinstance(node, exp.Cast) or not isinstance(node.to, exp.DataType) or node.meta.get("converted"):
        return node
    target = node.to.this
    operand = node.this
    source = ctx.types.of(operand)
    kind = category(source)
    if target in INTEGER_TYPES:
        if source is not None and source.this in _DAY_NUMBERED:
            ctx.note("QY38", "rewritten", "A datetime converted to an integer is its day number since 1900-01-01, "
                     "rounded to the nearest day (TiDB would give its digits YYYYMMDDhhmmss).")
            rounded = fill("FLOOR((n + 43200000000) / 86400000000)", n=ticks(operand))
            return _converted(rounded, node.to)
        if source is not None and source.this in _MONEY:
            return node  # money rounds to an integer in SQL Server, as CAST does in TiDB
        if kind in ("decimal", "float"):
            ctx.note("QY51", "rewritten", "A decimal or float converted to an integer is truncated toward zero in SQL Server; "
                     "TiDB rounds, so the value is truncated first (TRUNCATE(x, 0)).")
            return _converted(call("TRUNCATE", operand, exp.Literal.number(0)), node.to)
        if source is None and not isinstance(operand, exp.Null):
            ctx.note("QY51", "review", f"The type of `{operand.sql('sqlserver')[:80]}` is unknown: converted to an integer, "
                     f"SQL Server truncates a decimal or float value, TiDB rounds it ({_DOCS}).")
        return node
    if target in _FRACTIONAL_TYPES and source is not None and source.this in _DAY_NUMBERED:
        ctx.note("QY38", "rewritten", "A datetime converted to a number is its days since 1900-01-01 (the time as a fraction); "
                 "TiDB would give its digits YYYYMMDDhhmmss.")
        days = exp.Div(this=exp.Cast(this=ticks(operand), to=exp.DataType.build("double")), expression=exp.Literal.number(_DAY))
        return days if target in (D.FLOAT, D.DOUBLE) else _converted(days, node.to)
    if target in _DAY_NUMBERED and kind in NUMERIC:
        ctx.note("QY38", "rewritten", "A number converted to a datetime counts days from 1900-01-01 in SQL Server; "
                 "TiDB would read its digits as YYYYMMDD.")
        return _converted(from_ticks(days_to_ticks(operand, kind in ("integer", "bit"))), node.to)
    return node


def _converted(value: exp.Expr, to: exp.DataType) -> exp.Cast:
    """`CAST(value AS to)`, marked so the conversion rewrites leave it alone."""
    cast = exp.Cast(this=value, to=to.copy())
    cast.meta["converted"] = True
    return cast


_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)


def datetime_number_comparison(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`d1 - d2 < 30` -> `TIMESTAMPDIFF(MICROSECOND, d2, d1) < 30 * 86400000000`;
    `d > 45000` -> `d > DATE_ADD('1900-01-01', INTERVAL 45000 * 86400000000 MICROSECOND)`.

    Comparing a datetime with a number converts the number to a datetime in SQL Server (datetime
    ranks higher), so the number counts days from 1900-01-01; MySQL compares the datetime's digits
    YYYYMMDDhhmmss with the number instead.
    https://learn.microsoft.com/sql/t-sql/data-types/data-type-precedence-transact-sql
    """
    if not isinstance(node, _COMPARISONS):
        return node
    sides = [node.this, node.expression]
    types = [ctx.types.of(side) for side in sides]
    for date_at in (0, 1):
        date, number = sides[date_at], sides[1 - date_at]
        date_type, number_kind = types[date_at], category(types[1 - date_at])
        if date_type is None or date_type.this not in _DAY_NUMBERED or number_kind not in NUMERIC:
            continue
        ctx.note("QY38", "rewritten", "A datetime compared with a number compares days since 1900-01-01, as SQL Server "
                 "converts the number to a datetime.")
        count = days_to_ticks(number, number_kind in ("integer", "bit"))
        inner = date.this if isinstance(date, exp.Paren) else date
        pair = [ticks(date), count] if inner.meta.get("ticks") is not None else [date, from_ticks(count)]
        if date_at == 1:
            pair.reverse()
        return type(node)(this=pair[0], expression=pair[1])
    return node
