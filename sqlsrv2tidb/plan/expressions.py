"""T-SQL expressions in DDL (defaults, computed columns, CHECKs, filters) made into TiDB SQL.

The query translator owns expression translation (`translate/expressions.py`); the DDL generator
calls it through `translate_ddl_expression` and then checks what DDL allows on top: a column
DEFAULT in TiDB may only be a literal, CURRENT_TIMESTAMP for date-time columns, NEXT VALUE FOR, or
one of a short list of functions (https://docs.pingcap.com/tidb/stable/data-type-default-values).

Until the translator is installed, a narrow fallback handles literals, column references,
arithmetic and comparisons on them, and a handful of functions (GETDATE, SYSUTCDATETIME, NEWID,
ISNULL, ...); anything else is reported as untranslatable, so the caller leaves it out of the DDL
with a finding instead of emitting invalid SQL.
"""

from __future__ import annotations

from collections.abc import Callable

from ..model import Database, Table
from ..model.translation import Note
from ..options import Options
from ..translate.naming import NameMap

Translator = Callable[..., tuple[str | None, tuple[Note, ...]]]


def _translator() -> Translator | None:
    try:
        from ..translate.expressions import translate_expression
    except ImportError:
        return None
    return translate_expression


def using_fallback() -> bool:
    return _translator() is None


def translate_ddl_expression(
    sql_expr: str, *, database: Database, table: Table | None, names: NameMap, options: Options
) -> tuple[str | None, tuple[Note, ...]]:
    """TiDB text of a T-SQL expression, or None with notes when it cannot be kept."""
    translate = _translator()
    if translate is not None:
        try:
            return translate(sql_expr, database=database, table=table, names=names, options=options)
        except Exception as exc:  # noqa: BLE001 - one bad expression must not stop the plan
            return None, (Note("QY00", f"translation failed: {type(exc).__name__}: {exc}"),)
    return fallback_expression(sql_expr, table), ()


# The fallback ---------------------------------------------------------------------------------

_FUNCTIONS = {
    "getdate": "CURRENT_TIMESTAMP",
    "sysdatetime": "CURRENT_TIMESTAMP",
    "current_timestamp": "CURRENT_TIMESTAMP",
    "getutcdate": "UTC_TIMESTAMP",
    "sysutcdatetime": "UTC_TIMESTAMP",
    "newid": "UUID",
    "uuid": "UUID",
    "newsequentialid": "UUID",
    "upper": "UPPER",
    "lower": "LOWER",
    "abs": "ABS",
    "isnull": "IFNULL",
    "coalesce": "COALESCE",
}


def fallback_expression(sql_expr: str, table: Table | None) -> str | None:
    """Translate the small safe subset of T-SQL; None for everything else.

    >>> fallback_expression("((0))", None)
    '(0)'
    >>> fallback_expression("([rating]>=(1) AND [rating]<=(5))", None)
    '(`rating` >= (1) AND `rating` <= (5))'
    >>> fallback_expression("(sysutcdatetime())", None)
    '(UTC_TIMESTAMP())'
    >>> fallback_expression("([a]+[b])", None) is None   # + may be string concatenation
    True
    """
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        tree = sqlglot.parse_one(sql_expr, read="tsql")
    except (SqlglotError, ValueError, RecursionError):
        return None
    allowed = (
        exp.Paren, exp.Literal, exp.Null, exp.Boolean, exp.Neg, exp.Column, exp.Identifier,
        exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.And, exp.Or, exp.Not, exp.Is,
        exp.In, exp.Between, exp.Sub, exp.Mul, exp.Div, exp.Tuple,
        exp.CurrentTimestamp, exp.Anonymous, exp.Coalesce, exp.Upper, exp.Lower, exp.Abs,
        exp.National, exp.HexString, exp.DataType,
    )
    for node in tree.walk():
        if isinstance(node, exp.Column) and node.table:
            return None
        if isinstance(node, (exp.Cast, exp.Convert)):
            if not isinstance(_unparen(node.this if isinstance(node, exp.Cast) else node.expression), exp.Literal):
                return None  # only CONVERT(bit, 0)-style constants
        elif isinstance(node, (exp.Anonymous, exp.Coalesce, exp.Upper, exp.Lower, exp.Abs, exp.Uuid)):
            if _function_name(node) not in _FUNCTIONS:
                return None
        elif not isinstance(node, allowed):
            return None

    def rewrite(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Cast):
            return _unparen(node.this).copy()
        if isinstance(node, exp.Convert):
            return _unparen(node.expression).copy()
        if isinstance(node, exp.National):
            return exp.Literal.string(node.this)
        if isinstance(node, exp.Column):
            return exp.Column(this=exp.to_identifier(node.name, quoted=True))
        if isinstance(node, exp.CurrentTimestamp):
            return exp.Anonymous(this="CURRENT_TIMESTAMP", expressions=[])
        if isinstance(node, (exp.Anonymous, exp.Coalesce, exp.Upper, exp.Lower, exp.Abs, exp.Uuid)):
            name = _function_name(node)
            args = [a for a in node.args.values() if isinstance(a, exp.Expression)]
            args += [e for e in node.expressions if e not in args] if hasattr(node, "expressions") else []
            return exp.Anonymous(this=_FUNCTIONS[name], expressions=args)
        return node

    if table is not None:
        known = {c.name.casefold() for c in table.columns}
        if any(c.name.casefold() not in known for c in tree.find_all(exp.Column)):
            return None
    try:
        return tree.transform(rewrite).sql(dialect="mysql")
    except SqlglotError:
        return None


def _unparen(node):
    from sqlglot import exp

    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _function_name(node) -> str:
    from sqlglot import exp

    return (node.name if isinstance(node, exp.Anonymous) else node.sql_name()).casefold()
