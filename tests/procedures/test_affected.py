"""How the rows a statement changes are read (`procedures/affected.py`), derived from the T-SQL when its batch is
compiled: the reads the target runs (translated, binding the same variables) and the keys SQL Server is asked for.
These run on no server: the reads are run on the real ones by tests/compare/test_compare_writes.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from sqlsrv2tidb import api
from sqlsrv2tidb.model import Parameter
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.procedures import program as p
from sqlsrv2tidb.procedures.compiler import _walk, compile_batch
from sqlsrv2tidb.translate.naming import NameMap

SCHEMA = Path(__file__).resolve().parents[1] / "compare" / "writes" / "schema.sql"


@pytest.fixture(scope="module")
def database():
    return api.read([SCHEMA]).database


def _plans(database, text: str, parameters=()):
    program = compile_batch(text, tuple(parameters), database, NameMap.for_database(database), Options())
    assert not program.blockers, program.blockers
    return [s.changes for s in _walk(program.body) if isinstance(s, p.Run) and s.changes is not None]


def test_an_update_reads_its_rows_by_its_own_where(database):
    [plan] = _plans(database, "UPDATE dbo.titles SET price = price * 2 WHERE title_id = @t", [Parameter("@t", "varchar(6)")])
    assert plan.kind == "update" and plan.table.key == ("title_id",) and plan.table.target == "`titles`"
    [before] = plan.before
    assert before.sql.startswith("SELECT `titles`.`title_id`, `titles`.`title`") and "WHERE title_id = ?" in before.sql
    assert before.parameters == ("@t",)
    assert plan.before_tsql == "SELECT [titles].[title_id] FROM dbo.titles WHERE title_id = @t"
    assert plan.set_columns == ("price",) and not plan.generated and plan.unknown is None


def test_an_update_from_a_join_reads_the_rows_of_the_table_it_names_by_alias(database):
    [plan] = _plans(database, "UPDATE o SET qty = 1 FROM dbo.orders o JOIN dbo.titles t ON t.title_id = o.title_id "
                              "WHERE t.royalty > 5")
    assert plan.table.qualified_name == "dbo.orders"
    assert plan.before_tsql.startswith("SELECT DISTINCT [o].[order_id] FROM dbo.orders AS o JOIN dbo.titles AS t")


def test_an_update_whose_from_does_not_name_its_table_reads_it_joined_as_t_sql_joins_it(database):
    """`UPDATE dbo.titles SET ... FROM other WHERE dbo.titles.x = other.y`: T-SQL joins the table to the FROM."""
    [plan] = _plans(database, "UPDATE dbo.titles SET ytd_sales = o.qty FROM dbo.orders AS o "
                              "WHERE dbo.titles.title_id = o.title_id")
    assert plan.unknown is None and plan.table.qualified_name == "dbo.titles"
    assert plan.before_tsql.startswith("SELECT DISTINCT [titles].[title_id] FROM dbo.titles, dbo.orders AS o WHERE "), \
        plan.before_tsql


def test_an_update_of_the_key_reads_the_key_it_gives(database):
    [plan] = _plans(database, "UPDATE dbo.authors SET au_id = '999-99-9999' WHERE au_id = '172-32-1176'")
    assert plan.new_key_columns == ("au_id",)
    assert "'999-99-9999' AS `sqlsrv2tidb_new_au_id`" in plan.before[0].sql


def test_an_insert_of_values_reads_the_keys_it_gives(database):
    [plan] = _plans(database, "INSERT INTO dbo.order_lines (order_id, line, note) VALUES (@o, 1, 'a'), (@o, 2, 'b')",
                    [Parameter("@o", "int")])
    assert plan.kind == "insert" and plan.table.key == ("order_id", "line") and not plan.before
    assert plan.new_keys[0].parameters == ("@o", "@o")
    assert plan.new_keys_tsql == ("SELECT * FROM (SELECT @o AS [k0], 1 AS [k1] UNION ALL SELECT @o AS [k0], 2 AS [k1]) "
                                  "AS v")


def test_an_insert_that_the_identity_numbers_reads_its_rows_from_last_insert_id(database):
    [plan] = _plans(database, "INSERT INTO dbo.orders (title_id, qty, ordered) VALUES ('BU1032', 1, '2024-01-01')")
    assert plan.generated and plan.table.identity == "order_id" and not plan.new_keys


def test_an_insert_of_a_select_reads_the_keys_its_select_gives(database):
    [plan] = _plans(database, "INSERT INTO dbo.authors (au_id, au_lname, contract) SELECT title_id, title, 1 "
                              "FROM dbo.titles WHERE price > 10")
    assert plan.new_keys_tsql == ('SELECT [v].[c0] FROM (SELECT title_id AS [c0], title AS [c1], 1 AS [c2] '
                                  'FROM dbo.titles WHERE price > 10) AS v')


def test_a_statement_keeps_its_with(database):
    [plan] = _plans(database, "WITH cheap AS (SELECT title_id FROM dbo.titles WHERE price < 15) "
                              "DELETE o FROM dbo.orders o JOIN cheap c ON c.title_id = o.title_id")
    assert plan.kind == "delete" and plan.before[0].sql.startswith("WITH cheap AS (")
    assert plan.before_tsql.startswith("WITH cheap AS (SELECT title_id AS title_id FROM dbo.titles WHERE price < 15) "
                                       "SELECT DISTINCT [o].[order_id] FROM dbo.orders AS o JOIN cheap AS c")


def test_a_temp_table_and_a_table_variable_are_no_change_of_the_schema(database):
    assert _plans(database, "CREATE TABLE #t (a int); INSERT INTO #t VALUES (1); UPDATE #t SET a = 2") == []
    assert _plans(database, "DECLARE @t TABLE (a int); INSERT INTO @t VALUES (1)") == []


def test_what_cannot_be_derived_says_why(database):
    [top] = _plans(database, "DELETE TOP (1) FROM dbo.orders WHERE qty > 1")
    assert top.unknown and "TOP" in top.unknown
    [partial] = _plans(database, "INSERT INTO dbo.order_lines (line, note) VALUES (1, 'x')")
    assert partial.unknown == "the INSERT gives no value for order_id, the key of dbo.order_lines"


def test_a_trigger_is_compiled_with_inserted_and_deleted_as_its_own_temporary_tables(database):
    from sqlsrv2tidb.procedures.catalog import Procedures

    [trigger] = Procedures(database).triggers_on("dbo.titles")
    assert trigger.runs and trigger.timing == "after" and trigger.actions == frozenset({"update"})
    assert trigger.inserted[0].sql.startswith(f"CREATE TEMPORARY TABLE {trigger.inserted_name} (")
    sent = " ".join(s.sql for step in _walk(trigger.program.body) for s in getattr(step, "statements", ()))
    assert f"FROM {trigger.inserted_name} AS i JOIN {trigger.deleted_name} AS d" in sent
    assert trigger.what_it_does() == "AFTER UPDATE on dbo.titles: INSERT dbo.audit_log"
    [refusing] = Procedures(database).triggers_on("dbo.order_lines")
    assert refusing.actions == frozenset({"insert", "update"}) and refusing.runs
