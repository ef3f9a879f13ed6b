"""Every catalog and Query Store query the capture runs, as named constants.

`sqlsrv2tidb capture` sends them through pyodbc and `sqlsrv2tidb capture-script` wraps the very
same text in `FOR JSON PATH`, so both write rowsets keyed by these constants' names and the
column aliases below, and one mapper (capture/catalog.py) reads either. Rules the queries keep:

- A column that a SQL Server version lacks is a compile error, so each versioned column names the
  major version it appeared in and a typed stand-in for older servers (reference §0.4); the row
  shape never changes.
- pyodbc cannot read `sql_variant` or `datetimeoffset`: every such column is cast on the server
  (reference §0.1, §1.21), datetimeoffset to UTC datetime2.
- No ORDER BY and no CTE: the capture-script selects from each query as a derived table. The
  mapper sorts.
- Each query carries the `/* sqlsrv2tidb capture */` marker after its first keyword (Query Store
  drops leading comments), so the capture's own statements are left out of the captured workload.

The column lists follow the Microsoft catalog-view pages cited in /work/shared/reference, e.g.
https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-columns-transact-sql
"""

from __future__ import annotations

from dataclasses import dataclass

MARKER = "sqlsrv2tidb capture"
_MARK = f"/* {MARKER} */"


@dataclass(frozen=True)
class Versioned:
    """A column that exists from SQL Server major version `since`; older servers get `fallback`."""

    alias: str
    expr: str
    since: int
    fallback: str


@dataclass(frozen=True)
class CatalogQuery:
    name: str
    template: str
    versioned: tuple[Versioned, ...] = ()
    min_major: int = 0
    """Servers older than this have no such view; the rowset is simply empty there."""

    def sql(self, major: int, *, days: float = 7.0) -> str:
        """The query text for a server of this major version (13 = 2016, 16 = 2022)."""
        values = {v.alias: f"{v.expr if major >= v.since else v.fallback} AS {v.alias}" for v in self.versioned}
        return self.template.format(mark=_MARK, window_minutes=window_minutes(days), **values).strip()

    def variants(self, majors: tuple[int, ...]) -> list[tuple[int, str]]:
        """(first major, text) for each distinct text over `majors`, oldest first."""
        out: list[tuple[int, str]] = []
        for major in sorted(majors):
            text = self.sql(major)
            if not out or out[-1][1] != text:
                out.append((major, text))
        return out


def window_minutes(days: float) -> int:
    """The Query Store window in whole minutes (at least one), as the queries' literal."""
    return max(1, round(days * 1440))


# BabelfishVersion is NULL on SQL Server (an unknown property) and the version on Babelfish, which
# reports itself as SQL Server 2014 (12.0) and has no Query Store and few DMVs.
SERVER_PROPERTIES = CatalogQuery("SERVER_PROPERTIES", """
SELECT {mark}
       CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128)) AS product_version,
       CAST(SERVERPROPERTY('ProductLevel') AS nvarchar(128)) AS product_level,
       CAST(SERVERPROPERTY('Edition') AS nvarchar(128)) AS edition,
       CAST(SERVERPROPERTY('EngineEdition') AS int) AS engine_edition,
       CAST(SERVERPROPERTY('Collation') AS nvarchar(128)) AS collation,
       CAST(SERVERPROPERTY('ServerName') AS nvarchar(128)) AS server_name,
       DB_NAME() AS [database],
       CAST(DATABASEPROPERTYEX(DB_NAME(), 'Collation') AS nvarchar(128)) AS database_collation,
       CAST(DATABASEPROPERTYEX(DB_NAME(), 'IsParameterizationForced') AS int) AS is_parameterization_forced,
       d.compatibility_level,
       CAST(SERVERPROPERTY('BabelfishVersion') AS nvarchar(128)) AS babelfish_version
FROM sys.databases AS d
WHERE d.database_id = DB_ID()
""")

# The fixed database-role schemas (db_owner, ...) hold no user objects. They are left out by name,
# not by their ids (16384 and up on SQL Server), because Babelfish numbers every schema above 16384.
SCHEMAS = CatalogQuery("SCHEMAS", """
SELECT {mark} s.schema_id, s.name AS schema_name
FROM sys.schemas AS s
WHERE s.name NOT IN (N'sys', N'INFORMATION_SCHEMA', N'guest', N'db_owner', N'db_accessadmin', N'db_securityadmin',
                     N'db_ddladmin', N'db_backupoperator', N'db_datareader', N'db_datawriter', N'db_denydatareader',
                     N'db_denydatawriter')
""")

TABLES = CatalogQuery("TABLES", """
SELECT {mark} t.object_id, SCHEMA_NAME(t.schema_id) AS schema_name, t.name AS table_name,
       t.is_filetable, t.lock_escalation_desc,
       {is_memory_optimized}, {durability},
       {temporal_type}, {history_table_id}, {is_external},
       {is_node}, {is_edge}
FROM sys.tables AS t
WHERE t.is_ms_shipped = 0
""", (
    Versioned("is_memory_optimized", "t.is_memory_optimized", 12, "CAST(0 AS bit)"),
    Versioned("durability", "t.durability", 12, "CAST(0 AS tinyint)"),
    Versioned("temporal_type", "t.temporal_type", 13, "CAST(0 AS tinyint)"),
    Versioned("history_table_id", "t.history_table_id", 13, "CAST(NULL AS int)"),
    Versioned("is_external", "t.is_external", 13, "CAST(0 AS bit)"),
    Versioned("is_node", "t.is_node", 14, "CAST(0 AS bit)"),
    Versioned("is_edge", "t.is_edge", 14, "CAST(0 AS bit)"),
))

# Types join on user_type_id; `bt` is the system base type of an alias type (and of sysname).
# CLR types (hierarchyid, geometry, geography) have no base row, so bt is NULL for them.
_COLUMN_SELECT = """
       c.column_id, c.name AS column_name,
       ty.name AS type_name, SCHEMA_NAME(ty.schema_id) AS type_schema, ty.is_user_defined, ty.is_assembly_type,
       bt.name AS base_type_name,
       c.max_length, c.precision, c.scale, c.collation_name,
       c.is_nullable, c.is_identity, c.is_computed, c.is_rowguidcol, c.is_sparse, c.is_column_set, c.is_filestream,
       c.xml_collection_id, xsc.name AS xml_collection_name, SCHEMA_NAME(xsc.schema_id) AS xml_collection_schema,
       c.default_object_id,
       {generated_always_type}, {encryption_type}, {is_hidden}, {is_masked}"""
_COLUMN_JOINS = """
JOIN sys.types AS ty ON ty.user_type_id = c.user_type_id
LEFT JOIN sys.types AS bt ON bt.user_type_id = ty.system_type_id
LEFT JOIN sys.xml_schema_collections AS xsc ON xsc.xml_collection_id = c.xml_collection_id AND c.xml_collection_id <> 0"""
_COLUMN_VERSIONED = (
    Versioned("generated_always_type", "c.generated_always_type", 13, "CAST(0 AS tinyint)"),
    Versioned("encryption_type", "c.encryption_type", 13, "CAST(NULL AS int)"),
    Versioned("is_hidden", "c.is_hidden", 13, "CAST(0 AS bit)"),
    Versioned("is_masked", "c.is_masked", 13, "CAST(0 AS bit)"),
)

COLUMNS = CatalogQuery("COLUMNS", f"""
SELECT {{mark}} c.object_id,{_COLUMN_SELECT}
FROM sys.columns AS c
JOIN sys.tables AS t ON t.object_id = c.object_id{_COLUMN_JOINS}
WHERE t.is_ms_shipped = 0
""", _COLUMN_VERSIONED)

# Columns of table types (the types of table-valued parameters) live on an internal object.
TABLE_TYPE_COLUMNS = CatalogQuery("TABLE_TYPE_COLUMNS", f"""
SELECT {{mark}} tt.user_type_id AS table_type_id,{_COLUMN_SELECT}
FROM sys.table_types AS tt
JOIN sys.columns AS c ON c.object_id = tt.type_table_object_id{_COLUMN_JOINS}
WHERE tt.is_user_defined = 1
""", _COLUMN_VERSIONED)

TYPES = CatalogQuery("TYPES", """
SELECT {mark} ty.user_type_id, SCHEMA_NAME(ty.schema_id) AS schema_name, ty.name AS type_name,
       bt.name AS base_type_name, ty.max_length, ty.precision, ty.scale, ty.is_nullable,
       ty.is_table_type, ty.is_assembly_type
FROM sys.types AS ty
LEFT JOIN sys.types AS bt ON bt.user_type_id = ty.system_type_id AND ty.is_table_type = 0 AND ty.is_assembly_type = 0
WHERE ty.is_user_defined = 1
""")

# seed/increment/last_value are sql_variant; decimal(38,0) holds every IDENTITY type (§1.6).
# IDENT_SEED/IDENT_INCR give the same numbers from the table; the mapper reads them only where
# the view's own are NULL (Babelfish leaves them NULL for tables outside dbo).
IDENTITY_COLUMNS = CatalogQuery("IDENTITY_COLUMNS", """
SELECT {mark} ic.object_id, ic.column_id,
       CONVERT(decimal(38, 0), ic.seed_value) AS seed_value,
       CONVERT(decimal(38, 0), ic.increment_value) AS increment_value,
       CONVERT(decimal(38, 0), ic.last_value) AS last_value,
       ic.is_not_for_replication,
       CONVERT(decimal(38, 0), IDENT_SEED(QUOTENAME(OBJECT_SCHEMA_NAME(ic.object_id)) + N'.' + QUOTENAME(OBJECT_NAME(ic.object_id)))) AS table_seed,
       CONVERT(decimal(38, 0), IDENT_INCR(QUOTENAME(OBJECT_SCHEMA_NAME(ic.object_id)) + N'.' + QUOTENAME(OBJECT_NAME(ic.object_id)))) AS table_increment
FROM sys.identity_columns AS ic
JOIN sys.tables AS t ON t.object_id = ic.object_id
WHERE t.is_ms_shipped = 0
""")

COMPUTED_COLUMNS = CatalogQuery("COMPUTED_COLUMNS", """
SELECT {mark} cc.object_id, cc.column_id, cc.definition, cc.is_persisted
FROM sys.computed_columns AS cc
JOIN sys.tables AS t ON t.object_id = cc.object_id
WHERE t.is_ms_shipped = 0
""")

DEFAULT_CONSTRAINTS = CatalogQuery("DEFAULT_CONSTRAINTS", """
SELECT {mark} dc.object_id AS constraint_id, dc.name AS constraint_name, dc.parent_object_id, dc.parent_column_id,
       dc.definition, dc.is_system_named
FROM sys.default_constraints AS dc
JOIN sys.tables AS t ON t.object_id = dc.parent_object_id
WHERE t.is_ms_shipped = 0
""")

CHECK_CONSTRAINTS = CatalogQuery("CHECK_CONSTRAINTS", """
SELECT {mark} cc.object_id AS constraint_id, cc.name AS constraint_name, cc.parent_object_id, cc.parent_column_id,
       cc.definition, cc.is_disabled, cc.is_not_trusted, cc.is_not_for_replication, cc.is_system_named
FROM sys.check_constraints AS cc
JOIN sys.tables AS t ON t.object_id = cc.parent_object_id
WHERE t.is_ms_shipped = 0
""")

# The key columns come from the enforcing index in INDEX_COLUMNS (unique_index_id).
KEY_CONSTRAINTS = CatalogQuery("KEY_CONSTRAINTS", """
SELECT {mark} kc.object_id AS constraint_id, kc.name AS constraint_name, kc.type AS constraint_type,
       kc.parent_object_id, kc.unique_index_id, kc.is_system_named
FROM sys.key_constraints AS kc
JOIN sys.tables AS t ON t.object_id = kc.parent_object_id
WHERE t.is_ms_shipped = 0
""")

# Heaps (type 0) are not indexes; statistics-only objects (is_hypothetical) are skipped (§1.11).
INDEXES = CatalogQuery("INDEXES", """
SELECT {mark} i.object_id, i.index_id, i.name AS index_name, i.type, i.type_desc,
       i.is_unique, i.is_primary_key, i.is_unique_constraint, i.ignore_dup_key, i.fill_factor,
       i.is_disabled, i.has_filter, i.filter_definition,
       i.data_space_id, ds.name AS data_space_name, ds.type AS data_space_type
FROM sys.indexes AS i
JOIN sys.objects AS o ON o.object_id = i.object_id
LEFT JOIN sys.data_spaces AS ds ON ds.data_space_id = i.data_space_id
WHERE o.is_ms_shipped = 0 AND o.type IN ('U', 'V') AND i.is_hypothetical = 0 AND i.type <> 0
""")

INDEX_COLUMNS = CatalogQuery("INDEX_COLUMNS", """
SELECT {mark} ic.object_id, ic.index_id, ic.index_column_id, ic.column_id,
       COL_NAME(ic.object_id, ic.column_id) AS column_name,
       ic.key_ordinal, ic.partition_ordinal, ic.is_descending_key, ic.is_included_column
FROM sys.index_columns AS ic
JOIN sys.objects AS o ON o.object_id = ic.object_id
WHERE o.is_ms_shipped = 0 AND o.type IN ('U', 'V')
""")

# One row per key column; actions: 0 NO ACTION, 1 CASCADE, 2 SET NULL, 3 SET DEFAULT (§1.13).
FOREIGN_KEYS = CatalogQuery("FOREIGN_KEYS", """
SELECT {mark} fk.object_id AS constraint_id, fk.name AS constraint_name,
       fk.parent_object_id, fk.referenced_object_id,
       OBJECT_SCHEMA_NAME(fk.referenced_object_id) AS referenced_schema,
       OBJECT_NAME(fk.referenced_object_id) AS referenced_table,
       fk.delete_referential_action, fk.update_referential_action,
       fk.is_disabled, fk.is_not_trusted, fk.is_not_for_replication, fk.is_system_named,
       fkc.constraint_column_id,
       COL_NAME(fkc.parent_object_id, fkc.parent_column_id) AS parent_column,
       COL_NAME(fkc.referenced_object_id, fkc.referenced_column_id) AS referenced_column
FROM sys.foreign_keys AS fk
JOIN sys.foreign_key_columns AS fkc ON fkc.constraint_object_id = fk.object_id
WHERE fk.is_ms_shipped = 0
""")

# Every value column of sys.sequences is sql_variant (§1.14).
SEQUENCES = CatalogQuery("SEQUENCES", """
SELECT {mark} sq.object_id, SCHEMA_NAME(sq.schema_id) AS schema_name, sq.name AS sequence_name,
       TYPE_NAME(sq.user_type_id) AS type_name, TYPE_NAME(sq.system_type_id) AS base_type_name,
       sq.precision, sq.scale,
       CONVERT(decimal(38, 0), sq.start_value) AS start_value,
       CONVERT(decimal(38, 0), sq.increment) AS increment,
       CONVERT(decimal(38, 0), sq.minimum_value) AS minimum_value,
       CONVERT(decimal(38, 0), sq.maximum_value) AS maximum_value,
       CONVERT(decimal(38, 0), sq.current_value) AS current_value,
       sq.is_cycling, sq.is_cached, sq.cache_size, sq.is_exhausted
FROM sys.sequences AS sq
WHERE sq.is_ms_shipped = 0
""", min_major=11)

# SQL modules, then database DDL triggers (not in sys.objects), then CLR modules (no SQL text).
# A NULL definition on a SQL module means WITH ENCRYPTION (§1.15). The char(2) type is cast to
# itself: Babelfish refuses a UNION of char columns and literals without an explicit length.
MODULES = CatalogQuery("MODULES", """
SELECT {mark} o.object_id, SCHEMA_NAME(o.schema_id) AS schema_name, o.name AS object_name,
       CAST(o.type AS char(2)) AS type, o.type_desc, o.parent_object_id,
       OBJECT_SCHEMA_NAME(NULLIF(o.parent_object_id, 0)) AS parent_schema,
       OBJECT_NAME(NULLIF(o.parent_object_id, 0)) AS parent_name,
       m.definition, m.uses_ansi_nulls, m.uses_quoted_identifier, m.is_schema_bound,
       m.execute_as_principal_id, {uses_native_compilation}
FROM sys.sql_modules AS m
JOIN sys.objects AS o ON o.object_id = m.object_id
WHERE o.is_ms_shipped = 0 AND o.type IN ('P', 'FN', 'IF', 'TF', 'V', 'TR')
UNION ALL
SELECT tr.object_id, NULL, tr.name, CAST('TR' AS char(2)), N'DATABASE_DDL_TRIGGER', 0, NULL, NULL,
       m.definition, m.uses_ansi_nulls, m.uses_quoted_identifier, m.is_schema_bound,
       m.execute_as_principal_id, {uses_native_compilation}
FROM sys.triggers AS tr
JOIN sys.sql_modules AS m ON m.object_id = tr.object_id
WHERE tr.parent_class = 0 AND tr.is_ms_shipped = 0
UNION ALL
SELECT o.object_id, SCHEMA_NAME(o.schema_id), o.name, CAST(o.type AS char(2)), o.type_desc, o.parent_object_id,
       OBJECT_SCHEMA_NAME(NULLIF(o.parent_object_id, 0)), OBJECT_NAME(NULLIF(o.parent_object_id, 0)),
       CAST(NULL AS nvarchar(max)), NULL, NULL, NULL, NULL, CAST(0 AS bit)
FROM sys.objects AS o
WHERE o.is_ms_shipped = 0 AND o.type IN ('PC', 'FS', 'FT', 'TA', 'AF')
""", (Versioned("uses_native_compilation", "m.uses_native_compilation", 12, "CAST(0 AS bit)"),))

SYNONYMS = CatalogQuery("SYNONYMS", """
SELECT {mark} sn.object_id, SCHEMA_NAME(sn.schema_id) AS schema_name, sn.name AS synonym_name, sn.base_object_name
FROM sys.synonyms AS sn
WHERE sn.is_ms_shipped = 0
""")

# Boundaries are sql_variant: dates go out as ISO 8601 text, everything else as its own text (§1.17).
PARTITION_FUNCTIONS = CatalogQuery("PARTITION_FUNCTIONS", """
SELECT {mark} pf.function_id, pf.name AS function_name, pf.fanout, pf.boundary_value_on_right,
       TYPE_NAME(pp.user_type_id) AS parameter_type, pp.max_length, pp.precision, pp.scale,
       prv.boundary_id,
       CAST(SQL_VARIANT_PROPERTY(prv.value, 'BaseType') AS sysname) AS value_base_type,
       CASE WHEN CAST(SQL_VARIANT_PROPERTY(prv.value, 'BaseType') AS sysname)
                 IN (N'date', N'datetime', N'datetime2', N'smalldatetime')
            THEN CONVERT(nvarchar(4000), CONVERT(datetime2(7), prv.value), 126)
            ELSE CONVERT(nvarchar(4000), prv.value) END AS boundary_value
FROM sys.partition_functions AS pf
JOIN sys.partition_parameters AS pp ON pp.function_id = pf.function_id
LEFT JOIN sys.partition_range_values AS prv ON prv.function_id = pf.function_id AND prv.parameter_id = pp.parameter_id
""")

PARTITION_SCHEMES = CatalogQuery("PARTITION_SCHEMES", """
SELECT {mark} ps.data_space_id, ps.name AS scheme_name, pf.name AS function_name,
       dds.destination_id, fg.name AS filegroup_name
FROM sys.partition_schemes AS ps
JOIN sys.partition_functions AS pf ON pf.function_id = ps.function_id
LEFT JOIN sys.destination_data_spaces AS dds ON dds.partition_scheme_id = ps.data_space_id
LEFT JOIN sys.filegroups AS fg ON fg.data_space_id = dds.data_space_id
""")

# The partitioning column is the one with partition_ordinal > 0 on the heap or clustered index.
TABLE_PARTITIONING = CatalogQuery("TABLE_PARTITIONING", """
SELECT {mark} i.object_id, i.index_id, ps.name AS scheme_name, pf.name AS function_name,
       ic.column_id AS partition_column_id, COL_NAME(ic.object_id, ic.column_id) AS partition_column
FROM sys.indexes AS i
JOIN sys.partition_schemes AS ps ON ps.data_space_id = i.data_space_id
JOIN sys.partition_functions AS pf ON pf.function_id = ps.function_id
JOIN sys.index_columns AS ic ON ic.object_id = i.object_id AND ic.index_id = i.index_id AND ic.partition_ordinal > 0
WHERE i.index_id IN (0, 1)
""")

FULLTEXT_INDEXES = CatalogQuery("FULLTEXT_INDEXES", """
SELECT {mark} fi.object_id, fi.unique_index_id, fi.fulltext_catalog_id, fi.is_enabled, fi.change_tracking_state_desc,
       fic.column_id, COL_NAME(fic.object_id, fic.column_id) AS column_name, fic.language_id
FROM sys.fulltext_indexes AS fi
LEFT JOIN sys.fulltext_index_columns AS fic ON fic.object_id = fi.object_id
""")

# Rows and size of every user table; memory-optimized tables are not in this DMV (§1.19).
PARTITION_STATS = CatalogQuery("PARTITION_STATS", """
SELECT {mark} ps.object_id,
       SUM(CASE WHEN ps.index_id IN (0, 1) THEN ps.row_count ELSE 0 END) AS row_count,
       SUM(CASE WHEN ps.index_id IN (0, 1) THEN ps.used_page_count ELSE 0 END) * 8 AS data_used_kb,
       SUM(ps.used_page_count) * 8 AS total_used_kb,
       SUM(ps.reserved_page_count) * 8 AS total_reserved_kb,
       COUNT(DISTINCT CASE WHEN ps.index_id IN (0, 1) THEN ps.partition_number END) AS partition_count
FROM sys.dm_db_partition_stats AS ps
JOIN sys.objects AS o ON o.object_id = ps.object_id
WHERE o.is_ms_shipped = 0 AND o.type = 'U'
GROUP BY ps.object_id
""")

# Row counts from sys.partitions need no VIEW DATABASE STATE: the fallback when the DMV above is denied.
# https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-partitions-transact-sql
TABLE_ROWS = CatalogQuery("TABLE_ROWS", """
SELECT {mark} p.object_id, SUM(p.rows) AS row_count
FROM sys.partitions AS p
JOIN sys.tables AS t ON t.object_id = p.object_id
WHERE t.is_ms_shipped = 0 AND p.index_id IN (0, 1)
GROUP BY p.object_id
""")

# Descriptions of tables (minor_id 0) and their columns (minor_id = column_id).
EXTENDED_PROPERTIES = CatalogQuery("EXTENDED_PROPERTIES", """
SELECT {mark} ep.major_id AS object_id, ep.minor_id AS column_id, ep.name AS property_name,
       CAST(ep.value AS nvarchar(4000)) AS property_value
FROM sys.extended_properties AS ep
WHERE ep.class = 1 AND ep.name = N'MS_Description'
""")

# Query Store (reference §2). actual_state: 0 OFF, 1 READ_ONLY, 2 READ_WRITE, 3 ERROR.
# https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-database-query-store-options-transact-sql
QUERY_STORE_OPTIONS = CatalogQuery("QUERY_STORE_OPTIONS", """
SELECT {mark} o.actual_state, o.actual_state_desc, o.desired_state_desc, o.readonly_reason,
       o.interval_length_minutes, o.flush_interval_seconds, o.current_storage_size_mb, o.max_storage_size_mb,
       o.stale_query_threshold_days, o.query_capture_mode_desc, o.size_based_cleanup_mode_desc,
       {wait_stats_capture_mode_desc}
FROM sys.database_query_store_options AS o
""", (Versioned("wait_stats_capture_mode_desc", "o.wait_stats_capture_mode_desc", 14, "CAST(NULL AS nvarchar(60))"),),
    min_major=13)

# The intervals of the window; every Query Store query below is limited to them.
_WINDOW = """
    SELECT wi.runtime_stats_interval_id FROM sys.query_store_runtime_stats_interval AS wi
    WHERE wi.end_time > DATEADD(minute, -{window_minutes}, SYSDATETIMEOFFSET())"""
_OWN = f"qt.query_sql_text NOT LIKE N'%{MARKER}%'"

# The reference §2.7 statistics, summed over plans on the server (the plans come separately):
# totals are avg * count, and the in-memory and flushed rows of one interval add up (§2.5).
# https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-query-store-runtime-stats-transact-sql
QUERY_STORE_RUNTIME_STATS = CatalogQuery("QUERY_STORE_RUNTIME_STATS", f"""
SELECT {{mark}} rs.query_id, rs.runtime_stats_interval_id,
       CONVERT(datetime2(7), SWITCHOFFSET(i.start_time, '+00:00')) AS interval_start_utc,
       CONVERT(datetime2(7), SWITCHOFFSET(i.end_time, '+00:00')) AS interval_end_utc,
       rs.execution_type, rs.count_executions,
       rs.total_duration_us / NULLIF(rs.count_executions, 0) AS avg_duration_us,
       rs.total_duration_us, rs.total_cpu_time_us, rs.total_logical_io_reads, rs.total_logical_io_writes,
       rs.total_rowcount, rs.min_duration_us, rs.max_duration_us,
       CONVERT(datetime2(7), SWITCHOFFSET(rs.first_execution_time, '+00:00')) AS first_execution_utc,
       CONVERT(datetime2(7), SWITCHOFFSET(rs.last_execution_time, '+00:00')) AS last_execution_utc
FROM (
    SELECT p.query_id, r.runtime_stats_interval_id, r.execution_type,
           SUM(r.count_executions) AS count_executions,
           SUM(r.avg_duration * r.count_executions) AS total_duration_us,
           SUM(r.avg_cpu_time * r.count_executions) AS total_cpu_time_us,
           SUM(r.avg_logical_io_reads * r.count_executions) AS total_logical_io_reads,
           SUM(r.avg_logical_io_writes * r.count_executions) AS total_logical_io_writes,
           SUM(r.avg_rowcount * r.count_executions) AS total_rowcount,
           MIN(r.min_duration) AS min_duration_us,
           MAX(r.max_duration) AS max_duration_us,
           MIN(r.first_execution_time) AS first_execution_time,
           MAX(r.last_execution_time) AS last_execution_time
    FROM sys.query_store_runtime_stats AS r
    JOIN sys.query_store_plan AS p ON p.plan_id = r.plan_id
    WHERE r.runtime_stats_interval_id IN ({_WINDOW})
    GROUP BY p.query_id, r.runtime_stats_interval_id, r.execution_type
) AS rs
JOIN sys.query_store_runtime_stats_interval AS i ON i.runtime_stats_interval_id = rs.runtime_stats_interval_id
JOIN sys.query_store_query AS q ON q.query_id = rs.query_id
JOIN sys.query_store_query_text AS qt ON qt.query_text_id = q.query_text_id
WHERE q.is_internal_query = 0 AND {_OWN}
""", min_major=13)

# One row per query that ran in the window; the text is sent once, not once per interval.
QUERY_STORE_QUERIES = CatalogQuery("QUERY_STORE_QUERIES", f"""
SELECT {{mark}} q.query_id, q.query_text_id, q.query_hash, q.object_id,
       OBJECT_SCHEMA_NAME(NULLIF(q.object_id, 0)) AS object_schema, OBJECT_NAME(NULLIF(q.object_id, 0)) AS object_name,
       q.query_parameterization_type, q.query_parameterization_type_desc, q.context_settings_id,
       qt.query_sql_text, qt.has_restricted_text, qt.is_part_of_encrypted_module
FROM sys.query_store_query AS q
JOIN sys.query_store_query_text AS qt ON qt.query_text_id = q.query_text_id
WHERE q.is_internal_query = 0 AND {_OWN}
  AND q.query_id IN (
    SELECT p.query_id FROM sys.query_store_plan AS p
    JOIN sys.query_store_runtime_stats AS r ON r.plan_id = p.plan_id
    WHERE r.runtime_stats_interval_id IN ({_WINDOW}))
""", min_major=13)

# Showplan XML is large; only its <ParameterList> (the compiled parameter values, §2.9) is sent.
# The cut is done on the text, because CAST(query_plan AS xml) fails on deeply nested plans (§2.4).
_PARAMETER_LIST = """
       CASE WHEN CHARINDEX(N'<ParameterList>', p.query_plan) > 0
             AND CHARINDEX(N'</ParameterList>', p.query_plan) > CHARINDEX(N'<ParameterList>', p.query_plan)
            THEN SUBSTRING(p.query_plan, CHARINDEX(N'<ParameterList>', p.query_plan),
                           CHARINDEX(N'</ParameterList>', p.query_plan) - CHARINDEX(N'<ParameterList>', p.query_plan)
                           + LEN(N'</ParameterList>'))
       END AS parameter_list"""
QUERY_STORE_PLANS = CatalogQuery("QUERY_STORE_PLANS", f"""
SELECT {{mark}} p.plan_id, p.query_id, p.plan_group_id, p.compatibility_level, p.is_forced_plan,
       p.query_plan_hash,{_PARAMETER_LIST}
FROM sys.query_store_plan AS p
WHERE p.plan_id IN (
    SELECT r.plan_id FROM sys.query_store_runtime_stats AS r
    WHERE r.runtime_stats_interval_id IN ({_WINDOW}))
""", min_major=13)

SCHEMA_QUERIES: tuple[CatalogQuery, ...] = (
    SCHEMAS, TABLES, COLUMNS, TYPES, TABLE_TYPE_COLUMNS, IDENTITY_COLUMNS, COMPUTED_COLUMNS,
    DEFAULT_CONSTRAINTS, CHECK_CONSTRAINTS, KEY_CONSTRAINTS, INDEXES, INDEX_COLUMNS, FOREIGN_KEYS,
    SEQUENCES, MODULES, SYNONYMS, PARTITION_FUNCTIONS, PARTITION_SCHEMES, TABLE_PARTITIONING,
    FULLTEXT_INDEXES, PARTITION_STATS, TABLE_ROWS, EXTENDED_PROPERTIES,
)
"""The schema rowsets, in the order the capture reads them."""

QUERY_STORE_ROWSETS: tuple[CatalogQuery, ...] = (
    QUERY_STORE_QUERIES, QUERY_STORE_RUNTIME_STATS, QUERY_STORE_PLANS,
)
"""The Query Store rowsets, read after QUERY_STORE_OPTIONS when Query Store is wanted."""

ALL_QUERIES: tuple[CatalogQuery, ...] = (
    SERVER_PROPERTIES, *SCHEMA_QUERIES, QUERY_STORE_OPTIONS, *QUERY_STORE_ROWSETS,
)
