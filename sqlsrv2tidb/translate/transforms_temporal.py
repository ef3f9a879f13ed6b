"""FOR SYSTEM_TIME on a system-versioned table, answered from the table and its history table.

SQL Server keeps a system-versioned table's old rows in its history table, each with the period it was
current (`ValidFrom` <= t < `ValidTo`), and `FOR SYSTEM_TIME` reads both as one. TiDB has no temporal
tables (its AS OF TIMESTAMP reads a snapshot within the GC life time, not history), but the migrated
schema keeps the history table, so the clause becomes the derived table SQL Server means:

    T FOR SYSTEM_TIME AS OF @t  ->  (SELECT cols FROM T WHERE ValidFrom <= @t AND ValidTo > @t
                                     UNION ALL SELECT cols FROM T_History WHERE ...) AS T

with FROM a TO b (ValidFrom < b AND ValidTo > a), BETWEEN a AND b (ValidFrom <= b AND ValidTo > a),
CONTAINED IN (a, b) (ValidFrom >= a AND ValidTo <= b) and ALL (every row of both). Nothing on TiDB
writes the history: the procedure runner maintains it for the writes it sends, and after the move the
application must, which the note says.
https://learn.microsoft.com/sql/relational-databases/tables/querying-data-in-a-system-versioned-temporal-table
"""

from __future__ import annotations

from sqlglot import exp

from .context import Context

_DOCS = "https://learn.microsoft.com/sql/relational-databases/tables/querying-data-in-a-system-versioned-temporal-table"


def _condition(kind: str, start: exp.Expr, end: exp.Expr, value: exp.Expr | None) -> exp.Expr | None:
    if kind == "ALL":
        return None
    if kind == "AS OF" and value is not None:
        return exp.and_(exp.LTE(this=start, expression=value.copy()), exp.GT(this=end, expression=value.copy()))
    if not isinstance(value, exp.Tuple) or len(value.expressions) != 2:
        raise ValueError(kind)
    low, high = value.expressions
    if kind == "FROM":
        return exp.and_(exp.LT(this=start, expression=high.copy()), exp.GT(this=end, expression=low.copy()))
    if kind == "BETWEEN":
        return exp.and_(exp.LTE(this=start, expression=high.copy()), exp.GT(this=end, expression=low.copy()))
    if kind == "CONTAINED IN":
        return exp.and_(exp.GTE(this=start, expression=low.copy()), exp.LTE(this=end, expression=high.copy()))
    raise ValueError(kind)


def system_time(node: exp.Table, ctx: Context) -> exp.Expr | None:
    """The derived table of a `FOR SYSTEM_TIME` read (module docstring), or None (and a note) when the table is no
    system-versioned table of the schema."""
    version = node.args.get("version")
    if not isinstance(version, exp.Version):
        return None
    table = ctx.database.table(node.db or None, node.name)
    temporal = table.temporal if table is not None else None
    if table is None or temporal is None or not temporal.history_table or not temporal.period_start or not temporal.period_end:
        ctx.note("QY63", "unsupported", f"FOR SYSTEM_TIME on {node.name}: the schema holds no history table for it "
                                        f"(SYSTEM_VERSIONING with HISTORY_TABLE), and TiDB has no temporal tables ({_DOCS}).")
        return None
    kind = str(version.args.get("kind") or "").upper()
    columns = [c.name for c in table.columns]
    parts = []
    for schema, name in ((table.schema, table.name), (temporal.history_schema or table.schema, temporal.history_table)):
        select = exp.Select(expressions=[exp.column(c, quoted=True) for c in columns])
        select.set("from_", exp.From(this=exp.Table(this=exp.to_identifier(name), db=exp.to_identifier(schema))))
        try:
            where = _condition(kind, exp.column(temporal.period_start, quoted=True), exp.column(temporal.period_end, quoted=True),
                               version.expression)
        except ValueError:
            ctx.note("QY63", "unsupported", f"FOR SYSTEM_TIME {kind} on {node.name}: the period could not be read ({_DOCS}).")
            return None
        if where is not None:
            select.set("where", exp.Where(this=where))
        parts.append(select)
    union = exp.union(parts[0], parts[1], distinct=False)
    alias = node.args.get("alias") or exp.TableAlias(this=exp.to_identifier(node.name))
    ctx.note("QY63", "review", f"FOR SYSTEM_TIME {kind} on {node.name} reads it and its history table "
                               f"{temporal.history_schema or table.schema}.{temporal.history_table}: nothing on TiDB "
                               "writes that history (the procedure runner keeps it for the writes it sends; after the "
                               f"move the application must) ({_DOCS}).")
    return exp.Subquery(this=union, alias=alias.copy())
