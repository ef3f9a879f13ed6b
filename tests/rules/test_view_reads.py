"""QY65 on Northwind: a query reading a view whose translation is marked review is flagged, and so
is one reading a view that reads such a view; a query of the base tables is not.

Northwind's `Order Subtotals` computes money times a real Discount (QY64: single precision on SQL
Server's side); `Sales Totals by Amount` reads it. `compare` shows queries of both as differing
while their own text has nothing to flag (tests/compare/test_compare_corpus.py).
"""

from __future__ import annotations

from paths import CORPUS_SCHEMAS
from rules_pipeline import run_pipeline

from sqlsrv2tidb.options import Options

WORKLOAD = """\
SELECT SaleAmount, CompanyName FROM [Sales Totals by Amount] WHERE OrderID > 10500;
GO
SELECT OrderID, Subtotal FROM dbo.[Order Subtotals] WHERE OrderID = 10248;
GO
SELECT CompanyName FROM Customers WHERE Country = N'Germany';
GO
SELECT s.Subtotal, o.OrderDate FROM Orders o JOIN "Order Subtotals" s ON s.OrderID = o.OrderID;
GO
"""


def test_readers_of_a_reviewed_view_are_flagged(tmp_path):
    workload = tmp_path / "workload.sql"
    workload.write_text(WORKLOAD)
    outcome = run_pipeline([CORPUS_SCHEMAS["northwind"], workload], Options())
    reads = {f"query {q.id}": q.text.split(" FROM ")[1].split(" WHERE ")[0] for q in outcome.capture.workload.queries}
    flagged = {reads[f.object]: f for f in outcome.of("QY65")}
    assert sorted(flagged) == ['Orders o JOIN "Order Subtotals" s ON s.OrderID = o.OrderID', "[Sales Totals by Amount]",
                               "dbo.[Order Subtotals]"], flagged
    assert "view dbo.Order Subtotals: its translation is marked review (QY64)" in flagged["dbo.[Order Subtotals]"].message
    assert "view dbo.Sales Totals by Amount: it reads view dbo.Order Subtotals" in flagged["[Sales Totals by Amount]"].message
    joined = next(f for text, f in flagged.items() if text.startswith("Orders o JOIN"))
    assert joined.details["views"] == ["dbo.Order Subtotals"]
    # The view's own finding says why: QY64 on the view itself.
    assert any(f.rule == "QY64" and f.object == "dbo.Order Subtotals" for f in outcome.findings)
    assert all(f.details["status"] == "translated" for f in flagged.values())  # nothing in their own text
