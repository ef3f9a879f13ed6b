"""The rows one INSERT, UPDATE, DELETE or MERGE changes, read by key on the target inside its transaction.

A trigger's `inserted` and `deleted`, an OUTPUT clause, a temporal table's history and compare's end
state all need one thing: the rows a statement is about to change, read just before it runs, and
the rows it leaves, read just after, by the table's key, inside the statement's transaction. The
target has no OUTPUT, no RETURNING and no triggers, so the runner asks it (`read_changes`):

- before: the table's columns for the rows the statement's own FROM, joins and WHERE find (an
  UPDATE or DELETE; a MERGE's matched rows), with the new key an UPDATE of the key gives them;
- the statement;
- after: the same keys read again, with the keys an INSERT adds: the values it gives the key
  (`new_keys`: its VALUES or its SELECT, read before it runs), or the range LAST_INSERT_ID()
  starts when the table's IDENTITY (AUTO_INCREMENT) numbers the rows.

The reads are derived from the T-SQL statement when its procedure is compiled (`plan_changes`) and
translated in the same session, so they bind the same variables; their T-SQL text is kept too, for
SQL Server. Only the rows the statement changes are read, never the table, and at most `ROW_LIMIT`
of them are kept for the caller (a trigger that needs them all reads them on the server).
https://learn.microsoft.com/sql/relational-databases/triggers/use-the-inserted-and-deleted-tables
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from ..model import Database, Table
from ..translate.naming import NameMap
from ..translate.session import SentStatement, StatementTranslation

ROW_LIMIT = 10_000
"""Rows of one statement kept on the client; past it the change is `truncated` (its keys still counted)."""
KEY_CHUNK = 500
"""Keys per read by key (SQL Server takes 2,100 parameters in one statement)."""
NEW_KEY = "sqlsrv2tidb_new_"


@dataclass(frozen=True)
class TableKey:
    """A table a statement changes, as both servers name it, and how its rows are found again."""

    schema: str
    name: str
    target: str
    """The target's name, quoted as the DDL writes it."""
    columns: tuple[str, ...]
    """Every column, in the table's order (the target keeps SQL Server's column names)."""
    key: tuple[str, ...]
    """The primary key's columns, else the first unique key's; () when the table has neither."""
    identity: str | None = None
    """The IDENTITY column (AUTO_INCREMENT on the target), if any."""
    target_name: str = ""
    """The target's table name, unquoted; `target_database` its database (None: the connection's)."""
    target_database: str | None = None
    sequence: str | None = None
    """The target's sequence (quoted) a one-column key takes by default (`DEFAULT NEXT VALUE FOR s`), if any."""
    sequence_increment: int = 1

    @property
    def qualified_name(self) -> str:
        return f"{self.schema}.{self.name}"

    def key_of(self, row: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(row[self.columns.index(c)] for c in self.key)


@dataclass(frozen=True)
class ChangePlan:
    """How the rows of one statement's change are read: compiled with the statement."""

    kind: str
    """insert, update, delete or merge."""
    table: TableKey
    before: tuple[SentStatement, ...] = ()
    """The rows it will change (its columns, then the new key where an UPDATE sets one), translated."""
    before_tsql: str | None = None
    """The keys (and new keys) of those rows, in T-SQL: what SQL Server is asked."""
    new_keys: tuple[SentStatement, ...] = ()
    """The key values an INSERT gives its rows, translated (read before it runs)."""
    new_keys_tsql: str | None = None
    generated: bool = False
    """The table's IDENTITY numbers the rows it inserts: their keys start at LAST_INSERT_ID()."""
    unknown: str | None = None
    """Why the rows cannot be read (no key, a form not derived), None when they can."""
    new_key_columns: tuple[str, ...] = ()
    """The key columns an UPDATE sets: their new values follow the table's columns in `before`'s rows."""
    set_columns: tuple[str, ...] = ()
    """The columns an UPDATE sets (a trigger's UPDATE(column) is true for them)."""
    unread: str | None = None
    """A MERGE: why some rows it changes are not read (WHEN NOT MATCHED BY SOURCE, an INSERT without the key), or None."""


@dataclass
class Change:
    """What one statement changed on the target: the rows before (deleted) and after (inserted), by key."""

    plan: ChangePlan
    procedure: str
    line: int
    rowcount: int
    deleted: list[tuple[Any, ...]] = field(default_factory=list)
    inserted: list[tuple[Any, ...]] = field(default_factory=list)
    keys: list[tuple[Any, ...]] = field(default_factory=list)
    """Every key the statement touched: old and new, inserted ones included."""
    generated: list[Any] = field(default_factory=list)
    """The IDENTITY values it generated, in order."""
    description: Any = None
    truncated: bool = False

    @property
    def table(self) -> TableKey:
        return self.plan.table


Translate = Callable[[exp.Expr], StatementTranslation]
"""The translator session of the unit the statement belongs to (so the reads bind its variables)."""


def table_key(database: Database, names: NameMap, table: Table) -> TableKey:
    key: tuple[str, ...] = ()
    if table.primary_key is not None:
        key = table.primary_key.column_names
    elif table.unique_keys:
        key = table.unique_keys[0].column_names
    else:
        unique = next((i for i in table.indexes if i.unique and i.filter is None and i.kind == "rowstore"), None)
        key = tuple(c.name for c in unique.columns) if unique is not None else ()
    identity = next((c.name for c in table.columns if c.identity is not None), None)
    named = names.object(table.schema, table.name)
    sequence, increment = _key_sequence(database, names, table, key)
    return TableKey(table.schema, table.name, named.quoted(), tuple(c.name for c in table.columns), key, identity,
                    named.name, named.database, sequence, increment)


_NEXT_VALUE = re.compile(r"NEXT\s+VALUE\s+FOR\s+((?:\[[^\]]+\]|\w+)(?:\s*\.\s*(?:\[[^\]]+\]|\w+))?)", re.IGNORECASE)


def _key_sequence(database: Database, names: NameMap, table: Table, key: tuple[str, ...]) -> tuple[str | None, int]:
    """The sequence a one-column key's default draws from (`NEXT VALUE FOR Sequences.OrderID`), and its increment."""
    if len(key) != 1:
        return None, 1
    column = next((c for c in table.columns if c.name.casefold() == key[0].casefold()), None)
    found = _NEXT_VALUE.search(column.default or "") if column is not None else None
    if found is None:
        return None, 1
    parts = [p.strip().strip("[]") for p in found[1].split(".")]
    schema, name = (parts[0] if len(parts) > 1 else None), parts[-1]
    sequence = next((q for q in database.sequences if q.name.casefold() == name.casefold()
                     and (schema is None or q.schema.casefold() == schema.casefold())), None)
    return names.object(schema, name).quoted(), (sequence.increment if sequence is not None and sequence.increment else 1)


def changed_table(tree: exp.Expr, database: Database) -> tuple[Table, exp.Table] | None:
    """The schema's table an INSERT, UPDATE, DELETE or MERGE changes (not a temp table or table variable), with
    the node that names it."""
    if not isinstance(tree, (exp.Insert, exp.Update, exp.Delete, exp.Merge)):
        return None
    node = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
    if isinstance(tree, exp.Delete) and tree.args.get("tables"):
        node = tree.args["tables"][0]
    if not isinstance(node, exp.Table) or not isinstance(node.this, exp.Identifier):
        return None
    if node.this.args.get("temporary") or node.this.args.get("global_") or node.name.startswith(("#", "@")):
        return None
    if isinstance(tree, (exp.Update, exp.Delete)) and not node.args.get("db"):
        source = _source_of(tree, node.name)
        if source is not None:
            node = source
    found = database.table(node.args["db"].name if node.args.get("db") else None, node.name)
    return (found, node) if found is not None else None


def _view_written(tree: exp.Expr, database: Database, names: NameMap) -> ChangePlan | None:
    """A write through a view of the schema: its base table's rows are not derived (the view's own query decides
    which they are), said so."""
    if not isinstance(tree, (exp.Insert, exp.Update, exp.Delete)):
        return None
    node = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
    if not isinstance(node, exp.Table):
        return None
    schema = node.args["db"].name if node.args.get("db") else None
    view = next((m for m in database.modules_of("view") if m.name.casefold() == node.name.casefold()
                 and (schema is None or (m.schema or "dbo").casefold() == schema.casefold())), None)
    if view is None:
        return None
    key = TableKey(view.schema or "dbo", view.name, names.object(view.schema, view.name).quoted(), (), ())
    return ChangePlan(type(tree).__name__.lower(), key,
                      unknown=f"it writes through the view {view.qualified_name} (MO10: TiDB's views are read-only): the "
                              "rows of its base table are not read")


def plan_changes(tree: exp.Expr, database: Database, names: NameMap, translate: Translate,
                 keyless_delete: bool = False) -> ChangePlan | None:
    """How the rows a DML statement changes are read, or None when it changes no table of the schema. `keyless_delete`:
    a DELETE from a table without a key still reads the rows it will delete (an OUTPUT clause needs no more)."""
    found = changed_table(tree, database)
    if found is None:
        return _view_written(tree, database, names)
    table, node = found
    key = table_key(database, names, table)
    kind = type(tree).__name__.lower()
    if not key.key and keyless_delete and isinstance(tree, exp.Delete):
        try:
            return _update_or_delete(tree, kind, key, node, translate)
        except _NotDerived as why:
            return ChangePlan(kind, key, unknown=str(why))
    if not key.key:
        return ChangePlan(kind, key, unknown=f"{key.qualified_name} has no primary or unique key to find its rows by")
    try:
        if isinstance(tree, exp.Insert):
            return _insert(tree, key, translate)
        if isinstance(tree, exp.Merge):
            return _merge(tree, key, node, translate)
        return _update_or_delete(tree, kind, key, node, translate)
    except _NotDerived as why:
        return ChangePlan(kind, key, unknown=str(why))


class _NotDerived(Exception):
    """The statement's form is not one whose rows are derived here (the reason)."""


def _columns(alias: str, key: TableKey) -> list[exp.Expr]:
    return [exp.column(c, table=alias, quoted=True) for c in key.columns]


def _alias(node: exp.Table) -> str:
    return node.alias or node.name


def _source_of(tree: exp.Expr, name: str) -> exp.Table | None:
    """The table an UPDATE or DELETE names by an alias of its FROM (`UPDATE o SET ... FROM Orders o`, `DELETE o FROM
    Orders o JOIN ...`)."""
    source = tree.args.get("from_") or (tree.this if isinstance(tree, exp.Delete) and tree.args.get("tables") else None)
    if source is None:
        return None
    for table in source.find_all(exp.Table):
        if table.alias and table.alias.casefold() == name.casefold():
            return table
    return None


def _read(translate: Translate, select: exp.Expr, what: str,
          tree: exp.Expr | None = None) -> tuple[tuple[SentStatement, ...], str]:
    """A read of the rows a statement changes, translated (and its T-SQL); the statement's WITH goes in front of it,
    since its FROM may name the CTEs."""
    if tree is not None and tree.args.get("with_") is not None:
        select = select.copy()
        select.set("with_", tree.args["with_"].copy())
    done = translate(select)
    if done.unsupported or len(done.statements) != 1:
        said = next((n.message for n in done.notes if n.status == "unsupported"), "no single target statement")
        raise _NotDerived(f"the read of the rows {what} does not translate: {said}")
    return done.statements, select.sql("tsql")


def _update_or_delete(tree: exp.Expr, kind: str, key: TableKey, node: exp.Table, translate: Translate) -> ChangePlan:
    if tree.args.get("limit") is not None or tree.args.get("order") is not None or tree.args.get("top") is not None:
        raise _NotDerived(f"{kind.upper()} TOP (n) changes rows the server picks: they cannot be read before it")
    source = tree.args.get("from_") or exp.From(this=tree.this.copy())
    alias = _alias(node)
    new_keys: list[exp.Expr] = []
    set_keys: list[str] = []
    set_columns: list[str] = []
    if isinstance(tree, exp.Update):
        folded = {k.casefold(): k for k in key.key}
        for assignment in tree.expressions:
            target = assignment.this if isinstance(assignment, exp.EQ) else None
            if isinstance(target, exp.Column):
                set_columns.append(target.name)
            if isinstance(target, exp.Column) and target.name.casefold() in folded and target.table in ("", alias):
                new_keys.append(exp.alias_(assignment.expression.copy(), NEW_KEY + target.name, quoted=True))
                set_keys.append(folded[target.name.casefold()])

    # `UPDATE t SET ... FROM other WHERE t.id = other.id`: a FROM that does not name the table changed joins it
    # implicitly (T-SQL), so its read names it first and the FROM after it.
    named_in_from = tree.args.get("from_") is None or any(
        t is node or (t.name.casefold() == node.name.casefold() and (t.alias or "").casefold() == (node.alias or "").casefold())
        for part in (tree.args["from_"], *(tree.args.get("joins") or ())) for t in part.find_all(exp.Table))

    def select_of(projections: list[exp.Expr]) -> exp.Select:
        select = exp.Select(expressions=[*projections, *(n.copy() for n in new_keys)])
        if named_in_from:
            select.set("from_", source.copy())
        else:
            select.set("from_", exp.From(this=node.copy()))
            select.append("joins", exp.Join(this=source.this.copy()))
        for join in tree.args.get("joins") or ():
            select.append("joins", join.copy())
        if tree.args.get("where") is not None:
            select.set("where", tree.args["where"].copy())
        if tree.args.get("from_") is not None or tree.args.get("joins") or source.this.args.get("joins"):
            select.set("distinct", exp.Distinct())  # a join may find a row more than once
        return select

    before, _ = _read(translate, select_of(_columns(alias, key)), f"{kind.upper()} changes", tree)
    keys_only = select_of([exp.column(k, table=alias, quoted=True) for k in key.key]) if key.key else None
    if keys_only is not None and tree.args.get("with_") is not None:
        keys_only.set("with_", tree.args["with_"].copy())
    return ChangePlan(kind, key, before, keys_only.sql("tsql") if keys_only is not None else None,
                      new_key_columns=tuple(set_keys), set_columns=tuple(set_columns))


def _insert(tree: exp.Insert, key: TableKey, translate: Translate) -> ChangePlan:
    target = tree.this
    named = [c.name for c in target.expressions] if isinstance(target, exp.Schema) else [
        c for c in key.columns if c != key.identity]
    folded = [c.casefold() for c in named]
    missing = [k for k in key.key if k.casefold() not in folded]
    generated = key.identity is not None and key.identity.casefold() not in folded
    numbered = key.sequence is not None and not generated and key.key[0].casefold() not in folded
    if numbered:  # the key's default draws it from a sequence: LASTVAL() after the INSERT gives the last one
        return ChangePlan("insert", key, generated=True)
    if missing and not (generated and missing == [key.identity]):
        raise _NotDerived(f"the INSERT gives no value for {', '.join(missing)}, the key of {key.qualified_name}")
    if generated:
        return ChangePlan("insert", key, generated=True)
    positions = [folded.index(k.casefold()) for k in key.key]
    source = tree.expression
    if isinstance(source, exp.Values):
        rows = [exp.Select(expressions=[exp.alias_(row.expressions[i].copy(), f"k{n}", quoted=True)
                                        for n, i in enumerate(positions)])
                for row in source.expressions if isinstance(row, exp.Tuple)]
        if not rows:
            raise _NotDerived("the INSERT's VALUES could not be read")
        select: exp.Expr = rows[0]
        for row in rows[1:]:
            select = exp.union(select, row, distinct=False)
        new_keys, tsql = _read(translate, select if isinstance(select, exp.Select) else exp.select("*").from_(
            exp.Subquery(this=select, alias=exp.TableAlias(this=exp.to_identifier("v")))), "the INSERT adds", tree)
        return ChangePlan("insert", key, new_keys=new_keys, new_keys_tsql=tsql)
    if isinstance(source, (exp.Select, exp.Union)):
        first = source
        while isinstance(first, exp.Union):
            first = first.this
        if not isinstance(first, exp.Select) or any(isinstance(s, exp.Star) for s in first.expressions):
            raise _NotDerived("the INSERT's SELECT names no columns to take the key from")
        inner = source.copy()
        head = inner
        while isinstance(head, exp.Union):
            head = head.this
        for n, projection in enumerate(list(head.expressions)):
            value = projection.this if isinstance(projection, exp.Alias) else projection
            projection.replace(exp.alias_(value.copy(), f"c{n}", quoted=True))
        select = exp.Select(expressions=[exp.column(f"c{i}", table="v", quoted=True) for i in positions])
        select.set("from_", exp.From(this=exp.Subquery(this=inner, alias=exp.TableAlias(this=exp.to_identifier("v")))))
        new_keys, tsql = _read(translate, select, "the INSERT adds", tree)
        return ChangePlan("insert", key, new_keys=new_keys, new_keys_tsql=tsql)
    raise _NotDerived("an INSERT of DEFAULT VALUES or EXEC: its key is not given")


def _merge(tree: exp.Merge, key: TableKey, node: exp.Table, translate: Translate) -> ChangePlan:
    """The rows a MERGE's WHEN MATCHED clauses change (read before it: the matched rows one of their conditions
    takes), and the keys its WHEN NOT MATCHED [BY TARGET] INSERT adds: its values for the key over the source rows
    no target row matches, or the IDENTITY numbers it draws (`generated`, read after it above the largest before)."""
    using, on = tree.args.get("using"), tree.args.get("on")
    if using is None or on is None:
        raise _NotDerived("a MERGE without USING ... ON")
    whens = tree.args.get("whens")
    clauses = list(whens.expressions) if whens is not None else []
    matched = [w for w in clauses if w.args.get("matched")]
    unread = "its WHEN NOT MATCHED BY SOURCE changes rows no source row matches" \
        if any(w.args.get("source") for w in clauses) else None

    def select_of(projections: list[exp.Expr]) -> exp.Select:
        select = exp.Select(expressions=projections)
        select.set("from_", exp.From(this=node.copy()))
        select.append("joins", exp.Join(this=using.copy(), on=on.copy()))
        conditions = [w.args.get("condition") for w in matched]
        if conditions and all(c is not None for c in conditions):  # a clause without a condition takes every match
            select.set("where", exp.Where(this=exp.or_(*(exp.Paren(this=c.copy()) for c in conditions))))
        select.set("distinct", exp.Distinct())
        return select

    before: tuple[SentStatement, ...] = ()
    if matched:
        before, _ = _read(translate, select_of(_columns(_alias(node), key)), "the MERGE matches", tree)
    keys_only = select_of([exp.column(k, table=_alias(node), quoted=True) for k in key.key])
    if tree.args.get("with_") is not None:
        keys_only.set("with_", tree.args["with_"].copy())
    insert = next((w for w in clauses if not w.args.get("matched") and not w.args.get("source")
                   and isinstance(w.args.get("then"), exp.Insert)), None)
    new_keys: tuple[SentStatement, ...] = ()
    new_tsql, generated = None, False
    if insert is not None:
        try:
            new_keys, new_tsql, generated = _merge_inserts(tree, insert, key, node, translate)
        except _NotDerived as why:
            unread = unread or str(why)
    return ChangePlan("merge", key, before, keys_only.sql("tsql") if matched else None, new_keys=new_keys,
                      new_keys_tsql=new_tsql, generated=generated, unread=unread)


def _merge_inserts(tree: exp.Merge, when: exp.Expr, key: TableKey, node: exp.Table,
                   translate: Translate) -> tuple[tuple[SentStatement, ...], str | None, bool]:
    """How the keys a MERGE's INSERT adds are found: (the read of its key values, its T-SQL, IDENTITY-numbered)."""
    insert = when.args["then"]
    names = [c.name for c in insert.this.expressions] if isinstance(insert.this, exp.Tuple) else \
        [c for c in key.columns if c != key.identity]
    values = insert.expression.expressions if isinstance(insert.expression, exp.Tuple) else None
    folded = [n.casefold() for n in names]
    if key.identity is not None and key.key == (key.identity,) and key.identity.casefold() not in folded:
        return (), None, True
    missing = [k for k in key.key if k.casefold() not in folded]
    if missing or values is None or len(values) != len(names):
        raise _NotDerived(f"its INSERT gives no value for {', '.join(missing) or 'the key'}, the key of {key.qualified_name}")
    using, on = tree.args["using"], tree.args["on"]
    matches = exp.Select(expressions=[exp.Literal.number(1)]).from_(node.copy(), copy=False).where(on.copy(), copy=False)
    condition = exp.Not(this=exp.Exists(this=matches))
    if when.args.get("condition") is not None:
        condition = exp.and_(condition, exp.Paren(this=when.args["condition"].copy()))
    select = exp.Select(expressions=[exp.alias_(values[folded.index(k.casefold())].copy(), f"k{n}", quoted=True)
                                     for n, k in enumerate(key.key)])
    select.set("from_", exp.From(this=using.copy()))
    select.set("where", exp.Where(this=condition))
    found, tsql = _read(translate, select, "the MERGE adds", tree)
    return found, tsql, False


# -- reading the rows on the target, as the statement runs ----------------------------------------

Fetch = Callable[[str, Sequence[Any]], tuple[list[tuple[Any, ...]], Any]]
"""Run one read on the target (`?` markers) and return its rows and the driver's description."""


def above(plan: ChangePlan) -> tuple[str, str]:
    """The target's reads of a table's largest IDENTITY value, and of its rows above a value (`?`), in order: the rows
    a MERGE's INSERT numbered (AUTO_INCREMENT only grows)."""
    columns = ", ".join(_quote(c) for c in plan.table.columns)
    identity = _quote(plan.table.identity or plan.table.key[0])
    return (f"SELECT MAX({identity}) FROM {plan.table.target}",
            f"SELECT {columns} FROM {plan.table.target} WHERE {identity} > ? ORDER BY {identity} LIMIT {ROW_LIMIT + 1}")


def by_key(plan: ChangePlan, count: int, by: Sequence[str] = ()) -> str:
    """The target's read of `count` rows by their key (or by the columns `by`):
    `SELECT cols FROM t WHERE (k1, k2) IN ((?, ?), ...)`."""
    columns = ", ".join(_quote(c) for c in plan.table.columns)
    key = tuple(by) or plan.table.key
    if len(key) == 1:
        where = f"{_quote(key[0])} IN ({', '.join('?' * count)})"
    else:
        one = "(" + ", ".join("?" * len(key)) + ")"
        where = f"({', '.join(_quote(k) for k in key)}) IN ({', '.join([one] * count)})"
    return f"SELECT {columns} FROM {plan.table.target} WHERE {where}"


def read_keys(plan: ChangePlan, keys: Sequence[tuple[Any, ...]], fetch: Fetch,
              by: Sequence[str] = ()) -> tuple[list[tuple[Any, ...]], Any]:
    """The rows of these keys (values of the columns `by`, else of the key) as the target now holds them (chunked),
    and the description of the last read."""
    rows: list[tuple[Any, ...]] = []
    description = None
    distinct = list(dict.fromkeys(k for k in keys if all(v is not None for v in k)))
    for start in range(0, len(distinct), KEY_CHUNK):
        chunk = distinct[start:start + KEY_CHUNK]
        found, description = fetch(by_key(plan, len(chunk), by), [v for k in chunk for v in k])
        rows.extend(found)
    return rows, description


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"
