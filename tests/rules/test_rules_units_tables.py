"""Table and constraint checks (TB) on hand-built models, including their TiDB version gates."""

from __future__ import annotations

import pytest
from rules_models import col, findings, module, table

from sqlsrv2tidb.model import (
    Capture,
    CheckConstraint,
    Column,
    Computed,
    Database,
    DataType,
    ForeignKey,
    PartitionFunction,
    PartitionScheme,
    Sequence,
    TablePartitioning,
    Temporal,
)
from sqlsrv2tidb.model.plan import ColumnPlan, MigrationPlan, TablePlan
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.rules.engine import run_rules


def by_rule(db: Database, code: str, version: str = "8.5"):
    return [f for f in findings(db, version) if f.rule == code]


def test_memory_optimized_and_temporal_tables():
    db = Database(tables=(
        table("Cache", memory_optimized=True, durability="schema_only"),
        table("Cities", temporal=Temporal("ValidFrom", "ValidTo", "Application", "Cities_Archive")),
    ))
    (mem,) = by_rule(db, "TB01")
    assert "SCHEMA_ONLY" in mem.message
    (tmp,) = by_rule(db, "TB02")
    assert tmp.details["history_table"] == "Application.Cities_Archive"


def test_computed_columns_that_tidb_cannot_express():
    db = Database(tables=(table(
        "Customer", col("id"), col("Node", "hierarchyid"),
        Column("Account", DataType("varchar", 10), computed=Computed("isnull('AW'+[dbo].[ufnLeadingZeros]([id]),'')")),
        Column("Level", DataType("smallint"), computed=Computed("[Node].[GetLevel]()")),
        Column("Age", DataType("int"), computed=Computed("datediff(year,[Born],getdate())")),
        Column("Total", DataType("money"), computed=Computed("isnull([a]*[b],(0))", persisted=True)),
    ),))
    got = {f.object: f.details["reasons"] for f in by_rule(db, "TB03")}
    assert got == {"dbo.Customer.Account": ["user_function"], "dbo.Customer.Level": ["type_method"],
                   "dbo.Customer.Age": ["nondeterministic"]}


def test_sequence_shared_by_two_tables_but_not_one():
    seqs = (Sequence("Sequences", "TransactionID"), Sequence("Sequences", "OrderID"))
    def t(name, seq):
        return table(name, Column("id", DataType("int"), default=f"(NEXT VALUE FOR [Sequences].[{seq}])"))
    db = Database(sequences=seqs, tables=(t("A", "TransactionID"), t("B", "TransactionID"), t("C", "OrderID")),
                  modules=(module("p", "procedure", "CREATE PROCEDURE p AS SELECT NEXT VALUE FOR Sequences.TransactionID"),))
    (f,) = by_rule(db, "TB04")
    assert f.object == "Sequences.TransactionID"
    assert f.details == {"columns": ["dbo.A.id", "dbo.B.id"], "modules": ["dbo.p"]}


def test_masked_and_encrypted_columns():
    db = Database(tables=(table("S", col("id"), col("Bank", "nvarchar", 20, masked=True),
                                col("SSN", "char", 11, encrypted=True)),))
    assert by_rule(db, "TB05")[0].details["columns"] == ["Bank"]
    assert by_rule(db, "TB06")[0].details["columns"] == ["SSN"]


def test_partition_scheme_names_its_function():
    db = Database(
        partition_functions=(PartitionFunction("PF", DataType("date"), ("'2024-01-01'",), range_right=True),),
        partition_schemes=(PartitionScheme("PS", "PF", ("PRIMARY",)),),
        tables=(table("Tx", partitioning=TablePartitioning("PS", "TransactionDate")),),
    )
    (f,) = by_rule(db, "TB07")
    assert f.details["function"] == "PF" and f.details["range_right"] is True


def test_identifiers_over_64_characters_as_tidb_will_name_them():
    long = "x" * 65
    merged = "y" * 60  # Sales.yyy... becomes Sales_yyy... beside dbo.yyy...: 66 characters
    db = Database(tables=(table(long, col("id"), col("z" * 70)), table(merged, schema="Sales"), table(merged)))
    got = sorted((f.object, f.details["length"]) for f in by_rule(db, "TB08"))
    assert got == [(f"Sales.{merged}", 66), (f"dbo.{long}", 65)]  # the long column is the planner's (TY21)


CHECKS = Database(tables=(table("P", col("id"), col("Price", "money"), checks=(
    CheckConstraint("CK_Price", "([Price]>=(0))"),
    CheckConstraint("CK_Born", "([Born]<=dateadd(year,(-18),getdate()))", not_trusted=True),
)),))


@pytest.mark.parametrize(("version", "expected"), [
    ("7.1", {"TB10"}),
    ("7.2", {"TB11", "TB12"}),
    ("8.5", {"TB11", "TB12"}),
])
def test_check_constraint_rules_follow_the_tidb_version(version, expected):
    got = {f.rule for f in findings(CHECKS, version)} & {"TB10", "TB11", "TB12"}
    assert got == expected


def test_check_switch_is_one_finding_naming_untrusted_constraints():
    (f,) = by_rule(CHECKS, "TB11")
    assert f.details["not_enforced"] == ["dbo.P.CK_Born"] and "NOT ENFORCED" in f.message
    (bad,) = by_rule(CHECKS, "TB12")
    assert bad.object == "dbo.P.CK_Born" and bad.details["reasons"] == ["nondeterministic"]


FKS = Database(tables=(
    table("Parent"),
    table("Child", col("id"), col("pid"), foreign_keys=(
        ForeignKey("FK_Child_Parent", ("pid",), "dbo", "Parent", ("id",), on_delete="set_default"),
    )),
))


@pytest.mark.parametrize(("version", "expected"), [
    ("6.5", {"TB13"}),
    ("6.6", {"TB14", "TB16"}),
    ("8.4", {"TB14", "TB16"}),
    ("8.5", {"TB16"}),
])
def test_foreign_key_rules_follow_the_tidb_version(version, expected):
    got = {f.rule for f in findings(FKS, version)} & {"TB13", "TB14", "TB16"}
    assert got == expected


def test_partitioned_table_lists_the_foreign_keys_partitioning_would_lose():
    parent = FKS.tables[0].__class__(**{**FKS.tables[0].__dict__, "partitioning": TablePartitioning("PS", "id")})
    (f,) = by_rule(Database(tables=(parent, FKS.tables[1])), "TB07")
    assert f.details["foreign_keys"] == ["dbo.Child.FK_Child_Parent"] and "rules out its foreign keys" in f.message


def test_computed_columns_the_planner_already_dropped_are_not_reported_twice():
    db = Database(tables=(table("C", col("id"), Column("Now", DataType("datetime"), computed=Computed("(getdate())")),
                                Column("Later", DataType("datetime"), computed=Computed("(sysdatetime())"))),))
    kept = TablePlan("dbo", "C", "`C`", (ColumnPlan("id", "int", "INT"), ColumnPlan("Later", "datetime", "DATETIME")))
    got = run_rules(Capture(database=db), Options(), plan=MigrationPlan(tables=(kept,)))
    tb03 = [f for f in got if f.rule == "TB03"]
    assert [f.object for f in tb03] == ["dbo.C.Later"] and "keeps it as a generated column" in tb03[0].message
    assert len(by_rule(db, "TB03")) == 2
