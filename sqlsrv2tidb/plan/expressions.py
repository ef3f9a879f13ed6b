"""T-SQL expressions in DDL (defaults, computed columns, CHECKs) made into TiDB SQL.

The query translator owns expression translation (`translate/expressions.py`), so a default and a
query get the same treatment. This module calls it safely (one bad expression never stops the
plan) and adds what DDL needs on top: constant folding, because a column DEFAULT in TiDB may only
be a literal, CURRENT_TIMESTAMP on date-time columns, NEXT VALUE FOR, or one of a short list of
functions (https://docs.pingcap.com/tidb/stable/data-type-default-values), and SQL Server writes
constants such as `(CONVERT([bit],(0)))`.
"""

from __future__ import annotations

from ..model import Database, Table
from ..options import Options
from ..translate.naming import NameMap


def translate_ddl_expression(
    sql_expr: str, *, database: Database, table: Table | None, names: NameMap, options: Options
) -> tuple[str | None, tuple[str, ...]]:
    """TiDB text of a T-SQL expression (None when it cannot be kept), and the translator's remarks."""
    from ..translate.expressions import translate_expression

    try:
        text, notes = translate_expression(sql_expr, database=database, table=table, names=names, options=options)
    except Exception as exc:  # noqa: BLE001 - one bad expression must not stop the plan
        return None, (f"translation failed: {type(exc).__name__}: {exc}",)
    return (portable(text) if text else text), tuple(f"{n.code}: {n.message}" for n in notes)


def portable(tidb_sql: str) -> str:
    """The same expression in a form MySQL and MariaDB also accept, so one DDL file serves all three.

    MariaDB has no `->`/`->>` JSON operators; their function forms mean the same on TiDB
    (https://docs.pingcap.com/tidb/stable/json-functions).

    >>> portable("(`doc` ->> '$.a')")
    "(JSON_UNQUOTE(JSON_EXTRACT(`doc`, '$.a')))"
    """
    if "->" not in tidb_sql:
        return tidb_sql
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    def rewrite(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.JSONExtractScalar):
            inner = exp.Anonymous(this="JSON_EXTRACT", expressions=[node.this, node.expression])
            return exp.Anonymous(this="JSON_UNQUOTE", expressions=[inner])
        if isinstance(node, exp.JSONExtract):
            return exp.Anonymous(this="JSON_EXTRACT", expressions=[node.this, node.expression])
        return node

    try:
        return sqlglot.parse_one(tidb_sql, read="mysql").transform(rewrite).sql(dialect="mysql")
    except (SqlglotError, ValueError, RecursionError):
        return tidb_sql


def constant_value(tidb_sql: str) -> str | None:
    """The literal a constant TiDB expression folds to, or None when it is not constant.

    >>> constant_value("(((0) <> 0))"), constant_value("((1.5))"), constant_value("(N'abc')")
    ('0', '1.5', "'abc'")
    >>> constant_value("(`a` + 1)") is None, constant_value("(CURRENT_TIMESTAMP(3))") is None
    (True, True)
    """
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError
    from sqlglot.optimizer.simplify import simplify

    try:
        folded = simplify(sqlglot.parse_one(tidb_sql, read="mysql"))
    except (SqlglotError, ValueError, RecursionError):
        return None
    while isinstance(folded, exp.Paren):
        folded = folded.this
    if isinstance(folded, exp.Boolean):
        return "1" if folded.this else "0"
    if isinstance(folded, exp.Neg) and isinstance(folded.this, exp.Literal) and not folded.this.is_string:
        return "-" + folded.this.sql(dialect="mysql")
    if isinstance(folded, exp.National):  # every TiDB string column is utf8mb4 already
        return exp.Literal.string(folded.this).sql(dialect="mysql")
    if isinstance(folded, (exp.Literal, exp.Null, exp.HexString)):
        return folded.sql(dialect="mysql")
    return None
