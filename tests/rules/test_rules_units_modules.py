"""Module checks (MO) on hand-built models: inventory with size and effort, references, synonyms."""

from __future__ import annotations

from rules_models import col, findings, module, table

from sqlsrv2tidb.model import Capture, Database, IntervalStat, QueryClass, UserType, Workload
from sqlsrv2tidb.rules.checks_modules import module_effort_days, straight_port_days
from sqlsrv2tidb.rules.checks_views import dml_targets


def body(lines: int, statement: str = "SELECT 1;") -> str:
    return "CREATE PROCEDURE dbo.p AS\nBEGIN\n" + f"{statement}\n" * (lines - 3) + "END"


def test_every_procedure_function_and_trigger_is_inventoried_with_size_and_effort():
    db = Database(
        tables=(table("T"),),
        modules=(
            module("Small", "procedure", body(10)),
            module("Big", "procedure", body(400, "GOTO done;"), line=40),
            module("Port", "procedure", body(400)),
            module("Fn", "function", "CREATE FUNCTION dbo.Fn() RETURNS int AS BEGIN RETURN 1 END",
                   function_kind="scalar"),
            module("trg", "trigger", "CREATE TRIGGER dbo.trg ON dbo.T INSTEAD OF DELETE AS\nSELECT 1", parent="dbo.T"),
            module("ddl", "ddl_trigger", "CREATE TRIGGER ddl ON DATABASE FOR DDL_DATABASE_LEVEL_EVENTS AS\nSELECT 1",
                   schema=None),
        ),
    )
    by_code = {}
    for f in findings(db):
        by_code.setdefault(f.rule, []).append(f)
    procs = {f.object: f for f in by_code["MO01"]}
    assert set(procs) == {"dbo.Small", "dbo.Big", "dbo.Port"}
    assert procs["dbo.Small"].details["lines"] == 10 and procs["dbo.Small"].details["effort_days"] == 0.25
    # GOTO stops the procedure runner: the rewrite's effort by size, and what stops it.
    assert procs["dbo.Big"].details["lines"] == 400 and procs["dbo.Big"].details["effort_days"] == 3.0
    assert procs["dbo.Big"].details["runner"]["runs"] is False and "GOTO" in procs["dbo.Big"].message
    assert (procs["dbo.Big"].file, procs["dbo.Big"].line) == ("schema.sql", 40)
    assert "400 lines" in procs["dbo.Big"].message
    # One the runner runs as it stands is a straight port: a quarter of the rewrite's effort.
    port = procs["dbo.Port"]
    assert port.details["straight_port"] is True and port.details["effort_days"] == 0.75
    assert port.details["runner"] == {"runs": True, "statements": 397, "target_statements": 397, "status": "translated"}
    assert "runs it on the target as it stands (397 statement(s)" in port.message
    (fn,) = by_code["MO02"]
    assert fn.object == "dbo.Fn" and "scalar function" in fn.message
    (trg,) = by_code["MO03"]
    assert trg.details["timing"] == "INSTEAD OF" and trg.details["table"] == "dbo.T"
    (ddl,) = by_code["MO04"]
    assert ddl.object == "ddl"


def test_effort_grows_with_size_in_buckets_then_linearly():
    assert [module_effort_days(n) for n in (1, 30, 31, 150, 151, 500)] == [0.25, 0.25, 1, 1, 3, 3]
    assert module_effort_days(1000) == 6.0
    assert module_effort_days(501) == 3.25
    assert module_effort_days(0) == 3.0  # encrypted: size unknown
    assert [straight_port_days(n) for n in (10, 150, 400, 1000)] == [0.25, 0.25, 0.75, 1.5]


def test_encrypted_module_says_its_definition_is_missing():
    db = Database(modules=(module("Secret", "procedure", None),))
    (f,) = [f for f in findings(db) if f.rule == "MO01"]
    assert "definition not available" in f.message and f.details["effort_days"] == 3.0


def test_workload_executions_rank_procedures():
    db = Database(modules=(module("uspGetOrders", "procedure", body(20)),))
    workload = Workload(
        queries=(QueryClass("q1", "EXEC dbo.uspGetOrders @id = ?", "EXEC dbo.uspGetOrders @id = 1", kind="exec"),),
        intervals=(IntervalStat("q1", "2024-01-01T00:00:00Z", "2024-01-01T01:00:00Z", 7200),),
    )
    (f,) = [f for f in findings(db, capture=Capture(database=db, workload=workload)) if f.rule == "MO01"]
    assert f.details["executions"] == 7200 and f.details["workload_query_classes"] == 1


def test_clr_modules_are_reported_once_as_clr_not_as_procedures():
    db = Database(modules=(
        module("Regex", "function", "CREATE FUNCTION dbo.Regex(@s nvarchar(10)) RETURNS bit AS EXTERNAL NAME A.[B].C",
               is_clr=True, function_kind="scalar"),
    ))
    got = findings(db)
    assert [f.rule for f in got] == ["MO05"]
    assert got[0].details["external_name"] == "A.[B].C"


def test_cross_database_and_linked_server_references_point_at_their_line():
    definition = (
        "CREATE VIEW dbo.V AS\n"
        "SELECT o.OrderID, dbo.Orders.CustomerID, x.Doc.value('a', 'int') AS v\n"
        "FROM dbo.Orders o\n"
        "JOIN Archive.dbo.Orders a ON a.OrderID = o.OrderID\n"
        "JOIN [FINANCE].[Rates].dbo.Daily d ON 1 = 1\n"
        "CROSS JOIN OPENQUERY(FINANCE, 'select 1') q"
    )
    db = Database(name="Sales", modules=(module("V", "view", definition, line=100),))
    got = {f.rule: f for f in findings(db)}
    assert got["MO06"].details["references"] == ["Archive.dbo.Orders"]
    assert got["MO06"].line == 103
    assert got["MO07"].details["references"] == ["FINANCE.Rates.dbo.Daily", "OPENQUERY(FINANCE)"]
    assert got["MO07"].details["servers"] == ["FINANCE"]
    assert got["MO07"].line == 104


def test_references_to_the_current_database_are_not_cross_database():
    db = Database(name="Sales", modules=(module("V", "view", "CREATE VIEW dbo.V AS SELECT * FROM Sales.dbo.Orders"),))
    assert "MO06" not in {f.rule for f in findings(db)}


def test_synonyms_are_reported_and_classified_by_their_target():
    db = Database(name="Sales", modules=(
        module("Local", "synonym", None, base_object="[Sales].[dbo].[Customer]"),
        module("Other", "synonym", None, base_object="[Archive].[dbo].[Customer]"),
        module("Remote", "synonym", None, base_object="[SRV].[Archive].[dbo].[Customer]"),
    ))
    got = findings(db)
    assert sorted(f.object for f in got if f.rule == "MO08") == ["dbo.Local", "dbo.Other", "dbo.Remote"]
    assert [f.object for f in got if f.rule == "MO06"] == ["dbo.Other"]
    assert [f.object for f in got if f.rule == "MO07"] == ["dbo.Remote"]


def test_table_types_name_the_procedures_that_take_them():
    db = Database(
        user_types=(UserType("Website", "OrderIDList", is_table_type=True, columns=(col("OrderID"),)),),
        modules=(module("Invoice", "procedure",
                        "CREATE PROCEDURE dbo.Invoice @Orders Website.OrderIDList READONLY AS SELECT 1"),
                 module("Rebuild", "procedure",  # dynamic SQL that mentions the type is not a use of it
                        "CREATE PROCEDURE dbo.Rebuild AS EXEC (N'CREATE PROCEDURE x @o Website.OrderIDList READONLY')")),
    )
    (f,) = [f for f in findings(db) if f.rule == "MO09"]
    assert f.object == "Website.OrderIDList" and f.details["used_by"] == ["dbo.Invoice"]


def test_writes_through_a_view_are_found_in_modules_triggers_and_the_workload():
    view = module("ActivePerson", "view", "CREATE VIEW dbo.ActivePerson AS SELECT * FROM dbo.Person")
    db = Database(
        tables=(table("Person"),),
        modules=(
            view,
            module("Rename", "procedure", "CREATE PROCEDURE dbo.Rename AS\nUPDATE TOP (1) ActivePerson SET id = 1"),
            module("Reads", "procedure", "CREATE PROCEDURE dbo.Reads AS\nSELECT * FROM dbo.ActivePerson"),
            module("ioTrg", "trigger", "CREATE TRIGGER dbo.ioTrg ON dbo.ActivePerson INSTEAD OF INSERT AS SELECT 1",
                   parent="dbo.ActivePerson"),
        ),
    )
    workload = Workload(queries=(
        QueryClass("q1", "DELETE FROM dbo.activeperson WHERE id = ?", "DELETE FROM dbo.ActivePerson WHERE id = 1",
                   kind="delete"),
    ))
    (f,) = [f for f in findings(db, capture=Capture(database=db, workload=workload)) if f.rule == "MO10"]
    assert f.object == "dbo.ActivePerson"
    assert f.details["writers"] == ["DELETE in workload query q1", "INSTEAD OF trigger dbo.ioTrg",
                                    "UPDATE in dbo.Rename"]


def test_dml_targets_reads_the_written_object_only():
    sql = "INSERT INTO [s].[t] (a) SELECT a FROM u; DELETE x FROM y; MERGE INTO m USING n ON 1=1 WHEN MATCHED THEN DELETE;"
    assert [(w, p) for w, p, _ in dml_targets(sql)] == [("INSERT", ["s", "t"]), ("DELETE", ["x"]), ("MERGE", ["m"])]
