"""CREATE TABLE and ALTER TABLE as SSMS, SSDT and people write them, down to each column attribute."""

from __future__ import annotations

from pathlib import Path

from sqlsrv2tidb.capture.scripts import read_scripts
from sqlsrv2tidb.capture.textfile import TextFile
from sqlsrv2tidb.model import MAX, DataType, Identity, IndexColumn, Temporal


class Ticks:
    def __init__(self) -> None:
        self.count = 0

    def advance(self, n: int = 1) -> None:
        self.count += n

    def update(self, description: str) -> None:
        pass


def read(text: str, name: str = "schema.sql"):
    return read_scripts([TextFile(Path(name), text, "utf-8", False)], Ticks())


def test_column_types_lengths_precision_and_defaults_of_the_catalog():
    db, findings = read("""
CREATE TABLE dbo.T (
    a nvarchar(50), b varchar(max), c nvarchar(MAX), d char, e decimal(9,4), f numeric, g datetime2(3),
    h time, i datetimeoffset(0), j float(24), k float, l [int], m "bigint", n varbinary(max), o binary(16),
    p national character varying(20), q double precision, r integer, s sysname NULL, t rowversion,
    u xml, v hierarchyid, w geography, x uniqueidentifier, y money, z sql_variant
)
""")
    assert not findings
    types = {c.name: c.type for c in db.tables[0].columns}
    assert types["a"] == DataType("nvarchar", length=50)
    assert types["b"] == DataType("varchar", length=MAX) and types["b"].is_max
    assert types["c"] == DataType("nvarchar", length=MAX)
    assert types["d"] == DataType("char", length=1)
    assert types["e"] == DataType("decimal", precision=9, scale=4)
    assert types["f"] == DataType("numeric", precision=18, scale=0)
    assert types["g"] == DataType("datetime2", scale=3)
    assert types["h"] == DataType("time", scale=7)
    assert types["i"] == DataType("datetimeoffset", scale=0)
    assert types["j"] == DataType("real") and types["k"] == DataType("float")
    assert types["l"] == DataType("int") and types["m"] == DataType("bigint")
    assert types["n"] == DataType("varbinary", length=MAX) and types["o"] == DataType("binary", length=16)
    assert types["p"] == DataType("nvarchar", length=20)
    assert types["q"] == DataType("float") and types["r"] == DataType("int")
    assert types["s"] == DataType("nvarchar", length=128, alias="sys.sysname")
    assert [types[k].name for k in "tuvwxyz"] == [
        "rowversion", "xml", "hierarchyid", "geography", "uniqueidentifier", "money", "sql_variant"]


def test_column_attributes():
    db, findings = read("""
CREATE TABLE [Sales].[Order Lines] (
    [ID] int IDENTITY(100, -2) NOT FOR REPLICATION NOT NULL,
    Code nvarchar(10) COLLATE Latin1_General_BIN2 NOT NULL CONSTRAINT DF_Code DEFAULT (N'x'),
    Created datetime NOT NULL DEFAULT getdate(),
    Qty int NULL DEFAULT -1,
    Total AS (Qty * 2) PERSISTED NOT NULL,
    Label AS Code + N'!',
    Guid uniqueidentifier ROWGUIDCOL NOT NULL DEFAULT newsequentialid(),
    Extra nvarchar(100) SPARSE NULL,
    Email nvarchar(100) MASKED WITH (FUNCTION = 'email()') NULL,
    Ssn char(11) ENCRYPTED WITH (COLUMN_ENCRYPTION_KEY = CEK1, ENCRYPTION_TYPE = Deterministic,
                                 ALGORITHM = 'AEAD_AES_256_CBC_HMAC_SHA_256') NOT NULL,
    Doc varbinary(max) FILESTREAM NULL,
    ValidFrom datetime2 GENERATED ALWAYS AS ROW START HIDDEN NOT NULL,
    ValidTo datetime2 GENERATED ALWAYS AS ROW END HIDDEN NOT NULL,
    PERIOD FOR SYSTEM_TIME (ValidFrom, ValidTo)
)
""")
    assert not findings
    t = db.table("Sales", "Order Lines")
    assert t is not None and t.qualified_name == "Sales.Order Lines"
    c = {col.name: col for col in t.columns}
    assert c["ID"].identity == Identity(100, -2, not_for_replication=True) and not c["ID"].nullable
    assert c["Code"].collation == "Latin1_General_BIN2" and c["Code"].default == "(N'x')"
    assert c["Code"].default_name == "DF_Code"
    assert c["Created"].default == "getdate()" and c["Created"].default_name is None
    assert c["Qty"].default == "-1" and c["Qty"].nullable
    assert c["Total"].computed.expression == "(Qty * 2)" and c["Total"].computed.persisted
    assert not c["Total"].nullable
    assert c["Label"].computed.expression == "Code + N'!'" and not c["Label"].computed.persisted
    assert c["Guid"].rowguidcol and c["Guid"].default == "newsequentialid()"
    assert c["Extra"].sparse and c["Email"].masked and c["Ssn"].encrypted
    assert (c["ValidFrom"].generated_always, c["ValidTo"].generated_always) == ("row_start", "row_end")
    assert c["ValidFrom"].hidden and c["ValidTo"].hidden
    assert c["ID"].source.line == 3 and t.source.line == 2


def test_computed_column_type_is_taken_from_a_top_level_convert_or_cast():
    db, _ = read("CREATE TABLE t (a int, b AS CONVERT(bit, a), c AS (CAST(a AS decimal(9, 2))), d AS a + 1)")
    types = {c.name: c.type for c in db.tables[0].columns}
    assert types["b"] == DataType("bit") and types["c"] == DataType("decimal", precision=9, scale=2)
    assert types["d"] == DataType("sql_variant")  # SQL Server derives it; the reader does not guess


def test_inline_constraints_and_indexes():
    db, findings = read("""
CREATE TABLE dbo.Orders (
    OrderID int NOT NULL CONSTRAINT PK_Orders PRIMARY KEY NONCLUSTERED,
    CustomerID int NOT NULL REFERENCES dbo.Customers (CustomerID) ON DELETE CASCADE,
    Code nchar(5) NOT NULL UNIQUE,
    Qty int NOT NULL CONSTRAINT CK_Qty CHECK (Qty > 0),
    Placed date NOT NULL INDEX IX_Placed,
    CONSTRAINT FK_Orders_Shippers FOREIGN KEY (ShipVia, ShipRegion) REFERENCES Shippers ON UPDATE SET NULL,
    CONSTRAINT UQ_Orders UNIQUE CLUSTERED (CustomerID ASC, Placed DESC) WITH (FILLFACTOR = 90) ON [PRIMARY],
    CHECK (Placed > '20000101'),
    INDEX IX_Code_Qty NONCLUSTERED (Code, Qty DESC) INCLUDE (Placed) WHERE Qty > 10
) ON [PRIMARY] TEXTIMAGE_ON [PRIMARY]
""")
    assert not findings
    t = db.tables[0]
    assert t.primary_key.name == "PK_Orders" and not t.primary_key.clustered
    assert [(k.name, k.column_names, k.clustered) for k in t.unique_keys] == [
        (None, ("Code",), False), ("UQ_Orders", ("CustomerID", "Placed"), True)]
    assert t.unique_keys[1].columns[1] == IndexColumn("Placed", descending=True)
    fks = {fk.name: fk for fk in t.foreign_keys}
    assert fks[None].columns == ("CustomerID",) and fks[None].on_delete == "cascade"
    assert (fks[None].ref_schema, fks[None].ref_table, fks[None].ref_columns) == ("dbo", "Customers", ("CustomerID",))
    assert fks["FK_Orders_Shippers"].on_update == "set_null" and fks["FK_Orders_Shippers"].ref_columns == ()
    assert [(c.name, c.expression, c.column) for c in t.checks] == [
        ("CK_Qty", "(Qty > 0)", "Qty"), (None, "(Placed > '20000101')", None)]
    ix = {i.name: i for i in t.indexes}
    assert ix["IX_Placed"].columns == (IndexColumn("Placed"),)
    assert ix["IX_Code_Qty"].include == ("Placed",) and ix["IX_Code_Qty"].filter == "Qty > 10"
    assert ix["IX_Code_Qty"].columns[1].descending


def test_primary_key_is_clustered_unless_said_otherwise_or_taken():
    db, _ = read("""
CREATE TABLE a (id int PRIMARY KEY);
CREATE TABLE b (id int, CONSTRAINT PK_b PRIMARY KEY (id));
CREATE TABLE c (id int PRIMARY KEY, code int UNIQUE CLUSTERED);
CREATE TABLE d (id int NOT NULL, code int NOT NULL);
CREATE CLUSTERED INDEX CX_d ON d (code);
ALTER TABLE d ADD CONSTRAINT PK_d PRIMARY KEY (id);
CREATE TABLE e (id int NOT NULL);
ALTER TABLE e ADD CONSTRAINT PK_e PRIMARY KEY (id);
""")
    clustered = {t.name: t.primary_key.clustered for t in db.tables}
    assert clustered == {"a": True, "b": True, "c": False, "d": False, "e": True}
    assert not db.table(None, "b").column("id").nullable  # a key column is NOT NULL


def test_table_options_memory_optimized_temporal_and_partitioning():
    db, findings = read("""
CREATE TABLE Warehouse.Temps (
    ID bigint IDENTITY NOT NULL,
    Sensor int NOT NULL,
    ValidFrom datetime2(7) GENERATED ALWAYS AS ROW START NOT NULL,
    ValidTo datetime2(7) GENERATED ALWAYS AS ROW END NOT NULL,
    CONSTRAINT PK_Temps PRIMARY KEY NONCLUSTERED HASH (ID) WITH (BUCKET_COUNT = 1024),
    INDEX IX_Sensor HASH (Sensor) WITH (BUCKET_COUNT = 64),
    PERIOD FOR SYSTEM_TIME (ValidFrom, ValidTo)
) WITH (MEMORY_OPTIMIZED = ON, DURABILITY = SCHEMA_AND_DATA,
        SYSTEM_VERSIONING = ON (HISTORY_TABLE = [Warehouse].[Temps_Archive], DATA_CONSISTENCY_CHECK = ON));
CREATE TABLE Warehouse.Temps_Archive (ID bigint NOT NULL, Sensor int NOT NULL,
    ValidFrom datetime2(7) NOT NULL, ValidTo datetime2(7) NOT NULL);
CREATE TABLE dbo.Scratch (ID int NOT NULL) WITH (MEMORY_OPTIMIZED = ON, DURABILITY = SCHEMA_ONLY);
CREATE TABLE dbo.Facts (ID int NOT NULL, Day date NOT NULL) ON PS_Day(Day) WITH (DATA_COMPRESSION = PAGE);
""")
    assert not findings
    temps = db.table("Warehouse", "Temps")
    assert temps.memory_optimized and temps.durability == "schema_and_data"
    assert temps.temporal == Temporal("ValidFrom", "ValidTo", "Warehouse", "Temps_Archive")
    assert temps.indexes[0].kind == "hash" and not temps.primary_key.clustered
    assert db.table("Warehouse", "Temps_Archive").is_history_table and not temps.is_history_table
    assert db.table("dbo", "Scratch").durability == "schema_only"
    facts = db.table("dbo", "Facts")
    assert (facts.partitioning.scheme, facts.partitioning.column) == ("PS_Day", "Day")


def test_alter_table_add_constraints_columns_and_states():
    db, findings = read("""
CREATE TABLE dbo.P (ID int NOT NULL, Name nvarchar(10) NULL);
CREATE TABLE dbo.C (ID int NOT NULL, PID int NULL, Qty int NULL);
GO
ALTER TABLE dbo.P WITH CHECK ADD CONSTRAINT PK_P PRIMARY KEY CLUSTERED (ID ASC) ON [PRIMARY];
ALTER TABLE dbo.C WITH NOCHECK ADD CONSTRAINT FK_C_P FOREIGN KEY (PID) REFERENCES dbo.P (ID)
    ON DELETE SET DEFAULT ON UPDATE NO ACTION NOT FOR REPLICATION,
    CONSTRAINT CK_C_Qty CHECK (Qty >= 0);
ALTER TABLE dbo.C ADD CONSTRAINT DF_C_Qty DEFAULT ((0)) FOR Qty;
ALTER TABLE dbo.C ADD Note nvarchar(200) NULL, Flag bit NOT NULL CONSTRAINT DF_Flag DEFAULT 0;
ALTER TABLE dbo.P ALTER COLUMN Name nvarchar(40) NOT NULL;
ALTER TABLE dbo.C NOCHECK CONSTRAINT CK_C_Qty;
ALTER TABLE dbo.C WITH CHECK CHECK CONSTRAINT FK_C_P;
ALTER TABLE dbo.C DROP CONSTRAINT DF_Flag;
ALTER TABLE dbo.C ENABLE TRIGGER ALL;
""")
    assert not findings
    p, c = db.table("dbo", "P"), db.table("dbo", "C")
    assert p.primary_key.name == "PK_P" and p.primary_key.clustered
    assert p.column("Name").type == DataType("nvarchar", length=40) and not p.column("Name").nullable
    fk = c.foreign_keys[0]
    assert (fk.on_delete, fk.on_update, fk.disabled, fk.not_trusted) == ("set_default", "no_action", False, False)
    check = c.checks[0]
    assert (check.disabled, check.not_trusted) == (True, True)
    assert c.column("Qty").default == "((0))" and c.column("Qty").default_name == "DF_C_Qty"
    assert [col.name for col in c.columns] == ["ID", "PID", "Qty", "Note", "Flag"]


def test_nocheck_all_then_check_all_leaves_constraints_enabled_but_not_trusted():
    db, _ = read("""
CREATE TABLE a (id int PRIMARY KEY, p int REFERENCES a (id), CHECK (p > 0));
GO
ALTER TABLE a NOCHECK CONSTRAINT ALL
GO
ALTER TABLE a CHECK CONSTRAINT ALL
""")
    t = db.tables[0]
    assert [(x.disabled, x.not_trusted) for x in (*t.foreign_keys, *t.checks)] == [(False, True), (False, True)]


def test_set_system_versioning_after_the_fact():
    db, _ = read("""
CREATE TABLE dbo.T (ID int PRIMARY KEY, S datetime2 GENERATED ALWAYS AS ROW START, E datetime2 GENERATED ALWAYS AS ROW END,
    PERIOD FOR SYSTEM_TIME (S, E));
CREATE TABLE dbo.T_History (ID int NOT NULL, S datetime2 NOT NULL, E datetime2 NOT NULL);
ALTER TABLE dbo.T SET (SYSTEM_VERSIONING = ON (HISTORY_TABLE = dbo.T_History));
""")
    assert db.table("dbo", "T").temporal == Temporal("S", "E", "dbo", "T_History")
    assert db.table("dbo", "T_History").is_history_table


def test_a_broken_column_loses_its_table_but_not_the_next_statement():
    db, findings = read("CREATE TABLE a (id int NOT NULL WIBBLE)\nGO\nCREATE TABLE b (id int)\n")
    assert [t.name for t in db.tables] == ["b"]
    assert [(f.rule, f.line) for f in findings] == [("IN02", 1)]
    assert "WIBBLE" in findings[0].message and findings[0].details["statement"].startswith("CREATE TABLE a")


def test_temp_tables_and_table_variables_are_not_schema():
    db, findings = read("CREATE TABLE #work (id int)\nINSERT INTO #work VALUES (1)\nCREATE TABLE t (id int)\n")
    assert [t.name for t in db.tables] == ["t"] and not findings


def test_graph_tables_read_and_synapse_ctas_is_a_finding():
    db, findings = read("""
CREATE TABLE dbo.Person (ID int PRIMARY KEY, Name nvarchar(100)) AS NODE;
CREATE TABLE dbo.Likes (Rating int) AS EDGE;
CREATE TABLE wwi.City WITH (DISTRIBUTION = REPLICATE, CLUSTERED COLUMNSTORE INDEX) AS SELECT * FROM ext.City;
CREATE TABLE dbo.Docs AS FILETABLE WITH (FILETABLE_DIRECTORY = 'Docs', FILETABLE_COLLATE_FILENAME = database_default);
CREATE TABLE dbo.Sparse (ID int, A int SPARSE NULL, Props xml COLUMN_SET FOR ALL_SPARSE_COLUMNS);
""")
    assert [t.name for t in db.tables] == ["Person", "Likes", "Docs", "Sparse"]
    assert [c.name for c in db.table("dbo", "Sparse").columns] == ["ID", "A", "Props"]
    assert [(f.rule, f.line) for f in findings] == [("IN02", 4)] and "Synapse" in findings[0].message
