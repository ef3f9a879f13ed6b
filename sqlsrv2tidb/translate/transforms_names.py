"""Names on TiDB: tables through the NameMap, temp tables, table variables, variables and parameters.

TiDB has databases but no schemas, so `dbo.Orders` becomes `Orders` (or `Sales_Customer` when two
schemas share a name) exactly as the DDL generator names it (`naming.NameMap`). Session objects
get a fixed prefix so they never collide with a permanent table: `#t` -> `tmp_t`, `##t` ->
`gtmp_t`, `@t` (a table variable) -> `var_t`. Declared local variables stay `@x` (session user
variables); captured parameters become markers that `queries` turns into `?`.
https://docs.pingcap.com/tidb/stable/temporary-tables
https://docs.pingcap.com/tidb/stable/user-defined-variables
"""

from __future__ import annotations

from sqlglot import exp

from .context import Context
from .scopes import parameter_name, sources
from .transforms_catalog import catalog_view
from .walk import breadth_first

PARAMETER_MARKER = "__sqlsrv2tidb_param_{}__"

# Catalog views and functions with no TiDB counterpart of the same shape.
_SYSTEM_SCHEMAS = {"sys"}
_TABLE_FUNCTIONS = {"OPENQUERY", "OPENROWSET", "OPENDATASOURCE", "OPENXML"}


def session_name(identifier: exp.Expr) -> str | None:
    """The TiDB name of a temp table or table variable reference, else None."""
    if isinstance(identifier, exp.Parameter):
        return "var_" + parameter_name(identifier)
    if isinstance(identifier, exp.Identifier):
        if identifier.args.get("global_"):
            return "gtmp_" + identifier.name
        if identifier.args.get("temporary"):
            return "tmp_" + identifier.name
    return None


def rewrite_names(tree: exp.Expr, ctx: Context, bound: set[str] | None = None) -> exp.Expr:
    """Rename every table, qualifier, variable and parameter in the statement for TiDB; `bound` collects the
    lower-case names of the parameters written as markers."""
    tables: list[exp.Table] = []
    columns: list[exp.Column] = []
    parameters: list[exp.Parameter] = []
    table_aliases: list[exp.TableAlias] = []
    ctes: set[str] = set()
    for node in breadth_first(tree):  # one pass over the tree collects everything the renames need
        cls = type(node)
        kind = _KINDS.get(cls)
        if kind is None:
            kind = _KINDS[cls] = _kind(cls)
        if kind is _OTHER:
            continue  # most nodes: nothing to rename or collect
        if kind is exp.Identifier:
            if node.quoted and node.name != node.name.rstrip(" "):
                # SQL Server ignores trailing spaces when it compares names: [Posts ] is Posts.
                node.set("this", node.name.rstrip(" "))
        elif kind is exp.Table:
            tables.append(node)
        elif kind is exp.Column:
            columns.append(node)
        elif kind is exp.Parameter:
            parameters.append(node)
        elif kind is exp.CTE:
            ctes.add(node.alias.lower())
        elif kind is exp.TableAlias:
            table_aliases.append(node)
    aliases = {t.alias.lower() for t in tables if t.alias}
    renamed: dict[str, str] = {}
    for table in tables:
        _table(table, tree, ctes, aliases, renamed, ctx)
    spelled = _alias_spelling(table_aliases, tables, ctes, aliases)
    qualifiers = {**spelled, **renamed}
    scopes: dict[int, list[tuple[str, exp.Expr]]] = {}  # each query's sources, listed once for all its columns
    for column in columns:
        _qualifier(column, qualifiers, ctx, scopes)
    for node in parameters:
        if isinstance(node.parent, exp.Parameter) or not _attached(node, tree):
            continue  # the name part of @@ROWCOUNT, or a table variable's name already renamed
        if node.parent is not None or node is tree:
            replacement = _variable(node, ctx)
            if replacement is not node:
                node.replace(replacement)
                if bound is not None and replacement.meta_get("parameter"):
                    bound.add(replacement.meta["parameter"].lstrip("@").lower())
    return tree


_OTHER = object()
_COLLECTED = (exp.Identifier, exp.Table, exp.Column, exp.Parameter, exp.CTE, exp.TableAlias)
_KINDS: dict[type, object] = {}
"""Which of `_COLLECTED` a node class is (the first it derives from), or `_OTHER`: learned once per class."""


def _kind(cls: type) -> object:
    return next((kind for kind in _COLLECTED if issubclass(cls, kind)), _OTHER)


def _table(table: exp.Table, tree: exp.Expr, ctes: set[str], aliases: set[str], renamed: dict[str, str], ctx: Context) -> None:
    this = table.this
    session = session_name(this)
    if session is not None:
        if isinstance(this, exp.Identifier) and this.args.get("global_"):
            ctx.note("QY15", "review", f"Global temp table ##{this.name} becomes a session temporary table {session}: "
                     "other sessions cannot see it on TiDB.")
        elif isinstance(this, exp.Identifier):
            ctx.note("QY15", "rewritten", f"Temp table #{this.name} becomes TiDB temporary table {session} (session-scoped, as in SQL Server).")
        table.set("this", exp.to_identifier(session))
        return
    if isinstance(this, exp.Dot):
        ctx.note("QY30", "unsupported", f"Four-part name {table.sql('sqlserver')}: TiDB has no linked servers.")
        return
    if isinstance(this, exp.Anonymous):
        name = this.name.upper()
        if name in _TABLE_FUNCTIONS:
            ctx.note("QY30", "unsupported", f"{name}(): TiDB has no linked servers or ad hoc remote sources.")
        else:
            qualified = f"{table.db}.{this.name}" if table.db else this.name
            ctx.note("QY36", "unsupported", f"Table-valued function {qualified}(): TiDB has no table-valued functions.")
        return
    if not isinstance(this, exp.Identifier):
        return
    name = this.name
    lowered = name.lower()
    if not table.db and lowered in ctes:
        return
    if _is_alias_reference(table, aliases):
        return
    derived = catalog_view(table, ctx)
    if derived is not None:
        table.replace(derived)
        return
    if (table.db or "").lower() in _SYSTEM_SCHEMAS or (
        not table.db and lowered in _SYS_VIEWS and ctx.database.table(None, name) is None
    ):
        ctx.note("QY49", "unsupported", f"Catalog view {table.sql('sqlserver')}: TiDB's catalog is information_schema, with other columns.")
        return
    if (table.db or "").lower() == "information_schema":
        ctx.note("QY49", "review", f"{table.sql('sqlserver')}: TiDB's information_schema has the same views, but TABLE_SCHEMA holds database names.")
        table.set("catalog", None)
        return
    database = table.catalog
    if database and (ctx.database.name or "").lower() != database.lower():
        ctx.note("QY29", "review", f"Cross-database name {table.sql('sqlserver')}: it assumes database {database} is migrated to TiDB under that name.")
        target = ctx.names.object(table.db or None, name)
        table.set("this", exp.to_identifier(target.name))
        table.set("db", exp.to_identifier(database))
        table.set("catalog", None)
        return
    target = ctx.names.object(table.db or None, name)
    if target.name != name and not table.alias and not isinstance(table.parent, exp.Schema):
        renamed[lowered] = target.name
    table.set("this", exp.to_identifier(target.name, quoted=this.quoted or None))
    table.set("db", exp.to_identifier(target.database) if target.database else None)
    table.set("catalog", None)


_SYS_VIEWS = {"sysobjects", "syscolumns", "sysindexes", "sysusers", "sysprocesses"}


def _alias_spelling(table_aliases: list[exp.TableAlias], tables: list[exp.Table], ctes: set[str], aliases: set[str]) -> dict[str, str]:
    """Every table alias, derived-table alias and CTE name spelled as where it is first defined, and each
    reference to one, or to a table by its name: SQL Server compares them case-insensitively, TiDB too,
    MySQL and MariaDB on Linux do not (`FROM Posts AS P ... p.Id` fails there). Returns lower-case
    name -> spelling. `table_aliases` in the order of the tree's breadth-first walk (renaming tables
    changes none of them)."""
    spelled: dict[str, str] = {}
    for alias in table_aliases:
        ident = alias.this
        if isinstance(ident, exp.Identifier) and ident.name:
            ident.set("this", spelled.setdefault(ident.name.lower(), ident.name))
    for table in tables:
        ident = table.this
        if not isinstance(ident, exp.Identifier):
            continue
        named = (not table.db and ident.name.lower() in ctes) or _is_alias_reference(table, aliases)
        if named and ident.name.lower() in spelled:
            ident.set("this", spelled[ident.name.lower()])
        elif not table.alias:
            spelled.setdefault(ident.name.lower(), ident.name)  # `FROM Users ... users.Id`
    return spelled


def _is_alias_reference(table: exp.Table, aliases: set[str]) -> bool:
    """`DELETE a FROM t AS a ...`: the first `a` names an alias, not a table."""
    parent = table.parent
    return isinstance(parent, exp.Delete) and table.arg_key == "tables" and table.name.lower() in aliases and not table.db


def _qualifier(column: exp.Column, renamed: dict[str, str], ctx: Context,
               scopes: dict[int, list[tuple[str, exp.Expr]]]) -> None:
    qualifier = column.args.get("table")
    if qualifier is None:
        return
    session = session_name(qualifier)
    scoped = _in_scope(column, qualifier.name.lower(), scopes) if session is None and not column.args.get("db") else None
    if session is not None:
        column.set("table", exp.to_identifier(session))
    elif scoped is not None:
        if scoped != qualifier.name:
            column.set("table", exp.to_identifier(scoped))
    elif qualifier.name.lower() in renamed and not column.args.get("db"):
        column.set("table", exp.to_identifier(renamed[qualifier.name.lower()]))
    if column.args.get("db") is not None and ctx.names.mode == "merge":
        table = column.table
        column.set("db", None)
        column.set("catalog", None)
        target = ctx.names.object(None, table)
        column.set("table", exp.to_identifier(renamed.get(table.lower(), target.name if target.name else table)))


def _in_scope(column: exp.Column, qualifier: str, scopes: dict[int, list[tuple[str, exp.Expr]]]) -> str | None:
    """The spelling of what a qualifier names in the nearest query that has it among its sources: a derived
    table's or a table's alias, or a table by its (renamed) name. `FROM (SELECT Votes.PostId FROM Votes) Votes
    ... Votes.PostId`: inside, the table `votes`; outside, the alias `Votes` (MySQL and MariaDB tell them apart
    by case). None when no enclosing query has it (the rename map decides)."""
    node = column.parent
    while node is not None:
        if isinstance(node, (exp.Select, exp.Update, exp.Delete, exp.Merge)):
            listed = scopes.get(id(node))
            if listed is None:
                listed = scopes[id(node)] = list(sources(node))
            for alias, source in listed:
                if alias != qualifier:
                    continue
                if isinstance(source, exp.Table) and not source.alias:
                    return source.name if isinstance(source.this, exp.Identifier) else None
                return source.alias or None
        node = node.parent
    return None


def _attached(node: exp.Expr, tree: exp.Expr) -> bool:
    """Still part of the tree (not replaced by a rename earlier in this pass)."""
    while node is not tree:
        parent = node.parent
        if parent is None:
            return False
        value = parent.args.get(node.arg_key)
        if value is not node and not (isinstance(value, list) and any(v is node for v in value)):
            return False
        node = parent
    return True


def _variable(node: exp.Parameter, ctx: Context) -> exp.Expr:
    if isinstance(node.this, exp.Parameter):
        return node  # @@global: handled (or flagged) by the scalar rewrites
    name = parameter_name(node)
    lowered = name.lower()
    if lowered in ctx.local_variables:
        return exp.Parameter(this=exp.var(name))
    if lowered not in ctx.parameters:
        ctx.parameters[lowered] = "@" + name
        ctx.note("QY26", "translated", f"@{name} is neither declared in the batch nor a captured parameter: it is bound as a parameter.")
    marker = exp.var(PARAMETER_MARKER.format(lowered))
    marker.meta["parameter"] = ctx.parameters[lowered]
    return marker
