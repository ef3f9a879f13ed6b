"""How SQL Server's `schema.object` names become TiDB names, one rule for DDL and queries alike.

TiDB (like MySQL) has databases but no schemas inside them. By default every SQL Server schema is
merged into the one target database, keeping each object's own name; when two schemas hold an
object of the same name, the one outside `dbo` is prefixed with its schema (`Sales_Customer`).
`--schemas databases` instead makes each SQL Server schema a TiDB database of the same name.
The DDL generator and the query translator both ask this map, so a query always names the table
the DDL created.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

from ..model import Database

SchemaMode = Literal["merge", "databases"]


@dataclass(frozen=True)
class TiDBName:
    name: str
    database: str | None = None
    """None: the target database the DDL is applied to (merge mode)."""

    def quoted(self) -> str:
        name = quote(self.name)
        return f"{quote(self.database)}.{name}" if self.database else name


def quote(identifier: str) -> str:
    return "`" + identifier.replace("`", "``") + "`"


@dataclass(frozen=True)
class NameMap:
    mode: SchemaMode = "merge"
    renamed: dict[str, str] = field(default_factory=dict)
    """Case-folded `schema.name` -> TiDB name, only for objects that had to be renamed."""

    @classmethod
    def for_database(cls, database: Database, mode: SchemaMode = "merge") -> NameMap:
        if mode == "databases":
            return cls(mode=mode)
        objects = [(t.schema, t.name) for t in database.tables]
        objects += [(s.schema, s.name) for s in database.sequences]
        objects += [(m.schema or "dbo", m.name) for m in database.modules if m.kind in ("view", "synonym")]
        counts = Counter(name.casefold() for _, name in objects)
        renamed = {}
        for schema, name in objects:
            if counts[name.casefold()] > 1 and schema.casefold() != "dbo":
                renamed[f"{schema}.{name}".casefold()] = f"{schema}_{name}"
        return cls(mode=mode, renamed=renamed)

    def object(self, schema: str | None, name: str) -> TiDBName:
        """The TiDB name of a table, view or sequence; `schema=None` means the default schema `dbo`."""
        schema = schema or "dbo"
        if self.mode == "databases":
            return TiDBName(name, schema)
        return TiDBName(self.renamed.get(f"{schema}.{name}".casefold(), name))
