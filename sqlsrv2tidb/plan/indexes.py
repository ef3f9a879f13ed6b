"""Primary keys, unique keys and secondary indexes as TiDB accepts them.

The primary key goes into CREATE TABLE with its clustering made explicit
(`/*T![clustered_index] CLUSTERED */`, https://docs.pingcap.com/tidb/stable/clustered-indexes),
because TiDB cannot change it later. Everything else is created after the data load (seed 004).
Decisions, each written as a comment above the statement:

- INCLUDE columns: TiDB has no included columns. On a non-unique index they are appended to the
  key, which keeps the index covering as SQL Server's was, while the key stays within TiDB's 16
  columns and 3,072 bytes (https://docs.pingcap.com/tidb/stable/tidb-limitations); otherwise, and
  always on a unique index (where extra key columns would weaken uniqueness), they are dropped.
- A filtered index becomes a full index. A filtered unique index stays unique only when its filter
  is `key IS NOT NULL` (TiDB's unique indexes already allow many NULLs); otherwise it is created
  non-unique, with a finding, because a full unique index would reject rows SQL Server accepts.
- Descending keys are kept as written: TiDB parses and ignores DESC, MySQL 8 honours it.
- A key longer than 3,072 bytes (utf8mb4 takes 4 bytes per character) gets prefix lengths on its
  widest string columns, with a finding; TEXT/BLOB columns always need one.
- Columnstore, XML, spatial, full-text and hash indexes are not created (the rules engine reports
  them); a columnstore index asks for a TiFlash replica instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..model import Finding, Index, IndexColumn, Severity, Table
from ..translate.ddl import IndexDdl
from ..translate.identifiers import NameScope, sql_name
from ..translate.types import TypeInfo

MAX_KEY_BYTES = 3072
MAX_KEY_COLUMNS = 16


@dataclass
class TableKeys:
    create_keys: list[str] = field(default_factory=list)
    indexes: list[IndexDdl] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    columnstore: bool = False
    key_columns: set[str] = field(default_factory=set)
    """Folded source names of every column used in a key (they must stay indexable)."""
    emitted: int = 0
    """Rowstore indexes and unique keys of the model that became CREATE INDEX statements."""


class KeyPlanner:
    def __init__(self, table: Table, target: str, columns: dict[str, tuple[str, TypeInfo]], engine: str = "TiDB") -> None:
        """`columns` maps a folded source column name to its TiDB name and type info; `engine` names the
        target in notes (`TiDB` or `MySQL`), and MySQL, which always clusters by the primary key, gets no
        TiDB clustering comment."""
        self.table = table
        self.engine = engine
        self.target = target
        self.columns = columns
        self.scope = NameScope(("PRIMARY",))
        self.out = TableKeys()

    def _finding(self, rule: str, severity: Severity, obj: str, message: str, source=None) -> None:
        src = source if source is not None and source.file else self.table.source
        self.out.findings.append(Finding(rule=rule, severity=severity, object=f"{self.table.qualified_name}.{obj}",
                                         message=message, file=src.file, line=src.line))

    def plan(self, *, clustered: bool, global_unique: frozenset[str], identity_column: str | None) -> TableKeys:
        pk = self.table.primary_key
        if pk is not None:
            self.out.key_columns |= {c.name.casefold() for c in pk.columns}
            cols = self._key_columns(pk.columns, "PRIMARY KEY", unique=True, source=pk.source)
            if cols is not None and self.engine == "MySQL":
                self.out.create_keys.append(f"PRIMARY KEY ({', '.join(cols)})")
            elif cols is not None:
                form = "CLUSTERED" if clustered else "NONCLUSTERED"
                self.out.create_keys.append(f"PRIMARY KEY ({', '.join(cols)}) /*T![clustered_index] {form} */")
        for i, key in enumerate(self.table.unique_keys):
            self.out.key_columns |= {c.name.casefold() for c in key.columns}
            name = key.name or f"uq_{self.table.name}_{i + 1}"
            self._index(name, key.columns, unique=True, global_index=name.casefold() in global_unique,
                        notes=["UNIQUE constraint"], source=key.source)
        for index in self.table.indexes:
            self._secondary(index, global_unique)
        if identity_column is not None and not self._leads_a_key(identity_column):
            # MySQL and TiDB before v7.0 want an AUTO_INCREMENT column to lead some index.
            name = self.scope.claim(f"ix_{self.table.name}_{identity_column}_auto")
            tidb = self.columns[identity_column.casefold()][0]
            self.out.create_keys.append(f"KEY {sql_name(name)} ({sql_name(tidb)})")
            self.out.key_columns.add(identity_column.casefold())
        return self.out

    def _leads_a_key(self, column: str) -> bool:
        folded = column.casefold()
        firsts = []
        if self.table.primary_key and self.table.primary_key.columns:
            firsts.append(self.table.primary_key.columns[0].name)
        firsts += [k.columns[0].name for k in self.table.unique_keys if k.columns]
        return any(f.casefold() == folded for f in firsts)

    def _secondary(self, index: Index, global_unique: frozenset[str]) -> None:
        label = index.name or "(unnamed index)"
        if index.kind == "columnstore":
            self.out.columnstore = True
            return
        if index.kind != "rowstore":
            return  # xml, spatial, full-text, hash: reported by the rules engine, not creatable in TiDB
        if index.disabled:
            return
        pk = self.table.primary_key
        if index.clustered and pk is not None and [c.name.casefold() for c in index.columns] == [c.name.casefold() for c in pk.columns]:
            return  # the clustered primary key itself
        self.out.key_columns |= {c.name.casefold() for c in index.columns}
        notes = []
        if index.clustered:
            notes.append(f"SQL Server's clustered index; {self.engine} clusters only by the primary key, so it is a "
                         "secondary index")
        unique = index.unique
        columns = list(index.columns)
        if index.filter:
            if unique and not _null_filter_only(index.filter, [c.name for c in index.columns]):
                unique = False
                self._finding("TY23", Severity.HIGH, label,
                              f"filtered unique index WHERE {index.filter}: {self.engine} has no filtered indexes and a full "
                              f"unique index would reject rows SQL Server accepts, so it is created non-unique; the "
                              f"uniqueness rule must be enforced by the application", index.source)
                notes.append(f"filtered unique index WHERE {index.filter}: created NON-unique (see finding TY23)")
            else:
                notes.append(f"filtered index WHERE {index.filter}: created on all rows")
        if index.include:
            keep = [IndexColumn(c) for c in index.include]
            trial = columns + keep
            infos = [self.columns.get(c.name.casefold()) for c in trial]
            fits = (not unique and len(trial) <= MAX_KEY_COLUMNS and all(i is not None for i in infos)
                    and sum(i[1].key_bytes or MAX_KEY_BYTES + 1 for i in infos if i) <= MAX_KEY_BYTES)
            if fits:
                columns = trial
                notes.append(f"INCLUDE ({', '.join(index.include)}) appended to the key: the index stays covering")
            else:
                notes.append(f"INCLUDE ({', '.join(index.include)}) dropped: {self.engine} has no included columns"
                             + (" and appending them to a unique key would weaken it" if unique else
                                f" and appending them would exceed {self.engine}'s key limits"))
        if any(c.descending for c in index.columns):
            notes.append("DESC kept as written; " + ("MySQL 8 stores the key descending" if self.engine == "MySQL"
                                                     else "TiDB parses and ignores descending keys"))
        self._index(label if index.name else f"ix_{self.table.name}_{len(self.out.indexes) + 1}", tuple(columns),
                    unique=unique, global_index=bool(index.name and index.name.casefold() in global_unique),
                    notes=notes, source=index.source)

    def _index(self, name: str, columns: tuple[IndexColumn, ...], *, unique: bool, global_index: bool,
               notes: list[str], source) -> None:
        cols = self._key_columns(columns, name, unique=unique, source=source)
        if cols is None:
            return
        final = self.scope.claim(name)
        if final != name:
            self._finding("TY22", Severity.LOW, name,
                          f"index name {name!r} is {'too long' if len(name) > 64 else 'already used on this table'}; "
                          f"it becomes {final}", source)
        self.out.indexes.append(IndexDdl(self.target, sql_name(final), tuple(cols), unique, global_index, tuple(notes)))
        self.out.emitted += 1

    def _key_columns(self, columns, label: str, *, unique: bool, source) -> list[str] | None:
        """Rendered key parts (`name`, `name(191)`, `name DESC`), or None when a column is missing."""
        parts: list[tuple[str, TypeInfo, bool]] = []
        for col in columns:
            found = self.columns.get(col.name.casefold())
            if found is None:
                self._finding("TY20", Severity.MEDIUM, label,
                              f"key {label} uses column {col.name}, which is left out of the DDL; the key is left out too",
                              source)
                return None
            parts.append((found[0], found[1], col.descending))
        if len(parts) > MAX_KEY_COLUMNS:
            self._finding("TY16", Severity.HIGH if unique else Severity.MEDIUM, label,
                          f"key {label} has {len(parts)} columns; {self.engine} allows {MAX_KEY_COLUMNS}, so only the first "
                          f"{MAX_KEY_COLUMNS} are kept" + (" and uniqueness is checked on them only" if unique else ""),
                          source)
            parts = parts[:MAX_KEY_COLUMNS]
        prefixes = _prefixes([info for _, info, _ in parts])
        if any(p is not None for p in prefixes):
            cut = [f"{name}({p})" for (name, _, _), p in zip(parts, prefixes, strict=True) if p is not None]
            self._finding("TY16", Severity.HIGH if unique else Severity.MEDIUM, label,
                          f"key {label} is longer than {self.engine}'s 3,072-byte key limit (or holds TEXT/BLOB columns); "
                          f"it indexes prefixes {', '.join(cut)}"
                          + (", so uniqueness is checked on the prefixes only" if unique else ""), source)
        rendered = []
        for (name, _, desc), prefix in zip(parts, prefixes, strict=True):
            rendered.append(sql_name(name) + (f"({prefix})" if prefix is not None else "") + (" DESC" if desc else ""))
        return rendered


def _prefixes(infos: list[TypeInfo]) -> list[int | None]:
    """Prefix lengths (characters for strings, bytes for binary) that bring a key under 3,072 bytes."""
    prefixes: list[int | None] = [None] * len(infos)
    sizes = []
    for i, info in enumerate(infos):
        if info.key_bytes is None:  # TEXT/BLOB/JSON: a prefix is mandatory
            prefixes[i] = 191 if info.family == "text" else 255
            sizes.append(prefixes[i] * (4 if info.family == "text" else 1))  # type: ignore[operator]
        else:
            sizes.append(info.key_bytes)
    total = sum(sizes)
    while total > MAX_KEY_BYTES:
        candidates = [i for i, info in enumerate(infos) if info.family in ("string", "binary", "text", "blob")]
        if not candidates:
            break
        widest = max(candidates, key=lambda i: sizes[i])
        per_unit = 4 if infos[widest].family in ("string", "text") else 1
        excess = total - MAX_KEY_BYTES
        new_units = max(1, (sizes[widest] - excess) // per_unit)
        if new_units * per_unit >= sizes[widest]:
            break
        total -= sizes[widest] - new_units * per_unit
        sizes[widest] = new_units * per_unit
        prefixes[widest] = new_units
    return prefixes


def _null_filter_only(predicate: str, key_columns: list[str]) -> bool:
    """True for `[a] IS NOT NULL [AND [b] IS NOT NULL ...]` on key columns only."""
    keys = {k.casefold() for k in key_columns}
    text = predicate.strip()
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1].strip()
    parts = re.split(r"\s+AND\s+", text, flags=re.I)
    for part in parts:
        m = re.fullmatch(r"\(?\s*\[?([^\]\s()]+)\]?\s+IS\s+NOT\s+NULL\s*\)?", part.strip(), re.I)
        if not m or m[1].casefold() not in keys:
            return False
    return True
