"""SSDT projects: one object per file, any depth, any order, read through the same path as the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from sqlsrv2tidb import api
from sqlsrv2tidb.capture.scripts import included_files, read_scripts
from sqlsrv2tidb.capture.textfile import read_text
from sqlsrv2tidb.errors import InputError
from sqlsrv2tidb.model import DataType

# File names are chosen so that the folder walk (sorted) meets every dependent object first.
PROJECT = {
    "Application/Tables/A_Orders_Keys.sql": """\
ALTER TABLE [Sales].[Orders] WITH NOCHECK
    ADD CONSTRAINT [FK_Orders_Customers] FOREIGN KEY ([CustomerID]) REFERENCES [Sales].[Customers] ([CustomerID]);
GO
CREATE NONCLUSTERED INDEX [IX_Orders_CustomerID] ON [Sales].[Orders]([CustomerID] ASC);
GO
EXECUTE sp_addextendedproperty @name = N'MS_Description', @value = N'Orders placed by customers',
    @level0type = N'SCHEMA', @level0name = N'Sales', @level1type = N'TABLE', @level1name = N'Orders';
""",
    "Sales/Tables/Customers.sql": """\
CREATE TABLE [Sales].[Customers] (
    [CustomerID] INT CONSTRAINT [DF_Sales_Customers_CustomerID] DEFAULT (NEXT VALUE FOR [Sequences].[CustomerID]) NOT NULL,
    [Name]       [dbo].[Name] NOT NULL,
    CONSTRAINT [PK_Sales_Customers] PRIMARY KEY CLUSTERED ([CustomerID] ASC)
);
""",
    "Sales/Tables/Orders.sql": """\
CREATE TABLE [Sales].[Orders] (
    [OrderID]    INT NOT NULL,
    [CustomerID] INT NOT NULL,
    CONSTRAINT [PK_Sales_Orders] PRIMARY KEY CLUSTERED ([OrderID] ASC)
);
""",
    "Security/Sales.sql": "CREATE SCHEMA [Sales]\n    AUTHORIZATION [dbo];\n",
    "Security/Sequences.sql": "CREATE SCHEMA [Sequences]\n    AUTHORIZATION [dbo];\n",
    "Sequences/Sequences/CustomerID.sql": "CREATE SEQUENCE [Sequences].[CustomerID]\n    AS INT\n    START WITH 1\n    INCREMENT BY 1;\n",
    "dbo/User Defined Types/Name.sql": "CREATE TYPE [dbo].[Name]\n    FROM NVARCHAR (50) NULL;\n",
    "PostDeploymentScripts/Script.PostDeployment.sql": ":r .\\seed-orders.sql\nGO\n",
    "PostDeploymentScripts/seed-orders.sql": "INSERT [Sales].[Orders] (OrderID, CustomerID)\nVALUES (1, 1), (2, 1), (3, 2);\n",
    "WideWorld.sqlproj": "<Project/>",
}


def _project(root: Path) -> Path:
    for name, text in PROJECT.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\ufeff" + text, encoding="utf-8")  # SSDT saves UTF-8 with a BOM
    return root


def test_out_of_order_project_resolves_constraints_indexes_descriptions_and_types(tmp_path: Path):
    capture = api.read([_project(tmp_path / "proj")])
    db = capture.database
    orders, customers = db.table("Sales", "Orders"), db.table("Sales", "Customers")
    assert orders is not None and customers is not None
    fk = orders.foreign_keys[0]
    assert (fk.name, fk.ref_table, fk.not_trusted) == ("FK_Orders_Customers", "Customers", True)
    assert [i.name for i in orders.indexes] == ["IX_Orders_CustomerID"]
    assert orders.description == "Orders placed by customers"
    assert customers.column("Name").type == DataType("nvarchar", length=50, alias="dbo.Name")
    assert customers.column("CustomerID").default == "(NEXT VALUE FOR [Sequences].[CustomerID])"
    assert [s.qualified_name for s in db.sequences] == ["Sequences.CustomerID"]
    assert orders.scripted_rows == 3  # through the post-deployment script's :r
    assert orders.source.file.endswith("Orders.sql") and orders.source.line == 1
    assert not [f for f in capture.findings if f.rule.startswith("IN") and int(f.rule[2:]) < 20]


def test_every_file_advances_progress_and_included_files_given_twice_are_read_once(tmp_path: Path):
    root = _project(tmp_path / "proj")
    files = [read_text(p) for p in sorted(root.rglob("*.sql"))]

    class Ticks:
        count = 0

        def advance(self, n: int = 1) -> None:
            Ticks.count += n

        def update(self, description: str) -> None:
            pass

    db, findings = read_scripts(files, Ticks())
    assert Ticks.count == len(files)
    assert db.table("Sales", "Orders").scripted_rows == 3  # seed-orders.sql is given and included: counted once
    assert not findings


def test_a_change_to_a_table_that_no_file_defines_is_a_finding(tmp_path: Path):
    root = _project(tmp_path / "proj")
    (root / "Sales/Tables/Orders.sql").unlink()
    capture = api.read([root])
    missing = [f for f in capture.findings if f.rule == "IN07"]
    assert {f.object for f in missing} == {"Sales.Orders"}
    assert {Path(f.file).name for f in missing} == {"A_Orders_Keys.sql", "seed-orders.sql"}


def test_included_files_names_what_the_post_deployment_script_pulls_in(tmp_path: Path):
    root = _project(tmp_path / "proj")
    (root / "PostDeploymentScripts" / "Script.PostDeployment.sql").write_text(
        ":setvar Data seed\n:r .\\$(Data)-orders.sql\n--:r .\\commented-out.sql\n/*\n:r .\\in-a-comment.sql\n*/\n")
    files = [read_text(p) for p in sorted(root.rglob("*.sql"))]
    assert included_files(files) == {(root / "PostDeploymentScripts" / "seed-orders.sql").resolve()}


def test_seed_data_files_are_rows_not_workload_and_stray_files_are_skipped_with_a_finding(tmp_path: Path):
    root = _project(tmp_path / "proj")
    (root / "PostDeploymentScripts" / "seed-orders-old.sql").write_text(  # commented out of the script
        "INSERT [Sales].[Orders] (OrderID, CustomerID) VALUES (9, 9);\n")
    (root / "WideWorld.publish.xml").write_text('<?xml version="1.0"?>\n<Project><PropertyGroup/></Project>\n')
    (root / "pipeline.yml").write_text("steps:\n  - run: build\n")
    capture = api.read([root])
    assert capture.workload.queries == ()  # nothing in the project is traffic a server ran
    assert capture.database.table("Sales", "Orders").scripted_rows == 3
    skipped = {Path(f.file).name: f.message for f in capture.findings if f.rule == "IN14"}
    assert set(skipped) == {"seed-orders-old.sql", "WideWorld.publish.xml", "pipeline.yml"}
    assert "XML that is not Extended Events output" in skipped["WideWorld.publish.xml"]
    assert "format: sqlsrv2tidb.workload/1" in skipped["pipeline.yml"]


def test_a_file_named_on_the_command_line_that_is_no_source_stops_the_command(tmp_path: Path):
    publish = tmp_path / "WideWorld.publish.xml"
    publish.write_text('<?xml version="1.0"?>\n<Project><PropertyGroup/></Project>\n')
    with pytest.raises(InputError, match=r"WideWorld\.publish\.xml: not a kind of file sqlsrv2tidb reads"):
        api.read([_project(tmp_path / "proj"), publish])


def test_statement_files_outside_the_deployment_folder_are_still_workload(tmp_path: Path):
    root = _project(tmp_path / "proj")
    (root / "Workload").mkdir()
    (root / "Workload" / "orders.sql").write_text("SELECT OrderID FROM Sales.Orders WHERE CustomerID = 1;\n")
    capture = api.read([root])
    assert [q.fingerprint for q in capture.workload.queries] == ["SELECT orderid FROM sales.orders WHERE customerid = ?"]
