"""The capture-script: T-SQL a DBA runs where sqlsrv2tidb cannot connect, emitting the capture as JSON.

It runs the same constants as the live capture (capture/catalog_sql.py), each wrapped in
`FOR JSON PATH, INCLUDE_NULL_VALUES` through sp_executesql, and assembles the one document that
`capture -o` writes as catalog.json, so reading it back gives the same model. Per batch:

- The query text is chosen by the server's major version where columns differ (SQL Server 2016
  is the oldest the script supports: FOR JSON and Query Store start there).
- TRY/CATCH records a failing rowset (no permission on Query Store, say) under `errors` and the
  script goes on, as the live capture does. The views a query reads are looked up first, so a view
  the server lacks (Query Store before 2016, the DMVs Babelfish has not) is recorded the same way.
- Babelfish reports version 12 (2014) but has FOR JSON: the version check lets it through.
- Results collect in one temp table across GO batches; the last batch records any rowset that
  has neither rows nor an error (its batch ended on an error CATCH did not see) and selects the
  document.

FOR JSON: https://learn.microsoft.com/sql/relational-databases/json/format-query-results-as-json-with-for-json-sql-server
"""

from __future__ import annotations

import re

from .. import __version__
from .catalog import CATALOG_FORMAT
from .catalog_sql import (
    MARKER,
    QUERY_STORE_OPTIONS,
    QUERY_STORE_ROWSETS,
    SCHEMA_QUERIES,
    SERVER_PROPERTIES,
    CatalogQuery,
)
from .statistics_sql import BATCHES as STATISTICS

OLDEST_MAJOR = 13
"""SQL Server 2016: FOR JSON, STRING_ESCAPE and Query Store all appear in this version."""
MAJORS = (13, 14, 15, 16, 17)
TEMP = "#sqlsrv2tidb_capture"
_MARK = f"/* {MARKER} */"
_MAJOR = "CAST(PARSENAME(CAST(SERVERPROPERTY('ProductVersion') AS nvarchar(128)), 4) AS int)"

_HEADER = """\
-- sqlsrv2tidb capture-script (sqlsrv2tidb {version})
--
-- Reads this database's catalog, its column statistics (histograms, for `sqlsrv2tidb data
-- synthesize`) and the last {days} day(s) of Query Store statistics, and returns them as ONE JSON
-- document (one row, one column), which sqlsrv2tidb reads as a capture source:
--     sqlsrv2tidb schema catalog.json        (or assess, translate, ... with catalog.json)
--
-- Run it in the database to capture, on SQL Server 2016 or later, as a login with VIEW DEFINITION
-- and VIEW DATABASE STATE on it (db_owner has both; the histograms need SELECT on the tables where
-- DBCC SHOW_STATISTICS reads them). It changes nothing: the only things it writes are temporary
-- tables ({temp} and two for the statistics), dropped at the end.
--
-- SAVE THE OUTPUT WHOLE. The document is a single long nvarchar(max) value, and clients cut long
-- values short. With sqlcmd:
--     sqlcmd -S server -d YourDatabase -E -i capture.sql -o catalog.json -y 0 -h -1 -f o:65001
--   -y 0   no limit on the width of the value (the default, 256, cuts it)
--   -h -1  no column header;  -f o:65001  write UTF-8;  -U login instead of -E for a SQL login
-- SSMS cuts long values in both grid and text results, so run this with sqlcmd (SSMS in SQLCMD
-- mode with results to a file is only safe for very small databases). Messages or a header around
-- the document do no harm; a document cut short is reported as such when read.
--
-- A part the login may not read (Query Store without VIEW DATABASE STATE, say) is recorded in the
-- document's "errors" and the rest is still captured.
"""


def _literal(text: str) -> str:
    return "N'" + text.replace("'", "''") + "'"


def _json(query: CatalogQuery, major: int, days: float) -> str:
    """One rowset as JSON: its query as a derived table, formatted by FOR JSON."""
    return (f"(SELECT * FROM (\n{query.sql(major, days=days)}\n) AS r "
            "FOR JSON PATH, INCLUDE_NULL_VALUES)")


def _json_sql(query: CatalogQuery, major: int, days: float) -> str:
    """The dynamic SQL of one rowset: a single UPDATE storing its JSON in the temp table.

    One statement, so the query and the store are parsed together: Babelfish parses a batch's
    statements as it reaches them, and after some catalog functions (those behind
    sys.identity_columns and SERVERPROPERTY) it fails any later statement naming a #temp table.
    Server properties and Query Store options are single objects, the rest rowsets.
    """
    json = _json(query, major, days)
    if query is SERVER_PROPERTIES:
        return f"UPDATE {_MARK} {TEMP} SET server_json = JSON_QUERY({json}, '$[0]');"
    if query is QUERY_STORE_OPTIONS:
        return f"UPDATE {_MARK} {TEMP} SET query_store_json = ISNULL(JSON_QUERY({json}, '$[0]'), N'{{}}');"
    return f"""UPDATE {_MARK} {TEMP} SET rowsets = rowsets + N',"{query.name}":' + ISNULL({json}, N'[]');"""


def _choose(query: CatalogQuery, days: float) -> tuple[bool, str]:
    """`SET @sql = ...` picking the text for the running server's version (newest variant first)."""
    variants: list[tuple[int, str]] = []
    for major in MAJORS:
        text = _json_sql(query, major, days)
        if not variants or variants[-1][1] != text:
            variants.append((major, text))
    if len(variants) == 1:
        return False, f"SET @sql = {_literal(variants[0][1])};"
    branches = "".join(f"\n    WHEN @major >= {major} THEN {_literal(text)}" for major, text in reversed(variants[1:]))
    return True, f"SET @sql = CASE{branches}\n    ELSE {_literal(variants[0][1])}\nEND;"


def _views(text: str) -> list[str]:
    """The sys.* views a query reads, in the order they first appear."""
    return list(dict.fromkeys(re.findall(r"\bsys\.\w+", text)))


def _checks(text: str) -> str:
    """`SET @sql = ...` replacing the dynamic SQL by the error of the first view the server lacks.

    A view the server lacks fails the query at compile time, which some servers (Babelfish) do not
    hand to CATCH: each view is looked up first, and a missing one makes the dynamic SQL raise the
    error instead, so its absence is recorded like any other."""
    lookups = "".join(f"\n    WHEN OBJECT_ID(N'{view}') IS NULL THEN {_literal(_missing(view))}" for view in _views(text))
    return f"SET @sql = CASE{lookups}\n    ELSE @sql\nEND;\n"


def _missing(view: str) -> str:
    """The dynamic SQL run instead of a query whose view the server lacks: it raises the reason."""
    return f"RAISERROR({_literal(f'{view} does not exist on this server')}, 16, 1);"


def _batch(query: CatalogQuery, days: float) -> str:
    versioned, choose = _choose(query, days)
    declare = f"DECLARE @major int = {_MAJOR};\n" if versioned else ""
    return f"""\
-- {query.name}
{declare}DECLARE @sql nvarchar(max);
{choose}
{_checks(query.template)}BEGIN TRY
    EXEC sys.sp_executesql @sql;
{_catch(query.name)}"""


def _statistics_batch(name: str, text: str) -> str:
    """A statistics rowset (statistics_sql.py): its batch leaves the rows as JSON in `@json`, stored after it."""
    return f"""\
-- {name}
DECLARE @sql nvarchar(max) = {_literal(text)}, @json nvarchar(max);
{_checks(_required(text))}BEGIN TRY
    EXEC sys.sp_executesql @sql, N'@json nvarchar(max) OUTPUT', @json = @json OUTPUT;
    UPDATE {_MARK} {TEMP} SET rowsets = rowsets + N',"{name}":' + ISNULL(@json, N'[]');
{_catch(name)}"""


def _required(text: str) -> str:
    """The views a statistics batch cannot do without: the histogram DMV is optional (DBCC stands in)."""
    return text.replace("sys.dm_db_stats_histogram", "")


def _catch(name: str) -> str:
    return f"""\
END TRY
BEGIN CATCH
    UPDATE {_MARK} {TEMP} SET errors = errors + N',"{name}":"' + STRING_ESCAPE(ERROR_MESSAGE(), 'json') + N'"';
END CATCH;
GO
"""


def _setup() -> str:
    return f"""\
SET NOCOUNT ON;
IF {_MAJOR} < {OLDEST_MAJOR} AND SERVERPROPERTY('BabelfishVersion') IS NULL
    RAISERROR(N'The sqlsrv2tidb capture-script needs SQL Server 2016 or later; use sqlsrv2tidb capture instead.', 16, 1);
IF OBJECT_ID(N'tempdb..{TEMP}') IS NOT NULL
    DROP TABLE {TEMP};
CREATE TABLE {TEMP} (
    rowsets nvarchar(max) NOT NULL, errors nvarchar(max) NOT NULL,
    server_json nvarchar(max) NULL, query_store_json nvarchar(max) NULL);
INSERT {_MARK} INTO {TEMP} (rowsets, errors) VALUES (N'', N'');
GO
"""


_NO_ANSWER = ("no answer: the server ended this batch with an error that TRY...CATCH could not catch; "
              "its message is among those printed beside the document")


def _unanswered(name: str) -> str:
    """Records a rowset whose batch stored neither rows nor an error (an error CATCH never saw)."""
    if name == SERVER_PROPERTIES.name:
        stored = "server_json IS NULL"
    elif name == QUERY_STORE_OPTIONS.name:
        stored = "query_store_json IS NULL"
    else:
        stored = f"""CHARINDEX(N',"{name}":', rowsets) = 0"""
    return (f"""UPDATE {_MARK} {TEMP} SET errors = errors + N',"{name}":"{_NO_ANSWER}"'\n"""
            f"""WHERE {stored} AND CHARINDEX(N',"{name}":', errors) = 0;\n""")


def _final(names: tuple[str, ...], days: float) -> str:
    head = f'{{"format":"{CATALOG_FORMAT}","generator":"capture-script","tool_version":"{__version__}","days":{days:g}'
    return f"""\
-- Rowsets whose batch failed before it could record why.
{"".join(_unanswered(name) for name in names)}
-- The document: one row, one column.
SELECT {_MARK}
    CAST({_literal(head)} AS nvarchar(max))
    + N',"captured_at":"' + CONVERT(nvarchar(33), SYSUTCDATETIME(), 126) + N'Z"'
    + N',"server":' + ISNULL(c.server_json, N'{{}}')
    + N',"query_store":' + ISNULL(c.query_store_json, N'null')
    + N',"rowsets":{{' + ISNULL(STUFF(c.rowsets, 1, 1, N''), N'') + N'}}'
    + N',"errors":{{' + ISNULL(STUFF(c.errors, 1, 1, N''), N'') + N'}}}}' AS sqlsrv2tidb_catalog
FROM {TEMP} AS c;
DROP TABLE {TEMP};
GO
"""


def capture_script(days: float) -> str:
    """The whole script: header, setup, one batch per rowset, and the batch that returns the document."""
    if days <= 0:
        from ..errors import UsageError

        raise UsageError(f"--days must be more than 0, got {days:g}")
    queries = (SERVER_PROPERTIES, *SCHEMA_QUERIES, QUERY_STORE_OPTIONS, *QUERY_STORE_ROWSETS)
    parts = [_HEADER.format(version=__version__, days=f"{days:g}", temp=TEMP), _setup(),
             *(_batch(q, days) for q in queries), *(_statistics_batch(n, t) for n, t in STATISTICS.items()),
             _final((*(q.name for q in queries), *STATISTICS), days)]
    return "\n".join(parts)
