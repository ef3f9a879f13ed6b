"""Indexes, types, sequences, partitioning, modules, descriptions, row counts, and the wrappers around them."""

from __future__ import annotations

from pathlib import Path

from sqlsrv2tidb.capture.scripts import looks_like_schema, read_scripts
from sqlsrv2tidb.capture.textfile import TextFile
from sqlsrv2tidb.model import DataType, IndexColumn


class Ticks:
    def __init__(self) -> None:
        self.count = 0

    def advance(self, n: int = 1) -> None:
        self.count += n

    def update(self, description: str) -> None:
        pass


def read(text: str, name: str = "schema.sql"):
    return read_scripts([TextFile(Path(name), text, "utf-8", False)], Ticks())


def test_create_index_kinds():
    db, findings = read("""
CREATE TABLE dbo.T (ID int PRIMARY KEY NONCLUSTERED, Doc xml, Shape geography, Body nvarchar(max), Day date);
GO
CREATE UNIQUE CLUSTERED INDEX CX ON dbo.T (Day DESC, ID) WITH (DROP_EXISTING = OFF, ONLINE = ON) ON PS_Day (Day);
CREATE NONCLUSTERED INDEX IX_Body ON dbo.T (ID) INCLUDE (Body) WHERE Day IS NOT NULL AND ID > 0 WITH FILLFACTOR = 80;
CREATE NONCLUSTERED COLUMNSTORE INDEX NCCX ON dbo.T (ID, Day);
CREATE PRIMARY XML INDEX PXML ON dbo.T (Doc);
CREATE XML INDEX XPATH ON dbo.T (Doc) USING XML INDEX PXML FOR PATH;
CREATE SPATIAL INDEX SIX ON dbo.T (Shape) USING GEOGRAPHY_AUTO_GRID WITH (CELLS_PER_OBJECT = 16);
CREATE FULLTEXT CATALOG FT AS DEFAULT;
CREATE FULLTEXT INDEX ON dbo.T (Body LANGUAGE 1033, Doc TYPE COLUMN Ext) KEY INDEX CX ON FT WITH CHANGE_TRACKING AUTO;
ALTER INDEX IX_Body ON dbo.T DISABLE;
""")
    assert not findings
    t = db.tables[0]
    ix = {i.name: i for i in t.indexes}
    assert ix["CX"].unique and ix["CX"].clustered and ix["CX"].columns[0] == IndexColumn("Day", True)
    assert (t.partitioning.scheme, t.partitioning.column) == ("PS_Day", "Day")
    assert ix["IX_Body"].include == ("Body",) and ix["IX_Body"].filter == "Day IS NOT NULL AND ID > 0"
    assert ix["IX_Body"].disabled
    assert (ix["NCCX"].kind, ix["NCCX"].clustered) == ("columnstore", False)
    assert (ix["PXML"].kind, ix["XPATH"].kind, ix["SIX"].kind) == ("xml", "xml", "spatial")
    fulltext = ix[None]
    assert fulltext.kind == "fulltext" and [c.name for c in fulltext.columns] == ["Body", "Doc"]


def test_alias_types_resolve_to_their_base_type_with_the_alias_recorded():
    db, findings = read("""
CREATE TYPE [Name] FROM nvarchar(50) NULL;
CREATE TYPE dbo.Flag FROM bit NOT NULL;
EXEC sp_addtype N'Phone', N'varchar(25)', N'NOT NULL';
EXEC sp_addtype @typename = 'Code', @phystype = 'char(3)', @owner = 'Sales';
GO
CREATE TABLE Sales.Person (First [Name] NOT NULL, Middle dbo.Name, Active Flag, Tel Phone, C Sales.Code NULL);
""")
    assert not findings
    cols = {c.name: c for c in db.tables[0].columns}
    assert cols["First"].type == DataType("nvarchar", length=50, alias="dbo.Name") and not cols["First"].nullable
    assert cols["Middle"].nullable
    assert cols["Active"].type == DataType("bit", alias="dbo.Flag") and not cols["Active"].nullable
    assert cols["Tel"].type == DataType("varchar", length=25, alias="dbo.Phone") and not cols["Tel"].nullable
    assert cols["C"].type == DataType("char", length=3, alias="Sales.Code")
    assert {u.qualified_name for u in db.user_types} == {"dbo.Name", "dbo.Flag", "dbo.Phone", "Sales.Code"}


def test_table_types_and_unknown_types():
    db, findings = read("""
CREATE TYPE Website.OrderList AS TABLE (OrderID int NOT NULL, Note dbo.Missing NULL, PRIMARY KEY NONCLUSTERED (OrderID))
    WITH (MEMORY_OPTIMIZED = ON);
""")
    table_type = db.user_types[0]
    assert table_type.is_table_type and [c.name for c in table_type.columns] == ["OrderID", "Note"]
    assert [f.rule for f in findings] == ["IN08"] and "dbo.Missing" in findings[0].message


def test_sequences_partitioning_synonyms_schemas_and_xml_schema_collections():
    db, findings = read("""
CREATE SCHEMA [Sequences] AUTHORIZATION [dbo];
GO
CREATE SEQUENCE Sequences.OrderID AS int START WITH 1 INCREMENT BY 1 MINVALUE -10 NO MAXVALUE NO CYCLE NO CACHE;
CREATE SEQUENCE dbo.Plain;
CREATE SEQUENCE dbo.Big AS bigint START WITH -5 INCREMENT BY -1 CYCLE CACHE 50;
CREATE PARTITION FUNCTION PF_Day (date) AS RANGE RIGHT FOR VALUES ('2014-01-01', N'2015-01-01');
CREATE PARTITION SCHEME PS_Day AS PARTITION PF_Day ALL TO ([PRIMARY]);
CREATE SYNONYM dbo.Cust FOR OtherDb.dbo.Customers;
CREATE XML SCHEMA COLLECTION Person.Survey AS N'<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema"/>';
GO
CREATE TABLE Person.P (ID int, Survey xml(CONTENT Person.Survey), Bare xml(Survey),
    OrderID int DEFAULT (NEXT VALUE FOR [Sequences].[OrderID]));
""")
    assert not findings
    seq = {s.name: s for s in db.sequences}
    assert (seq["OrderID"].type, seq["OrderID"].start, seq["OrderID"].minimum, seq["OrderID"].cached) == (
        DataType("int"), 1, -10, False)
    assert seq["Plain"].type == DataType("bigint") and seq["Plain"].start is None and seq["Plain"].cached
    assert (seq["Big"].start, seq["Big"].increment, seq["Big"].cycle, seq["Big"].cache_size) == (-5, -1, True, 50)
    pf = db.partition_functions[0]
    assert (pf.name, pf.type, pf.boundaries, pf.range_right) == (
        "PF_Day", DataType("date"), ("'2014-01-01'", "N'2015-01-01'"), True)
    assert db.partition_schemes[0].function == "PF_Day" and db.partition_schemes[0].filegroups == ("PRIMARY",)
    syn = db.modules_of("synonym")[0]
    assert syn.qualified_name == "dbo.Cust" and syn.base_object == "[OtherDb].[dbo].[Customers]"
    cols = {c.name: c for c in db.tables[0].columns}
    assert cols["Survey"].type.xml_schema == "Person.Survey" and cols["Bare"].type.xml_schema == "dbo.Survey"
    assert cols["OrderID"].default == "(NEXT VALUE FOR [Sequences].[OrderID])"
    assert db.schemas[:2] == ("Sequences", "dbo")


def test_modules_keep_their_source_line_and_header_facts():
    db, findings = read("""-- header comment
CREATE VIEW dbo.V WITH SCHEMABINDING AS SELECT ID FROM dbo.T;
GO
CREATE UNIQUE CLUSTERED INDEX IXV ON dbo.V (ID);
GO
CREATE OR ALTER PROCEDURE dbo.P @a AS int = 1, @b nvarchar(10) OUTPUT
WITH EXECUTE AS OWNER AS
BEGIN
    SELECT @a AS a;
END
GO
ALTER PROC dbo.Q AS SELECT 1
GO
CREATE PROCEDURE dbo.Native WITH NATIVE_COMPILATION, SCHEMABINDING, EXECUTE AS OWNER
AS BEGIN ATOMIC WITH (TRANSACTION ISOLATION LEVEL = SNAPSHOT, LANGUAGE = N'us_english') SELECT 1 END
GO
CREATE FUNCTION dbo.S (@x int) RETURNS decimal(9,2) WITH SCHEMABINDING, RETURNS NULL ON NULL INPUT AS BEGIN RETURN 1 END
GO
CREATE FUNCTION dbo.I (@x int) RETURNS TABLE AS RETURN (SELECT @x AS x)
GO
CREATE FUNCTION dbo.M () RETURNS @t TABLE (a int, b AS a + 1) AS BEGIN INSERT @t (a) VALUES (1) RETURN END
GO
CREATE FUNCTION dbo.Clr (@s nvarchar(max)) RETURNS int AS EXTERNAL NAME Asm.[Ns.Class].Method
GO
CREATE AGGREGATE dbo.Concat (@v nvarchar(4000)) RETURNS nvarchar(max) EXTERNAL NAME Asm.Concat;
GO
CREATE TRIGGER Sales.trg ON Sales.Orders AFTER INSERT, UPDATE AS SET NOCOUNT ON
GO
CREATE TRIGGER trg2 ON Sales.Orders INSTEAD OF DELETE AS RETURN
GO
CREATE TRIGGER audit ON DATABASE FOR DDL_DATABASE_LEVEL_EVENTS AS PRINT 'x'
GO
CREATE TRIGGER srv ON ALL SERVER FOR LOGON AS PRINT 'x'
""")
    assert not findings
    m = {mod.name: mod for mod in db.modules}
    assert m["V"].kind == "view" and m["V"].is_schema_bound and m["V"].source.line == 2
    assert m["V"].definition == "CREATE VIEW dbo.V WITH SCHEMABINDING AS SELECT ID FROM dbo.T;"
    assert [i.name for i in m["V"].indexes] == ["IXV"] and m["V"].indexes[0].clustered
    assert m["P"].created_with == "create_or_alter" and m["P"].source.line == 6 and m["P"].line_count == 5
    assert m["Q"].created_with == "alter" and m["Q"].kind == "procedure"
    assert m["Native"].native_compilation and m["Native"].is_schema_bound
    assert (m["S"].function_kind, m["S"].is_schema_bound) == ("scalar", True)
    assert (m["I"].function_kind, m["M"].function_kind) == ("inline_table", "table")
    assert m["Clr"].is_clr and (m["Concat"].function_kind, m["Concat"].is_clr) == ("aggregate", True)
    assert (m["trg"].kind, m["trg"].parent, m["trg"].schema) == ("trigger", "Sales.Orders", "Sales")
    assert (m["trg2"].parent, m["trg2"].schema) == ("Sales.Orders", "Sales")
    assert (m["audit"].kind, m["audit"].schema, m["srv"].kind) == ("ddl_trigger", None, "ddl_trigger")


def test_descriptions_and_row_counts():
    db, findings = read("""
CREATE TABLE dbo.T (ID int, Name nvarchar(10));
GO
EXEC sys.sp_addextendedproperty N'MS_Description', N'The table.', N'SCHEMA', [dbo], N'TABLE', [T], NULL, NULL;
EXECUTE sp_addextendedproperty @name = N'Description', @value = 'The key.', @level0type = N'SCHEMA',
    @level0name = N'dbo', @level1type = N'TABLE', @level1name = N'T', @level2type = N'COLUMN', @level2name = N'ID';
EXEC sp_addextendedproperty N'Owner', N'team a', N'SCHEMA', dbo, N'TABLE', T;
EXEC sp_addextendedproperty N'MS_Description', N'Schema', N'SCHEMA', dbo;
GO
SET IDENTITY_INSERT dbo.T ON
INSERT dbo.T VALUES (1, N'a')
INSERT INTO [dbo].[T] (ID, Name) VALUES (2, 'b'), (3, 'c'), (4, 'd');
INSERT dbo.T DEFAULT VALUES
SET IDENTITY_INSERT dbo.T OFF
GO
INSERT dbo.T (ID) VALUES (10)
GO 5
INSERT dbo.T SELECT ID, Name FROM dbo.T
""")
    t = db.tables[0]
    assert t.description == "The table." and t.column("ID").description == "The key."
    assert t.column("Name").description is None
    assert t.scripted_rows == 1 + 3 + 1 + 5
    assert [(f.rule, f.line) for f in findings] == [("IN09", 18)]


def test_wrappers_are_unwrapped_and_every_branch_read():
    db, findings = read("""
IF NOT EXISTS (SELECT * FROM sys.schemas WHERE name = N'Sales')
    EXEC('CREATE SCHEMA [Sales] AUTHORIZATION [dbo]');
GO
IF OBJECT_ID(N'Sales.T', N'U') IS NOT NULL DROP TABLE Sales.T;
GO
IF NOT EXISTS (SELECT 1 FROM sys.tables WHERE name = 'T')
BEGIN
    PRINT 'creating';
    CREATE TABLE Sales.T (ID int NOT NULL);
    IF 1 = 1
        ALTER TABLE Sales.T ADD CONSTRAINT PK_T PRIMARY KEY (ID);
    ELSE
        PRINT 'never';
END
GO
BEGIN TRY
    BEGIN TRANSACTION;
    EXEC sp_executesql N'CREATE INDEX IX_T ON Sales.T (ID)';
    COMMIT;
END TRY
BEGIN CATCH
    ROLLBACK;
END CATCH
GO
EXEC (N'CREATE VIEW Sales.V AS
SELECT ID FROM Sales.T')
GO
DECLARE @sql nvarchar(max) = N'CREATE TABLE Sales.Hidden (x int)';
EXEC (@sql);
""")
    assert db.schemas[0] == "Sales"
    t = db.table("Sales", "T")
    assert t.primary_key.name == "PK_T" and [i.name for i in t.indexes] == ["IX_T"]
    view = db.modules_of("view")[0]
    assert view.definition == "CREATE VIEW Sales.V AS\nSELECT ID FROM Sales.T" and view.source.line == 26
    assert [(f.rule, f.line) for f in findings] == [("IN10", 30)]


def test_database_name_and_collation():
    db, _ = read("USE master\nGO\nCREATE DATABASE [Shop] COLLATE Latin1_General_100_CI_AS_SC\nGO\nUSE [Shop]\n")
    assert (db.name, db.collation) == ("Shop", "Latin1_General_100_CI_AS_SC")
    db, _ = read("USE [master]\nGO\nUSE Shop2\nGO\nCREATE TABLE t (a int)")
    assert db.name == "Shop2"


def test_unknown_statements_and_not_modelled_features_are_findings_and_reading_goes_on():
    db, findings = read("""CREATE TABLE t (a int)
GO
FROBNICATE t
CREATE TABLE u (a int)
GO
CREATE SECURITY POLICY p ADD FILTER PREDICATE dbo.f(a) ON dbo.t WITH (STATE = ON)
GO
CREATE LOGIN app WITH PASSWORD = 'S3cret!'
GRANT SELECT ON t TO app
EXEC dbo.LoadData 1
EXEC dbo.LoadData 2
""")
    assert [t.name for t in db.tables] == ["t", "u"]
    assert [(f.rule, f.line) for f in findings] == [("IN01", 3), ("IN12", 6), ("IN13", 10)]
    assert findings[0].details["statement"] == "FROBNICATE t CREATE TABLE u (a int)"
    assert all("S3cret" not in f.message + str(f.details) for f in findings)


def test_changes_to_undefined_tables_are_findings():
    db, findings = read("""
CREATE TABLE t (a int);
ALTER TABLE missing ADD CONSTRAINT PK PRIMARY KEY (a);
CREATE INDEX IX ON missing (a);
EXEC sp_addextendedproperty 'MS_Description', 'x', 'SCHEMA', 'dbo', 'TABLE', 'missing';
EXEC sp_addextendedproperty 'MS_Description', 'x', 'SCHEMA', 'dbo', 'TABLE', 't', 'COLUMN', 'nope';
INSERT missing VALUES (1);
ALTER TABLE t NOCHECK CONSTRAINT CK_none;
""")
    assert [(f.rule, f.line) for f in findings] == [("IN07", n) for n in (3, 4, 5, 6, 7, 8)]


def test_looks_like_schema_tells_ddl_from_workload():
    assert looks_like_schema("CREATE TABLE dbo.t (a int)")
    assert looks_like_schema("ALTER TABLE [Order Details] WITH NOCHECK ADD CONSTRAINT x CHECK (a > 0)")
    assert looks_like_schema(":setvar DatabaseName x\nSELECT 1")
    assert looks_like_schema("EXEC sp_addextendedproperty N'MS_Description', N'x'")
    assert looks_like_schema("create   procedure dbo.p as select 1")
    assert not looks_like_schema("SELECT * FROM dbo.t WHERE a = 1\nGO\nUPDATE t SET a = 2")
    assert not looks_like_schema("CREATE TABLE  #tmp (a int); INSERT #tmp SELECT 1; DROP TABLE #tmp")
    assert not looks_like_schema("CREATE CLUSTERED INDEX cx ON #tmp (a); SELECT a FROM #tmp")
    assert looks_like_schema("CREATE UNIQUE NONCLUSTERED INDEX [IX a] ON [dbo].[t] (a)")
    assert looks_like_schema("CREATE PRIMARY XML INDEX px ON dbo.t (x)")
    assert not looks_like_schema("-- CREATE TABLE dbo.t (a int)\nSELECT 'CREATE TABLE x (a int)'")
    assert not looks_like_schema("INSERT INTO t VALUES (1)")
    assert looks_like_schema("DROP TABLE IF EXISTS dbo.Orders")
    assert not looks_like_schema("DROP TABLE IF EXISTS #work; SELECT 1")
