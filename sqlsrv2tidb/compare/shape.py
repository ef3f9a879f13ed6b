"""What a read query's answer looks like before it is compared: ordered or not, and whether it can be.

Two servers give the same answer to a query only up to what the query fixes. Rows come back in any
order unless the outermost ORDER BY says otherwise; rows tied on the ORDER BY keys come back in any
order among themselves; TOP or OFFSET over rows that are not totally ordered picks any of the tied
rows; NEWID(), RAND() or GETDATE() give another value on each server and each run. `shape_of` reads
the T-SQL once (the translator's reader) and says which of these holds, so the comparison compares
in order only what is ordered, and reports as not comparable, with the reason, what no comparison
can judge.

A batch is read for its one query: the statements before it that only set variables or make temp
tables (`batches.setup_kind`) are set aside, though a value of the moment in them (`DECLARE @d date =
GETDATE()`, `SELECT NEWID() AS k INTO #t`) makes the answer not comparable all the same; any other
statement (a write, control flow, a second result set) is never compared.

Decisions a comparison relies on:

- `order_positions` are the output columns (0-based) of the outermost ORDER BY's keys, in key
  order, up to the first key that is not an output column: a key written as a position
  (`ORDER BY 2`), an output alias, a column the select list returns, or an expression written as
  in the select list (`ORDER BY YEAR(d)` with `YEAR(d)` selected). A key that is none of these (a
  column not selected, another expression) orders rows by something the answer does not hold, so
  the positions stop before it: the rows are in order of the keys before it and tie on all the
  rest. `()` when the first key is such a key (ordered, but by nothing the answer shows: compare
  as a multiset); None when the statement has no outermost ORDER BY.
- `total_order`: no two rows of the answer tie on all ORDER BY keys, as far as the schema can
  show it: the keys hold a primary key or unique index of the one table a single-table select
  reads, or every GROUP BY expression, or every output column (rows tied on all of those are
  the same row), or the query returns one row (an aggregate without GROUP BY). Joins, views and
  derived tables are taken as not totally ordered.
- ROW_NUMBER(), NTILE(), LAG(), LEAD(), FIRST_VALUE(), LAST_VALUE() are treated like TOP: their values
  are fixed only when the window's PARTITION BY and ORDER BY hold a unique key (of the one table a
  single-table select reads); otherwise the query is not comparable.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sqlglot import exp

from ..model import Database, Table
from ..translate.statements import parse_statements
from ..tsql.fingerprint import strip_parameter_prefix
from ..tsql.literals import tokens
from .batches import setup_kind


@dataclass(frozen=True)
class Shape:
    """How to compare the answers of one read query (see the module's docstring for the rules)."""

    order_positions: tuple[int, ...] | None
    """0-based output columns of the outermost ORDER BY keys, up to the first key not in the output;
    None when the statement does not order its answer (compare as a multiset)."""
    total_order: bool
    """The ORDER BY keys hold a unique key of the answer: no two rows tie on them."""
    not_comparable: str | None = None
    """Why the answers of the two servers cannot be compared, in a reader's words; None when they can."""
    output_columns: int | None = None
    """How many columns the answer has, when the select list says (no `*` over an unknown table)."""


_MOMENT = {exp.CurrentTimestamp: "CURRENT_TIMESTAMP", exp.CurrentDate: "the current date",
           exp.CurrentTime: "the current time", exp.CurrentDatetime: "the current time",
           exp.UtcTimestamp: "SYSUTCDATETIME()", exp.CurrentTimestampLTZ: "SYSDATETIMEOFFSET()",
           exp.Rand: "RAND()", exp.Uuid: "NEWID()", exp.NextValueFor: "NEXT VALUE FOR (a sequence's next number)"}
"""Node classes the reader makes of functions whose value is of the moment or random."""
_MOMENT_NAMES = {"NEWSEQUENTIALID", "CRYPT_GEN_RANDOM", "SYSDATETIMEOFFSET", "GETUTCDATE", "SYSUTCDATETIME",
                 "CURRENT_TIMEZONE", "@@DBTS"}
_SERVER_NAMES = {"HOST_NAME", "HOST_ID", "APP_NAME", "SUSER_NAME", "SUSER_SNAME", "SUSER_ID", "SUSER_SID", "USER_NAME",
                 "USER_ID", "DB_NAME", "DB_ID", "OBJECT_ID", "OBJECT_NAME", "SCHEMA_ID", "SERVERPROPERTY",
                 "DATABASEPROPERTYEX", "CONNECTIONPROPERTY", "SESSION_CONTEXT", "CONTEXT_INFO", "SCOPE_IDENTITY",
                 "IDENT_CURRENT", "@@SPID", "@@SERVERNAME", "@@VERSION", "@@IDENTITY", "@@ROWCOUNT", "@@TRANCOUNT",
                 "@@ERROR", "@@SERVICENAME", "@@LANGUAGE", "@@LOCK_TIMEOUT", "@@PROCID", "@@CONNECTIONS"}
_SESSION_USERS = (exp.CurrentUser, exp.SessionUser) if hasattr(exp, "SessionUser") else (exp.CurrentUser,)
_CATALOG_SCHEMAS = {"sys", "information_schema"}


def shape_of(tsql: str, database: Database | None) -> Shape:
    """The shape of one read query's answer; `database` (the SQL Server schema) lets unique keys show a
    total order and `*` count its columns. Never raises: what cannot be read is not comparable, saying why."""
    _, body = strip_parameter_prefix(tsql)
    statements = parse_statements(body)
    setup = [s for s in statements if setup_kind(tokens(s.sql)) == "setup"]
    rest = [s for s in statements if s not in setup]
    unreadable = next((s for s in rest if s.tree is None), None)
    if unreadable is not None:
        if unreadable.error is None:
            return Shape(None, False, "it runs control flow (IF, WHILE, BEGIN ... END, TRY ... CATCH): never compared")
        return Shape(None, False, f"the T-SQL reader cannot read it: {unreadable.error}")
    queries = [s.tree for s in rest if isinstance(s.tree, exp.Query)]
    others = [s for s in rest if not isinstance(s.tree, exp.Query)]
    if others:
        word = others[0].sql.split(None, 1)[0].upper() if others[0].sql.strip() else "?"
        return Shape(None, False, f"not only a read query: it runs {word} ... (a statement that writes or controls "
                                  "flow is never compared)")
    if len(queries) != 1:
        none = "no query in it" + (" (it only sets variables or makes temp tables)" if setup else "")
        return Shape(None, False, none if not queries else f"{len(queries)} result sets, not one")
    shape = _shape(queries[0], database)
    if shape.not_comparable is None:
        for statement in setup:  # a variable or a temp table set from the clock or at random: `DECLARE @d date = GETDATE()`
            reason = next((_moment(node) for node in statement.tree.walk() if _moment(node)), None) \
                if statement.tree is not None else None
            if reason is not None:
                return replace(shape, not_comparable=f"{reason} gives another value on each server and each run")
    return shape


def _shape(query: exp.Query, database: Database | None) -> Shape:
    if isinstance(query, exp.Select) and query.args.get("into") is not None:
        return Shape(None, False, "SELECT ... INTO writes a table")
    outputs = _outputs(query, database)
    order = query.args.get("order")
    positions = _positions(order, query, outputs) if order is not None else None
    total = order is not None and _total(query, order, outputs, database)
    reason = _not_comparable(query, database)
    return Shape(positions, total, reason, len(outputs) if outputs is not None else None)


# Output columns ---------------------------------------------------------------------------------------


def _first_select(query: exp.Expr) -> exp.Select | None:
    """The select whose list names the answer's columns (a union's first branch)."""
    while isinstance(query, (exp.SetOperation, exp.Subquery)):
        query = query.this
    return query if isinstance(query, exp.Select) else None


def _outputs(query: exp.Query, database: Database | None) -> list[exp.Expr] | None:
    """The select list of the answer, each `*` spelled out as the columns of its table when the schema
    has it; None when a `*` cannot be spelled out."""
    select = _first_select(query)
    if select is None:
        return None
    out: list[exp.Expr] = []
    for item in select.expressions:
        star = item if isinstance(item, exp.Star) else item.this if isinstance(item, exp.Column) and isinstance(item.this, exp.Star) else None
        if star is None:
            out.append(item)
            continue
        tables = _tables_of(select, database, item.table if isinstance(item, exp.Column) else None)
        if tables is None:
            return None
        for alias, table in tables:
            out.extend(exp.column(c.name, alias) for c in table.columns if not c.hidden)
    return out


def _tables_of(select: exp.Select, database: Database | None, qualifier: str | None) -> list[tuple[str, Table]] | None:
    """The schema's tables a `*` (or `alias.*`) of `select` expands to, in FROM order; None when one is unknown."""
    if database is None:
        return None
    sources = [select.args["from_"].this] if select.args.get("from_") else []
    sources += [join.this for join in select.args.get("joins") or ()]
    found = []
    for source in sources:
        if not isinstance(source, exp.Table):
            return None
        alias = source.alias_or_name
        if qualifier and alias.casefold() != qualifier.casefold():
            continue
        table = database.table(source.db or None, source.name)
        if table is None:
            return None
        found.append((alias, table))
    return found or None


def _name(expr: exp.Expr) -> str | None:
    """The name an output column is known by (its alias, or the column's name)."""
    if isinstance(expr, exp.Alias):
        return expr.alias
    if isinstance(expr, exp.Column) and not isinstance(expr.this, exp.Star):
        return expr.name
    return None


def _text(expr: exp.Expr) -> str:
    return expr.sql(dialect="tsql").casefold()


def _position(key: exp.Expr, outputs: list[exp.Expr] | None) -> int | None:
    """The output column an ORDER BY key names, or None when it is none of them."""
    if isinstance(key, exp.Literal) and key.is_int:
        index = int(key.name) - 1
        return index if outputs is None or 0 <= index < len(outputs) else None
    if outputs is None:
        return None
    if isinstance(key, exp.Column) and not key.table:
        for i, out in enumerate(outputs):
            if (_name(out) or "").casefold() == key.name.casefold():
                return i
    if isinstance(key, exp.Column):
        for i, out in enumerate(outputs):
            inner = out.this if isinstance(out, exp.Alias) else out
            if isinstance(inner, exp.Column) and inner.name.casefold() == key.name.casefold() and (
                    not key.table or not inner.table or inner.table.casefold() == key.table.casefold()):
                return i
    text = _text(key)
    for i, out in enumerate(outputs):
        if _text(out.this if isinstance(out, exp.Alias) else out) == text:
            return i
    return None


def _positions(order: exp.Order, query: exp.Query, outputs: list[exp.Expr] | None) -> tuple[int, ...]:
    positions: list[int] = []
    for ordered in order.expressions:
        position = _position(ordered.this, outputs)
        if position is None:
            break  # ordered by what the answer does not hold: the rest ties
        positions.append(position)
    return tuple(positions)


# Total order ------------------------------------------------------------------------------------------


def _total(query: exp.Query, order: exp.Order, outputs: list[exp.Expr] | None, database: Database | None) -> bool:
    keys = [ordered.this for ordered in order.expressions]
    if outputs is not None and {_position(k, outputs) for k in keys} >= set(range(len(outputs))):
        return True  # rows tied on every output column are the same row
    if not isinstance(query, exp.Select):
        return False
    group = query.args.get("group")
    if group is not None:
        if any(group.args.get(kind) for kind in ("grouping_sets", "cube", "rollup", "totals")):
            return False
        texts = {_text(_unalias(k, outputs)) for k in keys}
        return bool(group.expressions) and all(_text(g) in texts for g in group.expressions)
    if _one_row(query):
        return True
    table = _single_table(query, database)
    if table is None:
        return False
    alias, source = table
    columns = set()
    for key in keys:
        key = _unalias(key, outputs)
        if isinstance(key, exp.Column) and (not key.table or key.table.casefold() == alias.casefold()):
            columns.add(key.name.casefold())
    return any({c.casefold() for c in unique} <= columns for unique in _unique_keys(source))


def _one_row(select: exp.Select) -> bool:
    """An aggregate over the whole input (no GROUP BY, not a window): the answer is one row."""
    if select.args.get("group") is not None:
        return False
    aggregates = [agg for out in select.expressions for agg in out.find_all(exp.AggFunc)]
    return bool(aggregates) and not any(agg.find_ancestor(exp.Window, exp.Subquery) for agg in aggregates)


def _unalias(key: exp.Expr, outputs: list[exp.Expr] | None) -> exp.Expr:
    """An ORDER BY key written as an output alias or position, as the expression it stands for."""
    position = _position(key, outputs) if outputs is not None else None
    if position is not None and (isinstance(key, exp.Literal) or (isinstance(key, exp.Column) and not key.table)):
        out = outputs[position]
        return out.this if isinstance(out, exp.Alias) else out
    return key


def _single_table(select: exp.Select, database: Database | None) -> tuple[str, Table] | None:
    if database is None or select.args.get("joins") or select.args.get("laterals") or not select.args.get("from_"):
        return None
    source = select.args["from_"].this
    if not isinstance(source, exp.Table) or not source.name:
        return None
    table = database.table(source.db or None, source.name)
    return (source.alias_or_name, table) if table is not None else None


def _unique_keys(table: Table) -> list[tuple[str, ...]]:
    keys = [table.primary_key.column_names] if table.primary_key else []
    keys += [key.column_names for key in table.unique_keys]
    keys += [tuple(c.name for c in index.columns) for index in table.indexes
             if index.unique and not index.filter and not index.disabled and index.kind == "rowstore"]
    return [key for key in keys if key]


# Not comparable ---------------------------------------------------------------------------------------


def _not_comparable(query: exp.Query, database: Database | None) -> str | None:
    outer_order = query.args.get("order")
    for node in query.walk():
        reason = _moment(node)
        if reason is not None:
            if outer_order is not None and _inside(node, outer_order) and not _limited(query):
                continue  # only orders the answer, which is compared without that order
            return f"{reason} gives another value on each server and each run"
        if isinstance(node, exp.TableSample):
            return "TABLESAMPLE reads a random part of the table"
        if isinstance(node, exp.Table) and node.db.casefold() in _CATALOG_SCHEMAS:
            return f"it reads SQL Server's catalog ({node.db}.{node.name}), which TiDB does not have"
        if isinstance(node, (exp.Select, exp.SetOperation)) and _limited(node):
            reason = _unordered_limit(node, database)
            if reason is not None:
                return reason
        if isinstance(node, exp.Window) and isinstance(node.this, _ROW_PICKING):
            reason = _unordered_window(node, database)
            if reason is not None:
                return reason
    return None


_ROW_PICKING = (exp.RowNumber, exp.Ntile, exp.Lag, exp.Lead, exp.FirstValue, exp.LastValue, exp.NthValue)
"""Window functions whose value depends on the order of rows tied on the window's ORDER BY (RANK and
DENSE_RANK give ties the same value; aggregates over the whole partition do not depend on it)."""


def _unordered_window(window: exp.Window, database: Database | None) -> str | None:
    """Why ROW_NUMBER() and its kind number or pick rows no server has to number alike, or None: the
    PARTITION BY and ORDER BY columns must hold a unique key of the one table the select reads."""
    name = window.this.sql(dialect="tsql").split("(", 1)[0].upper()
    order = window.args.get("order")
    if order is None:
        return f"{name}() without ORDER BY in its OVER clause numbers the rows in any order"
    select = window.find_ancestor(exp.Select)
    table = _single_table(select, database) if select is not None else None
    if table is not None:
        alias, source = table
        keys = [*(window.args.get("partition_by") or ()), *(o.this for o in order.expressions)]
        columns = {k.name.casefold() for k in keys if isinstance(k, exp.Column)
                   and (not k.table or k.table.casefold() == alias.casefold())}
        if any({c.casefold() for c in unique} <= columns for unique in _unique_keys(source)):
            return None
    return (f"{name}() over an ORDER BY that is not unique (as far as the schema shows) numbers or picks the tied "
            "rows in any order")


def _moment(node: exp.Expr) -> str | None:
    if isinstance(node, (exp.CurrentTimestamp, exp.UtcTimestamp)) and type(node) in _MOMENT:
        precision = node.this.name if isinstance(node.this, exp.Literal) else ""  # the reader keeps 3 or 6 digits
        if isinstance(node, exp.UtcTimestamp):
            return "GETUTCDATE()" if precision == "3" else "SYSUTCDATETIME()"
        return {"3": "GETDATE()", "6": "SYSDATETIME()", "7": "SYSDATETIME()"}.get(precision, "CURRENT_TIMESTAMP")
    for cls, words in _MOMENT.items():
        if type(node) is cls:
            return words
    if isinstance(node, _SESSION_USERS):
        return "the session's user name"
    if isinstance(node, exp.Anonymous) and node.name.upper() in _MOMENT_NAMES:
        return f"{node.name.upper()}()"
    if isinstance(node, exp.Anonymous) and node.name.upper() in _SERVER_NAMES:
        return f"{node.name.upper()}(), a value of the server or the session,"
    if isinstance(node, exp.Parameter) and isinstance(node.this, exp.Parameter):
        name = "@@" + node.this.name
        if name.upper() in _SERVER_NAMES | _MOMENT_NAMES:
            return f"{name.upper()}, a value of the server or the session,"
    return None


def _inside(node: exp.Expr, ancestor: exp.Expr) -> bool:
    parent = node.parent
    while parent is not None:
        if parent is ancestor:
            return True
        parent = parent.parent
    return False


def _limited(query: exp.Expr) -> bool:
    return bool(query.args.get("limit") or query.args.get("offset"))


def _unordered_limit(query: exp.Expr, database: Database | None) -> str | None:
    """Why TOP / OFFSET ... FETCH picks rows no server has to pick alike, or None."""
    limit = query.args.get("limit")
    options = limit.args.get("limit_options") if limit is not None else None
    with_ties = bool(options and options.args.get("with_ties"))
    words = "OFFSET ... FETCH" if query.args.get("offset") or isinstance(limit, exp.Fetch) else "TOP"
    order = query.args.get("order")
    if isinstance(query, exp.Select) and _one_row(query):
        return None
    if order is None:
        return f"{words} without ORDER BY returns any rows"
    if any(_moment(node) for ordered in order.expressions for node in ordered.walk()):
        return f"{words} ordered by a random value returns any rows"
    if with_ties and not query.args.get("offset"):
        return None  # ties are all returned: the rows are fixed by the ORDER BY alone
    if not _total(query, order, _outputs(query, database), database):
        return f"{words} without a total order (the ORDER BY keys are not unique) returns any of the tied rows"
    return None
