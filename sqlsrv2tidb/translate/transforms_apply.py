"""Window-function rewrites for constructs TiDB lacks: APPLY decorrelation and TOP PERCENT/WITH TIES.

Both turn "the first n rows" into a ROW_NUMBER() or RANK() column computed in a derived table
and filtered outside it, which TiDB supports (window functions since v3.0).
https://docs.pingcap.com/tidb/stable/window-functions
"""

from __future__ import annotations

from sqlglot import exp

from .context import Context
from .transforms_dml import projection_columns


def conjuncts(node: exp.Expr | None) -> list[exp.Expr]:
    if node is None:
        return []
    if isinstance(node, exp.And):
        return conjuncts(node.this) + conjuncts(node.expression)
    if isinstance(node, exp.Paren) and isinstance(node.this, exp.And):
        return conjuncts(node.this)
    return [node]


def _inner_aliases(select: exp.Select) -> set[str]:
    aliases = set()
    for node in select.walk():
        if isinstance(node, (exp.Table, exp.Subquery)) and node.alias_or_name:
            aliases.add(node.alias_or_name.lower())
    return aliases


def _is_outer(column: exp.Column, outer: set[str], inner: set[str]) -> bool:
    qualifier = column.table.lower()
    return bool(qualifier) and qualifier in outer and qualifier not in inner


def _resolve_aliases(expression: exp.Expr, select: exp.Select) -> exp.Expr:
    """ORDER BY may name a projection's alias; inside OVER (...) only the expression itself works."""
    aliases = {p.alias.lower(): p.this for p in select.selects if isinstance(p, exp.Alias)}
    if isinstance(expression, exp.Column) and not expression.table and expression.name.lower() in aliases:
        return aliases[expression.name.lower()].copy()
    return expression.copy()


def decorrelate(sub: exp.Select, alias: str, outer: set[str], kind: str, ctx: Context) -> exp.Join | None:
    """The JOIN that replaces `kind APPLY (sub) alias`, or None (with a note) when it cannot."""
    inner = _inner_aliases(sub)
    outer_refs = [c for c in sub.find_all(exp.Column) if _is_outer(c, outer, inner)]
    side = None if kind == "CROSS" else "LEFT"
    new = sub.copy()
    if not outer_refs:
        ctx.note("QY10", "rewritten", f"{kind} APPLY of an uncorrelated subquery becomes a {'CROSS' if side is None else 'LEFT'} JOIN.")
        on = None if side is None else exp.true()
        return exp.Join(this=exp.Subquery(this=new, alias=exp.TableAlias(this=exp.to_identifier(alias))), side=side, on=on,
                        kind="CROSS" if side is None else None)
    where = new.args.get("where")
    pairs: list[tuple[exp.Expr, exp.Expr]] = []
    kept: list[exp.Expr] = []
    used = 0
    for conjunct in conjuncts(where.this if where is not None else None):
        refs = [c for c in conjunct.find_all(exp.Column) if _is_outer(c, outer, inner)]
        if not refs:
            kept.append(conjunct)
            continue
        if not isinstance(conjunct, exp.EQ):
            return _fail(ctx, kind, "it is correlated through something other than an equality")
        left_outer = [c for c in conjunct.this.find_all(exp.Column) if _is_outer(c, outer, inner)]
        right_outer = [c for c in conjunct.expression.find_all(exp.Column) if _is_outer(c, outer, inner)]
        if left_outer and right_outer:
            return _fail(ctx, kind, "an equality has outer columns on both sides")
        inner_side, outer_side = (conjunct.expression, conjunct.this) if left_outer else (conjunct.this, conjunct.expression)
        if list(inner_side.find_all(exp.Column)) == [] and not isinstance(inner_side, exp.Column):
            return _fail(ctx, kind, "an equality compares outer columns with a constant only")
        pairs.append((inner_side, outer_side))
        used += len(refs)
    if used != len(outer_refs):
        return _fail(ctx, kind, "outer columns are used outside its WHERE equalities")
    aggregated = any(isinstance(n, exp.AggFunc) for p in new.selects for n in p.walk())
    limit = new.args.get("limit")
    if aggregated and not new.args.get("group"):
        return _fail(ctx, kind, "it aggregates without GROUP BY (one row even when nothing matches)")
    if limit is not None and (new.args.get("group") or new.args.get("distinct")):
        return _fail(ctx, kind, "it combines TOP with GROUP BY or DISTINCT")
    if isinstance(limit, exp.Limit) and limit.args.get("limit_options") is not None:
        return _fail(ctx, kind, "it uses TOP ... PERCENT or WITH TIES")
    new.set("where", exp.Where(this=exp.and_(*kept)) if kept else None)
    keys = []
    for i, (inner_side, _) in enumerate(pairs, start=1):
        name = f"__k{i}"
        keys.append(name)
        new.append("expressions", exp.alias_(inner_side.copy(), name))
        group = new.args.get("group")
        if group is not None and not any(g == inner_side for g in group.expressions):
            group.append("expressions", inner_side.copy())
    conditions: list[exp.Expr] = [
        exp.EQ(this=exp.column(name, alias), expression=outer_side.copy()) for name, (_, outer_side) in zip(keys, pairs, strict=True)
    ]
    if limit is not None:
        order = new.args.get("order")
        window = exp.Window(
            this=exp.RowNumber(),
            partition_by=[p[0].copy() for p in pairs],
            order=exp.Order(expressions=[_order_item(o, new) for o in order.expressions]) if order else None,
        )
        new.append("expressions", exp.alias_(window, "__rn"))
        new.set("limit", None)
        new.set("order", None)
        conditions.append(exp.LTE(this=exp.column("__rn", alias), expression=limit.expression.copy()))
        if order is None:
            ctx.note("QY10", "review", "TOP without ORDER BY inside APPLY picks arbitrary rows; the rewrite does too.")
    elif new.args.get("order") is not None:
        new.set("order", None)  # ORDER BY without TOP has no effect inside a derived table
    ctx.note("QY10", "rewritten", f"{kind} APPLY becomes a {'LEFT ' if side else ''}JOIN on the correlated equalities"
             + (" with ROW_NUMBER() for TOP." if limit is not None else "."))
    return exp.Join(
        this=exp.Subquery(this=new, alias=exp.TableAlias(this=exp.to_identifier(alias))),
        side=side,
        on=exp.and_(*conditions),
    )


def _order_item(ordered: exp.Expr, select: exp.Select) -> exp.Expr:
    item = ordered.copy()
    if isinstance(item, exp.Ordered):
        item.set("this", _resolve_aliases(item.this, select))
    return item


def _fail(ctx: Context, kind: str, why: str) -> None:
    ctx.note("QY10", "unsupported", f"{kind} APPLY cannot become a join: {why}; TiDB has no lateral joins.")
    return None


def top_window(select: exp.Select, count: exp.Expr | None, percent: bool, ties: bool, ctx: Context,
               offset: exp.Expr | None = None) -> exp.Expr:
    """Wrap `select` so a window column filters its first rows (see `top_percent_or_ties`).

    Also used for TOP (@variable) / OFFSET @variable: LIMIT takes only literals and `?` markers.
    """
    if percent:
        what = "TOP ... PERCENT" + (" WITH TIES" if ties else "")
    else:
        what = "TOP ... WITH TIES" if ties else "TOP/OFFSET with a variable or an expression"
    select = _expand_star(select, ctx)
    names = [p.alias_or_name for p in select.selects]
    if (
        any(isinstance(p, exp.Star) or (isinstance(p, exp.Column) and p.is_star) for p in select.selects)
        or "" in names
        or len({n.lower() for n in names}) != len(names)
        or select.args.get("distinct")
        or (percent and ties)
    ):
        ctx.note("QY14", "unsupported", f"{what} needs named, distinct output columns (no `*`, no DISTINCT) to be rewritten.")
        return select
    order = select.args.get("order")
    if ties and order is None:
        ctx.note("QY14", "unsupported", "WITH TIES without ORDER BY is invalid in SQL Server.")
        return select
    inner = select.copy()
    inner.set("limit", None)
    inner.set("offset", None)
    inner.set("order", None)
    inner.set("with_", None)
    order_items = [_order_item(o, select) for o in order.expressions] if order else []
    outer_order = []
    for i, item in enumerate(order_items, start=1):
        key = item.this if isinstance(item, exp.Ordered) else item
        inner.append("expressions", exp.alias_(key.copy(), f"__o{i}"))
        desc = isinstance(item, exp.Ordered) and item.args.get("desc")
        outer_order.append(exp.Ordered(this=exp.column(f"__o{i}"), desc=desc,
                                       nulls_first=item.args.get("nulls_first") if isinstance(item, exp.Ordered) else None))
    over = exp.Order(expressions=order_items) if order_items else None
    if ties and not percent:
        inner.append("expressions", exp.alias_(exp.Window(this=exp.Anonymous(this="RANK"), order=over), "__rank"))
        condition: exp.Expr = exp.LTE(this=exp.column("__rank"), expression=count.copy() if count else exp.null())
    else:
        inner.append("expressions", exp.alias_(exp.Window(this=exp.RowNumber(), order=over), "__row"))
        if percent:
            inner.append("expressions", exp.alias_(exp.Window(this=exp.Count(this=exp.Star())), "__rows"))
        conditions: list[exp.Expr] = []
        if offset is not None:
            conditions.append(exp.GT(this=exp.column("__row"), expression=offset.copy()))
        if percent and count is not None:
            share = exp.Div(this=exp.Mul(this=exp.column("__rows"), expression=count.copy()), expression=exp.Literal.number(100))
            conditions.append(exp.LTE(this=exp.column("__row"), expression=exp.Ceil(this=share)))
        elif count is not None:
            last = count.copy() if offset is None else exp.Add(this=offset.copy(), expression=count.copy())
            conditions.append(exp.LTE(this=exp.column("__row"), expression=last))
        condition = exp.and_(*conditions)
    outer = exp.select(*[exp.Column(this=_output_identifier(p)) for p in select.selects]).from_(
        exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier("__top")))
    ).where(condition)
    if outer_order:
        outer.set("order", exp.Order(expressions=outer_order))
    if select.args.get("with_") is not None:
        outer.set("with_", select.args["with_"].copy())
    ctx.note("QY14", "rewritten", f"{what} becomes a window-function filter; TiDB's LIMIT takes neither.")
    return outer


def _output_identifier(projection: exp.Expr) -> exp.Identifier:
    """The name a projection is known by outside its query, quoted as it was written."""
    if isinstance(projection, exp.Alias):
        return projection.args["alias"].copy()
    if isinstance(projection, exp.Column) and isinstance(projection.this, exp.Identifier):
        return projection.this.copy()
    return exp.to_identifier(projection.alias_or_name)


def _expand_star(select: exp.Select, ctx: Context) -> exp.Select:
    """`SELECT *` with sources whose columns are known -> the columns by name (for a wrapping query)."""
    if not any(isinstance(p, exp.Star) or (isinstance(p, exp.Column) and p.is_star) for p in select.selects):
        return select
    columns = projection_columns(select, ctx)
    if columns is None or len({n.lower() for n, _ in columns}) != len(columns):
        return select
    expanded = select.copy()
    expanded.set("expressions", [exp.column(name) for name, _ in columns])
    return expanded
