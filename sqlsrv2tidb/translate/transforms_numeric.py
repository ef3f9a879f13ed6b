"""Arithmetic whose result SQL Server types differently from TiDB, and so computes to another value.

SQL Server decides a result's type from its operands' types (`type_rules`, applied by
`expression_types.Types`), and the value follows the type: two integers give a truncated integer
quotient; decimals give a decimal whose scale it computes from both operands (a quotient truncated to
that scale, a product past 38 digits cut to fewer places); money times money is money, four places;
AVG of money is money and AVG of decimal(p, s) is decimal(38, max(s, 6)), truncated; ROUND rounds half
away from zero; POWER has its first argument's type; `real` arithmetic is single precision. TiDB
returns a decimal quotient with the dividend's scale plus 4 digits (div_precision_increment, rounded),
keeps every digit of a product, rounds integers and doubles half to even and computes in double
precision. The rewrites here make TiDB compute SQL Server's value, each cast to SQL Server's type
(`remember_type` keeps money money for the expressions above). And a division by zero stops a SQL
Server statement with an error, where a TiDB query returns NULL: that is noted.
https://learn.microsoft.com/sql/t-sql/data-types/precision-scale-and-length-transact-sql
https://docs.pingcap.com/tidb/stable/system-variables#div_precision_increment
"""

from __future__ import annotations

from sqlglot import exp

from . import type_rules as rules
from .context import Context, applies_to
from .expression_types import remember_type
from .templates import call, fill, paren
from .transforms_conversions import converted

_TIDB_MAX_SCALE = 30  # https://docs.pingcap.com/tidb/stable/data-type-numeric#decimal-type
_GUARD_DIGITS = 8
"""Digits TiDB computes past SQL Server's scale before a quotient is truncated to it (TiDB rounds its last digit)."""
_DOCS_PRECISION = "https://learn.microsoft.com/sql/t-sql/data-types/precision-scale-and-length-transact-sql"


def _tidb_type(datatype: exp.DataType) -> exp.DataType:
    """The TiDB type a SQL Server exact numeric result is cast to: money as DECIMAL(19, 4)."""
    found = rules.shape(datatype)
    return rules.decimal(*found) if found is not None and datatype.this in rules.MONEY else datatype


def _as_sql_server(value: exp.Expr, datatype: exp.DataType) -> exp.Expr:
    """`CAST(value AS <SQL Server's type in TiDB>)`, remembering SQL Server's own type."""
    return remember_type(converted(value, _tidb_type(datatype)), datatype)


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
    """`CAST(a AS decimal) / CAST(b AS decimal)` -> `CAST(TRUNCATE(CAST(CAST(a AS DECIMAL(18, 0)) AS DECIMAL(65, 23)) /
    CAST(b AS DECIMAL(18, 0)), 19) AS DECIMAL(37, 19))`; `CAST(2.99 AS money) / 3` -> `0.9966`, not 0.9967.

    SQL Server types the quotient of decimals (or of a decimal and an integer, an integer constant by its
    own digits) as decimal(p1 - s1 + s2 + max(6, s1 + p2 + 1), max(6, s1 + p2 + 1)), its scale cut so
    that the precision stays within 38, and truncates the quotient to that scale; money divided by money
    or an integer is money, 4 places, truncated. TiDB's quotient keeps the dividend's scale plus 4,
    rounded. The dividend is widened so that TiDB computes 8 digits more than SQL Server keeps, the
    quotient truncated to SQL Server's scale and cast to its type.
    https://learn.microsoft.com/sql/t-sql/data-types/precision-scale-and-length-transact-sql
    """
    if not isinstance(node, exp.Div):
        return node
    result = ctx.types.of(node)
    found = rules.shape(result) if result is not None and rules.category(result) == "decimal" else None
    if found is None or ctx.types.shape(node.this) is None or ctx.types.shape(node.expression) is None:
        return node
    precision, scale = found
    if scale > _TIDB_MAX_SCALE - _GUARD_DIGITS:
        ctx.note("QY60", "review", f"SQL Server keeps {scale} decimal places in this quotient; TiDB computes at most "
                 f"{_TIDB_MAX_SCALE}, so the last places may differ.")
    widened_scale = max(min(scale + _GUARD_DIGITS, _TIDB_MAX_SCALE) - 4, 0)
    dividend = node.this.copy()
    widened = exp.Cast(this=dividend if isinstance(dividend, exp.Cast) else paren(dividend),
                       to=exp.DataType.build(f"decimal(65, {widened_scale})"))
    widened.meta["converted"] = True
    kept = min(scale, _TIDB_MAX_SCALE)
    what = "money" if result.this in rules.MONEY else f"DECIMAL({precision}, {kept})"
    ctx.note("QY60", "rewritten", f"A decimal quotient is truncated to SQL Server's type {what}: TiDB would keep the "
             "dividend's scale plus 4 digits (div_precision_increment), rounded.")
    quotient = exp.Div(this=widened, expression=node.expression.copy())
    return _as_sql_server(call("TRUNCATE", quotient, exp.Literal.number(kept)), result)


@applies_to(exp.Mul, exp.Add, exp.Sub)
def decimal_scale(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`price * price` on money -> `CAST(price * price AS DECIMAL(19, 4))`; a decimal product past 38 digits ->
    `CAST(a * b AS DECIMAL(38, s))` with SQL Server's cut scale.

    Money times money is money in SQL Server (4 places); TiDB keeps the 8 places of the exact product. A
    decimal product or sum whose precision would pass 38 digits keeps fewer places in SQL Server (the
    scale rules of "Precision, scale, and length", rounded); TiDB keeps them all (up to 30). Every other
    product, sum and difference keeps the same digits on both, and is left as it is.
    https://learn.microsoft.com/sql/t-sql/data-types/precision-scale-and-length-transact-sql
    """
    if not isinstance(node, (exp.Mul, exp.Add, exp.Sub)) or node.meta_get("tidb"):
        return node
    result = ctx.types.of(node)
    if result is None or rules.category(result) != "decimal":
        return node
    left, right = ctx.types.shape(node.this), ctx.types.shape(node.expression)
    kept = rules.shape(result)
    if left is None or right is None or kept is None:
        return node
    exact = left[1] + right[1] if isinstance(node, exp.Mul) else max(left[1], right[1])
    if kept[1] >= min(exact, _TIDB_MAX_SCALE):
        return node
    what = "money (4 places)" if result.this in rules.MONEY else f"DECIMAL({kept[0]}, {kept[1]})"
    ctx.note("QY67", "rewritten", f"`{node.sql('tsql')[:80]}` is {what} in SQL Server, which keeps {kept[1]} decimal places "
             f"where the exact result has {exact}: it is cast to that type, as TiDB would keep them all.")
    return _as_sql_server(node, result)


@applies_to(exp.Add, exp.Sub, exp.Mul, exp.Neg)
def tinyint_arithmetic(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`Score * PostTypeId` with PostTypeId tinyint -> `Score * CAST(PostTypeId AS SIGNED)`.

    SQL Server's tinyint (0 to 255) is TiDB's TINYINT UNSIGNED, and TiDB makes arithmetic with an unsigned
    operand unsigned: a negative result fails the statement (error 1690, "BIGINT UNSIGNED value is out of
    range"). In SQL Server tinyint converts to the other operand's type (int), signed. Each tinyint
    operand is converted to a signed integer first.
    https://docs.pingcap.com/tidb/stable/data-type-numeric#integer-types
    """
    if node.meta_get("tidb"):
        return node
    keys = ("this",) if isinstance(node, exp.Neg) else ("this", "expression")
    unsigned = [key for key in keys if _is_tinyint(ctx.types.of(node.args.get(key)))]
    if not unsigned:
        return node
    for key in unsigned:
        operand = node.args[key]
        node.set(key, remember_type(converted(operand.copy(), rules.BIGINT), ctx.types.of(operand)))
    ctx.note("QY74", "rewritten", "A tinyint operand is TINYINT UNSIGNED on TiDB, which makes the arithmetic unsigned (a "
             "negative result fails there): it is converted to a signed integer, as SQL Server computes it.")
    return node


def _is_tinyint(datatype: exp.DataType | None) -> bool:
    return datatype is not None and datatype.this == exp.DType.UTINYINT


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
def average(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`AVG(qty)` on int -> `(SUM(qty) DIV COUNT(qty))`; `AVG(amount)` on decimal(10, 2) ->
    `CAST(TRUNCATE(CAST(SUM(amount) AS DECIMAL(65, 10)) / COUNT(amount), 6) AS DECIMAL(38, 6))`; on money, 4
    places; as a window function the window applies to the SUM and the COUNT.

    SQL Server's AVG has the type its AVG page gives: an integer for the integers (truncated), money for
    money, decimal(38, max(s, 6)) for decimal(p, s), the quotient truncated to that scale. TiDB returns a
    decimal with the argument's scale plus 4, rounded (1, 2, 2 average 1.666667 there, 1.666666 in SQL Server).
    https://learn.microsoft.com/sql/t-sql/functions/avg-transact-sql#return-types
    """
    if isinstance(node, exp.Window):
        body = node.this
        if not body.meta_get("average"):
            return node
        over = {key: value for key, value in node.args.items() if key != "this"}
        body = body.copy()
        for part in list(body.find_all(exp.Sum, exp.Count)):
            part.replace(exp.Window(this=part.copy(), **{k: v.copy() if isinstance(v, exp.Expr) else v for k, v in over.items()}))
        return body
    if not isinstance(node, exp.Avg):
        return node
    argument = node.this
    inner = argument.this if isinstance(argument, exp.Distinct) else argument
    if isinstance(argument, exp.Distinct) and len(argument.expressions) == 1:
        inner = argument.expressions[0]
    kind = ctx.types.category(inner)
    total, count = exp.Sum(this=argument.copy()), exp.Count(this=argument.copy())
    if kind in ("integer", "bit"):
        ctx.note("QY41", "rewritten", "AVG of an integer column becomes SUM() DIV COUNT(): SQL Server returns an integer.")
        result: exp.Expr = exp.Paren(this=exp.IntDiv(this=total, expression=count))
        remember_type(result, rules.average_type(ctx.types.of(inner)))
    elif kind == "decimal":
        datatype = rules.average_type(ctx.types.of(inner))
        found = rules.shape(datatype)
        if datatype is None or found is None:
            return node
        scale = found[1]
        widened = converted(total, exp.DataType.build(f"decimal(65, {max(min(scale + _GUARD_DIGITS, _TIDB_MAX_SCALE) - 4, 0)})"))
        what = "money" if datatype.this in rules.MONEY else f"DECIMAL(38, {scale})"
        ctx.note("QY66", "rewritten", f"AVG of `{inner.sql('tsql')[:60]}` is {what} in SQL Server, truncated to {scale} places; "
                 "TiDB keeps the argument's scale plus 4, rounded: it becomes SUM / COUNT truncated to SQL Server's type.")
        result = _as_sql_server(call("TRUNCATE", exp.Div(this=widened, expression=count), exp.Literal.number(scale)), datatype)
    else:
        return node
    result.meta["average"] = True
    return result


@applies_to(exp.Round)
def round_half_away(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`ROUND(25, -1)` -> `CAST(ROUND(CAST(25 AS DECIMAL(38, 0)), -1) AS SIGNED)` (30); `ROUND(f, 1)` on a float ->
    `CAST(ROUND(CAST(f AS DECIMAL(65, 20)), 1) AS DOUBLE)`.

    SQL Server rounds half away from zero (ROUND(25, -1) is 30, ROUND(2.5E0, 0) is 3). TiDB does so for
    decimals, but rounds an integer to a negative length, and a double, half to even (20 and 2). Through a
    decimal TiDB rounds as SQL Server does; the result is cast back to the argument's type (a double is
    read as the shortest decimal that gives it, as SQL Server's ROUND reads a float).
    https://learn.microsoft.com/sql/t-sql/functions/round-transact-sql
    https://docs.pingcap.com/tidb/stable/mathematical-functions
    """
    if not isinstance(node, exp.Round) or node.meta_get("tidb"):
        return node
    source = ctx.types.of(node.this)
    kind = rules.category(source)
    length = node.args.get("decimals")
    if kind in ("integer", "bit"):
        if length is None or (isinstance(length, exp.Literal) and length.is_int and int(length.name) >= 0):
            return node  # an integer rounded to 0 or more places is itself
        detour, back = "decimal(38, 0)", rules.BIGINT
    elif kind == "float":
        detour, back = "decimal(65, 20)", rules.DOUBLE
    else:
        return node
    rounded = exp.Round(this=converted(node.this.copy(), exp.DataType.build(detour)),
                        decimals=length.copy() if length is not None else None)
    rounded.meta["tidb"] = True
    ctx.note("QY68", "rewritten", "ROUND rounds half away from zero in SQL Server; TiDB rounds an integer to a negative "
             "length, and a float, half to even: it rounds through a DECIMAL and converts back.")
    return remember_type(converted(rounded, back), rules.round_type(source))


@applies_to(exp.Pow)
def power_type(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`POWER(2, 0.5)` -> `CAST(TRUNCATE(POWER(2, 0.5), 0) AS SIGNED)` (1); `POWER(d, 2)` on decimal(10, 2) ->
    `CAST(POWER(d, 2) AS DECIMAL(38, 2))`.

    SQL Server's POWER has its first argument's type: an integer base gives an integer (the float result
    truncated), decimal(p, s) gives decimal(38, s), money gives money. TiDB always returns a double.
    https://learn.microsoft.com/sql/t-sql/functions/power-transact-sql#return-types
    """
    if not isinstance(node, exp.Pow) or node.meta_get("tidb"):
        return node
    source = ctx.types.of(node.this)
    result = rules.power_type(source)
    kind = rules.category(source)
    if result is None or kind not in ("integer", "decimal"):
        return node
    exponent = node.expression
    if kind == "integer" and isinstance(exponent, exp.Literal) and exponent.is_int and int(exponent.name) >= 0:
        return node  # a whole power of an integer is that integer on both (as a double on TiDB)
    ctx.note("QY69", "rewritten", f"POWER has its first argument's type in SQL Server ({result.sql('tsql').lower()}); TiDB "
             "returns a double: the result is converted to that type.")
    value = node.copy()
    value.meta["tidb"] = True
    if kind == "integer":
        return remember_type(converted(call("TRUNCATE", value, exp.Literal.number(0)), rules.BIGINT), result)
    return _as_sql_server(value, result)


_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)


@applies_to(exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Cast, *_COMPARISONS)
def single_precision_arithmetic(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`price * (1 - rate)` with `rate` real -> `single(single(price) * single(1 - rate))`; `rate = 0.1` ->
    `rate = single(0.1)`, where `single(a)` is `CAST((a * 536870913E0) - ((a * 536870913E0) - a) AS FLOAT)`.

    SQL Server computes `real` (float(24)) arithmetic in single precision: an expression with a real
    operand is real (real outranks money, decimal and the integers), each operand converted to real
    first; a number compared with a real is converted to real. TiDB stores FLOAT in single precision but
    computes and compares in double precision, so the results part in the last digits, which rounding
    makes visible (Northwind's `UnitPrice * Quantity * (1 - Discount)`: 248.12 against 248.11), and
    `WHERE rate = 0.1` finds no row. Each operand and each result is rounded to single precision: one
    operation on two single-precision values computed in double and rounded to single is exactly the
    single-precision operation (for every operation here, as double has more than twice single's 24
    bits). The rounding cannot be `CAST(a AS FLOAT)`: TiDB keeps the double value under a FLOAT type
    (MySQL and MariaDB do round). It is Veltkamp's split, in double arithmetic on every target:
    `c - (c - a)` with `c = a * (2^29 + 1)` is `a` rounded to nearest at 53 - 29 = 24 significant bits
    (a tie may round away from even); the outer CAST only names the type. An integer constant below 2^24,
    exact in single precision, is left as it is.
    https://learn.microsoft.com/sql/t-sql/data-types/float-and-real-transact-sql
    https://learn.microsoft.com/sql/t-sql/data-types/data-type-precedence-transact-sql
    """
    if node.meta_get("tidb"):
        return node
    if isinstance(node, _COMPARISONS):
        return _single_precision_comparison(node, ctx)
    if isinstance(node, exp.Cast):
        return _conversion_to_real(node, ctx)
    result = ctx.types.of(node)
    if not rules.is_real(result) or rules.category(ctx.types.of(node.this)) not in rules.NUMERIC \
            or rules.category(ctx.types.of(node.expression)) not in rules.NUMERIC:
        return node
    depth = 1 + max(_real_depth(node.this), _real_depth(node.expression))
    if depth > _MAX_REAL_DEPTH:
        ctx.note("QY64", "review", f"Arithmetic on real values nested more than {_MAX_REAL_DEPTH} deep is left in double "
                 "precision (each level of single-precision rounding triples the expression): SQL Server computes it in "
                 "single precision, so results may differ in the last digits.")
        return node
    ctx.note("QY64", "rewritten", "Arithmetic on a real value is single precision in SQL Server: each operand and result is "
             "rounded to single precision (TiDB would compute in double precision).")
    operands = {key: _as_real(node.args[key], ctx) for key in ("this", "expression")}
    rounded = single_precision(type(node)(**operands))
    rounded.meta[_DEPTH] = depth
    return rounded


_MAX_REAL_DEPTH = 3
"""Nested real operations rewritten at most: the rounding names its operand three times."""
_DEPTH = "real_depth"


def _real_depth(operand: exp.Expr) -> int:
    while isinstance(operand, exp.Paren):
        operand = operand.this
    return operand.meta_get(_DEPTH, 0)


def _conversion_to_real(node: exp.Cast, ctx: Context) -> exp.Expr:
    """`CAST(x AS real)` rounds to single precision in SQL Server; TiDB's CAST ... AS FLOAT keeps the double."""
    if node.meta_get("converted") or not rules.is_real(node.to) or rules.is_real(ctx.types.of(node.this)) \
            or _exact_in_single(node.this) or rules.category(ctx.types.of(node.this)) not in (*rules.NUMERIC, None):
        return node
    ctx.note("QY64", "rewritten", "A value converted to real is rounded to single precision in SQL Server; TiDB's "
             "CAST ... AS FLOAT keeps the double value, so it is rounded explicitly.")
    rounded = single_precision(node.this.copy())
    rounded.meta[_DEPTH] = 1
    return rounded


def _single_precision_comparison(node: exp.Expr, ctx: Context) -> exp.Expr:
    left, right = ctx.types.of(node.this), ctx.types.of(node.expression)
    if rules.is_real(left) == rules.is_real(right):
        return node
    other_key = "expression" if rules.is_real(left) else "this"
    other = ctx.types.of(node.args[other_key])
    if rules.category(other) not in rules.NUMERIC or rules.rank(other) < rules.rank(rules.REAL):
        return node  # a float (double) operand: the real converts to it, on both
    ctx.note("QY64", "rewritten", "A number compared with a real value is converted to real first in SQL Server: it is "
             "rounded to single precision (TiDB would compare in double precision).")
    node.set(other_key, _as_real(node.args[other_key], ctx))
    return node


def _as_real(operand: exp.Expr, ctx: Context) -> exp.Expr:
    if rules.is_real(ctx.types.of(operand)) or _exact_in_single(operand):
        return operand.copy() if operand.parent is not None else operand
    return single_precision(operand.copy())


def _exact_in_single(operand: exp.Expr) -> bool:
    """An integer constant that single precision holds exactly (below 2^24)."""
    while isinstance(operand, (exp.Paren, exp.Neg)):
        operand = operand.this
    return isinstance(operand, exp.Literal) and operand.is_int and abs(int(operand.name)) < 2**24


def single_precision(value: exp.Expr) -> exp.Expr:
    """`value` rounded to single precision in double arithmetic (Veltkamp's split), typed FLOAT (SQL Server's real)."""
    rounded = fill("CAST((a * 536870913E0) - ((a * 536870913E0) - a) AS FLOAT)", a=value)
    rounded.meta["converted"] = True
    return remember_type(rounded, rules.REAL)
