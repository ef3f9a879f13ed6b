"""How SQL Server's `schema.object` names become TiDB names, one rule for DDL and queries alike.

TiDB (like MySQL) has databases but no schemas inside them. By default every SQL Server schema is
merged into the one target database, keeping each object's own name; when two schemas hold an
object of the same name, the one outside `dbo` is prefixed with its schema (`Sales_Customer`).
`--schemas databases` instead makes each SQL Server schema a TiDB database of the same name.
The DDL generator and the query translator both ask this map, so a query always names the table
the DDL created, spelled as the DDL spells it: SQL Server finds `posts` for `Posts` (and `[Posts ]`,
trailing spaces being insignificant in its name comparisons), TiDB too (lower_case_table_names is
fixed at 2), but MySQL and MariaDB on Linux compare table names case-sensitively by default.
https://docs.pingcap.com/tidb/stable/mysql-compatibility
https://dev.mysql.com/doc/refman/8.0/en/identifier-case-sensitivity.html
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
    spelled: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Case-folded `schema.name`, and `name` where one schema alone has it -> (schema, name) as the schema spells them."""

    @classmethod
    def for_database(cls, database: Database, mode: SchemaMode = "merge") -> NameMap:
        objects = [(t.schema, t.name) for t in database.tables]
        objects += [(s.schema, s.name) for s in database.sequences]
        objects += [(m.schema or "dbo", m.name) for m in database.modules if m.kind in ("view", "synonym")]
        counts = Counter(name.casefold() for _, name in objects)
        spelled = {f"{schema}.{name}".casefold(): (schema, name) for schema, name in objects}
        spelled.update({name.casefold(): (schema, name) for schema, name in objects if counts[name.casefold()] == 1})
        if mode == "databases":
            return cls(mode=mode, spelled=spelled)
        renamed = {}
        for schema, name in objects:
            if counts[name.casefold()] > 1 and schema.casefold() != "dbo":
                renamed[f"{schema}.{name}".casefold()] = f"{schema}_{name}"
        return cls(mode=mode, renamed=renamed, spelled=spelled)

    def object(self, schema: str | None, name: str) -> TiDBName:
        """The TiDB name of a table, view or sequence; `schema=None` means the default schema `dbo`.

        A name the schema knows is spelled as the schema spells it; one whose schema prefix names no
        such object, but whose name one schema alone holds, is that object (as the translator types it)."""
        found = self.spelled.get(f"{schema or 'dbo'}.{name.rstrip()}".casefold()) or self.spelled.get(name.rstrip().casefold())
        schema, name = found if found is not None else (schema or "dbo", name)
        if self.mode == "databases":
            return TiDBName(name, schema)
        return TiDBName(self.renamed.get(f"{schema}.{name}".casefold(), name))
