"""How SQL Server's sequences live on MySQL, which has none: one decision the planner and the translator share.

MySQL has no CREATE SEQUENCE and no NEXT VALUE FOR. A sequence that numbers exactly one column
(that column's `DEFAULT NEXT VALUE FOR`, an integer column of a table without an IDENTITY) becomes
the column's AUTO_INCREMENT, starting where the sequence starts: inserts that leave the column out
keep working. Every other sequence (shared by several columns, drawn only by code, descending, or
on a table whose one AUTO_INCREMENT is taken) becomes a one-row table holding the next value,
drawn with the statement MySQL documents for `LAST_INSERT_ID(expr)`, which hands each session its
own value without a race:

    UPDATE `seq` SET next_value = LAST_INSERT_ID(next_value) + 1;   -- the drawn value is LAST_INSERT_ID()

https://dev.mysql.com/doc/refman/8.4/en/information-functions.html#function_last-insert-id
https://dev.mysql.com/doc/refman/8.4/en/example-auto-increment.html
"""

from __future__ import annotations

import re
import weakref
from dataclasses import dataclass
from typing import Literal

from ..model import Database, Sequence

_NEXT_VALUE = re.compile(r"next\s+value\s+for\s+((?:\[[^\]]+\]|\"[^\"]+\"|[\w$#@]+)(?:\s*\.\s*(?:\[[^\]]+\]|\"[^\"]+\"|[\w$#@]+))*)",
                         re.I)
_INTEGER_TYPES = ("tinyint", "smallint", "int", "bigint")


def sequence_reference(default: str | None) -> tuple[str | None, str] | None:
    """(schema, name) of the sequence in a `NEXT VALUE FOR` default, e.g. `(NEXT VALUE FOR [Sequences].[X])`."""
    if not default:
        return None
    m = _NEXT_VALUE.search(default)
    if not m:
        return None
    parts = [p.strip().strip("[]\"") for p in re.split(r"\s*\.\s*", m[1])]
    return (parts[-2] if len(parts) >= 2 else None, parts[-1])


@dataclass(frozen=True)
class SequenceForm:
    """What one SQL Server sequence becomes on MySQL."""

    kind: Literal["auto_increment", "table"]
    column: tuple[str, str, str] | None = None
    """(schema, table, column) the sequence numbers, for `auto_increment`."""
    why: str = ""
    """Why a `table` sequence is not a column's AUTO_INCREMENT."""
    users: tuple[str, ...] = ()
    """`schema.table.column` of every column whose default draws from it."""


def key(schema: str, name: str) -> tuple[str, str]:
    return schema.casefold(), name.casefold()


_FORMS: dict[int, tuple[weakref.ref[Database], dict[tuple[str, str], SequenceForm]]] = {}
"""Per schema object (by identity: a schema is large to hash), its forms; dropped with the schema."""


def mysql_forms(database: Database) -> dict[tuple[str, str], SequenceForm]:
    """Each sequence's MySQL form, keyed by its folded (schema, name); decided once per schema."""
    held = _FORMS.get(id(database))
    if held is not None and held[0]() is database:
        return held[1]
    forms = _decide(database)
    ident = id(database)
    _FORMS[ident] = (weakref.ref(database, lambda _: _FORMS.pop(ident, None)), forms)
    return forms


def _decide(database: Database) -> dict[tuple[str, str], SequenceForm]:
    users: dict[tuple[str, str], list[tuple[str, str, str]]] = {}
    for table in database.tables:
        for column in table.columns:
            ref = sequence_reference(column.default)
            seq = database.sequence(ref[0], ref[1]) if ref is not None else None
            if seq is not None:
                users.setdefault(key(seq.schema, seq.name), []).append((table.schema, table.name, column.name))
    taken: set[tuple[str, str]] = {key(t.schema, t.name) for t in database.tables
                                   if any(c.identity is not None for c in t.columns)}
    forms = {}
    for seq in database.sequences:
        columns = users.get(key(seq.schema, seq.name), [])
        labels = tuple(".".join(c) for c in columns)
        why = _not_auto_increment(database, seq, columns, taken)
        if why is None:
            schema, table, _ = columns[0]
            taken.add(key(schema, table))
            forms[key(seq.schema, seq.name)] = SequenceForm("auto_increment", columns[0], users=labels)
        else:
            forms[key(seq.schema, seq.name)] = SequenceForm("table", why=why, users=labels)
    return forms


def _not_auto_increment(database: Database, seq: Sequence, columns: list[tuple[str, str, str]],
                        taken: set[tuple[str, str]]) -> str | None:
    """Why the sequence cannot be its column's AUTO_INCREMENT, or None when it can."""
    if not columns:
        return "no column default draws from it (code draws its values)"
    if len(columns) > 1:
        return f"it numbers {len(columns)} columns ({', '.join('.'.join(c) for c in columns)})"
    if seq.increment < 0:
        return f"it counts down (INCREMENT BY {seq.increment}); AUTO_INCREMENT only counts up"
    schema, table_name, column_name = columns[0]
    table = database.table(schema, table_name)
    column = table.column(column_name) if table is not None else None
    if column is None or column.type.name.casefold() not in _INTEGER_TYPES or column.computed is not None:
        return f"{'.'.join(columns[0])} is not an integer column, and AUTO_INCREMENT numbers integers"
    if key(schema, table_name) in taken:
        return f"{schema}.{table_name} already has its one AUTO_INCREMENT column"
    return None


def draw_statement(table: str, increment: int, minimum: int, maximum: int, cycle: bool) -> str:
    """The statement that draws the next value of a sequence table; LAST_INSERT_ID() then returns it.

        >>> draw_statement("`s`", 1, 1, 100, False)
        'UPDATE `s` SET next_value = LAST_INSERT_ID(next_value) + 1'
        >>> draw_statement("`s`", 1, 1, 100, True)
        'UPDATE `s` SET next_value = IF(LAST_INSERT_ID(next_value) + 1 > 100, 1, next_value + 1)'
    """
    step = f"{'+' if increment >= 0 else '-'} {abs(increment)}"
    if not cycle:
        return f"UPDATE {table} SET next_value = LAST_INSERT_ID(next_value) {step}"
    past, restart = (f"> {maximum}", minimum) if increment >= 0 else (f"< {minimum}", maximum)
    return f"UPDATE {table} SET next_value = IF(LAST_INSERT_ID(next_value) {step} {past}, {restart}, next_value {step})"
