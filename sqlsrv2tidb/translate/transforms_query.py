"""Rewrites of query clauses TiDB lacks: APPLY, PIVOT/UNPIVOT, FOR XML/JSON, TOP PERCENT/WITH TIES,
table hints and query options, and derived tables with column lists (`(VALUES ...) AS v(a, b)`);
with the join, select-list and GROUP BY shapes of `transforms_joins`, `transforms_select` and
`transforms_grouping`.

Each rewrite takes one SELECT (or DML statement, for hints) and returns it rewritten, or notes why
it cannot; a clause left in place makes the TiDB generator refuse the statement, so nothing
reaches the output in a form TiDB rejects or silently reads differently.
"""

from __future__ import annotations

from sqlglot import exp

from . import transforms_pivot
from .context import Context
from .source_types import is_split
from .transforms_apply import decorrelate, top_window
from .transforms_grouping import group_expressions, outer_reference_beside_aggregate
from .transforms_joins import full_outer_join, subquery_in_join_condition
from .transforms_rollup import grand_total_over_no_rows
from .transforms_select import limit_in_subquery, set_operation_order, star_after_columns
from .transforms_split import split_apply, split_table
from .transforms_temporal import system_time
from .walk import depth_first

_APPLY_DOCS = "https://docs.pingcap.com/tidb/stable/mysql-compatibility (lateral derived tables, tidb#40328)"


_CLAUSE_HOLDERS = (exp.Table, exp.Join, exp.Select, exp.Update, exp.Delete, exp.Insert, exp.Subquery, exp.Values,
                   exp.SetOperation)
"""The nodes the clause rewrites below look at."""


def rewrite_queries(tree: exp.Expr, ctx: Context) -> exp.Expr:
    """Apply the clause rewrites to every query in the statement, innermost first."""
    for node in reversed(depth_first(tree)):
        if not isinstance(node, _CLAUSE_HOLDERS):
            continue  # most nodes are expressions: one check instead of all below
        if isinstance(node, exp.Table) and is_split(node.this):
            derived = split_table(node, ctx)
            if derived is not None:
                node.replace(derived)
                continue
        if isinstance(node, exp.Table) and node.args.get("hints"):
            table_hints(node, ctx)
        if isinstance(node, exp.Table) and node.args.get("version"):
            derived = system_time(node, ctx)  # the table and its history table (transforms_temporal)
            if derived is not None:
                if node is tree:
                    tree = derived
                else:
                    node.replace(derived)
                continue
        if isinstance(node, exp.Join) and node.args.get("hint"):
            ctx.note("QY13", "rewritten", f"The {node.args['hint']} join hint is dropped; TiDB's optimizer picks the join.")
            node.set("hint", None)
        if isinstance(node, (exp.Select, exp.Update, exp.Delete, exp.Insert)) and node.args.get("options"):
            query_options(node, ctx)
        if isinstance(node, (exp.Subquery, exp.Values)) and _alias_columns(node):
            new = derived_column_list(node, ctx)
            if new is not node:
                node.replace(new)
                node = new
        if isinstance(node, exp.Select):
            new = rewrite_select(node, ctx)
            if isinstance(new, exp.Select):
                new = limit_in_subquery(new, ctx)
            if new is not node:
                if node is tree:
                    tree = new
                else:
                    node.replace(new)
        elif isinstance(node, exp.SetOperation):
            set_operation_order(node, ctx)
        elif isinstance(node, exp.Subquery) and node is not tree:
            new = outer_reference_beside_aggregate(node, ctx)
            if new is not node:
                node.replace(new)
    return tree


def rewrite_select(select: exp.Select, ctx: Context) -> exp.Expr:
    """The clause rewrites of one SELECT, in the order they depend on each other."""
    recursive_ctes(select)
    offset_without_fetch(select)
    group_by_rollup(select, ctx)
    select = transforms_pivot.pivot(select, ctx)
    select = split_apply(select, ctx)
    select = apply_join(select, ctx)
    select = for_xml(select, ctx)
    select = subquery_in_join_condition(select, ctx)
    select = star_after_columns(select, ctx)
    select = group_expressions(select, ctx)
    result = top_percent_or_ties(select, ctx)
    result = full_outer_join(result, ctx) if isinstance(result, exp.Select) else result
    keys = select.meta.pop("rollup_keys", None)
    if keys is not None and isinstance(result, exp.Select) and not ctx.unsupported:
        return grand_total_over_no_rows(result, keys, ctx)
    return result


def recursive_ctes(select: exp.Select) -> exp.Select:
    """`WITH n AS (... FROM n ...)` -> `WITH RECURSIVE n AS (...)`: T-SQL has no RECURSIVE keyword, MySQL requires it.
    https://docs.pingcap.com/tidb/stable/sql-statement-with
    """
    with_ = select.args.get("with_")
    if with_ is None or with_.args.get("recursive"):
        return select
    for cte in with_.expressions:
        name = cte.alias.lower()
        if any(t.name.lower() == name and not t.db for t in cte.this.find_all(exp.Table)):
            with_.set("recursive", True)
            break
    return select


_ROLLUP_DOCS = "https://docs.pingcap.com/tidb/stable/group-by-modifier"


def group_by_rollup(select: exp.Select, ctx: Context) -> exp.Select:
    """`GROUP BY ROLLUP (a, b)` -> `GROUP BY a, b WITH ROLLUP`; CUBE and GROUPING SETS stay unsupported.

    TiDB reads ROLLUP only as MySQL's WITH ROLLUP modifier (since v7.4, and before v8.3 only in
    TiFlash MPP mode), which groups the same way: (a, b), (a), (). A ROLLUP next to plain columns
    (`GROUP BY x, ROLLUP (a, b)`) never rolls x up, which WITH ROLLUP would, so it is not rewritten.
    https://learn.microsoft.com/sql/t-sql/queries/select-group-by-transact-sql
    https://docs.pingcap.com/tidb/stable/group-by-modifier
    """
    group = select.args.get("group")
    if group is None:
        return select
    items = group.expressions
    grouping = [e for e in items if isinstance(e, (exp.Rollup, exp.Cube, exp.GroupingSets))]
    if not grouping and not group.args.get("rollup") and not group.args.get("cube"):
        return select
    if group.args.get("cube") or (grouping and not (len(items) == 1 and isinstance(items[0], exp.Rollup))):
        ctx.note("QY52", "unsupported", f"GROUP BY with CUBE, GROUPING SETS or ROLLUP beside other columns has no TiDB "
                 f"form: TiDB has only WITH ROLLUP over the whole GROUP BY list ({_ROLLUP_DOCS}).")
        return select
    version = ctx.options.tidb_version
    if version < "7.4":
        ctx.note("QY52", "unsupported", f"GROUP BY ... ROLLUP needs TiDB 7.4 or later (the target is {version}).")
        return select
    if version < "8.3":
        ctx.note("QY52", "review", f"GROUP BY ... WITH ROLLUP runs only in TiFlash MPP mode before TiDB 8.3 (the target is "
                 f"{version}): the table needs a TiFlash replica.")
    if grouping:
        group.set("expressions", [e.copy() for e in items[0].expressions])
        group.set("rollup", [exp.Rollup()])
    select.meta["rollup_keys"] = list(group.expressions)
    return select


# MySQL's largest LIMIT, the documented way to say "all rows after the offset".
# https://dev.mysql.com/doc/refman/8.0/en/select.html#idm45729226227536
_ALL_ROWS = "18446744073709551615"


def offset_without_fetch(select: exp.Select) -> exp.Select:
    """`ORDER BY a OFFSET 10 ROWS` -> `ORDER BY a LIMIT 18446744073709551615 OFFSET 10`: MySQL has no OFFSET without LIMIT.
    https://docs.pingcap.com/tidb/stable/sql-statement-select
    """
    if select.args.get("offset") is not None and select.args.get("limit") is None:
        select.set("limit", exp.Limit(expression=exp.Literal.number(_ALL_ROWS)))
    return select


_NOLOCK = {"NOLOCK", "READUNCOMMITTED"}
_NO_OP = {"ROWLOCK", "PAGLOCK", "READCOMMITTED", "READCOMMITTEDLOCK", "NOEXPAND", "FORCESEEK", "FORCESCAN", "KEEPIDENTITY", "KEEPDEFAULTS", "IGNORE_CONSTRAINTS", "IGNORE_TRIGGERS", "NOWAIT"}
_ROW_LOCKS = {"UPDLOCK", "XLOCK"}


def table_hints(table: exp.Table, ctx: Context) -> exp.Table:
    """`FROM t WITH (NOLOCK)` -> `FROM t`; `WITH (UPDLOCK)` on a SELECT -> `... FOR UPDATE`.

    TiDB has no table hints. Every read is a consistent snapshot (so NOLOCK's dirty reads cannot
    happen), and pessimistic transactions lock rows with SELECT ... FOR UPDATE; there are no range
    locks (HOLDLOCK/SERIALIZABLE) and no SKIP LOCKED (READPAST).
    https://docs.pingcap.com/tidb/stable/transaction-isolation-levels
    https://docs.pingcap.com/tidb/stable/pessimistic-transaction
    """
    for hint in table.args.get("hints") or []:
        for item in hint.expressions if isinstance(hint, exp.WithTableHint) else [hint]:
            name = (item.name if not isinstance(item, exp.Anonymous) else item.name).upper()
            if name in _NOLOCK:
                ctx.note("QY13", "rewritten", f"WITH ({name}) is dropped: TiDB reads a committed snapshot, never uncommitted rows.")
            elif name in _NO_OP or name == "INDEX":
                ctx.note("QY13", "rewritten", f"WITH ({name}) is dropped: TiDB has no table hints of this kind.")
            elif name in _ROW_LOCKS:
                select = table.find_ancestor(exp.Select)
                if select is not None and not isinstance(table.parent, (exp.Update, exp.Delete)):
                    select.set("locks", [exp.Lock(update=True)])
                    ctx.note("QY13", "review", f"WITH ({name}) becomes SELECT ... FOR UPDATE (a pessimistic row lock).")
                else:
                    ctx.note("QY13", "rewritten", f"WITH ({name}) is dropped: TiDB locks the rows it changes.")
            elif name in ("HOLDLOCK", "SERIALIZABLE", "REPEATABLEREAD"):
                ctx.note("QY13", "review", f"WITH ({name}) is dropped: TiDB has no range locks, so phantoms are not blocked.")
            elif name == "READPAST":
                ctx.note("QY13", "review", "WITH (READPAST) is dropped: TiDB cannot skip locked rows (no SKIP LOCKED).")
            elif name in ("TABLOCK", "TABLOCKX"):
                ctx.note("QY13", "review", f"WITH ({name}) is dropped: TiDB does not lock whole tables.")
            else:
                ctx.note("QY13", "review", f"WITH ({name}) is dropped: TiDB has no such table hint.")
    table.set("hints", None)
    return table


def query_options(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`... OPTION (RECOMPILE, MAXDOP 1)` -> the statement without it.

    TiDB has no OPTION clause; its optimizer hints are comments of another form.
    https://docs.pingcap.com/tidb/stable/optimizer-hints
    """
    names = [o.this.name.upper() if isinstance(o, exp.QueryOption) else o.sql() for o in node.args["options"]]
    if "MAXRECURSION" in names:
        ctx.note("QY13", "review", "OPTION (MAXRECURSION) is dropped: set cte_max_recursion_depth in TiDB instead.")
    ctx.note("QY13", "rewritten", f"OPTION ({', '.join(names)}) is dropped: TiDB has no query OPTION clause.")
    node.set("options", None)
    return node


def _alias_columns(node: exp.Expr) -> list[exp.Expr]:
    alias = node.args.get("alias")
    return list(alias.columns) if isinstance(alias, exp.TableAlias) else []


def derived_column_list(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`(VALUES (1, 'a'), (2, 'b')) AS v(id, name)` -> `(SELECT 1 AS id, 'a' AS name UNION ALL SELECT 2, 'b') AS v`.

    TiDB accepts neither a column list after a derived table's alias nor a VALUES table.
    https://docs.pingcap.com/tidb/stable/sql-statement-select
    """
    names = [c.name for c in _alias_columns(node)]
    alias = node.args["alias"].name
    if isinstance(node, exp.Values):
        selects = []
        for i, row in enumerate(node.expressions):
            values = row.expressions if isinstance(row, exp.Tuple) else [row]
            if len(values) != len(names):
                ctx.note("QY45", "unsupported", "A VALUES row does not match its column list.")
                return node
            items = [exp.alias_(v.copy(), n) if i == 0 else v.copy() for v, n in zip(values, names, strict=True)]
            selects.append(exp.select(*items))
        query: exp.Expr = selects[0]
        for other in selects[1:]:
            query = exp.union(query, other, distinct=False)
        ctx.note("QY45", "rewritten", "A VALUES table becomes SELECT ... UNION ALL SELECT ...; TiDB has no table value constructor.")
        return exp.Subquery(this=query, alias=exp.TableAlias(this=exp.to_identifier(alias)))
    inner = node.this
    target = inner.this if isinstance(inner, exp.Union) else inner
    if not isinstance(target, exp.Select) or len(target.selects) != len(names) or any(isinstance(p, exp.Star) for p in target.selects):
        ctx.note("QY45", "unsupported", "A derived table's column list cannot be moved into its query.")
        return node
    for projection, name in zip(list(target.selects), names, strict=True):
        bare = projection.this if isinstance(projection, exp.Alias) else projection
        projection.replace(exp.alias_(bare.copy(), name))
    node.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
    ctx.note("QY45", "rewritten", "A derived table's column list moves into its query's aliases; TiDB has no column lists there.")
    return node


def apply_join(select: exp.Select, ctx: Context) -> exp.Select:
    """`CROSS APPLY (SELECT TOP 1 x FROM u WHERE u.tid = t.id ORDER BY x DESC) z` ->
    `JOIN (SELECT x, u.tid AS __k1, ROW_NUMBER() OVER (PARTITION BY u.tid ORDER BY x DESC) AS __rn FROM u) AS z
    ON z.__k1 = t.id AND z.__rn <= 1`; OUTER APPLY becomes a LEFT JOIN.

    TiDB has no LATERAL. A subquery correlated only through equalities in its WHERE clause is
    decorrelated into a derived table joined on those equalities; TOP n per outer row becomes a
    ROW_NUMBER() window. Other shapes (functions, VALUES, scalar aggregates) stay unsupported.
    https://learn.microsoft.com/sql/t-sql/queries/from-transact-sql#using-apply
    """
    for join in list(select.args.get("joins") or []):
        lateral = join.this
        if not isinstance(lateral, exp.Lateral):
            continue
        kind = "CROSS" if lateral.args.get("cross_apply") else "OUTER"
        outer = _outer_aliases(select, join)
        alias = lateral.alias or (lateral.this.alias if isinstance(lateral.this, exp.Subquery) else "")
        inner = lateral.this
        if not (isinstance(inner, exp.Subquery) and isinstance(inner.this, exp.Select)) or not alias:
            what = inner.sql("sqlserver").split("(")[0] if not isinstance(inner, exp.Subquery) else "this query"
            ctx.note("QY10", "unsupported", f"{kind} APPLY over {what}: TiDB has no lateral joins ({_APPLY_DOCS}).")
            continue
        joined = decorrelate(inner.this, alias, outer, kind, ctx)
        if joined is None:
            continue
        join.replace(joined)
        if any(isinstance(p, exp.Star) or (isinstance(p, exp.Column) and p.is_star and p.table == alias) for p in select.selects):
            ctx.note("QY10", "review", f"`*` now also returns the helper columns of the rewritten APPLY `{alias}`.")
    return select


def _outer_aliases(select: exp.Select, upto: exp.Join) -> set[str]:
    aliases = set()
    from_ = select.args.get("from_")
    if from_ is not None:
        aliases.add(from_.this.alias_or_name.lower())
    for join in select.args.get("joins") or []:
        if join is upto:
            break
        aliases.add((join.this.alias or join.this.alias_or_name).lower())
    return aliases


def for_xml(select: exp.Select, ctx: Context) -> exp.Select:
    """`(SELECT ',' + name FROM t ORDER BY name FOR XML PATH(''))` ->
    `(SELECT GROUP_CONCAT(CONCAT(',', name) ORDER BY name SEPARATOR '') FROM t)`; the same with `, TYPE)
    .value('.', 'nvarchar(max)')`, whose text SQL Server does not entity-escape.

    FOR XML/FOR JSON have no TiDB equivalent. The string-aggregation idiom (`FOR XML PATH('')`
    around one unnamed column) becomes GROUP_CONCAT; SQL Server also escapes &, < and > as XML
    entities, which GROUP_CONCAT does not. Any other FOR XML/JSON is unsupported.
    https://learn.microsoft.com/sql/relational-databases/xml/use-path-mode-with-for-xml
    """
    clause = select.args.get("for_")
    if clause is None:
        return select
    kind = clause.text("kind").upper() or "XML"
    options = clause.expressions
    idiom = (
        kind == "XML"
        and len(options) == 1
        and isinstance(options[0].this, exp.XMLKeyValueOption)
        and options[0].this.this.name.upper() == "PATH"
        and options[0].this.expression is not None
        and options[0].this.expression.name == ""
        and len(select.selects) == 1
        and not select.args.get("group")
        and select.selects[0].alias in ("", "text()", "data()")
    )
    if not idiom:
        ctx.note("QY09", "unsupported", f"FOR {kind} {' '.join(o.sql('sqlserver') for o in options)}: TiDB cannot build XML or JSON result documents.")
        return select
    value = select.selects[0]
    value = value.this if isinstance(value, exp.Alias) else value
    order = select.args.get("order")
    this: exp.Expr = value.copy()
    if order is not None:
        this = exp.Order(this=this, expressions=[o.copy() for o in order.expressions])
    distinct = select.args.get("distinct")
    if distinct is not None:
        this = exp.Distinct(expressions=[this])
    aggregate = exp.GroupConcat(this=this, separator=exp.Literal.string(""))
    aggregate.meta["noted"] = True
    new = select.copy()
    new.set("for_", None)
    new.set("order", None)
    new.set("distinct", None)
    new.set("expressions", [aggregate])
    if select.meta_get("xml_text"):  # (... FOR XML PATH(''), TYPE).value('.', ...) returns the text unescaped
        ctx.note("QY09", "review", "(... FOR XML PATH(''), TYPE).value('.') string aggregation becomes GROUP_CONCAT, "
                 "which stops at group_concat_max_len (1024 bytes by default).")
        return new
    ctx.note(
        "QY09", "review",
        "FOR XML PATH('') string aggregation becomes GROUP_CONCAT: SQL Server escapes &, <, > as XML entities and "
        "GROUP_CONCAT stops at group_concat_max_len (1024 bytes by default).",
    )
    return new


def top_percent_or_ties(select: exp.Select, ctx: Context) -> exp.Expr:
    """`SELECT TOP 10 PERCENT a FROM t ORDER BY a` ->
    `SELECT a FROM (SELECT a, a AS __o1, ROW_NUMBER() OVER (ORDER BY a) AS __row, COUNT(*) OVER () AS __rows FROM t) AS __top
    WHERE __row <= CEILING(__rows * 10 / 100) ORDER BY __o1`; WITH TIES uses RANK() the same way.

    MySQL's LIMIT takes neither PERCENT nor WITH TIES.
    https://learn.microsoft.com/sql/t-sql/queries/top-transact-sql
    """
    limit = select.args.get("limit")
    options = limit.args.get("limit_options") if isinstance(limit, exp.Limit) else None
    if options is not None and "top_percent_or_ties" in ctx.options.skip_rewrites:
        limit.set("limit_options", None)  # switched off: the naive LIMIT n, which keeps no ties and no percent
        return select
    if options is not None and (options.args.get("percent") or options.args.get("with_ties")):
        return top_window(select, limit.expression, bool(options.args.get("percent")), bool(options.args.get("with_ties")), ctx)
    count = _limit_count(limit)
    offset = select.args.get("offset")
    offset_value = offset.expression if isinstance(offset, exp.Offset) else None
    if _not_a_limit_value(count, ctx) or _not_a_limit_value(offset_value, ctx):
        if isinstance(count, exp.Literal) and count.name == _ALL_ROWS:
            count = None
        return top_window(select, count, False, False, ctx, offset=offset_value)
    return select


def _limit_count(limit: exp.Expr | None) -> exp.Expr | None:
    if isinstance(limit, exp.Limit):
        return limit.expression
    if isinstance(limit, exp.Fetch):
        return limit.args.get("count")
    return None


def _not_a_limit_value(node: exp.Expr | None, ctx: Context) -> bool:
    """LIMIT and OFFSET take only a number or a `?` marker: a local variable (a session user variable
    after translation) or an expression such as `(@page - 1) * @size` needs the window rewrite."""
    while isinstance(node, exp.Paren):
        node = node.this
    if node is None or (isinstance(node, exp.Literal) and node.is_int):
        return False
    if isinstance(node, exp.Parameter) and not isinstance(node.this, exp.Parameter):
        return node.this.name.lower() in ctx.local_variables
    return True
