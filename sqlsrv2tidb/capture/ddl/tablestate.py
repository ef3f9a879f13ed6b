"""One table while the scripts are still being applied to it, and the frozen `Table` it becomes.

Here live SQL Server's rules for what a table ends up as
(https://learn.microsoft.com/sql/t-sql/statements/create-table-transact-sql): a PRIMARY KEY is
CLUSTERED unless it says NONCLUSTERED or another index already is (or, in the same CREATE TABLE, is
declared) clustered; key and IDENTITY columns are NOT NULL; a column of an alias type declared
NOT NULL is NOT NULL unless it says otherwise; and `ALTER TABLE ... CHECK CONSTRAINT` without
`WITH CHECK` re-enables a constraint but leaves it not trusted
(https://learn.microsoft.com/sql/t-sql/statements/alter-table-transact-sql#with-check--with-nocheck).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ...model import (
    CheckConstraint,
    Column,
    ForeignKey,
    Index,
    Key,
    Severity,
    Table,
    TablePartitioning,
    Temporal,
)
from .actions import (
    CheckDraft,
    ColumnDraft,
    ConstraintState,
    DefaultDraft,
    ForeignKeyDraft,
    IndexDraft,
    KeyDraft,
    ObjectName,
    PeriodDraft,
    TableDraft,
    TableElement,
)
from .context import split_name
from .problems import Findings
from .resolve import TypeResolver
from .tokens import Token
from .types import UNKNOWN_COMPUTED, computed_type, not_null_by_default


@dataclass
class TableState:
    schema: str
    name: str
    draft: TableDraft
    columns: list[ColumnDraft] = field(default_factory=list)
    primary_key: Key | None = None
    unique_keys: list[Key] = field(default_factory=list)
    indexes: list[Index] = field(default_factory=list)
    foreign_keys: list[ForeignKey] = field(default_factory=list)
    checks: list[CheckConstraint] = field(default_factory=list)
    period: tuple[str, str] | None = None
    versioning: bool = False
    history: ObjectName | None = None
    partitioning: TablePartitioning | None = None
    has_clustered: bool = False
    scripted_rows: int = 0
    description: str | None = None

    @property
    def qualified_name(self) -> str:
        return f"{self.schema}.{self.name}"

    def column(self, name: str) -> ColumnDraft | None:
        folded = name.casefold()
        return next((c for c in self.columns if c.name.casefold() == folded), None)

    def missing(self, findings: Findings, what: str, token: Token) -> None:
        findings.add("IN07", Severity.MEDIUM, self.qualified_name,
                     f"{what} of {self.qualified_name} is not defined by the scripts; the change is not applied",
                     token, statement=token)

    # -- changes -------------------------------------------------------------------------------
    def add_elements(self, elements: list[TableElement], findings: Findings, token: Token, *, nocheck: bool,
                     creating: bool) -> None:
        others_clustered = creating and any(
            isinstance(e, (KeyDraft, IndexDraft)) and e.clustered is True for e in elements)
        for element in elements:
            if isinstance(element, ColumnDraft):
                self.columns.append(element)
            elif isinstance(element, KeyDraft):
                self._add_key(element, others_clustered)
            elif isinstance(element, ForeignKeyDraft):
                ref_schema, ref_table = split_name(element.ref)
                self.foreign_keys.append(ForeignKey(
                    element.name, tuple(element.columns), ref_schema, ref_table, tuple(element.ref_columns),
                    element.on_delete, element.on_update, not_trusted=nocheck, source=element.source))
            elif isinstance(element, CheckDraft):
                self.checks.append(CheckConstraint(element.name, element.expression, element.column,
                                                   not_trusted=nocheck, source=element.source))
            elif isinstance(element, DefaultDraft):
                column = self.column(element.column)
                if column is None:
                    self.missing(findings, f"column {element.column} (for DEFAULT {element.name or ''})", token)
                else:
                    column.default, column.default_name = element.expression, element.name
            elif isinstance(element, IndexDraft):
                self.add_index(element)
            elif isinstance(element, PeriodDraft):
                self.period = (element.start, element.end)

    def _add_key(self, element: KeyDraft, others_clustered: bool) -> None:
        clustered = element.clustered
        if clustered is None:
            clustered = element.primary and not self.has_clustered and not others_clustered
        key = Key(element.name, tuple(element.columns), clustered, element.source)
        if clustered:
            self.has_clustered = True
            if element.storage:
                self.partitioning = TablePartitioning(*element.storage)
        if element.primary:
            self.primary_key = key
        else:
            self.unique_keys.append(key)

    def add_index(self, draft: IndexDraft) -> None:
        index = to_index(draft)
        if index.clustered and index.kind in ("rowstore", "columnstore"):
            self.has_clustered = True
            if draft.storage:  # the clustered index's placement is the table's
                self.partitioning = TablePartitioning(*draft.storage)
        self.indexes.append(index)

    def set_index_state(self, name: str | None, disabled: bool, findings: Findings, token: Token) -> None:
        hits = [i for i, ix in enumerate(self.indexes) if name is None or (ix.name or "").casefold() == name.casefold()]
        if not hits and name is not None:
            self.missing(findings, f"index {name}", token)
        for i in hits:
            self.indexes[i] = replace(self.indexes[i], disabled=disabled)

    def set_constraint_state(self, action: ConstraintState, findings: Findings) -> None:
        wanted = None if action.names is None else {n.casefold() for n in action.names}

        def update(item):  # a ForeignKey or CheckConstraint
            if wanted is not None and (item.name or "").casefold() not in wanted:
                return item
            if action.enabled:
                return replace(item, disabled=False, not_trusted=item.not_trusted and not action.with_check)
            return replace(item, disabled=True, not_trusted=True)

        known = {(c.name or "").casefold() for c in [*self.foreign_keys, *self.checks]}
        self.foreign_keys = [update(fk) for fk in self.foreign_keys]
        self.checks = [update(ck) for ck in self.checks]
        for name in sorted((wanted or set()) - known):
            self.missing(findings, f"constraint {name}", action.token)

    # -- the model -----------------------------------------------------------------------------
    def to_table(self, types: TypeResolver, primary_keys: dict[tuple[str, str], Key]) -> Table:
        pk_columns = {c.name.casefold() for c in self.primary_key.columns} if self.primary_key else set()
        columns = tuple(self.to_column(c, types, c.name.casefold() in pk_columns) for c in self.columns)
        foreign_keys = []
        for fk in self.foreign_keys:
            target = primary_keys.get((fk.ref_schema.casefold(), fk.ref_table.casefold()))
            if not fk.ref_columns and target is not None:  # REFERENCES t without columns means t's primary key
                fk = replace(fk, ref_columns=target.column_names)
            foreign_keys.append(fk)
        temporal = None
        if self.versioning:
            history = split_name(self.history) if self.history else (None, None)
            start, end = self.period or (None, None)
            temporal = Temporal(start, end, history[0], history[1])
        draft = self.draft
        return Table(
            self.schema, self.name, columns, self.primary_key, tuple(self.unique_keys), tuple(self.indexes),
            tuple(foreign_keys), tuple(self.checks), memory_optimized=draft.memory_optimized,
            durability="schema_only" if draft.durability == "schema_only" else "schema_and_data",
            temporal=temporal, partitioning=self.partitioning, scripted_rows=self.scripted_rows,
            description=self.description, source=draft.source,
        )

    def to_column(self, draft: ColumnDraft, types: TypeResolver, in_primary_key: bool = False) -> Column:
        data_type = computed_type(draft.computed.expression) if draft.computed else UNKNOWN_COMPUTED
        alias_nullable = True
        if draft.type is not None:
            data_type = types.resolve(draft.type, f"column {self.qualified_name}.{draft.name}")
            alias = types.alias(draft.type)
            alias_nullable = alias.nullable if alias is not None else True
        if draft.nullable is not None:
            nullable = draft.nullable and not in_primary_key
        else:
            nullable = not (in_primary_key or draft.identity is not None or draft.generated_always is not None
                            or not alias_nullable or (draft.type is not None and not_null_by_default(data_type)))
        return Column(
            draft.name, data_type, nullable, draft.identity, draft.default, draft.default_name, draft.computed,
            draft.collation, draft.rowguidcol, draft.sparse, draft.generated_always,  # type: ignore[arg-type]
            draft.hidden, draft.masked, draft.encrypted, draft.description, draft.source,
        )


def to_index(draft: IndexDraft) -> Index:
    return Index(draft.name, tuple(draft.columns), draft.kind, draft.unique, draft.clustered, tuple(draft.include),
                 draft.filter, source=draft.source)
