"""`data copy --create-tables` creates the plan's views after the load, on real MariaDB and TiDB.

Northwind's views come from the SQL Server endpoint's own catalog, translated by the planner; each
test reads the views back on the target and on the endpoint. A view the target refuses is made the
plain way, by loading only some tables (`--table`), so its tables are missing; nothing is simulated.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from data_helpers import copy_args, data, document, loaded, target_rows
from typer.testing import CliRunner

from sqlsrv2tidb.cli import app

NORTHWIND_VIEWS = 16
"""Northwind's views (instnwnd.sql): every one is translated."""

PRODUCT_VIEWS = {"alphabetical list of products", "current product list", "products above average price",
                 "products by category"}
"""The views that read only Categories and Products."""


def _target_views(target, database: str) -> set[str]:
    return {str(r[0]).casefold() for r in target_rows(
        target, database, "SELECT table_name FROM information_schema.views WHERE table_schema = DATABASE()")}


def _same(rows) -> list[tuple]:
    """Rows as comparable tuples: money as Decimal with its four digits on both sides, text as it is."""
    return sorted(tuple(Decimal(v).quantize(Decimal("0.0001")) if isinstance(v, (Decimal, float)) else v for v in r)
                  for r in rows)


@pytest.mark.slow
def test_northwind_views_are_created_after_the_load_and_read_the_same_rows(target, target_database, northwind,
                                                                           tmp_path):
    out = tmp_path / "out"
    doc = loaded(*copy_args(northwind, target, target_database, out, "--create-tables", "--jobs", "3"))
    assert northwind.rows("SELECT COUNT(*) FROM sys.views")[0][0] == NORTHWIND_VIEWS
    views = doc["views"]
    assert len(views["created"]) == doc["summary"]["views_created"] == NORTHWIND_VIEWS, views
    assert not views["not_created"] and not views["not_translated"] and not views["already_there"]
    assert doc["summary"]["views_not_created"] == 0 and not any(f["rule"] == "DA09" for f in doc["findings"])
    assert _target_views(target, target_database) == {v.casefold() for v in views["created"]}
    # A view that reads another view ("Category Sales for 1997" reads "Product Sales for 1997") came after it.
    assert views["created"].index("product sales for 1997") < views["created"].index("category sales for 1997")
    # Every view returns as many rows on the target as on SQL Server.
    for view in views["created"]:
        on_target = target_rows(target, target_database, f"SELECT COUNT(*) FROM `{view}`")[0][0]
        assert on_target == northwind.rows(f"SELECT COUNT(*) FROM [dbo].[{view}]")[0][0], view
    # And simple ones return the same rows.
    for view, columns in (("current product list", "ProductID, ProductName"),
                          ("products above average price", "ProductName, UnitPrice")):
        source = northwind.rows(f"SELECT {columns} FROM [dbo].[{view}]")
        on_target = target_rows(target, target_database, f"SELECT {columns} FROM `{view}`")
        assert source and _same(on_target) == _same(source), view
    # The checkpoint keeps them: running the same command again creates none again and still succeeds.
    again = loaded(*copy_args(northwind, target, target_database, out, "--create-tables"))
    assert again["views"] == views and not any(f["rule"] == "DA09" for f in again["findings"])
    # A new load into the same target (its own -o folder) finds them there and leaves them as they are.
    fresh = loaded(*copy_args(northwind, target, target_database, tmp_path / "fresh", "--create-tables", "--truncate",
                              "--table", "shippers"))
    assert sorted(fresh["views"]["already_there"]) == sorted(views["created"]) and not fresh["views"]["created"]


@pytest.mark.slow
def test_a_view_whose_table_is_not_loaded_is_noted_and_the_rest_created(target, target_database, northwind, tmp_path):
    """DA09: only Categories and Products loaded: their four views are created, the other twelve are each
    skipped with the target's message naming the missing table; a later load of the rest creates them."""
    with target.connect(target_database) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE `orders qry` (id int)")  # a table where a view of the plan would go
    out = tmp_path / "out"
    assessed = CliRunner().invoke(app, ["assess", str(northwind.capture), "-o", str(out), "-q"])
    assert assessed.exit_code == 0, assessed.output
    first = data(*copy_args(northwind, target, target_database, out, "--create-tables", "--table", "categories",
                            "--table", "products"))
    assert first.exit_code == 0, first.output  # the default --fail-on never: views do not fail the load
    doc = document(out)
    views = doc["views"]
    assert set(views["created"]) == PRODUCT_VIEWS and doc["summary"]["views_created"] == 4
    refused = {v["view"]: v["reason"] for v in views["not_created"]}
    assert len(refused) == doc["summary"]["views_not_created"] == NORTHWIND_VIEWS - 4, refused
    assert refused["orders qry"] == "the target has a table of that name"
    assert "doesn't exist" in refused["invoices"] and "1146" in refused["invoices"], refused["invoices"]
    assert "order details" in refused["order subtotals"], refused["order subtotals"]
    # A view that reads a view refused before it says so.
    assert "product sales for 1997 is a view of the plan the target refused" in refused["category sales for 1997"]
    found = [f for f in doc["findings"] if f["rule"] == "DA09"]
    assert len(found) == NORTHWIND_VIEWS - 4 and all(f["severity"] == "medium" for f in found)
    assert {f["object"].casefold() for f in found} == {f"dbo.{v}" for v in refused}
    notes = [n for n in doc["notes"] if n.startswith("view ")]
    assert len(notes) == NORTHWIND_VIEWS - 4 and all("\n" not in n and " not created: " in n for n in notes)
    assert _target_views(target, target_database) == PRODUCT_VIEWS
    # The report's data section says so, and names each view with the target's reason.
    rendered = CliRunner().invoke(app, ["report", str(out), "-q"])
    assert rendered.exit_code == 0, rendered.output
    section = (out / "report.html").read_text(encoding="utf-8").split('<section id="data"', 1)[1].split("</section>")[0]
    assert "4 created, 12 not created (see the notes)" in section
    assert "view invoices (dbo.invoices) not created: Table" in section
    assert target_rows(target, target_database, "SELECT COUNT(*) FROM `current product list`")[0][0] == \
        northwind.rows("SELECT COUNT(*) FROM [dbo].[Current Product List]")[0][0]
    # Run again (the checkpoint is resumed) with --fail-on medium: the four are not created again, the
    # others are tried again and refused again, so the run says so in its exit code.
    again = data(*copy_args(northwind, target, target_database, out, "--create-tables", "--table", "categories",
                            "--table", "products", "--fail-on", "medium"))
    assert again.exit_code == 1, again.output
    assert document(out)["views"] == views
    # Loading the other tables creates the views that were missing; the four already there are left alone.
    with target.connect(target_database) as conn, conn.cursor() as cur:
        cur.execute("DROP TABLE `orders qry`")
    rest = loaded(*copy_args(northwind, target, target_database, tmp_path / "rest", "--create-tables", "--truncate"))
    assert set(rest["views"]["created"]) == set(refused) and set(rest["views"]["already_there"]) == PRODUCT_VIEWS
    assert not rest["views"]["not_created"] and not any(f["rule"] == "DA09" for f in rest["findings"])
    assert len(_target_views(target, target_database)) == NORTHWIND_VIEWS


@pytest.mark.slow
def test_without_create_tables_no_view_is_created(mariadb, database, northwind, tmp_path):
    made = loaded(*copy_args(northwind, mariadb, database, tmp_path / "made", "--create-tables", "--table", "region"))
    assert made["views"]["created"] == [] and len(made["views"]["not_created"]) == NORTHWIND_VIEWS
    with mariadb.connect(database) as conn, conn.cursor() as cur:
        cur.execute("DELETE FROM region")
    doc = loaded(*copy_args(northwind, mariadb, database, tmp_path / "out", "--table", "region"))
    assert doc["views"] is None and doc["summary"]["views_created"] == 0
    assert not any(n.startswith("view ") for n in doc["notes"]) and not _target_views(mariadb, database)
