"""QY65: a query reading a view whose translation is marked review is flagged, and so is one reading a
view that reads such a view; a query of the base tables is not.

`order_rates` divides by a quantity that may be 0 (QY61: SQL Server fails the query, TiDB returns
NULL); `rate_summary` reads it. `compare` shows queries of such views differing while their own text
has nothing to flag.
"""

from __future__ import annotations

from rules_pipeline import run_pipeline

from sqlsrv2tidb.options import Options

SCHEMA = """\
CREATE TABLE dbo.Orders (OrderID INT NOT NULL PRIMARY KEY, Amount MONEY NOT NULL, Quantity SMALLINT NOT NULL,
    Country NVARCHAR(20) NULL);
GO
CREATE VIEW dbo.[Order Rates] AS SELECT OrderID, Amount / Quantity AS Rate FROM dbo.Orders;
GO
CREATE VIEW dbo.[Rate Summary] AS SELECT r.OrderID, r.Rate FROM dbo.[Order Rates] r WHERE r.Rate > 10;
GO
"""

WORKLOAD = """\
SELECT OrderID, Rate FROM [Rate Summary] WHERE OrderID > 10500;
GO
SELECT OrderID, Rate FROM dbo.[Order Rates] WHERE OrderID = 10248;
GO
SELECT OrderID FROM Orders WHERE Country = N'Germany';
GO
SELECT s.Rate, o.Country FROM Orders o JOIN "Order Rates" s ON s.OrderID = o.OrderID;
GO
"""


def test_readers_of_a_reviewed_view_are_flagged(tmp_path):
    schema, workload = tmp_path / "schema.sql", tmp_path / "workload.sql"
    schema.write_text(SCHEMA)
    workload.write_text(WORKLOAD)
    outcome = run_pipeline([schema, workload], Options())
    reads = {f"query {q.id}": q.text.split(" FROM ")[1].split(" WHERE ")[0] for q in outcome.capture.workload.queries}
    flagged = {reads[f.object]: f for f in outcome.of("QY65")}
    assert sorted(flagged) == ['Orders o JOIN "Order Rates" s ON s.OrderID = o.OrderID', "[Rate Summary]",
                               "dbo.[Order Rates]"], flagged
    assert "view dbo.Order Rates: its translation is marked review (QY61)" in flagged["dbo.[Order Rates]"].message
    assert "view dbo.Rate Summary: it reads view dbo.Order Rates" in flagged["[Rate Summary]"].message
    joined = next(f for text, f in flagged.items() if text.startswith("Orders o JOIN"))
    assert joined.details["views"] == ["dbo.Order Rates"]
    # The view's own finding says why: QY61 on the view itself.
    assert any(f.rule == "QY61" and f.object == "dbo.Order Rates" for f in outcome.findings)
    assert all(f.details["status"] == "translated" for f in flagged.values())  # nothing in their own text
