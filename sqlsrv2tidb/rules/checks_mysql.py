"""Checks for a MySQL target: SQL Server features MySQL lacks or treats differently (the MY rules).

They run only with `--target-engine mysql`, each at the MySQL versions its YAML names (CHECK
constraints are parsed and ignored before 8.0.16, functional key parts arrive in 8.0.13). What the
planner decides itself (sequences, identity, CHECKs it must leave out, collations, InnoDB settings
from the captured sizes and rates) it reports itself; these look at the schema as captured.
https://dev.mysql.com/doc/refman/8.4/en/create-index.html
https://dev.mysql.com/doc/refman/8.4/en/innodb-index-types.html
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..model import Index, Table
from ..options import Version
from .checks_modules import effort_bucket, module_effort_days
from .context import RuleContext
from .registry import Hit, rule

FUNCTIONAL_KEY_PARTS_SINCE = Version(8, 0, 13)
_RANDOM_GUID_DEFAULT = re.compile(r"\bnewid\s*\(", re.I)
_SEQUENTIAL_GUID_DEFAULT = re.compile(r"\bnewsequentialid\s*\(", re.I)


def _rowstore(table: Table) -> Iterator[Index]:
    yield from (ix for ix in table.indexes if ix.kind == "rowstore" and not ix.disabled)


def _label(table: Table, index: Index) -> str:
    return f"{table.qualified_name}.{index.name}" if index.name else f"{table.qualified_name} (unnamed index)"


@rule("MY04")
def filtered_indexes(ctx: RuleContext) -> Iterator[Hit]:
    for table in ctx.database.tables:
        for index in _rowstore(table):
            if not index.filter:
                continue
            unique = " (unique: see TY23 for how its uniqueness is kept)" if index.unique else ""
            yield Hit(object=_label(table, index),
                      message=f"filtered index WHERE {index.filter}{unique}: MySQL has no filtered indexes, so it "
                              "indexes every row, and is larger and costlier to write than SQL Server's",
                      source=index.source, details={"filter": index.filter})


@rule("MY05")
def included_columns(ctx: RuleContext) -> Iterator[Hit]:
    for table in ctx.database.tables:
        for index in _rowstore(table):
            if not index.include:
                continue
            yield Hit(object=_label(table, index),
                      message=f"INCLUDE ({', '.join(index.include)}): MySQL has no included columns; the plan appends "
                              "them to the key where it stays within MySQL's limits and is not unique, else drops them, "
                              "and queries the index covered then read the clustered row too",
                      source=index.source, details={"include": list(index.include)})


@rule("MY06")
def checks_not_enforced(ctx: RuleContext) -> Iterator[Hit]:
    for table in ctx.database.tables:
        checks = [c for c in table.checks if not c.disabled]
        if checks:
            yield Hit(object=table.qualified_name,
                      message=f"{len(checks)} CHECK constraint(s) ({', '.join(c.name or c.expression for c in checks)}): "
                              f"MySQL {ctx.options.mysql_version} parses CHECK and ignores it (enforced from 8.0.16), so "
                              "rows that break them are stored",
                      source=table.source, details={"checks": [c.name for c in checks]})


@rule("MY08")
def keys_on_computed_columns(ctx: RuleContext) -> Iterator[Hit]:
    functional = ctx.options.mysql_version >= FUNCTIONAL_KEY_PARTS_SINCE
    for table in ctx.database.tables:
        computed = {c.name.casefold(): c for c in table.columns if c.computed is not None}
        if not computed:
            continue
        keys: list[tuple[str, tuple[str, ...], bool]] = []
        if table.primary_key is not None:
            keys.append(("primary key " + (table.primary_key.name or ""), table.primary_key.column_names, True))
        keys += [(f"unique key {k.name or ''}", k.column_names, False) for k in table.unique_keys]
        keys += [(f"index {ix.name or ''}", tuple(c.name for c in ix.columns), False) for ix in _rowstore(table)]
        for label, columns, primary in keys:
            used = [computed[c.casefold()] for c in columns if c.casefold() in computed]
            if not used:
                continue
            names = ", ".join(c.name for c in used)
            how = ("MySQL refuses a virtual generated column in the primary key, so the plan makes it STORED (written "
                   "with every row)" if primary and not all(c.computed and c.computed.persisted for c in used) else
                   "MySQL indexes the generated column")
            alternative = (" A functional key part (`INDEX ((expression))`, MySQL 8.0.13+) indexes the expression "
                           "without a column, where no query selects the column itself." if functional and not primary else
                           "" if functional else f" MySQL {ctx.options.mysql_version} has no functional key parts "
                           "(8.0.13+), so the column must stay.")
            yield Hit(object=f"{table.qualified_name}.{names}",
                      message=f"{label.strip()} on computed column(s) {names}: {how}.{alternative}",
                      source=table.source, details={"key": label.strip(), "columns": [c.name for c in used]})


@rule("MY09")
def descending_keys(ctx: RuleContext) -> Iterator[Hit]:
    for table in ctx.database.tables:
        for index in _rowstore(table):
            desc = [c.name for c in index.columns if c.descending]
            if desc and not index.clustered:
                yield Hit(object=_label(table, index),
                          message=f"descending key part(s) {', '.join(desc)}: MySQL 8 keeps the index descending as SQL "
                                  "Server does, but InnoDB's change buffer does not defer writes to a secondary index "
                                  "with a descending key part, so each write to the table reads its page",
                          source=index.source, details={"descending": desc})


@rule("MY12")
def random_guid_keys(ctx: RuleContext) -> Iterator[Hit]:
    for table in ctx.database.tables:
        pk = table.primary_key
        first = table.column(pk.columns[0].name) if pk is not None and pk.columns else None
        if first is None or first.type.name.casefold() != "uniqueidentifier":
            continue
        default = first.default or ""
        origin = ("NEWID() values" if _RANDOM_GUID_DEFAULT.search(default) else
                  "NEWSEQUENTIALID() values, which MySQL's UUID() does not keep in order" if
                  _SEQUENTIAL_GUID_DEFAULT.search(default) else "GUIDs the application supplies")
        was = ("as in SQL Server" if pk.clustered else
               "which SQL Server did not do here (its primary key is NONCLUSTERED): InnoDB always clusters by it")
        yield Hit(object=table.qualified_name,
                  message=f"primary key {pk.name or ''} starts with the GUID column {first.name} ({origin}): InnoDB stores "
                          f"the rows in primary-key order, {was}, so random keys insert all over the table, split pages "
                          "(left about half full) and miss the buffer pool, and every secondary index carries the "
                          "36-byte key",
                  source=pk.source if pk.source.file else table.source,
                  details={"column": first.name, "clustered_in_sql_server": pk.clustered, "default": first.default})


_MODULE_WORDS = {"procedure": "stored procedure", "function": "function", "trigger": "trigger"}


@rule("MY16")
def stored_programs(ctx: RuleContext) -> Iterator[Hit]:
    for module in ctx.database.modules:
        what = _MODULE_WORDS.get(module.kind)
        if what is None:
            continue
        days = module_effort_days(module.line_count) if module.definition is not None else 3.0
        size = f"{module.line_count} lines" if module.definition is not None else "definition not available"
        how = ("is .NET code (CLR), which MySQL cannot host: its logic moves to the application" if module.is_clr else
               "is kept as its T-SQL in ddl/07-modules-not-migrated.sql: MySQL has stored programs, in a language of "
               "its own (no TRY/CATCH, table variables, OUTPUT or temp tables shared with the caller), so it is "
               "rewritten by hand, or its logic moves to the application")
        yield Hit(object=module.qualified_name,
                  message=f"{what} {module.qualified_name} ({size}) {how} (about {days:g} day(s))",
                  source=module.source,
                  details={"kind": module.kind, "lines": module.line_count, "clr": module.is_clr, "effort_days": days,
                           "effort": effort_bucket(days)})


@rule("MY17")
def temporal_tables(ctx: RuleContext) -> Iterator[Hit]:
    for table in ctx.database.tables:
        if table.temporal is None:
            continue
        history = (f"{table.temporal.history_schema}.{table.temporal.history_table}" if table.temporal.history_table
                   else "an anonymous history table")
        yield Hit(object=table.qualified_name,
                  message=f"system-versioned temporal table {table.qualified_name} (history in {history}): MySQL has no "
                          "system versioning, so nothing writes the history and FOR SYSTEM_TIME queries cannot run; the "
                          "period columns become plain columns with defaults",
                  source=table.source, details={"history_table": history})


@rule("MY18")
def memory_optimized_tables(ctx: RuleContext) -> Iterator[Hit]:
    for table in ctx.database.tables:
        if not table.memory_optimized:
            continue
        cache = (" Its DURABILITY = SCHEMA_ONLY rows vanished on every SQL Server restart; MySQL's MEMORY engine "
                 "also loses them, but locks whole tables on write.") if table.durability == "schema_only" else ""
        yield Hit(object=table.qualified_name,
                  message=f"memory-optimized table {table.qualified_name}: MySQL has no In-Memory OLTP; it becomes an "
                          f"InnoDB table (row locks, pages in the buffer pool, a redo record per write).{cache}",
                  source=table.source, details={"durability": table.durability})


@rule("MY19")
def columnstore_indexes(ctx: RuleContext) -> Iterator[Hit]:
    for table in ctx.database.tables:
        for index in table.indexes:
            if index.kind == "columnstore":
                yield Hit(object=_label(table, index),
                          message=f"columnstore index on {table.qualified_name}: MySQL (InnoDB) has no column store, so "
                                  "the analytic scans it served read the row store; the plan creates no index for it",
                          source=index.source, details={"clustered": index.clustered})


@rule("MY20")
def fulltext_indexes(ctx: RuleContext) -> Iterator[Hit]:
    for table in ctx.database.tables:
        for index in table.indexes:
            if index.kind == "fulltext":
                columns = ", ".join(c.name for c in index.columns)
                yield Hit(object=_label(table, index) if index.name else f"{table.qualified_name} (full-text index)",
                          message=f"full-text index on {table.qualified_name} ({columns}): MySQL has InnoDB FULLTEXT "
                                  f"indexes, but the plan does not create one, and CONTAINS/FREETEXT queries become "
                                  f"MATCH ({columns}) AGAINST (...), with other word breaking, stopwords and ranking",
                          source=index.source, details={"columns": [c.name for c in index.columns]})
