"""Shapes of a SELECT that SQL Server runs and TiDB's grammar or checks refuse, with the same meaning kept.

- a bare `*` after other select items (`SELECT Id AS [Post Link], * FROM Posts`): TiDB error 8122;
- the ORDER BY of a UNION, INTERSECT or EXCEPT naming a column with its table (`ORDER BY b.Id`) or
  an expression of the select list (`ORDER BY COALESCE(ParentId, Id)`): TiDB and MySQL accept only
  the result's column names or positions there (error 1250 / 1054);
- `TOP n` inside `IN (...)`, `ALL (...)`, `ANY (...)`: MySQL and MariaDB refuse LIMIT there (error
  1235); TiDB accepts it, and a derived table around the subquery reads the same on all three.
https://docs.pingcap.com/tidb/stable/sql-statement-select
https://dev.mysql.com/doc/refman/8.0/en/union.html
https://dev.mysql.com/doc/refman/8.0/en/subquery-restrictions.html
"""

from __future__ import annotations

from sqlglot import exp

from .context import Context
from .dialect import TiDB


def star_after_columns(select: exp.Select, ctx: Context) -> exp.Select:
    """`SELECT Id AS x, * FROM Posts p JOIN Users u ...` -> `SELECT Id AS x, p.*, u.* FROM Posts p JOIN Users u ...`.

    TiDB takes a bare `*` only as the first select item; each source's `t.*` in FROM order returns
    the same columns in the same order anywhere in the list.
    """
    items = select.expressions
    stars = [i for i, item in enumerate(items) if isinstance(item, exp.Star) and i > 0]
    if not stars:
        return select
    sources = source_names(select)
    if not sources:
        ctx.note("QY55", "unsupported", "A bare `*` after other select items has no source to name: TiDB accepts `*` only first.")
        return select
    expanded: list[exp.Expr] = []
    for i, item in enumerate(items):
        if i in stars:
            expanded += [exp.Column(this=exp.Star(), table=exp.to_identifier(name)) for name in sources]
        else:
            expanded.append(item)
    select.set("expressions", expanded)
    ctx.note("QY55", "rewritten", "A bare `*` after other select items becomes each source's `t.*`: TiDB accepts a bare `*` "
             "only as the first item.")
    return select


def source_names(select: exp.Select) -> list[str]:
    """The alias (or name) of each FROM and JOIN source, in order; empty when one has neither."""
    from_ = select.args.get("from_")
    sources = [from_.this] if from_ is not None else []
    sources += [j.this for j in select.args.get("joins") or []]
    names = [s.alias_or_name for s in sources]
    return names if names and all(names) else []


def set_operation_order(node: exp.SetOperation, ctx: Context) -> exp.SetOperation:
    """`SELECT a.x, b.y FROM ... UNION SELECT ... ORDER BY b.y` -> `... ORDER BY 2`.

    SQL Server matches an ORDER BY key of a set operation against the first query's select list;
    TiDB reads only the result's column names and positions there.
    """
    order = node.args.get("order")
    if order is None:
        return node
    first = node
    while isinstance(first, exp.SetOperation):
        first = first.this
    if not isinstance(first, exp.Select):
        return node
    changed = order_by_outputs(order, first)
    if changed is None:
        ctx.note("QY54", "unsupported", "An ORDER BY key of a UNION, INTERSECT or EXCEPT is not in the first query's select "
                 "list: TiDB orders a set operation only by its result's columns.")
    elif changed:
        ctx.note("QY54", "rewritten", "The ORDER BY of a UNION, INTERSECT or EXCEPT names the result's columns by position: "
                 "TiDB does not take table names or expressions there.")
    return node


def order_by_outputs(order: exp.Order, first: exp.Select) -> bool | None:
    """Make each key of `order` a name or position of `first`'s select list: True if a key changed,
    False if none had to, None if a key matches no select item."""
    outputs = _outputs(first)
    changed = False
    for ordered in order.expressions:
        key = ordered.this
        if isinstance(key, exp.Column) and not key.table and any(n == key.name.lower() for n, _, _ in outputs):
            continue
        if isinstance(key, exp.Literal) and key.is_int:
            continue
        target = _matching_output(key, outputs)
        if target is None:
            return None
        ordered.set("this", target)
        changed = True
    return changed


def _outputs(select: exp.Select) -> list[tuple[str, exp.Expr, int | None]]:
    """(lower-case output name, expression, 1-based position or None after a star) per select item."""
    out: list[tuple[str, exp.Expr, int | None]] = []
    known = True
    for i, item in enumerate(select.expressions):
        if isinstance(item, exp.Star) or (isinstance(item, exp.Column) and item.is_star):
            known = False
            continue
        bare = item.this if isinstance(item, exp.Alias) else item
        out.append((item.alias_or_name.lower(), bare, i + 1 if known else None))
    return out


def _matching_output(key: exp.Expr, outputs: list[tuple[str, exp.Expr, int | None]]) -> exp.Expr | None:
    text = key.sql(dialect=TiDB).lower()
    for name, expression, position in outputs:
        same = expression.sql(dialect=TiDB).lower() == text or (
            isinstance(key, exp.Column) and isinstance(expression, exp.Column) and not expression.table
            and expression.name.lower() == key.name.lower())
        if not same:
            continue
        if position is not None:
            return exp.Literal.number(position)
        if name:
            return exp.column(exp.to_identifier(name, quoted=True))
    return None


def limit_in_subquery(query: exp.Select, ctx: Context) -> exp.Select:
    """`x IN (SELECT TOP 5 id FROM t ORDER BY n)` -> `x IN (SELECT * FROM (SELECT id FROM t ORDER BY n LIMIT 5) AS __in)`.

    MySQL and MariaDB refuse LIMIT in an IN/ALL/ANY/SOME subquery (error 1235); TiDB runs both
    forms. The derived table keeps the same rows on every target. A subquery that refers to the
    outer query is left as it is: a derived table could not see the outer columns.
    """
    if query.args.get("limit") is None or not _set_test(query) or _correlated(query):
        return query
    derived = exp.Subquery(this=query.copy(), alias=exp.TableAlias(this=exp.to_identifier("__in")))
    ctx.note("QY57", "rewritten", "TOP in an IN/ALL/ANY subquery moves into a derived table: MySQL and MariaDB refuse "
             "LIMIT there (TiDB accepts both forms).")
    return exp.select(exp.Star()).from_(derived)


def _set_test(query: exp.Select) -> bool:
    """Is the query the right side of IN, ALL, ANY or SOME (directly or in parentheses)?"""
    parent = query.parent
    if isinstance(parent, exp.Subquery) and not parent.alias:
        parent = parent.parent
    return isinstance(parent, (exp.In, exp.All, exp.Any))


def _correlated(query: exp.Select) -> bool:
    """Does the query name a table alias it does not define itself (an outer reference)?"""
    defined = {n.alias_or_name.lower() for n in query.find_all(exp.Table, exp.Subquery) if n.alias_or_name}
    defined |= {cte.alias.lower() for cte in query.find_all(exp.CTE)}
    return any(c.table and c.table.lower() not in defined for c in query.find_all(exp.Column))
