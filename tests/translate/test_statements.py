"""Splitting captured T-SQL into statements: SQL Server needs no semicolons, and GO is not SQL."""

from __future__ import annotations

import pytest
from sqlglot import exp

from sqlsrv2tidb.translate.statements import parse_statements, split_batches


def texts(sql: str) -> list[str]:
    return [s.sql for s in parse_statements(sql)]


def test_go_lines_split_batches_and_go_inside_text_does_not():
    assert split_batches("SELECT 'GO'\nGO\nSELECT 1\n  go 10  -- again\nSELECT 2") == ["SELECT 'GO'\n", "\nSELECT 1\n", "\nSELECT 2"]


@pytest.mark.parametrize(("sql", "expected"), [
    ("SELECT 1 SELECT 2", ["SELECT 1", "SELECT 2"]),
    ("DECLARE @x int = 5 SELECT @x", ["DECLARE @x int = 5", "SELECT @x"]),
    ("SET @x = 1 SET @y = 2", ["SET @x = 1", "SET @y = 2"]),
    ("UPDATE t SET a = 1 UPDATE u SET b = 2", ["UPDATE t SET a = 1", "UPDATE u SET b = 2"]),
    ("INSERT INTO t SELECT a FROM u SELECT 3", ["INSERT INTO t SELECT a FROM u", "SELECT 3"]),
    ("INSERT INTO t (a) SELECT 1 UNION ALL SELECT 2", ["INSERT INTO t (a) SELECT 1 UNION ALL SELECT 2"]),
    ("INSERT INTO t EXEC dbo.p", ["INSERT INTO t EXEC dbo.p"]),
    ("WITH c AS (SELECT 1 AS a) SELECT a FROM c SELECT 2", ["WITH c AS (SELECT 1 AS a) SELECT a FROM c", "SELECT 2"]),
    ("WITH c AS (SELECT 1 AS a) UPDATE t SET x = 1 FROM c", ["WITH c AS (SELECT 1 AS a) UPDATE t SET x = 1 FROM c"]),
    ("SELECT CASE WHEN a = 1 THEN 'x' ELSE 'y' END FROM t SELECT 2",
     ["SELECT CASE WHEN a = 1 THEN 'x' ELSE 'y' END FROM t", "SELECT 2"]),
    ("SELECT a FROM t WITH (NOLOCK) SELECT 2", ["SELECT a FROM t WITH (NOLOCK)", "SELECT 2"]),
    ("SELECT a FROM t ORDER BY a OFFSET 1 ROWS FETCH NEXT 2 ROWS ONLY", ["SELECT a FROM t ORDER BY a OFFSET 1 ROWS FETCH NEXT 2 ROWS ONLY"]),
    ("MERGE t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = 1 WHEN NOT MATCHED THEN INSERT (id) VALUES (1); SELECT 1",
     ["MERGE t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = 1 WHEN NOT MATCHED THEN INSERT (id) VALUES (1)", "SELECT 1"]),
    ("DROP TABLE IF EXISTS #t SELECT 1", ["DROP TABLE IF EXISTS #t", "SELECT 1"]),
    ("PRINT 'a' SELECT 1", ["PRINT 'a'", "SELECT 1"]),
    ("BEGIN TRAN UPDATE t SET a = 1 COMMIT", ["BEGIN TRAN", "UPDATE t SET a = 1", "COMMIT"]),
    ("DECLARE c CURSOR FOR SELECT a FROM t OPEN c", ["DECLARE c CURSOR FOR SELECT a FROM t", "OPEN c"]),
    ("SET NOCOUNT ON UPDATE t SET a = 1", ["SET NOCOUNT ON", "UPDATE t SET a = 1"]),
    ("SET @s = N'BEGIN' + N'END' + N'SELECT' SELECT @s", ["SET @s = N'BEGIN' + N'END' + N'SELECT'", "SELECT @s"]),
    ("SET XACT_ABORT OFF\nINSERT INTO #t EXEC dbo.p 1", ["SET XACT_ABORT OFF", "INSERT INTO #t EXEC dbo.p 1"]),
])
def test_statements_without_semicolons(sql, expected):
    assert texts(sql) == expected


def test_a_module_body_is_one_statement_up_to_go():
    sql = "CREATE PROCEDURE dbo.p AS BEGIN SELECT 1; UPDATE t SET a = 1 END\nGO\nSELECT 2"
    assert texts(sql) == ["CREATE PROCEDURE dbo.p AS BEGIN SELECT 1; UPDATE t SET a = 1 END", "SELECT 2"]


def test_control_flow_is_marked_not_parsed():
    statements = parse_statements("IF @x = 1 SELECT 1 ELSE SELECT 2")
    assert [s.control_flow for s in statements] == [True, False, True, False]


def test_drop_if_object_id_idiom_is_one_drop():
    [statement] = parse_statements("IF OBJECT_ID('tempdb..#work') IS NOT NULL\n    DROP TABLE #work")
    assert isinstance(statement.tree, exp.Drop) and statement.tree.args["exists"]


def test_a_statement_sqlglot_rejects_keeps_the_others():
    statements = parse_statements("SELECT 1; SELECT FROM WHERE; SELECT 2")
    assert [s.error is None for s in statements] == [True, False, True]
    assert "line 1" in statements[1].error


def test_unterminated_string_is_an_error_not_a_crash():
    [statement] = parse_statements("SELECT 'open")
    assert statement.error and statement.tree is None


def test_top_in_update_and_delete_becomes_a_limit():
    [update, delete] = parse_statements("UPDATE TOP (3) t SET a = 1 DELETE TOP (2) FROM t WHERE a = 1")
    assert update.tree.args["limit"].expression.name == "3"
    assert delete.tree.args["limit"].expression.name == "2"


def test_compound_assignments_are_expanded():
    [statement] = parse_statements("UPDATE t SET a -= b * 2, c += 1 WHERE d = 1")
    assert statement.tree.sql("tsql") == "UPDATE t SET a = a - (b * 2), c = c + (1) WHERE d = 1"


def test_set_options_are_commands():
    for sql in ("SET NOCOUNT ON", "SET ANSI_NULLS, QUOTED_IDENTIFIER ON", "SET TRANSACTION ISOLATION LEVEL SNAPSHOT"):
        [statement] = parse_statements(sql)
        assert isinstance(statement.tree, exp.Command), sql


def test_split_target_sql_respects_quotes():
    from sqlsrv2tidb.translate.emit import split_target_sql

    assert split_target_sql("SET @x = ';';\nSELECT `a;b` FROM t WHERE c = 'it''s;';\nSELECT 'a\\';'") == [
        "SET @x = ';'", "SELECT `a;b` FROM t WHERE c = 'it''s;'", "SELECT 'a\\';'",
    ]


def test_each_statement_knows_its_line():
    text = "SELECT 1\nGO\n\nDECLARE @x int\n  SET @x = 2 SELECT @x\nGO\nIF OBJECT_ID('tempdb..#t') IS NOT NULL\n DROP TABLE #t"
    assert [(s.line, s.sql.split()[0]) for s in parse_statements(text)] == [
        (1, "SELECT"), (4, "DECLARE"), (5, "SET"), (5, "SELECT"), (7, "IF")]


def test_delete_without_from_reads_as_delete_from():
    """T-SQL's FROM after DELETE is optional (`DELETE dbo.t WHERE ...`); sqlglot reads only the form with it."""
    for sql in ("DELETE Application.Cities WHERE CityID = @CityID", "DELETE TOP (5) Application.Cities WHERE CityID = 1"):
        tree = parse_statements(sql)[0].tree
        assert isinstance(tree, exp.Delete) and tree.this is not None and tree.this.name == "Cities", sql
    assert isinstance(parse_statements("DELETE t FROM t JOIN s ON t.a = s.a")[0].tree, exp.Delete)
