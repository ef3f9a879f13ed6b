"""The rows a write left, table by table, compared by key between SQL Server and the target.

Each side read, inside its transaction and before the rollback, the rows of every key the write touched
on either side (the keys each statement changed, the keys SQL Server's own reads of the class's
statements found) and every row whose IDENTITY is above the value the table had before the call. The
rows are normalized with the target's column types as an answer's are (`values.RowShape`: a decimal
by its value, text without trailing spaces and, where both collations ignore it, without case) and
matched by key.

IDENTITY values are compared as offsets from each side's value before the call: both servers burn a
value on a failed or rolled-back insert, and the two need not start level. The target's values of
the call are renumbered into SQL Server's (`Renumbering`): the second value the call took on the
target is shown as the second after SQL Server's value before it. The same holds for a column whose
foreign key points at that IDENTITY, and for a value a result set returns that is one of the call's
own (SELECT SCOPE_IDENTITY()).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model import Database
from ..procedures.affected import TableKey
from .comparison import FIRST_DIFFERENCES, RowPair
from .values import ResultColumn, RowShape


@dataclass
class TableRead:
    """One table's rows as each side holds them after the write."""

    table: TableKey
    sql_server: list[tuple[Any, ...]]
    target: list[tuple[Any, ...]]
    columns: tuple[ResultColumn, ...]
    keys: int
    """Keys read by key (besides the rows above the IDENTITY mark)."""


@dataclass
class TableEnd:
    """How one table's rows compare after the write."""

    table: TableKey
    keys: int
    sql_server_rows: int = 0
    target_rows: int = 0
    differing: int = 0
    first: list[RowPair] = field(default_factory=list)
    generated: dict[str, int] = field(default_factory=dict)
    """IDENTITY values the call took on each side (rows above the mark)."""

    @property
    def equal(self) -> bool:
        return self.differing == 0

    def to_json(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"table": self.table.qualified_name, "target": self.table.target,
                               "key": list(self.table.key), "keys_read": self.keys,
                               "rows": {"sql_server": self.sql_server_rows, "target": self.target_rows},
                               "equal": self.equal}
        if self.generated:
            doc["identity_values_taken"] = self.generated
        if not self.equal:
            doc["differing_rows"] = self.differing
            doc["first_differences"] = [p.to_json() for p in self.first]
        return doc


@dataclass
class Renumbering:
    """The target's IDENTITY values of this call in SQL Server's numbering: each is the n-th value after its table's
    value before the call on the target, and becomes the n-th after that table's value before it on SQL Server."""

    database: Database
    sql_server: dict[str, int]
    """The last IDENTITY value of each table before the call (by `schema.name`), on SQL Server."""
    target: dict[str, int]
    """The same on the target (its AUTO_INCREMENT less one)."""
    taken: dict[str, int] = field(default_factory=dict)
    """How many values each table gave the call on the target (the highest offset read)."""

    def value(self, table: str, value: Any) -> Any:
        mark, theirs = self.target.get(table), self.sql_server.get(table)
        if mark is None or theirs is None or isinstance(value, bool) or not isinstance(value, int) or value <= mark:
            return value
        return value - mark + theirs

    def columns(self, table: TableKey) -> dict[int, str]:
        """Positions of a table's columns that hold IDENTITY values of a marked table: its own, and foreign keys to
        one."""
        found: dict[int, str] = {}
        if table.identity is not None and table.qualified_name in self.target:
            found[table.columns.index(table.identity)] = table.qualified_name
        model = self.database.table(table.schema, table.name)
        for fk in model.foreign_keys if model is not None else ():
            referenced = self.database.table(fk.ref_schema, fk.ref_table)
            if referenced is None or referenced.qualified_name not in self.target:
                continue
            identity = next((c.name for c in referenced.columns if c.identity is not None), None)
            for column, ref in zip(fk.columns, fk.ref_columns, strict=False):
                if identity is not None and ref.casefold() == identity.casefold() and column in table.columns:
                    found[table.columns.index(column)] = referenced.qualified_name
        return found

    def row(self, table: TableKey, row: Sequence[Any]) -> tuple[Any, ...]:
        """A target row with its IDENTITY values of this call renumbered (and the highest one counted)."""
        values = list(row)
        for position, owner in self.columns(table).items():
            value = values[position]
            if isinstance(value, int) and not isinstance(value, bool) and owner in self.target and value > self.target[owner]:
                if owner == table.qualified_name:
                    self.taken[owner] = max(self.taken.get(owner, 0), value - self.target[owner])
                values[position] = self.value(owner, value)
        return tuple(values)

    def in_answer(self, value: Any) -> Any:
        """A value a result set returns on the target: one of this call's IDENTITY values (of exactly one table, e.g.
        SELECT SCOPE_IDENTITY()) renumbered."""
        if isinstance(value, bool) or not isinstance(value, int):
            return value
        owners = [t for t, mark in self.target.items() if mark < value <= mark + self.taken.get(t, 0)]
        return self.value(owners[0], value) if len(owners) == 1 else value


def compare_table(read: TableRead, database: Database, renumber: Renumbering) -> TableEnd:
    shape = RowShape(read.columns, database.collation)
    positions = [read.table.columns.index(k) for k in read.table.key]
    end = TableEnd(read.table, read.keys)
    mark = renumber.sql_server.get(read.table.qualified_name)
    sides: list[dict[tuple[Any, ...], tuple[Any, ...]]] = []
    for rows, name in ((read.sql_server, "sql_server"), (read.target, "target")):
        by_key: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        for raw in rows:
            values = shape.normalize(raw if name == "sql_server" else renumber.row(read.table, raw))
            by_key.setdefault(shape.key_of(values, positions), values)
        sides.append(by_key)
    mine, theirs = sides
    if mark is not None and read.table.identity is not None:
        at = read.table.columns.index(read.table.identity)
        for name, by_key in (("sql_server", mine), ("target", theirs)):
            taken = [v[at] - mark for v in by_key.values() if isinstance(v[at], int) and v[at] > mark]
            if taken:
                end.generated[name] = max(taken)
    end.sql_server_rows, end.target_rows = len(mine), len(theirs)
    for key in sorted(set(mine) | set(theirs), key=repr):
        left_row, right_row = mine.get(key), theirs.get(key)
        if left_row is not None and right_row is not None and shape.digest(left_row) == shape.digest(right_row):
            continue
        end.differing += 1
        if len(end.first) < FIRST_DIFFERENCES:
            end.first.append(RowPair(None, left_row, right_row))
    return end
