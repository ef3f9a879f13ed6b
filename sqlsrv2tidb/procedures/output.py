"""INSERT, UPDATE and DELETE ... OUTPUT: the statement, and the rows it changed read by key in the same transaction.

TiDB has no OUTPUT and no RETURNING. The runner sends the statement without its OUTPUT clause and reads
the rows it changes as the shared mechanism reads them (`affected`, `changes`): the rows an UPDATE or
DELETE will change just before it (`deleted`), and the same keys just after (`inserted`), with the keys
an INSERT gives its rows (its values, or the numbers LAST_INSERT_ID() or the key's sequence gives). Each
OUTPUT column is a column of `inserted` or `deleted` (`*` too) or a value the runner holds (a variable, a
literal); the rows go to the caller as a result set, or with INTO into a table, a temporary table or a
table variable, one INSERT per 500 rows. SQL Server returns them in no defined order: the runner gives
an INSERT's in the order its rows were inserted, the others in their key's order.

A MERGE's OUTPUT pairs the matched rows it updated (or, gone after it, deleted) with their new images, then the
rows its INSERT added (its values for the key over the unmatched source rows, or the IDENTITY numbers it drew),
and `$action` says which each was. What stays a blocker, with its reason: a table without a key (its rows cannot
be found again), an expression over `inserted` or `deleted` columns (name the columns, compute on the client), a
MERGE's WHEN NOT MATCHED BY SOURCE or an INSERT that gives no key (the rows they change are not read).
https://learn.microsoft.com/sql/t-sql/queries/output-clause-transact-sql
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from ..translate.dialect import SqlServer
from ..translate.statements import parse_statements
from ..tsql.literals import tokens
from . import program as p
from .affected import Change
from .expressions import RUNTIME_PREFIX, local_form
from .unit import Unit

ACTION = "action"
"""The source of MERGE's `$action` column: INSERT, UPDATE or DELETE, as the row's change was."""
_ENDS = {"INTO", "SELECT", "VALUES", "DEFAULT", "EXEC", "EXECUTE", "FROM", "WHERE", "OPTION", "OUTPUT", "WITH", ";"}


@dataclass(frozen=True)
class Clause:
    """The parts of a DML statement with OUTPUT: the statement without the clause, the list, the INTO target."""

    statement: str
    columns: str
    into: str | None
    into_columns: tuple[str, ...]


def split_output(text: str) -> Clause | None:
    """`DELETE t OUTPUT deleted.a, @v INTO x (a, v) WHERE ...` -> the DELETE without OUTPUT, the list, `x`, (a, v);
    None when the statement has no OUTPUT clause at its top level."""
    toks = tokens(text)
    depth, start = 0, None
    for i, tok in enumerate(toks):
        if tok.text == "(":
            depth += 1
        elif tok.text == ")":
            depth -= 1
        elif depth == 0 and tok.kind == "word" and tok.upper in ("EXEC", "EXECUTE"):
            return None  # INSERT ... EXEC p @x OUTPUT: an argument's OUTPUT, not the clause
        elif depth == 0 and tok.kind == "word" and tok.upper == "OUTPUT" and i > 0:
            start = i
            break
    if start is None or start + 1 >= len(toks):
        return None
    depth, end, into_at = 0, len(toks), None
    for i in range(start + 1, len(toks)):
        tok = toks[i]
        if tok.text == "(":
            depth += 1
        elif tok.text == ")":
            depth -= 1
        elif depth == 0 and (tok.upper in _ENDS or tok.text == ";"):
            if tok.upper == "INTO" and into_at is None:
                into_at = i
                continue
            if into_at is not None and i == into_at + 1:
                continue
            end = i
            break
    list_end = into_at if into_at is not None else end
    columns = text[toks[start + 1].start:toks[list_end].start if list_end < len(toks) else len(text)].strip()
    into, into_columns = None, ()
    if into_at is not None:
        tail = text[toks[into_at + 1].start:toks[end].start if end < len(toks) else len(text)].strip()
        m = re.match(r"^(?P<target>(?:\[[^\]]*\]|[\w@#$]+)(?:\s*\.\s*(?:\[[^\]]*\]|[\w@#$]+))*)\s*(?:\((?P<cols>[^()]*)\))?\s*$",
                     tail, re.DOTALL)
        if m is None:
            return None
        into = m["target"]
        into_columns = tuple(c.strip() for c in (m["cols"] or "").split(",") if c.strip())
    before = text[:toks[start].start]
    after = text[toks[end].start:] if end < len(toks) else ""
    return Clause((before.rstrip() + " " + after.lstrip()).strip(), columns, into, into_columns)


def output_step(unit: Unit, text: str, line: int, make_run) -> p.Step | None:
    """The step of a DML statement with OUTPUT, or None (a blocker says why). `make_run(tree, text)` makes the step of
    the statement without its clause (the runner's usual one, OPENJSON's fills included)."""
    clause = split_output(text)
    if clause is None:
        return _blocked(unit, line, "its OUTPUT clause could not be read")
    statements = parse_statements(clause.statement)
    if len(statements) != 1 or statements[0].tree is None:
        return _blocked(unit, line, f"the statement without OUTPUT could not be read: {statements[0].error if statements else ''}")
    tree = statements[0].tree
    if "$action" in clause.columns.lower() and not isinstance(tree, exp.Merge):
        return _blocked(unit, line, "$action outside a MERGE")
    if not isinstance(tree, (exp.Insert, exp.Update, exp.Delete, exp.Merge)):
        return _blocked(unit, line, "OUTPUT of a statement that is no INSERT, UPDATE, DELETE or MERGE")
    columns = _columns(unit, clause.columns, tree, line)
    if columns is None:
        return None
    step = make_run(tree, clause.statement)
    run = _run_of(step)
    if run is None:
        return step
    if run.changes is None or run.changes.unknown is not None or run.changes.unread is not None:
        why = (run.changes.unknown or run.changes.unread) if run.changes is not None else "it changes no table of the schema"
        return _blocked(unit, line, f"the rows it changes cannot be read back: {why}")
    into = None
    if clause.into is not None:
        names = clause.into_columns or tuple(unit.table_columns(clause.into))
        if len(names) != len(columns):
            return _blocked(unit, line, f"OUTPUT INTO {clause.into}: {len(columns)} value(s) for {len(names)} column(s)")
        for i in range(len(names)):
            unit.session.declare(f"@{RUNTIME_PREFIX}c{i}", None)
        insert_text = (f"INSERT INTO {clause.into} ({', '.join(names)}) VALUES "
                       f"({', '.join(f'@{RUNTIME_PREFIX}c{i}' for i in range(len(names)))})")
        parsed = parse_statements(insert_text)[0]
        if parsed.tree is None:
            return _blocked(unit, line, f"OUTPUT INTO {clause.into}: {parsed.error}")
        made = unit.translate(parsed.tree, insert_text, line, "OUTPUT INTO")
        if len(made) != 1:
            return None
        into = made[0]
    spec = p.OutputSpec(tuple(columns), into, text)
    return _with_output(step, run, spec)


def _run_of(step: p.Step | None) -> p.Run | None:
    if isinstance(step, p.Run):
        return step
    if isinstance(step, p.Steps) and step.steps and isinstance(step.steps[-1], p.Run):
        return step.steps[-1]
    return None


def _with_output(step: p.Step, run: p.Run, spec: p.OutputSpec) -> p.Step:
    changed = replace(run, output=spec)
    if step is run:
        return changed
    assert isinstance(step, p.Steps)
    return p.Steps(step.line, (*step.steps[:-1], changed))


def _blocked(unit: Unit, line: int, why: str) -> None:
    unit.block("OUTPUT clause", line, why)
    return None


def _columns(unit: Unit, text: str, tree: exp.Expr, line: int) -> list[p.OutputColumn] | None:
    try:
        select = sqlglot.parse_one(f"SELECT {text}", read=SqlServer)
    except (SqlglotError, ValueError):
        return _blocked(unit, line, f"OUTPUT {text[:60]} could not be read")
    if not isinstance(select, exp.Select):
        return _blocked(unit, line, f"OUTPUT {text[:60]} could not be read")
    found = changed_columns(unit, tree)
    columns: list[p.OutputColumn] = []
    for projection in select.expressions:
        node = projection.this if isinstance(projection, exp.Alias) else projection
        if isinstance(node, (exp.Parameter, exp.Var, exp.Column)) and node.sql("tsql").lower() == "$action":
            columns.append(p.OutputColumn(projection.alias_or_name if isinstance(projection, exp.Alias) else "$action",
                                          ACTION))
            continue
        if isinstance(node, exp.Column) and node.table.lower() in ("inserted", "deleted"):
            source = node.table.lower()
            if isinstance(node.this, exp.Star):
                columns += [p.OutputColumn(c, source, c) for c in found]
                continue
            name = next((c for c in found if c.casefold() == node.name.casefold()), None)
            if name is None:
                return _blocked(unit, line, f"OUTPUT {node.sql('tsql')}: the table has no such column")
            columns.append(p.OutputColumn(projection.alias_or_name, source, name))
            continue
        if any(c.table.lower() in ("inserted", "deleted") or not c.table for c in node.find_all(exp.Column)):
            return _blocked(unit, line, f"OUTPUT {node.sql('tsql')[:60]}: an expression over the changed rows' columns "
                                        "(the runner reads the columns themselves; name them)")
        if local_form(node) is None:
            return _blocked(unit, line, f"OUTPUT {node.sql('tsql')[:60]}: a value the runner cannot work out itself")
        columns.append(p.OutputColumn(projection.alias_or_name, value=unit.value(node, node.sql("tsql"), line)))
    return columns


def changed_columns(unit: Unit, tree: exp.Expr) -> list[str]:
    from .affected import changed_table

    found = changed_table(tree, unit.database)
    return [c.name for c in found[0].columns] if found is not None else []


# -- run time ------------------------------------------------------------------------------------------

def output_rows(spec: p.OutputSpec, change: Change, values: Sequence[Any]) -> list[tuple[Any, ...]]:
    """The OUTPUT rows of a change: each row's `inserted` and `deleted` columns, and the runner's values (`values`, in
    the order of the value columns)."""
    table = change.table
    position = {c.casefold(): i for i, c in enumerate(table.columns)}
    pairs = _pairs(change)
    rows = []
    for deleted, inserted in pairs:
        row, given = [], iter(values)
        for column in spec.columns:
            if column.source is None:
                row.append(next(given))
                continue
            if column.source == ACTION:
                row.append("UPDATE" if deleted is not None and inserted is not None else "DELETE" if deleted is not None
                           else "INSERT")
                continue
            image = inserted if column.source == "inserted" else deleted
            row.append(image[position[column.column.casefold()]] if image is not None else None)
        rows.append(tuple(row))
    return rows


def _pairs(change: Change) -> list[tuple[tuple[Any, ...] | None, tuple[Any, ...] | None]]:
    """(deleted row, inserted row) for each row the statement changed, in the order SQL Server would most plausibly
    give them: an INSERT's in the order of its keys, the others in the order they were read before it."""
    table, kind = change.table, change.plan.kind
    by_key = {table.key_of(row): row for row in change.inserted}
    if kind == "insert":
        new_keys = [k for k in change.keys if k in by_key]
        return [(None, by_key[k]) for k in new_keys]
    if kind == "delete":
        return [(row, None) for row in change.deleted]
    if kind == "merge":  # the matched rows it updated or deleted, then the rows it inserted, in the order of their keys
        matched = [(row, by_key.get(table.key_of(row))) for row in change.deleted]
        old = {table.key_of(row) for row in change.deleted}
        return matched + [(None, by_key[k]) for k in change.keys if k not in old and k in by_key]
    pairs = []
    olds = [table.key_of(row) for row in change.deleted]
    news = change.keys[len(dict.fromkeys(olds)):] if change.plan.new_key_columns else []
    for n, row in enumerate(change.deleted):
        key = table.key_of(row)
        after = by_key.get(news[n]) if change.plan.new_key_columns and n < len(news) else by_key.get(key)
        pairs.append((row, after))
    return pairs


def description_of(spec: p.OutputSpec, change: Change) -> Any:
    """The OUTPUT result set's columns as the driver describes them: a changed column's as its table's read gave it,
    a value's as text."""
    described, fields = change.description if isinstance(change.description, tuple) and len(change.description) == 2 \
        else (None, ())
    position = {c.casefold(): i for i, c in enumerate(change.table.columns)}
    out = []
    for column in spec.columns:
        entry = None
        if column.source is not None and column.column is not None and described:
            at = position[column.column.casefold()]
            if at < len(described):
                entry = (column.name, *tuple(described[at])[1:])
        out.append(entry or (column.name, 253, None, None, None, None, True))  # a value's, and $action's: text
    return tuple(out), ()
