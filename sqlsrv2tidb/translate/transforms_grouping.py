"""GROUP BY expressions written so TiDB's ONLY_FULL_GROUP_BY check accepts what SQL Server accepts.

SQL Server lets a grouped query use a GROUP BY expression anywhere in its select list, HAVING and
ORDER BY, whole or inside a larger expression (`GROUP BY YEAR(d), MONTH(d)` with
`SELECT CONCAT(YEAR(d), '-', MONTH(d))`). TiDB's default sql_mode has ONLY_FULL_GROUP_BY, and TiDB
(v8.5.3, measured) matches a GROUP BY expression only when a select item or ORDER BY key is that
expression whole: inside a larger expression it fails with error 1055, and in HAVING with 1054
("Unknown column ... in 'having clause'"), even whole. MariaDB's default sql_mode has no such check.

Two steps keep the query's meaning:

1. before any rewrite, each GROUP BY expression and every occurrence of the same T-SQL text in
   its query are tagged with one key (`tag_group_expressions`), and the rewrites carry the tag
   over to what they write; afterwards each occurrence is replaced by a copy of its GROUP BY
   expression's TiDB form, so one source expression has one rewrite (a rewrite that depends on
   where it stands could otherwise write two texts TiDB does not see as the same);
2. an occurrence inside a larger expression, in a window's PARTITION BY/ORDER BY, or in HAVING
   becomes `MIN(expression)`: the expression has one value per group, so MIN returns exactly it,
   and TiDB checks an aggregate's argument no further.
https://docs.pingcap.com/tidb/stable/sql-mode
https://learn.microsoft.com/sql/t-sql/queries/select-group-by-transact-sql
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp

from .context import Context
from .dialect import TIDB, TSQL_DIALECT

GROUP_KEY = "group_key"
"""Meta key of a tagged node: the T-SQL text of the GROUP BY expression it repeats."""


def tag_group_expressions(tree: exp.Expr, nodes: list[exp.Expr] | None = None) -> None:
    """Mark each GROUP BY expression and its occurrences in the same query (before the rewrites).
    `nodes`: every node of the tree, when the caller walked it already (each query is tagged on its own,
    so their order does not matter)."""
    for select in tree.find_all(exp.Select) if nodes is None else [n for n in nodes if isinstance(n, exp.Select)]:
        group = select.args.get("group")
        if group is None:
            continue
        keys: dict[type, set[str]] = {}
        for expression in group.expressions:
            bare = _bare(expression)
            if _plain(bare):
                continue
            key = bare.sql(TSQL_DIALECT)
            bare.meta[GROUP_KEY] = key
            keys.setdefault(type(bare), set()).add(key)
        if not keys:
            continue
        texts: dict[int, str] = {}  # id -> T-SQL text, written once per node

        def repeats(node: exp.Expr, keys: dict[type, set[str]] = keys, texts: dict[int, str] = texts) -> bool:
            if type(node) not in keys:
                return False
            text = texts[id(node)] = node.sql(TSQL_DIALECT)
            return text in keys[type(node)]

        for node in list(_occurrences(select, repeats)):
            node.meta[GROUP_KEY] = texts[id(node)]


def group_expressions(select: exp.Select, ctx: Context) -> exp.Select:
    """`SELECT CONCAT(YEAR(d), '-', MONTH(d)) ... GROUP BY YEAR(d), MONTH(d) HAVING YEAR(d) > 2008` ->
    `SELECT CONCAT(MIN(YEAR(d)), '-', MIN(MONTH(d))) ... GROUP BY YEAR(d), MONTH(d) HAVING MIN(YEAR(d)) > 2008`."""
    group = select.args.get("group")
    if group is None:
        return select
    expressions = [_bare(g) for g in group.expressions if not _plain(_bare(g))]
    if not expressions:
        return select
    by_key = {g.meta[GROUP_KEY]: g for g in expressions if g.meta_get(GROUP_KEY)}
    written: dict[int, str] = {}  # id -> TiDB text: each node written once (nothing below changes one before it is read)

    def text(node: exp.Expr) -> str:
        found = written.get(id(node))
        if found is None:
            found = written[id(node)] = _text(node)
        return found

    by_text = {text(g): g for g in expressions}
    types = {type(g) for g in expressions}

    def matching(node: exp.Expr) -> exp.Expr | None:
        found = by_key.get(node.meta_get(GROUP_KEY))
        if found is None and type(node) in types:
            found = by_text.get(text(node))
        return found

    wrapped = False
    for node in list(_occurrences(select, lambda n: matching(n) is not None)):
        expression = matching(node)
        assert expression is not None
        replacement = node if text(node) == text(expression) else expression.copy()
        if not _whole(node, select):
            replacement = exp.Min(this=replacement.copy() if replacement is node else replacement)
            wrapped = True
        if replacement is not node:
            node.replace(replacement)
    if wrapped:
        ctx.note("QY56", "rewritten", "A GROUP BY expression used inside a larger expression or in HAVING becomes MIN(expression), "
                 "its one value per group: TiDB's ONLY_FULL_GROUP_BY accepts a GROUP BY expression only whole.")
    return select


def _bare(node: exp.Expr) -> exp.Expr:
    while isinstance(node, exp.Paren):
        node = node.this
    return node


def _plain(node: exp.Expr) -> bool:
    """Columns, literals and parameters: TiDB matches them wherever they stand."""
    return isinstance(node, (exp.Column, exp.Literal, exp.Parameter, exp.Placeholder, exp.Null, exp.Var))


def _text(node: exp.Expr) -> str:
    return _bare(node).sql(dialect=TIDB)


def _occurrences(select: exp.Select, wanted) -> Iterator[exp.Expr]:
    """Nodes of the select list, HAVING and ORDER BY that `wanted` accepts, outermost first; neither
    aggregates' arguments nor subqueries are entered (they are checked in their own scope)."""
    roots = [*select.expressions, select.args.get("having"), select.args.get("order")]
    stack = [r for r in reversed(roots) if r is not None]
    while stack:
        node = stack.pop()
        if isinstance(node, (exp.AggFunc, exp.Query)) or (isinstance(node, exp.Subquery)):
            continue
        if wanted(node):
            yield node
            continue
        stack.extend(reversed(list(node.iter_expressions())))


def _whole(node: exp.Expr, select: exp.Select) -> bool:
    """A select item or ORDER BY key by itself, which TiDB matches against GROUP BY."""
    parent = node.parent
    while isinstance(parent, exp.Paren):
        node, parent = parent, parent.parent
    if isinstance(parent, exp.Alias):
        node, parent = parent, parent.parent
    if parent is select and node.arg_key == "expressions":
        return True
    return isinstance(parent, exp.Ordered) and isinstance(parent.parent, exp.Order) and parent.parent.parent is select


def outer_reference_beside_aggregate(subquery: exp.Subquery, ctx: Context) -> exp.Expr:
    """`(SELECT si.Qty * SUM(p.n) FROM p WHERE p.id = si.id)` -> `si.Qty * (SELECT SUM(p.n) FROM p WHERE p.id = si.id)`.

    A reference to the outer query is one value for the whole subquery, so SQL Server accepts it next
    to an aggregate; TiDB's ONLY_FULL_GROUP_BY check counts it as a column not aggregated (error 8123,
    or 1054 on the outer column when the subquery is correlated). An aggregate without GROUP BY has
    exactly one row, so the expression computed outside, with each aggregate as its own subquery
    over the same rows, has the same value.
    """
    select = subquery.this
    if (subquery.alias or not isinstance(select, exp.Select) or len(select.expressions) != 1
            or isinstance(subquery.parent, (exp.From, exp.Join, exp.In, exp.Exists))
            or any(select.args.get(arg) for arg in ("group", "having", "limit", "distinct", "with_"))):
        return subquery
    item = select.expressions[0]
    value = item.this if isinstance(item, exp.Alias) else item
    aggregates = [n for n in value.find_all(exp.AggFunc) if not any(isinstance(a, exp.AggFunc) for a in _between(n, value))]
    inside = {id(c) for a in aggregates for c in a.find_all(exp.Column)}
    outside = [c for c in value.find_all(exp.Column) if id(c) not in inside]
    own = {n.alias_or_name.lower() for n in select.find_all(exp.Table, exp.Subquery) if n.alias_or_name}
    if not aggregates or not outside or any(not c.table or c.table.lower() in own for c in outside):
        return subquery
    hoisted = value.copy()
    for aggregate in [n for n in hoisted.find_all(exp.AggFunc) if not any(isinstance(a, exp.AggFunc) for a in _between(n, hoisted))]:
        alone = select.copy()
        alone.set("expressions", [aggregate.copy()])
        aggregate.replace(exp.Subquery(this=alone))
    ctx.note("QY56", "rewritten", "An outer query's column beside an aggregate in a subquery moves out of it, with the aggregate "
             "as its own subquery: TiDB's ONLY_FULL_GROUP_BY refuses it inside.")
    return exp.Paren(this=hoisted)


def _between(node: exp.Expr, top: exp.Expr) -> Iterator[exp.Expr]:
    """The ancestors of `node` up to, not including, `top`."""
    parent = node.parent
    while parent is not None and parent is not top:
        yield parent
        parent = parent.parent
