"""PIVOT and UNPIVOT rewritten as the conditional aggregation and UNION ALL they stand for.

TiDB has neither operator (sqlglot's MySQL writer drops PIVOT silently in lenient mode). Both need
the source's column list, because PIVOT groups by "every other column": it comes from the
derived table's projections, a CTE, a temp table the batch created, or the captured schema.
https://learn.microsoft.com/sql/t-sql/queries/from-using-pivot-and-unpivot
"""

from __future__ import annotations

from sqlglot import exp

from .context import Context
from .type_rules import NUMERIC


def source_columns(source: exp.Expr, ctx: Context) -> list[str] | None:
    """The column names a FROM source yields, in order, or None when they cannot be known (the type model's)."""
    return ctx.types.column_names(source)


def pivot(select: exp.Select, ctx: Context) -> exp.Select:
    """`SELECT * FROM (SELECT y, k, v FROM t) s PIVOT (SUM(v) FOR k IN ([a], [b])) p` ->
    `SELECT * FROM (SELECT y, SUM(CASE WHEN k = 'a' THEN v END) AS a, SUM(CASE WHEN k = 'b' THEN v END) AS b
    FROM (SELECT y, k, v FROM t) AS s GROUP BY y) AS p`.
    https://learn.microsoft.com/sql/t-sql/queries/from-using-pivot-and-unpivot
    """
    sources = []
    from_ = select.args.get("from_")
    if from_ is not None:
        sources.append(from_.this)
    sources.extend(j.this for j in select.args.get("joins") or [])
    for source in sources:
        pivots = source.args.get("pivots")
        if not pivots:
            continue
        replacement = _unpivot(source, pivots, ctx) if pivots[0].args.get("unpivot") else _pivot(source, pivots, ctx)
        if replacement is not None:
            source.replace(replacement)
    return select


def _pivot(source: exp.Expr, pivots: list[exp.Pivot], ctx: Context) -> exp.Expr | None:
    spec = pivots[0]
    aggregates = spec.expressions
    fields = spec.args.get("fields") or []
    columns = source_columns(source, ctx)
    if len(pivots) != 1 or len(aggregates) != 1 or len(fields) != 1 or not isinstance(fields[0], exp.In):
        ctx.note("QY08", "unsupported", "This PIVOT form has no rewrite; TiDB has no PIVOT.")
        return None
    if columns is None:
        ctx.note("QY08", "unsupported", "PIVOT needs its source's column list (from the schema or a derived table); it is unknown here.")
        return None
    aggregate, field = aggregates[0], fields[0]
    value = aggregate.this
    key = field.this
    if not isinstance(value, exp.Column) or not isinstance(key, exp.Column):
        ctx.note("QY08", "unsupported", "PIVOT over expressions (not columns) has no rewrite.")
        return None
    used = {value.name.lower(), key.name.lower()}
    group = [c for c in columns if c.lower() not in used]
    numeric_key = ctx.types.category(key) in NUMERIC
    items: list[exp.Expr] = [exp.column(c) for c in group]
    for item in field.expressions:
        name = item.name if isinstance(item, (exp.Column, exp.Identifier)) else item.name
        literal = exp.Literal.number(name) if numeric_key and _is_number(name) else exp.Literal.string(name)
        case = exp.Case(ifs=[exp.If(this=exp.EQ(this=exp.column(key.name), expression=literal), true=exp.column(value.name))])
        items.append(exp.alias_(aggregate.__class__(this=case), name, quoted=not name.isidentifier()))
    inner = source.copy()
    inner.set("pivots", None)
    if not inner.alias:
        inner.set("alias", exp.TableAlias(this=exp.to_identifier("__pivot_source")))
    query = exp.select(*items).from_(inner)
    if group:
        query = query.group_by(*[exp.column(c) for c in group])
    alias = spec.args.get("alias") or source.args.get("alias") or exp.TableAlias(this=exp.to_identifier("__pivot"))
    ctx.note("QY08", "rewritten", "PIVOT becomes GROUP BY with one conditional aggregate per pivoted value.")
    return exp.Subquery(this=query, alias=alias.copy())


def _unpivot(source: exp.Expr, pivots: list[exp.Pivot], ctx: Context) -> exp.Expr | None:
    """`FROM t UNPIVOT (v FOR k IN (a, b)) u` ->
    `FROM (SELECT id, 'a' AS k, a AS v FROM t WHERE a IS NOT NULL UNION ALL SELECT id, 'b', b FROM t WHERE b IS NOT NULL) AS u`.
    """
    spec = pivots[0]
    fields = spec.args.get("fields") or []
    columns = source_columns(source, ctx)
    if len(pivots) != 1 or len(spec.expressions) != 1 or len(fields) != 1 or columns is None:
        ctx.note("QY08", "unsupported", "UNPIVOT needs its source's column list; it is unknown here.")
        return None
    value_name = spec.expressions[0].name
    key_name = fields[0].this.name
    unpivoted = [c.name for c in fields[0].expressions]
    others = [c for c in columns if c.lower() not in {u.lower() for u in unpivoted}]
    selects = []
    for i, column in enumerate(unpivoted):
        base = source.copy()
        base.set("pivots", None)
        items = [exp.column(c) for c in others]
        items.append(exp.alias_(exp.Literal.string(column), key_name) if i == 0 else exp.Literal.string(column))
        items.append(exp.alias_(exp.column(column), value_name) if i == 0 else exp.column(column))
        selects.append(exp.select(*items).from_(base).where(exp.column(column).is_(exp.null()).not_()))
    query: exp.Expr = selects[0]
    for other in selects[1:]:
        query = exp.union(query, other, distinct=False)
    alias = spec.args.get("alias") or exp.TableAlias(this=exp.to_identifier("__unpivot"))
    ctx.note("QY08", "rewritten", "UNPIVOT becomes UNION ALL of one SELECT per column, skipping NULLs as UNPIVOT does.")
    return exp.Subquery(this=query, alias=alias.copy())


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
