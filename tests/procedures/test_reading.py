"""Reading procedures: the head, the body's blocks, and what cannot run, each with its construct and line; the
corpora's 153 procedures never crash the reader. No server is needed."""

from __future__ import annotations

from pathlib import Path

import pytest
from paths import CORPUS

from sqlsrv2tidb import api
from sqlsrv2tidb.model import Database, Module, Parameter, QueryClass, SourceRef, Workload
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.procedures import blocks
from sqlsrv2tidb.procedures import program as p
from sqlsrv2tidb.procedures.catalog import Procedures
from sqlsrv2tidb.procedures.compiler import compile_batch
from sqlsrv2tidb.procedures.header import read_head
from sqlsrv2tidb.procedures.workload import captured_calls
from sqlsrv2tidb.translate.naming import NameMap

CORPORA = {"northwind": CORPUS / "northwind" / "instnwnd.sql",
           "adventureworks": CORPUS / "adventureworks-oltp" / "instawdb.sql",
           "wideworldimporters": CORPUS / "wwi-oltp-ssdt"}


def test_the_head_reads_parameters_defaults_output_and_options():
    head = read_head("CREATE OR ALTER PROC [Sales].[Find] (@Id int, @Name nvarchar(50) = N'x, y', @Out money OUTPUT,\n"
                     "  @Rows dbo.IdList READONLY)\nWITH EXECUTE AS OWNER, RECOMPILE\nAS\nBEGIN SELECT 1 END")
    assert (head.schema, head.name) == ("Sales", "Find")
    assert [(x.name, x.type, x.default, x.output, x.readonly) for x in head.parameters] == [
        ("@Id", "int", None, False, False), ("@Name", "nvarchar(50)", "N'x, y'", False, False),
        ("@Out", "money", None, True, False), ("@Rows", "dbo.IdList", None, False, True)]
    assert head.options == ("EXECUTE AS", "RECOMPILE") and head.body_line == 4
    assert head.blockers == ()  # a table-valued parameter arrives as a temporary table the runner fills


def test_a_clr_procedure_and_a_numbered_one_cannot_run():
    clr = read_head("CREATE PROCEDURE dbo.Hash @x nvarchar(10)\nAS EXTERNAL NAME Lib.Class.Hash")
    assert [b.construct for b in clr.blockers] == ["CLR procedure"]
    numbered = read_head("CREATE PROCEDURE dbo.Old;2 @x int AS SELECT @x")
    assert [b.construct for b in numbered.blockers] == ["numbered procedure"]


def test_the_body_becomes_blocks_with_the_else_on_the_nearest_if():
    body, problems = blocks.read_body("IF @a = 1\n  IF @b = 1 SELECT 1\n  ELSE SELECT 2\nELSE\nBEGIN\n"
                                      "  WHILE @i < 3 BEGIN SET @i = @i + 1 END\nEND\nBEGIN TRY SELECT 3 END TRY\n"
                                      "BEGIN CATCH SELECT 4 END CATCH\nRETURN 5", 10)
    assert problems == []
    outer, tried, returned = body.nodes
    assert isinstance(outer, blocks.If) and outer.line == 10 and outer.condition == "@a = 1"
    assert isinstance(outer.then, blocks.If) and outer.then.otherwise is not None  # ELSE SELECT 2 is the inner IF's
    assert isinstance(outer.otherwise, blocks.Block)
    assert isinstance(outer.otherwise.nodes[0], blocks.While) and outer.otherwise.nodes[0].line == 15
    assert isinstance(tried, blocks.Try) and tried.line == 17 and len(tried.catch.nodes) == 1
    assert isinstance(returned, blocks.Control) and (returned.word, returned.rest) == ("RETURN", "5")


@pytest.mark.parametrize(("body", "message", "line"), [
    ("BEGIN\n SELECT 1\n", "the body ends before END", 2),
    ("SELECT 1\nEND", "END without a BEGIN before it", 2),
    ("SELECT 1\nELSE SELECT 2", "ELSE without an IF before it", 2),
    ("BEGIN TRY SELECT 1 END TRY\nSELECT 2", "END TRY is not followed by BEGIN CATCH", 1),
])
def test_unbalanced_control_flow_is_a_blocker_with_its_line(body, message, line):
    _, problems = blocks.read_body(body, 1)
    assert [(b.construct, b.message, b.line) for b in problems] == [("unbalanced control flow", message, line)]


def _programs(path: Path) -> tuple[Database, list]:
    database = api.read([path]).database
    catalog = Procedures(database)
    return database, catalog.summaries()


@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_every_corpus_procedure_either_runs_or_says_what_stops_it_and_where(corpus):
    database, summaries = _programs(CORPORA[corpus])
    assert len(summaries) == len(database.modules_of("procedure")) > 0
    for summary in summaries:
        if summary.runs:
            assert summary.status in ("translated", "rewritten", "review") and summary.statements > 0, summary.name
            continue
        assert summary.status == "unsupported" and summary.blockers, summary.name
        for blocker in summary.blockers:
            assert blocker.construct and blocker.message and blocker.line >= 1, (summary.name, blocker)
            where = summary.program.where(blocker.line)
            assert where.rsplit(":", 1)[-1].isdigit(), where  # the file and its line
    runs = sum(s.runs for s in summaries)
    print(corpus, f"{runs} of {len(summaries)} run")
    assert runs > 0


def test_northwind_procedures_all_run_and_only_read():
    _, summaries = _programs(CORPORA["northwind"])
    assert {s.name: (s.runs, s.reads_only) for s in summaries} == {
        name: (True, True) for name in ("dbo.CustOrderHist", "dbo.CustOrdersDetail", "dbo.CustOrdersOrders",
                                        "dbo.Employee Sales by Country", "dbo.Sales by Year", "dbo.SalesByCategory",
                                        "dbo.Ten Most Expensive Products")}


def test_a_captured_exec_is_a_call_of_the_procedure_with_the_classes_parameters():
    database = Database(modules=(Module("dbo", "P", "procedure", "CREATE PROCEDURE dbo.P @a int AS SELECT @a AS a"),
                                 Module("dbo", "W", "procedure",
                                        "CREATE PROCEDURE dbo.W @a int AS UPDATE dbo.T SET x = @a")))
    workload = Workload(queries=(
        QueryClass("q1", "exec dbo.p @a=@1", "exec dbo.P @a=@1", "exec", (Parameter("@1", "int"),), ((5,),)),
        QueryClass("q2", "exec w @1", "EXEC w @1", "exec", (Parameter("@1", "int"),)),
        QueryClass("q3", "exec dbo.missing", "EXEC dbo.Missing", "exec"),
        QueryClass("q4", "exec sp_executesql", "EXEC sp_executesql N'SELECT 1'", "exec"),
    ))
    calls = captured_calls(workload, Procedures(database))
    assert set(calls) == {"q1", "q2", "q3"}  # literal SQL through sp_executesql is the translator's
    assert calls["q1"].runs and calls["q1"].reads_only and calls["q1"].procedures == ("dbo.P",)
    assert calls["q2"].runs and calls["q2"].writes == ("UPDATE dbo.T (line 1) (dbo.W)",)
    assert not calls["q3"].runs and "the schema has no such procedure" in calls["q3"].stops
    batch = calls["q1"].plan.batch
    assert batch.wrapper and [x.name for x in batch.parameters] == ["@1"]
    assert calls["q1"].plan.resolve("[dbo].[p]") is calls["q1"].plan.resolve("P") is not None


def test_a_literal_batch_compiles_with_declared_parameters():
    database = Database()
    program = compile_batch("SELECT @x + 1 AS y", (Parameter("@x", "int"),), database, NameMap.for_database(database),
                            Options())
    assert program.runnable and isinstance(program.body, p.Steps)
    run = program.body.steps[0]
    assert isinstance(run, p.Run) and run.statements[0].sql == "SELECT ? + 1 AS y"
    assert run.statements[0].parameters == ("@x",)


def test_source_lines_of_a_catalog_definition_are_its_own():
    module = Module("dbo", "P", "procedure", "CREATE PROCEDURE dbo.P AS\nBEGIN\n  GOTO done\nEND",
                    source=SourceRef(None, None))
    summary = Procedures(Database(modules=(module,))).summary("dbo.P")
    assert summary is not None and summary.program.where(summary.blockers[0].line) == "line 3"


def test_a_call_through_a_synonym_runs_the_procedure_it_names():
    database = Database(modules=(Module("dbo", "P", "procedure", "CREATE PROCEDURE dbo.P AS EXEC dbo.Q"),
                                 Module("dbo", "Q", "procedure", "CREATE PROCEDURE dbo.Q AS SELECT 1 AS one"),
                                 Module("app", "Alias", "synonym", base_object="[dbo].[P]")))
    call = captured_calls(Workload(queries=(QueryClass("q1", "exec app.alias", "EXEC app.Alias", "exec"),)),
                          Procedures(database))["q1"]
    assert call.runs and call.procedures == ("dbo.P",)
    assert call.plan.resolve("app.Alias") is call.plan.resolve("dbo.P") is not None
    assert call.plan.resolve("dbo.Q") is not None
