"""OPENJSON over a value the runner holds: the rows made on the client and sent into a temporary table.

`INSERT ... SELECT ... FROM OPENJSON(@Cities) WITH (CityName nvarchar(50), ...)` reads a JSON document
a caller passed. TiDB has no OPENJSON and no JSON_TABLE, but the document is a parameter or variable,
so the runner has it: it reads the document by SQL Server's rules (`json_text`), converts each column to
the type its WITH clause declares, and sends the rows into a temporary table (a table variable of the
runner's own, `@sqlsrv2tidb_json1`, made as the translator makes table variables). The statement reads
that table where it read OPENJSON, under the same alias; the translator translates it as any other.
What it costs: a CREATE the first time, a DELETE after, and one INSERT per 500 rows, each a round trip.

OPENJSON over a column (`CROSS APPLY OPENJSON(t.CustomFields)`) is not a value the runner holds: the
translator says why it cannot be written for TiDB.
https://learn.microsoft.com/sql/t-sql/functions/openjson-transact-sql
"""

from __future__ import annotations

import zlib
from typing import Any

from sqlglot import exp

from ..translate.statements import parse_statements
from . import json_text
from . import program as p
from .expressions import RUNTIME_PREFIX, local_form
from .failures import TsqlError
from .sending import Sender
from .state import CallState, Frame
from .table_rows import fill_table
from .unit import Unit
from .values import assign

_DEFAULT_COLUMNS = (("key", "nvarchar(4000)"), ("value", "nvarchar(max)"), ("type", "int"))
"""OPENJSON's columns without a WITH clause."""


def held_json(unit: Unit, tree: exp.Expr, line: int) -> tuple[list[p.Step], exp.Expr]:
    """The steps that fill a temporary table for each OPENJSON over a held value in `tree`, and the tree reading those
    tables instead (a copy; the caller's tree is left as written). No steps when there is none."""
    found = [node for node in tree.find_all(exp.OpenJSON) if _held(node.this)]
    if not found:
        return [], tree
    tree = tree.copy()
    steps: list[p.Step] = []
    for node in [n for n in tree.find_all(exp.OpenJSON) if _held(n.this)]:
        step = _fill_step(unit, node, line)
        if step is None:
            continue
        steps.append(step)
        table = exp.Table(this=exp.Parameter(this=exp.var(step.variable)))
        holder = node.parent
        if isinstance(holder, exp.Table) and holder.this is node:
            holder.set("this", table.this)
        elif isinstance(holder, exp.Lateral):  # CROSS APPLY OPENJSON(@v): the same rows for every row, a cross join
            alias = holder.args.get("alias")
            if alias is not None:
                table.set("alias", alias.copy())
            join = holder.parent
            if isinstance(join, exp.Join):
                join.set("this", table)
                if holder.args.get("cross_apply") is False:  # OUTER APPLY: the outer rows stay when there are none
                    join.set("kind", None)
                    join.set("side", "LEFT")
                    join.set("on", exp.true())
                else:
                    join.set("kind", "CROSS")
                    join.set("side", None)
            else:
                holder.replace(table)
        else:
            node.replace(table)
    return steps, tree


def _held(node: exp.Expr | None) -> bool:
    """An expression of the runner's values only (variables, parameters, literals, functions of them): no column."""
    if node is None or node.find(exp.Column) is not None:
        return False
    return local_form(node) is not None


def _fill_step(unit: Unit, node: exp.OpenJSON, line: int) -> p.JsonRows | None:
    columns: list[json_text.Column] = []
    for definition in node.expressions:
        if not isinstance(definition, exp.OpenJSONColumnDef):
            continue
        kind = definition.args.get("kind")
        path = definition.args.get("path")
        columns.append(json_text.Column(definition.name, kind.sql("tsql") if isinstance(kind, exp.DataType) else "nvarchar(max)",
                                        path.name if isinstance(path, (exp.Literal, exp.National)) else None,
                                        bool(definition.args.get("as_json"))))
    declared = tuple((c.name, c.type) for c in columns) if columns else _DEFAULT_COLUMNS
    unit.json_tables += 1
    # A name of this procedure's own: a temporary table is the session's, and a procedure it calls may read JSON too.
    variable = f"{RUNTIME_PREFIX}json{unit.json_tables}_{zlib.crc32(unit.name.casefold().encode()) % 100000}"
    declare_text = f"DECLARE @{variable} TABLE ({', '.join(f'[{n}] {t}' for n, t in declared)})"
    clear_text = f"DELETE FROM @{variable}"
    for i in range(len(declared)):
        unit.session.declare(f"@{RUNTIME_PREFIX}c{i}", None)
    insert_text = (f"INSERT INTO @{variable} ({', '.join(f'[{n}]' for n, _ in declared)}) VALUES "
                   f"({', '.join(f'@{RUNTIME_PREFIX}c{i}' for i in range(len(declared)))})")
    made = []
    for text in (declare_text, clear_text, insert_text):
        statement = parse_statements(text)[0]
        if statement.tree is None:
            unit.block("OPENJSON", line, f"the rows of OPENJSON could not be given a table: {statement.error}")
            return None
        made.append(unit.translate(statement.tree, text, line, "OPENJSON"))
    declare, clear, insert = made
    if not declare or not clear or len(insert) != 1:
        return None
    source = node.this
    path = node.args.get("path")
    path_value = unit.value(path, path.sql("tsql"), line) if isinstance(path, exp.Expr) else None
    unit.sent += 1  # the INSERT of the rows (the DECLARE, DELETE and INSERT counted once by translate; the fill sends one)
    return p.JsonRows(line, variable, declare, clear, insert[0], unit.value(source, source.sql("tsql"), line), path_value,
                      tuple(columns), tuple(t for _, t in declared))


# -- run time ------------------------------------------------------------------------------------------

def fill(sender: Sender, state: CallState, frame: Frame, step: p.JsonRows) -> None:
    """The document read by SQL Server's rules, its rows converted to their columns' types and sent into the table."""
    document = sender.value(state, frame, step.source)
    path = sender.value(state, frame, step.path) if step.path is not None else None
    if step.columns:
        rows = json_text.open_json_with(document, path, step.columns)
    else:
        rows = json_text.open_json(document, path)
    typed = [tuple(_typed(value, type_text) for value, type_text in zip(row, step.types, strict=True)) for row in rows]
    fill_table(sender, state, frame, step.declare, step.clear, step.insert, typed)
    state.rowcount = len(typed)


def _typed(value: Any, type_text: str) -> Any:
    if isinstance(value, json_text.Fragment):
        return str(value)
    try:
        return assign(value, type_text)
    except TsqlError:
        raise
    except (ValueError, TypeError) as exc:
        raise TsqlError(245, f"Conversion failed when converting the JSON value '{value}' to data type {type_text}.") from exc
