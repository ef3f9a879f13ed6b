"""T-SQL expressions from the schema (defaults, computed columns, CHECKs, index filters) in TiDB SQL.

The DDL generator calls `translate_expression` for every expression the catalog holds as T-SQL
text (`(getdate())`, `([Qty]*[Price])`, `([Status] IN ('A','B'))`). The expression goes through
the same rewrites as a query, typed against the table it belongs to, so `[First] + ' ' + [Last]`
becomes CONCAT and `LEN(...)` keeps its meaning. It returns None when the expression cannot be
kept (a user-defined function, a subquery TiDB rejects there); the caller decides what DDL allows.
"""

from __future__ import annotations

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, ParseError, TokenError

from ..model import Database, Table
from ..model.translation import Note
from ..options import Options
from .context import Context
from .dialect import SqlServer
from .emit import generate
from .expression_types import Types
from .naming import NameMap
from .queries import deep_recursion
from .statements import parse_error
from .transforms import translate_tree


def translate_expression(
    sql_expr: str, *, database: Database, table: Table | None, names: NameMap, options: Options
) -> tuple[str | None, tuple[Note, ...]]:
    """TiDB text of one T-SQL expression and the notes on it; None when it cannot be kept."""
    with deep_recursion():
        return _translate(sql_expr, database=database, table=table, names=names, options=options)


def _translate(
    sql_expr: str, *, database: Database, table: Table | None, names: NameMap, options: Options
) -> tuple[str | None, tuple[Note, ...]]:
    ctx = Context(database=database, names=names, options=options, types=Types(database, default_table=table))
    try:
        parsed = sqlglot.parse_one(sql_expr, read=SqlServer, error_level=ErrorLevel.RAISE, into=exp.Condition)
    except (ParseError, TokenError, ValueError) as exc:
        ctx.note("QY01", "unsupported", f"Expression that could not be read: {parse_error(exc)}")
        return None, tuple(ctx.notes)
    # Wrapped in SELECT so the query rewrites and the generator see it in a statement; the
    # table's own columns resolve through `default_table`.
    wrapper = exp.Select(expressions=[parsed])
    try:
        trees = translate_tree(wrapper, ctx)
        statement = trees[0] if len(trees) == 1 and isinstance(trees[0], exp.Select) else None
        if statement is None or ctx.unsupported:
            return None, tuple(ctx.notes)
        sql, _ = generate([statement.selects[0]], ctx)
    except RecursionError:
        ctx.note("QY00", "unsupported", "The expression is nested too deeply to translate.")
        return None, tuple(ctx.notes)
    if sql is None or ctx.unsupported:
        return None, tuple(ctx.notes)
    return sql, tuple(ctx.notes)
