"""The capture-script: what it prints, that its T-SQL parses, and that it emits every rowset the mapper reads.

The script cannot run here (no SQL Server). sqlglot's T-SQL parser checks each batch statement
by statement. It has no grammar for TRY...CATCH blocks and keeps them as opaque commands, so the
SQL those blocks run (the dynamic query in @sql) is checked separately, strictly, after undoing
the N'...' quoting, and must be exactly the catalog query wrapped in FOR JSON.
"""

from __future__ import annotations

import re

import pytest
import sqlglot
from sqlglot import exp
from typer.testing import CliRunner

from sqlsrv2tidb.capture import catalog_sql
from sqlsrv2tidb.capture.catalog import EXPECTED_ROWSETS
from sqlsrv2tidb.capture.script_export import MAJORS, capture_script
from sqlsrv2tidb.cli import app

SCRIPT = capture_script(days=7)


def batches(script: str) -> list[str]:
    return [b for b in re.split(r"^GO\s*$", script, flags=re.M) if b.strip()]


def n_literals(batch: str) -> list[str]:
    """Every N'...' literal of a batch, unquoted."""
    return [m.replace("''", "'") for m in re.findall(r"N'((?:[^']|'')*)'", batch)]


def test_the_command_prints_the_script_and_never_overwrites_a_file(tmp_path):
    printed = CliRunner().invoke(app, ["capture-script", "--days", "2"])
    assert printed.exit_code == 0 and printed.stdout.startswith("-- sqlsrv2tidb capture-script")
    assert "last 2 day(s)" in printed.stdout and "DATEADD(minute, -2880, SYSDATETIMEOFFSET())" in printed.stdout
    target = tmp_path / "capture.sql"
    written = CliRunner().invoke(app, ["capture-script", "-o", str(target)])
    assert written.exit_code == 0 and target.read_text(encoding="utf-8") == SCRIPT
    target.write_text("-- the DBA's own edits\n", encoding="utf-8")
    again = CliRunner().invoke(app, ["capture-script", "-o", str(target)])
    assert again.exit_code == 2 and again.stderr.startswith("Error: ") and "exists" in again.stderr
    assert target.read_text(encoding="utf-8") == "-- the DBA's own edits\n"


def test_the_header_tells_the_dba_how_to_save_the_output_whole():
    header = SCRIPT.split("SET NOCOUNT ON;")[0]
    assert all(line.startswith("--") or not line for line in header.splitlines())
    for words in ("sqlcmd", "-y 0", "-h -1", "SQL Server 2016", "VIEW DATABASE STATE", "catalog.json"):
        assert words in header


def test_every_batch_parses_statement_by_statement():
    framing = []
    for batch in batches(SCRIPT):
        for statement in sqlglot.parse(batch, read="tsql"):
            if isinstance(statement, exp.Command):
                # sqlglot has no grammar for BEGIN TRY ... END TRY BEGIN CATCH ... END CATCH; only
                # that framing may fall back to an opaque command (the statements inside still parse).
                words = " ".join(statement.sql().split()[:2]).upper()
                assert words in ("BEGIN TRY", "END TRY", "END CATCH"), statement.sql()[:80]
                framing.append(words)
    rowset_batches = len(batches(SCRIPT)) - 2  # all but the setup and the last batch
    assert framing.count("BEGIN TRY") == framing.count("END CATCH") == rowset_batches


def _stored(query, major: int) -> str:
    """The one UPDATE the script runs for a rowset: the catalog query, wrapped in FOR JSON, stored."""
    json = f"(SELECT * FROM (\n{query.sql(major, days=7)}\n) AS r FOR JSON PATH, INCLUDE_NULL_VALUES)"
    temp = "#sqlsrv2tidb_capture"
    if query is catalog_sql.SERVER_PROPERTIES:
        return f"UPDATE /* sqlsrv2tidb capture */ {temp} SET server_json = JSON_QUERY({json}, '$[0]');"
    if query is catalog_sql.QUERY_STORE_OPTIONS:
        return f"UPDATE /* sqlsrv2tidb capture */ {temp} SET query_store_json = ISNULL(JSON_QUERY({json}, '$[0]'), N'{{}}');"
    return f"""UPDATE /* sqlsrv2tidb capture */ {temp} SET rowsets = rowsets + N',"{query.name}":' + ISNULL({json}, N'[]');"""


def test_each_rowset_batch_runs_exactly_the_catalog_query_for_every_version():
    by_name = {b.strip().split("\n", 1)[0][3:]: b for b in batches(SCRIPT) if b.strip().startswith("-- ")}
    queries = (catalog_sql.SERVER_PROPERTIES, *catalog_sql.SCHEMA_QUERIES, catalog_sql.QUERY_STORE_OPTIONS,
               *catalog_sql.QUERY_STORE_ROWSETS)
    for query in queries:
        dynamic = [text for text in n_literals(by_name[query.name]) if text.startswith("UPDATE")]
        assert set(dynamic) == {_stored(query, m) for m in MAJORS}, query.name
        for text in dynamic:
            parsed = sqlglot.parse_one(text, read="tsql", error_level=sqlglot.ErrorLevel.RAISE)
            assert isinstance(parsed, exp.Update) and not parsed.find(exp.Command)
    assert "WHEN @major >= 14 THEN" in by_name["TABLES"]  # is_node/is_edge arrived in SQL Server 2017
    assert "@major" not in by_name["COLUMNS"]  # the same on every version the script supports


def test_a_view_the_server_lacks_is_recorded_as_an_error_not_run():
    by_name = {b.strip().split("\n", 1)[0][3:]: b for b in batches(SCRIPT) if b.strip().startswith("-- ")}
    stats = by_name["PARTITION_STATS"]
    assert ("WHEN OBJECT_ID(N'sys.dm_db_partition_stats') IS NULL THEN "
            "N'RAISERROR(N''sys.dm_db_partition_stats does not exist on this server'', 16, 1);'") in stats
    assert stats.index("OBJECT_ID(N'sys.dm_db_partition_stats')") < stats.index("BEGIN TRY")
    assert "OBJECT_ID(N'sys.query_store_runtime_stats_interval')" in by_name["QUERY_STORE_PLANS"]


def test_the_script_emits_every_rowset_the_mapper_reads():
    last = batches(SCRIPT)[-1]
    from sqlsrv2tidb.capture.statistics_sql import BATCHES as STATISTICS

    for name in EXPECTED_ROWSETS:
        if name in STATISTICS:  # a statistics batch leaves its rows in @json (statistics_sql.py)
            assert f"""N',"{name}":' + ISNULL(@json, N'[]')""" in SCRIPT, name
        else:
            assert f"""N'',"{name}":'' + ISNULL((SELECT * FROM (""" in SCRIPT, name  # inside the N'...' of @sql
        assert f"""N',"{name}":"' + STRING_ESCAPE(ERROR_MESSAGE(), 'json')""" in SCRIPT, name
        # the last batch records a rowset whose batch ended on an error CATCH never saw
        assert f"""WHERE CHARINDEX(N',"{name}":', rowsets) = 0 AND CHARINDEX(N',"{name}":', errors) = 0""" in last
    for key in ('"format":"sqlsrv2tidb.catalog/1"', '"server":', '"query_store":', '"rowsets":{', '"errors":{'):
        assert key in last


def test_it_needs_only_sql_server_2016_features():
    # JSON_QUERY and STRING_ESCAPE are 2016 features; STRING_AGG and CONCAT_WS (2017) must not appear.
    for later in ("STRING_AGG", "CONCAT_WS", "TRIM(", "JSON_OBJECT", "GREATEST("):
        assert later not in SCRIPT
    assert "sp_executesql" in SCRIPT and SCRIPT.count("BEGIN TRY") == len(batches(SCRIPT)) - 2


@pytest.mark.parametrize("days", [0, -1])
def test_days_must_be_positive(days):
    result = CliRunner().invoke(app, ["capture-script", "--days", str(days)])
    assert result.exit_code == 2 and "--days must be more than 0" in result.stderr


def test_statistics_come_from_the_histogram_view_or_dbcc_where_it_is_missing():
    from sqlsrv2tidb.capture.statistics_sql import BATCHES

    by_name = {b.strip().split("\n", 1)[0][3:]: b for b in batches(SCRIPT) if b.strip().startswith("-- ")}
    for name, text in BATCHES.items():
        assert [t for t in n_literals(by_name[name]) if t.startswith(text[:40])] == [text], name
    histogram = BATCHES["STATS_HISTOGRAM"]
    assert "IF OBJECT_ID(N'sys.dm_db_stats_histogram') IS NOT NULL" in histogram
    assert "sys.dm_db_stats_histogram(s.object_id, s.stats_id)" in histogram and "WITH HISTOGRAM" in histogram
    assert "WITH DENSITY_VECTOR" in BATCHES["STATS_DENSITY"]
    # RANGE_HI_KEY is a sql_variant, which pyodbc cannot read: it is text before it leaves the server.
    assert histogram.count("SQL_VARIANT_PROPERTY") == 2 * 3  # both paths, three kinds each
