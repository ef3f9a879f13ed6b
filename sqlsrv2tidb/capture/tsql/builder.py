"""All actions of all script files -> one `Database`, the way SQL Server would have ended up.

Definitions are applied first (in script order), then the changes to them (in script order), so an
SSDT project's files may come in any order. SQL Server's defaults are applied here because only
now is everything known: a PRIMARY KEY is CLUSTERED unless it says otherwise or the table already
has a clustered index (https://learn.microsoft.com/sql/t-sql/statements/create-table-transact-sql#primary-key),
key columns and IDENTITY columns are NOT NULL, alias types become their base type, a foreign key
without columns points at the referenced table's primary key, and re-enabling a constraint
without `WITH CHECK` leaves it not trusted
(https://learn.microsoft.com/sql/t-sql/statements/alter-table-transact-sql#with-check--with-nocheck).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ...model import (
    CheckConstraint,
    Column,
    Database,
    DataType,
    ForeignKey,
    Index,
    Key,
    Module,
    PartitionFunction,
    PartitionScheme,
    Sequence,
    Severity,
    SourceRef,
    Table,
    TablePartitioning,
    Temporal,
    UserType,
)
from .actions import (
    Action,
    AddElements,
    AlterColumn,
    CheckDraft,
    ColumnDraft,
    ConstraintState,
    CreateAliasType,
    CreateIndex,
    CreateModule,
    CreatePartitionFunction,
    CreatePartitionScheme,
    CreateSchema,
    CreateSequence,
    CreateTable,
    CreateTableType,
    CreateXmlSchemaCollection,
    DatabaseName,
    DefaultDraft,
    Description,
    ForeignKeyDraft,
    IndexDraft,
    IndexState,
    InsertRows,
    KeyDraft,
    ObjectName,
    PeriodDraft,
    SetVersioning,
    TableDraft,
    TableElement,
    TypeSpec,
)
from .context import display, split_name
from .problems import Findings
from .tokens import Token
from .types import UNKNOWN_COMPUTED, computed_type, not_null_by_default, system_type

_SYSTEM_DATABASES = frozenset({"master", "tempdb", "model", "msdb"})


def _key(schema: str, name: str) -> tuple[str, str]:
    return schema.casefold(), name.casefold()


@dataclass
class _TableState:
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

    def column(self, name: str) -> ColumnDraft | None:
        folded = name.casefold()
        return next((c for c in self.columns if c.name.casefold() == folded), None)


class Builder:
    def __init__(self, findings: Findings) -> None:
        self.findings = findings
        self.tables: dict[tuple[str, str], _TableState] = {}
        self.table_types: dict[tuple[str, str], tuple[CreateTableType, _TableState]] = {}
        self.alias_types: dict[tuple[str, str], UserType] = {}
        self.modules: dict[tuple[str, str, str], Module] = {}
        self.view_indexes: dict[tuple[str, str], list[Index]] = {}
        self.sequences: dict[tuple[str, str], CreateSequence] = {}
        self.functions: dict[str, CreatePartitionFunction] = {}
        self.schemes: dict[str, CreatePartitionScheme] = {}
        self.schemas: dict[str, str] = {}
        self.database: DatabaseName | None = None
        self.used: DatabaseName | None = None
        self._rows_unknown: set[tuple[tuple[str, str], str]] = set()

    # -- phase 1: definitions ------------------------------------------------------------------
    def define(self, action: Action) -> None:
        if isinstance(action, CreateTable):
            schema, name = split_name(action.table.name)
            key = _key(schema, name)
            if self._duplicate(self.tables.get(key), action, f"table {schema}.{name}"):
                return
            state = _TableState(schema, name, action.table, versioning=action.table.versioning,
                                history=action.table.history)
            if action.table.storage:
                state.partitioning = TablePartitioning(*action.table.storage)
            self._add_elements(state, action.table.elements, action.token, nocheck=False, creating=True)
            self.tables[key] = state
            self._schema(schema)
        elif isinstance(action, CreateTableType):
            schema, name = split_name(action.name)
            state = _TableState(schema, name, action.table)
            self._add_elements(state, action.table.elements, action.token, nocheck=False, creating=True)
            self.table_types[_key(schema, name)] = (action, state)
            self._schema(schema)
        elif isinstance(action, CreateAliasType):
            schema, name = split_name(action.name)
            base = system_type(action.base)
            if base is None:
                self._unknown_type(action.base, f"alias type {schema}.{name}")
                base = DataType(action.base.name[-1].lower())
            self.alias_types[_key(schema, name)] = UserType(schema, name, base, nullable=action.nullable,
                                                            source=_ref(action))
            self._schema(schema)
        elif isinstance(action, CreateModule):
            self._define_module(action)
        elif isinstance(action, CreateSequence):
            schema, name = split_name(action.name)
            self.sequences[_key(schema, name)] = action
            self._schema(schema)
        elif isinstance(action, CreatePartitionFunction):
            self.functions[action.name.casefold()] = action
        elif isinstance(action, CreatePartitionScheme):
            self.schemes[action.name.casefold()] = action
        elif isinstance(action, CreateSchema):
            self._schema(action.name)
        elif isinstance(action, CreateXmlSchemaCollection):
            self._schema(split_name(action.name)[0])
        elif isinstance(action, DatabaseName):
            if action.created and self.database is None:
                self.database = action
            elif not action.created and action.name.casefold() not in _SYSTEM_DATABASES:
                self.used = action

    def _duplicate(self, existing: _TableState | None, action: CreateTable, what: str) -> bool:
        """True when `action` repeats an identical definition (same file and line); warn on a different one."""
        if existing is None:
            return False
        if existing.draft.source == action.table.source:
            return True
        self.findings.add("IN11", Severity.LOW, what,
                          f"{what} is defined again (first at {existing.draft.source}); the later definition is kept",
                          action.token, statement=action.token)
        return False

    def _define_module(self, action: CreateModule) -> None:
        module = action.module
        if action.parent is not None:
            module = replace(module, parent=display(action.parent))
        key = (module.kind if module.kind != "ddl_trigger" else "trigger", (module.schema or "").casefold(),
               module.name.casefold())
        existing = self.modules.get(key)
        if existing is not None and existing.source != module.source and module.created_with == "create":
            self.findings.add("IN11", Severity.LOW, module.qualified_name,
                              f"{module.kind} {module.qualified_name} is defined again (first at {existing.source});"
                              " the later definition is kept", action.token, statement=action.token)
        self.modules[key] = module
        if module.schema:
            self._schema(module.schema)

    def _schema(self, name: str) -> None:
        self.schemas.setdefault(name.casefold(), name)

    # -- phase 2: changes ----------------------------------------------------------------------
    def change(self, action: Action) -> None:
        target = getattr(action, "target", None)
        if target is None:
            return
        schema, name = split_name(target)
        state = self.tables.get(_key(schema, name))
        if isinstance(action, CreateIndex) and state is None:
            view = self.modules.get(("view", schema.casefold(), name.casefold()))
            if view is not None:
                self.view_indexes.setdefault(_key(schema, name), []).append(_index(action.index))
                return
        if state is None:
            what = {CreateIndex: "an index", Description: "a description", InsertRows: "rows"}.get(
                type(action), "a change")
            self.findings.add("IN07", Severity.MEDIUM, f"{schema}.{name}",
                              f"{what} for {schema}.{name}, a table the scripts never define; it is not in the model",
                              action.token, statement=action.token)
            return
        if isinstance(action, AddElements):
            self._add_elements(state, action.elements, action.token, nocheck=action.nocheck, creating=False)
        elif isinstance(action, ConstraintState):
            self._constraint_state(state, action)
        elif isinstance(action, AlterColumn):
            column = state.column(action.column.name)
            if column is None:
                self._missing(state, f"column {action.column.name}", action)
            else:
                column.type = action.column.type
                column.nullable = action.column.nullable
                column.collation = action.column.collation or column.collation
        elif isinstance(action, SetVersioning):
            state.versioning = action.on
            state.history = action.history or state.history
        elif isinstance(action, CreateIndex):
            self._add_index(state, action.index)
        elif isinstance(action, IndexState):
            hits = [i for i, ix in enumerate(state.indexes)
                    if action.name is None or (ix.name or "").casefold() == action.name.casefold()]
            if not hits and action.name is not None:
                self._missing(state, f"index {action.name}", action)
            for i in hits:
                state.indexes[i] = replace(state.indexes[i], disabled=action.disabled)
        elif isinstance(action, Description):
            if action.column is None:
                state.description = action.text
            elif (column := state.column(action.column)) is not None:
                column.description = action.text
            else:
                self._missing(state, f"column {action.column}", action)
        elif isinstance(action, InsertRows):
            if action.rows is not None:
                state.scripted_rows += action.rows
            elif (_key(schema, name), action.how) not in self._rows_unknown:
                self._rows_unknown.add((_key(schema, name), action.how))
                self.findings.add("IN09", Severity.INFO, f"{state.schema}.{state.name}",
                                  f"{action.how} into {state.schema}.{state.name}: the number of rows is not known"
                                  " from the script, so they are not counted", action.token, statement=action.token)

    def _missing(self, state: _TableState, what: str, action: Action) -> None:
        self.findings.add("IN07", Severity.MEDIUM, f"{state.schema}.{state.name}",
                          f"{what} of {state.schema}.{state.name} is not defined by the scripts; the change is not"
                          " applied", action.token, statement=action.token)

    def _add_elements(self, state: _TableState, elements: list[TableElement], token: Token, *, nocheck: bool,
                      creating: bool) -> None:
        others_clustered = creating and any(
            isinstance(e, (KeyDraft, IndexDraft)) and e.clustered is True for e in elements)
        for element in elements:
            if isinstance(element, ColumnDraft):
                state.columns.append(element)
            elif isinstance(element, KeyDraft):
                clustered = element.clustered
                if clustered is None:
                    clustered = element.primary and not state.has_clustered and not others_clustered
                key = Key(element.name, tuple(element.columns), clustered, element.source)
                if clustered:
                    state.has_clustered = True
                    if element.storage:
                        state.partitioning = TablePartitioning(*element.storage)
                if element.primary:
                    state.primary_key = key
                else:
                    state.unique_keys.append(key)
            elif isinstance(element, ForeignKeyDraft):
                ref_schema, ref_table = split_name(element.ref)
                state.foreign_keys.append(ForeignKey(
                    element.name, tuple(element.columns), ref_schema, ref_table, tuple(element.ref_columns),
                    element.on_delete, element.on_update, not_trusted=nocheck, source=element.source))
            elif isinstance(element, CheckDraft):
                state.checks.append(CheckConstraint(element.name, element.expression, element.column,
                                                    not_trusted=nocheck, source=element.source))
            elif isinstance(element, DefaultDraft):
                column = state.column(element.column)
                if column is None:
                    self.findings.add("IN07", Severity.MEDIUM, f"{state.schema}.{state.name}",
                                      f"DEFAULT for column {element.column} of {state.schema}.{state.name}, which has no"
                                      " such column; not applied", token, statement=token)
                else:
                    column.default, column.default_name = element.expression, element.name
            elif isinstance(element, IndexDraft):
                self._add_index(state, element)
            elif isinstance(element, PeriodDraft):
                state.period = (element.start, element.end)

    def _add_index(self, state: _TableState, draft: IndexDraft) -> None:
        index = _index(draft)
        if index.clustered and index.kind in ("rowstore", "columnstore"):
            state.has_clustered = True
            if draft.storage:
                state.partitioning = TablePartitioning(*draft.storage)
        state.indexes.append(index)

    def _constraint_state(self, state: _TableState, action: ConstraintState) -> None:
        wanted = None if action.names is None else {n.casefold() for n in action.names}

        def update(item):  # ForeignKey or CheckConstraint
            if wanted is not None and (item.name or "").casefold() not in wanted:
                return item
            if action.enabled:
                return replace(item, disabled=False, not_trusted=item.not_trusted and not action.with_check)
            return replace(item, disabled=True, not_trusted=True)

        before = {(c.name or "").casefold() for c in [*state.foreign_keys, *state.checks]}
        state.foreign_keys = [update(fk) for fk in state.foreign_keys]
        state.checks = [update(ck) for ck in state.checks]
        for name in sorted((wanted or set()) - before):
            self._missing(state, f"constraint {name}", action)

    # -- the model -----------------------------------------------------------------------------
    def finish(self) -> Database:
        tables = [self._table(state) for state in self.tables.values()]
        history = {_key(*split_name(s.history)) for s in self.tables.values() if s.versioning and s.history}
        tables = [replace(t, is_history_table=True) if _key(t.schema, t.name) in history else t for t in tables]
        user_types = list(self.alias_types.values())
        for action, state in self.table_types.values():
            columns = tuple(self._column(state, c) for c in state.columns)
            user_types.append(UserType(state.schema, state.name, is_table_type=True, columns=columns,
                                       source=_ref(action)))
        name = self.database or self.used
        return Database(
            name=name.name if name else None,
            collation=self.database.collation if self.database else None,
            schemas=tuple(self.schemas.values()),
            tables=tuple(tables),
            sequences=tuple(self._sequence(a) for a in self.sequences.values()),
            user_types=tuple(user_types),
            modules=tuple(self._module(m) for m in self.modules.values()),
            partition_functions=tuple(
                PartitionFunction(f.name, self._resolve(f.type, f"partition function {f.name}"), f.boundaries,
                                  f.range_right, _ref(f)) for f in self.functions.values()),
            partition_schemes=tuple(
                PartitionScheme(s.name, s.function, s.filegroups, _ref(s)) for s in self.schemes.values()),
        )

    def _module(self, module: Module) -> Module:
        indexes = self.view_indexes.get(_key(module.schema or "", module.name)) if module.kind == "view" else None
        return replace(module, indexes=tuple(indexes)) if indexes else module

    def _table(self, state: _TableState) -> Table:
        pk_columns = {c.name.casefold() for c in state.primary_key.columns} if state.primary_key else set()
        columns = tuple(self._column(state, c, c.name.casefold() in pk_columns) for c in state.columns)
        foreign_keys = tuple(self._foreign_key(fk) for fk in state.foreign_keys)
        temporal = None
        if state.versioning:
            history = split_name(state.history) if state.history else (None, None)
            temporal = Temporal(state.period[0] if state.period else None, state.period[1] if state.period else None,
                                history[0], history[1])
        draft = state.draft
        return Table(
            state.schema, state.name, columns, state.primary_key, tuple(state.unique_keys), tuple(state.indexes),
            foreign_keys, tuple(state.checks), memory_optimized=draft.memory_optimized,
            durability="schema_only" if draft.durability == "schema_only" else "schema_and_data",
            temporal=temporal, partitioning=state.partitioning, scripted_rows=state.scripted_rows,
            description=state.description, source=draft.source,
        )

    def _foreign_key(self, fk: ForeignKey) -> ForeignKey:
        if fk.ref_columns:
            return fk
        target = self.tables.get(_key(fk.ref_schema, fk.ref_table))
        if target is not None and target.primary_key is not None:
            return replace(fk, ref_columns=target.primary_key.column_names)
        return fk

    def _column(self, state: _TableState, draft: ColumnDraft, in_primary_key: bool = False) -> Column:
        data_type = computed_type(draft.computed.expression) if draft.computed else UNKNOWN_COMPUTED
        alias_nullable = True
        if draft.type is not None:
            data_type = self._resolve(draft.type, f"column {state.schema}.{state.name}.{draft.name}")
            alias = self._alias(draft.type)
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

    def _alias(self, spec: TypeSpec) -> UserType | None:
        if system_type(spec) is not None:
            return None
        if len(spec.name) >= 2 and spec.name[-2]:
            return self.alias_types.get(_key(spec.name[-2], spec.name[-1]))
        folded = spec.name[-1].casefold()
        hit = self.alias_types.get(("dbo", folded))
        if hit is not None:
            return hit
        candidates = [t for (_, n), t in self.alias_types.items() if n == folded]
        return candidates[0] if len(candidates) == 1 else None

    def _resolve(self, spec: TypeSpec, what: str) -> DataType:
        builtin = system_type(spec)
        if builtin is not None:
            return builtin
        alias = self._alias(spec)
        if alias is not None and alias.base is not None:
            return replace(alias.base, alias=alias.qualified_name)
        folded = (split_name(spec.name)[0].casefold(), spec.name[-1].casefold())
        if folded in self.table_types:
            return DataType(f"{split_name(spec.name)[0]}.{spec.name[-1]}")
        self._unknown_type(spec, what)
        return DataType(".".join(p for p in spec.name if p))

    def _unknown_type(self, spec: TypeSpec, what: str) -> None:
        name = ".".join(p for p in spec.name if p)
        self.findings.add("IN08", Severity.MEDIUM, what,
                          f"{what} has type {name}, which is neither a SQL Server type nor one the scripts define"
                          " (a CLR type?); it is kept by name", spec.token)

    def _sequence(self, action: CreateSequence) -> Sequence:
        schema, name = split_name(action.name)
        data_type = self._resolve(action.type, f"sequence {schema}.{name}") if action.type else DataType("bigint")
        return Sequence(schema, name, data_type, action.start, action.increment, action.minimum, action.maximum,
                        action.cycle, action.cached, action.cache_size, _ref(action))


def _index(draft: IndexDraft) -> Index:
    return Index(draft.name, tuple(draft.columns), draft.kind, draft.unique, draft.clustered, tuple(draft.include),
                 draft.filter, source=draft.source)


def _ref(action: Action) -> SourceRef:
    return SourceRef(action.token.source.path, action.token.line)


def build(actions: list[Action], findings: Findings) -> Database:
    builder = Builder(findings)
    for action in actions:
        builder.define(action)
    for action in actions:
        builder.change(action)
    return builder.finish()
