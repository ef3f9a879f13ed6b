"""What the statement parsers produce: drafts of objects and the changes scripts make to them.

Parsers do not touch the model directly. SSDT projects hold one object per file in any order, so
an `ALTER TABLE ... ADD CONSTRAINT`, a `CREATE INDEX` or a description may be read before the
table it belongs to; and alias types may be defined after the columns that use them. So every
statement becomes an action here, and `builder` applies them once all files are read: object
definitions first, then the changes to them, each group in script order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...model import Computed, Identity, IndexColumn, Module, SourceRef
from ...model.schema import IndexKind, ReferentialAction
from .tokens import Token

ObjectName = tuple[str, ...]
"""A name as written: `('Sales', 'Orders')`, `('Orders',)`, `('db', '', 'Orders')`."""


@dataclass
class TypeSpec:
    """A column type as written: `nvarchar(50)`, `[dbo].[Name]`, `xml(CONTENT Person.X)`, `decimal(9,4)`."""

    name: ObjectName
    args: tuple[int | str, ...] = ()
    xml_schema: ObjectName | None = None
    token: Token | None = None


@dataclass
class ColumnDraft:
    name: str
    type: TypeSpec | None
    """None for a computed column (its type follows from the expression)."""
    nullable: bool | None = None
    """None when the script does not say; SQL Server's default then depends on the column."""
    identity: Identity | None = None
    default: str | None = None
    default_name: str | None = None
    computed: Computed | None = None
    collation: str | None = None
    rowguidcol: bool = False
    sparse: bool = False
    generated_always: str | None = None
    hidden: bool = False
    masked: bool = False
    encrypted: bool = False
    description: str | None = None
    source: SourceRef = field(default_factory=SourceRef)


@dataclass
class KeyDraft:
    """PRIMARY KEY or UNIQUE, inline or added later; `clustered=None` means the script did not say."""

    primary: bool
    name: str | None
    columns: list[IndexColumn]
    clustered: bool | None = None
    hash: bool = False
    storage: tuple[str, str] | None = None
    """`ON scheme(column)`: the partition scheme the key's index is placed on."""
    source: SourceRef = field(default_factory=SourceRef)


@dataclass
class ForeignKeyDraft:
    name: str | None
    columns: list[str]
    ref: ObjectName
    ref_columns: list[str]
    on_delete: ReferentialAction = "no_action"
    on_update: ReferentialAction = "no_action"
    source: SourceRef = field(default_factory=SourceRef)


@dataclass
class CheckDraft:
    name: str | None
    expression: str
    column: str | None = None
    source: SourceRef = field(default_factory=SourceRef)


@dataclass
class DefaultDraft:
    """`[CONSTRAINT n] DEFAULT expr FOR column`, only valid in ALTER TABLE ... ADD."""

    name: str | None
    expression: str
    column: str
    source: SourceRef = field(default_factory=SourceRef)


@dataclass
class IndexDraft:
    name: str | None
    columns: list[IndexColumn]
    kind: IndexKind = "rowstore"
    unique: bool = False
    clustered: bool = False
    include: list[str] = field(default_factory=list)
    filter: str | None = None
    storage: tuple[str, str] | None = None
    source: SourceRef = field(default_factory=SourceRef)


@dataclass
class PeriodDraft:
    start: str
    end: str


TableElement = ColumnDraft | KeyDraft | ForeignKeyDraft | CheckDraft | DefaultDraft | IndexDraft | PeriodDraft


@dataclass
class TableDraft:
    name: ObjectName
    elements: list[TableElement] = field(default_factory=list)
    memory_optimized: bool = False
    durability: str = "schema_and_data"
    versioning: bool = False
    history: ObjectName | None = None
    storage: tuple[str, str] | None = None
    source: SourceRef = field(default_factory=SourceRef)


# ---- actions ---------------------------------------------------------------------------------


@dataclass
class Action:
    token: Token
    """The first token of the statement: where findings about it point."""


@dataclass
class CreateTable(Action):
    table: TableDraft


@dataclass
class CreateTableType(Action):
    name: ObjectName
    table: TableDraft


@dataclass
class CreateAliasType(Action):
    name: ObjectName
    base: TypeSpec
    nullable: bool = True


@dataclass
class CreateSequence(Action):
    name: ObjectName
    type: TypeSpec | None = None
    start: int | None = None
    increment: int = 1
    minimum: int | None = None
    maximum: int | None = None
    cycle: bool = False
    cached: bool = True
    cache_size: int | None = None


@dataclass
class CreateSchema(Action):
    name: str


@dataclass
class DatabaseName(Action):
    """`CREATE DATABASE` (created=True) or `USE`; the first gives the name, the collation with it."""

    name: str
    created: bool = False
    collation: str | None = None


@dataclass
class CreateXmlSchemaCollection(Action):
    name: ObjectName


@dataclass
class CreatePartitionFunction(Action):
    name: str
    type: TypeSpec
    boundaries: tuple[str, ...]
    range_right: bool


@dataclass
class CreatePartitionScheme(Action):
    name: str
    function: str
    filegroups: tuple[str, ...]


@dataclass
class CreateModule(Action):
    module: Module
    parent: ObjectName | None = None
    """The table of a DML trigger, or the target of ... nothing else; resolved to `schema.name`."""


@dataclass
class AddElements(Action):
    """`ALTER TABLE t [WITH CHECK|NOCHECK] ADD ...`: columns and constraints added to a table."""

    target: ObjectName
    elements: list[TableElement]
    nocheck: bool = False


@dataclass
class ConstraintState(Action):
    """`ALTER TABLE t [WITH CHECK] {CHECK|NOCHECK} CONSTRAINT {ALL | names}`."""

    target: ObjectName
    names: list[str] | None
    enabled: bool
    with_check: bool = False


@dataclass
class AlterColumn(Action):
    target: ObjectName
    column: ColumnDraft


@dataclass
class SetVersioning(Action):
    target: ObjectName
    on: bool
    history: ObjectName | None = None


@dataclass
class CreateIndex(Action):
    target: ObjectName
    index: IndexDraft


@dataclass
class IndexState(Action):
    """`ALTER INDEX {name | ALL} ON t DISABLE | REBUILD` (a rebuild enables a disabled index)."""

    target: ObjectName
    name: str | None
    disabled: bool


@dataclass
class Description(Action):
    """A description from `sp_addextendedproperty` on a table (column=None) or one of its columns."""

    target: ObjectName
    column: str | None
    text: str


@dataclass
class InsertRows(Action):
    """Rows an INSERT adds; `rows=None` when the script cannot tell (INSERT ... SELECT, BULK INSERT)."""

    target: ObjectName
    rows: int | None
    how: str = "VALUES"


TABLE_CHANGES = (AddElements, ConstraintState, AlterColumn, SetVersioning, CreateIndex, IndexState, Description,
                 InsertRows)
