"""Conversions whose result differs between SQL Server and TiDB, explicit (CAST) or inside `+`, `-`, `<`.

SQL Server truncates a decimal or float converted to an integer (10.6496 -> 10) and rounds money
(and datetime) converted to one; MySQL's CAST ... AS SIGNED rounds all of them. And SQL Server reads
a datetime as a number of days since 1900-01-01 wherever it meets numbers (`CAST(d AS float)`,
`CAST(2 AS datetime)`, `d + 1`, `d1 - d2`, `d1 - d2 < 30`), where MySQL reads it as the digits
YYYYMMDDhhmmss. The rewrites here keep SQL Server's results; `ticks` and `from_ticks` express the
day numbering in microseconds, which TiDB counts exactly with TIMESTAMPDIFF/TIMESTAMPADD.
https://learn.microsoft.com/sql/t-sql/functions/cast-and-convert-transact-sql#truncating-and-rounding-results
"""

from __future__ import annotations

import re

from sqlglot import exp

from ..tsql.datetimes import read_datetime, written_for_tidb
from .context import Context, applies_to
from .templates import call, fill, paren
from .type_rules import NUMERIC, TEMPORAL, category

D = exp.DType
INTEGER_TYPES = frozenset({D.TINYINT, D.UTINYINT, D.SMALLINT, D.INT, D.BIGINT})
MONEY_TYPES = frozenset({D.MONEY, D.SMALLMONEY})
_FRACTIONAL_TYPES = frozenset({D.FLOAT, D.DOUBLE, D.DECIMAL, D.MONEY, D.SMALLMONEY})
# Only datetime and smalldatetime are numbers of days; date, time and datetime2 do not convert to numbers.
_DAY_NUMBERED = frozenset({D.DATETIME, D.SMALLDATETIME})
_DAY = 86400000000  # microseconds
_DOCS = "https://learn.microsoft.com/sql/t-sql/functions/cast-and-convert-transact-sql#truncating-and-rounding-results"


def _own_ticks(datetime: exp.Expr) -> exp.Expr | None:
    """The count a datetime built by `from_ticks` remembers (through parentheses), else None."""
    inner = datetime.this if isinstance(datetime, exp.Paren) else datetime
    return inner.meta_get("ticks")


def ticks(datetime: exp.Expr) -> exp.Expr:
    """Microseconds from 1900-01-01 (SQL Server's day 0) to a datetime: an exact integer in TiDB."""
    own = _own_ticks(datetime)
    if own is not None:
        return own.copy()  # a datetime built by from_ticks: its own count
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


@applies_to(exp.Add, exp.Sub)
def datetime_arithmetic(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`d + 1` / `d - 7` on a datetime -> `DATE_ADD(d, INTERVAL 1 DAY)` / `DATE_SUB(d, INTERVAL 7 DAY)`;
    `d1 - d2` -> `DATE_ADD('1900-01-01', INTERVAL TIMESTAMPDIFF(MICROSECOND, d2, d1) MICROSECOND)`;
    `d + t` -> `DATE_ADD(d, INTERVAL TIMESTAMPDIFF(MICROSECOND, '1900-01-01', t) MICROSECOND)`.

    SQL Server adds days to a datetime with `+`, and treats a datetime operand of `+`/`-` as its days
    since 1900-01-01, so `d1 - d2` is the difference counted from 1900-01-01 (CONVERT(int, d1 - d2) is
    a number of days). MySQL turns each datetime into the number YYYYMMDDhhmmss first.
    https://learn.microsoft.com/sql/t-sql/language-elements/add-transact-sql
    https://learn.microsoft.com/sql/t-sql/language-elements/subtract-transact-sql
    """
    if not isinstance(node, (exp.Add, exp.Sub)):
        return node
    left, right = ctx.types.category(node.this), ctx.types.category(node.expression)
    if left in TEMPORAL and right in NUMERIC:
        days, date = node.expression, node.this
    elif isinstance(node, exp.Add) and right in TEMPORAL and left in NUMERIC:
        days, date = node.this, node.expression
    elif left in TEMPORAL and right in TEMPORAL:
        if isinstance(node, exp.Add):
            ctx.note("QY38", "rewritten", "datetime + datetime adds the second's days since 1900-01-01 to the first, as SQL "
                     "Server does; it becomes DATE_ADD(... MICROSECOND).")
            return exp.DateAdd(this=node.this, expression=ticks(node.expression), unit=exp.var("MICROSECOND"))
        ctx.note("QY38", "rewritten", "datetime - datetime is the difference counted from 1900-01-01 in SQL Server (days "
                 "when converted to a number); it becomes TIMESTAMPDIFF in microseconds added to 1900-01-01.")
        return from_ticks(fill("TIMESTAMPDIFF(MICROSECOND, b, a)", a=node.this, b=node.expression))
    elif isinstance(node, exp.Sub) and left in NUMERIC and right in TEMPORAL:
        ctx.note("QY38", "rewritten", "number - datetime counts days since 1900-01-01 on both sides, as SQL Server does.")
        count = exp.Sub(this=days_to_ticks(node.this, left in ("integer", "bit")), expression=ticks(node.expression))
        return from_ticks(count)
    elif (left in TEMPORAL and right == "string") or (right in TEMPORAL and left == "string"):
        ctx.note("QY38", "review", f"`{node.sql('sqlserver')[:80]}` mixes a datetime and a string: SQL Server reads the "
                 "string as a datetime and counts days since 1900-01-01; TiDB computes with numbers.")
        return node
    elif isinstance(node, exp.Sub) and (left in TEMPORAL) != (right in TEMPORAL) and None in (left, right):
        ctx.note("QY38", "review", f"The operand types of `{node.sql('sqlserver')[:80]}` are not all known: SQL Server "
                 "subtracts days or a datetime from a datetime, TiDB subtracts numbers.")
        return node
    else:
        return node
    klass = exp.DateAdd if isinstance(node, exp.Add) else exp.DateSub
    if category(ctx.types.of(days)) in ("decimal", "float"):
        # INTERVAL n DAY rounds a fraction of a day: count microseconds instead.
        ctx.note("QY38", "rewritten", "Datetime `+`/`-` a fraction of days becomes DATE_ADD/DATE_SUB(... INTERVAL n MICROSECOND).")
        return klass(this=date, expression=days_to_ticks(days, integral=False), unit=exp.var("MICROSECOND"))
    ctx.note("QY38", "rewritten", "Datetime `+`/`-` a number of days becomes DATE_ADD/DATE_SUB(... INTERVAL n DAY).")
    return klass(this=date, expression=days, unit=exp.var("DAY"))


_SYSNAME = {"sysname", "sys.sysname"}


@applies_to(exp.Cast)
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
    if not isinstance(node, exp.Cast) or not isinstance(node.to, exp.DataType) or node.meta_get("converted"):
        return node
    if node.to.this == exp.DataType.Type.USERDEFINED and str(node.to.args.get("kind") or "").lower() in _SYSNAME:
        # sysname is SQL Server's name for nvarchar(128) NOT NULL: https://learn.microsoft.com/sql/relational-databases/system-catalog-views/catalog-views-transact-sql
        node.set("to", exp.DataType.build("nvarchar(128)", dialect="tsql"))
    target = node.to.this
    operand = node.this
    source = ctx.types.of(operand)
    kind = category(source)
    if (kind == "string" and target in INTEGER_TYPES | _FRACTIONAL_TYPES and not node.meta_get("from_try")
            and not isinstance(operand, (exp.Literal, exp.National))):
        ctx.note("QY51", "review", f"`{operand.sql('sqlserver')[:80]}` is a string converted to a number: SQL Server fails on a "
                 "value that is not a number, TiDB converts it to 0 (or its leading digits) with a warning.")
    if target in INTEGER_TYPES:
        if source is not None and source.this in _DAY_NUMBERED:
            ctx.note("QY38", "rewritten", "A datetime converted to an integer is its day number since 1900-01-01, "
                     "rounded to the nearest day (TiDB would give its digits YYYYMMDDhhmmss).")
            rounded = fill("FLOOR((n + 43200000000) / 86400000000)", n=ticks(operand))
            return converted(rounded, node.to)
        if source is not None and source.this in MONEY_TYPES:
            return node  # money rounds to an integer in SQL Server, as CAST does in TiDB
        if kind in ("decimal", "float"):
            ctx.note("QY51", "rewritten", "A decimal or float converted to an integer is truncated toward zero in SQL Server; "
                     "TiDB rounds, so the value is truncated first (TRUNCATE(x, 0)).")
            return converted(call("TRUNCATE", operand, exp.Literal.number(0)), node.to)
        if source is None and not isinstance(operand, exp.Null):
            ctx.note("QY51", "review", f"The type of `{operand.sql('sqlserver')[:80]}` is unknown: converted to an integer, "
                     f"SQL Server truncates a decimal or float value, TiDB rounds it ({_DOCS}).")
        return node
    if target in _FRACTIONAL_TYPES and source is not None and source.this in _DAY_NUMBERED:
        ctx.note("QY38", "rewritten", "A datetime converted to a number is its days since 1900-01-01 (the time as a fraction); "
                 "TiDB would give its digits YYYYMMDDhhmmss.")
        days = exp.Div(this=exp.Cast(this=ticks(operand), to=exp.DataType.build("double")), expression=exp.Literal.number(_DAY))
        return days if target in (D.FLOAT, D.DOUBLE) else converted(days, node.to)
    if target in _DAY_NUMBERED and kind in NUMERIC:
        ctx.note("QY38", "rewritten", "A number converted to a datetime counts days from 1900-01-01 in SQL Server; "
                 "TiDB would read its digits as YYYYMMDD.")
        return converted(from_ticks(days_to_ticks(operand, kind in ("integer", "bit"))), node.to)
    return node


_DATE_TYPES = frozenset({D.DATE, D.DATETIME, D.DATETIME2, D.SMALLDATETIME})
_YEAR_FIRST = re.compile(r"\s*(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?:[ T]\d{1,2}:\d{1,2}(?::\d{1,2}(?:\.\d+)?)?)?|\d{8})\s*$")
"""Year-first forms TiDB reads as SQL Server does (2019-01-05, 2019/1/5 with a 24-hour time, and 20190105
alone: TiDB reads no time after the unseparated form, `'20160601 00:00:00'` is NULL there)."""
_DOCS_STRINGS = "https://learn.microsoft.com/sql/t-sql/data-types/datetime-transact-sql#supported-string-literal-formats-for-datetime"


_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)


@applies_to(exp.Cast, *_COMPARISONS, exp.Between, exp.In)
def datetime_strings(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`CreationDate > '2019'` -> `CreationDate > '2019-01-01 00:00:00'`; `d = '1/5/2016'` -> `d = '2016-01-05 00:00:00'`;
    `CAST('10:30 PM' AS datetime)` -> `CAST('1900-01-01 22:30:00' AS DATETIME)`; a date compared with
    `'2019-01-05 10:00'` -> with `'2019-01-05'`.

    SQL Server reads a string compared with, or converted to, a date or datetime by its own rules
    (a year alone, month/day/year, month names, a time alone on 1900-01-01; `tsql.datetimes`), and
    a date compared with a datetime string drops the time. TiDB reads year-first ISO forms only, and
    compares anything else as text: `CreationDate > '2019'` matches no row. Each such literal is
    written out as the datetime SQL Server reads. A parameter in that place whose captured values
    are such strings cannot be rewritten: the application sends them, so the class is flagged.
    """
    for literal, date_only in _datetime_operands(node, ctx, _is_string):
        text = literal.name
        value = read_datetime(text)
        if value is None:
            ctx.note("QY59", "review", f"SQL Server cannot read '{text}' as a date (it fails there); TiDB compares it as text "
                     f"({_DOCS_STRINGS}).")
            continue
        if read_alike(text, date_only):
            continue
        written = written_for_tidb(value, with_time=not date_only)
        literal.replace(exp.Literal.string(written))
        ctx.note("QY59", "rewritten", f"The string '{text}' is read as a date or datetime by SQL Server's rules: it is written "
                 f"'{written}' for TiDB, which reads only ISO forms.")
    for parameter, date_only in _datetime_operands(node, ctx, lambda e: isinstance(e, exp.Parameter)):
        spelling = ctx.parameters.get(parameter.name.lower(), "@" + parameter.name)
        unread = sorted({v for v in ctx.samples.get(parameter.name.lower(), ())
                         if isinstance(v, str) and not read_alike(v, date_only)})
        if unread:
            shown = ", ".join(f"'{v}'" for v in unread[:3]) + (f" and {len(unread) - 3} more" if len(unread) > 3 else "")
            ctx.note("QY59", "review", f"The captured values of {spelling} ({shown}) are strings SQL Server reads as dates "
                     "by its own rules and TiDB does not: the application must send ISO strings or typed dates to TiDB "
                     f"(replay sends them as SQL Server read them; {_DOCS_STRINGS}).")
    return node


def _is_string(e: exp.Expr | None) -> bool:
    return isinstance(e, exp.National) or (isinstance(e, exp.Literal) and e.is_string)


def read_alike(text: str, date_only: bool) -> bool:
    """Whether TiDB reads `text` as the date or datetime SQL Server reads (it cannot read some as one at all)."""
    return read_datetime(text) is not None and bool(_YEAR_FIRST.match(text)) and not (date_only and ":" in text)


def _datetime_operands(node: exp.Expr, ctx: Context, wanted) -> list[tuple[exp.Expr, bool]]:
    """The `wanted` operands (string literals, parameters) `node` compares with, or converts to, a date or
    datetime; True for a date."""
    if isinstance(node, exp.Cast) and isinstance(node.to, exp.DataType) and node.to.this in _DATE_TYPES:
        return [(node.this, node.to.this == D.DATE)] if wanted(node.this) else []
    if isinstance(node, _COMPARISONS):
        for side, other in ((node.this, node.expression), (node.expression, node.this)):
            datatype = ctx.types.of(side) if wanted(other) else None
            if datatype is not None and datatype.this in _DATE_TYPES:
                return [(other, datatype.this == D.DATE)]
        return []
    if isinstance(node, (exp.Between, exp.In)):
        datatype = ctx.types.of(node.this)
        if datatype is None or datatype.this not in _DATE_TYPES:
            return []
        values = [node.args.get("low"), node.args.get("high")] if isinstance(node, exp.Between) else node.expressions
        return [(v, datatype.this == D.DATE) for v in values if wanted(v)]
    return []


def converted(value: exp.Expr, to: exp.DataType) -> exp.Cast:
    """`CAST(value AS to)`, marked so the conversion rewrites leave it alone."""
    cast = exp.Cast(this=value, to=to.copy())
    cast.meta["converted"] = True
    return cast




@applies_to(*_COMPARISONS)
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
        pair = [ticks(date), count] if _own_ticks(date) is not None else [date, from_ticks(count)]
        if date_at == 1:
            pair.reverse()
        return type(node)(this=pair[0], expression=pair[1])
    return node


@applies_to(exp.DateAdd, exp.DateSub)
def dateadd_string(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`DATEADD(dd, 3, '1970-01-05')` -> `DATE_ADD(CAST('1970-01-05' AS DATETIME), INTERVAL 3 DAY)`;
    `DATEADD(d, 0, DATEDIFF(d, 0, d))` -> `DATE_ADD(DATE_ADD('1900-01-01', INTERVAL <days> DAY), INTERVAL 0 DAY)`.

    SQL Server converts DATEADD's date argument to datetime: a string by its rules for dates (and returns a
    datetime, 1970-01-08 00:00:00.000, where TiDB's DATE_ADD of a string returns the string '1970-01-08'),
    a number as that many days since 1900-01-01 (the idiom that cuts the time off a datetime), where TiDB
    reads the number's digits as YYYYMMDD.
    https://learn.microsoft.com/sql/t-sql/functions/dateadd-transact-sql#return-types
    """
    if not isinstance(node, (exp.DateAdd, exp.DateSub)) or node.meta_get("tidb"):
        return node
    moved = node.this
    kind = category(ctx.types.of(moved)) if moved is not None else None
    if kind == "string":
        cast = exp.Cast(this=moved.copy(), to=exp.DataType.build("datetime"))
        cast = datetime_strings(cast, ctx)
        cast.meta["converted"] = True
        ctx.note("QY70", "rewritten", "DATEADD of a string returns a datetime in SQL Server (TiDB's DATE_ADD of a string "
                 "returns a string): the string is converted to DATETIME first.")
        node.set("this", cast)
    elif kind in NUMERIC and not isinstance(moved, exp.Null):
        ctx.note("QY38", "rewritten", "DATEADD of a number counts that many days from 1900-01-01 in SQL Server; TiDB would "
                 "read the number's digits as YYYYMMDD.")
        node.set("this", converted(from_ticks(days_to_ticks(moved, kind in ("integer", "bit"))),
                                   exp.DataType.build("datetime")))
    return node


_BIT_WORDS = {"true": 1, "false": 0}


@applies_to(*_COMPARISONS, exp.In)
def bit_strings(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`TagBased = 'true'` on a bit column -> `TagBased = 1`; `'FALSE'` -> `0`.

    SQL Server converts the strings TRUE and FALSE to the bit 1 and 0 wherever a string meets a bit
    (the bit outranks strings); TiDB compares the column with the string as numbers, and 'true' is 0
    there, so `= 'true'` finds the rows that are false.
    https://learn.microsoft.com/sql/t-sql/data-types/bit-transact-sql#remarks
    """
    if isinstance(node, exp.In):
        pairs = [(node.this, value) for value in node.expressions]
    else:
        pairs = [(node.this, node.expression), (node.expression, node.this)]
    for column, value in pairs:
        if not (_is_string(value) or isinstance(value, exp.Parameter)):
            continue
        datatype = ctx.types.of(column)
        if datatype is None or datatype.this != D.BIT:
            continue
        if isinstance(value, exp.Parameter):  # the application sends the value: it cannot be rewritten
            sent = sorted({v for v in ctx.samples.get(value.name.lower(), ()) if isinstance(v, str)
                           and v.strip().lower() in _BIT_WORDS})
            if sent:
                ctx.note("QY73", "review", f"The captured values of {ctx.parameters.get(value.name.lower(), '@' + value.name)} "
                         f"compared with a bit are strings ({', '.join(repr(v) for v in sent[:2])}): SQL Server reads "
                         "'true' and 'false' as 1 and 0, TiDB as the number 0; the application must send 1 and 0.")
            continue
        word = value.name.strip().lower()
        if word in _BIT_WORDS:
            ctx.note("QY73", "rewritten", f"The string '{value.name}' compared with a bit is {_BIT_WORDS[word]} in SQL "
                     "Server; TiDB would read it as the number 0.")
            value.replace(exp.Literal.number(_BIT_WORDS[word]))
    return node


_TEXT_TYPES = frozenset({D.VARCHAR, D.NVARCHAR, D.CHAR, D.NCHAR})
_DEFAULT_LENGTH = 30
"""A CAST or CONVERT to char, varchar, nchar or nvarchar without a length means 30 characters in SQL Server."""
_STYLE_0 = ("CONCAT(DATE_FORMAT(d, '%b '), LPAD(DAY(d), 2, ' '), DATE_FORMAT(d, ' %Y '), "
            "LPAD(DATE_FORMAT(d, '%l'), 2, ' '), DATE_FORMAT(d, ':%i%p'))")
_DOCS_STYLES = "https://learn.microsoft.com/sql/t-sql/functions/cast-and-convert-transact-sql#date-and-time-styles"


@applies_to(exp.Cast)
def string_conversions(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`CAST(d AS varchar)` on a datetime -> `CAST(CONCAT(DATE_FORMAT(d, '%b '), LPAD(DAY(d), 2, ' '), ...) AS CHAR(30))`
    ('Jan  5 2016  3:45PM'); `CAST(price AS varchar)` on money -> `CAST(CAST(price AS DECIMAL(19, 2)) AS CHAR(30))`
    ('12.35'); `CAST(title AS varchar)` -> `CAST(title AS CHAR(30))`.

    A conversion to text without a style uses style 0: a datetime or smalldatetime is written
    'mon dd yyyy hh:miAM', money with two decimals, float and real with at most six digits (scientific
    when large). And char, varchar, nchar and nvarchar without a length are 30 characters long in a CAST
    or CONVERT, so longer text is cut. TiDB's CAST ... AS CHAR writes ISO dates, every decimal place and
    the whole text.
    https://learn.microsoft.com/sql/t-sql/functions/cast-and-convert-transact-sql
    """
    if not isinstance(node, exp.Cast) or not isinstance(node.to, exp.DataType) or node.meta_get("converted"):
        return node
    if node.to.this not in _TEXT_TYPES:
        return node
    source = ctx.types.of(node.this)
    kind = category(source)
    length = _text_length(node.to)
    value = node.this
    changed = False
    if source is not None and source.this in _DAY_NUMBERED:
        ctx.note("QY77", "rewritten", "A datetime converted to text is written in style 0 ('Jan  5 2016  3:45PM') in SQL "
                 f"Server, where TiDB writes an ISO date: it becomes that format ({_DOCS_STYLES}).")
        value, changed = fill(_STYLE_0, d=value), True
    elif source is not None and source.this in MONEY_TYPES:
        ctx.note("QY77", "rewritten", "money converted to text has two decimals in SQL Server (style 0: 12.35); TiDB "
                 "writes all four: it is rounded to two first.")
        value, changed = converted(value.copy(), exp.DataType.build("decimal(19, 2)")), True
    elif kind == "float":
        ctx.note("QY77", "review", "A float or real converted to text has at most six digits in SQL Server (style 0: "
                 "3.14159, 1.23457e+006); TiDB writes every digit.")
    if length is None and (kind in ("string", None) or changed):
        limit = _declared_length(source)
        if changed or limit is None or limit > _DEFAULT_LENGTH:
            ctx.note("QY77", "rewritten", f"A conversion to {node.to.this.value.lower()} without a length is "
                     f"{_DEFAULT_LENGTH} characters long in SQL Server, which cuts longer text; TiDB's CAST keeps it all.")
            to = exp.DataType.build(f"varchar({_DEFAULT_LENGTH})")
            return converted(value, to)
    if changed:
        return converted(value, node.to)
    return node


def _text_length(datatype: exp.DataType) -> int | None:
    """The length a text type names, None when it names none (`MAX` counts as long)."""
    if not datatype.expressions:
        return None
    text = datatype.expressions[0].name
    return int(text) if text.isdigit() else 2**31


def _declared_length(datatype: exp.DataType | None) -> int | None:
    """The length of a text type as SQL Server declares it (None: unknown, or MAX)."""
    if datatype is None or category(datatype) != "string" or not datatype.expressions:
        return None
    text = datatype.expressions[0].name
    return int(text) if text.isdigit() else None


TRY_NUMBER_NOTE = ("TRY_CAST/TRY_CONVERT of a string to a number is NULL unless the text is a number that fits, as in SQL Server: "
                   "the text is checked before CAST, which on TiDB reads its leading digits (or 0) instead.")
_INTEGER_RANGES = {D.TINYINT: (0, 255), D.UTINYINT: (0, 255), D.SMALLINT: (-(2**15), 2**15 - 1),
                   D.INT: (-(2**31), 2**31 - 1), D.BIGINT: (-(2**63), 2**63 - 1)}
_WHOLE = "^ *[-+]?[0-9]+ *$"
_DECIMAL = "^ *[-+]?([0-9]+([.][0-9]*)?|[.][0-9]+) *$"


def try_number(value: exp.Expr, to: exp.DataType, ctx: Context) -> exp.Expr | None:
    """`TRY_CAST(s AS int)` / `TRY_CONVERT(decimal(p, s), s)` of a string: NULL unless the text is a number that fits,
    as SQL Server gives, where TiDB's CAST reads the leading digits (or 0) and warns, or fails in a write.

    SQL Server reads an integer from digits with a sign and spaces around them (an empty or blank string is 0), and a
    decimal from digits with one point; a value outside the type (a tinyint of 300, a decimal(5, 2) of 1000, after
    rounding) is NULL. None when the value is no string or the type is neither (the caller keeps CAST).
    https://learn.microsoft.com/sql/t-sql/functions/try-convert-transact-sql
    """
    if category(ctx.types.of(value)) != "string":
        return None
    target = to.this
    if target in _INTEGER_RANGES:
        low, high = _INTEGER_RANGES[target]
        return fill(f"CASE WHEN TRIM(v) = '' THEN 0 WHEN v REGEXP '{_WHOLE}' THEN CASE WHEN CAST(TRIM(v) AS DECIMAL(65, 0)) "
                    f"BETWEEN {low} AND {high} THEN CAST(TRIM(v) AS SIGNED) END END", v=value)
    if target == D.DECIMAL:
        precision, scale = _digits(to)
        bound = "1" + "0" * (precision - scale)
        return fill(f"CASE WHEN v REGEXP '{_DECIMAL}' THEN CASE WHEN ABS(CAST(TRIM(v) AS DECIMAL(65, {scale}))) < {bound} "
                    f"THEN CAST(TRIM(v) AS DECIMAL({precision}, {scale})) END END", v=value)
    return None


def _digits(to: exp.DataType) -> tuple[int, int]:
    """A decimal type's precision and scale (SQL Server's defaults 18 and 0)."""
    sizes = [int(e.this.name) if isinstance(e, exp.DataTypeParam) else int(e.name) for e in to.expressions]
    precision = sizes[0] if sizes else 18
    return precision, sizes[1] if len(sizes) > 1 else 0

