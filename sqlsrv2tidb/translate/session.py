"""Statements translated one at a time, each knowing what the ones before it made known.

`translate_sql` reads one text and forgets it. Code that runs statement by statement (the
procedure runner: a procedure's statements sent one by one, with its own IF, WHILE and cursor
steps between them) needs each statement translated alone, yet with what its procedure declared
before it: the variables, which stay on the client and are bound to each statement as `?` (with
their T-SQL types, which several rewrites read), and the temp tables and table variables with
their columns. A `StatementSession` keeps that across statements; each translation carries only
its own notes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlglot import exp

from ..model import Database, Parameter
from ..model.translation import Note, Status
from ..options import Options
from .context import STATUS_RANK, Context
from .emit import split_target_sql, unquoted
from .expression_types import Types, type_of_declaration
from .naming import NameMap
from .queries import written
from .statements import Statement


@dataclass(frozen=True)
class SentStatement:
    """One TiDB statement: its text with `?` markers and the variable (`@name`) bound to each."""

    sql: str
    parameters: tuple[str, ...] = ()


@dataclass(frozen=True)
class StatementTranslation:
    """What one T-SQL statement becomes: the TiDB statements, in order (none when it needs none), its status and notes."""

    statements: tuple[SentStatement, ...]
    status: Status
    notes: tuple[Note, ...] = ()

    @property
    def unsupported(self) -> bool:
        return self.status == "unsupported"


class StatementSession:
    """Translates the statements of one unit of code in order, with one translator context among them.

    `variables` are bound to every statement that names them as parameters (`?`), never made session
    variables: they live on the client that runs the statements.
    """

    def __init__(self, database: Database, names: NameMap, options: Options, variables: Iterable[Parameter] = ()) -> None:
        self.ctx = Context(database=database, names=names, options=options, types=Types(database))
        for variable in variables:
            self.declare(variable.name, variable.type)

    def declare(self, name: str, type_text: str | None) -> None:
        """A variable the following statements may name: bound as a parameter, typed when the type reads."""
        key = name.lstrip("@").lower()
        self.ctx.parameters.setdefault(key, "@" + name.lstrip("@"))
        datatype = type_of_declaration(type_text) if type_text else None
        if datatype is not None:
            self.ctx.types.variables[key] = datatype

    def temp_columns(self, name: str) -> list[str]:
        """The columns of a temp table (`#t`) or table variable (`@t`) an earlier statement made, in order."""
        return list(self.ctx.types.temp_tables.get(name.lower(), {}))

    def statement(self, tree: exp.Expr, sql: str) -> StatementTranslation:
        """The TiDB statements of one parsed T-SQL statement (`sql` its text, for the notes)."""
        ctx = self.ctx
        ctx.notes = []
        target, bound = written(lambda: [Statement(sql, tree=tree)], ctx)
        status = ctx.status
        notes = tuple(ctx.notes)
        ctx.notes = []
        if status == "unsupported" or target is None:
            return StatementTranslation((), "unsupported", notes)
        return StatementTranslation(_sent(target, bound), status, notes)

    def expression(self, node: exp.Expr) -> StatementTranslation:
        """`SELECT <node> AS value`: a value the client cannot work out itself, asked of the target. Named, since a
        server names an unnamed column by its text cut to 256 bytes, which may cut a character of a long one."""
        select = exp.Select(expressions=[exp.alias_(node.copy(), "value")])
        return self.statement(select, select.sql("tsql"))


def _sent(target: str, bound: tuple[str, ...]) -> tuple[SentStatement, ...]:
    """Each statement of a translation with the parameters its own markers take, in order."""
    out: list[SentStatement] = []
    at = 0
    for part in split_target_sql(target):
        count = sum(1 for _ in unquoted(part, "?"))
        out.append(SentStatement(part, tuple(bound[at:at + count])))
        at += count
    return tuple(out)


def worst(statuses: Iterable[Status]) -> Status:
    """The status that says most of several: unsupported over review over rewritten over translated."""
    found: Status = "translated"
    for status in statuses:
        if STATUS_RANK[status] > STATUS_RANK[found]:
            found = status
    return found
