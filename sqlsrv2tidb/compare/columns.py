"""The answer's columns as the T-SQL names them, and which of them an expression of the query is.

A comparison can rely on an ORDER BY key, a window's PARTITION BY or ORDER BY key, only where the
answer holds it: this module says which output column (0-based) an expression is, if any. The
select list is read with each `*` spelled out, from the schema for a table and from the select
list for a derived table or a CTE; `positions` finds a key written as a position (`ORDER BY 2`),
an output alias, a column the select list returns, or an expression written as in the select list.
`unique_keys` and `single_table` say which columns make a table's rows unique, for a total order.
"""

from __future__ import annotations

from sqlglot import exp

from ..model import Database, Table


def first_select(query: exp.Expr) -> exp.Select | None:
    """The select whose list names the answer's columns (a union's first branch)."""
    while isinstance(query, (exp.SetOperation, exp.Subquery)):
        query = query.this
    return query if isinstance(query, exp.Select) else None


def outputs_of(query: exp.Expr, database: Database | None) -> list[exp.Expr] | None:
    """The select list of the answer, each `*` spelled out as the columns of its source when they are
    known (a table of the schema, a derived table or CTE whose own list is known); None otherwise."""
    select = first_select(query)
    if select is None:
        return None
    out: list[exp.Expr] = []
    for item in select.expressions:
        star = item if isinstance(item, exp.Star) else item.this if isinstance(item, exp.Column) and isinstance(item.this, exp.Star) else None
        if star is None:
            out.append(item)
            continue
        sources = _sources_of(select, database, item.table if isinstance(item, exp.Column) else None)
        if sources is None:
            return None
        for alias, names in sources:
            out.extend(exp.column(name, alias) for name in names)
    return out


def _sources_of(select: exp.Select, database: Database | None, qualifier: str | None) -> list[tuple[str, list[str]]] | None:
    """The column names a `*` (or `alias.*`) of `select` expands to, per source in FROM order; None when
    one source's columns are unknown."""
    sources = [select.args["from_"].this] if select.args.get("from_") else []
    sources += [join.this for join in select.args.get("joins") or ()]
    found = []
    for source in sources:
        alias = source.alias_or_name
        if qualifier and alias.casefold() != qualifier.casefold():
            continue
        names = _source_columns(source, select, database)
        if names is None:
            return None
        found.append((alias, names))
    return found or None


def _source_columns(source: exp.Expr, select: exp.Select, database: Database | None) -> list[str] | None:
    if isinstance(source, exp.Subquery):
        return _named(source.this, database, source.args.get("alias"))
    if not isinstance(source, exp.Table) or not source.name:
        return None
    cte = None if source.db else cte_named(select, source.name)
    if cte is not None:
        return _named(cte.this, database, cte.args.get("alias"))
    table = database.table(source.db or None, source.name) if database is not None else None
    return [c.name for c in table.columns if not c.hidden] if table is not None else None


def _named(query: exp.Expr, database: Database | None, alias: exp.Expr | None) -> list[str] | None:
    """The column names of a derived table or CTE: its alias's column list, else its select list's names."""
    listed = alias.args.get("columns") if isinstance(alias, exp.TableAlias) else None
    if listed:
        return [c.name for c in listed]
    outputs = outputs_of(query, database)
    names = [name_of(o) for o in outputs] if outputs is not None else None
    return names if names is not None and all(names) else None  # type: ignore[return-value]


def cte_named(node: exp.Expr, name: str) -> exp.CTE | None:
    """The CTE a table name refers to from `node`, looked up in the WITH clauses around it."""
    scope: exp.Expr | None = node
    while scope is not None:
        with_ = scope.args.get("with_") if isinstance(scope, exp.Query) else None
        if with_ is not None:
            for cte in with_.expressions:
                if cte.alias.casefold() == name.casefold():
                    return cte
        scope = scope.parent
    return None


def name_of(expr: exp.Expr) -> str | None:
    """The name an output column is known by (its alias, or the column's name)."""
    if isinstance(expr, exp.Alias):
        return expr.alias
    if isinstance(expr, exp.Column) and not isinstance(expr.this, exp.Star):
        return expr.name
    return None


def text_of(expr: exp.Expr) -> str:
    return expr.sql(dialect="tsql").casefold()


def position(key: exp.Expr, outputs: list[exp.Expr] | None, aliases: bool = True) -> int | None:
    """The output column an ORDER BY key names, or None when it is none of them. A window's key
    (`aliases=False`) names the query's sources, never an output alias or a position."""
    if isinstance(key, exp.Literal) and key.is_int:
        index = int(key.name) - 1
        return index if aliases and (outputs is None or 0 <= index < len(outputs)) else None
    if outputs is None:
        return None
    if isinstance(key, exp.Column) and not key.table and aliases:
        for i, out in enumerate(outputs):
            if (name_of(out) or "").casefold() == key.name.casefold():
                return i
    if isinstance(key, exp.Column):
        for i, out in enumerate(outputs):
            inner = out.this if isinstance(out, exp.Alias) else out
            if isinstance(inner, exp.Column) and inner.name.casefold() == key.name.casefold() and (
                    not key.table or not inner.table or inner.table.casefold() == key.table.casefold()):
                return i
    text = text_of(key)
    for i, out in enumerate(outputs):
        if text_of(out.this if isinstance(out, exp.Alias) else out) == text:
            return i
    return None


def unalias(key: exp.Expr, outputs: list[exp.Expr] | None) -> exp.Expr:
    """An ORDER BY key written as an output alias or position, as the expression it stands for."""
    found = position(key, outputs) if outputs is not None else None
    if found is not None and outputs is not None and (isinstance(key, exp.Literal) or (isinstance(key, exp.Column) and not key.table)):
        out = outputs[found]
        return out.this if isinstance(out, exp.Alias) else out
    return key


def single_table(select: exp.Select, database: Database | None) -> tuple[str, Table] | None:
    """The one table of the schema a select reads (alias, table), when it reads one and nothing else."""
    if database is None or select.args.get("joins") or select.args.get("laterals") or not select.args.get("from_"):
        return None
    source = select.args["from_"].this
    if not isinstance(source, exp.Table) or not source.name:
        return None
    table = database.table(source.db or None, source.name)
    return (source.alias_or_name, table) if table is not None else None


def unique_keys(table: Table) -> list[tuple[str, ...]]:
    """The column sets no two rows of the table share: its primary key, unique constraints and indexes."""
    keys = [table.primary_key.column_names] if table.primary_key else []
    keys += [key.column_names for key in table.unique_keys]
    keys += [tuple(c.name for c in index.columns) for index in table.indexes
             if index.unique and not index.filter and not index.disabled and index.kind == "rowstore"]
    return [key for key in keys if key]
