"""Which columns of a table move, what each is read as on SQL Server, and the key that orders them.

A `TableSpec` pairs a captured SQL Server table with the table the target really has (its
columns read from the target's information_schema, so a DDL the DBA edited is what counts). A
column moves when the target has a plain column of its TiDB name; computed columns are left to
the target, which computes them, and a source column the target lacks is skipped with a note.

Rows are read, loaded, checkpointed and verified in the order of a key: the primary key, else a
unique key whose columns are all NOT NULL. Both servers must order that key the same way, so text
keys are ordered by code point on both sides (`COLLATE Latin1_General_BIN2` on SQL Server,
`utf8mb4_bin` on the target: both ignore trailing spaces) and a uniqueidentifier by its text, which
is also the byte order of its BINARY(16) form. A table with no such key is read in physical order.

What SQL Server values pyodbc cannot read, or reads short, is converted on the server
(reference sqlserver-capture.md §0.1): datetimeoffset to UTC, datetime2(7) and time as text so
the seventh digit rounds rather than truncates, sql_variant to text, spatial types to WKB (or WKT
for a text column) and hierarchyid to its path (the DDL's column, which the converter writes in the form
that sorts as SQL Server sorts the nodes; its bytes for a binary column).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model import Column, Table
from ..translate.identifiers import fit
from .normalize import Converter, TargetType, converter

_TEXT_TYPES = {"char", "varchar", "nchar", "nvarchar", "sysname", "text", "ntext"}
_SPATIAL = {"geography", "geometry"}


@dataclass(frozen=True)
class TargetColumn:
    """A column as the target's information_schema describes it."""

    name: str
    column_type: str
    collation: str | None = None
    generated: bool = False


@dataclass(frozen=True)
class ColumnSpec:
    source: Column
    name: str
    """The target column's name."""
    target: TargetType
    select: str
    """The T-SQL expression that reads it."""
    convert: Converter | None = field(default=None, compare=False)

    @property
    def source_type(self) -> str:
        return self.source.type.name.casefold()


@dataclass(frozen=True)
class TableSpec:
    table: Table
    target_name: str
    columns: tuple[ColumnSpec, ...]
    key: tuple[int, ...] = ()
    """Positions in `columns` of the ordering key; empty for a table read in physical order."""
    key_kind: str = "none"
    """primary key, unique key or none."""
    notes: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        return self.table.qualified_name

    @property
    def source_name(self) -> str:
        return f"{bracket(self.table.schema)}.{bracket(self.table.name)}"

    @property
    def key_columns(self) -> tuple[ColumnSpec, ...]:
        return tuple(self.columns[i] for i in self.key)

    def key_of(self, row: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(row[i] for i in self.key)


def bracket(name: str) -> str:
    """A T-SQL identifier, double-quoted (the session sets QUOTED_IDENTIFIER ON): Babelfish refuses some
    bracketed names that SQL Server takes, such as [Primary]."""
    return '"' + name.replace('"', '""') + '"'



def backtick(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def unquote_target(name: str) -> str:
    """The table name of a plan's `TablePlan.target` (`Order Details`, or `db`.`t` in databases mode)."""
    parts, current, quoted, i = [], "", False, 0
    while i < len(name):
        ch = name[i]
        if ch == "`":
            if quoted and name[i + 1 : i + 2] == "`":
                current += "`"
                i += 2
                continue
            quoted = not quoted
        elif ch == "." and not quoted:
            parts.append(current)
            current = ""
        else:
            current += ch
        i += 1
    parts.append(current)
    return parts[-1]


def build_spec(table: Table, target_name: str, target_columns: Sequence[TargetColumn]) -> TableSpec:
    """The spec of one table from its capture and the target's columns."""
    by_name = {c.name.casefold(): c for c in target_columns}
    columns: list[ColumnSpec] = []
    notes: list[str] = []
    for col in table.columns:
        tidb = by_name.get(fit(col.name).casefold())
        if col.computed is not None:
            notes.append(f"{col.name}: computed column, left to the target")
            continue
        if tidb is None:
            notes.append(f"{col.name}: the target table has no column {fit(col.name)}; not copied")
            continue
        if tidb.generated:
            notes.append(f"{col.name}: a generated column on the target; not copied")
            continue
        target = TargetType.parse(tidb.column_type, tidb.collation)
        source = col.type.name.casefold()
        columns.append(ColumnSpec(col, tidb.name, target, select_expression(col, target),
                                  None if passes_as_is(col, target) else converter(target, source)))
        if source == "hierarchyid" and target.is_text:
            notes.append(f"{col.name}: hierarchyid loaded as its path (ToString()), written so that it sorts as SQL Server "
                         "sorts the nodes")
        elif source in _SPATIAL or source == "hierarchyid":
            form = "text" if target.is_text else "binary"
            notes.append(f"{col.name}: {source} loaded as its {form} form "
                         f"({'WKT' if form == 'text' and source in _SPATIAL else 'WKB' if source in _SPATIAL else form})")
    key, kind = _key(table, columns)
    return TableSpec(table, target_name, tuple(columns), key, kind, tuple(notes))


_INT_SOURCE = {"tinyint": 0, "smallint": 1, "int": 2, "bigint": 3}
_INT_TARGET = {"TINYINT UNSIGNED": 0, "SMALLINT": 1, "SMALLINT UNSIGNED": 1, "MEDIUMINT": 1, "INT": 2, "INTEGER": 2,
               "INT UNSIGNED": 1, "BIGINT": 3}


def passes_as_is(column: Column, target: TargetType) -> bool:
    """Whether pyodbc's value for this column is already what the target column holds, so the copy sends
    it without converting (the rows per second of a copy are mostly this): integers into a type at
    least as wide, (n)varchar and text into VARCHAR/TEXT, a decimal into the same scale with room,
    dates, and datetime2 of at most microseconds into a DATETIME of at least its digits. Verify
    still normalizes both sides."""
    dt, family = column.type, target.family
    name = dt.name.casefold()
    if family == "integer":
        words = " ".join(w for w in target.text.upper().replace("(", " (").split() if not w.startswith("("))
        return name in _INT_SOURCE and _INT_SOURCE[name] <= _INT_TARGET.get(words, -1)
    if family == "string":
        return name in ("varchar", "nvarchar", "sysname", "text", "ntext")
    if family == "decimal":
        return name in ("decimal", "numeric") and dt.precision is not None and (dt.scale or 0) == (target.scale or 0) \
            and dt.precision - (dt.scale or 0) <= (target.precision or 10) - (target.scale or 0)
    if family == "date":
        return name == "date"
    if family == "datetime":
        return name == "datetime2" and dt.scale is not None and dt.scale <= min(target.scale or 0, 6)
    return False


def _key(table: Table, columns: list[ColumnSpec]) -> tuple[tuple[int, ...], str]:
    position = {c.source.name.casefold(): i for i, c in enumerate(columns)}
    candidates = []
    if table.primary_key is not None:
        candidates.append(("primary key", table.primary_key.column_names))
    for uk in table.unique_keys:
        candidates.append(("unique key", uk.column_names))
    for ix in table.indexes:
        if ix.unique and ix.filter is None and ix.kind == "rowstore":
            candidates.append(("unique key", tuple(c.name for c in ix.columns)))
    for kind, names in candidates:
        cols = [table.column(n) for n in names]
        if all(c is not None and c.name.casefold() in position and (kind == "primary key" or not c.nullable)
               for c in cols):
            return tuple(position[n.casefold()] for n in names), kind
    return (), "none"


def select_expression(col: Column, target: TargetType) -> str:
    """The T-SQL that reads a column in a form pyodbc takes whole (reference §0.1)."""
    name = bracket(col.name)
    kind = col.type.name.casefold()
    if kind == "datetimeoffset":
        return f"CONVERT(varchar(27), CONVERT(datetime2(7), SWITCHOFFSET({name}, '+00:00')), 121)"
    if kind == "datetime2" and (col.type.scale is None or col.type.scale > 6):
        return f"CONVERT(varchar(27), {name}, 121)"
    if kind == "time":
        return f"CAST({name} AS varchar(16))"
    if kind == "sql_variant":
        base = f"CAST(SQL_VARIANT_PROPERTY({name}, 'BaseType') AS nvarchar(128))"
        return (f"CASE WHEN {base} IN ('datetime', 'datetime2', 'smalldatetime', 'date', 'time', 'datetimeoffset') "
                f"THEN CONVERT(nvarchar(4000), {name}, 121) "
                f"WHEN {base} IN ('binary', 'varbinary') THEN CONVERT(nvarchar(4000), CAST({name} AS varbinary(8000)), 1) "
                f"ELSE CAST({name} AS nvarchar(4000)) END")
    if kind in _SPATIAL:
        return f"{name}.STAsText()" if target.is_text else f"{name}.STAsBinary()"
    if kind == "hierarchyid":
        return f"{name}.ToString()" if target.is_text else f"CAST({name} AS varbinary(892))"
    if kind == "xml":
        return f"CAST({name} AS nvarchar(max))"
    if "." in kind:  # a CLR user-defined type: its bytes
        return f"CAST({name} AS varbinary(max))"
    return name


def source_order(spec: TableSpec) -> list[str]:
    """The T-SQL ORDER BY expressions of the key, in code-point order for text (see the module doc)."""
    out = []
    for c in spec.key_columns:
        name, kind = bracket(c.source.name), c.source_type
        if kind in _TEXT_TYPES:
            collation = (c.source.collation or "").casefold()
            out.append(name if collation.endswith("_bin2") else f"{name} COLLATE Latin1_General_BIN2")
        elif kind == "uniqueidentifier":
            out.append(f"CAST({name} AS char(36)) COLLATE Latin1_General_BIN2")
        else:
            out.append(name)
    return out


def target_order(spec: TableSpec) -> list[str]:
    """The target's ORDER BY expressions of the key, matching `source_order`."""
    return [f"{backtick(c.name)} COLLATE utf8mb4_bin" if c.target.is_text else backtick(c.name)
            for c in spec.key_columns]


def target_select(column: ColumnSpec) -> str:
    """How verify reads a target column: FLOAT as DOUBLE, since servers print a FLOAT with only six digits
    (0.4273123 reads back as 0.427312), which is not the value stored."""
    name = backtick(column.name)
    return f"CAST({name} AS DOUBLE)" if column.target.family == "float" else name


def source_parameter(column: ColumnSpec, raw: Any) -> Any:
    """A key value as read, made a parameter SQL Server compares with the column (a UTC offset back on)."""
    if column.source_type == "datetimeoffset" and isinstance(raw, str):
        return raw + " +00:00"
    return raw


def sort_key(values: Sequence[Any]) -> tuple[Any, ...]:
    """Normalized key values compared the way both servers order them (trailing spaces ignored)."""
    return tuple(v.rstrip(" ") if type(v) is str else v for v in values)


def build_specs(database: Any, plan: Any, target_columns: Any, wants: Any) -> tuple[list[TableSpec], list[str]]:
    """Specs of the tables `wants(schema, name)` picks, and the target names of those the target lacks.

    `database` is the captured `Database`, `plan` its `MigrationPlan` (the TiDB names), and
    `target_columns(name)` the target's columns of a table (empty when it has no such table).
    """
    specs, missing = [], []
    for table in database.tables:
        if not wants(table.schema, table.name):
            continue
        name = target_name(plan, table)
        columns = target_columns(name)
        if not columns:
            missing.append(name)
            continue
        specs.append(build_spec(table, name, columns))
    return specs, missing


def target_name(plan: Any, table: Table) -> str:
    """The target table a captured table loads into: the plan's TiDB name, unquoted."""
    planned = plan.table(table.schema, table.name)
    return unquote_target(planned.target) if planned is not None else fit(table.name)
