"""`shape_of`: which output columns a read query orders by, whether that order is total, and why a
query's answers cannot be compared at all — over golden pairs, Stack Exchange Data Explorer queries
and small statements against the golden schema."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "translate"))
from translate_golden import golden_capture, read_cases  # noqa: E402
from translate_sede import sede_database, sede_queries  # noqa: E402

from sqlsrv2tidb.compare.shape import Shape, shape_of  # noqa: E402

GOLDEN = {case.id: case.source for case in read_cases()}
SEDE = {query.id: query.sql for query in sede_queries()}


@pytest.fixture(scope="module")
def golden_db():
    return golden_capture().database


# Order ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("tsql, positions", [
    ("SELECT id, qty FROM dbo.orders", None),
    ("SELECT id, qty FROM dbo.orders ORDER BY qty DESC, 1", (1, 0)),
    ("SELECT o.id AS n, o.qty FROM dbo.orders o ORDER BY n", (0,)),  # an output alias
    ("SELECT o.id, o.qty FROM dbo.orders o ORDER BY qty", (1,)),  # a column the list returns, qualified there
    ("SELECT YEAR(ordered_at) AS y, id FROM dbo.orders ORDER BY YEAR(ordered_at), id", (0, 1)),  # the same expression
    ("SELECT id FROM dbo.orders ORDER BY status, id", ()),  # first key not returned: nothing visible orders the rows
    ("SELECT id, status FROM dbo.orders ORDER BY status, qty, id", (1,)),  # stops at qty: rows tie on status only
    ("SELECT * FROM dbo.orders ORDER BY status, id", (2, 0)),  # * spelled out from the schema
    ("SELECT id FROM dbo.orders UNION SELECT customer_id FROM dbo.orders ORDER BY id", (0,)),  # a union's ORDER BY
    ("WITH t AS (SELECT TOP 3 id, qty FROM dbo.orders ORDER BY id) SELECT qty FROM t", None),  # inner order only
])
def test_order_positions(golden_db, tsql, positions):
    assert shape_of(tsql, golden_db).order_positions == positions


def test_a_star_over_an_unknown_table_orders_only_by_position():
    assert shape_of("SELECT * FROM nowhere ORDER BY 2, x", None) == Shape((1,), False, None, None)


# Total order -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("tsql, total", [
    ("SELECT id, qty FROM dbo.orders ORDER BY qty", False),
    ("SELECT qty FROM dbo.orders ORDER BY qty, id", True),  # the primary key, though not returned
    ("SELECT o.qty FROM dbo.orders AS o ORDER BY o.qty, o.id", True),
    ("SELECT line_no, qty FROM dbo.order_lines ORDER BY line_no, product_id", False),
    ("SELECT line_no, qty FROM dbo.order_lines ORDER BY line_no, order_id", True),  # a two-column primary key
    ("SELECT id AS x FROM dbo.orders ORDER BY x", True),  # through an alias
    ("SELECT qty, status FROM dbo.orders ORDER BY status, qty", True),  # every output column
    ("SELECT status, COUNT(*) AS n FROM dbo.orders GROUP BY status ORDER BY n", False),
    ("SELECT status, COUNT(*) AS n FROM dbo.orders GROUP BY status ORDER BY status", True),  # the GROUP BY keys
    ("SELECT o.qty, c.email FROM dbo.orders o JOIN dbo.customers c ON c.id = o.customer_id ORDER BY o.qty, o.id", False),  # a join
    ("SELECT qty, status FROM (SELECT id, qty, status FROM dbo.orders) d ORDER BY qty, id", False),  # a derived table
])
def test_total_order(golden_db, tsql, total):
    assert shape_of(tsql, golden_db).total_order is total


def test_a_unique_constraint_counts_and_without_the_schema_nothing_is_total(golden_db):
    assert shape_of("SELECT first_name FROM dbo.customers ORDER BY email", golden_db).total_order  # UQ_customers_email
    assert not shape_of("SELECT first_name FROM dbo.customers ORDER BY last_name", golden_db).total_order
    assert not shape_of("SELECT qty, status FROM dbo.orders ORDER BY qty, id", None).total_order


# Not comparable --------------------------------------------------------------------------------------


@pytest.mark.parametrize("tsql, reason", [
    ("SELECT id, NEWID() FROM dbo.orders", "NEWID()"),
    ("SELECT id FROM dbo.orders WHERE ordered_at < GETDATE()", "GETDATE()"),
    ("SELECT RAND()", "RAND()"),
    ("SELECT CURRENT_TIMESTAMP", "CURRENT_TIMESTAMP"),
    ("SELECT SYSDATETIMEOFFSET()", "SYSDATETIMEOFFSET()"),
    ("SELECT CRYPT_GEN_RANDOM(4)", "CRYPT_GEN_RANDOM()"),
    ("SELECT @@SPID", "@@SPID"),
    ("SELECT HOST_NAME()", "HOST_NAME()"),
    ("SELECT NEXT VALUE FOR dbo.order_numbers AS n", "NEXT VALUE FOR"),
    ("SELECT TOP 3 id FROM dbo.orders ORDER BY qty", "TOP without a total order"),
    ("SELECT id FROM (SELECT TOP 3 id FROM dbo.orders ORDER BY NEWID()) d", "TOP ordered by a random value"),
    ("SELECT id FROM dbo.orders ORDER BY qty OFFSET 2 ROWS FETCH NEXT 2 ROWS ONLY", "OFFSET ... FETCH without a total order"),
    ("SELECT id FROM dbo.orders WHERE id IN (SELECT TOP 2 id FROM dbo.orders)", "TOP without ORDER BY"),
    ("SELECT id FROM dbo.orders TABLESAMPLE (10 PERCENT)", "TABLESAMPLE"),
    ("SELECT name FROM sys.tables", "catalog"),
    ("SELECT id, ROW_NUMBER() OVER (ORDER BY qty) FROM dbo.orders", "ROW_NUMBER() over an ORDER BY that is not unique"),
    ("SELECT id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY qty) AS rn FROM dbo.orders) d "
     "WHERE rn = 1", "ROW_NUMBER()"),
    ("SELECT id, LAG(qty) OVER (ORDER BY status) FROM dbo.orders", "LAG()"),
    ("SELECT id INTO dbo.copy FROM dbo.orders", "writes"),
    ("SELECT id INTO #copy FROM dbo.orders", "no query in it (it only sets variables or makes temp tables)"),
    ("SELECT id, NEWID() AS k INTO #copy FROM dbo.orders; SELECT id FROM #copy", "NEWID()"),
    ("INSERT INTO dbo.orders SELECT * FROM #copy; SELECT id FROM #copy", "INSERT"),
    ("UPDATE dbo.orders SET qty = 1", "UPDATE"),
    ("SELECT 1; SELECT 2", "2 result sets"),
    ("SELECT FROM WHERE", "cannot read"),
])
def test_not_comparable_says_why(golden_db, tsql, reason):
    said = shape_of(tsql, golden_db).not_comparable
    assert said is not None and reason in said, said
    assert "\n" not in said


@pytest.mark.parametrize("tsql", [
    "SELECT TOP 3 id FROM dbo.orders ORDER BY id",
    "SELECT TOP 3 WITH TIES id FROM dbo.orders ORDER BY qty",  # every tie is returned: the rows are fixed
    "SELECT TOP 3 id, qty FROM dbo.orders ORDER BY qty",  # the tie group TOP cuts is compared with the whole of it
    "SELECT TOP 3 id FROM dbo.orders",  # every row ties: any three of them
    "SELECT TOP 1 COUNT(*) FROM dbo.orders",  # one row
    "SELECT id FROM dbo.orders ORDER BY NEWID()",  # the order is random, the rows are not
    "SELECT id FROM dbo.orders ORDER BY qty, id OFFSET 2 ROWS FETCH NEXT 2 ROWS ONLY",
    "(@P1 int)SELECT id FROM dbo.orders WHERE qty > @P1",
    "SELECT id, ROW_NUMBER() OVER (PARTITION BY status ORDER BY qty, id) FROM dbo.orders",  # the primary key breaks ties
    "SELECT id, RANK() OVER (ORDER BY qty), SUM(qty) OVER (PARTITION BY status) FROM dbo.orders",  # ties share a value
    "DECLARE @last INT; SELECT @last = id FROM dbo.orders ORDER BY id; SELECT @last",  # one result set
])
def test_comparable(golden_db, tsql):
    assert shape_of(tsql, golden_db).not_comparable is None


# Real statements -------------------------------------------------------------------------------------


def test_golden_pairs(golden_db):
    top = shape_of(GOLDEN["002"], golden_db)  # TOP 10 id, amount ... ORDER BY amount DESC
    assert top.not_comparable is None and top.cut.whole_sql == "SELECT   id, amount FROM dbo.orders ORDER BY amount DESC"
    assert shape_of(GOLDEN["004"], golden_db) == Shape((0,), True, None, 1)  # TOP (@P1) id ... ORDER BY id
    assert shape_of(GOLDEN["130"], golden_db) == Shape((1,), False, None, 2)  # TOP 1 WITH TIES ... ORDER BY status
    assert shape_of(GOLDEN["129"], golden_db).cut.limit == "TOP ... PERCENT"  # TOP 50 PERCENT by amount
    assert "inside the query" in shape_of(GOLDEN["142"], golden_db).not_comparable  # inside CROSS APPLY
    assert "GETUTCDATE()" in shape_of(GOLDEN["068"], golden_db).not_comparable
    assert shape_of(GOLDEN["188"], golden_db) == Shape((0,), True, None, 1)  # DECLARE @n; SELECT TOP (@n) ... ORDER BY id
    assert "control flow" in shape_of(GOLDEN["218"], golden_db).not_comparable  # WHILE
    assert "NEXT VALUE FOR" in shape_of(GOLDEN["026"], golden_db).not_comparable  # a sequence advances on every run


def test_stack_exchange_queries():
    db = sede_database()
    top = shape_of(SEDE[133094], db)  # TOP 100 Id, DisplayName, Reputation, Location ... ORDER BY Reputation DESC
    assert top.order_positions == (2,) and not top.total_order and top.not_comparable is None
    assert top.cut.whole_sql.startswith("SELECT    Id, DisplayName, Reputation, Location From Users")
    grouped = shape_of(SEDE[454749], db)  # GROUP BY hours_to_first_answer ORDER BY hours_to_first_answer
    assert grouped.order_positions == (0,) and grouped.total_order and grouped.not_comparable is None
    # NTILE(100) OVER (ORDER BY Reputation DESC) in a CTE the query reads only the tile and Reputation of
    assert shape_of(SEDE[50381], db).not_comparable is None
    assert "NTILE()" in shape_of(SEDE[87944], db).not_comparable  # ... and DisplayName of the rows in the first tiles
    hidden = shape_of(SEDE[290225], db)  # ORDER BY YEAR(...), MONTH(...) while the list has CONCAT of them
    assert hidden.order_positions == () and hidden.total_order


_MOMENT_TEXT = re.compile(r"\b(NEWID|GETDATE|SYSDATETIME|GETUTCDATE|RAND)\s*\(", re.I)


@pytest.mark.parametrize("corpus", ["golden", "sede"])
def test_every_corpus_statement_has_a_shape_within_its_columns(golden_db, corpus):
    statements, db = (GOLDEN, golden_db) if corpus == "golden" else (SEDE, sede_database())
    counted = {"ordered": 0, "total": 0, "not comparable": 0}
    for key, tsql in statements.items():
        shape = shape_of(tsql, db)
        if shape.order_positions is not None:
            counted["ordered"] += 1
            assert shape.output_columns is None or all(0 <= p < shape.output_columns for p in shape.order_positions), key
        counted["total"] += shape.total_order
        counted["not comparable"] += shape.not_comparable is not None
        code = re.sub(r"--[^\n]*|/\*.*?\*/|'[^']*'", "", tsql, flags=re.S)
        picks_any = shape.cut is not None and not shape.order_positions  # TOP ... ORDER BY NEWID(): any rows
        if _MOMENT_TEXT.search(code) and shape.not_comparable is None and not picks_any:
            pytest.fail(f"{corpus} {key} calls a function of the moment but is comparable: {tsql[:200]}")
    assert all(counted.values()), counted
