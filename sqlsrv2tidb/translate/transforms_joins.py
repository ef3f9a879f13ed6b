"""Joins TiDB cannot run as SQL Server writes them: FULL OUTER JOIN, and subqueries in a join's ON condition.

TiDB has no FULL OUTER JOIN (https://docs.pingcap.com/tidb/stable/sql-statement-select: only LEFT,
RIGHT, INNER and CROSS joins), and its planner refuses a subquery inside ON ("ON condition doesn't
support subqueries yet", error 1105). Both are rewritten where the meaning is kept exactly and
reported unsupported elsewhere.
"""

from __future__ import annotations

from sqlglot import exp

from .context import Context
from .transforms_apply import conjuncts
from .transforms_select import order_by_outputs

_FULL_DOCS = "https://docs.pingcap.com/tidb/stable/sql-statement-select"


def full_outer_join(select: exp.Select, ctx: Context) -> exp.Expr:
    """`SELECT a.x, b.y FROM a FULL JOIN b ON a.id = b.id WHERE w ORDER BY b.y` ->
    `SELECT a.x, b.y FROM a LEFT JOIN b ON a.id = b.id WHERE w
    UNION ALL SELECT a.x, b.y FROM a RIGHT JOIN b ON a.id = b.id WHERE w AND a.id IS NULL ORDER BY 2`.

    The LEFT JOIN gives every row of the left side, matched or not; the RIGHT JOIN, kept to the rows
    whose left column of an equality in ON is NULL (it cannot be NULL in a matched row), adds the
    right rows nothing matched. That needs ON to hold `left.column = right.column`; a grouped or
    windowed query would aggregate each half apart, so those stay unsupported. The ORDER BY of the
    union names the select list by position (TiDB refuses a table name there, error 1250).
    https://learn.microsoft.com/sql/t-sql/queries/from-transact-sql#join-type
    """
    joins = select.args.get("joins") or []
    fulls = [j for j in joins if j.side == "FULL"]
    if not fulls:
        return select
    if len(fulls) > 1 or select.args.get("into") is not None or _grouped(select):
        what = "more than one FULL OUTER JOIN" if len(fulls) > 1 else "a FULL OUTER JOIN in a grouped, windowed or SELECT INTO query"
        ctx.note("QY53", "unsupported", f"TiDB has no FULL OUTER JOIN, and {what} cannot be rewritten as a union of a LEFT "
                 f"and a RIGHT JOIN with the same result ({_FULL_DOCS}).")
        return select
    join = fulls[0]
    index = joins.index(join)
    left = _left_aliases(select, index)
    right = join.this.alias_or_name.lower()
    probe = _left_column(join.args.get("on"), left, right)
    if probe is None:
        ctx.note("QY53", "unsupported", "TiDB has no FULL OUTER JOIN; it is rewritten only when ON holds an equality between a "
                 f"column of each side, which this one does not ({_FULL_DOCS}).")
        return select
    first, second = select.copy(), select.copy()
    for part in (first, second):
        for arg in ("with_", "order", "limit", "offset"):
            part.set(arg, None)
    first.args["joins"][index].set("side", "LEFT")
    second.args["joins"][index].set("side", "RIGHT")
    second.where(exp.Is(this=probe.copy(), expression=exp.Null()), copy=False)
    distinct = select.args.get("distinct") is not None
    union = exp.Union(this=first, expression=second, distinct=distinct)
    for arg in ("with_", "limit", "offset"):
        if select.args.get(arg) is not None:
            union.set(arg, select.args[arg].copy())
    order = select.args.get("order")
    if order is not None:
        order = order.copy()
        if order_by_outputs(order, first) is None:
            ctx.note("QY53", "unsupported", "TiDB has no FULL OUTER JOIN, and its union rewrite cannot order by a column that "
                     "is not in the select list.")
            return select
        union.set("order", order)
    ctx.note("QY53", "rewritten", "FULL OUTER JOIN becomes a LEFT JOIN UNION ALL the RIGHT JOIN's unmatched rows: TiDB has "
             "no FULL OUTER JOIN.")
    if isinstance(select.parent, exp.SetOperation):
        return exp.select(exp.Star()).from_(exp.Subquery(this=union, alias=exp.TableAlias(this=exp.to_identifier("__full"))))
    return union


def _grouped(select: exp.Select) -> bool:
    if select.args.get("group") is not None or select.args.get("having") is not None:
        return True
    for item in select.expressions:
        for node in item.walk():
            if isinstance(node, (exp.AggFunc, exp.Window)) and node.find_ancestor(exp.Select) is select:
                return True
    return False


def _left_aliases(select: exp.Select, upto: int) -> set[str]:
    from_ = select.args.get("from_")
    aliases = {from_.this.alias_or_name.lower()} if from_ is not None else set()
    for join in (select.args.get("joins") or [])[:upto]:
        aliases.add(join.this.alias_or_name.lower())
    return aliases


def _left_column(on: exp.Expr | None, left: set[str], right: str) -> exp.Column | None:
    """The left side's column of an `l.c = r.c` conjunct of ON: NULL exactly in the unmatched right rows."""
    for conjunct in conjuncts(on):
        while isinstance(conjunct, exp.Paren):
            conjunct = conjunct.this
        if not isinstance(conjunct, exp.EQ):
            continue
        sides = [conjunct.this, conjunct.expression]
        if not all(isinstance(s, exp.Column) and s.table for s in sides):
            continue
        tables = [s.table.lower() for s in sides]
        if tables[0] in left and tables[1] == right:
            return sides[0]
        if tables[1] in left and tables[0] == right:
            return sides[1]
    return None


def subquery_in_join_condition(select: exp.Select, ctx: Context) -> exp.Select:
    """`FROM a JOIN b ON a.id = b.id AND b.k IN (SELECT ...)` -> `FROM a JOIN b ON a.id = b.id WHERE b.k IN (SELECT ...)`;
    `FROM a LEFT JOIN b ON a.id = b.id AND b.k IN (SELECT ...)` ->
    `FROM a LEFT JOIN (SELECT * FROM b WHERE b.k IN (SELECT ...)) AS b ON a.id = b.id`;
    `FROM a LEFT JOIN b ON a.id = b.id AND NOT a.k IN (SELECT ...)` ->
    `FROM (SELECT a.*, NOT a.k IN (SELECT ...) AS __on1 FROM a) AS a LEFT JOIN b ON a.id = b.id AND a.__on1`.

    TiDB refuses a subquery in ON (error 1105, measured on TiDB v8.5.3). In an inner join a
    condition of ON filters the same rows in WHERE. In a LEFT JOIN, a condition on the joined table
    alone filters that table first; one on a single table of the preserved side is computed once per
    row of that table, in a derived table, and ON reads its value. Anything else stays unsupported.
    """
    counter = [0]
    for join in list(select.args.get("joins") or []):
        on = join.args.get("on")
        if on is None or not any(True for _ in on.find_all(exp.Query)):
            continue
        parts = conjuncts(on)
        moving = [c for c in parts if any(True for _ in c.find_all(exp.Query))]
        staying = [c for c in parts if not any(c is m for m in moving)]
        alias = join.this.alias_or_name
        if join.side in (None, "") and join.kind in (None, "", "INNER"):
            join.set("on", exp.and_(*staying) if staying else exp.true())
            for conjunct in moving:
                select.where(conjunct.copy(), copy=False)
            ctx.note("QY58", "rewritten", "A subquery in an inner join's ON condition moves to WHERE: TiDB refuses subqueries in ON.")
            continue
        if join.side != "LEFT":
            ctx.note("QY58", "unsupported", "A subquery in a RIGHT or FULL join's ON condition: TiDB refuses subqueries in ON.")
            continue
        kept: list[exp.Expr] = []
        for conjunct in moving:
            if isinstance(join.this, exp.Table) and alias and _only(conjunct, alias):
                _filter_joined(join, conjunct)
            elif (flag := _preserved_flag(select, join, conjunct, counter)) is not None:
                kept.append(flag)
            else:
                ctx.note("QY58", "unsupported", "A subquery in a LEFT JOIN's ON condition that reads more than one table: TiDB "
                         "refuses subqueries in ON, and moving it would change which rows are kept.")
                return select
        join.set("on", exp.and_(*staying, *kept) if staying or kept else exp.true())
        ctx.note("QY58", "rewritten", "A subquery in a LEFT JOIN's ON condition is computed in a derived table of the one table "
                 "it reads, and ON reads the result: TiDB refuses subqueries in ON.")
    return select


def _filter_joined(join: exp.Join, conjunct: exp.Expr) -> None:
    """The joined table becomes `(SELECT * FROM t AS alias WHERE conjunct) AS alias`."""
    alias = join.this.alias_or_name
    inner = join.this if isinstance(join.this, exp.Subquery) else None
    if inner is None:
        derived = exp.select(exp.Star()).from_(join.this.copy())
        join.set("this", exp.Subquery(this=derived, alias=exp.TableAlias(this=exp.to_identifier(alias))))
    join.this.this.where(conjunct.copy(), copy=False)


def _preserved_flag(select: exp.Select, upto: exp.Join, conjunct: exp.Expr, counter: list[int]) -> exp.Expr | None:
    """For a conjunct on one table of the preserved side: that table becomes a derived table with the
    conjunct's value as a column `__onN`; the column reference ON reads instead, or None."""
    sources = [select.args["from_"].this] if select.args.get("from_") is not None else []
    for join in select.args.get("joins") or []:
        if join is upto:
            break
        sources.append(join.this)
    if any(isinstance(p, exp.Star) for p in select.expressions):
        return None
    for source in sources:
        alias = source.alias_or_name
        if not (isinstance(source, exp.Table) and alias and _only(conjunct, alias)):
            continue
        if any(isinstance(p, exp.Column) and p.is_star and p.table.lower() == alias.lower() for p in select.expressions):
            return None
        counter[0] += 1
        name = f"__on{counter[0]}"
        derived = exp.select(exp.Column(this=exp.Star(), table=exp.to_identifier(alias)),
                             exp.alias_(conjunct.copy(), name)).from_(source.copy())
        source.replace(exp.Subquery(this=derived, alias=exp.TableAlias(this=exp.to_identifier(alias))))
        return exp.column(name, table=alias)
    return None


def _only(conjunct: exp.Expr, alias: str) -> bool:
    """Do the conjunct's columns all name `alias`, or a source of the subquery they are in?"""
    queries = list(conjunct.find_all(exp.Query))
    inner = {n.alias_or_name.lower() for q in queries for n in q.find_all(exp.Table, exp.Subquery)}
    inside_ids = {id(c) for q in queries for c in q.find_all(exp.Column)}
    for column in conjunct.find_all(exp.Column):
        inside = id(column) in inside_ids
        qualifier = column.table.lower()
        if not qualifier:
            if not inside:
                return False
            continue
        if qualifier != alias.lower() and not (inside and qualifier in inner):
            return False
    return True
