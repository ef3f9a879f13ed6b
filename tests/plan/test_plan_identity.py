"""Identity columns and sequences: AUTO_INCREMENT with AUTO_ID_CACHE=1, seeds, steps, and CACHE vs NOCACHE."""

from __future__ import annotations

import pytest
from plan_models import capture, col, insert_workload, pk

from sqlsrv2tidb.model import Column, DataType, Identity, Sequence, SourceRef, Table
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.plan.migration import build_plan


def plan(*tables, sequences=(), workload=None, config=None):
    return build_plan(capture(*tables, sequences=tuple(sequences), workload=workload), Options(config=config or {}))


def codes(p, rule):
    return [f for f in p.findings if f.rule == rule]


def orders(seed=1, increment=1, type_name="int", key=True) -> Table:
    ident = Column("id", DataType(type_name, precision=10 if type_name == "numeric" else None), False,
                   identity=Identity(seed, increment), source=SourceRef("schema.sql", 3))
    return Table("dbo", "orders", (ident, col("ref", "nvarchar", length=20)),
                 primary_key=pk("id") if key else pk("ref"), source=SourceRef("schema.sql", 2))


def test_identity_becomes_auto_increment_with_auto_id_cache_1():
    p = plan(orders())
    ddl = p.table("dbo", "orders").ddl
    assert "id INT NOT NULL AUTO_INCREMENT," in ddl and "/*T![auto_id_cache] AUTO_ID_CACHE=1 */" in ddl
    assert "AUTO_INCREMENT=" not in ddl
    [finding] = codes(p, "ID01")
    assert (finding.object, finding.file, finding.line) == ("dbo.orders.id", "schema.sql", 3)
    assert p.table("dbo", "orders").columns[0].identity == "auto_increment"


def test_seed_becomes_the_table_option():
    assert "AUTO_INCREMENT=1000 /*T![auto_id_cache] AUTO_ID_CACHE=1 */" in plan(orders(seed=1000)).table("dbo", "orders").ddl


def test_increment_other_than_one_is_a_finding():
    p = plan(orders(increment=10))
    [finding] = codes(p, "ID02")
    assert "IDENTITY(1,10)" in finding.message and "no per-table increment" in finding.message


def test_seed_below_one_is_a_finding():
    assert "starts at 1" in codes(plan(orders(seed=0)), "ID02")[0].message


def test_identity_sequence_from_config_keeps_the_step():
    p = plan(orders(seed=5, increment=10), config={"tables": {"dbo.orders": {"identity": "sequence"}}})
    seq = next(f for f in p.files if f.name == "01-sequences.sql").content
    assert "CREATE SEQUENCE orders_id_seq START WITH 5 INCREMENT BY 10" in seq and "CACHE 1000" in seq
    assert "id INT NOT NULL DEFAULT NEXT VALUE FOR orders_id_seq" in p.table("dbo", "orders").ddl
    assert p.table("dbo", "orders").columns[0].identity == "sequence"


SEQUENCE_CONFIG = {"tables": {"dbo.orders": {"identity": "sequence"}}}


def _sequence_sql(p) -> str:
    return next(line for line in next(f for f in p.files if f.name == "01-sequences.sql").content.splitlines()
                if line.startswith("CREATE SEQUENCE"))


@pytest.mark.parametrize(("type_name", "tidb_type", "maximum"), [
    ("int", "INT", 2147483647),
    ("smallint", "SMALLINT", 32767),
    ("tinyint", "TINYINT UNSIGNED", 255),
    ("bigint", "BIGINT", 9223372036854775806),
    ("numeric", "BIGINT", 9223372036854775806),
])
def test_identity_sequence_stops_at_the_columns_maximum(type_name, tidb_type, maximum):
    p = plan(orders(type_name=type_name), config=SEQUENCE_CONFIG)
    assert _sequence_sql(p) == (f"CREATE SEQUENCE orders_id_seq START WITH 1 INCREMENT BY 1 MINVALUE 1 MAXVALUE {maximum} "
                                "CACHE 1000 NOCYCLE;")
    assert f"id {tidb_type} NOT NULL DEFAULT NEXT VALUE FOR orders_id_seq," in p.table("dbo", "orders").ddl


def test_identity_sequence_follows_a_configured_column_type():
    p = plan(orders(), config={**SEQUENCE_CONFIG, "columns": {"dbo.orders.id": "BIGINT"}})
    assert "MAXVALUE 9223372036854775806" in _sequence_sql(p)


def test_identity_sequence_bounds_hold_its_seed():
    # TiDB refuses a sequence whose START WITH lies outside MINVALUE..MAXVALUE.
    assert _sequence_sql(plan(orders(seed=0), config=SEQUENCE_CONFIG)) == (
        "CREATE SEQUENCE orders_id_seq START WITH 0 INCREMENT BY 1 MINVALUE 0 MAXVALUE 2147483647 CACHE 1000 NOCYCLE;")
    assert _sequence_sql(plan(orders(seed=-1, increment=-1), config=SEQUENCE_CONFIG)) == (
        "CREATE SEQUENCE orders_id_seq START WITH -1 INCREMENT BY -1 MINVALUE -2147483648 MAXVALUE -1 CACHE 1000 NOCYCLE;")


def test_identity_not_leading_a_key_gets_an_index():
    ddl = plan(orders(key=False)).table("dbo", "orders").ddl
    assert "KEY ix_orders_id_auto (id)" in ddl


def test_identity_on_numeric_becomes_bigint():
    p = plan(orders(type_name="numeric"))
    assert "id BIGINT NOT NULL AUTO_INCREMENT" in p.table("dbo", "orders").ddl
    assert codes(p, "ID06")


SEQ = Sequence("Sequences", "OrderID", DataType("int"), start=None, increment=1, source=SourceRef("seq.sql", 1))


def _seq_table() -> Table:
    return Table("Sales", "Orders", (Column("OrderID", DataType("int"), False, default="(NEXT VALUE FOR [Sequences].[OrderID])"),
                                     col("note", "nvarchar", True, length=10)), primary_key=pk("OrderID"))


def test_sequence_nocache_at_a_low_insert_rate():
    p = plan(_seq_table(), sequences=[SEQ], workload=insert_workload("Sales.Orders", 20))
    seq = next(f for f in p.files if f.name == "01-sequences.sql").content
    # SQL Server starts an int sequence at its minimum when START WITH is not given.
    assert "CREATE SEQUENCE OrderID START WITH -2147483648 INCREMENT BY 1 MINVALUE -2147483648 MAXVALUE 2147483647 NOCACHE NOCYCLE;" in seq
    assert "OrderID INT NOT NULL DEFAULT NEXT VALUE FOR OrderID" in p.table("Sales", "Orders").ddl
    [finding] = codes(p, "ID03")
    assert "NOCACHE" in finding.message and finding.details["used_by"] == ["Sales.Orders"]


def test_sequence_cache_at_a_high_insert_rate():
    seq = next(f for f in plan(_seq_table(), sequences=[SEQ], workload=insert_workload("Sales.Orders", 900)).files
               if f.name == "01-sequences.sql").content
    assert "CACHE 1000 NOCYCLE" in seq


def test_sequence_cache_when_the_rate_is_unknown():
    p = plan(_seq_table(), sequences=[SEQ])
    assert "no captured insert rate" in codes(p, "ID03")[0].message


def test_sequence_keeps_sql_servers_cache_size():
    seq = Sequence("dbo", "s", DataType("bigint"), start=1, increment=1, cache_size=50)
    assert "CACHE 50" in next(f for f in plan(sequences=[seq]).files if f.name == "01-sequences.sql").content


def test_before_6_4_auto_id_cache_1_is_not_used():
    from sqlsrv2tidb.options import Version

    p = build_plan(capture(orders()), Options(tidb_version=Version.parse("6.1")))
    assert "AUTO_ID_CACHE" not in p.table("dbo", "orders").ddl
    assert "only increasing per TiDB server" in codes(p, "ID01")[0].message
