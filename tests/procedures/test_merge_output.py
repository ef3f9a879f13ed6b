"""MERGE ... OUTPUT through the procedure runner on TiDB: the rows each clause changed, with `$action`.

SQL Server's OUTPUT of a MERGE gives one row per row changed: `inserted` and `deleted` images (NULL where the change
has none) and `$action` INSERT, UPDATE or DELETE; a matched row no clause takes (its condition false) is not changed and
gives no row. The runner reads the matched rows a clause takes before the MERGE and the rows its INSERT adds (its values
for the key over the unmatched source rows, or the IDENTITY numbers it drew) after it. The endpoint has no MERGE
(docs/babelfish.md): the expected rows are SQL Server's documented answer, worked out from the rows below. SQL Server
gives OUTPUT rows in no defined order, so they are compared as sets.
https://learn.microsoft.com/sql/t-sql/statements/merge-transact-sql#output_clause
"""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from procedure_helpers import OnTarget, errors, read_script, sets

SCRIPT = (Path(__file__).resolve().parent / "merge_output_schema.sql").read_text(encoding="utf-8")
ROWS = ["INSERT INTO Product (Sku, Stock) VALUES ('A1', 5), ('B2', 0)",
        "INSERT INTO Price (Sku, Amount) VALUES ('A1', 3.00), ('B2', 4.00), ('C3', 7.00)"]


@pytest.fixture
def shop(tidb, tmp_path):
    capture = read_script(SCRIPT, tmp_path, "merge_output_schema.sql")
    database = tidb.create_database("t_merge_output")
    here = OnTarget(tidb, database, capture)
    conn = tidb.connect(database)
    with conn.cursor() as cur:
        for row in ROWS:
            cur.execute(row)
    conn.close()
    yield here
    here.close()


def test_the_output_of_a_merge_into_a_table_variable_names_each_rows_action(shop):
    result = shop.call("dbo.ReceiveStock", [("A1", 4), ("C3", 7), ("D4", 1)])
    assert not errors(result)
    assert sets(result) == [[("INSERT", 2), ("UPDATE", 1)]]
    # The MERGE on the unique Sku becomes INSERT ... ON DUPLICATE KEY UPDATE, which draws an AUTO_INCREMENT number for
    # the row it updates too: the new rows' numbers are not SQL Server's 3 and 4, so they are found by their Sku.
    products = {sku: (key, stock) for key, sku, stock in shop.rows("SELECT ProductID, Sku, Stock FROM Product")}
    assert {sku: stock for sku, (_, stock) in products.items()} == {"A1": 9, "B2": 0, "C3": 7, "D4": 1}
    assert sorted(shop.rows("SELECT ProductID, Action FROM Changes")) == sorted(
        [(products["A1"][0], "UPDATE"), (products["C3"][0], "INSERT"), (products["D4"][0], "INSERT")])


def test_deleted_and_inserted_images_and_a_match_no_clause_takes(shop):
    """B2 matches with the same amount: neither clause takes it, so it changes and outputs nothing."""
    result = shop.call("dbo.SetPrices", [("A1", 0), ("B2", 4), ("C3", 9), ("E5", 2)])
    assert not errors(result)
    [rows] = sets(result)
    assert sorted(rows, key=str) == sorted([
        ("DELETE", "A1", Decimal("3.00"), None, None),
        ("UPDATE", "C3", Decimal("7.00"), "C3", Decimal("9.00")),
    ], key=str)
    assert shop.rows("SELECT Sku, Amount FROM Price ORDER BY Sku") == [("B2", Decimal("4.00")), ("C3", Decimal("9.00"))]


def test_the_rows_an_insert_adds_are_found_by_the_key_it_gives_them(shop):
    result = shop.call("dbo.AddPrices", [("A1", 3), ("C3", 8), ("E5", 2), ("F6", 1)])
    assert not errors(result)
    [rows] = sets(result)
    assert sorted(rows, key=str) == sorted([
        ("UPDATE", "C3", Decimal("8.00"), Decimal("7.00")),
        ("INSERT", "E5", Decimal("2.00"), None),
        ("INSERT", "F6", Decimal("1.00"), None),
    ], key=str)


def test_a_merge_that_changes_unmatched_target_rows_says_why_its_output_cannot_be_read(tmp_path):
    from sqlsrv2tidb.procedures.catalog import Procedures

    database = read_script(SCRIPT, tmp_path, "merge_output_schema.sql").database
    stops = Procedures(database).summary("dbo.SyncPrices").stops()
    assert "WHEN NOT MATCHED BY SOURCE" in stops, stops
