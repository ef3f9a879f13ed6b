"""The rows a write left, table by table, compared by key between SQL Server and the target.

Each side read, inside its transaction and before the rollback, the rows of every key the write touched
on either side (the keys each statement changed, the keys SQL Server's own reads of the class's
statements found) and every row whose IDENTITY is above the value the table had before the call. The
rows are normalized with the target's column types as an answer's are (`values.RowShape`: a decimal
by its value, text without trailing spaces and, where both collations ignore it, without case) and
matched by key.

IDENTITY values: both servers burn a value on a failed or rolled-back insert, and the two need not
start level, so the values a call takes are told as offsets from each side's last value before it
(`identity_values_taken`), and the rows are paired in order: the n-th value the call took on the
target stands for the n-th it took on SQL Server (`Renumbering`), in the table's own column, in a
column whose foreign key points at it, and in a result set that returns one (SELECT SCOPE_IDENTITY()).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from ..model import Database
from ..procedures.affected import TableKey
from .comparison import FIRST_DIFFERENCES, RowPair
from .values import ResultColumn, RowShape
from .write_sides import Mark


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
    generated: dict[str, list[int]] = field(default_factory=dict)
    """The IDENTITY values the call took on each side, as offsets from the table's last value before it."""

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
    """The target's IDENTITY values of this call in SQL Server's numbering: the n-th value a table gave the call on
    the target stands for the n-th it gave it on SQL Server (`learn`), wherever the value appears: the table's own
    column, a foreign key to it, a result set (SELECT SCOPE_IDENTITY())."""

    database: Database
    sql_server: dict[str, Mark]
    target: dict[str, Mark]
    mapping: dict[str, dict[int, int]] = field(default_factory=dict)
    offsets: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    """Per table and side, the values the call took, as offsets from the last value before it."""

    def learn(self, read: TableRead) -> None:
        """The values a table gave the call on each side, paired in order."""
        table = read.table
        name = table.qualified_name
        mine, theirs = self.sql_server.get(name), self.target.get(name)
        if table.identity is None or mine is None or theirs is None:
            return
        at = table.columns.index(table.identity)
        left = sorted(int(r[at]) for r in read.sql_server if _integer(r[at]) and int(r[at]) > mine.floor)
        right = sorted(int(r[at]) for r in read.target if _integer(r[at]) and int(r[at]) > theirs.floor)
        self.mapping[name] = dict(zip(right, left, strict=False))
        if left or right:
            self.offsets[name] = {"sql_server": [v - mine.base for v in left], "target": [v - theirs.base for v in right]}

    def columns(self, table: TableKey) -> dict[int, str]:
        """Positions of a table's columns that hold IDENTITY values of a table the call took values of: its own, and
        foreign keys to one."""
        found: dict[int, str] = {}
        if table.identity is not None and table.qualified_name in self.mapping:
            found[table.columns.index(table.identity)] = table.qualified_name
        model = self.database.table(table.schema, table.name)
        for fk in model.foreign_keys if model is not None else ():
            referenced = self.database.table(fk.ref_schema, fk.ref_table)
            if referenced is None or referenced.qualified_name not in self.mapping:
                continue
            identity = next((c.name for c in referenced.columns if c.identity is not None), None)
            for column, ref in zip(fk.columns, fk.ref_columns, strict=False):
                if identity is not None and ref.casefold() == identity.casefold() and column in table.columns:
                    found[table.columns.index(column)] = referenced.qualified_name
        return found

    def _key_columns(self, table: TableKey) -> list[tuple[int, str]]:
        columns = self.columns(table)
        return [(n, columns[table.columns.index(k)]) for n, k in enumerate(table.key) if table.columns.index(k) in columns]

    def to_sql_server(self, table: TableKey, keys: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """Keys the target touched, in SQL Server's numbering (where a key column holds one of the call's values)."""
        return [self._mapped(k, self._key_columns(table), False) for k in keys]

    def to_target(self, table: TableKey, keys: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        """Keys SQL Server's reads found, in the target's numbering."""
        return [self._mapped(k, self._key_columns(table), True) for k in keys]

    def _mapped(self, key: tuple[Any, ...], columns: list[tuple[int, str]], back: bool) -> tuple[Any, ...]:
        values = list(key)
        for position, owner in columns:
            pairs = self.mapping[owner] if not back else {v: k for k, v in self.mapping[owner].items()}
            if _integer(values[position]):
                values[position] = pairs.get(int(values[position]), values[position])
        return tuple(values)

    def row(self, table: TableKey, row: Sequence[Any]) -> tuple[Any, ...]:
        """A target row with the IDENTITY values of this call in SQL Server's numbering."""
        values = list(row)
        for position, owner in self.columns(table).items():
            if _integer(values[position]):
                values[position] = self.mapping[owner].get(int(values[position]), values[position])
        return tuple(values)

    def in_answer(self, value: Any) -> Any:
        """A value a result set returns on the target: one of this call's IDENTITY values (of exactly one table)
        in SQL Server's numbering."""
        if not _integer(value):
            return value
        owners = [name for name, pairs in self.mapping.items() if int(value) in pairs]
        return self.mapping[owners[0]][int(value)] if len(owners) == 1 else value


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) or (
        isinstance(value, Decimal) and value == value.to_integral_value())


def compare_table(read: TableRead, database: Database, renumber: Renumbering) -> TableEnd:
    shape = RowShape(read.columns, database.collation)
    positions = [read.table.columns.index(k) for k in read.table.key]
    end = TableEnd(read.table, read.keys)
    end.generated = renumber.offsets.get(read.table.qualified_name, {})
    sides: list[dict[tuple[Any, ...], tuple[Any, ...]]] = []
    for rows, name in ((read.sql_server, "sql_server"), (read.target, "target")):
        by_key: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        for raw in rows:
            values = shape.normalize(raw if name == "sql_server" else renumber.row(read.table, raw))
            by_key.setdefault(shape.key_of(values, positions), values)
        sides.append(by_key)
    mine, theirs = sides
    end.sql_server_rows, end.target_rows = len(mine), len(theirs)
    for key in sorted(set(mine) | set(theirs), key=repr):
        left_row, right_row = mine.get(key), theirs.get(key)
        if left_row is not None and right_row is not None and shape.digest(left_row) == shape.digest(right_row):
            continue
        end.differing += 1
        if len(end.first) < FIRST_DIFFERENCES:
            end.first.append(RowPair(None, left_row, right_row))
    return end
