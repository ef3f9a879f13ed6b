"""Arithmetic whose result SQL Server types differently from TiDB: integer and decimal division, integer
AVG, and what a division by zero does.

SQL Server decides a quotient's type from its operands' types: two integers give a truncated integer,
decimals give a decimal whose scale it computes from both operands' precision and scale (at least 6
digits, often 19 or more). TiDB returns a decimal for both, with the dividend's scale plus 4 digits
(div_precision_increment), so `CAST(a AS decimal) / CAST(b AS decimal)` keeps 4 decimal places there
and 19 on SQL Server, and an ORDER BY on it can order ties differently. And a division by zero stops
a SQL Server statement with an error, where a TiDB query returns NULL.
https://learn.microsoft.com/sql/t-sql/data-types/precision-scale-and-length-transact-sql
https://docs.pingcap.com/tidb/stable/system-variables#div_precision_increment
"""

from __future__ import annotations

from sqlglot import exp

from .context import Context, applies_to
from .templates import paren
from .transforms_conversions import converted

_INTEGER_SHAPES = {exp.DType.TINYINT: 3, exp.DType.UTINYINT: 3, exp.DType.SMALLINT: 5, exp.DType.INT: 10,
                   exp.DType.BIGINT: 19, exp.DType.BIT: 1}
_MONEY_SHAPES = {exp.DType.MONEY: (19, 4), exp.DType.SMALLMONEY: (10, 4)}
_MAX_PRECISION = 38
_TIDB_MAX_SCALE = 30  # https://docs.pingcap.com/tidb/stable/data-type-numeric#decimal-type


@applies_to(exp.Div)
def integer_division(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`a / b` on two integers -> `a DIV b`.

    SQL Server truncates an integer quotient (7 / 2 = 3); MySQL returns a decimal (3.5000). DIV
    truncates toward zero as SQL Server does.
    https://learn.microsoft.com/sql/t-sql/language-elements/divide-transact-sql
    """
    if not isinstance(node, exp.Div):
        return node
    left, right = ctx.types.category(node.this), ctx.types.category(node.expression)
    integral = {"integer", "bit"}
    if left in integral and right in integral:
        ctx.note("QY37", "rewritten", "Integer `/` becomes DIV: SQL Server truncates the quotient of two integers.")
        return exp.IntDiv(this=node.this, expression=node.expression)
    if left is None or right is None:
        if not ({left, right} & {"decimal", "float"}):
            ctx.note(
                "QY37", "review",
                f"The operand types of `{node.sql('sqlserver')[:80]}` are unknown: SQL Server truncates when both "
                "are integers, TiDB does not.",
            )
    return node


@applies_to(exp.Div)
def decimal_division(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`CAST(a AS decimal) / CAST(b AS decimal)` -> `CAST(CAST(CAST(a AS DECIMAL(18, 0)) AS DECIMAL(65, 23)) /
    CAST(b AS DECIMAL(18, 0)) AS DECIMAL(37, 19))`.

    SQL Server types the quotient of decimals (or of a decimal and an integer) as
    decimal(p1 - s1 + s2 + max(6, s1 + p2 + 1), max(6, s1 + p2 + 1)), its scale cut so that the
    precision stays within 38; TiDB's quotient keeps the dividend's scale plus 4. The dividend is
    widened so that TiDB computes enough digits, and the quotient cast to SQL Server's type, which
    rounds it to the same scale. Money divided by money or an integer is money, with 4 places.
    https://learn.microsoft.com/sql/t-sql/data-types/data-type-precedence-transact-sql
    """
    if not isinstance(node, exp.Div):
        return node
    left, right = decimal_shape(node.this, ctx), decimal_shape(node.expression, ctx)
    if left is None or right is None or (left[1] == 0 and right[1] == 0 and not _is_decimal(node, ctx)):
        return node
    precision, scale = _money_shape(node, ctx) or quotient_shape(left, right)
    widened = exp.Cast(this=paren(node.this.copy()) if not isinstance(node.this, exp.Cast) else node.this.copy(),
                       to=exp.DataType.build(f"decimal(65, {min(scale + 4, _TIDB_MAX_SCALE - 4)})"))
    widened.meta["converted"] = True
    kept = min(scale, _TIDB_MAX_SCALE)
    if kept < scale:
        ctx.note("QY60", "review", f"SQL Server keeps {scale} decimal places in this quotient; TiDB keeps at most {_TIDB_MAX_SCALE}.")
    ctx.note("QY60", "rewritten", f"A decimal quotient is cast to SQL Server's type DECIMAL({precision}, {kept}): TiDB would keep "
             "the dividend's scale plus 4 digits (div_precision_increment).")
    return converted(exp.Div(this=widened, expression=node.expression.copy()), exp.DataType.build(f"decimal({precision}, {kept})"))


def _money_shape(node: exp.Div, ctx: Context) -> tuple[int, int] | None:
    """Money divided by money or an integer stays money (it outranks integers; decimal outranks it):
    money(19, 4), or smallmoney(10, 4) when no operand is money."""
    types = [ctx.types.of(node.this), ctx.types.of(node.expression)]
    kinds = {t.this for t in types if t is not None}
    if not kinds & set(_MONEY_SHAPES) or exp.DType.DECIMAL in kinds:
        return None
    return _MONEY_SHAPES[exp.DType.MONEY if exp.DType.MONEY in kinds else exp.DType.SMALLMONEY]


def _is_decimal(node: exp.Div, ctx: Context) -> bool:
    return "decimal" in (ctx.types.category(node.this), ctx.types.category(node.expression))


def quotient_shape(left: tuple[int, int], right: tuple[int, int]) -> tuple[int, int]:
    """SQL Server's (precision, scale) of a decimal quotient, with its rules for a precision over 38."""
    (p1, s1), (p2, s2) = left, right
    scale = max(6, s1 + p2 + 1)
    precision = p1 - s1 + s2 + scale
    return _fit(precision, scale)


def _fit(precision: int, scale: int) -> tuple[int, int]:
    """A result over 38 digits keeps its integral part and gives up scale, down to 6 (or its own, if smaller)."""
    if precision <= _MAX_PRECISION:
        return precision, scale
    integral = precision - scale
    if integral < 32:
        return _MAX_PRECISION, min(scale, _MAX_PRECISION - integral)
    return _MAX_PRECISION, min(scale, 6)


def decimal_shape(node: exp.Expr, ctx: Context) -> tuple[int, int] | None:
    """SQL Server's (precision, scale) of an exact numeric expression, or None (float, unknown, not numeric)."""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Neg):
        return decimal_shape(node.this, ctx)
    if isinstance(node, (exp.Add, exp.Sub, exp.Mul)):
        left, right = decimal_shape(node.this, ctx), decimal_shape(node.expression, ctx)
        if left is None or right is None:
            return None
        (p1, s1), (p2, s2) = left, right
        if isinstance(node, exp.Mul):
            return _fit(p1 + p2 + 1, s1 + s2)
        scale = max(s1, s2)
        return _fit(scale + max(p1 - s1, p2 - s2) + 1, scale)
    if isinstance(node, exp.Div):
        left, right = decimal_shape(node.this, ctx), decimal_shape(node.expression, ctx)
        return quotient_shape(left, right) if left is not None and right is not None else None
    if isinstance(node, exp.Literal) and not node.is_string:
        text = node.name.lstrip("-")
        if "e" in text.lower():
            return None
        if "." not in text:
            return (10, 0) if int(text) <= 2**31 - 1 else (max(len(text), 1), 0)
        whole, fraction = text.split(".")
        return max(len(whole.lstrip("0")) + len(fraction), len(fraction), 1), len(fraction)
    datatype = ctx.types.of(node)
    if datatype is None:
        return None
    if datatype.this in _INTEGER_SHAPES:
        return _INTEGER_SHAPES[datatype.this], 0
    if datatype.this in _MONEY_SHAPES:
        return _MONEY_SHAPES[datatype.this]
    if datatype.this == exp.DType.DECIMAL:
        params = [int(p.name) for p in datatype.expressions if p.name.isdigit()]
        if not params:
            return 18, 0
        return params[0], params[1] if len(params) > 1 else 0
    return None


@applies_to(exp.Div, exp.IntDiv, exp.Mod)
def division_by_zero(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`a / b` where b may be 0, in a query: noted, not changed.

    SQL Server stops the statement with error 8134 ("Divide by zero error encountered"); TiDB's
    default sql_mode returns NULL with a warning in a query, and fails an INSERT, UPDATE or DELETE
    as SQL Server does (ERROR_FOR_DIVISION_BY_ZERO with strict mode). A divisor that is a non-zero
    number or a NULLIF(x, 0) cannot be 0, nor a COUNT in a group or under an aggregate dividend.
    https://learn.microsoft.com/sql/relational-databases/errors-events/mssqlserver-8134-database-engine-error
    https://docs.pingcap.com/tidb/stable/sql-mode
    """
    if not isinstance(node, (exp.Div, exp.IntDiv, exp.Mod)) or _never_zero(node.expression, node):
        return node
    if node.find_ancestor(exp.Insert, exp.Update, exp.Delete) is not None:
        return node
    ctx.note("QY61", "review", "A division by zero stops the statement in SQL Server (error 8134); a TiDB query returns NULL "
             "for that row instead.")
    return node


_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)


@applies_to(exp.Add, exp.Sub, exp.Mul, exp.Div, *_COMPARISONS)
def single_precision_arithmetic(node: exp.Expr, ctx: Context) -> exp.Expr:
    """Arithmetic on a `real` column, or a comparison of one with another type: noted, not changed.

    SQL Server computes `real` (float(24)) arithmetic in single precision, and an expression with a
    real operand is real (it outranks money, decimal and the integers); a literal compared with a real
    column is converted to real. TiDB stores FLOAT in single precision too but computes and compares
    with it in double precision. The results part in the last digits, which rounding (CONVERT to money
    or decimal, ROUND) makes visible: Northwind's `UnitPrice * Quantity * (1 - Discount)` is 248.12 on
    SQL Server's side and 248.11 on TiDB's; `WHERE rate = 0.1` finds the row on SQL Server and none
    on TiDB, where the stored 0.1 is 0.100000001490116.
    https://learn.microsoft.com/sql/t-sql/data-types/float-and-real-transact-sql
    https://learn.microsoft.com/sql/t-sql/data-types/data-type-precedence-transact-sql
    """
    if not _SINGLE_PRECISION_NAMES & ctx.database.column_types:
        return node  # no real column to resolve an operand to
    reals = [operand for operand in (node.this, node.expression) if _real_column(operand, ctx)]
    if not reals or (isinstance(node, _COMPARISONS) and len(reals) == 2):
        return node  # two real columns compare alike on both
    what = "compares" if isinstance(node, _COMPARISONS) else "computes"
    ctx.note("QY64", "review", f"`{reals[0].sql('tsql')}` is real: SQL Server {what} it in single precision, TiDB in "
             "double; results may differ in the last digits, and after rounding.")
    return node


def _real_column(operand: exp.Expr, ctx: Context) -> bool:
    column = ctx.types.schema_column(operand) if isinstance(operand, exp.Column) else None
    return column is not None and _single_precision(column.type)


_SINGLE_PRECISION_NAMES = frozenset({"real", "float"})


def _single_precision(datatype) -> bool:
    """A SQL Server `real`, or `float(n)` with n of 24 or fewer bits (stored as real)."""
    name = datatype.name.lower()
    return name == "real" or (name == "float" and datatype.precision is not None and datatype.precision <= 24)


def _never_zero(divisor: exp.Expr, division: exp.Expr) -> bool:
    while isinstance(divisor, (exp.Paren, exp.Neg, exp.Cast)):
        divisor = divisor.this
    if isinstance(divisor, exp.Literal) and not divisor.is_string:
        try:
            return float(divisor.name) != 0
        except ValueError:
            return False
    if isinstance(divisor, exp.Nullif):
        zero = divisor.expression
        return isinstance(zero, exp.Literal) and not zero.is_string and _is_zero(zero.name)
    if isinstance(divisor, exp.Count):
        # COUNT is 0 only over no rows: never in a group, and then an aggregate dividend is NULL (NULL / 0 is NULL).
        select = division.find_ancestor(exp.Select)
        aggregated = any(isinstance(n, exp.AggFunc) for n in division.this.walk())
        return select is not None and (select.args.get("group") is not None or aggregated)
    return False


def _is_zero(text: str) -> bool:
    try:
        return float(text) == 0
    except ValueError:
        return False


@applies_to(exp.Window, exp.Avg)
def integer_average(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`AVG(int_col)` -> `SUM(int_col) DIV COUNT(int_col)`.

    SQL Server's AVG of an integer column is an integer (truncated); MySQL's is a decimal.
    https://learn.microsoft.com/sql/t-sql/functions/avg-transact-sql#return-types
    """
    if isinstance(node, exp.Window) and isinstance(node.this, exp.IntDiv) and node.this.meta.get("average"):
        # AVG(x) OVER (w) -> SUM(x) OVER (w) DIV COUNT(x) OVER (w): the window applies to both halves.
        over = {k: v for k, v in node.args.items() if k != "this"}
        total = exp.Window(this=node.this.this.copy(), **{k: v.copy() if isinstance(v, exp.Expr) else v for k, v in over.items()})
        count = exp.Window(this=node.this.expression.copy(), **{k: v.copy() if isinstance(v, exp.Expr) else v for k, v in over.items()})
        return exp.Paren(this=exp.IntDiv(this=total, expression=count))
    if not isinstance(node, exp.Avg):
        return node
    argument = node.this
    inner = argument.this if isinstance(argument, exp.Distinct) else argument
    if isinstance(argument, exp.Distinct) and len(argument.expressions) == 1:
        inner = argument.expressions[0]
    if ctx.types.category(inner) not in ("integer", "bit"):
        return node
    ctx.note("QY41", "rewritten", "AVG of an integer column becomes SUM() DIV COUNT(): SQL Server returns an integer.")
    result = exp.IntDiv(this=exp.Sum(this=argument.copy()), expression=exp.Count(this=argument.copy()))
    result.meta["average"] = True
    return result if isinstance(node.parent, exp.Window) else exp.Paren(this=result)
