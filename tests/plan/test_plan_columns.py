"""Column definitions: defaults as TiDB allows them, computed columns, keys, limits and the findings on each."""

from __future__ import annotations

from plan_models import capture, col, pk

from sqlsrv2tidb.model import (
    MAX,
    CheckConstraint,
    Column,
    Computed,
    DataType,
    Index,
    IndexColumn,
    Key,
    SourceRef,
    Table,
    UserType,
)
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.plan.migration import build_plan


def plan(*tables, config=None, **db):
    return build_plan(capture(*tables, **db), Options(config=config or {}, config_file="overrides.yaml" if config else None))


def codes(p, rule):
    return [f for f in p.findings if f.rule == rule]


def table(*columns, **kw) -> Table:
    return Table("dbo", "t", (col("id", "int"), *columns), primary_key=pk("id"), source=SourceRef("schema.sql", 1), **kw)


def ddl_of(p) -> str:
    return p.table("dbo", "t").ddl


def test_defaults_that_tidb_allows():
    p = plan(table(
        col("n", "int", default="((0))"),
        col("s", "nvarchar", length=10, default="(N'abc')"),
        col("at", "datetime2", scale=3, default="(getdate())"),
        col("legacy", "datetime", default="((0))"),
        col("flag", "bit", default="(CONVERT([bit],(1)))"),
        col("g", "uniqueidentifier", default="(newid())"),
        col("maybe", "int", True, default="(NULL)"),
    ))
    ddl = ddl_of(p)
    assert "n INT NOT NULL DEFAULT 0," in ddl
    assert "s VARCHAR(10) NOT NULL DEFAULT 'abc'," in ddl
    assert "at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)," in ddl
    assert "legacy DATETIME(3) NOT NULL DEFAULT '1900-01-01 00:00:00'," in ddl  # 0 is SQL Server's day zero
    assert "flag TINYINT(1) NOT NULL DEFAULT 1," in ddl
    assert "g CHAR(36) NOT NULL DEFAULT (UUID())," in ddl
    assert "maybe INT NULL," in ddl


def test_utc_default_is_current_timestamp_with_a_finding():
    p = plan(table(col("at", "datetime2", scale=7, default="(sysutcdatetime())", line=4)))
    assert "at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)" in ddl_of(p)
    [finding] = codes(p, "TY19")
    assert (finding.object, finding.line) == ("dbo.t.at", 4) and "time_zone" in finding.message


def test_guid_default_on_binary16_is_tidb_only():
    p = plan(table(col("g", "uniqueidentifier", default="(newid())")), config={"types": {"uniqueidentifier": "BINARY(16)"}})
    assert "g BINARY(16) NOT NULL /*T! DEFAULT (UUID_TO_BIN(UUID())) */" in ddl_of(p)
    assert not codes(p, "TY03")  # the user chose the type


def test_default_on_text_is_left_out():
    p = plan(table(col("notes", "nvarchar", length=MAX, default="('')")))
    assert "notes LONGTEXT NOT NULL," in ddl_of(p) or "notes LONGTEXT NOT NULL\n" in ddl_of(p)
    assert codes(p, "TY17")[0].severity.value == "medium"


def test_untranslatable_default_is_left_out():
    p = plan(table(col("who", "nvarchar", length=128, default="(suser_sname())")))
    assert "who VARCHAR(128) NOT NULL," in ddl_of(p)
    assert "suser_sname" in codes(p, "TY18")[0].message


def test_computed_columns_are_generated_columns():
    p = plan(table(col("qty", "int"), col("price", "int"),
                   Column("total", DataType("sql_variant"), computed=Computed("([qty]*[price])", persisted=True)),
                   Column("half", DataType("int"), computed=Computed("([qty]/(2))"))))
    ddl = ddl_of(p)
    assert "total INT GENERATED ALWAYS AS (`qty` * `price`) STORED," in ddl
    assert "half INT GENERATED ALWAYS AS (`qty` DIV (2)) VIRTUAL" in ddl  # int / int divides whole numbers, as in T-SQL
    assert not codes(p, "TY08")  # an unknown computed type is not a sql_variant column


def test_computed_column_that_cannot_be_expressed_is_left_out_with_its_index():
    t = table(col("doc", "xml", True),
              Column("lvl", DataType("sql_variant"), computed=Computed("([doc].[value]('(/a)[1]', 'int'))"),
                     source=SourceRef("schema.sql", 7)),
              indexes=(Index("IX_t_lvl", (IndexColumn("lvl"),)),))
    p = plan(t)
    assert "lvl" not in ddl_of(p) and "IX_t_lvl" not in "\n".join(p.table("dbo", "t").post_data_ddl)
    messages = [f.message for f in codes(p, "TY20")]
    assert any("value" in m for m in messages) and any("IX_t_lvl" in m for m in messages)


def test_a_hierarchyid_level_becomes_a_generated_column_over_the_stored_path():
    t = table(col("node", "hierarchyid", True),
              Column("lvl", DataType("sql_variant"), computed=Computed("([node].[GetLevel]())")),
              indexes=(Index("IX_t_lvl", (IndexColumn("lvl"), IndexColumn("node"))),))
    p = plan(t)
    ddl = ddl_of(p)
    assert "node VARCHAR(1024) CHARACTER SET ascii COLLATE ascii_bin NULL" in ddl
    assert "GENERATED ALWAYS AS (CHAR_LENGTH(`node`) - CHAR_LENGTH(REPLACE(`node`, '/', '')) - 1) VIRTUAL" in ddl
    assert not codes(p, "TY20") and "IX_t_lvl" in "\n".join(p.table("dbo", "t").post_data_ddl)


def test_rowversion_is_nullable_binary8():
    p = plan(table(col("rv", "rowversion")))
    assert "rv BINARY(8) NULL" in ddl_of(p) and codes(p, "TY06")[0].severity.value == "high"


def test_period_columns_of_a_temporal_table_get_defaults():
    p = plan(table(Column("valid_from", DataType("datetime2", scale=7), False, generated_always="row_start"),
                   Column("valid_to", DataType("datetime2", scale=7), False, generated_always="row_end")))
    ddl = ddl_of(p)
    assert "valid_from DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)" in ddl
    assert "valid_to DATETIME(6) NOT NULL DEFAULT '9999-12-31 23:59:59.999999'" in ddl


def test_column_collations():
    p = plan(table(col("ci", "nvarchar", length=10), col("cs", "nvarchar", length=10, collation="Latin1_General_CS_AS"),
                   col("bin", "varchar", length=10, collation="Latin1_General_BIN2")),
             collation="SQL_Latin1_General_CP1_CI_AS")
    ddl = ddl_of(p)
    assert "ci VARCHAR(10) NOT NULL," in ddl and "COLLATE=utf8mb4_general_ci" in ddl
    assert "cs VARCHAR(10) COLLATE utf8mb4_bin NOT NULL" in ddl and "bin VARCHAR(10) COLLATE utf8mb4_bin NOT NULL" in ddl
    [ci] = codes(p, "TY12")
    assert ci.object == "SQL_Latin1_General_CP1_CI_AS" and "stay case-insensitive" in ci.message
    assert sorted(f.object for f in codes(p, "TY13")) == ["Latin1_General_BIN2", "Latin1_General_CS_AS"]


def test_case_insensitive_collation_names_the_new_collation_framework():
    p = plan(table(col("name", "nvarchar", length=10)), collation="SQL_Latin1_General_CP1_CI_AS")
    [ci] = codes(p, "TY12")
    assert ci.message.endswith(
        "; utf8mb4_general_ci compares case-insensitively only under TiDB's new collation framework "
        "(new_collations_enabled_on_first_bootstrap, fixed when the cluster is first bootstrapped; on by default for "
        "clusters first bootstrapped on v6.0 or later), and without it TiDB compares as utf8mb4_bin: check an existing "
        "cluster with SELECT VARIABLE_VALUE FROM mysql.tidb WHERE VARIABLE_NAME = 'new_collation_enabled'")
    from sqlsrv2tidb.options import Version

    old = build_plan(capture(table(col("name", "nvarchar", length=10)), collation="SQL_Latin1_General_CP1_CI_AS"),
                     Options(tidb_version=Version.parse("5.4")))
    assert ("off by default before v6.0, as for TiDB 5.4.0: set it to true before the cluster's first start"
            in codes(old, "TY12")[0].message)


def _alias_plan(config=None):
    name = UserType("dbo", "Name", DataType("nvarchar", length=50), nullable=False, source=SourceRef("types.sql", 3))
    return plan(table(col("first", "nvarchar", length=50, alias="dbo.Name"), col("last", "nvarchar", length=50, alias="dbo.Name")),
                user_types=(name,), config=config)


def test_alias_type_uses_its_base_type():
    [alias] = codes(_alias_plan(), "TY11")
    assert alias.message == "alias type dbo.Name (nvarchar(50)) does not exist in TiDB; its 2 column(s) use the base type directly"


def test_alias_type_overridden_by_config_says_what_its_columns_get():
    p = _alias_plan({"types": {"dbo.Name": "VARCHAR(60)"}})
    assert "first VARCHAR(60) NOT NULL" in ddl_of(p)
    [alias] = codes(p, "TY11")
    assert alias.message == ("alias type dbo.Name (nvarchar(50)) does not exist in TiDB; of its 2 column(s), 2 get "
                             "VARCHAR(60) from `types: dbo.name` in overrides.yaml")
    [alias] = codes(_alias_plan({"columns": {"dbo.t.first": "VARCHAR(20)"}}), "TY11")
    assert alias.message == ("alias type dbo.Name (nvarchar(50)) does not exist in TiDB; of its 2 column(s), 1 get "
                             "VARCHAR(20) from `columns:` in overrides.yaml, and 1 use the base type directly")


def test_column_override_changes_one_column():
    p = plan(table(col("c", "nvarchar", length=200), col("d", "nvarchar", length=200)), config={"columns": {"dbo.t.c": "VARCHAR(40)"}})
    ddl = ddl_of(p)
    assert "c VARCHAR(40) NOT NULL" in ddl and "d VARCHAR(200) NOT NULL" in ddl
    assert p.table("dbo", "t").columns[1].notes == ("type from columns: dbo.t.c",)


def test_unused_overrides_are_reported():
    p = plan(table(), config={"types": {"geography": "LONGBLOB"}, "columns": {"dbo.t.nope": "INT"}})
    assert sorted(f.object for f in codes(p, "TY26")) == ["columns: dbo.t.nope", "types: geography"]


def test_wide_rows_get_text_columns():
    wide = [col(f"c{i}", "nvarchar", True, length=4000) for i in range(5)]
    p = plan(table(*wide, indexes=(Index("IX_t_c0", (IndexColumn("c0"),)),)))
    ddl = ddl_of(p)
    assert ddl.count(" TEXT NULL") == 1 and "c0 VARCHAR(4000) NULL" in ddl  # an indexed column stays VARCHAR
    assert "become TEXT" in codes(p, "TY15")[0].message


def test_long_keys_get_prefixes():
    p = plan(table(col("a", "nvarchar", length=450), col("b", "nvarchar", length=450),
                   indexes=(Index("IX_t_ab", (IndexColumn("a"), IndexColumn("b"))),
                            Index("UX_t_ab", (IndexColumn("a"), IndexColumn("b")), unique=True))))
    post = "\n".join(p.table("dbo", "t").post_data_ddl)
    assert "CREATE INDEX IX_t_ab ON t (a(318), b);" in post
    severities = sorted(f.severity.value for f in codes(p, "TY16"))
    assert severities == ["high", "medium"]


def test_long_and_clashing_names():
    long_col = "c" * 70
    p = plan(table(col(long_col, "int"),
                   indexes=(Index("IX_" + "x" * 70, (IndexColumn("id"),)),),
                   unique_keys=(Key("dup", (IndexColumn(long_col),)),)) ,)
    ddl = ddl_of(p)
    short = [c.name for c in p.table("dbo", "t").columns if c.name.startswith("ccc")][0]
    assert len(short) == 64 and f"{short} INT NOT NULL" in ddl
    assert codes(p, "TY21") and codes(p, "TY22")


def test_filtered_indexes_and_include():
    t = table(col("code", "int", True), col("active", "bit"), col("name", "nvarchar", length=50),
              indexes=(Index("UX_t_code_active", (IndexColumn("code"),), unique=True, filter="([active]=(1))"),
                       Index("UX_t_code", (IndexColumn("code"),), unique=True, filter="([code] IS NOT NULL)"),
                       Index("IX_t_name", (IndexColumn("name", descending=True),), include=("active",))))
    p = plan(t)
    post = "\n".join(p.table("dbo", "t").post_data_ddl)
    assert "CREATE INDEX UX_t_code_active ON t (code);" in post
    assert "CREATE UNIQUE INDEX UX_t_code ON t (code);" in post
    assert "CREATE INDEX IX_t_name ON t (name DESC, active);" in post
    assert "INCLUDE (active) appended" in post
    assert [f.object for f in codes(p, "TY23")] == ["dbo.t.UX_t_code_active"]


def test_check_constraints():
    t = table(col("qty", "int"),
              checks=(CheckConstraint("CK_t_qty", "([qty]>(0))"),
                      CheckConstraint("CK_t_fn", "([dbo].[IsValid]([qty])=(1))", source=SourceRef("schema.sql", 9)),
                      CheckConstraint("CK_t_off", "([qty]<(5))", disabled=True)))
    p = plan(t)
    ddl = ddl_of(p)
    assert "CONSTRAINT CK_t_qty CHECK (`qty` > (0))" in ddl and "CK_t_fn" not in ddl and "CK_t_off" not in ddl
    [finding] = codes(p, "TY24")
    assert finding.line == 9


def test_check_and_view_on_a_left_out_column_are_left_out_too():
    from sqlsrv2tidb.model import Module

    t = table(col("doc", "xml", True),
              Column("lvl", DataType("sql_variant"), computed=Computed("([doc].[value]('(/a)[1]', 'int'))")),
              checks=(CheckConstraint("CK_t_lvl", "([lvl]<(10))"),))
    view = Module("dbo", "v_levels", "view", "CREATE VIEW dbo.v_levels AS SELECT id, lvl FROM dbo.t",
                  source=SourceRef("views.sql", 3))
    p = plan(t, modules=(view,))
    assert "CK_t_lvl" not in ddl_of(p)
    assert "lvl, which is left out" in codes(p, "TY24")[0].message
    views = next(f for f in p.files if f.name == "06-views.sql")
    assert views.statements == 0 and "--   CREATE VIEW dbo.v_levels AS SELECT id, lvl FROM dbo.t" in views.content
    [finding] = [f for f in codes(p, "TY20") if f.object == "dbo.v_levels"]
    assert (finding.file, finding.line) == ("views.sql", 3)


def test_computed_string_types_are_long_enough_for_their_parts():
    from sqlsrv2tidb.plan.columns import infer_type
    from sqlsrv2tidb.translate.types import TypeMapper

    t = table(col("a", "nvarchar", length=100), col("m", "nvarchar", True, length=MAX))
    mapper = TypeMapper()
    assert infer_type("CONCAT(`a`, 'x')", t, mapper) == "VARCHAR(101)"
    assert infer_type("COALESCE(CONCAT(N'SO', CAST(`id` AS CHAR(23))), N'*** ERROR ***')", t, mapper) == "VARCHAR(25)"
    assert infer_type("CONCAT(`a`, ' ', `m`)", t, mapper) == "LONGTEXT"  # a TEXT part has no bound
    assert infer_type("JSON_UNQUOTE(JSON_EXTRACT(`m`, '$.x'))", t, mapper) == "VARCHAR(4000)"
    assert infer_type("`id` * 2", t, mapper) == "INT"
