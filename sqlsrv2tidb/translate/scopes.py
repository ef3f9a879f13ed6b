"""Where a name in a T-SQL statement points: a table reference's key, a variable's name, the sources of a
query or DML statement, the CTE a name refers to, the FROM source an UPDATE or DELETE target binds to.

The type resolver and the DML and name rewrites read the same scopes the same way, so the rules live
here once: `#t`, `##t` and `@t` never collide with a permanent `t`; an UPDATE target that names one of
its FROM sources is that source.
"""

from __future__ import annotations

from collections.abc import Iterator

from sqlglot import exp


def table_key(table: exp.Table) -> str:
    """`#t`, `##t` and `@t` keep their prefix so they never collide with a permanent `t`."""
    if isinstance(table.this, exp.Parameter):
        return "@" + parameter_name(table.this).lower()
    ident = table.this
    prefix = ""
    if isinstance(ident, exp.Identifier):
        if ident.args.get("global_"):
            prefix = "##"
        elif ident.args.get("temporary"):
            prefix = "#"
    return prefix + table.name.lower()


def parameter_name(node: exp.Parameter) -> str:
    inner = node.this
    if isinstance(inner, exp.Parameter):
        return "@" + parameter_name(inner)
    return inner.name if inner is not None else ""


def from_tables(statement: exp.Expr) -> list[exp.Table]:
    """The tables of an UPDATE's FROM clause, or of a DELETE's (its first source and the joins on it)."""
    first = statement.this if isinstance(statement, exp.Delete) else None
    from_ = statement.args.get("from_")
    if from_ is not None:
        first = from_.this
    if first is None:
        return []
    items = [first, *[j.this for j in first.args.get("joins") or []], *[j.this for j in statement.args.get("joins") or []]]
    return [t for t in items if isinstance(t, exp.Table)]


def dml_target(statement: exp.Update | exp.Delete, target: exp.Table) -> exp.Table | None:
    """The FROM source a T-SQL UPDATE or DELETE target binds to, or None when it names none.

    `UPDATE o ... FROM dbo.orders o` names an alias. `UPDATE dbo.orders ... FROM dbo.orders o JOIN ...`
    names a table that appears once in FROM, aliased or not, and binds to that reference; when the
    table appears several times, the one reference without an alias is the target. Only a target
    absent from FROM is joined to the FROM sources as an extra table.
    https://learn.microsoft.com/sql/t-sql/queries/update-transact-sql#from-table_source
    """
    candidates = from_tables(statement)
    name = target.name.lower()
    if not target.db:
        by_alias = [t for t in candidates if t.alias and t.alias.lower() == name]
        if len(by_alias) == 1:
            return by_alias[0]
    same = [
        t for t in candidates
        if isinstance(t.this, exp.Identifier) and t.name.lower() == name
        and (not target.db or not t.db or t.db.lower() == target.db.lower())
    ]
    if len(same) > 1:
        same = [t for t in same if not t.alias]
    return same[0] if len(same) == 1 else None


def sources(scope: exp.Expr) -> Iterator[tuple[str, exp.Expr]]:
    """(alias, source) for every FROM/JOIN/USING source of a query or DML statement, alias lower case.

    An UPDATE target that names one of its FROM sources is that source, not a table of its own."""
    items: list[exp.Expr] = []
    if isinstance(scope, (exp.Update, exp.Delete, exp.Merge)) and isinstance(scope.this, exp.Table):
        if not (isinstance(scope, exp.Update) and scope.args.get("from_") is not None and dml_target(scope, scope.this)):
            items.append(scope.this)
    if isinstance(scope, exp.Merge) and scope.args.get("using") is not None:
        items.append(scope.args["using"])
    from_ = scope.args.get("from_")
    if from_ is not None:
        items.append(from_.this)
        items.extend(j.this for j in from_.this.args.get("joins") or [])
    items.extend(j.this for j in scope.args.get("joins") or [])
    for item in items:
        for source in _unnested(item):
            if isinstance(source, exp.Lateral):
                inner = source.this
                alias = source.alias or (inner.alias if isinstance(inner, exp.Subquery) else "")
                yield alias.lower(), inner
                continue
            yield source.alias_or_name.lower(), source


def parenthesized_join(source: exp.Expr) -> bool:
    """`(a JOIN b ON ...)` in a FROM clause: a Subquery without an alias around a table and its joins."""
    return isinstance(source, exp.Subquery) and not source.alias and isinstance(source.this, (exp.Table, exp.Subquery))


def _unnested(source: exp.Expr) -> Iterator[exp.Expr]:
    """A source and the sources joined to it, with parenthesized joins (`(a JOIN (b JOIN c ON ...) ON ...)`,
    Northwind's views nest them) opened at every depth."""
    if parenthesized_join(source):
        yield from _unnested(source.this)
    else:
        yield source
    for join in source.args.get("joins") or []:
        yield from _unnested(join.this)


def find_cte(node: exp.Expr, name: str) -> exp.CTE | None:
    lowered = name.lower()
    current: exp.Expr | None = node
    while current is not None:
        with_ = current.args.get("with_") if isinstance(current, exp.Expr) else None
        if with_ is not None:
            for cte in with_.expressions:
                if cte.alias.lower() == lowered:
                    return cte
        current = current.parent
    return None
