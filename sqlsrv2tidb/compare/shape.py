"""What a read query's answer looks like before it is compared: ordered or not, and whether it can be.

Two servers give the same answer to a query only up to what the query fixes. Rows come back in any
order unless the outermost ORDER BY says otherwise; rows tied on the ORDER BY keys come back in any
order among themselves; TOP or OFFSET over rows that are not totally ordered picks any of the tied
rows; ROW_NUMBER() numbers tied rows in any order; NEWID(), RAND() or GETDATE() give another value on
each server and each run. `shape_of` reads the T-SQL once (the translator's reader) and says which
of these holds, so the comparison compares in order only what is ordered, compares what ties leave
open only as far as the answer is fixed (`ties`), and reports as not comparable, with the reason,
what no comparison can judge.

A batch is read for its one query: the statements before it that only set variables or make temp
tables (`batches.setup_kind`) are set aside, though a value of the moment in them (`DECLARE @d date =
GETDATE()`, `SELECT NEWID() AS k INTO #t`) makes the answer not comparable all the same; any other
statement (a write, control flow, a second result set) is never compared.

Decisions a comparison relies on:

- `order_positions` are the output columns (0-based) of the outermost ORDER BY's keys, in key
  order, up to the first key that is not an output column (`columns.position`). A key that is not
  one orders rows by something the answer does not hold, so the positions stop before it: the rows
  are in order of the keys before it and tie on all the rest. `()` when the first key is such a key
  (ordered, but by nothing the answer shows: compare as a multiset); None when the statement has no
  outermost ORDER BY.
- `total_order`: no two rows of the answer tie on all ORDER BY keys, as far as the schema can
  show it: the keys hold a primary key or unique index of the one table a single-table select
  reads, or every GROUP BY expression, or every output column (rows tied on all of those are
  the same row), or the query returns one row (an aggregate without GROUP BY). Joins, views and
  derived tables are taken as not totally ordered.
- `cut`: the outermost TOP (or OFFSET ... FETCH) over an ORDER BY that is not total, whose every key
  is an output column: the answer is fixed but for the tie group the limit cuts, which is compared
  with the whole group read from SQL Server without the limit. A limit inside the query (a derived
  table, a CTE, a subquery) picks rows the answer cannot show: not comparable.
- `numbered`: ROW_NUMBER() and NTILE() are fixed when the window's PARTITION BY and ORDER BY hold a
  unique key (of the one table a single-table select reads). Otherwise, as an output column of the
  outermost select whose window keys are output columns too (and hold the outermost ORDER BY's), the
  rows are compared with the number free among rows tied on the keys; computed in a derived table or
  CTE the query reads nothing else of, it changes nothing. LAG(), LEAD(), FIRST_VALUE(),
  LAST_VALUE() over ties, and every other case, are not comparable.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from sqlglot import exp

from ..model import Database
from ..translate.statements import parse_statements
from ..tsql.fingerprint import strip_parameter_prefix
from ..tsql.literals import tokens
from .batches import setup_kind
from .columns import outputs_of, position, single_table, text_of, unalias, unique_keys
from .ties import Cut, Numbered, PassedOn, function_name, inside, numbered_column, numbers_unseen, passed_on
from .unlimited import without_filter, without_limit


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
    cut: Cut | None = None
    """The outermost row limit, where it may cut a tie group: compare that group with the whole of it."""
    numbered: tuple[Numbered, ...] = ()
    """Output columns of ROW_NUMBER() or NTILE() whose values rows tied on the window's keys may swap."""


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
    queries = [s for s in rest if isinstance(s.tree, exp.Query)]
    others = [s for s in rest if not isinstance(s.tree, exp.Query)]
    if others:
        word = others[0].sql.split(None, 1)[0].upper() if others[0].sql.strip() else "?"
        return Shape(None, False, f"not only a read query: it runs {word} ... (a statement that writes or controls "
                                  "flow is never compared)")
    if len(queries) != 1:
        none = "no query in it" + (" (it only sets variables or makes temp tables)" if setup else "")
        return Shape(None, False, none if not queries else f"{len(queries)} result sets, not one")
    shape = _shape(queries[0].tree, database, _Text(tsql, queries[0].sql))
    if shape.not_comparable is None:
        for statement in setup:  # a variable or a temp table set from the clock or at random: `DECLARE @d date = GETDATE()`
            reason = next((_moment(node) for node in statement.tree.walk() if _moment(node)), None) \
                if statement.tree is not None else None
            if reason is not None:
                return replace(shape, not_comparable=f"{reason} gives another value on each server and each run",
                               cut=None, numbered=())
    return shape


def moment_in(tsql: str) -> str | None:
    """The first value in any statement of `tsql` that differs on each server and each run (GETDATE(), NEWID(),
    RAND(), a sequence's next number...), in words, or None: what makes a write's effect not comparable."""
    _, body = strip_parameter_prefix(tsql)
    for statement in parse_statements(body):
        if statement.tree is None:
            continue
        found = next((_moment(node) for node in statement.tree.walk() if _moment(node)), None)
        if found is not None:
            return found
    return None


@dataclass(frozen=True)
class _Text:
    """The class's T-SQL and its query's statement in it, for the text without a limit."""

    tsql: str
    statement: str


def _shape(query: exp.Query, database: Database | None, text: _Text) -> Shape:
    if isinstance(query, exp.Select) and query.args.get("into") is not None:
        return Shape(None, False, "SELECT ... INTO writes a table")
    outputs = outputs_of(query, database)
    order = query.args.get("order")
    positions = _positions(order, outputs) if order is not None else None
    total = order is not None and _total(query, order, outputs, database)
    shape = Shape(positions, total, None, len(outputs) if outputs is not None else None)
    return _judged(query, database, shape, outputs, text)


def _positions(order: exp.Order, outputs: list[exp.Expr] | None) -> tuple[int, ...]:
    positions: list[int] = []
    for ordered in order.expressions:
        found = position(ordered.this, outputs)
        if found is None:
            break  # ordered by what the answer does not hold: the rest ties
        positions.append(found)
    return tuple(positions)


# Total order ------------------------------------------------------------------------------------------


def _total(query: exp.Query, order: exp.Order, outputs: list[exp.Expr] | None, database: Database | None) -> bool:
    keys = [ordered.this for ordered in order.expressions]
    if outputs is not None and {position(k, outputs) for k in keys} >= set(range(len(outputs))):
        return True  # rows tied on every output column are the same row
    if not isinstance(query, exp.Select):
        return False
    group = query.args.get("group")
    if group is not None:
        if any(group.args.get(kind) for kind in ("grouping_sets", "cube", "rollup", "totals")):
            return False
        texts = {text_of(unalias(k, outputs)) for k in keys}
        return bool(group.expressions) and all(text_of(g) in texts for g in group.expressions)
    if _one_row(query):
        return True
    table = single_table(query, database)
    if table is None:
        return False
    alias, source = table
    columns = set()
    for key in keys:
        key = unalias(key, outputs)
        if isinstance(key, exp.Column) and (not key.table or key.table.casefold() == alias.casefold()):
            columns.add(key.name.casefold())
    return any({c.casefold() for c in unique} <= columns for unique in unique_keys(source))


def _one_row(select: exp.Select) -> bool:
    """An aggregate over the whole input (no GROUP BY, not a window): the answer is one row."""
    if select.args.get("group") is not None:
        return False
    aggregates = [agg for out in select.expressions for agg in out.find_all(exp.AggFunc)]
    return bool(aggregates) and not any(agg.find_ancestor(exp.Window, exp.Subquery) for agg in aggregates)


# Not comparable ---------------------------------------------------------------------------------------


def _judged(query: exp.Query, database: Database | None, shape: Shape, outputs: list[exp.Expr] | None,
            text: _Text) -> Shape:
    """The shape with why the answers cannot be compared, or with what ties leave open in them."""
    outer_order = query.args.get("order")
    cut: Cut | None = None
    numbered: list[Numbered] = []
    kept: list[PassedOn] = []
    for node in query.walk():
        reason = _moment(node)
        if reason is not None:
            if outer_order is not None and inside(node, outer_order) and (not _limited(query) or cut is not None):
                continue  # only orders the answer (or the rows a limit picks from), which is compared without that order
            reason = f"{reason} gives another value on each server and each run"
        elif isinstance(node, exp.TableSample):
            reason = "TABLESAMPLE reads a random part of the table"
        elif isinstance(node, exp.Table) and node.db.casefold() in _CATALOG_SCHEMAS:
            reason = f"it reads SQL Server's catalog ({node.db}.{node.name}), which TiDB does not have"
        elif isinstance(node, (exp.Select, exp.SetOperation)) and _limited(node):
            reason = _unordered_limit(node, database)
            if reason is not None and reason.endswith((_TIES, _ANY)):
                if node is query:
                    cut, reason = _outer_cut(query, shape, text)
                elif reason.endswith(_TIES):
                    reason = reason.replace(_TIES, "picks any of the tied rows inside the query, where the answer cannot "
                                                   "show which")
        elif isinstance(node, exp.Window) and isinstance(node.this, _ROW_PICKING):
            reason = _unordered_window(node, database)
            found = numbered_column(node, query, outputs) if reason is not None else None
            if found is not None:
                numbered.append(found)
                reason = None
            elif reason is not None and numbers_unseen(node, query, database):
                reason = None
            elif reason is not None and (on := passed_on(node, query, outputs, database)) is not None:
                numbered.append(on.numbered)
                kept += [on] if on.kept_by is not None else []
                reason = None
        if reason is not None:
            return replace(shape, not_comparable=reason)
    if kept:
        cut, reason = _kept_cut(kept, shape, text)
        if reason is not None:
            return replace(shape, not_comparable=reason)
    reason = next((r for n in numbered if (r := _numbered_order(n, shape.order_positions, cut)) is not None), None)
    return replace(shape, not_comparable=reason, cut=cut if reason is None else None,
                   numbered=tuple(numbered) if reason is None else ())


_TIES = "returns any of the tied rows"
_ANY = "returns any rows"


def _outer_cut(query: exp.Query, shape: Shape, text: _Text) -> tuple[Cut | None, str | None]:
    """The outermost limit over an ORDER BY that is not total, as a cut of the last (or first) tie group
    when every ORDER BY key is an output column; else why not. Without an ORDER BY (or ordered at
    random) every row ties: the answer is as many rows as the limit leaves, any of them."""
    order, limit, offset = query.args.get("order"), query.args.get("limit"), query.args.get("offset")
    options = limit.args.get("limit_options") if limit is not None else None
    percent = bool(options and options.args.get("percent"))
    words = ("OFFSET ... FETCH" if isinstance(limit, exp.Fetch) else "OFFSET") if offset is not None else \
        "TOP ... PERCENT" if percent else "TOP"
    anyhow = order is None or any(_moment(node) for o in order.expressions for node in o.walk())
    keys = [] if anyhow else [o.this for o in order.expressions]
    if len(shape.order_positions or ()) < len(keys):
        hidden = keys[len(shape.order_positions or ())]
        return None, (f"{words} without a total order (the ORDER BY keys are not unique) returns any of the tied rows, "
                      f"and its ORDER BY key {hidden.sql(dialect='tsql')} is not an output column: the answer cannot show "
                      "which rows tie")
    whole = without_limit(text.tsql, text.statement)
    if whole is None:
        return None, (f"{words} without a total order (the ORDER BY keys are not unique) returns any of the tied rows, "
                      "and its text without the limit could not be made to read the whole tie group")
    with_ties = bool(options and options.args.get("with_ties"))
    return Cut(words, first=offset is not None, last=limit is not None and not with_ties, whole_sql=whole), None


def _kept_cut(kept: list[PassedOn], shape: Shape, text: _Text) -> tuple[Cut | None, str | None]:
    """`WHERE rn <= k` over a derived table's ROW_NUMBER() (without PARTITION BY) keeps its first k rows, as
    TOP k would: a cut, where the answer is ordered by the window's ORDER BY keys (either way round, so
    the cut group may be the first or the last); else why not."""
    on = kept[0]
    words = f"the filter on {on.numbered.function}()"
    if len(kept) > 1 or on.partitioned:
        return None, (f"{words} keeps the first rows of each partition, tied rows among them in any order: the answer "
                      "cannot show which")
    if not shape.order_positions or set(shape.order_positions) != set(on.order_keys):
        return None, (f"{words} keeps the first rows in the window's order, tied rows among them in any order, and the "
                      "answer is not ordered by the window's ORDER BY keys: the answer cannot show which rows tie")
    whole = without_filter(text.tsql, text.statement)
    if whole is None:
        return None, f"{words} keeps any of the tied rows, and the text without it could not be made"
    return Cut(words, first=True, last=True, whole_sql=whole), None


def _numbered_order(numbered: Numbered, positions: tuple[int, ...] | None, cut: Cut | None) -> str | None:
    """Why an ordered answer cannot hold a numbered column, or None: ordered by the number itself, or cut by a
    limit while ordered by columns other than the window's keys (a row the limit left out could hold the
    number a kept row of its tie would have had)."""
    if not positions:
        return None
    if numbered.position in positions:
        return (f"{numbered.function}() over an ORDER BY that is not unique orders the answer by its number, which the "
                "tied rows may swap")
    if cut is not None and not set(positions) <= set(numbered.keys):
        return (f"{numbered.function}() over an ORDER BY that is not unique numbers the tied rows in any order, and "
                f"{cut.limit} keeps rows in the order of columns other than its window's keys")
    return None


_ROW_PICKING = (exp.RowNumber, exp.Ntile, exp.Lag, exp.Lead, exp.FirstValue, exp.LastValue, exp.NthValue)
"""Window functions whose value depends on the order of rows tied on the window's ORDER BY (RANK and
DENSE_RANK give ties the same value; aggregates over the whole partition do not depend on it)."""


def _unordered_window(window: exp.Window, database: Database | None) -> str | None:
    """Why ROW_NUMBER() and its kind number or pick rows no server has to number alike, or None: the
    PARTITION BY and ORDER BY columns must hold a unique key of the one table the select reads."""
    name = function_name(window)
    order = window.args.get("order")
    if order is None:
        return f"{name}() without ORDER BY in its OVER clause numbers the rows in any order"
    select = window.find_ancestor(exp.Select)
    table = single_table(select, database) if select is not None else None
    if table is not None:
        alias, source = table
        keys = [*(window.args.get("partition_by") or ()), *(o.this for o in order.expressions)]
        columns = {k.name.casefold() for k in keys if isinstance(k, exp.Column)
                   and (not k.table or k.table.casefold() == alias.casefold())}
        if any({c.casefold() for c in unique} <= columns for unique in unique_keys(source)):
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
        return f"{words} without ORDER BY {_ANY}"
    if any(_moment(node) for ordered in order.expressions for node in ordered.walk()):
        return f"{words} ordered by a random value {_ANY}"
    if with_ties and not query.args.get("offset"):
        return None  # ties are all returned: the rows are fixed by the ORDER BY alone
    if not _total(query, order, outputs_of(query, database), database):
        return f"{words} without a total order (the ORDER BY keys are not unique) {_TIES}"
    return None
