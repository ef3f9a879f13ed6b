"""The T-SQL that reads SQL Server's column statistics, for `data synthesize`.

Three rowsets, each written by a batch that leaves its rows as JSON in `@json` (FOR JSON, SQL
Server 2016+), so the live capture runs the very batch the capture-script embeds:

- `STATS_PROPERTIES`: every statistics object of a user table with its leading column, from
  `sys.dm_db_stats_properties` (rows, rows sampled, steps, last update);
- `STATS_HISTOGRAM`: the histogram steps of each, from `sys.dm_db_stats_histogram` (SQL Server 2016
  SP1 CU2 and later), else from `DBCC SHOW_STATISTICS ... WITH HISTOGRAM` run per object;
- `STATS_DENSITY`: the density vector's first row (the leading column alone: All density, Average
  Length), from `DBCC SHOW_STATISTICS ... WITH DENSITY_VECTOR`.

RANGE_HI_KEY is a sql_variant, which pyodbc cannot read (reference §0.1): it is turned into text on
the server, dates and times in ODBC canonical form (style 121), binary as 0x hex (style 1), floats
with all 17 digits (style 3).
https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-db-stats-histogram-transact-sql
https://learn.microsoft.com/sql/relational-databases/system-dynamic-management-views/sys-dm-db-stats-properties-transact-sql
https://learn.microsoft.com/sql/t-sql/database-console-commands/dbcc-show-statistics-transact-sql
"""

from __future__ import annotations

from .catalog_sql import MARKER

_MARK = f"/* {MARKER} */"
_USER_STATS = """FROM sys.stats AS s
JOIN sys.tables AS t ON t.object_id = s.object_id
JOIN sys.stats_columns AS sc ON sc.object_id = s.object_id AND sc.stats_id = s.stats_id AND sc.stats_column_id = 1
WHERE t.is_ms_shipped = 0"""


def _hi_key(expr: str) -> str:
    base = f"CAST(SQL_VARIANT_PROPERTY({expr}, 'BaseType') AS nvarchar(128))"
    return (f"CASE WHEN {base} IN ('date', 'time', 'datetime', 'datetime2', 'smalldatetime', 'datetimeoffset') "
            f"THEN CONVERT(nvarchar(4000), {expr}, 121) "
            f"WHEN {base} IN ('binary', 'varbinary') THEN CONVERT(nvarchar(4000), CAST({expr} AS varbinary(8000)), 1) "
            f"WHEN {base} IN ('float', 'real') THEN CONVERT(nvarchar(4000), CAST({expr} AS float), 3) "
            f"ELSE CAST({expr} AS nvarchar(4000)) END")


_JSON = "FOR JSON PATH, INCLUDE_NULL_VALUES"

PROPERTIES = f"""SET @json = (SELECT {_MARK} s.object_id, s.stats_id, s.name AS stats_name,
       COL_NAME(s.object_id, sc.column_id) AS column_name, sp.rows, sp.rows_sampled, sp.steps,
       sp.modification_counter, CONVERT(nvarchar(33), sp.last_updated, 126) AS last_updated
{_USER_STATS.replace("WHERE", "CROSS APPLY sys.dm_db_stats_properties(s.object_id, s.stats_id) AS sp" + chr(10) + "WHERE")}
{_JSON});"""

_HISTOGRAM_DMV = f"""SET @json = (SELECT {_MARK} h.object_id, h.stats_id, h.step_number, {_hi_key('h.range_high_key')} AS range_hi_key,
       h.range_rows, h.equal_rows, h.distinct_range_rows, h.average_range_rows
{_USER_STATS.replace("WHERE", "CROSS APPLY sys.dm_db_stats_histogram(s.object_id, s.stats_id) AS h" + chr(10) + "WHERE")}
{_JSON});"""


def _dbcc(option: str, columns: str, keep: str, select: str) -> str:
    """Run DBCC SHOW_STATISTICS for every user statistics object, collecting its rows as JSON."""
    # A batch that failed half-way leaves its tables behind on some servers (Babelfish keeps a temporary
    # table made in dynamic SQL): drop them first, so one failure does not fail the next rowset too.
    return f"""IF OBJECT_ID(N'tempdb..#one') IS NOT NULL DROP TABLE #one;
IF OBJECT_ID(N'tempdb..#all') IS NOT NULL DROP TABLE #all;
CREATE TABLE #one (n int IDENTITY(1, 1), {columns});
CREATE TABLE #all (object_id int, stats_id int, n int, {columns});
DECLARE @oid int, @sid int, @cmd nvarchar(max);
DECLARE stats_cursor CURSOR LOCAL FAST_FORWARD FOR
    SELECT s.object_id, s.stats_id, N'DBCC SHOW_STATISTICS (' + QUOTENAME(QUOTENAME(OBJECT_SCHEMA_NAME(s.object_id))
           + N'.' + QUOTENAME(OBJECT_NAME(s.object_id)), N'''') + N', ' + QUOTENAME(s.name) + N') WITH {option}, NO_INFOMSGS'
    {_USER_STATS};
OPEN stats_cursor;
FETCH NEXT FROM stats_cursor INTO @oid, @sid, @cmd;
WHILE @@FETCH_STATUS = 0
BEGIN
    INSERT INTO #one ({keep}) EXEC (@cmd);
    INSERT INTO #all SELECT @oid, @sid, n, {keep} FROM #one;
    TRUNCATE TABLE #one;
    FETCH NEXT FROM stats_cursor INTO @oid, @sid, @cmd;
END;
CLOSE stats_cursor;
DEALLOCATE stats_cursor;
SET @json = (SELECT {_MARK} {select} FROM #all AS a {_JSON});
DROP TABLE #one;
DROP TABLE #all;"""


_HISTOGRAM_DBCC = _dbcc(
    "HISTOGRAM",
    "range_high_key sql_variant, range_rows real, equal_rows real, distinct_range_rows real, average_range_rows real",
    "range_high_key, range_rows, equal_rows, distinct_range_rows, average_range_rows",
    f"a.object_id, a.stats_id, a.n AS step_number, {_hi_key('a.range_high_key')} AS range_hi_key, a.range_rows, "
    "a.equal_rows, a.distinct_range_rows, a.average_range_rows")

HISTOGRAM = f"""IF OBJECT_ID(N'sys.dm_db_stats_histogram') IS NOT NULL
BEGIN
{_HISTOGRAM_DMV}
END
ELSE
BEGIN
{_HISTOGRAM_DBCC}
END;"""

DENSITY = _dbcc(
    "DENSITY_VECTOR", "all_density real, average_length real, columns nvarchar(4000)",
    "all_density, average_length, columns",
    "a.object_id, a.stats_id, a.all_density, a.average_length").replace(
    "FROM #all AS a", "FROM #all AS a WHERE a.n = 1")

BATCHES: dict[str, str] = {"STATS_PROPERTIES": PROPERTIES, "STATS_HISTOGRAM": HISTOGRAM, "STATS_DENSITY": DENSITY}
"""Rowset name → a batch that leaves that rowset's rows as JSON in a declared `@json nvarchar(max)`."""


def standalone(name: str) -> str:
    """The batch as the live capture sends it: it declares @json and returns it as one value."""
    return f"SET NOCOUNT ON;\nDECLARE @json nvarchar(max);\n{BATCHES[name]}\nSELECT @json AS rowset_json;"
