"""The columns each row source of a statement gives, with their SQL Server types.

A column reference is typed by the source it names: a table of the captured schema, a temp table or
table variable the batch made, a view (its query, read from the captured definition), a CTE, a
derived table or APPLY, a VALUES list. A source that is a query gives its projections' types; a
set operation (UNION, INTERSECT, EXCEPT) and a VALUES list combine each column over their branches
and rows by SQL Server's rules (`type_rules.combine`: precedence, precision and scale, length); a
recursive CTE is typed by its anchor members, as SQL Server types it. A column no source can type is
None: the rewrite that needed it says so in a note.
https://learn.microsoft.com/sql/t-sql/queries/with-common-table-expression-transact-sql#guidelines-for-defining-and-using-recursive-common-table-expressions
https://learn.microsoft.com/sql/t-sql/language-elements/set-operators-union-transact-sql
"""

from __future__ import annotations

import functools
import re
import weakref
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.errors import ParseError

from ..model import Column, Database, Module, Table
from . import type_rules as rules
from .dialect import SqlServer
from .scopes import find_cte, sources, table_key

MISSING = object()
"""What a source answers for a column it does not have (None: it has it, of a type no one can know)."""


@dataclass(frozen=True)
class SchemaColumn:
    """A column reference resolved to a column of the captured schema."""

    type: exp.DataType | None
    column: Column


class SourceTypes:
    """Column references and row sources; `expression_types.Types` adds the expressions and holds the state."""

    database: Database
    default_table: Table | None
    temp_tables: dict[str, dict[str, exp.DataType]]
    temp_generated: dict[str, frozenset[str]]
    _resolved: dict[int, tuple[exp.Column, object]] | None
    _scopes: dict[int, tuple[exp.Expr, list]] | None
    _columns: dict[int, tuple[exp.Expr, dict[str, object]]] | None
    _open: set[int]

    def _of(self, node: exp.Expr) -> exp.DataType | None:  # pragma: no cover - Types gives it
        raise NotImplementedError

    # Column references -------------------------------------------------------------------------

    def column(self, column: exp.Column) -> exp.DataType | None:
        found = self._resolve(column)
        return found.type if isinstance(found, SchemaColumn) else found  # type: ignore[return-value]

    def schema_column(self, column: exp.Column) -> Column | None:
        """The captured column a reference resolves to, when it names a schema table's column."""
        found = self._resolve(column)
        return found.column if isinstance(found, SchemaColumn) else None

    def _resolve(self, column: exp.Column) -> object:
        cache = self._resolved
        if cache is not None:
            hit = cache.get(id(column))
            if hit is not None and hit[0] is column:
                return hit[1]
        found = self._resolve_in_scopes(column)
        if cache is not None:
            cache[id(column)] = (column, found)
        return found

    def _resolve_in_scopes(self, column: exp.Column) -> object:
        name = column.name
        qualifier = column.table
        node = column.parent
        while node is not None:
            if isinstance(node, (exp.Select, exp.Update, exp.Delete, exp.Merge)):
                found = self._in_sources(node, qualifier, name)
                if found is not MISSING:
                    return found
            node = node.parent
        if self.default_table is not None and (not qualifier or qualifier.lower() == self.default_table.name.lower()):
            return self._table_column(self.default_table, name)
        return None

    def _sources(self, scope: exp.Expr) -> list[tuple[str, exp.Expr]]:
        cache = self._scopes
        if cache is None:
            return list(sources(scope))
        hit = cache.get(id(scope))
        if hit is not None and hit[0] is scope:
            return hit[1]
        found = list(sources(scope))
        cache[id(scope)] = (scope, found)
        return found

    def _in_sources(self, scope: exp.Expr, qualifier: str, name: str) -> object:
        matches = []
        for alias, source in self._sources(scope):
            if qualifier and alias != qualifier.lower():
                continue
            found = self.source_column(source, name)
            if qualifier:
                return found if found is not MISSING else None
            if found is not MISSING:
                matches.append(found)
        if len(matches) == 1:
            return matches[0]
        return None if len(matches) > 1 else MISSING

    # Row sources -------------------------------------------------------------------------------

    def source_column(self, source: exp.Expr, name: str) -> object:
        """The type of column `name` of a row source (a SchemaColumn for a schema table's), None when the
        source has it but its type cannot be known, `MISSING` when the source has no such column."""
        cache = self._columns
        if cache is None:
            return self._source_column(source, name)
        hit = cache.get(id(source))
        if hit is None or hit[0] is not source:
            hit = cache[id(source)] = (source, {})
        known = hit[1]
        lowered = name.lower()
        if lowered not in known:
            known[lowered] = self._source_column(source, name)
        return known[lowered]

    def _source_column(self, source: exp.Expr, name: str) -> object:
        if isinstance(source, exp.Table):
            return self._table_source(source, name)
        if isinstance(source, exp.Lateral):
            source = source.this
        if is_split(source):
            return self._split_column(source, name)
        return self._derived_column(source, name, None)

    def _split_column(self, call: exp.Anonymous, name: str) -> object:
        """STRING_SPLIT's `value` (nvarchar when its string is, else varchar, of the string's length) and, with a third
        argument, `ordinal` (bigint). https://learn.microsoft.com/sql/t-sql/functions/string-split-transact-sql"""
        lowered = name.lower()
        if lowered == "ordinal" and len(call.expressions) == 3:
            return rules.BIGINT
        if lowered != "value" or not call.expressions:
            return MISSING
        string = self._of(call.expressions[0])
        return string if rules.category(string) == "string" else rules.sized(exp.DType.NVARCHAR, 4000)

    def _table_source(self, table: exp.Table, name: str) -> object:
        if isinstance(table.this, exp.OpenJSON):
            return _json_column(table.this, name)
        if is_split(table.this):
            return self._split_column(table.this, name)
        if not isinstance(table.this, (exp.Identifier, exp.Parameter)):
            return MISSING
        table_name = table.name
        cte = find_cte(table, table_name) if not table.db else None
        if cte is not None:
            return self._derived_column(cte, name, cte.alias.lower())
        key = table_key(table)
        if key in self.temp_tables:
            return self.temp_tables[key].get(name.lower(), MISSING)
        # As the NameMap names it: a schema prefix that names no such table falls back to the one table of that name.
        bare = table_name.rstrip()
        schema_table = self.database.table(table.db or None, bare) or self.database.table(None, bare)
        if schema_table is not None:
            return self._table_column(schema_table, name) or MISSING
        view = view_query(self.database, table.db or None, bare)
        if view is None:
            return None
        return self._derived_column(view, name, None)

    def _table_column(self, table: Table, name: str) -> SchemaColumn | None:
        column = table.column(name)
        if column is None:
            return None
        return SchemaColumn(_column_type(column), column)

    def _derived_column(self, source: exp.Expr, name: str, own: str | None) -> object:
        """Column `name` of a subquery, CTE (`own`: its name, whose recursive members are left out),
        VALUES list or view query, by its column list or its leftmost query's projection names."""
        alias = source.args.get("alias")
        query = source.this if isinstance(source, (exp.Subquery, exp.CTE)) else source
        listed = alias.columns if isinstance(alias, exp.TableAlias) else None
        lowered = name.lower()
        if listed:
            names = [c.name.lower() for c in listed]
            if lowered not in names:
                return MISSING
            return self._guarded(source, query, names.index(lowered), own)
        left = _leftmost(query)
        if left is None:
            return MISSING
        star = False
        for position, projection in enumerate(left.selects):
            if _is_star(projection):
                star = True
            elif projection.alias_or_name.lower() == lowered:
                return self._guarded(source, query, position, own) if not star else self._of(projection)
        if star and left is query:
            return self._in_sources(query, "", name)
        return MISSING

    def _guarded(self, source: exp.Expr, query: exp.Expr, position: int, own: str | None) -> exp.DataType | None:
        """`_column_at`, with a source met again while it is being typed (a CTE that reads itself outside
        a set operation, a view that reads itself) answered as unknown rather than looped through."""
        key = id(source)
        if key in self._open:
            return None
        self._open.add(key)
        try:
            return self._column_at(query, position, own)
        finally:
            self._open.discard(key)

    def _column_at(self, query: exp.Expr, position: int, own: str | None = None) -> exp.DataType | None:
        """The type of the column at `position` of a query, VALUES list or set operation."""
        while isinstance(query, exp.Subquery):
            query = query.this
        if isinstance(query, exp.Select):
            selects = query.selects
            if position >= len(selects) or any(_is_star(p) for p in selects[: position + 1]):
                return None
            return self._of(selects[position])
        if isinstance(query, exp.Values):
            return self.combined([row.expressions[position] for row in query.expressions
                                  if isinstance(row, exp.Tuple) and position < len(row.expressions)])
        if isinstance(query, exp.SetOperation):
            branches = list(_branches(query))
            if own is not None:
                anchors = [b for b in branches if not _reads(b, own)]
                branches = anchors or branches
            types: list[exp.DataType] = []
            for branch in branches:
                projection = _projection(branch, position)
                if projection is not None and _is_null(projection):
                    continue
                found = self._column_at(branch, position)
                if found is None:
                    return None
                types.append(found)
            return rules.combine(types) if types else rules.INTEGER
        return None

    def combined(self, nodes: list[exp.Expr]) -> exp.DataType | None:
        """The type of branches combined (CASE, COALESCE, a VALUES column): NULLs have none of their own, and
        one branch of unknown type makes the whole unknown; all NULL is int, as in SQL Server."""
        types = []
        for node in nodes:
            if _is_null(node):
                continue
            found = self._of(node)
            if found is None:
                return None
            types.append(found)
        return rules.combine(types) if types else rules.INTEGER

    def query_column(self, query: exp.Expr, position: int) -> exp.DataType | None:
        """The type of the column at `position` of a query: a SELECT's projection, a set operation's column
        combined over its branches, a VALUES list's over its rows."""
        return self._column_at(query, position)

    def column_names(self, source: exp.Expr) -> list[str] | None:
        """The names of the columns a FROM source yields, in order; None when they cannot be known."""
        if isinstance(source, exp.Lateral):
            source = source.this
        if isinstance(source, exp.Table):
            if not isinstance(source.this, (exp.Identifier, exp.Parameter)):
                return None
            cte = find_cte(source, source.name) if not source.db else None
            if cte is not None:
                return self.column_names(cte)
            temp = self.temp_tables.get(table_key(source))
            if temp is not None:
                return list(temp)
            bare = source.name.rstrip()
            table = self.database.table(source.db or None, bare) or self.database.table(None, bare)
            if table is not None:
                return [c.name for c in table.columns]
            view = view_query(self.database, source.db or None, bare)
            return self.column_names(view) if view is not None else None
        alias = source.args.get("alias")
        if isinstance(alias, exp.TableAlias) and alias.columns:
            return [c.name for c in alias.columns]
        query = source.this if isinstance(source, (exp.Subquery, exp.CTE)) else source
        left = _leftmost(query)
        if left is None:
            return None
        names: list[str] = []
        for projection in left.selects:
            if not _is_star(projection):
                if not projection.alias_or_name:
                    return None
                names.append(projection.alias_or_name)
                continue
            qualifier = projection.table.lower() if isinstance(projection, exp.Column) else ""
            starred = [s for a, s in sources(left) if not qualifier or a == qualifier]
            if not starred:
                return None
            for inner in starred:
                found = self.column_names(inner)
                if found is None:
                    return None
                names.extend(found)
        return names

    # Written columns ---------------------------------------------------------------------------

    def target_column(self, table: exp.Table, name: str) -> exp.DataType | None:
        """The SQL Server type of column `name` of a table a statement writes (None when it is unknown)."""
        found = self._table_source(table, name)
        if isinstance(found, SchemaColumn):
            return found.type
        return None if found is MISSING else found  # type: ignore[return-value]

    def insert_columns(self, table: exp.Table) -> list[str] | None:
        """The columns an INSERT without a column list writes, in order: every column but identity, computed and
        rowversion ones; None when the table is unknown."""
        key = table_key(table)
        if key in self.temp_tables:
            generated = self.temp_generated.get(key, frozenset())
            return [name for name in self.temp_tables[key] if name not in generated]
        bare = table.name.rstrip()
        schema_table = self.database.table(table.db or None, bare) or self.database.table(None, bare)
        if schema_table is None:
            return None
        return [c.name for c in schema_table.columns
                if c.identity is None and c.computed is None and c.type.name.lower() not in ("rowversion", "timestamp")]


@functools.lru_cache(maxsize=4096)
def _parse_type(text: str) -> exp.DataType | None:
    try:
        return exp.DataType.build(text, dialect=SqlServer, udt=True)
    except (ParseError, ValueError):
        return None


def type_of_declaration(text: str) -> exp.DataType | None:
    """A declared type (`nvarchar(50)`, `decimal(18,2)`, `dbo.Name` already resolved) as a DataType; `float(n)`
    with n up to 24 is real (https://learn.microsoft.com/sql/t-sql/data-types/float-and-real-transact-sql)."""
    found = _parse_type(text.strip().lower())
    if found is not None and found.this == exp.DType.DOUBLE and found.expressions:
        digits = found.expressions[0].name
        if digits.isdigit() and int(digits) <= 24:
            return rules.REAL
    return found


def _column_type(column: Column) -> exp.DataType | None:
    """A schema column's SQL Server type (None for a computed one: its expression's type is not read here), read
    once per column for as long as the schema lives."""
    hit = _COLUMN_TYPES.get(id(column))
    if hit is not None and hit[0] is column:
        return hit[1]
    found = None if column.computed is not None else type_of_declaration(str(column.type))
    if len(_COLUMN_TYPES) > 200_000:
        _COLUMN_TYPES.clear()
    _COLUMN_TYPES[id(column)] = (column, found)
    return found


_COLUMN_TYPES: dict[int, tuple[Column, exp.DataType | None]] = {}
"""Column (by identity, kept alive here so its id is not reused) -> its type."""


def _is_star(projection: exp.Expr) -> bool:
    return isinstance(projection, exp.Star) or (isinstance(projection, exp.Column) and projection.is_star)


def _is_null(node: exp.Expr) -> bool:
    while isinstance(node, (exp.Alias, exp.Paren)):
        node = node.this
    return isinstance(node, exp.Null)


def _leftmost(query: exp.Expr) -> exp.Select | None:
    """The first SELECT of a query: the one whose projections name a set operation's columns."""
    while isinstance(query, (exp.SetOperation, exp.Subquery)):
        query = query.this
    return query if isinstance(query, exp.Select) else None


def _branches(query: exp.Expr):
    """The queries a set operation combines, nested ones opened."""
    if isinstance(query, exp.SetOperation):
        yield from _branches(query.this)
        yield from _branches(query.expression)
    elif isinstance(query, exp.Subquery) and isinstance(query.this, exp.SetOperation):
        yield from _branches(query.this)
    else:
        yield query


def _projection(branch: exp.Expr, position: int) -> exp.Expr | None:
    while isinstance(branch, exp.Subquery):
        branch = branch.this
    if isinstance(branch, exp.Select) and position < len(branch.selects):
        return branch.selects[position]
    return None


def _reads(branch: exp.Expr, name: str) -> bool:
    """Whether a CTE member reads the CTE `name` itself (a recursive member)."""
    return any(not t.db and t.name.lower() == name for t in branch.find_all(exp.Table))


# Views and functions --------------------------------------------------------------------------

_READ: dict[int, tuple[weakref.ref[Database], dict[str, object]]] = {}
"""Per captured schema (by identity, for as long as it lives): what was read of its modules, read once."""


def _read_once(database: Database, key: str, read):
    """`read()`, remembered for `database` under `key`."""
    ident = id(database)
    entry = _READ.get(ident)
    if entry is None or entry[0]() is not database:
        entry = (weakref.ref(database, lambda _: _READ.pop(ident, None)), {})
        _READ[ident] = entry
    found = entry[1]
    if key not in found:
        found[key] = read()
    return found[key]


def view_query(database: Database, schema: str | None, name: str) -> exp.Expr | None:
    """The query of a view of the captured schema, as a derived table whose alias lists the view's column
    names when its definition gives them; None when there is no such view or its definition cannot be read."""
    if not database.modules:
        return None

    def read() -> exp.Expr | None:
        module = _find_module(database, "view", schema, name)
        return _read_view(module) if module is not None else None

    return _read_once(database, f"view {(schema or '').lower()}.{name.lower()}", read)  # type: ignore[no-any-return]


def function_type(database: Database, schema: str | None, name: str) -> exp.DataType | None:
    """The type a scalar function of the captured schema returns (its definition's RETURNS), None when unknown."""
    if not database.modules:
        return None

    def read() -> exp.DataType | None:
        module = _find_module(database, "function", schema, name)
        if module is None or not module.definition or module.function_kind not in (None, "scalar"):
            return None
        found = _RETURNS.search(module.definition)
        return type_of_declaration(found.group(1).replace("[", "").replace("]", "")) if found else None

    return _read_once(database, f"function {(schema or '').lower()}.{name.lower()}", read)  # type: ignore[no-any-return]


_RETURNS = re.compile(r"\bRETURNS\s+(\w+(?:\s*\(\s*(?:\d+|max)\s*(?:,\s*\d+\s*)?\))?)\s*(?:\bWITH\b|\bAS\b|\bBEGIN\b)",
                      re.IGNORECASE)


def _find_module(database: Database, kind: str, schema: str | None, name: str) -> Module | None:
    folded = name.casefold()
    found = [m for m in database.modules if m.kind == kind and m.name.casefold() == folded]
    if schema is not None:
        found = [m for m in found if (m.schema or "").casefold() == schema.casefold()] or found
    return found[0] if len(found) == 1 else next((m for m in found if (m.schema or "").casefold() == "dbo"), None)


def is_split(node: exp.Expr | None) -> bool:
    """A call of STRING_SPLIT, the one table-valued built-in a row source can be (transforms_split writes it)."""
    return isinstance(node, exp.Anonymous) and node.name.upper() == "STRING_SPLIT"


def _json_column(openjson: exp.OpenJSON, name: str) -> object:
    """A column of OPENJSON: as its WITH clause declares it, or key, value and type without one.
    https://learn.microsoft.com/sql/t-sql/functions/openjson-transact-sql"""
    declared = openjson.expressions
    lowered = name.lower()
    if declared:
        for column in declared:
            if column.name.lower() == lowered:
                kind = column.args.get("kind")
                return rules.STRING if column.args.get("as_json") else kind if isinstance(kind, exp.DataType) else None
        return MISSING
    return _DEFAULT_JSON.get(lowered, MISSING)


_DEFAULT_JSON = {"key": rules.sized(exp.DType.NVARCHAR, 4000), "value": rules.sized(exp.DType.NVARCHAR, 2**31),
                 "type": rules.INTEGER}
def _read_view(module: Module) -> exp.Expr | None:
    from .statements import parse_statements

    if not module.definition:
        return None
    try:
        statements = parse_statements(module.definition)
    except Exception:  # noqa: BLE001 - a view the reader cannot read is a view of unknown columns
        return None
    create = next((s.tree for s in statements if isinstance(s.tree, exp.Create)), None)
    if create is None or not isinstance(create.expression, exp.Query):
        return None
    names = create.this.expressions if isinstance(create.this, exp.Schema) else []
    alias = exp.TableAlias(this=exp.to_identifier(module.name), columns=[n.copy() for n in names]) if names else None
    return exp.Subquery(this=create.expression, alias=alias)
