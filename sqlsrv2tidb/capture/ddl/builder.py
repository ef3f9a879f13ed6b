"""All actions of all script files -> one `Database`, the way SQL Server would have ended up.

Definitions are applied first (in script order), then the changes to them (in script order), so an
SSDT project's files may come in any order: a constraint, index or description read before its
table's file still lands on the table. What SQL Server would do with each table is in
`tablestate`; types are resolved by `resolve` once every alias type is known. The same object
defined twice keeps the later definition (IN11); a change to a table no script defines is IN07.
"""

from __future__ import annotations

from dataclasses import replace

from ...model import (
    Database,
    DataType,
    Index,
    Module,
    PartitionFunction,
    PartitionScheme,
    Sequence,
    Severity,
    SourceRef,
    Table,
    TablePartitioning,
    UserType,
)
from .actions import (
    Action,
    AddElements,
    AlterColumn,
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
    Description,
    IndexState,
    InsertRows,
    SetVersioning,
)
from .context import display, split_name
from .problems import Findings
from .resolve import TypeResolver
from .tablestate import TableState, to_index
from .types import system_type

_SYSTEM_DATABASES = frozenset({"master", "tempdb", "model", "msdb"})


def _key(schema: str, name: str) -> tuple[str, str]:
    return schema.casefold(), name.casefold()


def _made_history_tables(tables: list[Table]) -> list[Table]:
    """The history tables SQL Server makes for `SYSTEM_VERSIONING = ON (HISTORY_TABLE = x)` when the script defines no
    table x: the versioned table's columns, as plain columns (no identity, default or computed value, no key).
    https://learn.microsoft.com/sql/relational-databases/tables/creating-a-system-versioned-temporal-table"""
    have = {_key(t.schema, t.name) for t in tables}
    made = []
    for table in tables:
        temporal = table.temporal
        if temporal is None or not temporal.history_table:
            continue
        schema = temporal.history_schema or table.schema
        if _key(schema, temporal.history_table) in have:
            continue
        columns = tuple(replace(c, identity=None, computed=None, default=None, default_name=None) for c in table.columns)
        made.append(Table(schema, temporal.history_table, columns, is_history_table=True, source=table.source,
                          description=f"history of {table.qualified_name} (made by SQL Server for SYSTEM_VERSIONING)"))
        have.add(_key(schema, temporal.history_table))
    return made


class Builder:
    def __init__(self, findings: Findings) -> None:
        self.findings = findings
        self.tables: dict[tuple[str, str], TableState] = {}
        self.table_types: dict[tuple[str, str], tuple[CreateTableType, TableState]] = {}
        self.types = TypeResolver(findings)
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
            state = TableState(schema, name, action.table, versioning=action.table.versioning,
                               history=action.table.history)
            if action.table.storage:
                state.partitioning = TablePartitioning(*action.table.storage)
            state.add_elements(action.table.elements, self.findings, action.token, nocheck=False, creating=True)
            self.tables[key] = state
            self._schema(schema)
        elif isinstance(action, CreateTableType):
            schema, name = split_name(action.name)
            state = TableState(schema, name, action.table)
            state.add_elements(action.table.elements, self.findings, action.token, nocheck=False, creating=True)
            self.table_types[_key(schema, name)] = (action, state)
            self.types.table_types.add(_key(schema, name))
            self._schema(schema)
        elif isinstance(action, CreateAliasType):
            schema, name = split_name(action.name)
            base = system_type(action.base)
            if base is None:
                self.types.unknown(action.base, f"alias type {schema}.{name}")
                base = DataType(action.base.name[-1].lower())
            self.types.aliases[_key(schema, name)] = UserType(schema, name, base, nullable=action.nullable,
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

    def _duplicate(self, existing: TableState | None, action: CreateTable, what: str) -> bool:
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
                self.view_indexes.setdefault(_key(schema, name), []).append(to_index(action.index))
                return
        if state is None:
            what = {CreateIndex: "an index", Description: "a description", InsertRows: "rows",
                    AddElements: "columns or constraints", ConstraintState: "a constraint check change",
                    AlterColumn: "a column change", SetVersioning: "system versioning",
                    IndexState: "an index change"}.get(type(action), "a change")
            self.findings.add("IN07", Severity.MEDIUM, f"{schema}.{name}",
                              f"{what} for {schema}.{name}, a table the scripts never define; it is not in the model",
                              action.token, statement=action.token)
            return
        if isinstance(action, AddElements):
            state.add_elements(action.elements, self.findings, action.token, nocheck=action.nocheck, creating=False)
        elif isinstance(action, ConstraintState):
            state.set_constraint_state(action, self.findings)
        elif isinstance(action, AlterColumn):
            column = state.column(action.column.name)
            if column is None:
                state.missing(self.findings, f"column {action.column.name}", action.token)
            else:
                column.type = action.column.type
                column.nullable = action.column.nullable
                column.collation = action.column.collation or column.collation
        elif isinstance(action, SetVersioning):
            state.versioning = action.on
            state.history = action.history or state.history
        elif isinstance(action, CreateIndex):
            state.add_index(action.index)
        elif isinstance(action, IndexState):
            state.set_index_state(action.name, action.disabled, self.findings, action.token)
        elif isinstance(action, Description):
            if action.column is None:
                state.description = action.text
            elif (column := state.column(action.column)) is not None:
                column.description = action.text
            else:
                state.missing(self.findings, f"column {action.column}", action.token)
        elif isinstance(action, InsertRows):
            if action.rows is not None:
                state.scripted_rows += action.rows
            elif (_key(schema, name), action.how) not in self._rows_unknown:
                self._rows_unknown.add((_key(schema, name), action.how))
                self.findings.add("IN09", Severity.INFO, f"{state.schema}.{state.name}",
                                  f"{action.how} into {state.schema}.{state.name}: the number of rows is not known"
                                  " from the script, so they are not counted", action.token, statement=action.token)

    # -- the model -----------------------------------------------------------------------------
    def finish(self) -> Database:
        primary_keys = {k: s.primary_key for k, s in self.tables.items() if s.primary_key is not None}
        tables = [state.to_table(self.types, primary_keys) for state in self.tables.values()]
        history = {_key(*split_name(s.history)) for s in self.tables.values() if s.versioning and s.history}
        tables = [replace(t, is_history_table=True) if _key(t.schema, t.name) in history else t for t in tables]
        tables += _made_history_tables(tables)
        user_types = list(self.types.aliases.values())
        for action, state in self.table_types.values():
            columns = tuple(state.to_column(c, self.types) for c in state.columns)
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
                PartitionFunction(f.name, self.types.resolve(f.type, f"partition function {f.name}"), f.boundaries,
                                  f.range_right, _ref(f)) for f in self.functions.values()),
            partition_schemes=tuple(
                PartitionScheme(s.name, s.function, s.filegroups, _ref(s)) for s in self.schemes.values()),
        )

    def _module(self, module: Module) -> Module:
        indexes = self.view_indexes.get(_key(module.schema or "", module.name)) if module.kind == "view" else None
        return replace(module, indexes=tuple(indexes)) if indexes else module

    def _sequence(self, action: CreateSequence) -> Sequence:
        schema, name = split_name(action.name)
        data_type = self.types.resolve(action.type, f"sequence {schema}.{name}") if action.type else DataType("bigint")
        return Sequence(schema, name, data_type, action.start, action.increment, action.minimum, action.maximum,
                        action.cycle, action.cached, action.cache_size, _ref(action))


def _ref(action: Action) -> SourceRef:
    return SourceRef(action.token.source.path, action.token.line)


def build(actions: list[Action], findings: Findings) -> Database:
    builder = Builder(findings)
    for action in actions:
        builder.define(action)
    for action in actions:
        builder.change(action)
    return builder.finish()
