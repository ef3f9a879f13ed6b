"""SQL Server's rules for the type of an expression's result: precedence, precision and scale, aggregates.

The translator needs SQL Server's result type of every expression, with its precision and scale,
because TiDB computes many of the same expressions to another type and so another value: a decimal
quotient keeps the dividend's scale plus 4 digits there (rounded) where SQL Server keeps the scale its
formula gives (truncated), money times money keeps 8 places there and 4 in SQL Server, AVG of money is
money in SQL Server, and `real` arithmetic is single precision in SQL Server only. These functions are
SQL Server's documented rules over sqlglot `DataType`s; `expression_types.Types` applies them to a tree.

- Data type precedence: the operand of lower precedence is converted to the other's type.
  https://learn.microsoft.com/sql/t-sql/data-types/data-type-precedence-transact-sql
- Precision and scale of `+ - * / %` and of UNION/CASE over decimals, with the rules that keep a
  result within 38 digits.
  https://learn.microsoft.com/sql/t-sql/data-types/precision-scale-and-length-transact-sql
- An integer constant in decimal arithmetic is numeric with just enough digits (`1` is numeric(1, 0)),
  unless the statement was auto-parameterized; a constant with a point is numeric(p, s) of its digits.
  https://learn.microsoft.com/sql/t-sql/data-types/precision-scale-and-length-transact-sql#remarks
- SUM, AVG and ROUND return types.
  https://learn.microsoft.com/sql/t-sql/functions/sum-transact-sql#return-types
  https://learn.microsoft.com/sql/t-sql/functions/avg-transact-sql#return-types
  https://learn.microsoft.com/sql/t-sql/functions/round-transact-sql#return-types

In the reader's types, `real` is `FLOAT` (single precision) and `float` is `DOUBLE`.
"""

from __future__ import annotations

import functools
from typing import Literal

from sqlglot import exp

Category = Literal["string", "integer", "decimal", "float", "bit", "datetime", "date", "time", "binary", "uuid", "other"]
Shape = tuple[int, int]
"""(precision, scale) of an exact numeric value."""

D = exp.DType
_CATEGORIES: dict[exp.DType, Category] = {
    **dict.fromkeys((D.CHAR, D.NCHAR, D.VARCHAR, D.NVARCHAR, D.TEXT), "string"),
    **dict.fromkeys((D.TINYINT, D.UTINYINT, D.SMALLINT, D.INT, D.BIGINT), "integer"),
    **dict.fromkeys((D.DECIMAL, D.MONEY, D.SMALLMONEY), "decimal"),
    **dict.fromkeys((D.FLOAT, D.DOUBLE), "float"),
    D.BIT: "bit",
    **dict.fromkeys((D.DATETIME, D.DATETIME2, D.SMALLDATETIME, D.TIMESTAMPTZ), "datetime"),
    D.DATE: "date",
    D.TIME: "time",
    **dict.fromkeys((D.BINARY, D.VARBINARY, D.IMAGE, D.ROWVERSION), "binary"),
    D.UUID: "uuid",
}

NUMERIC: frozenset[Category] = frozenset({"integer", "decimal", "float", "bit"})
TEMPORAL: frozenset[Category] = frozenset({"datetime", "date", "time"})

_ORDER: tuple[exp.DType, ...] = (
    D.TIMESTAMPTZ, D.DATETIME2, D.DATETIME, D.SMALLDATETIME, D.DATE, D.TIME, D.DOUBLE, D.FLOAT, D.DECIMAL, D.MONEY,
    D.SMALLMONEY, D.BIGINT, D.INT, D.SMALLINT, D.UTINYINT, D.TINYINT, D.BIT, D.TEXT, D.IMAGE, D.ROWVERSION, D.UUID,
    D.NVARCHAR, D.NCHAR, D.VARCHAR, D.CHAR, D.VARBINARY, D.BINARY,
)
_RANK: dict[exp.DType, int] = {kind: i for i, kind in enumerate(_ORDER)}
"""SQL Server's data type precedence, highest first (sql_variant, xml and user types above all: not here)."""

EXACT_SHAPES: dict[exp.DType, Shape] = {
    D.BIT: (1, 0), D.UTINYINT: (3, 0), D.TINYINT: (3, 0), D.SMALLINT: (5, 0), D.INT: (10, 0), D.BIGINT: (19, 0),
    D.MONEY: (19, 4), D.SMALLMONEY: (10, 4),
}
"""The decimal an integer or money operand is converted to in decimal arithmetic."""
MONEY = frozenset({D.MONEY, D.SMALLMONEY})
INTEGERS = frozenset({D.BIT, D.UTINYINT, D.TINYINT, D.SMALLINT, D.INT, D.BIGINT})
MAX_PRECISION = 38


@functools.lru_cache(maxsize=64)
def build(text: str) -> exp.DataType:
    """A type by its name as the T-SQL reader reads it; shared and never changed."""
    return exp.DataType.build(text)


STRING = build("nvarchar(4000)")
INTEGER = build("int")
BIGINT = build("bigint")
DOUBLE = build("double")
REAL = build("float")
"""SQL Server's `real` (float(24)): single precision, as the reader types it."""
DATETIME = build("datetime")
DATE = build("date")
MONEY_TYPE = exp.DataType(this=D.MONEY)
UUID = exp.DataType(this=D.UUID)


@functools.lru_cache(maxsize=2048)
def decimal(precision: int, scale: int) -> exp.DataType:
    """decimal(p, s); shared and never changed."""
    return exp.DataType.build(f"decimal({precision}, {scale})")


def category(datatype: exp.DataType | None) -> Category | None:
    """The broad kind of a type; None when the type is unknown."""
    if datatype is None:
        return None
    return _CATEGORIES.get(datatype.this, "other") if isinstance(datatype.this, exp.DType) else "other"


def rank(datatype: exp.DataType) -> int:
    return _RANK.get(datatype.this, len(_ORDER)) if isinstance(datatype.this, exp.DType) else len(_ORDER)


def is_real(datatype: exp.DataType | None) -> bool:
    """SQL Server's `real`: computed in single precision."""
    return datatype is not None and datatype.this == D.FLOAT


def shape(datatype: exp.DataType | None) -> Shape | None:
    """(precision, scale) of an exact numeric type (integers and money as the decimal they convert to)."""
    if datatype is None:
        return None
    kind = datatype.this
    if kind in EXACT_SHAPES:
        return EXACT_SHAPES[kind]
    if kind != D.DECIMAL:
        return None
    params = [int(p.name) for p in datatype.expressions if p.name.isdigit()]
    if not params:
        return 18, 0
    return params[0], params[1] if len(params) > 1 else 0


def literal_shape(text: str) -> Shape | None:
    """A numeric constant's own decimal: `250` is numeric(3, 0), `0.50` numeric(2, 2), `12.5` numeric(3, 1);
    None for a float constant (`1e3`)."""
    text = text.lstrip("+-")
    if "e" in text.lower():
        return None
    whole, _, fraction = text.partition(".")
    digits = len(whole.lstrip("0")) + len(fraction)
    return max(digits, len(fraction), 1), len(fraction)


def literal_type(text: str) -> exp.DataType:
    """A numeric constant's type: int when it fits, else numeric of its digits; float with an exponent."""
    if "e" in text.lower():
        return DOUBLE
    if "." not in text:
        digits = text.lstrip("+-")
        if int(digits or 0) <= 2**31 - 1:
            return INTEGER
    found = literal_shape(text)
    return decimal(*found) if found is not None else DOUBLE


def dominant(types: list[exp.DataType | None]) -> exp.DataType | None:
    """The type of an expression over mixed types from the ones known (None when none is): see `combine`."""
    known = [t for t in types if t is not None]
    return combine(known) if known else None


def combine(types: list[exp.DataType]) -> exp.DataType:
    """The type SQL Server gives a column of UNION, INTERSECT, EXCEPT or a VALUES list, and CASE, IIF,
    COALESCE over results of these types: the one of highest precedence, and of that kind

    - a decimal with enough digits for the largest integral part and the largest scale (an integer or
      money branch counted as the decimal it converts to), within 38 digits;
    - a string or binary as long as the longest (MAX when one is), nvarchar over varchar;
    - datetime2, time and datetimeoffset with the most fractional digits.
    https://learn.microsoft.com/sql/t-sql/data-types/precision-scale-and-length-transact-sql
    https://learn.microsoft.com/sql/t-sql/language-elements/set-operators-union-transact-sql
    """
    best = min(types, key=rank)
    if len(types) == 1:
        return best
    kind = best.this
    if kind == D.DECIMAL:
        shapes = [shape(t) for t in types if t.this == D.DECIMAL or t.this in EXACT_SHAPES]
        found = [s for s in shapes if s is not None]
        if len(found) > 1:
            scale = max(s for _, s in found)
            integral = max(p - s for p, s in found)
            return decimal(*_fit_sum(scale + integral, scale, integral))
        return best
    if kind in _SIZED:
        family = _SIZED[kind]
        lengths = [length(t) for t in types if _SIZED.get(t.this) == family]
        if None in lengths or not lengths:
            return best
        longest = max(lengths)  # type: ignore[type-var]
        return sized(kind, longest)
    if kind in _FRACTIONAL:
        digits = [fractional_digits(t) for t in types if t.this == kind]
        return exp.DataType(this=kind, expressions=[exp.DataTypeParam(this=exp.Literal.number(max(digits)))])
    return best


_SIZED: dict[exp.DType, str] = {
    **dict.fromkeys((D.CHAR, D.NCHAR, D.VARCHAR, D.NVARCHAR), "string"),
    **dict.fromkeys((D.BINARY, D.VARBINARY), "binary"),
}
_FRACTIONAL = frozenset({D.DATETIME2, D.TIME, D.TIMESTAMPTZ})
MAX_LENGTH = 2**31 - 1
"""The length `length` gives MAX: longer than any declared length."""


def length(datatype: exp.DataType) -> int | None:
    """The declared length of a string or binary type (MAX as `MAX_LENGTH`, 1 when none is given, as a
    declaration without a length means); None for other types."""
    if datatype.this not in _SIZED:
        return None
    if not datatype.expressions:
        return 1
    text = datatype.expressions[0].name
    return int(text) if text.isdigit() else MAX_LENGTH


def sized(kind: exp.DType, size: int) -> exp.DataType:
    """A string or binary type of `size` characters or bytes (MAX beyond SQL Server's longest declared length)."""
    limit = 4000 if kind in (D.NCHAR, D.NVARCHAR) else 8000
    param = "MAX" if size > limit else str(max(size, 1))
    if param == "MAX" and kind in (D.CHAR, D.NCHAR, D.BINARY):
        kind = {D.CHAR: D.VARCHAR, D.NCHAR: D.NVARCHAR, D.BINARY: D.VARBINARY}[kind]
    return _sized(kind, param)


@functools.lru_cache(maxsize=1024)
def _sized(kind: exp.DType, param: str) -> exp.DataType:
    value = exp.var("MAX") if param == "MAX" else exp.Literal.number(int(param))
    return exp.DataType(this=kind, expressions=[exp.DataTypeParam(this=value)])


def fractional_digits(datatype: exp.DataType) -> int:
    """The fractional-second digits of datetime2, time or datetimeoffset (7 when none are given)."""
    if datatype.expressions and datatype.expressions[0].name.isdigit():
        return int(datatype.expressions[0].name)
    return 7


def string_literal(text: str, national: bool) -> exp.DataType:
    """`'abc'` is varchar(3) and `N'abc'` nvarchar(3) (a longer one varchar(max)); an empty one has length 1.
    https://learn.microsoft.com/sql/t-sql/data-types/constants-transact-sql#character-string-constants"""
    return sized(D.NVARCHAR if national else D.VARCHAR, len(text))


def concatenation(left: exp.DataType, right: exp.DataType) -> exp.DataType:
    """`a + b` on two strings: as long as both together, nvarchar when either is (MAX past 8000 bytes).
    https://learn.microsoft.com/sql/t-sql/language-elements/string-concatenation-transact-sql"""
    kind = D.NVARCHAR if D.NVARCHAR in (left.this, right.this) or D.NCHAR in (left.this, right.this) else D.VARCHAR
    a, b = length(left), length(right)
    if a is None or b is None:
        return STRING
    return sized(kind, a + b)


# Arithmetic ------------------------------------------------------------------------------------

Operator = Literal["+", "-", "*", "/", "%"]


def arithmetic(operator: Operator, left: exp.DataType, right: exp.DataType,
               left_shape: Shape | None = None, right_shape: Shape | None = None) -> exp.DataType | None:
    """The type of `left <operator> right` for two numeric operands (None when either is not numeric).

    `left_shape`/`right_shape` override an operand's decimal (an integer constant's own digits)."""
    if category(left) not in NUMERIC or category(right) not in NUMERIC:
        return None
    higher = left if rank(left) <= rank(right) else right
    kind = higher.this
    if kind in (D.DOUBLE, D.FLOAT):
        return higher
    if kind in MONEY:
        return higher  # money, or smallmoney when no operand is money
    if kind in INTEGERS:
        return INTEGER if kind == D.BIT else higher
    if kind != D.DECIMAL:
        return None
    a, b = left_shape or shape(left), right_shape or shape(right)
    if a is None or b is None:
        return None
    return decimal(*decimal_result(operator, a, b))


def decimal_result(operator: Operator, left: Shape, right: Shape) -> Shape:
    """SQL Server's (precision, scale) of a decimal operation (the table of "Precision, scale, and length")."""
    (p1, s1), (p2, s2) = left, right
    if operator in ("+", "-"):
        scale = max(s1, s2)
        integral = max(p1 - s1, p2 - s2)
        return _fit_sum(scale + integral + 1, scale, integral)
    if operator == "*":
        return _fit_product(p1 + p2 + 1, s1 + s2)
    if operator == "/":
        scale = max(6, s1 + p2 + 1)
        return _fit_product(p1 - s1 + s2 + scale, scale)
    scale = max(s1, s2)  # %
    return min(p1 - s1, p2 - s2) + scale, scale


def _fit_sum(precision: int, scale: int, integral: int) -> Shape:
    """Addition, subtraction and UNION keep the integral part and give up scale past 38 digits."""
    if precision <= MAX_PRECISION:
        return precision, scale
    return MAX_PRECISION, max(min(precision, MAX_PRECISION) - integral, 0)


def _fit_product(precision: int, scale: int) -> Shape:
    """Multiplication and division past 38 digits: the scale is cut to what the integral part leaves, but
    not below 6 when the integral part needs 32 digits or more (then decimal(38, 6))."""
    if precision <= MAX_PRECISION:
        return precision, scale
    integral = precision - scale
    if integral < 32:
        return MAX_PRECISION, min(scale, MAX_PRECISION - integral)
    return MAX_PRECISION, min(scale, 6)


def product_is_cut(left: Shape, right: Shape) -> bool:
    """Whether SQL Server keeps fewer decimal places in `left * right` than the exact product has."""
    return decimal_result("*", left, right)[1] < left[1] + right[1]


# Aggregates and functions ----------------------------------------------------------------------

def sum_type(argument: exp.DataType | None) -> exp.DataType | None:
    """SUM: int for the small integers, bigint, decimal(38, s), money, float."""
    return _aggregate(argument, average=False)


def average_type(argument: exp.DataType | None) -> exp.DataType | None:
    """AVG: int for the small integers, bigint, decimal(38, max(s, 6)), money, float."""
    return _aggregate(argument, average=True)


def _aggregate(argument: exp.DataType | None, average: bool) -> exp.DataType | None:
    if argument is None:
        return None
    kind = argument.this
    if kind in (D.UTINYINT, D.TINYINT, D.SMALLINT, D.INT, D.BIT):
        return INTEGER
    if kind == D.BIGINT:
        return BIGINT
    if kind in MONEY:
        return MONEY_TYPE
    if kind in (D.FLOAT, D.DOUBLE):
        return DOUBLE
    found = shape(argument)
    if found is None:
        return None
    return decimal(MAX_PRECISION, max(found[1], 6) if average else found[1])


def round_type(argument: exp.DataType | None) -> exp.DataType | None:
    """ROUND: int for the small integers, bigint, decimal(p, s) as it was, money, float."""
    if argument is None:
        return None
    if argument.this in (D.UTINYINT, D.TINYINT, D.SMALLINT, D.INT, D.BIT):
        return INTEGER
    if argument.this in MONEY:
        return MONEY_TYPE
    if argument.this == D.FLOAT:
        return DOUBLE
    return argument


def power_type(argument: exp.DataType | None) -> exp.DataType | None:
    """POWER has its first argument's type: int for the integers (POWER(2, 0.5) is 1), decimal(38, s),
    money, and float for float, real and strings.
    https://learn.microsoft.com/sql/t-sql/functions/power-transact-sql#return-types"""
    if argument is None:
        return None
    if argument.this in (D.UTINYINT, D.TINYINT, D.SMALLINT, D.INT):
        return INTEGER
    if argument.this in (D.BIGINT, D.DOUBLE):
        return argument
    if argument.this in MONEY:
        return MONEY_TYPE
    found = shape(argument) if argument.this == D.DECIMAL else None
    return decimal(MAX_PRECISION, found[1]) if found is not None else DOUBLE
