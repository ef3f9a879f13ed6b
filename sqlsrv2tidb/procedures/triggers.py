"""A table's DML triggers, run by the runner after the statement that fires them, as the application will have to.

TiDB has no triggers (CREATE TRIGGER fails) and MySQL's fire once per row, so their logic moves into the
application, which runs it after each statement that changes the table: that is what the runner does.
An AFTER (FOR) trigger is compiled once as a program whose `inserted` and `deleted` are temporary
tables of the table's columns (`#sqlsrv2tidb_ins_N`, `#sqlsrv2tidb_del_N`, kept under the names
`inserted` and `deleted` as aliases, so `inserted.price` still reads); after a statement changes the
table, the runner fills them from the rows it read before and after it (`affected`) and runs the
program with @@ROWCOUNT the statement's count, XACT_ABORT ON (as in every trigger), and UPDATE(column)
true for the columns the statement set. It fires for zero rows too, as SQL Server's does. A ROLLBACK
inside it ends the transaction and the batch (error 3609).

An INSTEAD OF trigger replaces the statement: the runner does not run it, and a statement on its table
cannot run (its blocker says so). Neither can a trigger that reads COLUMNS_UPDATED() or that the
runner cannot run for another reason.
https://learn.microsoft.com/sql/t-sql/statements/create-trigger-transact-sql
https://learn.microsoft.com/sql/relational-databases/triggers/use-the-inserted-and-deleted-tables
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import Module
from ..translate.session import SentStatement
from .header import Blocker
from .program import Program

_HEAD = re.compile(r"\b(FOR|AFTER|INSTEAD\s+OF)\s+((?:INSERT|UPDATE|DELETE)(?:\s*,\s*(?:INSERT|UPDATE|DELETE))*)"
                   r"(?:\s+WITH\s+APPEND)?(?:\s+NOT\s+FOR\s+REPLICATION)?\s+AS\b", re.IGNORECASE)
_NOISE = re.compile(r"--[^\n]*|/\*.*?\*/|N?'(?:[^']|'')*'", re.DOTALL)
UPDATED = re.compile(r"\bUPDATE\s*\(\s*(\[[^\]]+\]|\"[^\"]+\"|[\w@#$]+)\s*\)", re.IGNORECASE)
"""UPDATE(column) in a trigger's conditions: true when the statement that fired it set the column."""


@dataclass(frozen=True)
class TriggerHead:
    timing: str
    """after or instead of."""
    actions: frozenset[str]
    """insert, update, delete."""
    body_start: int
    body_line: int


def read_trigger_head(definition: str) -> TriggerHead | None:
    """The timing, the actions and where the body starts, or None when the head cannot be read."""
    masked = _NOISE.sub(lambda m: " " * len(m[0]), definition)
    found = _HEAD.search(masked)
    if found is None:
        return None
    timing = "instead of" if found[1].upper().startswith("INSTEAD") else "after"
    actions = frozenset(a.strip().lower() for a in found[2].split(","))
    return TriggerHead(timing, actions, found.end(), definition.count("\n", 0, found.end()) + 1)


@dataclass(frozen=True)
class Trigger:
    """One DML trigger made ready to run after the statements that fire it."""

    name: str
    table: str
    """The table it belongs to, `schema.name` as the schema spells it."""
    timing: str
    actions: frozenset[str]
    program: Program
    columns: tuple[str, ...]
    """The table's columns, in order: the columns of `inserted` and `deleted`."""
    inserted: tuple[SentStatement, ...] = ()
    """CREATE TEMPORARY TABLE of its `inserted` (and `deleted` below), as the target runs them."""
    deleted: tuple[SentStatement, ...] = ()
    inserted_name: str = ""
    """The target's name of its `inserted` temporary table (and of `deleted`)."""
    deleted_name: str = ""
    disabled: bool = False

    @property
    def runs(self) -> bool:
        return self.timing == "after" and not self.program.blockers

    @property
    def blockers(self) -> tuple[Blocker, ...]:
        if self.timing != "after":
            return (Blocker("INSTEAD OF trigger", 1, f"{self.name} replaces every {'/'.join(sorted(self.actions)).upper()} "
                                                      f"on {self.table}: the application must do what it does instead"),)
        return self.program.blockers

    def what_it_does(self) -> str:
        """One line for the report: when it fires and what it changes."""
        writes = ", ".join(w.rsplit(" (line", 1)[0] for w in self.program.writes) or "changes no table"
        return f"{self.timing.upper()} {', '.join(sorted(a.upper() for a in self.actions))} on {self.table}: {writes}"


def trigger_key(table: str) -> str:
    """How a table is looked up among triggers: `schema.name`, case-folded."""
    return table.casefold()


def is_dml_trigger(module: Module) -> bool:
    return module.kind == "trigger" and module.parent is not None and module.definition is not None
