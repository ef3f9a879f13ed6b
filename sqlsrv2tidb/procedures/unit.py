"""What compiling one procedure keeps while it reads the body: its translator session and what it found.

The statements of a procedure are translated in order by one `translate.session.StatementSession`,
so each knows the variables, temp tables and table variables before it. Each translation's notes
are kept, its status counted, and what cannot run becomes a `Blocker` with its line. The runner's
own values (`@@ROWCOUNT`, `ERROR_MESSAGE()`, `XACT_STATE()`) are put in every statement as
variables it binds (`@sqlsrv2tidb_rowcount`), so the statement the target gets reads the value the
runner keeps, not the target's own (ROW_COUNT() counts otherwise, and the target knows no CATCH).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from ..errors import one_line
from ..model import Database, Parameter
from ..model.translation import Note, Status
from ..options import Options
from ..translate.dialect import SqlServer
from ..translate.naming import NameMap
from ..translate.session import SentStatement, StatementSession, StatementTranslation
from .affected import ChangePlan, plan_changes
from .expressions import RUNTIME_PREFIX, RUNTIME_TYPES, local_form, runtime_name
from .functions import functions_of, inline
from .header import Blocker
from .program import Program, Value

NestedCompile = Callable[..., Program]
"""Compiles literal SQL (sp_executesql, EXEC ('...')) as a batch of its own: (text, parameters, line)."""


@dataclass
class Unit:
    """One procedure (or batch) being compiled."""

    name: str
    database: Database
    names: NameMap
    options: Options
    nested: NestedCompile
    session: StatementSession = field(init=False)
    blockers: list[Blocker] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    statuses: list[Status] = field(default_factory=list)
    statements: int = 0
    sent: int = 0
    calls: list[str] = field(default_factory=list)
    writes: list[str] = field(default_factory=list)
    transactions: bool = False
    table_types: dict[str, str] = field(default_factory=dict)
    """Table variables declared with a user table type: lower-case name (no `@`) -> the type."""
    json_tables: int = 0
    """Table variables made for OPENJSON over held values so far (`json_rows`)."""
    variables: dict[str, str] = field(default_factory=dict)
    """Lower-case name (no `@`) -> declared type, for every variable and parameter."""
    renamed: dict[str, str] = field(default_factory=dict)
    """Tables read under another name (lower-case name -> name): a trigger's `inserted` and `deleted`, which are
    temporary tables of its own on the target, each kept under its T-SQL name as an alias."""

    def __post_init__(self) -> None:
        runtime = [Parameter("@" + RUNTIME_PREFIX + name, type_text) for name, type_text in RUNTIME_TYPES.items()]
        self.session = StatementSession(self.database, self.names, self.options, runtime)
        self.functions = functions_of(self.database)

    def declare(self, name: str, type_text: str) -> None:
        key = name.lstrip("@").lower()
        self.variables.setdefault(key, type_text)
        self.session.declare(name, type_text)

    def session_status(self) -> Status:
        """The status of the statement translated last."""
        return self.statuses[-1] if self.statuses else "translated"

    def table_columns(self, table: str) -> list[str]:
        """The columns of a table an INSERT names without a column list: a temp table or table variable made
        before, else the schema's table (without its identity, computed and rowversion columns)."""
        name = table.replace("[", "").replace("]", "").replace('"', "").strip()
        if name.startswith(("#", "@")):
            return self.session.temp_columns(name)
        schema, _, bare = name.rpartition(".")
        found = self.database.table(schema.split(".")[-1] or None, bare)
        if found is None:
            return []
        return [c.name for c in found.columns if c.identity is None and c.computed is None
                and c.type.name.lower() not in ("rowversion", "timestamp")]

    def block(self, construct: str, line: int, message: str) -> None:
        if not any(b.construct == construct and b.line == line for b in self.blockers):
            self.blockers.append(Blocker(construct, line, message))

    def keep(self, translation: StatementTranslation, line: int, what: str) -> tuple[SentStatement, ...]:
        """A translation's statements, its notes kept; unsupported, it blocks the procedure at `line`."""
        for note in translation.notes:
            if note not in self.notes:
                self.notes.append(note)
        self.statuses.append(translation.status)
        if translation.unsupported:
            said = next((n for n in translation.notes if n.status == "unsupported"), None)
            message = f"{said.code} {said.message}" if said else "the translator produced no TiDB statement"
            self.block(f"untranslatable {what}", line, message)
            return ()
        self.sent += len(translation.statements)
        return translation.statements

    def translate(self, tree: exp.Expr, sql: str, line: int, what: str = "statement") -> tuple[SentStatement, ...]:
        """The TiDB statements of one T-SQL statement, with the runner's values bound in it."""
        tree = self.inlined(tree, line)
        return self.keep(self.session.statement(self.typed_columns(self.with_runtime(tree)), sql), line, what)

    def inlined(self, tree: exp.Expr, line: int) -> exp.Expr:
        """The tree with its user-defined functions inlined (`functions`); one that cannot be blocks the procedure."""
        tree, problems = inline(tree, self.functions)
        for problem in problems:
            self.block("user-defined function", line, problem)
        return tree

    def typed_columns(self, tree: exp.Expr) -> exp.Expr:
        """`SELECT @when AS w`: a variable a query returns as a column is cast to its declared date or time type. Bound
        as a value, a date reaches the target as text, and the column would be text; in SQL Server it has the
        variable's type. (Numbers keep theirs: they are bound as numbers.)"""
        if not isinstance(tree, exp.Select):
            return tree
        for projection in tree.expressions:
            node = projection.this if isinstance(projection, exp.Alias) else projection
            if not (isinstance(node, exp.Parameter) and not isinstance(node.this, exp.Parameter)):
                continue
            declared = self.variables.get(node.name.lower(), "")
            if declared.split("(")[0].strip().lower() in _MOMENTS:
                node.replace(exp.Cast(this=node.copy(), to=exp.DataType.build(declared, dialect="tsql")))
        return tree

    def with_runtime(self, tree: exp.Expr) -> exp.Expr:
        """The tree with `@@ROWCOUNT`, `ERROR_MESSAGE()`... as the runner's variables, and
        `OBJECT_NAME(@@PROCID)` as the procedure's name."""
        tree = tree.copy()  # the translator may rewrite it in place; the caller's stays as written
        for node in list(tree.walk()):
            if self.renamed and isinstance(node, exp.Table) and not node.args.get("db") \
                    and node.name.lower() in self.renamed:
                alias = node.alias or node.name
                temporary = self.renamed[node.name.lower()]
                node.replace(exp.Table(this=exp.Identifier(this=temporary.lstrip("#"), temporary=temporary.startswith("#")),
                                       alias=exp.TableAlias(this=exp.to_identifier(alias))))
                continue
            if _procedure_name(node):
                node.replace(exp.Literal.string(self.name.split(".")[-1]))
                continue
            name = runtime_name(node)
            if name is not None:
                node.replace(exp.Parameter(this=exp.var(RUNTIME_PREFIX + name)))
        return tree

    def changes_of(self, tree: exp.Expr, keyless_delete: bool = False) -> ChangePlan | None:
        """How the rows a DML statement changes are read (`affected`), translated in this unit's session so the
        reads bind its variables; their notes are the tool's, not the procedure's."""
        return plan_changes(tree, self.database, self.names,
                            lambda node: self.session.statement(self.with_runtime(node), node.sql("tsql")), keyless_delete)

    def value(self, node: exp.Expr, text: str, line: int) -> Value:
        """An expression the runner needs: the client's form when it has one, and the target's `SELECT` for the rest."""
        local = local_form(node)
        translation = self.session.expression(self.with_runtime(self.inlined(node, line)))
        if translation.unsupported and local is not None:
            return Value(text, local)
        remote = self.keep(translation, line, "expression")
        if local is not None:
            self.sent -= len(remote)  # worked out on the client: no round trip
        return Value(text, local, remote)

    def condition(self, text: str, line: int) -> Value | None:
        """An IF or WHILE condition, asked of the target as `SELECT CASE WHEN condition THEN 1 ELSE 0 END`."""
        node = parse_condition(text)
        if node is None:
            self.block("unreadable condition", line, f"the condition `{one_line(text, 100)}` could not be read")
            return None
        local = local_form(node)
        case = exp.Case(ifs=[exp.If(this=node.copy(), true=exp.Literal.number(1))], default=exp.Literal.number(0))
        translation = self.session.expression(self.with_runtime(self.inlined(case, line)))
        if translation.unsupported and local is not None:
            return Value(text, local)
        remote = self.keep(translation, line, "condition")
        if local is not None:
            self.sent -= len(remote)
        return Value(text, local, remote)


_MOMENTS = {"date", "datetime", "datetime2", "smalldatetime", "time", "datetimeoffset"}


def _procedure_name(node: exp.Expr) -> bool:
    return (isinstance(node, exp.Anonymous) and node.name.upper() == "OBJECT_NAME" and len(node.expressions) == 1
            and isinstance(node.expressions[0], exp.Parameter) and isinstance(node.expressions[0].this, exp.Parameter)
            and node.expressions[0].this.name.upper() == "PROCID")


def parse_expression(text: str) -> exp.Expr | None:
    """One T-SQL expression read on its own, or None."""
    try:
        tree = sqlglot.parse_one(f"SELECT {text}", read=SqlServer)
    except (SqlglotError, ValueError):
        return None
    if not isinstance(tree, exp.Select) or len(tree.expressions) != 1 or tree.args.get("from_") is not None:
        return None
    return tree.expressions[0]


def parse_condition(text: str) -> exp.Expr | None:
    """A search condition (IF, WHILE) read on its own, or None."""
    try:
        tree = sqlglot.parse_one(f"SELECT 1 WHERE {text}", read=SqlServer)
    except (SqlglotError, ValueError):
        return None
    where = tree.args.get("where") if isinstance(tree, exp.Select) else None
    return where.this if where is not None else None
