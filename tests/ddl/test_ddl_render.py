"""Rendering: a schema with every feature the generator handles parses as TiDB SQL and runs on MariaDB and on
TiDB; templates can be overridden one file at a time; statements are split and counted as a client would."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from ddl_apply import TIDB_ONLY, TIFLASH, TIFLASH_REFUSED, apply, parse_errors, refusals, statements

from sqlsrv2tidb.model import (
    MAX,
    CheckConstraint,
    Column,
    Computed,
    DataType,
    ForeignKey,
    Identity,
    Index,
    IndexColumn,
    Key,
    Module,
    Sequence,
    SourceRef,
    Table,
)
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.plan.migration import build_plan
from sqlsrv2tidb.translate.ddl import is_comment_only, split_statements

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plan"))
from plan_models import capture, col, insert_workload, keywords, pk  # noqa: E402


def kitchen_sink():
    seq = Sequence("Sequences", "OrderID", DataType("int"), start=1, increment=1, source=SourceRef("s.sql", 1))
    customers = Table("Sales", "Customers", (
        Column("CustomerID", DataType("int"), False, identity=Identity(100, 1)),
        col("Name", "nvarchar", length=100, collation="Latin1_General_CS_AS"),
        col("Email", "nvarchar", True, length=256),
        col("Balance", "money", default="((0))"),
        col("Photo", "varbinary", True, length=MAX),
        col("RowGuid", "uniqueidentifier", default="(newid())"),
        col("Version", "rowversion"),
        col("Since", "datetimeoffset", True, scale=7),
        col("Notes", "nvarchar", True, length=MAX, default="('')"),
        col("Node", "hierarchyid", True),
        col("Place", "geography", True),
        col("Props", "xml", True),
        col("Anything", "sql_variant", True),
        col("Created", "datetime2", default="(sysutcdatetime())"),
        col("Flag", "bit", default="(CONVERT([bit],(0)))"),
        Column("NameUpper", DataType("sql_variant"), computed=Computed("(upper([Name]))")),
        Column("Level", DataType("sql_variant"), computed=Computed("([Node].[GetLevel]())")),
    ), primary_key=pk("CustomerID"), unique_keys=(Key("UQ_Customers_Email", (IndexColumn("Email"),)),),
        indexes=(
            Index("IX_Customers_Name", (IndexColumn("Name", descending=True),), include=("Email",)),
            Index("UX_Customers_Email_Active", (IndexColumn("Email"),), unique=True, filter="([Flag]=(1))"),
            Index("CS_Customers", (IndexColumn("Balance"),), kind="columnstore"),
            Index("XML_Props", (IndexColumn("Props"),), kind="xml"),
            Index("IX_Customers_Level", (IndexColumn("Level"),)),
        ),
        checks=(CheckConstraint("CK_Customers_Balance", "([Balance]>=(0))"),),
        description="Customers, with 'quotes'")
    orders = Table("Sales", "Orders", (
        Column("OrderID", DataType("int"), False, default="(NEXT VALUE FOR [Sequences].[OrderID])"),
        col("CustomerID", "int"),
        col("Placed", "datetime", default="(getdate())"),
        col("Status", "char", length=300),
    ), primary_key=pk("OrderID"),
        foreign_keys=(ForeignKey("FK_Orders_Customers", ("CustomerID",), "Sales", "Customers", ("CustomerID",),
                                 on_delete="cascade", on_update="set_default"),))
    lines = Table("Sales", "Order Lines", (
        col("OrderID", "int"), col("LineNo", "smallint"), col("Qty", "int"), col("Price", "decimal", precision=18, scale=2),
        Column("Total", DataType("sql_variant"), computed=Computed("([Qty]*[Price])", persisted=True)),
    ), primary_key=pk("OrderID", "LineNo"),
        foreign_keys=(ForeignKey("FK_Lines_Orders", ("OrderID",), "Sales", "Orders", ("OrderID",)),))
    heap = Table("dbo", "AuditLog", (col("At", "datetime2", scale=3), col("What", "nvarchar", length=400)))
    view = Module("Sales", "CustomerOrders", "view",
                  "CREATE VIEW Sales.CustomerOrders AS SELECT c.CustomerID, c.Name, o.OrderID FROM Sales.Customers AS c "
                  "JOIN Sales.Orders AS o ON o.CustomerID = c.CustomerID")
    proc = Module("dbo", "uspPurge", "procedure", "CREATE PROCEDURE dbo.uspPurge AS\nBEGIN\n  DELETE FROM dbo.AuditLog; -- all */\nEND")
    return capture(customers, orders, lines, heap, keywords(), sequences=(seq,), modules=(view, proc),
                   collation="SQL_Latin1_General_CP1_CI_AS",
                   workload=insert_workload("dbo.AuditLog", 9000))


@pytest.mark.mariadb
@pytest.mark.tidb_parser
# DDL is written for the TiDB version given: the TiDB here (v8.5) runs the plan made for 8.5. A plan for an
# older version may set what v8.5 refuses (tidb_scatter_region = ON became an enum in v8.4).
@pytest.mark.parametrize(("target", "version"), [("mariadb", "6.5"), ("mariadb", "8.5"), ("tidb", "8.5")],
                         indirect=["target"])
def test_every_feature_parses_as_tidb_and_runs_on_each_target(version, tidb_parser, target, target_database):
    from sqlsrv2tidb.options import Version

    database = target_database
    cap = kitchen_sink()
    plan = build_plan(cap, Options(tidb_version=Version.parse(version), tikv_nodes=4))
    assert parse_errors(tidb_parser, plan) == []
    with target.connect(database) as conn:
        # MariaDB: everything but the TiDB-only files; TiDB: everything but the TiFlash file, refused below.
        assert apply(conn, plan, target.kind) == []
        with conn.cursor() as cur:
            cur.execute("SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = %s", (database,))
            # TiDB lists a sequence as a table of type SEQUENCE, as MariaDB does.
            assert sorted(cur.fetchall()) == [
                ("AuditLog", "BASE TABLE"), ("CustomerOrders", "VIEW"), ("Customers", "BASE TABLE"),
                ("Order Lines", "BASE TABLE"), ("OrderID", "SEQUENCE"), ("Orders", "BASE TABLE"), ("keywords", "BASE TABLE"),
            ]
            cur.execute("INSERT INTO Customers (Name, Email) VALUES ('Ann', 'ann@example.com')")
            cur.execute("SELECT CustomerID, Balance, NameUpper, Flag FROM Customers")
            assert cur.fetchone() == (100, 0, "ANN", 0)  # AUTO_INCREMENT=100, defaults, generated column
            cur.execute("INSERT INTO Orders (CustomerID, Status) VALUES (100, 'new')")
            cur.execute("SELECT OrderID FROM Orders")
            assert cur.fetchone() == (1,)  # DEFAULT NEXT VALUE FOR the sequence
            cur.execute("INSERT INTO `Order Lines` (OrderID, `LineNo`, Qty, Price) VALUES (1, 1, 3, 2.50)")
            cur.execute("SELECT Total FROM `Order Lines`")
            assert float(cur.fetchone()[0]) == 7.5
            cur.execute("DELETE FROM `Order Lines`")
            cur.execute("DELETE FROM Customers")
            cur.execute("SELECT COUNT(*) FROM Orders")
            assert cur.fetchone() == (0,)  # ON DELETE CASCADE kept
            if target.kind == "tidb":
                # The TiDB-only options took effect (on MariaDB they are comments).
                cur.execute("SHOW CREATE TABLE AuditLog")
                assert "SHARD_ROW_ID_BITS=2 PRE_SPLIT_REGIONS=2" in cur.fetchone()[1]
                cur.execute("SELECT attributes FROM information_schema.attributes WHERE id LIKE %s",
                            (f"schema/{database}/auditlog%",))
                assert cur.fetchall() == (('"merge_option=deny"',),)  # as TiDB shows it
        if target.kind == "tidb":
            # The columnstore index's replacement needs a TiFlash server; this cluster has none.
            assert refusals(conn, plan, TIFLASH) == [(1105, TIFLASH_REFUSED.format(n=1))]
    placement = next(f for f in plan.files if f.name == TIDB_ONLY).content
    assert "TIFLASH" not in placement
    assert "ALTER TABLE Customers SET TIFLASH REPLICA 1;" in next(f for f in plan.files if f.name == TIFLASH).content
    assert "ALTER TABLE AuditLog ATTRIBUTES 'merge_option=deny';" in placement
    heap = plan.table("dbo", "AuditLog")
    assert heap.distribution.strategy == "pre_split" and "SHARD_ROW_ID_BITS=2 PRE_SPLIT_REGIONS=2" in heap.ddl


@pytest.mark.mariadb
@pytest.mark.tidb_parser
@pytest.mark.parametrize(("target", "version", "unique", "setting"), [
    ("mariadb", "5.2", False, None),  # pre-split without table attributes
    ("mariadb", "8.3", True, "/*T! SET SESSION tidb_enable_global_index = ON */"),  # experimental global index
    ("mariadb", "8.4", True, None),
    ("tidb", "8.4", True, None),  # the global unique index on the partitioned table, for real
], indirect=["target"])
def test_version_gated_designs_parse_as_tidb_and_run_on_each_target(version, unique, setting, tidb_parser, target,
                                                                    target_database):
    from sqlsrv2tidb.options import Version

    database = target_database
    plan = build_plan(capture(keywords(unique=unique), workload=insert_workload("dbo.keywords", 50_000)),
                      Options(tidb_version=Version.parse(version), tikv_nodes=12))
    assert parse_errors(tidb_parser, plan) == []
    with target.connect(database) as conn:
        assert apply(conn, plan, target.kind) == []
        with conn.cursor() as cur:
            cur.execute("SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema = %s "
                        "AND index_name = 'UQ_keywords_d_order'", (database,))
            assert cur.fetchone() == ((1,) if unique else (0,))
    sql = [s for _, s in statements(plan)]
    assert any(setting in s for s in sql) if setting else not any("tidb_enable_global_index" in s for s in sql)
    assert any("ATTRIBUTES 'merge_option=deny'" in s for s in sql) == (version != "5.2")


@pytest.mark.mariadb
@pytest.mark.tidb_parser
@pytest.mark.parametrize("target", ["mariadb", "tidb"], indirect=True)  # sequences: MySQL has none (test_ddl_mysql)
@pytest.mark.parametrize(("type_name", "seed", "increment"), [("int", 1, 1), ("smallint", 5, 10), ("tinyint", 0, 1),
                                                               ("int", -1, -1)])
def test_identity_sequences_parse_as_tidb_and_fill_the_column_on_each_target(type_name, seed, increment, tidb_parser,
                                                                            target, target_database):
    table = Table("dbo", "orders", (Column("id", DataType(type_name), False, identity=Identity(seed, increment)),
                                    col("ref", "nvarchar", length=20)), primary_key=pk("id"))
    plan = build_plan(capture(table), Options(config={"tables": {"dbo.orders": {"identity": "sequence"}}}))
    assert parse_errors(tidb_parser, plan) == []
    with target.connect(target_database) as conn:
        assert apply(conn, plan, target.kind) == []
        with conn.cursor() as cur:
            cur.execute("INSERT INTO orders (ref) VALUES ('a'), ('b')")
            cur.execute("SELECT id FROM orders ORDER BY ref")
            assert [r[0] for r in cur.fetchall()] == [seed, seed + increment]


def test_statements_are_counted_and_files_ordered():
    plan = build_plan(kitchen_sink(), Options())
    assert [f.name for f in plan.files] == sorted(f.name for f in plan.files)
    for f in plan.files:
        assert f.statements == sum(1 for s in split_statements(f.content) if not is_comment_only(s))
    modules = next(f for f in plan.files if f.name == "07-modules-not-migrated.sql")
    assert modules.statements == 0 and "--   CREATE PROCEDURE dbo.uspPurge AS" in modules.content
    assert all(line.startswith("--") or not line.strip() for line in modules.content.splitlines())
    views = next(f for f in plan.files if f.name == "06-views.sql")
    assert "CREATE OR REPLACE VIEW CustomerOrders AS" in views.content
    table_plan = plan.table("Sales", "Customers")
    assert "-- INCLUDE (Email) appended to the key" in "\n".join(table_plan.post_data_ddl)
    assert "COMMENT='Customers, with ''quotes'''" in table_plan.ddl
    # The columnstore and XML indexes are not created; their findings come from the rules engine.
    assert "CS_Customers" not in "\n".join(table_plan.post_data_ddl) and "XML_Props" not in "\n".join(table_plan.post_data_ddl)
    assert len(statements(plan)) == sum(f.statements for f in plan.files)


def test_the_plan_lists_each_view_as_06_views_sql_writes_it():
    """MigrationPlan.views, which `data copy --create-tables` runs, says what 06-views.sql says: each translated
    view's CREATE in the file's order, and why each other one is kept as a comment."""
    from paths import CORPUS_SCHEMAS

    from sqlsrv2tidb import api

    read = api.read([CORPUS_SCHEMAS["adventureworks-oltp"]])
    plan = build_plan(read, Options())
    content = next(f for f in plan.files if f.name == "06-views.sql").content

    def code(text: str) -> list[str]:
        return ["\n".join(line for line in s.splitlines() if not line.startswith("--")).strip()
                for s in split_statements(text) if not is_comment_only(s)]

    in_file, planned = code(content), [s for v in plan.views for s in code(v.ddl)]
    assert planned == in_file and len(in_file) == sum(1 for v in plan.views if v.ddl) > 10
    assert len(plan.views) == len(read.database.modules_of("view"))
    kept = [v for v in plan.views if v.kept]
    assert kept and all(not v.ddl for v in kept)
    for view in kept:
        assert f"-- VIEW {view.source} (" in content and f"-- not created: {view.kept}" in content


def test_a_template_can_be_overridden_alone(tmp_path):
    (tmp_path / "ddl").mkdir()
    (tmp_path / "ddl" / "create_index.sql").write_text(
        "CREATE {{ 'UNIQUE ' if ix.unique }}INDEX {{ ix.name }} ON {{ ix.table }} ({{ ix.columns | join(', ') }}) "
        "COMMENT 'from my template';\n", encoding="utf-8")
    plan = build_plan(capture(keywords()), Options(templates_dir=tmp_path))
    post = "\n".join(plan.table("dbo", "keywords").post_data_ddl)
    assert "CREATE INDEX idx_keywords_by_display_order ON keywords (e_type, e_id, s_type, d_order, r_id) COMMENT 'from my template';" in post
    assert "CREATE TABLE keywords (" in plan.table("dbo", "keywords").ddl  # the other templates are the built-in ones


def test_split_statements_respects_quotes_and_comments():
    text = ("-- a; b\nCREATE TABLE `a;b` (c CHAR(1) DEFAULT ';' COMMENT 'it''s; fine');\n"
            "/*T! SET GLOBAL x = 1 */;\n/* plain; comment */\n--   ; only comments\n")
    pieces = split_statements(text)
    assert pieces[0].endswith("COMMENT 'it''s; fine')") and pieces[1] == "/*T! SET GLOBAL x = 1 */"
    assert [is_comment_only(p) for p in pieces] == [False, False, True]


@pytest.mark.mariadb
def test_tidb_settings_in_comments_are_empty_statements_for_mariadb(mariadb, database):
    with mariadb.connect(database) as conn, conn.cursor() as cur:
        cur.execute("/*T! SET GLOBAL tidb_ddl_enable_fast_reorg = ON */")
        cur.execute("/*T! SET SESSION tidb_scatter_region = 'TABLE' */")
        cur.execute("SELECT 1")
        assert cur.fetchone() == (1,)
