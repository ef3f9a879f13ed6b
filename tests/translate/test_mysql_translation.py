"""The translation for a MySQL target (`--target-engine mysql`) where MySQL and TiDB differ, each text run on the
real MySQL of the suite: T-SQL in, MySQL's text, status and notes out, and what MySQL answers to it.

Where TiDB runs what MySQL refuses (a subquery reading an UPDATE's own target, a temporary table read twice,
a constant PARTITION BY, a seventh fractional digit), the MySQL translation is written otherwise or refused with
a note; TiDB's translation of the same T-SQL stays as recorded (test_translation_record)."""

from __future__ import annotations

from pathlib import Path

import pymysql
import pytest

from sqlsrv2tidb import api
from sqlsrv2tidb.options import Options, Version
from sqlsrv2tidb.plan.migration import build_plan
from sqlsrv2tidb.translate.ddl import is_comment_only, split_statements
from sqlsrv2tidb.translate.emit import split_target_sql
from sqlsrv2tidb.translate.naming import NameMap
from sqlsrv2tidb.translate.queries import translate_sql

EDGES = Path(__file__).resolve().parents[1] / "ddl" / "data" / "mysql_edges.sql"
MYSQL = Options(target_engine="mysql", mysql_version=Version(8, 4, 0))


@pytest.fixture(scope="module")
def edges():
    return api.read([EDGES])


@pytest.fixture
def schema(mysql, mysql_database, edges):
    """The edges schema as MySQL's DDL creates it, with a few rows."""
    plan = build_plan(edges, MYSQL)
    with mysql.connect(mysql_database) as conn, conn.cursor() as cur:
        for ddl in sorted(plan.files, key=lambda f: f.name):
            for statement in split_statements(ddl.content):
                if not is_comment_only(statement):
                    cur.execute(statement)
        cur.execute("INSERT INTO Regions VALUES ('NO', 'Nord'), ('SU', 'Sud')")
        cur.execute("INSERT INTO Readings (SensorID, Minute, Value) VALUES (1, 10, 1.5), (1, 70, 2.5), (2, 10, 9.5)")
    return mysql_database


def mysql_sql(tsql: str, capture, options: Options = MYSQL):
    return translate_sql(tsql, database=capture.database, names=NameMap.for_database(capture.database), options=options)


def run(mysql, database: str, sql: str) -> list[tuple]:
    with mysql.connect(database) as conn, conn.cursor() as cur:
        rows: list[tuple] = []
        for statement in split_target_sql(sql):
            cur.execute(statement)
            rows = list(cur.fetchall())
        return rows


def test_an_update_that_reads_its_own_table_reads_it_through_a_derived_table(mysql, schema, edges):
    tsql = "UPDATE dbo.Readings SET Value = Value * 2 WHERE Value = (SELECT MAX(Value) FROM dbo.Readings)"
    tidb = mysql_sql(tsql, edges, Options())
    assert tidb.target_sql == "UPDATE Readings SET Value = Value * 2 WHERE Value = (SELECT MAX(Value) FROM Readings)"
    with pytest.raises(pymysql.err.OperationalError) as refused:
        run(mysql, schema, tidb.target_sql)  # TiDB's text: MySQL's error 1093
    assert refused.value.args[0] == 1093
    result = mysql_sql(tsql, edges)
    assert result.target_sql == ("UPDATE Readings SET Value = Value * 2 WHERE Value = "
                                 "(SELECT MAX(Value) FROM (SELECT * FROM Readings) AS Readings)")
    assert [n.code for n in result.notes] == ["MY22"]
    run(mysql, schema, result.target_sql)
    assert run(mysql, schema, "SELECT SensorID, Value FROM Readings ORDER BY Value DESC LIMIT 1") == [(2, 19)]


def test_a_set_that_reads_a_temporary_table_per_variable_becomes_one_set_each(mysql, schema, edges):
    tsql = ("DECLARE @r TABLE (SensorID int, Value int); INSERT INTO @r VALUES (1, 5), (2, 7);\n"
            "SELECT @low = MIN(Value), @high = MAX(Value) FROM @r;\nSELECT @low AS low, @high AS high")
    result = mysql_sql(tsql, edges)
    assert result.status == "rewritten" and "MY23" in {n.code for n in result.notes}
    assert "SET @low = (SELECT MIN(Value) FROM var_r);\nSET @high = (SELECT MAX(Value) FROM var_r)" in result.target_sql
    assert run(mysql, schema, result.target_sql) == [(5, 7)]


def test_a_temporary_table_read_twice_in_one_statement_is_refused_with_its_reason(edges):
    result = mysql_sql("CREATE TABLE #r (a int, b int);\nSELECT x.a FROM #r x JOIN #r y ON y.b > x.a", edges)
    assert result.status == "unsupported" and result.target_sql is None
    assert [n.message for n in result.notes if n.code == "MY23"][0].startswith(
        "The statement reads temporary table tmp_r more than once, which MySQL refuses (error 1137")
    assert mysql_sql("CREATE TABLE #r (a int, b int);\nSELECT x.a FROM #r x JOIN #r y ON y.b > x.a", edges,
                     Options()).status != "unsupported"  # TiDB runs it


def test_constant_partitions_and_seven_fractional_digits_are_what_mysql_takes(mysql, schema, edges):
    tsql = ("SELECT SensorID, ROW_NUMBER() OVER (PARTITION BY 1 ORDER BY SensorID, [Minute]) AS n FROM dbo.Readings "
            "WHERE '9999-12-31 23:59:59.9999999' > SYSDATETIME()")
    result = mysql_sql(tsql, edges)
    assert "PARTITION BY" not in result.target_sql and "'9999-12-31 23:59:59.999999'" in result.target_sql
    assert run(mysql, schema, result.target_sql) == [(1, 1), (1, 2), (2, 3)]
    tidb = mysql_sql(tsql, edges, Options()).target_sql
    # TiDB keeps the constant partition; the "end of time" is its largest DATETIME(6), as the data load keeps it
    assert "PARTITION BY 1" in tidb and "'9999-12-31 23:59:59.999999'" in tidb


def test_a_date_variable_holds_the_date_sql_server_reads(mysql, schema, edges):
    tsql = ("DECLARE @until datetime2(7) = '99991231 23:59:59.9999999';\n"
            "SELECT COUNT(*) FROM dbo.Readings WHERE @until > SYSDATETIME()")
    result = mysql_sql(tsql, edges)
    assert "SET @until = CAST('9999-12-31 23:59:59.999999' AS DATETIME(6))" in result.target_sql
    assert run(mysql, schema, result.target_sql) == [(3,)]


def test_what_mysql_has_not_is_refused_in_mysql_s_words(edges):
    sequence = mysql_sql("SELECT NEXT VALUE FOR Seq.TicketNo", edges)
    assert sequence.status == "unsupported"
    assert [n.message for n in sequence.notes] == [
        "NEXT VALUE FOR Seq.TicketNo: MySQL has no sequences; Seq.TicketNo became the AUTO_INCREMENT of "
        "dbo.Tickets.TicketNo: insert the row without it and read LAST_INSERT_ID()."]
    assert mysql_sql("SELECT NEXT VALUE FOR Seq.TicketNo", edges, Options()).target_sql == "SELECT NEXTVAL(TicketNo)"
    translate = mysql_sql("SELECT TRANSLATE(Name, 'ab', 'cd') FROM dbo.Regions", edges)
    assert translate.status == "unsupported" and [n.message for n in translate.notes] == [
        "TRANSLATE() is not a MySQL function."]
    joined = mysql_sql("SELECT a.Name FROM dbo.Regions a FULL OUTER JOIN dbo.Stores s ON s.RegionCode = a.RegionCode", edges)
    assert any("MySQL has no FULL OUTER JOIN" in n.message for n in joined.notes)


def test_a_collate_clause_names_mysql_s_collation(mysql, schema, edges):
    result = mysql_sql("SELECT Name FROM dbo.Regions WHERE Name = 'nord ' COLLATE Latin1_General_CI_AS", edges)
    assert "COLLATE utf8mb4_general_ci" in result.target_sql
    assert run(mysql, schema, result.target_sql) == [("Nord",)]  # case-insensitive, trailing space ignored
    tsql = "SELECT Name FROM dbo.Regions WHERE Name >= 'n' COLLATE Latin1_General_CS_AS ORDER BY Name"
    sensitive = mysql_sql(tsql, edges)
    assert "COLLATE utf8mb4_0900_as_cs" in sensitive.target_sql
    assert "COLLATE utf8mb4_bin" in mysql_sql(tsql, edges, Options()).target_sql  # TiDB has no _as_cs
    assert run(mysql, schema, sensitive.target_sql) == [("Nord",), ("Sud",)]  # 'n' < 'N' linguistically
    binary = mysql_sql("SELECT Name FROM dbo.Regions WHERE Name = 'nord' COLLATE Latin1_General_BIN2", edges)
    assert "COLLATE utf8mb4_bin" in binary.target_sql and run(mysql, schema, binary.target_sql) == []


def test_a_rollup_over_no_rows_gives_its_grand_total_row_once(mysql, schema, edges):
    """MySQL's WITH ROLLUP returns the grand total row over no rows, as SQL Server does; TiDB's needs a branch."""
    tsql = "SELECT SensorID, COUNT(*) AS n FROM dbo.Readings WHERE Value < 0 GROUP BY ROLLUP (SensorID)"
    result = mysql_sql(tsql, edges)
    assert "UNION ALL" not in result.target_sql and "QY72" not in {n.code for n in result.notes}
    assert run(mysql, schema, result.target_sql) == [(None, 0)]
    assert "UNION ALL" in mysql_sql(tsql, edges, Options()).target_sql


def test_the_grand_total_row_of_a_rollup_keeps_the_output_s_name(mysql, schema, edges):
    """`x AS SensorID` grouped by SensorID: the empty input's grand total row names its column, not NULL."""
    tsql = ("SELECT CASE WHEN GROUPING(SensorID) = 1 THEN -1 ELSE SensorID END AS SensorID, COUNT(*) AS n "
            "FROM dbo.Readings GROUP BY SensorID WITH ROLLUP ORDER BY SensorID")
    tidb = mysql_sql(tsql, edges, Options()).target_sql  # with the grand total branch of an empty input
    assert "AS NULL" not in tidb and tidb.count("AS SensorID") == 2
    assert run(mysql, schema, mysql_sql(tsql, edges).target_sql) == [(-1, 3), (1, 2), (2, 1)]


def test_a_year_is_signed_as_sql_server_s(mysql, schema, edges):
    """MySQL's YEAR() is unsigned: a year before the one subtracted would fail (error 1690) where SQL Server's int
    goes negative. The MySQL text asks for the year with EXTRACT, which is signed."""
    tsql = "SELECT t.y - 2011 AS d FROM (SELECT YEAR(CAST('2010-06-01' AS date)) AS y) AS t"
    result = mysql_sql(tsql, edges)
    assert "EXTRACT(YEAR FROM" in result.target_sql and "YEAR(" in mysql_sql(tsql, edges, Options()).target_sql
    assert run(mysql, schema, result.target_sql) == [(-1,)]
