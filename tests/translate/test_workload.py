"""Translating a whole workload: once per query class, findings for what needs a DBA, queries.sql,
assessment.json, and the `sqlsrv2tidb translate` command end to end."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sqlsrv2tidb import api
from sqlsrv2tidb.cli import app
from sqlsrv2tidb.model import (
    Capture,
    Column,
    Database,
    DataType,
    Event,
    IndexColumn,
    IntervalStat,
    Key,
    Parameter,
    QueryClass,
    Severity,
    Table,
    Workload,
)
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.translate import queries
from sqlsrv2tidb.translate.queries import render_queries_sql, translate_workload
from sqlsrv2tidb.translate.statements import read_batches
from sqlsrv2tidb.tsql.fingerprint import fingerprint, fingerprint_of_tokens, query_id

DATABASE = Database(
    name="shop",
    tables=(
        Table("dbo", "customers", (Column("id", DataType("int")), Column("first_name", DataType("nvarchar", length=50)),
                                   Column("last_name", DataType("nvarchar", length=50))),
              primary_key=Key("PK", (IndexColumn("id"),))),
    ),
)


def _class(text: str, parameters: tuple[Parameter, ...] = ()) -> QueryClass:
    fp = fingerprint(text)
    return QueryClass(id=query_id(fp), fingerprint=fp, text=text, parameters=parameters, kind="select")


CLASSES = (
    _class("(@P1 int)SELECT first_name + ' ' + last_name FROM dbo.customers WHERE id = @P1", (Parameter("@P1", "int"),)),
    _class("SELECT id FROM dbo.customers WITH (NOLOCK)"),
    _class("EXEC dbo.usp_report @day = 1"),
)


def _busy_capture(executions: int) -> Capture:
    """Few query classes, very many executions (events and per-minute intervals)."""
    events = tuple(
        Event(timestamp=f"2024-05-01T09:{(i // 60) % 60:02d}:{i % 60:02d}Z", query_id=CLASSES[i % 3].id, values=(i,))
        for i in range(executions)
    )
    intervals = tuple(
        IntervalStat(query_id=c.id, start="2024-05-01T09:00:00Z", end="2024-05-01T10:00:00Z", executions=executions // 3)
        for c in CLASSES
    )
    return Capture(database=DATABASE, workload=Workload(queries=CLASSES, intervals=intervals, events=events))


def test_each_query_class_is_translated_once_however_often_it_ran(monkeypatch):
    calls: list[str] = []
    original = queries.translate_sql

    def counting(sql, **kwargs):
        calls.append(sql)
        return original(sql, **kwargs)

    monkeypatch.setattr(queries, "translate_sql", counting)
    capture = _busy_capture(30_000)
    translation = translate_workload(capture, Options())
    assert len(calls) == 3
    assert sorted(calls) == sorted(c.text for c in CLASSES)
    assert [q.id for q in translation.queries] == [c.id for c in CLASSES]


def test_two_classes_of_one_fingerprint_share_one_translation(monkeypatch):
    calls: list[str] = []
    original = queries.translate_sql
    monkeypatch.setattr(queries, "translate_sql", lambda sql, **kw: calls.append(sql) or original(sql, **kw))
    twin = QueryClass(id="qtwin", fingerprint=CLASSES[1].fingerprint, text="SELECT id FROM dbo.customers WITH (nolock)")
    capture = Capture(database=DATABASE, workload=Workload(queries=(CLASSES[1], twin)))
    translation = translate_workload(capture, Options())
    assert len(calls) == 1
    assert [q.id for q in translation.queries] == [CLASSES[1].id, "qtwin"]
    assert translation.queries[1].source_sql == twin.text
    assert translation.queries[1].target_sql == translation.queries[0].target_sql == "SELECT id FROM customers"


def test_statuses_parameters_and_findings():
    translation = translate_workload(_busy_capture(30), Options())
    concat, nolock, exec_ = translation.queries
    assert (concat.status, concat.parameters) == ("rewritten", ("@P1",))
    assert concat.target_sql == "SELECT CONCAT(first_name, ' ', last_name) FROM customers WHERE id = ?"
    assert nolock.status == "rewritten" and [n.code for n in nolock.notes] == ["QY13"]
    assert exec_.status == "unsupported" and exec_.target_sql is None
    assert "usp_report" in exec_.notes[0].message
    high = [f for f in translation.findings if f.severity == Severity.HIGH]
    assert [(f.rule, f.object) for f in high] == [("QY24", f"query {exec_.id}")]
    info = {f.rule: f for f in translation.findings if f.severity == Severity.INFO}
    assert set(info) == {"QY03", "QY13"}
    assert info["QY03"].object == "1 query class" and info["QY03"].details["queries"] == [concat.id]


def test_queries_sql_shows_each_class_with_its_status_and_notes():
    translation = translate_workload(_busy_capture(3), Options())
    text = render_queries_sql(translation)
    assert text.startswith("-- sqlsrv2tidb: 3 query classes translated to TiDB (0 translated, 2 rewritten, 0 review, 1 unsupported).")
    concat, _, exec_ = translation.queries
    block = text.split(f"-- {concat.id} [rewritten] select\n")[1].split("\n\n")[0].splitlines()
    assert block == [
        "-- QY03: String `+` becomes CONCAT(); a NULL operand still gives NULL, as in SQL Server.",
        "-- parameters: @P1",
        "SELECT CONCAT(first_name, ' ', last_name) FROM customers WHERE id = ?;",
    ]
    unsupported = text.split(f"-- {exec_.id} [unsupported] select\n")[1].split("\n\n")[0].splitlines()
    assert unsupported[-2:] == ["-- no TiDB statement; the captured T-SQL:", "--   EXEC dbo.usp_report @day = 1"]
    assert all(line.startswith("--") for line in unsupported)


def test_an_empty_workload_translates_to_an_empty_file():
    translation = translate_workload(Capture(database=DATABASE), Options())
    assert translation.queries == () and translation.findings == ()
    assert "0 query classes" in render_queries_sql(translation)


runner = CliRunner()
SCHEMA = """CREATE TABLE dbo.customers (id INT NOT NULL PRIMARY KEY, first_name NVARCHAR(50) NOT NULL, last_name NVARCHAR(50) NULL);
GO
"""
WORKLOAD = """SELECT first_name + ' ' + last_name FROM dbo.customers WHERE id = 1
SELECT first_name + ' ' + last_name FROM dbo.customers WHERE id = 2
SELECT TOP 5 id FROM dbo.customers WITH (NOLOCK) ORDER BY id
EXEC dbo.usp_report
"""


@pytest.fixture
def sources(tmp_path: Path) -> list[Path]:
    (tmp_path / "in").mkdir()
    schema = tmp_path / "in" / "schema.sql"
    workload = tmp_path / "in" / "workload.sql"
    schema.write_text(SCHEMA, encoding="utf-8")
    workload.write_text(WORKLOAD, encoding="utf-8")
    return [schema, workload]


def test_translate_command_writes_queries_sql_and_assessment_json(sources, tmp_path):
    out = tmp_path / "out"
    result = runner.invoke(app, ["translate", *map(str, sources), "-o", str(out), "--quiet"])
    assert result.exit_code == 0, result.output
    assert f"Wrote {out}/queries.sql and {out}/assessment.json" in result.stderr
    assert "Findings: 1 high, 2 info" in result.stderr
    text = (out / "queries.sql").read_text(encoding="utf-8")
    # The two lookups are one class; their values (1 and 2) are its parameter's captured values.
    assert "SELECT CONCAT(first_name, ' ', last_name) FROM customers WHERE id = ?;" in text
    assert "SELECT id FROM customers ORDER BY id LIMIT 5;" in text
    doc = json.loads((out / "assessment.json").read_text(encoding="utf-8"))
    assert doc["summary"]["queries_by_status"] == {"translated": 0, "rewritten": 2, "review": 0, "unsupported": 1}
    by_kind = {q["kind"]: q for q in doc["queries"]}
    assert by_kind["exec"]["status"] == "unsupported" and by_kind["exec"]["target_sql"] is None
    assert by_kind["exec"]["notes"][0]["code"] == "QY24"
    assert {f["rule"] for f in doc["findings"]} >= {"QY24", "QY03", "QY13"}


def test_translate_fail_on_high_exits_1(sources, tmp_path):
    result = runner.invoke(app, ["translate", *map(str, sources), "-o", str(tmp_path / "out"), "--quiet", "--fail-on", "high"])
    assert result.exit_code == 1
    assert "Findings: 1 high, 2 info" in result.stderr


def test_translate_refuses_a_missing_source_with_one_line(tmp_path):
    missing = tmp_path / "nope.sql"
    result = runner.invoke(app, ["translate", str(missing), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert result.stderr.strip() == f"Error: {missing}: no such file or folder"


def test_run_translate_never_overwrites_a_folder_it_did_not_write(sources, tmp_path):
    out = tmp_path / "theirs"
    out.mkdir()
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    result = runner.invoke(app, ["translate", *map(str, sources), "-o", str(out), "--quiet"])
    assert result.exit_code == 2
    assert "already holds files this tool did not write" in result.stderr
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_api_run_translate_returns_what_it_wrote(sources, tmp_path):
    outcome = api.run_translate(sources, tmp_path / "out", Options())
    assert [p.name for p in outcome.files] == ["queries.sql", "assessment.json"]
    assert outcome.assessment is not None and len(outcome.assessment["queries"]) == 3


@pytest.mark.parametrize("text", [
    "SELECT [Name] FROM dbo.T WHERE id IN (1, 2, 3) -- x",
    "DECLARE @x float = 1.5 SELECT CASE WHEN a > @x THEN 'y' END FROM t",
    "SHOW TABLES",
    "BEGIN TRAN; FETCH NEXT FROM c; END",
])
def test_the_translator_fingerprints_from_its_own_tokens_as_the_reader_does(text):
    """One tokenization for the fingerprint and the statements, or none shared when they could differ."""
    batch = read_batches(text)[0]
    shared = fingerprint_of_tokens(batch.tokens)
    assert shared in (None, fingerprint(text))
    assert (shared is None) == text.startswith(("SHOW", "BEGIN"))
