"""Checks on SQL Server index features TiDB lacks or treats differently.

TiDB indexes are plain B-tree-like ordered keys on one table: no full-text, XML or spatial
indexes, no filter, no included columns, descending order ignored, no indexes on views, and rows
clustered only by the primary key. Each check names the index, its table and where it was defined,
and the catalogue says what to build instead (a TiFlash replica for a columnstore index, a wider
key for INCLUDE, ...). https://docs.pingcap.com/tidb/stable/sql-statement-create-index#mysql-compatibility
Keys over TiDB's 3072-byte or 16-column limits, renamed indexes and filtered unique indexes made
non-unique are decisions of the DDL planner (plan/indexes.py), which reports them itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..model import Index, IndexColumn, Key, Module, Severity, Table
from .context import RuleContext
from .registry import Hit, rule


def _indexes(ctx: RuleContext, kinds: set[str] | None = None) -> Iterator[tuple[Table, Index]]:
    for table in ctx.database.tables:
        for index in table.indexes:
            if kinds is None or index.kind in kinds:
                yield table, index


def _name(index: Index | Key, table: Table | Module) -> str:
    return f"{table.qualified_name}.{index.name}" if index.name else f"{table.qualified_name} (unnamed index)"


def _cols(columns: tuple[IndexColumn, ...]) -> str:
    return ", ".join(c.name + (" DESC" if c.descending else "") for c in columns)


def _modules_using(ctx: RuleContext, table: Table, words: str) -> list[str]:
    """Modules whose body uses one of `words` (a regex alternation) and names `table`."""
    predicate = re.compile(rf"\b(?:{words})\s*\(", re.I)
    named = re.compile(rf"\b{re.escape(table.name)}\b", re.I)
    return sorted(
        (m.qualified_name for m in ctx.database.modules
         if m.definition and predicate.search(m.definition) and named.search(m.definition)),
        key=str.casefold,
    )


@rule("IX01")
def fulltext_indexes(ctx: RuleContext) -> Iterator[Hit]:
    for table, index in _indexes(ctx, {"fulltext"}):
        users = _modules_using(ctx, table, "CONTAINS|FREETEXT|CONTAINSTABLE|FREETEXTTABLE")
        used = f"; searched by {', '.join(users)}" if users else ""
        yield Hit(
            object=_name(index, table) if index.name else f"{table.qualified_name} (full-text index)",
            message=f"full-text index on {table.qualified_name} ({_cols(index.columns)}){used}: self-managed TiDB "
                    "has no full-text search, so CONTAINS/FREETEXT queries need another search path",
            source=index.source,
            details={"table": table.qualified_name, "columns": [c.name for c in index.columns], "used_by": users},
        )


@rule("IX02")
def xml_indexes(ctx: RuleContext) -> Iterator[Hit]:
    for table, index in _indexes(ctx, {"xml"}):
        yield Hit(
            object=_name(index, table),
            message=f"XML index {index.name} on {table.qualified_name} ({_cols(index.columns)}): TiDB has no XML type "
                    "or XML indexes; the column becomes text and XQuery lookups need another design",
            source=index.source,
            details={"table": table.qualified_name, "columns": [c.name for c in index.columns]},
        )


@rule("IX03")
def spatial_indexes(ctx: RuleContext) -> Iterator[Hit]:
    for table, index in _indexes(ctx, {"spatial"}):
        yield Hit(
            object=_name(index, table),
            message=f"spatial index {index.name} on {table.qualified_name} ({_cols(index.columns)}): TiDB has no "
                    "spatial types, functions or indexes",
            source=index.source,
            details={"table": table.qualified_name, "columns": [c.name for c in index.columns]},
        )


_NOT_NULL_FILTER = re.compile(r"^\(*\s*\[?(\w+)\]?\s+IS\s+NOT\s+NULL\s*\)*$", re.I)


def _filter_only_skips_nulls(index: Index) -> bool:
    """`WHERE col IS NOT NULL` on a key column: TiDB's unique indexes already allow many NULLs."""
    parts = re.split(r"\bAND\b", index.filter or "", flags=re.I)
    keys = {c.name.casefold() for c in index.columns}
    matched = [_NOT_NULL_FILTER.match(p.strip()) for p in parts]
    return all(m is not None and m[1].casefold() in keys for m in matched)


@rule("IX04")
def filtered_indexes(ctx: RuleContext) -> Iterator[Hit]:
    for table, index in _indexes(ctx):
        if not index.filter:
            continue
        details = {"table": table.qualified_name, "filter": index.filter, "unique": index.unique}
        if index.unique and _filter_only_skips_nulls(index):
            yield Hit(
                object=_name(index, table),
                message=f"filtered unique index {index.name} on {table.qualified_name} WHERE {index.filter}: a plain "
                        "TiDB unique index keeps the same meaning (it already admits many NULLs)",
                source=index.source, details=details, severity=Severity.INFO,
            )
        elif index.unique:
            if ctx.plan_for(table) is not None:
                continue  # the planner creates it non-unique and reports that itself
            yield Hit(
                object=_name(index, table),
                message=f"filtered unique index {index.name} on {table.qualified_name} WHERE {index.filter}: TiDB has "
                        "no filtered indexes, and the same index without its filter would reject rows SQL Server "
                        "accepts",
                source=index.source, details=details, severity=Severity.HIGH,
            )
        else:
            yield Hit(
                object=_name(index, table),
                message=f"filtered index {index.name} on {table.qualified_name} WHERE {index.filter}: TiDB indexes "
                        "every row, so the index grows to the whole table",
                source=index.source, details=details,
            )


@rule("IX05")
def included_columns(ctx: RuleContext) -> Iterator[Hit]:
    for table, index in _indexes(ctx):
        if not index.include or index.kind != "rowstore":
            continue
        width = len(index.columns) + len(index.include)
        over = f"; keys plus included columns make {width}, above TiDB's 16 per index" if width > 16 else ""
        yield Hit(
            object=_name(index, table),
            message=f"index {index.name} on {table.qualified_name} INCLUDEs {', '.join(index.include)}: TiDB has no "
                    "included columns; the DDL appends them to the key of a non-unique index while it stays within "
                    "16 columns and 3072 bytes (a wider index), and otherwise drops them, so the queries it "
                    f"covered also read the table row{over}",
            source=index.source,
            details={"table": table.qualified_name, "key": [c.name for c in index.columns],
                     "include": list(index.include)},
        )


def _keys(table: Table) -> Iterator[Index | Key]:
    if table.primary_key is not None:
        yield table.primary_key
    yield from table.unique_keys
    yield from (i for i in table.indexes if i.kind == "rowstore")


@rule("IX06")
def descending_keys(ctx: RuleContext) -> Iterator[Hit]:
    owners: list[Table | Module] = [*ctx.database.tables, *ctx.database.modules_of("view")]
    for owner in owners:
        keys = _keys(owner) if isinstance(owner, Table) else iter(owner.indexes)
        for key in keys:
            desc = [c.name for c in key.columns if c.descending]
            if not desc:
                continue
            yield Hit(
                object=_name(key, owner),
                message=f"{'key' if isinstance(key, Key) else 'index'} {key.name or ''} on {owner.qualified_name} "
                        f"({_cols(key.columns)}) orders {', '.join(desc)} descending: TiDB stores every key "
                        "ascending and reads it backwards for ORDER BY ... DESC",
                source=key.source,
                details={"table": owner.qualified_name, "descending": desc},
            )


@rule("IX07")
def indexed_views(ctx: RuleContext) -> Iterator[Hit]:
    for view in ctx.database.modules_of("view"):
        if not view.indexes:
            continue
        names = [i.name or "(unnamed)" for i in view.indexes]
        yield Hit(
            object=view.qualified_name,
            message=f"indexed view {view.qualified_name} ({', '.join(names)}): TiDB has no materialized or indexed "
                    "views; as a plain view its result is computed on every read",
            source=view.source,
            details={"indexes": names, "index_source": str(view.indexes[0].source),
                     "schema_bound": view.is_schema_bound},
        )


@rule("IX08")
def columnstore_indexes(ctx: RuleContext) -> Iterator[Hit]:
    for table, index in _indexes(ctx, {"columnstore"}):
        how = "clustered columnstore (the table itself is column-stored)" if index.clustered else \
            f"nonclustered columnstore index {index.name}"
        yield Hit(
            object=_name(index, table),
            message=f"{how} on {table.qualified_name}: use a TiFlash replica for TiDB's column store "
                    f"(ALTER TABLE ... SET TIFLASH REPLICA n, in ddl/08-tiflash-replicas.sql, which needs TiFlash "
                    f"servers: the topology lists them)",
            source=index.source,
            details={"table": table.qualified_name, "clustered": index.clustered,
                     "columns": [c.name for c in index.columns]},
        )


@rule("IX09")
def hash_indexes(ctx: RuleContext) -> Iterator[Hit]:
    for table, index in _indexes(ctx, {"hash"}):
        yield Hit(
            object=_name(index, table),
            message=f"hash index {index.name} on {table.qualified_name} ({_cols(index.columns)}): TiDB builds an "
                    "ordinary index; BUCKET_COUNT has no meaning there",
            source=index.source,
            details={"table": table.qualified_name, "columns": [c.name for c in index.columns]},
        )


@rule("IX10")
def clustered_index_not_primary_key(ctx: RuleContext) -> Iterator[Hit]:
    for table in ctx.database.tables:
        if table.memory_optimized or table.is_history_table:
            continue  # a temporal history table is rebuilt anyway (TB02)
        clustered = next((i for i in table.indexes if i.clustered and i.kind == "rowstore"), None)
        if clustered is None:
            continue
        pk = table.primary_key
        pk_text = f"its primary key ({', '.join(pk.column_names)})" if pk else "a hidden row id (it has no primary key)"
        yield Hit(
            object=_name(clustered, table),
            message=f"{table.qualified_name} is clustered on {clustered.name} ({_cols(clustered.columns)}), not on its "
                    f"primary key: TiDB stores rows in the order of {pk_text}, so range reads on "
                    f"({', '.join(c.name for c in clustered.columns)}) become index lookups",
            source=clustered.source,
            details={"table": table.qualified_name, "clustered_index": clustered.name,
                     "columns": [c.name for c in clustered.columns],
                     "primary_key": list(pk.column_names) if pk else []},
        )
