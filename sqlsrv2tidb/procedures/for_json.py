"""FOR JSON PATH and AUTO on a query a procedure returns: the rows read from the target, the JSON text written here.

TiDB has JSON functions but no FOR JSON, and what it builds is its own JSON (keys sorted, `{"a": 1}`
spacing, numbers as doubles). A procedure's `SELECT ... FOR JSON` returns text an application reads, so
the runner sends the query without its FOR JSON clause and writes the rows as SQL Server does: an array
of objects (or one object WITHOUT_ARRAY_WRAPPER, inside `{"root": ...}` with ROOT), a column's dotted
alias as nested objects (PATH), each joined table's columns as a nested array named by its alias (AUTO,
consecutive rows with the same values above grouped), NULLs left out unless INCLUDE_NULL_VALUES, strings
escaped (`/` too), bit as true/false, dates in ISO 8601, binary in base64, and a JSON_QUERY or JSON_MODIFY
column inserted as JSON. Like SQL Server, the text comes back in rows of 2,033 characters of one column
named `JSON_F52E2B61-18A1-11d1-B105-00805F49916B`, which a client concatenates.

A FOR JSON query inside another (a column, a variable's value) is not the runner's to write: the
translator says it cannot be written for TiDB.
https://learn.microsoft.com/sql/relational-databases/json/format-query-results-as-json-with-for-json-sql-server
https://learn.microsoft.com/sql/relational-databases/json/how-for-json-converts-sql-server-data-types-sql-server
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from datetime import date, datetime, time
from decimal import Decimal
from typing import Any

from sqlglot import exp

from . import json_text
from .session import Outcome

COLUMN_NAME = "JSON_F52E2B61-18A1-11d1-B105-00805F49916B"
CHUNK = 2033


@dataclass(frozen=True)
class JsonColumn:
    name: str
    """The key, dots and all (PATH nests at the dots)."""
    table: str | None = None
    """AUTO: the alias (or name) of the table the column comes from; None for an expression."""
    kind: str = ""
    """`bit` (true/false), `json` (inserted as it is), or empty."""


@dataclass(frozen=True)
class ForJson:
    mode: str
    """PATH or AUTO."""
    columns: tuple[JsonColumn, ...]
    root: str | None = None
    include_nulls: bool = False
    without_array_wrapper: bool = False


def for_json_of(select: exp.Select, types: Any) -> tuple[ForJson | None, str | None]:
    """The FOR JSON clause of a top-level query as the runner writes it, and why not when it cannot (a nested FOR JSON,
    a `*` column whose names only the rows would tell). (None, None) for a query without one."""
    clause = select.args.get("for_")
    if not isinstance(clause, exp.ForClause) or (clause.args.get("kind") or "").upper() != "JSON":
        return None, None
    mode, root, nulls, unwrapped = "", None, False, False
    for option in clause.expressions:
        inner = option.this if isinstance(option, exp.QueryOption) else option
        if isinstance(inner, exp.XMLKeyValueOption) and inner.name.upper() == "ROOT":
            value = inner.expression
            root = value.name if isinstance(value, (exp.Literal, exp.National)) else "root"
            continue
        word = inner.name.upper() if isinstance(inner, exp.Expr) else str(inner).upper()
        if word in ("PATH", "AUTO"):
            mode = word
        elif word == "ROOT":
            root = "root"
        elif word == "INCLUDE_NULL_VALUES":
            nulls = True
        elif word == "WITHOUT_ARRAY_WRAPPER":
            unwrapped = True
    if any(isinstance(n, exp.ForClause) for n in select.find_all(exp.ForClause) if n is not clause):
        return None, "FOR JSON inside FOR JSON: the inner document is built on the server, which TiDB cannot"
    columns = []
    for projection in select.expressions:
        node = projection.this if isinstance(projection, exp.Alias) else projection
        if isinstance(node, exp.Star) or (isinstance(node, exp.Column) and isinstance(node.this, exp.Star)):
            return None, "FOR JSON over `*`: name the columns"
        name = projection.alias_or_name
        table = node.table if isinstance(node, exp.Column) and node.table else None
        if table is None and isinstance(node, exp.Column):
            table = _only_table(select)
        datatype = types.of(node) if types is not None else None
        kind = "bit" if datatype is not None and datatype.this == exp.DType.BIT else ""
        if _is_json(node):
            kind = "json"
        columns.append(JsonColumn(name, table, kind))
    if mode == "AUTO" and any("." in c.name for c in columns):
        return None, "FOR JSON AUTO with a dotted column name: SQL Server refuses it"
    return ForJson(mode or "PATH", tuple(columns), root, nulls, unwrapped), None


def _only_table(select: exp.Select) -> str | None:
    source = select.args.get("from_")
    table = source.this if isinstance(source, exp.From) else None
    if isinstance(table, exp.Table) and not select.args.get("joins"):
        return table.alias_or_name
    return None


def _is_json(node: exp.Expr) -> bool:
    """JSON_QUERY, JSON_MODIFY: a column SQL Server inserts as JSON, not as a string."""
    return (isinstance(node, exp.JSONExtract) and bool(node.args.get("json_query"))) or (
        isinstance(node, exp.Anonymous) and node.name.upper() == "JSON_MODIFY")


# -- writing the text ------------------------------------------------------------------------------------

def json_rows(spec: ForJson, rows: list[tuple[Any, ...]]) -> list[tuple[str]]:
    """The rows of the query as SQL Server's FOR JSON returns them: its text in rows of 2,033 characters."""
    if not rows:
        return []
    objects = _auto(spec, rows) if spec.mode == "AUTO" else [_path_object(spec, row) for row in rows]
    if spec.without_array_wrapper:
        body = ",".join(objects)
    else:
        body = "[" + ",".join(objects) + "]"
    if spec.root is not None:
        body = "{" + json_text.literal(spec.root) + ":" + body + "}"
    return [(body[i:i + CHUNK],) for i in range(0, len(body), CHUNK)]


def value_text(value: Any, kind: str = "") -> str:
    """One value as FOR JSON writes it."""
    if kind == "json" and isinstance(value, str):
        return value
    if kind == "bit" or isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, Decimal)):
        return str(value)
    if isinstance(value, float):
        return repr(value) if not value.is_integer() else str(int(value))
    if isinstance(value, datetime):
        text = value.strftime("%Y-%m-%dT%H:%M:%S")
        if value.microsecond:
            text += ("." + f"{value.microsecond:06d}").rstrip("0")
        if value.tzinfo is not None:
            offset = value.strftime("%z")
            text += offset[:3] + ":" + offset[3:]
        return '"' + text + '"'
    if isinstance(value, date):
        return '"' + value.isoformat() + '"'
    if isinstance(value, time):
        return '"' + value.isoformat() + '"'
    if isinstance(value, (bytes, bytearray)):
        return '"' + base64.b64encode(bytes(value)).decode("ascii") + '"'
    return '"' + json_text.escape(str(value)) + '"'


def _path_object(spec: ForJson, row: tuple[Any, ...]) -> str:
    """One row as PATH writes it: `a.b` nests `b` in an object `a`, the keys in the order of the columns."""
    tree: dict[str, Any] = {}
    for column, value in zip(spec.columns, row, strict=False):
        if value is None and not spec.include_nulls:
            continue
        parts = column.name.split(".")
        node = tree
        for part in parts[:-1]:
            found = node.get(part)
            if not isinstance(found, dict):
                found = node[part] = {}
            node = found
        node[parts[-1]] = value_text(value, column.kind) if value is not None else "null"
    return _written(tree)


def _written(tree: dict[str, Any]) -> str:
    return "{" + ",".join(json_text.literal(k) + ":" + (_written(v) if isinstance(v, dict) else v) for k, v in tree.items()) + "}"


def _auto(spec: ForJson, rows: list[tuple[Any, ...]]) -> list[str]:
    """AUTO: the first table's columns are each object; each next table's, in the order they first appear, an array
    under its alias, consecutive rows with the same values above merged into one object."""
    tables: list[str | None] = []
    for column in spec.columns:
        if column.table not in tables:
            tables.append(column.table)
    return _auto_level(spec, rows, tables, 0)


def _auto_level(spec: ForJson, rows: list[tuple[Any, ...]], tables: list[str | None], level: int) -> list[str]:
    table = tables[level]
    mine = [i for i, c in enumerate(spec.columns) if c.table == table]
    nested = tables[level + 1] if level + 1 < len(tables) else None
    groups: list[tuple[tuple[Any, ...], list[tuple[Any, ...]]]] = []
    for row in rows:
        key = tuple(row[i] for i in mine)
        if groups and groups[-1][0] == key:
            groups[-1][1].append(row)
        else:
            groups.append((key, [row]))
    objects = []
    first_nested = next((i for i, c in enumerate(spec.columns) if c.table == nested), None) if level + 1 < len(tables) else None
    for key, members in groups:
        parts = []
        for i, value in zip(mine, key, strict=True):
            if first_nested is not None and i > first_nested and not any(p.startswith(_key(nested)) for p in parts):
                parts.append(_nested(spec, members, tables, level + 1))
            if value is None and not spec.include_nulls:
                continue
            column = spec.columns[i]
            parts.append(json_text.literal(column.name) + ":" + (value_text(value, column.kind) if value is not None else "null"))
        if first_nested is not None and not any(p.startswith(_key(nested)) for p in parts):
            parts.append(_nested(spec, members, tables, level + 1))
        objects.append("{" + ",".join(parts) + "}")
    return objects


def _key(table: str | None) -> str:
    return json_text.literal(table or "") + ":"


def _nested(spec: ForJson, rows: list[tuple[Any, ...]], tables: list[str | None], level: int) -> str:
    return _key(tables[level]) + "[" + ",".join(_auto_level(spec, rows, tables, level)) + "]"


JSON_DESCRIPTION = ((COLUMN_NAME, 253, None, None, None, None, True),)
"""The one text column a FOR JSON result set has, as a driver describes a column (name, type code: VAR_STRING)."""


def as_json(spec: ForJson, outcome: Outcome) -> Outcome:
    """A query's answer made its FOR JSON text: one column, the text in rows of 2,033 characters."""
    rows = json_rows(spec, outcome.rows)
    return Outcome((COLUMN_NAME,), list(rows), len(rows), (JSON_DESCRIPTION, ()))
