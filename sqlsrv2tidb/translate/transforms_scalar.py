"""Rewrites of operators and functions whose T-SQL meaning differs from the same text on TiDB.

These run bottom-up on the statement while its column references still resolve against the SQL
Server schema, because most of them depend on operand types (see `expression_types`). Each function takes a
node and the context and returns the node unchanged or its replacement; its docstring shows the
T-SQL input and the TiDB output.
"""

from __future__ import annotations

from sqlglot import exp

from ..model import Table
from .context import Context, applies_to
from .dialect import DATE_PARTS
from .expression_types import NUMERIC, remember_type, surely_text
from .scopes import parameter_name
from .templates import call, fill, paren
from .transforms_conversions import (
    TRY_NUMBER_NOTE,
    bit_strings,
    dateadd_string,
    datetime_arithmetic,
    datetime_number_comparison,
    datetime_strings,
    numeric_conversions,
    string_conversions,
    try_number,
)
from .transforms_numeric import (
    average,
    decimal_division,
    decimal_scale,
    division_by_zero,
    integer_division,
    power_type,
    round_half_away,
    single_precision_arithmetic,
    tinyint_arithmetic,
)

_DOCS_DATEDIFF = "https://learn.microsoft.com/sql/t-sql/functions/datediff-transact-sql"


@applies_to(exp.Add)
def string_plus(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`a + ' ' + b` on strings -> `CONCAT(a, ' ', b)`.

    MySQL's `+` is numeric only, so string `+` would silently add. SQL Server's `+` gives NULL when
    an operand is NULL, and so does CONCAT, so no COALESCE is added. A char(n) operand keeps its
    trailing spaces in SQL Server (`code + '-'` is `'A1   -'`); TiDB returns a CHAR column without
    them, so such an operand is padded back with RPAD.
    https://learn.microsoft.com/sql/t-sql/language-elements/string-concatenation-transact-sql
    https://docs.pingcap.com/tidb/stable/string-functions
    """
    if not isinstance(node, exp.Add):
        return node
    result = ctx.types.category(node)
    if result == "string":
        parts: list[exp.Expr] = []
        for operand in (node.this, node.expression):
            if isinstance(operand, exp.Concat) and operand.meta_get("from_plus"):
                parts.extend(operand.expressions)
            else:
                parts.append(_padded(operand, ctx))
        concat = exp.Concat(expressions=parts, safe=False, coalesce=False)
        concat.meta["from_plus"] = True
        ctx.note("QY03", "rewritten", "String `+` becomes CONCAT(); a NULL operand still gives NULL, as in SQL Server.")
        return concat
    left, right = ctx.types.category(node.this), ctx.types.category(node.expression)
    if left is None or right is None:
        if not (left in NUMERIC and right in NUMERIC):
            ctx.note(
                "QY04", "review",
                f"The operand types of `{node.sql('sqlserver')[:80]}` are unknown: it stays a numeric `+`, but "
                "SQL Server concatenates strings and adds days to datetimes with `+`.",
            )
    elif {left, right} & {"string"} and {left, right} & NUMERIC:
        text = node.this if left == "string" else node.expression
        if not (isinstance(text, exp.Literal) and text.is_string and not surely_text(text)):  # '10' + 1 is 11 on both
            ctx.note("QY03", "review", f"`{node.sql('sqlserver')[:80]}` adds a string to a number: SQL Server converts the "
                     "string to a number and fails when it is not one; TiDB silently reads such a string as 0.")
    return node


_FIXED_CHARS = (exp.DType.CHAR, exp.DType.NCHAR)


def _padded(operand: exp.Expr, ctx: Context) -> exp.Expr:
    """A char(n) value as SQL Server holds it, with its trailing spaces: `RPAD(x, n, ' ')`."""
    datatype = ctx.types.of(operand)
    if datatype is None or datatype.this not in _FIXED_CHARS or not datatype.expressions:
        return operand
    length = datatype.expressions[0]
    length = length.this if isinstance(length, exp.DataTypeParam) else length
    if not (isinstance(length, exp.Literal) and length.is_int) or isinstance(operand, exp.Literal):
        return operand
    ctx.note("QY03", "rewritten", "A char(n) value keeps its trailing spaces in a SQL Server concatenation: it is padded with RPAD.")
    return call("RPAD", operand, exp.Literal.number(int(length.name)), exp.Literal.string(" "))


def _unit(node: exp.Expr) -> str:
    unit = node.args.get("unit")
    return unit.name.upper() if unit is not None else "DAY"


# Boundaries crossed between a and b, per date part; `b` is the later argument of DATEDIFF.
_DATEDIFF = {
    "YEAR": "YEAR(b) - YEAR(a)",
    "QUARTER": "(YEAR(b) - YEAR(a)) * 4 + QUARTER(b) - QUARTER(a)",
    "MONTH": "(YEAR(b) - YEAR(a)) * 12 + MONTH(b) - MONTH(a)",
    "DAY": "DATEDIFF(b, a)",
    "DAYOFYEAR": "DATEDIFF(b, a)",
    "WEEKDAY": "DATEDIFF(b, a)",
    # Weeks start on Sunday for DATEDIFF whatever SET DATEFIRST says: count Sundays crossed,
    # counting weeks from Sunday 1900-01-07.
    "WEEK": "FLOOR(DATEDIFF(b, '1900-01-07') / 7) - FLOOR(DATEDIFF(a, '1900-01-07') / 7)",
    "HOUR": "TO_SECONDS(b) DIV 3600 - TO_SECONDS(a) DIV 3600",
    "MINUTE": "TO_SECONDS(b) DIV 60 - TO_SECONDS(a) DIV 60",
    "SECOND": "TO_SECONDS(b) - TO_SECONDS(a)",
    "MILLISECOND": "(TO_SECONDS(b) * 1000 + MICROSECOND(b) DIV 1000) - (TO_SECONDS(a) * 1000 + MICROSECOND(a) DIV 1000)",
    "MICROSECOND": "TIMESTAMPDIFF(MICROSECOND, a, b)",
    "NANOSECOND": "TIMESTAMPDIFF(MICROSECOND, a, b) * 1000",
}


@applies_to(exp.DateDiff)
def datediff_boundaries(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`DATEDIFF(hour, a, b)` -> `TO_SECONDS(b) DIV 3600 - TO_SECONDS(a) DIV 3600`.

    SQL Server counts the unit boundaries crossed (10:59 -> 11:01 is 1 hour); MySQL's DATEDIFF
    counts days only and TIMESTAMPDIFF counts whole units elapsed (0 hours). Each date part gets a
    formula over TiDB functions that counts boundaries.
    https://learn.microsoft.com/sql/t-sql/functions/datediff-transact-sql
    """
    if not isinstance(node, exp.DateDiff):
        return node
    unit = _unit(node)
    template = _DATEDIFF.get(unit)
    if template is None:
        ctx.note("QY02", "unsupported", f"DATEDIFF({unit.lower()}, ...) has no TiDB equivalent ({_DOCS_DATEDIFF}).")
        return node
    end, start = node.this, node.expression
    if ctx.types.category(end) == "time" or ctx.types.category(start) == "time":
        ctx.note("QY02", "review", "DATEDIFF over time values: SQL Server puts them on 1900-01-01, TiDB reads them as durations.")
    ctx.note("QY02", "rewritten", f"DATEDIFF({unit.lower()}, ...) counts {unit.lower()} boundaries crossed; rewritten to a formula that does the same.")
    return paren(fill(template, a=start, b=end))


_DATEPART = {
    "YEAR": "YEAR(d)", "QUARTER": "QUARTER(d)", "MONTH": "MONTH(d)", "DAYOFYEAR": "DAYOFYEAR(d)",
    "DAY": "DAYOFMONTH(d)", "HOUR": "HOUR(d)", "MINUTE": "MINUTE(d)", "SECOND": "SECOND(d)",
    "MILLISECOND": "MICROSECOND(d) DIV 1000", "MICROSECOND": "MICROSECOND(d)",
    "NANOSECOND": "MICROSECOND(d) * 1000", "WEEKISO": "WEEK(d, 3)",
    # Week 1 holds January 1 and weeks start on Sunday (SET DATEFIRST 7, the us_english default).
    "WEEK": "(DAYOFYEAR(d) + DAYOFWEEK(MAKEDATE(YEAR(d), 1)) - 2) DIV 7 + 1",
    "DAYOFWEEK": "DAYOFWEEK(d)",
}


@applies_to(exp.Extract)
def datepart(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`DATEPART(week, d)` -> `(DAYOFYEAR(d) + DAYOFWEEK(MAKEDATE(YEAR(d), 1)) - 2) DIV 7 + 1`.

    MySQL's EXTRACT has no weekday or millisecond parts, and no WEEK mode numbers weeks as SQL
    Server does (January 1 is always in week 1).
    https://learn.microsoft.com/sql/t-sql/functions/datepart-transact-sql
    """
    if not isinstance(node, exp.Extract) or not isinstance(node.this, exp.Var):
        return node
    part = DATE_PARTS.get(node.this.name.lower(), node.this.name.upper())
    part = {"WEEKDAY": "DAYOFWEEK", "ISO_WEEK": "WEEKISO"}.get(part, part)
    template = _DATEPART.get(part)
    if template is None:
        ctx.note("QY42", "unsupported", f"DATEPART({node.this.name.lower()}, ...) has no TiDB equivalent.")
        return node
    if part in ("WEEK", "DAYOFWEEK"):
        ctx.note("QY42", "review", f"DATEPART({node.this.name.lower()}) depends on SET DATEFIRST; the rewrite assumes 7 (Sunday).")
    elif part in ("MILLISECOND", "NANOSECOND", "WEEKISO"):
        ctx.note("QY42", "rewritten", f"DATEPART({node.this.name.lower()}) becomes a TiDB date function.")
    result = fill(template, d=node.expression)
    return paren(result) if not isinstance(result, exp.Func) else result


@applies_to(exp.Length)
def len_trailing_spaces(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`LEN(s)` -> `CHAR_LENGTH(RTRIM(s))`.

    LEN ignores trailing spaces; CHAR_LENGTH counts them.
    https://learn.microsoft.com/sql/t-sql/functions/len-transact-sql
    """
    if not isinstance(node, exp.Length) or node.meta_get("done"):
        return node
    kind = ctx.types.category(node.this)
    if kind is not None and kind != "string":
        node.meta["done"] = True
        return node
    ctx.note("QY35", "rewritten", "LEN() ignores trailing spaces: it becomes CHAR_LENGTH(RTRIM()).")
    result = exp.Length(this=call("RTRIM", node.this))
    result.meta["done"] = True
    return result


@applies_to(exp.Anonymous)
def datalength(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`DATALENGTH(s)` -> `LENGTH(s)` (bytes); nvarchar is UTF-16 in SQL Server and UTF-8 in TiDB.
    https://learn.microsoft.com/sql/t-sql/functions/datalength-transact-sql
    """
    if not (isinstance(node, exp.Anonymous) and node.name.upper() == "DATALENGTH"):
        return node
    kind = ctx.types.category(node.expressions[0]) if node.expressions else None
    status = "rewritten" if kind == "binary" else "review"
    ctx.note("QY43", status, "DATALENGTH() becomes LENGTH(): byte counts differ between UTF-16 (nvarchar) and utf8mb4.")
    return call("LENGTH", *node.expressions)


@applies_to(exp.TryCast)
def try_cast(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`TRY_CAST(x AS int)` / `TRY_CONVERT(int, x)` -> `CAST(x AS SIGNED)`; of a string to an integer or a decimal, NULL
    unless the text is a number that fits (`try_number`).

    TiDB has no cast that returns NULL on a bad value: CAST warns and returns 0 or a zero date
    in a SELECT, and fails in strict INSERT/UPDATE.
    https://learn.microsoft.com/sql/t-sql/functions/try-cast-transact-sql
    """
    if not isinstance(node, exp.TryCast):
        return node
    guarded = try_number(node.this, node.to, ctx)
    if guarded is not None:
        ctx.note("QY07", "rewritten", TRY_NUMBER_NOTE)
        return remember_type(guarded, node.to)
    ctx.note("QY07", "review", "TRY_CAST/TRY_CONVERT becomes CAST: TiDB does not return NULL for a value that does not convert.")
    cast = exp.Cast(this=node.this, to=node.to)
    cast.meta["from_try"] = True  # its bad values are this note's, not the conversions' too
    return cast


@applies_to(exp.DateAdd, exp.DateSub)
def dateadd_nanoseconds(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`DATEADD(ns, n, d)` -> `DATE_ADD(d, INTERVAL (n) DIV 1000 MICROSECOND)`.

    TiDB has no NANOSECOND unit and keeps microseconds at most; SQL Server's datetime2 keeps
    100-nanosecond steps, so amounts below a microsecond are lost.
    https://learn.microsoft.com/sql/t-sql/functions/dateadd-transact-sql
    https://docs.pingcap.com/tidb/stable/date-and-time-functions
    """
    if not isinstance(node, (exp.DateAdd, exp.DateSub)) or _unit(node) != "NANOSECOND":
        return node
    ctx.note("QY40", "review", "DATEADD(nanosecond, ...) becomes whole microseconds: TiDB keeps 6 fractional digits, "
             "SQL Server's datetime2 keeps 100-nanosecond steps.")
    micros = exp.IntDiv(this=paren(node.expression.copy()), expression=exp.Literal.number(1000))
    return type(node)(this=node.this, expression=micros, unit=exp.var("MICROSECOND"))


@applies_to(exp.DataType, exp.Cast)
def cast_types(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`CAST(x AS bit)` -> `(x <> 0)`; `datetime2(7)` -> `DATETIME(6)`; `datetimeoffset` flagged.

    TiDB keeps at most 6 fractional digits, has no BIT cast that yields 0/1, and no time-zone
    offset type. https://docs.pingcap.com/tidb/stable/data-type-date-and-time
    """
    if isinstance(node, exp.DataType):
        params = node.expressions
        if node.this in (exp.DType.DATETIME2, exp.DType.TIME, exp.DType.TIMESTAMPTZ) and params:
            digits = int(params[0].name) if params[0].name.isdigit() else 7
            if digits > 6:
                ctx.note("QY40", "rewritten", "Fractional seconds are kept to 6 digits (TiDB's maximum); SQL Server keeps 7.")
                return exp.DataType(this=node.this, expressions=[exp.DataTypeParam(this=exp.Literal.number(6))])
        return node
    if isinstance(node, exp.Cast) and isinstance(node.to, exp.DataType):
        if node.to.this == exp.DType.BIT:
            if ctx.types.category(node.this) == "string":
                ctx.note("QY40", "review", "CAST(string AS bit): SQL Server reads 'true'/'false'; TiDB compares the number.")
            return exp.Paren(this=exp.NEQ(this=node.this, expression=exp.Literal.number(0)))
        if node.to.this == exp.DType.TIMESTAMPTZ:
            ctx.note("QY40", "review", "datetimeoffset has no TiDB type: the value is kept without its offset.")
    return node


@applies_to(exp.CurrentTimestamp, exp.CurrentTimestampLTZ)
def current_time(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`CURRENT_TIMESTAMP` -> `CURRENT_TIMESTAMP(3)`; `SYSDATETIMEOFFSET()` -> `CURRENT_TIMESTAMP(6)`.

    T-SQL's CURRENT_TIMESTAMP is GETDATE(), a datetime with milliseconds; MySQL's has whole
    seconds unless asked for digits. https://learn.microsoft.com/sql/t-sql/functions/getdate-transact-sql
    """
    if isinstance(node, exp.CurrentTimestamp) and node.this is None:
        return exp.CurrentTimestamp(this=exp.Literal.number(3))
    if isinstance(node, exp.CurrentTimestampLTZ):
        ctx.note("QY19", "review", "SYSDATETIMEOFFSET() becomes CURRENT_TIMESTAMP(6): TiDB has no time-zone offset type.")
        return exp.CurrentTimestamp(this=exp.Literal.number(6))
    return node


@applies_to(exp.Anonymous, exp.Parameter)
def identity_functions(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`SCOPE_IDENTITY()` / `@@IDENTITY` -> `LAST_INSERT_ID()`.

    LAST_INSERT_ID() is per connection like SCOPE_IDENTITY(), but after a multi-row INSERT it
    returns the first generated value, not the last. https://docs.pingcap.com/tidb/stable/auto-increment
    """
    name = _function_or_global(node)
    if name in ("SCOPE_IDENTITY", "@@IDENTITY"):
        ctx.note("QY18", "rewritten", f"{name} becomes LAST_INSERT_ID() (the first ID of a multi-row INSERT, not the last).")
        inserted = _inserted_table(ctx)
        if inserted is not None and not any(c.identity is not None for c in inserted.columns):
            ctx.note("QY18", "review", f"{name} after an INSERT into {inserted.name}, which has no IDENTITY column: SQL Server "
                     "returns NULL (or an earlier identity of the scope), LAST_INSERT_ID() the connection's last AUTO_INCREMENT value.")
        return call("LAST_INSERT_ID")
    if name == "IDENT_CURRENT":
        ctx.note("QY18", "unsupported", "IDENT_CURRENT() has no TiDB equivalent (AUTO_INCREMENT values are cached per TiDB server).")
    return node


def _inserted_table(ctx: Context) -> Table | None:
    """The captured table the batch's previous statement inserted into, when it was an INSERT."""
    previous = ctx.previous
    if not isinstance(previous, exp.Insert):
        return None
    target = previous.this.this if isinstance(previous.this, exp.Schema) else previous.this
    if not isinstance(target, exp.Table) or not isinstance(target.this, exp.Identifier) or target.this.args.get("temporary"):
        return None
    return ctx.database.table(target.db or None, target.name)


_GLOBALS: dict[str, tuple[str | None, str, str]] = {
    # name: (TiDB function, status, note)
    "@@SPID": ("CONNECTION_ID", "translated", ""),
    "@@VERSION": ("VERSION", "review", "@@VERSION becomes VERSION(), which reports TiDB's version string."),
    "@@SERVERNAME": (None, "unsupported", "@@SERVERNAME has no TiDB equivalent."),
    "@@TRANCOUNT": (None, "unsupported", "@@TRANCOUNT has no TiDB equivalent (transactions do not nest)."),
    "@@ERROR": (None, "unsupported", "@@ERROR has no TiDB equivalent: errors reach the client instead."),
    "@@FETCH_STATUS": (None, "unsupported", "@@FETCH_STATUS belongs to cursors, which TiDB does not have."),
    "@@DATEFIRST": (None, "unsupported", "@@DATEFIRST has no TiDB equivalent."),
}


@applies_to(exp.Anonymous, exp.Parameter)
def system_variables(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`@@ROWCOUNT` -> `ROW_COUNT()`, `@@SPID` -> `CONNECTION_ID()`; others flagged.

    ROW_COUNT() is -1 after a SELECT, where @@ROWCOUNT counts the rows returned.
    https://docs.pingcap.com/tidb/stable/information-functions
    """
    name = _function_or_global(node)
    if name == "@@ROWCOUNT":
        after_select = isinstance(ctx.previous, exp.Query)
        status = "review" if after_select or ctx.previous is None else "rewritten"
        ctx.note("QY23", status, "@@ROWCOUNT becomes ROW_COUNT(), which counts changed rows and is -1 after a SELECT.")
        return call("ROW_COUNT")
    if name in _GLOBALS:
        function, status, message = _GLOBALS[name]
        if message:
            ctx.note("QY44", status, message)  # type: ignore[arg-type]
        return call(function) if function else node
    if name and name.startswith("@@") and name not in ("@@IDENTITY",):
        ctx.note("QY44", "unsupported", f"{name} has no TiDB equivalent.")
    return node


def _function_or_global(node: exp.Expr) -> str | None:
    if isinstance(node, exp.Anonymous):
        return node.name.upper()
    if isinstance(node, exp.Parameter) and isinstance(node.this, exp.Parameter):
        return "@@" + parameter_name(node.this).upper()
    return None


@applies_to(exp.GroupConcat)
def string_aggregate(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`STRING_AGG(a, ',')` -> `GROUP_CONCAT(a SEPARATOR ',')` (sqlglot), flagged for its length limit.

    GROUP_CONCAT truncates at group_concat_max_len bytes (1024 by default) without an error.
    https://docs.pingcap.com/tidb/stable/system-variables#group_concat_max_len
    """
    if isinstance(node, exp.GroupConcat) and not node.meta_get("noted"):
        node.meta["noted"] = True
        ctx.note(
            "QY21", "review",
            "STRING_AGG becomes GROUP_CONCAT, which cuts results at group_concat_max_len (1024 bytes by default): "
            "raise it for this session or globally.",
        )
    return node


REWRITES = (
    datetime_strings,
    string_plus,
    datetime_arithmetic,
    division_by_zero,
    integer_division,
    tinyint_arithmetic,
    single_precision_arithmetic,
    decimal_division,
    decimal_scale,
    average,
    round_half_away,
    power_type,
    datediff_boundaries,
    dateadd_string,
    dateadd_nanoseconds,
    datepart,
    len_trailing_spaces,
    datalength,
    try_cast,
    numeric_conversions,
    string_conversions,
    datetime_number_comparison,
    bit_strings,
    cast_types,
    current_time,
    identity_functions,
    system_variables,
    string_aggregate,
)
