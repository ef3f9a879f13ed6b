"""What of an answer is still fixed where rows tie: a row limit that cuts a tie group, and numbers
that rows tied on their window's keys may swap.

SQL Server's documented rules (https://learn.microsoft.com/sql/t-sql/queries/top-transact-sql,
https://learn.microsoft.com/sql/t-sql/functions/row-number-transact-sql): `TOP n ... ORDER BY k`
with ties at the n-th row returns any of the tied rows, and ROW_NUMBER() over a non-unique ORDER BY
numbers tied rows in any order. Neither makes the whole answer a matter of chance:

- **Cut**: the rows before the last tie group are fixed (and, with OFFSET, the rows after the
  first); the last group's rows are some of the whole tie group, as many as the limit leaves, which
  the query without its limit returns in full (`unlimited.without_limit`). The answer shows where the
  groups are only when every ORDER BY key is an output column.
- **Numbered**: ROW_NUMBER() and NTILE() give the rows tied on the window's PARTITION BY and ORDER BY
  keys a fixed set of values, in any order among them. Where those keys are output columns, the
  rows without the number and the (keys, number) pairs are each fixed as a multiset: a numbered
  column of the outermost select (`numbered_column`), or of a derived table or CTE that the
  outermost select passes on column for column (`passed_on`), where `WHERE rn <= k` keeps the
  first k numbers as TOP k would (a cut too). Where the number is computed in a derived table or
  CTE and the query reads nothing of it but the keys and the number (`numbers_unseen`), the answer
  is fixed outright: tied rows look alike to it.

`shape_of` decides, with these, whether and how a query's answers are compared.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from ..model import Database
from .columns import cte_named, name_of, outputs_of, position, text_of

NUMBERING = (exp.RowNumber, exp.Ntile)
"""Window functions that give a tie group a fixed multiset of values (its rows' places), in any order."""


@dataclass(frozen=True)
class Cut:
    """The outermost row limit of a query whose ORDER BY is not total: it may cut a tie group."""

    limit: str
    """How the query limits its rows, in its words: TOP, TOP ... PERCENT, OFFSET ... FETCH, OFFSET, the filter
    on ROW_NUMBER()."""
    first: bool
    """The answer may start inside a tie group (an OFFSET; a filter on numbers, ordered the other way round)."""
    last: bool
    """The answer may end inside a tie group (TOP, FETCH, a filter on numbers)."""
    whole_sql: str
    """The query's T-SQL without the limit: every row in the same order, each tie group whole."""


@dataclass(frozen=True)
class Numbered:
    """An output column of ROW_NUMBER() or NTILE() whose window keys are all output columns."""

    position: int
    keys: tuple[int, ...]
    """The output columns of the window's PARTITION BY and ORDER BY keys."""
    function: str


def function_name(window: exp.Window) -> str:
    return window.this.sql(dialect="tsql").split("(", 1)[0].upper()


def numbered_column(window: exp.Window, query: exp.Query, outputs: list[exp.Expr] | None) -> Numbered | None:
    """The window as a numbered output column of the outermost select, when its value is an output
    column as it is (not inside an expression) and its keys are output columns too; else None."""
    if not isinstance(window.this, NUMBERING) or outputs is None or window.find_ancestor(exp.Select) is not query:
        return None
    found = next((i for i, out in enumerate(outputs) if out is window or (isinstance(out, exp.Alias) and out.this is window)),
                 None)
    if found is None:
        return None
    keys = _keys(window)
    places = [position(key, outputs, aliases=False) for key in keys]
    if not keys or any(p is None or p == found for p in places):
        return None
    return Numbered(found, tuple(dict.fromkeys(p for p in places if p is not None)), function_name(window))


@dataclass(frozen=True)
class PassedOn:
    """A numbered column of a derived table or CTE that the outermost select passes on as it is, and the
    outermost WHERE that keeps the first numbers (`rn <= k`), if any."""

    numbered: Numbered
    order_keys: tuple[int, ...]
    """The output columns of the window's ORDER BY keys alone."""
    partitioned: bool
    kept_by: exp.Expr | None


def passed_on(window: exp.Window, query: exp.Query, outputs: list[exp.Expr] | None,
              database: Database | None) -> PassedOn | None:
    """The window as a numbered column of the answer, where it numbers the rows of a derived table or CTE
    that the outermost select reads alone and returns column for column (`SELECT * FROM ranked ORDER BY
    ...`), keeping them all or only those whose number is at most a value (`WHERE rn <= 10`); else None."""
    select = window.find_ancestor(exp.Select)
    if not isinstance(window.this, NUMBERING) or outputs is None or select is None or select is query \
            or not isinstance(query, exp.Select) or not _plain(query):
        return None
    source = query.args["from_"].this if query.args.get("from_") else None
    holder = select.parent
    if isinstance(source, exp.Subquery) and source is holder:
        alias = source.args.get("alias")
    elif isinstance(source, exp.Table) and not source.db and isinstance(holder, exp.CTE) \
            and cte_named(source, source.name) is holder:
        alias = holder.args.get("alias")
    else:
        return None
    inner = outputs_of(select, database)
    listed = alias.args.get("columns") if isinstance(alias, exp.TableAlias) else None
    names = [c.name for c in listed] if listed else [name_of(o) for o in inner] if inner is not None else []
    if inner is None or len(names) != len(inner) or not all(names):
        return None
    index_of = {str(n).casefold(): i for i, n in enumerate(names)}
    columns = [o.this if isinstance(o, exp.Alias) else o for o in outputs]
    passed = [index_of.get(c.name.casefold()) if isinstance(c, exp.Column) and not isinstance(c.this, exp.Star) else None
              for c in columns]
    outer = {i: j for j, i in enumerate(passed) if i is not None}
    if len(outer) != sum(i is not None for i in passed):
        return None  # a column returned twice: its copy would be compared as fixed
    at = next((i for i, o in enumerate(inner) if o is window or (isinstance(o, exp.Alias) and o.this is window)), None)
    order = window.args.get("order")
    order_keys = [position(o.this, inner, aliases=False) for o in (order.expressions if order else ())]
    keys = [position(k, inner, aliases=False) for k in _keys(window)]
    if at is None or at not in outer or not keys or any(k is None or k not in outer for k in keys):
        return None
    kept_by = query.args.get("where")
    if kept_by is not None:
        kept_by = _kept_by(kept_by.this, str(names[at]))
        if kept_by is None:
            return None
    numbered = Numbered(outer[at], tuple(dict.fromkeys(outer[k] for k in keys if k is not None)), function_name(window))
    return PassedOn(numbered, tuple(outer[k] for k in order_keys if k is not None),
                    bool(window.args.get("partition_by")), kept_by)


def _plain(select: exp.Select) -> bool:
    """A select that returns the rows of its one source as they are: no join, grouping, DISTINCT, limit,
    aggregate or window of its own."""
    if any(select.args.get(k) for k in ("joins", "laterals", "group", "having", "distinct", "limit", "offset")):
        return False
    return not any(node.find_ancestor(exp.Select) is select for node in select.find_all(exp.AggFunc, exp.Window)) \
        and all(isinstance(o.this if isinstance(o, exp.Alias) else o, (exp.Column, exp.Star)) for o in select.expressions)


def _kept_by(condition: exp.Expr, name: str) -> exp.Expr | None:
    """`rn <= k`, `rn < k`, `rn = k` (or `k >= rn` ...) with k free of columns: the condition, else None."""
    if isinstance(condition, (exp.LTE, exp.LT, exp.EQ)):
        number, bound = condition.this, condition.expression
    elif isinstance(condition, (exp.GTE, exp.GT)):
        number, bound = condition.expression, condition.this
    else:
        return None
    if isinstance(number, exp.Column) and number.name.casefold() == name.casefold() and bound.find(exp.Column) is None \
            and bound.find(exp.Select) is None:
        return condition
    return None


def _keys(window: exp.Window) -> list[exp.Expr]:
    order = window.args.get("order")
    return [*(window.args.get("partition_by") or ()), *(o.this for o in (order.expressions if order else ()))]


def numbers_unseen(window: exp.Window, query: exp.Query, database: Database | None) -> bool:
    """Whether the query reads nothing of the window's rows but its keys and its value: the window numbers
    the rows of a derived table or CTE (with no other numbering window) and no column of it outside is
    any other, nor a `*` over it. The rows it feeds on are then the same multiset on every server."""
    if not isinstance(window.this, NUMBERING):
        return False
    select = window.find_ancestor(exp.Select)
    if select is None or select is query or sum(
            isinstance(w.this, (*NUMBERING, exp.Lag, exp.Lead, exp.FirstValue, exp.LastValue, exp.NthValue))
            for w in select.find_all(exp.Window) if w.find_ancestor(exp.Select) is select) != 1:
        return False
    holder = select.parent
    if isinstance(holder, exp.Subquery) and holder.alias:
        names = {holder.alias.casefold()}
    elif isinstance(holder, exp.CTE) and holder.alias:
        names = {t.alias_or_name.casefold() for t in query.find_all(exp.Table)
                 if not t.db and t.name.casefold() == holder.alias.casefold() and cte_named(t, t.name) is holder}
    else:
        return False
    hidden = _hidden_names(select, window, database, holder.args.get("alias"))
    if hidden is None:
        return False
    for node in query.walk():
        if node is select or inside(node, select):
            continue
        if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
            qualifier = node.table.casefold()
            if (not qualifier or qualifier in names) and node.name.casefold() in hidden:
                return False
        star = node if isinstance(node, exp.Star) else node.this if isinstance(node, exp.Column) else None
        if isinstance(star, exp.Star) and hidden and isinstance(node.parent, exp.Select) and node in node.parent.expressions:
            qualifier = node.table.casefold() if isinstance(node, exp.Column) else ""
            if qualifier in names or (not qualifier and _reads(node.parent, names)):
                return False
    return True


def _hidden_names(select: exp.Select, window: exp.Window, database: Database | None,
                  alias: exp.Expr | None) -> set[str] | None:
    """The names of the select's output columns that are neither the window's value nor one of its keys."""
    outputs = outputs_of(select, database)
    if outputs is None:
        return None
    listed = alias.args.get("columns") if isinstance(alias, exp.TableAlias) else None
    names = [c.name for c in listed] if listed else [name_of(o) for o in outputs]
    if len(names) != len(outputs) or not all(names):
        return None
    keys = {text_of(k) for k in _keys(window)}
    key_names = {k.name.casefold() for k in _keys(window) if isinstance(k, exp.Column)}
    hidden = set()
    for name, out in zip(names, outputs, strict=True):
        inner = out.this if isinstance(out, exp.Alias) else out
        seen = inner is window or text_of(inner) in keys or (isinstance(inner, exp.Column) and inner.name.casefold() in key_names)
        if not seen:
            hidden.add(str(name).casefold())
    return hidden


def _reads(select: exp.Select, names: set[str]) -> bool:
    sources = [select.args["from_"].this] if select.args.get("from_") else []
    sources += [join.this for join in select.args.get("joins") or ()]
    return any(s.alias_or_name.casefold() in names for s in sources)


def inside(node: exp.Expr, ancestor: exp.Expr) -> bool:
    """Whether `node` is somewhere below `ancestor`."""
    parent = node.parent
    while parent is not None:
        if parent is ancestor:
            return True
        parent = parent.parent
    return False
