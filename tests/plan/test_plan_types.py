"""The type and collation maps: every SQL Server type, its TiDB type, the loss it causes, and overrides."""

from __future__ import annotations

import pytest

from sqlsrv2tidb.model import MAX, DataType
from sqlsrv2tidb.translate.types import TYPE_LOSS_RULES, TypeMapper, type_info, validate_tidb_type

# Every system type SQL Server has (sys.types), plus json (SQL Server 2025).
# https://learn.microsoft.com/sql/t-sql/data-types/data-types-transact-sql
SQL_SERVER_TYPES = [
    "bigint", "binary", "bit", "char", "date", "datetime", "datetime2", "datetimeoffset", "decimal", "float",
    "geography", "geometry", "hierarchyid", "image", "int", "money", "nchar", "ntext", "numeric", "nvarchar",
    "real", "rowversion", "smalldatetime", "smallint", "smallmoney", "sql_variant", "sysname", "text", "time",
    "timestamp", "tinyint", "uniqueidentifier", "varbinary", "varchar", "xml", "json",
]


@pytest.fixture(scope="module")
def mapper() -> TypeMapper:
    return TypeMapper()


def test_every_sql_server_type_is_in_the_map(mapper):
    missing = [t for t in SQL_SERVER_TYPES if t not in mapper.types]
    assert not missing


@pytest.mark.parametrize(
    ("source", "target", "rules"),
    [
        (DataType("bit"), "TINYINT(1)", []),
        (DataType("tinyint"), "TINYINT UNSIGNED", []),
        (DataType("decimal"), "DECIMAL(18,0)", []),
        (DataType("numeric", precision=10), "DECIMAL(10,0)", []),
        (DataType("decimal", precision=38, scale=6), "DECIMAL(38,6)", []),
        (DataType("money"), "DECIMAL(19,4)", ["TY05"]),
        (DataType("smallmoney"), "DECIMAL(10,4)", ["TY05"]),
        (DataType("float"), "DOUBLE", []),
        (DataType("float", precision=24), "FLOAT", []),
        (DataType("real"), "FLOAT", []),
        (DataType("datetime"), "DATETIME(3)", []),
        (DataType("smalldatetime"), "DATETIME", []),
        (DataType("datetime2"), "DATETIME(6)", ["TY01"]),
        (DataType("datetime2", scale=7), "DATETIME(6)", ["TY01"]),
        (DataType("datetime2", scale=3), "DATETIME(3)", []),
        (DataType("time", scale=0), "TIME(0)", []),
        (DataType("time"), "TIME(6)", ["TY01"]),
        (DataType("datetimeoffset", scale=3), "DATETIME(3)", ["TY02"]),
        (DataType("datetimeoffset"), "DATETIME(6)", ["TY02", "TY01"]),
        (DataType("char", length=10), "CHAR(10)", []),
        (DataType("nchar", length=300), "VARCHAR(300)", ["TY14"]),
        (DataType("varchar", length=8000), "VARCHAR(8000)", []),
        (DataType("nvarchar", length=MAX), "LONGTEXT", ["TY04"]),
        (DataType("varbinary", length=MAX), "LONGBLOB", ["TY04"]),
        (DataType("binary", length=16), "BINARY(16)", []),
        (DataType("binary", length=300), "VARBINARY(300)", ["TY14"]),
        (DataType("text"), "LONGTEXT", ["TY04"]),
        (DataType("ntext"), "LONGTEXT", ["TY04"]),
        (DataType("image"), "LONGBLOB", ["TY04"]),
        (DataType("uniqueidentifier"), "CHAR(36)", ["TY03"]),
        (DataType("rowversion"), "BINARY(8)", ["TY06"]),
        (DataType("timestamp"), "BINARY(8)", ["TY06"]),
        (DataType("xml"), "LONGTEXT", ["TY07"]),
        (DataType("sql_variant"), "TEXT", ["TY08"]),
        (DataType("hierarchyid"), "VARCHAR(1024) CHARACTER SET ascii COLLATE ascii_bin", ["TY09"]),
        (DataType("geography"), "LONGBLOB", ["TY10"]),
        (DataType("geometry"), "LONGBLOB", ["TY10"]),
        (DataType("sysname"), "VARCHAR(128)", []),
        (DataType("nvarchar", length=50, alias="dbo.Name"), "VARCHAR(50)", []),
    ],
    ids=lambda v: str(v) if isinstance(v, DataType) else None,
)
def test_mapping_and_losses(mapper, source, target, rules):
    mapped = mapper.map_type(source)
    assert mapped.target == target
    assert [loss.rule for loss in mapped.losses] == rules
    for loss in mapped.losses:
        assert str(source.name) in loss.message


def test_loss_messages_name_the_type_and_the_limit(mapper):
    big = mapper.map_type(DataType("nvarchar", length=MAX))
    assert "nvarchar(max)" in big.losses[0].message and "6 MiB" in big.losses[0].message
    dto = mapper.map_type(DataType("datetimeoffset", scale=7))
    assert "offset" in dto.losses[0].message and "100 ns" in dto.losses[1].message


def test_every_target_is_a_valid_tidb_type(mapper):
    for name in mapper.types:
        mapped = mapper.map_type(DataType(name))
        assert validate_tidb_type(mapped.target) is None, (name, mapped.target)


def test_mapping_file_names_only_type_rules(mapper):
    rules = {loss["rule"] for e in mapper.types.values() for loss in e.get("losses", ())}
    rules |= {loss["rule"] for e in mapper.types.values() for v in e.get("variants", ()) for loss in v.get("losses", ())}
    assert rules == set(TYPE_LOSS_RULES)


def test_overrides_by_column_then_alias_then_type():
    mapper = TypeMapper(
        type_overrides={"uniqueidentifier": "BINARY(16)", "datetimeoffset": "DATETIME(6)", "dbo.Name": "VARCHAR(60)",
                        "nvarchar": "VARCHAR(999)"},
        column_overrides={"dbo.t.c": "VARCHAR(40)"},
    )
    guid = mapper.map_type(DataType("uniqueidentifier"))
    assert (guid.target, guid.losses, guid.override) == ("BINARY(16)", (), "types: uniqueidentifier")
    assert mapper.map_type(DataType("datetimeoffset", scale=7)).target == "DATETIME(6)"
    assert mapper.map_type(DataType("nvarchar", length=50, alias="dbo.Name")).target == "VARCHAR(60)"
    assert mapper.map_type(DataType("nvarchar", length=50)).target == "VARCHAR(999)"
    assert mapper.map_type(DataType("nvarchar", length=50), column_key="DBO.T.C").target == "VARCHAR(40)"
    assert {"types:uniqueidentifier", "columns:dbo.t.c", "types:dbo.name"} <= mapper.used_overrides


@pytest.mark.parametrize(
    ("source", "target", "kind"),
    [
        ("SQL_Latin1_General_CP1_CI_AS", "utf8mb4_general_ci", "case_insensitive"),
        ("Latin1_General_100_CI_AS_SC_UTF8", "utf8mb4_general_ci", "case_insensitive"),
        ("Japanese_XJIS_140_CI_AI", "utf8mb4_general_ci", "case_insensitive"),
        ("Latin1_General_CS_AS", "utf8mb4_bin", "case_sensitive"),
        ("Latin1_General_BIN2", "utf8mb4_bin", "binary"),
        ("Latin1_General_BIN", "utf8mb4_bin", "binary"),
        ("Weird_Name", "utf8mb4_bin", "unknown"),
    ],
)
def test_collations(mapper, source, target, kind):
    m = mapper.map_collation(source)
    assert (m.target, m.kind, m.assumed) == (target, kind, False)


def test_unnamed_collation_assumes_sql_servers_default(mapper):
    m = mapper.map_collation(None)
    assert m.assumed and m.source == "SQL_Latin1_General_CP1_CI_AS" and m.target == "utf8mb4_general_ci"


def test_collation_overrides_by_class_and_by_name():
    mapper = TypeMapper(collation_overrides={"case_insensitive": "utf8mb4_unicode_ci", "Latin1_General_CS_AS": "utf8mb4_general_ci"})
    assert mapper.map_collation("SQL_Latin1_General_CP1_CI_AS").target == "utf8mb4_unicode_ci"
    assert mapper.map_collation("Latin1_General_CS_AS").target == "utf8mb4_general_ci"
    assert mapper.map_collation("Latin1_General_BIN2").target == "utf8mb4_bin"


@pytest.mark.parametrize(
    ("target", "family", "row", "key"),
    [
        ("VARCHAR(100)", "string", 402, 400),
        ("CHAR(10)", "string", 40, 40),
        ("VARBINARY(892)", "binary", 894, 892),
        ("INT", "integer", 4, 4),
        ("TINYINT UNSIGNED", "integer", 1, 1),
        ("DATETIME(6)", "datetime", 8, 8),
        ("LONGTEXT", "text", 12, None),
        ("LONGBLOB", "blob", 12, None),
        ("DECIMAL(19,4)", "decimal", 10, 10),
    ],
)
def test_type_sizes(target, family, row, key):
    info = type_info(target)
    assert (info.family, info.row_bytes, info.key_bytes) == (family, row, key)


@pytest.mark.parametrize("bad", ["VARCHAR", "UUID", "not a type", ""])
def test_invalid_override_types_are_refused(bad):
    assert validate_tidb_type(bad) is not None
