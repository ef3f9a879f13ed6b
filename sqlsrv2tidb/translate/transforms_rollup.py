"""The grand total of GROUP BY ROLLUP over no rows, which SQL Server returns and TiDB's WITH ROLLUP does not.

ROLLUP's last grouping set is `()`, the whole input, and a grouping set `()` behaves as an aggregate
without GROUP BY: over no rows SQL Server returns one row (NULL for the grouping columns, 0 for
COUNT, NULL for SUM). TiDB's `WITH ROLLUP` returns no rows at all when the input is empty. The query
gets a second branch that is exactly that row when there are no rows: the same select list with the
grouping columns as NULL and GROUPING() as 1, over the same FROM and WHERE, without GROUP BY, kept
only by `HAVING COUNT(*) = 0`. MySQL returns the row itself (a MySQL target is left as it is).
https://learn.microsoft.com/sql/t-sql/queries/select-group-by-transact-sql#group-by-rollup
https://docs.pingcap.com/tidb/stable/group-by-modifier
"""

from __future__ import annotations

from sqlglot import exp

from .context import Context

_DOCS = "https://learn.microsoft.com/sql/t-sql/queries/select-group-by-transact-sql#group-by-rollup"
_GROUPING = tuple(getattr(exp, name) for name in ("Grouping", "GroupingId") if hasattr(exp, name))


def grand_total_over_no_rows(select: exp.Select, keys: list[exp.Expr], ctx: Context) -> exp.Expr:
    """`SELECT a, COUNT(*) FROM t GROUP BY a WITH ROLLUP ORDER BY a` ->
    `SELECT a, COUNT(*) FROM t GROUP BY a WITH ROLLUP UNION ALL SELECT NULL, COUNT(*) FROM t HAVING COUNT(*) = 0
    ORDER BY 1`; `keys` are the rolled-up expressions. The CTEs, ORDER BY, TOP and OFFSET move to the union. A
    select the union cannot hold (DISTINCT, an ORDER BY key that is no output column, window functions) is
    noted for review instead. MySQL's WITH ROLLUP returns that row over no rows itself, as SQL Server does, so a
    MySQL target needs no second branch (it would give the row twice)."""
    if ctx.options.mysql:
        return select
    why = _cannot(select)
    positions = _order_positions(select) if why is None else None
    if why is None and positions is None:
        why = "its ORDER BY names what the select list does not return"
    if why is not None:
        ctx.note("QY72", "review", f"GROUP BY ROLLUP over no rows returns the grand total row in SQL Server and no row on "
                 f"TiDB; the query is not rewritten for it ({why}) ({_DOCS}).")
        return select
    order = select.args.get("order")
    moved = {key: select.args.get(key) for key in ("with_", "limit", "offset")}
    grouped = select.copy()
    for key in ("order", *moved):
        grouped.set(key, None)
    total = grouped.copy()
    total.set("group", None)
    total.set("expressions", [_as_grand_total(e.copy(), keys) for e in grouped.expressions])
    empty = exp.EQ(this=exp.Count(this=exp.Star()), expression=exp.Literal.number(0))
    having = total.args.get("having")
    total.set("having", exp.Having(this=exp.and_(_as_grand_total(having.this.copy(), keys), empty) if having else empty))
    union = exp.Union(this=grouped, expression=total, distinct=False)
    if order is not None:
        ordered = [exp.Ordered(this=exp.Literal.number(p + 1), desc=o.args.get("desc"), nulls_first=o.args.get("nulls_first"))
                   for o, p in zip(order.expressions, positions, strict=True)]
        union.set("order", exp.Order(expressions=ordered))
    for key, value in moved.items():  # the CTEs, TOP and OFFSET apply to both branches
        if value is not None:
            union.set(key, value)
    ctx.note("QY72", "rewritten", "GROUP BY ROLLUP over no rows returns one grand total row in SQL Server and none on TiDB: "
             "a UNION ALL branch gives that row when there are no rows.")
    return union


def _cannot(select: exp.Select) -> str | None:
    if select.args.get("distinct"):
        return "it is SELECT DISTINCT"
    if select.args.get("into") or select.args.get("locks"):
        return "it writes a table"
    if any(select.find_all(exp.Window)):
        return "it has window functions"
    return None


def _order_positions(select: exp.Select) -> list[int] | None:
    """The output column (0-based) each ORDER BY key names, or None when one names none."""
    order = select.args.get("order")
    if order is None:
        return []
    outputs = select.expressions
    texts = [(e.this if isinstance(e, exp.Alias) else e).sql() for e in outputs]
    found = []
    for ordered in order.expressions:
        key = ordered.this
        if isinstance(key, exp.Literal) and key.is_int and 1 <= int(key.name) <= len(outputs):
            found.append(int(key.name) - 1)
            continue
        if isinstance(key, exp.Column) and not key.table:
            named = [i for i, e in enumerate(outputs) if e.alias_or_name.casefold() == key.name.casefold()]
            if named:
                found.append(named[0])
                continue
        text = key.sql()
        if text in texts:
            found.append(texts.index(text))
            continue
        return None
    return found


def _as_grand_total(expression: exp.Expr, keys: list[exp.Expr]) -> exp.Expr:
    """The expression as the grand total row computes it: each rolled-up expression (outside aggregates) NULL,
    GROUPING(x) 1, GROUPING_ID(x, y) all ones."""
    texts = {k.sql() for k in keys}
    columns = [k for k in keys if isinstance(k, exp.Column)]

    def replace(node: exp.Expr) -> exp.Expr:
        if isinstance(node, exp.Identifier):
            return node  # a name (the output's alias `AS pub_id`), never the rolled-up value
        name = node.name.upper() if isinstance(node, exp.Anonymous) else ""
        if name in ("GROUPING", "GROUPING_ID") or isinstance(node, _GROUPING):
            arguments = len(node.expressions) or 1
            return exp.Literal.number((1 << arguments) - 1 if name == "GROUPING_ID" or arguments > 1 else 1)
        if isinstance(node, exp.AggFunc):
            return node
        if node.sql() in texts or (isinstance(node, exp.Column) and any(_same_column(node, k) for k in columns)):
            return exp.Null()
        return node

    return _transform_outside_aggregates(expression, replace)


def _transform_outside_aggregates(expression: exp.Expr, replace) -> exp.Expr:
    new = replace(expression)
    if new is not expression or isinstance(expression, exp.AggFunc):
        return new
    for child in list(expression.iter_expressions()):
        replaced = _transform_outside_aggregates(child, replace)
        if replaced is not child:
            child.replace(replaced)
    return expression


def _same_column(a: exp.Column, b: exp.Column) -> bool:
    """Whether two references name one column (a qualifier on one side only is not a difference)."""
    if a.name.casefold() != b.name.casefold():
        return False
    return not a.table or not b.table or a.table.casefold() == b.table.casefold()
