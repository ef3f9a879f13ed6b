"""The shared corpus of real SQL Server schemas reads without a crash, with the counts the scripts hold.

Each count below was determined from the script itself (see the comments); line numbers are the
ones an editor shows for the original file (UTF-16 and CRLF included).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from paths import CORPUS
from typer.testing import CliRunner

from sqlsrv2tidb import api
from sqlsrv2tidb.capture.scripts import looks_like_schema, read_scripts
from sqlsrv2tidb.capture.textfile import read_text
from sqlsrv2tidb.cli import app
from sqlsrv2tidb.model import DataType, IndexColumn, load_capture
from sqlsrv2tidb.summary import KINDS

NORTHWIND = CORPUS / "northwind" / "instnwnd.sql"
ADVENTUREWORKS = CORPUS / "adventureworks-oltp" / "instawdb.sql"
WWI = CORPUS / "wwi-oltp-ssdt"


class _Ticks:
    def advance(self, n: int = 1) -> None:
        pass

    def update(self, description: str) -> None:
        pass


@pytest.fixture(scope="module")
def northwind():
    return api.read([NORTHWIND])


@pytest.fixture(scope="module")
def adventureworks():
    return api.read([ADVENTUREWORKS])


@pytest.fixture(scope="module")
def wwi():
    # The schema files of the SSDT project as `sources.py` picks them (its INSERT-only data files
    # are workload, read by another reader); read_scripts is what it calls with them.
    files = [read_text(p) for p in sorted(WWI.rglob("*.sql"))]
    return read_scripts([f for f in files if looks_like_schema(f.text)], _Ticks())


def _counts(db) -> dict[str, int]:
    return {
        "tables": len(db.tables), "views": len(db.modules_of("view")), "procedures": len(db.modules_of("procedure")),
        "functions": len(db.modules_of("function")),
        "triggers": len(db.modules_of("trigger")) + len(db.modules_of("ddl_trigger")),
    }


def test_northwind_counts_keys_rows_and_lines(northwind):
    db = northwind.database
    # 13 CREATE TABLE; 16 `create view` and 7 `create procedure` (4 of them at the end of the file).
    assert _counts(db) == {"tables": 13, "views": 16, "procedures": 7, "functions": 0, "triggers": 0}
    assert db.name == "Northwind"
    details = db.table("dbo", "Order Details")
    assert details.primary_key.column_names == ("OrderID", "ProductID") and details.primary_key.clustered
    assert details.scripted_rows == 2155
    orders = db.table(None, "Orders")
    assert orders.scripted_rows == 830 and orders.source.line == 235
    assert orders.column("OrderID").identity is not None
    assert orders.column("Freight").default == "(0)" and orders.column("Freight").default_name == "DF_Orders_Freight"
    # `ALTER TABLE ... NOCHECK CONSTRAINT ALL` around the data, then `CHECK CONSTRAINT ALL` without
    # WITH CHECK: SQL Server re-enables them but no longer trusts them.
    assert all(fk.not_trusted and not fk.disabled for fk in orders.foreign_keys)
    assert db.table(None, "Region").primary_key.clustered is False  # ALTER TABLE ... PRIMARY KEY NONCLUSTERED
    modules = {m.name: m for m in db.modules}
    assert modules["Customer and Suppliers by City"].source.line == 372
    assert modules["Sales by Year"].source.line == 523 and modules["CustOrderHist"].source.line == 9075
    assert modules["Sales by Year"].definition.startswith('create procedure "Sales by Year"')
    assert not northwind.findings


def test_adventureworks_counts(adventureworks):
    db = adventureworks.database
    # The corpus README counts 73 "CREATE TABLE" case-insensitively; two of those are the comments
    # "-- Create table to store database object creation messages" and "-- Create table to store
    # error information" (lines 134 and 202). The script has 71 CREATE TABLE statements.
    assert _counts(db) == {"tables": 71, "views": 20, "procedures": 10, "functions": 11, "triggers": 11}
    assert len(db.modules_of("ddl_trigger")) == 1
    assert db.name == "AdventureWorks"  # from :setvar DatabaseName and CREATE DATABASE $(DatabaseName)
    assert set(db.schemas) == {"dbo", "HumanResources", "Person", "Production", "Purchasing", "Sales"}
    # Every remaining finding is a BULK INSERT whose rows live in CSV files that are not in the script.
    assert {f.rule for f in adventureworks.findings} == {"IN09"} and len(adventureworks.findings) == 68


def test_adventureworks_types_indexes_and_modules(adventureworks):
    db = adventureworks.database
    person = db.table("Person", "Person")
    assert person.source.line == 1215 and person.column("FirstName").source.line == 1220
    assert person.column("FirstName").type == DataType("nvarchar", length=50, alias="dbo.Name")
    assert not person.column("FirstName").nullable and person.column("MiddleName").nullable
    assert person.column("NameStyle").type == DataType("bit", alias="dbo.NameStyle")
    assert person.column("Demographics").type == DataType("xml", xml_schema="Person.IndividualSurveySchemaCollection")
    assert len([u for u in db.user_types if not u.is_table_type]) == 6
    assert db.table("HumanResources", "Employee").column("OrganizationNode").type == DataType("hierarchyid")
    assert db.table("Production", "Document").column("DocumentNode").type == DataType("hierarchyid")
    assert db.table("Sales", "SalesOrderHeader").column("TotalDue").computed.expression == (
        "ISNULL([SubTotal] + [TaxAmt] + [Freight], 0)")
    assert db.table("Person", "Address").column("City").description == "Name of the city."
    fulltext = {t.qualified_name: [c.name for c in i.columns] for t in db.tables for i in t.indexes
                if i.kind == "fulltext"}
    assert fulltext == {"Production.ProductReview": ["Comments"], "HumanResources.JobCandidate": ["Resume"],
                        "Production.Document": ["Document", "DocumentSummary"]}
    xml = [i.name for i in person.indexes if i.kind == "xml"]
    assert xml[:2] == ["PXML_Person_AddContact", "PXML_Person_Demographics"] and len(xml) == 5
    indexed_views = {m.qualified_name: m.indexes[0] for m in db.modules_of("view") if m.indexes}
    assert set(indexed_views) == {"Production.vProductAndDescription", "Person.vStateProvinceCountryRegion"}
    ix = indexed_views["Production.vProductAndDescription"]
    assert ix.unique and ix.clustered and ix.columns == (IndexColumn("CultureID"), IndexColumn("ProductID"))
    assert ix.source.line == 5084
    parents = {m.name: m.parent for m in db.modules_of("trigger")}
    assert parents["iduSalesOrderDetail"] == "Sales.SalesOrderDetail" and parents["dVendor"] == "Purchasing.Vendor"
    assert len(parents) == 10
    ddl = db.modules_of("ddl_trigger")[0]
    assert (ddl.name, ddl.schema, ddl.source.line) == ("ddlDatabaseTriggerLog", None, 148)
    bom = next(m for m in db.modules if m.name == "uspGetBillOfMaterials")
    assert bom.source.line == 5648 and "WITH [BOM_cte]" in bom.definition
    assert next(m for m in db.modules if m.name == "ufnLeadingZeros").is_schema_bound


@pytest.mark.parametrize("name", ["Chinook_SqlServer.sql", "Chinook_SqlServer_AutoIncrementPKs.sql"])
def test_chinook_both_variants(name):
    capture = api.read([CORPUS / "chinook" / name])
    db = capture.database
    assert len(db.tables) == 11 and not capture.findings
    rows = {t.name: t.scripted_rows for t in db.tables}
    assert rows == {"Album": 347, "Artist": 275, "Customer": 59, "Employee": 8, "Genre": 25, "Invoice": 412,
                    "InvoiceLine": 2240, "MediaType": 5, "Playlist": 18, "PlaylistTrack": 8715, "Track": 3503}
    assert db.table("dbo", "PlaylistTrack").primary_key.column_names == ("PlaylistId", "TrackId")
    identity_tables = sum(1 for t in db.tables if any(c.identity for c in t.columns))
    assert identity_tables == (10 if "AutoIncrement" in name else 0)
    assert len([fk for t in db.tables for fk in t.foreign_keys]) == 11


def test_wwi_counts(wwi):
    db, findings = wwi
    # 54 table files: 37 tables plus the 17 *_Archive history tables that their SYSTEM_VERSIONING
    # names. The corpus README's 67 also counts CREATE TABLE inside procedure bodies (temp tables and
    # the dynamic SQL of the Configuration_* procedures), which are not part of the schema.
    assert len(db.tables) == 54
    history = [t for t in db.tables if t.is_history_table]
    temporal = [t for t in db.tables if t.temporal]
    assert len(history) == 17 and len(temporal) == 17
    assert {f"{t.temporal.history_schema}.{t.temporal.history_table}" for t in temporal} == {
        t.qualified_name for t in history}
    assert len(db.sequences) == 26
    # 136 procedures: 135 files under "Stored Procedures" plus DataLoadSimulation/Functions/
    # GetBogativePhoneNumber.sql, which is a procedure; 11 functions; 26 views; 4 table types.
    assert _counts(db) == {"tables": 54, "views": 26, "procedures": 136, "functions": 11, "triggers": 0}
    assert sorted(u.name for u in db.user_types if u.is_table_type) == [
        "OrderIDList", "OrderLineList", "OrderList", "SensorDataList"]
    # What remains is informational (procedures called by the post-deployment script, rows it copies
    # with INSERT ... SELECT, the security policy) and $(DatabaseName), which the .sqlproj defines.
    assert {f.rule for f in findings} == {"IN04", "IN09", "IN12", "IN13"}


def test_wwi_defaults_temporal_memory_optimized_partitions_and_columnstore(wwi):
    db, _ = wwi
    next_value = [(t.name, c.name) for t in db.tables for c in t.columns
                  if c.default and c.default.startswith("(NEXT VALUE FOR [Sequences].")]
    assert len(next_value) == 28 and ("InvoiceLines", "InvoiceLineID") in next_value
    line_id = db.table("Sales", "InvoiceLines").column("InvoiceLineID")
    assert line_id.default == "(NEXT VALUE FOR [Sequences].[InvoiceLineID])" and line_id.source.line == 2
    assert line_id.description == "Numeric ID used for reference to a line on an invoice within the database"
    cities = db.table("Application", "Cities")
    assert (cities.temporal.period_start, cities.temporal.period_end) == ("ValidFrom", "ValidTo")
    assert cities.temporal.history_table == "Cities_Archive"
    memory = {t.qualified_name: t.durability for t in db.tables if t.memory_optimized}
    assert memory == {"Warehouse.ColdRoomTemperatures": "schema_and_data",
                      "Warehouse.VehicleTemperatures": "schema_and_data",
                      "DataLoadSimulation.ColdRoomTemperatures_temp": "schema_only"}
    partitioned = {t.qualified_name: (t.partitioning.scheme, t.partitioning.column) for t in db.tables
                   if t.partitioning}
    assert partitioned == {"Sales.CustomerTransactions": ("PS_TransactionDate", "TransactionDate"),
                           "Purchasing.SupplierTransactions": ("PS_TransactionDate", "TransactionDate")}
    assert [s.name for s in db.partition_schemes] == ["PS_TransactionDate", "PS_TransactionDateTime"]
    assert db.partition_functions[0].range_right and len(db.partition_functions[0].boundaries) == 4
    columnstore = {(t.name, i.name, i.clustered) for t in db.tables for i in t.indexes if i.kind == "columnstore"}
    assert columnstore == {("Logs", "CCX_Application_Logs", True), ("InvoiceLines", "NCCX_Sales_InvoiceLines", False),
                           ("OrderLines", "NCCX_Sales_OrderLines", False),
                           ("StockItemTransactions", "CCX_Warehouse_StockItemTransactions", True)}
    nccx = next(i for i in db.table("Sales", "InvoiceLines").indexes if i.name == "NCCX_Sales_InvoiceLines")
    assert nccx.source.line == 39
    native = sorted(m.name for m in db.modules if m.native_compilation)
    assert native == ["PopulateColdRoomTemperatures_temp", "RecordColdRoomTemperatures"]
    assert db.table("Sales", "InvoiceLines").description == "Detail lines from customer invoices"


def test_schema_command_prints_the_summary_and_json_reads_back_equal(tmp_path: Path):
    out = tmp_path / "aw.json"
    result = CliRunner().invoke(app, ["schema", str(ADVENTUREWORKS), "--json", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "database: AdventureWorks" and lines[-1] == "findings while reading: 68 info"
    kinds = [k for k in KINDS if k in lines[1]]
    total = dict(zip(kinds, next(x for x in lines if x.startswith("total")).split()[1:], strict=True))
    assert (total["tables"], total["views"], total["procedures"], total["functions"], total["triggers"]) == (
        "71", "20", "10", "11", "11")
    assert any(line.startswith("Person ") for line in lines)
    assert load_capture(out) == api.read([ADVENTUREWORKS])
    assert json.loads(out.read_text(encoding="utf-8"))["database"]["name"] == "AdventureWorks"
