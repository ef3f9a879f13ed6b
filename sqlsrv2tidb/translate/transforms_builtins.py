"""T-SQL built-ins TiDB has under the same name, rewritten where their edge cases differ.

SUBSTRING and CHARINDEX with a start below 1, REPLICATE with a negative count, ISNULL's result type
(its first argument's, where COALESCE takes the wider one) and ORDER BY NEWID() all run on TiDB as
written and return something else there. Each rewrite keeps SQL Server's result, or flags the
query when it cannot know (a computed start). Like `transforms_functions`, these run bottom-up with
types available.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from sqlglot import exp

from .context import Context, applies_to
from .templates import call, paren
from .transforms_conversions import MONEY_TYPES
from .type_rules import category


def _bare(node: exp.Expr | None) -> exp.Expr | None:
    """The expression inside any parentheses."""
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _int_value(node: exp.Expr | None) -> int | None:
    """The value of an integer literal (`-1` included), else None."""
    node = _bare(node)
    if isinstance(node, exp.Neg):
        inner = _int_value(node.this)
        return -inner if inner is not None else None
    return int(node.name) if isinstance(node, exp.Literal) and node.is_int else None


def _non_negative(node: exp.Expr) -> bool:
    """Sure to be 0 or more: a position or a length (CHARINDEX, LEN, ...), a sum of such, a literal."""
    node = _bare(node)
    value = _int_value(node)
    if value is not None:
        return value >= 0
    if isinstance(node, (exp.StrPosition, exp.Length, exp.Count)):
        return True
    if isinstance(node, exp.Anonymous) and node.name.upper() in ("PATINDEX", "DATALENGTH", "REGEXP_INSTR", "LENGTH", "CHAR_LENGTH"):
        return True
    return isinstance(node, (exp.Add, exp.Mul)) and _non_negative(node.this) and _non_negative(node.expression)


def _at_least_one(node: exp.Expr) -> bool:
    """Sure to be 1 or more: a literal, or a non-negative value plus a positive literal (CHARINDEX(...) + 1)."""
    node = _bare(node)
    value = _int_value(node)
    if value is not None:
        return value >= 1
    if isinstance(node, exp.Add):
        for one, other in ((node.this, node.expression), (node.expression, node.this)):
            if (_int_value(one) or 0) >= 1 and _non_negative(other):
                return True
    return False


_SUBSTRING_DOCS = "https://learn.microsoft.com/sql/t-sql/functions/substring-transact-sql"


@applies_to(exp.Substring, exp.StrPosition)
def start_positions(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`SUBSTRING(s, 0, 3)` -> `SUBSTRING(s, 1, 2)`; `CHARINDEX('a', s, 0)` -> `LOCATE('a', s)`;
    `CHARINDEX('a', s, @p)` -> `LOCATE('a', s, GREATEST(@p, 1))`.

    SQL Server reads a start below 1 as counting from a position before the string: SUBSTRING returns
    the first start + length - 1 characters, and CHARINDEX searches from the first character. MySQL
    returns '' and 0 for such starts. A computed SUBSTRING start that could be below 1 is flagged.
    https://learn.microsoft.com/sql/t-sql/functions/substring-transact-sql
    https://learn.microsoft.com/sql/t-sql/functions/charindex-transact-sql
    """
    if isinstance(node, exp.Substring) and node.args.get("start") is not None and node.args.get("length") is not None:
        start, length = node.args["start"], node.args["length"]
        begin = _int_value(start)
        if begin is not None and begin < 1:
            ctx.note("QY36", "rewritten", "SUBSTRING with a start below 1 counts from before the string in SQL Server: it "
                     "becomes SUBSTRING(s, 1, start + length - 1).")
            size = _int_value(length)
            count: exp.Expr = (exp.Literal.number(max(size + begin - 1, 0)) if size is not None
                               else exp.Sub(this=paren(length), expression=exp.Literal.number(1 - begin)))
            return exp.Substring(this=node.this, start=exp.Literal.number(1), length=count)
        if begin is None and not _at_least_one(start):
            ctx.note("QY36", "review", f"SUBSTRING with the computed start `{start.sql('sqlserver')[:60]}`: when it is below 1, "
                     f"SQL Server returns the first start + length - 1 characters and TiDB returns '' ({_SUBSTRING_DOCS}).")
        return node
    if isinstance(node, exp.StrPosition) and node.args.get("position") is not None:
        position = node.args["position"]
        begin = _int_value(position)
        if begin is not None and begin < 1:
            ctx.note("QY36", "rewritten", "CHARINDEX with a start below 1 searches from the first character: the start is dropped.")
            return exp.StrPosition(this=node.this, substr=node.args.get("substr"))
        if begin is None and not _at_least_one(position):
            ctx.note("QY36", "rewritten", "CHARINDEX with a computed start searches from the first character when the start "
                     "is below 1: it becomes LOCATE(..., GREATEST(start, 1)).")
            return exp.StrPosition(this=node.this, substr=node.args.get("substr"),
                                   position=exp.Greatest(this=position, expressions=[exp.Literal.number(1)]))
    return node


@applies_to(exp.Repeat)
def replicate_count(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`REPLICATE('0', 5 - LEN(x))` -> `REPEAT('0', NULLIF(GREATEST(5 - LEN(x), -1), -1))`; `REPLICATE(s, -1)` -> NULL.

    REPLICATE returns NULL for a negative count, and REPEAT returns ''. The count stays one expression
    (evaluated once): below 0 it becomes -1, and -1 becomes NULL, which REPEAT returns NULL for.
    https://learn.microsoft.com/sql/t-sql/functions/replicate-transact-sql
    https://docs.pingcap.com/tidb/stable/string-functions
    """
    if not isinstance(node, exp.Repeat) or node.meta_get("counted"):
        return node
    times = node.args.get("times")
    count = _int_value(times)
    if times is None or (count is not None and count >= 0) or (count is None and _non_negative(times)):
        return node
    ctx.note("QY36", "rewritten", "REPLICATE with a negative count returns NULL in SQL Server and REPEAT returns '': "
             "a negative count becomes NULL.")
    guarded = exp.Null() if count is not None else exp.Nullif(
        this=exp.Greatest(this=times, expressions=[exp.Literal.number(-1)]), expression=exp.Literal.number(-1))
    result = exp.Repeat(this=node.this, times=guarded)
    result.meta["counted"] = True
    return result


@applies_to(exp.Coalesce)
def isnull_type(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`ISNULL(code, 'toolong')` on a char(5) column -> `COALESCE(code, 'toolo')`; `ISNULL(n, 1.9)` on an
    int -> `COALESCE(n, 1)`; `ISNULL(n, price)` with a money price -> `COALESCE(n, CAST(price AS SIGNED))`.

    ISNULL returns its first argument's type, so SQL Server converts the replacement to it (cutting a
    string, truncating a decimal, rounding money); COALESCE returns the wider type and keeps the
    replacement whole.
    https://learn.microsoft.com/sql/t-sql/functions/isnull-transact-sql
    """
    if not (isinstance(node, exp.Coalesce) and node.args.get("is_null") and len(node.expressions) == 1):
        return node
    first, replacement = ctx.types.of(node.this), node.expressions[0]
    kind, other = category(first), ctx.types.of(replacement)
    new: exp.Expr | None = None
    if kind == "string" and first.expressions and first.expressions[0].name.isdigit():
        size = int(first.expressions[0].name)
        if isinstance(replacement, (exp.Literal, exp.National)) and replacement.is_string and len(replacement.name) > size:
            new = type(replacement)(this=replacement.name[:size], is_string=True)
        elif category(other) == "string" and not isinstance(replacement, (exp.Literal, exp.National)) and not (
            (other.expressions and other.expressions[0].name.isdigit() and int(other.expressions[0].name) <= size)
            or (isinstance(replacement, exp.Left) and (_int_value(replacement.expression) or size + 1) <= size)
        ):
            new = call("LEFT", replacement, exp.Literal.number(size))
    elif kind in ("integer", "bit") and other is not None and other.this in MONEY_TYPES:
        new = exp.Cast(this=replacement, to=exp.DataType.build("INT"))  # money rounds to an integer, as CAST does
    elif kind in ("integer", "bit") and category(other) in ("decimal", "float"):
        value = _decimal_value(replacement)
        new = exp.Literal.number(int(value)) if value is not None else call("TRUNCATE", replacement, exp.Literal.number(0))
    if new is None:
        return node
    ctx.note("QY36", "rewritten", "ISNULL returns its first argument's type: the replacement is converted to it (a string "
             "cut to its length, a decimal truncated and money rounded to an integer), as SQL Server does; COALESCE "
             "would keep it whole.")
    return exp.Coalesce(this=node.this, expressions=[new], is_null=True)


def _decimal_value(node: exp.Expr) -> Decimal | None:
    if isinstance(node, exp.Literal) and not node.is_string:
        try:
            return Decimal(node.name)
        except InvalidOperation:
            return None
    if isinstance(node, exp.Neg):
        inner = _decimal_value(node.this)
        return -inner if inner is not None else None
    return None


@applies_to(exp.Uuid)
def random_order(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`ORDER BY NEWID()` -> `ORDER BY RAND()`.

    Sorting by NEWID() is T-SQL's idiom for a random order (`SELECT TOP 1 ... ORDER BY NEWID()` picks a
    random row). TiDB's UUID() is a time-based version 1 UUID, so consecutive values sort nearly in
    the order they were made: the rows would come back in scan order, not shuffled.
    https://learn.microsoft.com/sql/t-sql/functions/newid-transact-sql
    https://docs.pingcap.com/tidb/stable/miscellaneous-functions#uuid
    """
    if isinstance(node, exp.Uuid) and isinstance(node.parent, exp.Ordered):
        ctx.note("QY36", "rewritten", "ORDER BY NEWID() (a random order) becomes ORDER BY RAND(): TiDB's UUID() is "
                 "time-based and would sort almost in the order the rows are read.")
        return exp.Rand()
    return node
