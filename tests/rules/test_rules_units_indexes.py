"""Index checks (IX) on hand-built models."""

from __future__ import annotations

from rules_models import col, findings, index, module, table

from sqlsrv2tidb.model import Capture, Database, IndexColumn, Key, Severity
from sqlsrv2tidb.model.plan import MigrationPlan, TablePlan
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.rules.engine import run_rules


def by_rule(db: Database, code: str):
    return [f for f in findings(db) if f.rule == code]


def test_special_index_kinds_each_raise_their_rule():
    t = table("Doc", col("id"), col("Body", "nvarchar", -1), col("Shape", "geography"), col("X", "xml"),
              indexes=(index("FT", "Body", kind="fulltext"), index("PXML_X", "X", kind="xml"),
                       index("SIX", "Shape", kind="spatial"), index("CCI", "id", kind="columnstore", clustered=True),
                       index("H", "id", kind="hash")))
    got = {f.rule: f for f in findings(Database(tables=(t,)))}
    assert {"IX01", "IX02", "IX03", "IX08", "IX09"} <= set(got)
    assert "clustered columnstore" in got["IX08"].message and "TIFLASH REPLICA" in got["IX08"].message
    assert got["IX02"].object == "dbo.Doc.PXML_X"


def test_fulltext_finding_names_the_modules_that_search_the_table():
    t = table("JobCandidate", col("id"), col("Resume", "nvarchar", -1), indexes=(index(None, "Resume", kind="fulltext"),))
    search = module("uspSearch", "procedure",
                    "CREATE PROCEDURE dbo.uspSearch AS SELECT * FROM FREETEXTTABLE(JobCandidate, Resume, 'x')")
    (f,) = by_rule(Database(tables=(t,), modules=(search,)), "IX01")
    assert f.details["used_by"] == ["dbo.uspSearch"]


def test_filtered_index_severity_follows_what_dropping_the_filter_would_do():
    t = table("T", col("id"), col("a"), col("b"), indexes=(
        index("plain", "a", filter="b = 1"),
        index("uniq", "a", unique=True, filter="([b]=(1))"),
        index("notnull", "a", unique=True, filter="([a] IS NOT NULL)"),
    ))
    got = {f.object.rsplit(".", 1)[1]: f.severity for f in by_rule(Database(tables=(t,)), "IX04")}
    assert got == {"plain": Severity.LOW, "uniq": Severity.HIGH, "notnull": Severity.INFO}
    # With a plan, the planner makes the unique one non-unique and says so (TY23): no second finding.
    plan = MigrationPlan(tables=(TablePlan("dbo", "T", "`T`", ()),))
    planned = run_rules(Capture(database=Database(tables=(t,))), Options(), plan=plan)
    assert sorted(f.object for f in planned if f.rule == "IX04") == ["dbo.T.notnull", "dbo.T.plain"]


def test_include_and_descending_keys():
    t = Database(tables=(table("T", col("id"), col("a"), col("b"), indexes=(
        index("cover", "a", include=("b",)), index("recent", "a DESC", "b"),
    )),))
    (inc,) = by_rule(t, "IX05")
    assert inc.details == {"table": "dbo.T", "key": ["a"], "include": ["b"]}
    (desc,) = by_rule(t, "IX06")
    assert desc.details["descending"] == ["a"]


def test_descending_primary_key_is_reported_too():
    t = table("T", col("id"))
    t = type(t)(**{**t.__dict__, "primary_key": Key("PK_T", (IndexColumn("id", True),), clustered=True)})
    assert [f.object for f in by_rule(Database(tables=(t,)), "IX06")] == ["dbo.T.PK_T"]


def test_indexed_views_and_views_without_indexes():
    indexed = module("VTotals", "view", "CREATE VIEW dbo.VTotals WITH SCHEMABINDING AS SELECT 1 AS a",
                     is_schema_bound=True, indexes=(index("IX_VTotals", "a", unique=True, clustered=True),))
    plain = module("VPlain", "view", "CREATE VIEW dbo.VPlain AS SELECT 1 AS a")
    got = by_rule(Database(modules=(indexed, plain)), "IX07")
    assert [f.object for f in got] == ["dbo.VTotals"] and got[0].details["indexes"] == ["IX_VTotals"]


def test_clustered_index_other_than_the_primary_key():
    t = table("Reading", col("id"), col("ReadAt", "datetime2"), indexes=(index("CX", "ReadAt", clustered=True),))
    (f,) = by_rule(Database(tables=(t,)), "IX10")
    assert f.details["columns"] == ["ReadAt"] and f.details["primary_key"] == ["id"]
    assert not by_rule(Database(tables=(table("T", indexes=(index("NC", "id"),)),)), "IX10")
    history = table("T_Archive", col("id"), pk=(), is_history_table=True, indexes=(index("ix", "id", clustered=True),))
    assert not by_rule(Database(tables=(history,)), "IX10")
