"""The schema model: one description of a SQL Server database, whatever it was read from.

Scripts, SSDT projects, a live catalog and the offline capture-script JSON all end here, and every
later stage (DDL generation, rules, replay parameters, report) reads only this. Names keep SQL
Server's spelling; lookups are case-insensitive because SQL Server's default collations are.
Expressions (defaults, computed columns, CHECKs, filters) are kept as T-SQL text: translating them
is the DDL generator's job, and the report shows the original.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

from .statistics import TableStatistics

MAX = -1
"""`DataType.length` of `varchar(max)`, `nvarchar(max)` and `varbinary(max)` (SQL Server's own convention)."""


@dataclass(frozen=True)
class SourceRef:
    """Where an object was defined: a script file and 1-based line, or a live catalog (`file=None`)."""

    file: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        if self.file is None:
            return "catalog"
        return f"{self.file}:{self.line}" if self.line else self.file


@dataclass(frozen=True)
class DataType:
    """A SQL Server column type reduced to its system base type.

    `length` is in characters for char/varchar/nchar/nvarchar and in bytes for binary/varbinary
    (`MAX` for `(max)`); `precision`/`scale` are set for decimal/numeric, and `scale` holds the
    fractional-seconds precision of time, datetime2 and datetimeoffset. `alias` keeps the
    user-defined alias type the column was declared with (`dbo.Name`), already resolved here.
    """

    name: str
    length: int | None = None
    precision: int | None = None
    scale: int | None = None
    alias: str | None = None
    xml_schema: str | None = None

    @property
    def is_max(self) -> bool:
        return self.length == MAX

    def __str__(self) -> str:
        if self.length is not None:
            return f"{self.name}({'max' if self.is_max else self.length})"
        if self.precision is not None:
            return f"{self.name}({self.precision},{self.scale or 0})"
        if self.scale is not None and self.name in ("time", "datetime2", "datetimeoffset"):
            return f"{self.name}({self.scale})"
        return self.name


@dataclass(frozen=True)
class Identity:
    seed: int = 1
    increment: int = 1
    not_for_replication: bool = False


@dataclass(frozen=True)
class Computed:
    expression: str
    persisted: bool = False


@dataclass(frozen=True)
class Column:
    name: str
    type: DataType
    nullable: bool = True
    identity: Identity | None = None
    default: str | None = None
    """The DEFAULT expression as T-SQL text, e.g. `(getdate())` or `(NEXT VALUE FOR [Sequences].[X])`."""
    default_name: str | None = None
    computed: Computed | None = None
    collation: str | None = None
    rowguidcol: bool = False
    sparse: bool = False
    generated_always: Literal["row_start", "row_end"] | None = None
    hidden: bool = False
    masked: bool = False
    encrypted: bool = False
    description: str | None = None
    source: SourceRef = field(default_factory=SourceRef)


@dataclass(frozen=True)
class IndexColumn:
    name: str
    descending: bool = False


@dataclass(frozen=True)
class Key:
    """A PRIMARY KEY or UNIQUE constraint. SQL Server clusters a primary key unless told NONCLUSTERED."""

    name: str | None
    columns: tuple[IndexColumn, ...]
    clustered: bool = False
    source: SourceRef = field(default_factory=SourceRef)

    @property
    def column_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)


IndexKind = Literal["rowstore", "columnstore", "xml", "spatial", "fulltext", "hash"]


@dataclass(frozen=True)
class Index:
    name: str | None
    columns: tuple[IndexColumn, ...]
    kind: IndexKind = "rowstore"
    unique: bool = False
    clustered: bool = False
    include: tuple[str, ...] = ()
    filter: str | None = None
    """The WHERE predicate of a filtered index, as T-SQL text."""
    disabled: bool = False
    source: SourceRef = field(default_factory=SourceRef)


ReferentialAction = Literal["no_action", "cascade", "set_null", "set_default"]


@dataclass(frozen=True)
class ForeignKey:
    name: str | None
    columns: tuple[str, ...]
    ref_schema: str
    ref_table: str
    ref_columns: tuple[str, ...]
    on_delete: ReferentialAction = "no_action"
    on_update: ReferentialAction = "no_action"
    disabled: bool = False
    not_trusted: bool = False
    source: SourceRef = field(default_factory=SourceRef)


@dataclass(frozen=True)
class CheckConstraint:
    name: str | None
    expression: str
    column: str | None = None
    """The column of a column-level CHECK; None for a table-level one."""
    disabled: bool = False
    not_trusted: bool = False
    source: SourceRef = field(default_factory=SourceRef)


@dataclass(frozen=True)
class Temporal:
    """SYSTEM_VERSIONING: the period columns and the history table."""

    period_start: str | None = None
    period_end: str | None = None
    history_schema: str | None = None
    history_table: str | None = None


@dataclass(frozen=True)
class TablePartitioning:
    scheme: str
    column: str


@dataclass(frozen=True)
class Table:
    schema: str
    name: str
    columns: tuple[Column, ...]
    primary_key: Key | None = None
    unique_keys: tuple[Key, ...] = ()
    indexes: tuple[Index, ...] = ()
    foreign_keys: tuple[ForeignKey, ...] = ()
    checks: tuple[CheckConstraint, ...] = ()
    memory_optimized: bool = False
    durability: Literal["schema_and_data", "schema_only"] = "schema_and_data"
    temporal: Temporal | None = None
    is_history_table: bool = False
    partitioning: TablePartitioning | None = None
    row_count: int | None = None
    """Rows on the server (dm_db_partition_stats), when read from a live catalog."""
    size_bytes: int | None = None
    scripted_rows: int = 0
    """Rows inserted by the script that defined the table (counted, never kept)."""
    statistics: TableStatistics | None = None
    """SQL Server's statistics of its columns (histograms), when the capture could read them."""
    description: str | None = None
    source: SourceRef = field(default_factory=SourceRef)

    @property
    def qualified_name(self) -> str:
        return f"{self.schema}.{self.name}"

    def column(self, name: str) -> Column | None:
        return self._columns_by_name.get(name.casefold())

    @cached_property
    def _columns_by_name(self) -> dict[str, Column]:
        """Columns by case-folded name, the first of a name winning: built once, since the translator
        looks a column up for every column reference of every query."""
        by_name: dict[str, Column] = {}
        for column in self.columns:
            by_name.setdefault(column.name.casefold(), column)
        return by_name


@dataclass(frozen=True)
class Sequence:
    schema: str
    name: str
    type: DataType = field(default_factory=lambda: DataType("bigint"))
    start: int | None = None
    increment: int = 1
    minimum: int | None = None
    maximum: int | None = None
    cycle: bool = False
    cached: bool = True
    cache_size: int | None = None
    """None with `cached=True` means SQL Server picks the cache size."""
    source: SourceRef = field(default_factory=SourceRef)

    @property
    def qualified_name(self) -> str:
        return f"{self.schema}.{self.name}"


@dataclass(frozen=True)
class UserType:
    """A user-defined type: an alias of a system type, or a table type (used by table-valued parameters)."""

    schema: str
    name: str
    base: DataType | None = None
    nullable: bool = True
    is_table_type: bool = False
    columns: tuple[Column, ...] = ()
    source: SourceRef = field(default_factory=SourceRef)

    @property
    def qualified_name(self) -> str:
        return f"{self.schema}.{self.name}"


ModuleKind = Literal["view", "procedure", "function", "trigger", "ddl_trigger", "synonym"]


@dataclass(frozen=True)
class Module:
    """Code kept as source: views, procedures, functions, triggers, synonyms.

    `definition` is the full CREATE text as written (None when the server stores it encrypted).
    `line_count` feeds effort estimates; `source.line` points at the CREATE statement.
    """

    schema: str | None
    name: str
    kind: ModuleKind
    definition: str | None = None
    function_kind: Literal["scalar", "inline_table", "table", "aggregate"] | None = None
    is_clr: bool = False
    is_schema_bound: bool = False
    native_compilation: bool = False
    created_with: Literal["create", "create_or_alter", "alter"] = "create"
    """The script statement that defined it; `alter` means the script changes a module defined elsewhere."""
    parent: str | None = None
    """The table a DML trigger belongs to (`schema.name`)."""
    base_object: str | None = None
    """The object a synonym points at, as SQL Server stores it (may be 3- or 4-part)."""
    indexes: tuple[Index, ...] = ()
    """Indexes created on a view (an indexed view has a unique clustered one)."""
    source: SourceRef = field(default_factory=SourceRef)

    @property
    def qualified_name(self) -> str:
        return f"{self.schema}.{self.name}" if self.schema else self.name

    @property
    def line_count(self) -> int:
        return self.definition.count("\n") + 1 if self.definition else 0


@dataclass(frozen=True)
class PartitionFunction:
    name: str
    type: DataType
    boundaries: tuple[str, ...] = ()
    range_right: bool = False
    source: SourceRef = field(default_factory=SourceRef)


@dataclass(frozen=True)
class PartitionScheme:
    name: str
    function: str
    filegroups: tuple[str, ...] = ()
    source: SourceRef = field(default_factory=SourceRef)


@dataclass(frozen=True)
class Database:
    """Everything known about one SQL Server database's schema."""

    name: str | None = None
    collation: str | None = None
    compatibility_level: int | None = None
    schemas: tuple[str, ...] = ()
    tables: tuple[Table, ...] = ()
    sequences: tuple[Sequence, ...] = ()
    user_types: tuple[UserType, ...] = ()
    modules: tuple[Module, ...] = ()
    partition_functions: tuple[PartitionFunction, ...] = ()
    partition_schemes: tuple[PartitionScheme, ...] = ()

    def table(self, schema: str | None, name: str) -> Table | None:
        """Find a table case-insensitively; `schema=None` matches the only table of that name."""
        hits = self._tables_by_name.get(name.casefold(), ())
        if schema is not None:
            sfold = schema.casefold()
            return next((t for t in hits if t.schema.casefold() == sfold), None)
        return hits[0] if len(hits) == 1 else next((t for t in hits if t.schema.casefold() == "dbo"), None)

    @cached_property
    def _tables_by_name(self) -> dict[str, tuple[Table, ...]]:
        """Tables by case-folded name, in schema order: built once, since the translator looks a
        table up for every column reference of every query (a schema may hold thousands)."""
        by_name: dict[str, list[Table]] = {}
        for table in self.tables:
            by_name.setdefault(table.name.casefold(), []).append(table)
        return {name: tuple(tables) for name, tables in by_name.items()}

    @cached_property
    def column_types(self) -> frozenset[str]:
        """The base type names its tables' columns use (`real`, `nvarchar`): a question about one
        type ("is any column real?") answered once, not by resolving every column reference."""
        return frozenset(column.type.name.lower() for table in self.tables for column in table.columns)

    def sequence(self, schema: str | None, name: str) -> Sequence | None:
        folded = name.casefold()
        hits = [s for s in self.sequences if s.name.casefold() == folded]
        if schema is not None:
            return next((s for s in hits if s.schema.casefold() == schema.casefold()), None)
        return hits[0] if len(hits) == 1 else None

    def modules_of(self, kind: ModuleKind) -> tuple[Module, ...]:
        return tuple(m for m in self.modules if m.kind == kind)

    def referencing_foreign_keys(self, table: Table) -> tuple[tuple[Table, ForeignKey], ...]:
        """Foreign keys of other tables (or the table itself) that point at `table`."""
        s, n = table.schema.casefold(), table.name.casefold()
        return tuple(
            (t, fk)
            for t in self.tables
            for fk in t.foreign_keys
            if fk.ref_schema.casefold() == s and fk.ref_table.casefold() == n
        )
