"""The report's procedures section: each procedure as the runner sees it (assessment.json's `procedures`), what a
replay measured of its calls (replay.json's `procedures`) and its answers (compare.json)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from sqlsrv2tidb.cli import app
from sqlsrv2tidb.report.build_procedures import build_procedures, procedures_fact

ASSESSMENT = {"procedures": [
    {"name": "dbo.Dynamic", "runs": False, "status": "unsupported",
     "stops": "dynamic SQL at schema.sql:12: EXEC (...) of SQL built at run time", "statements": 3,
     "target_statements": 1, "writes": []},
    {"name": "dbo.OrdersOf", "runs": True, "status": "translated", "stops": None, "statements": 2,
     "target_statements": 1, "writes": []},
    {"name": "dbo.AddOrder", "runs": True, "status": "rewritten", "stops": None, "statements": 15,
     "target_statements": 4, "writes": ["INSERT dbo.Orders (line 8)"]},
    {"name": "dbo.ApplyAuditing", "runs": True, "status": "rewritten", "stops": None, "statements": 6,
     "target_statements": 1, "writes": [], "administration": {"kind": "auditing", "instead": "the cluster's audit log"}},
]}
REPLAY = {"procedures": [{"procedure": "dbo.OrdersOf", "classes": ["q1"], "calls": 120, "statements_per_call": 2.0,
                          "round_trips_per_call": 1.0, "target_ms_per_call": 1.234, "sql_server_ms_per_call": 0.5,
                          "failed_calls": 0}]}
COMPARE = {"queries": [{"id": "q1", "verdict": "same", "procedure_call": {"procedures": ["dbo.OrdersOf"]}}]}


def test_each_procedure_says_whether_it_runs_and_what_its_calls_cost():
    section = build_procedures(ASSESSMENT, REPLAY, COMPARE)
    assert section is not None
    facts = {f.label: f.value for f in section.facts}
    assert facts["Procedures"] == "4" and facts["The application's, stopped"] == "1"
    assert facts["The application's, run by the runner as they stand"].startswith("2 of 3")
    assert facts["Administration, apart (what TiDB does instead in the table)"] == "1"
    assert facts["Calls replayed"] == "120 of 1 procedure(s)"
    rows = {row[0].text: [c.text for c in row] for row in section.table.rows}
    assert list(rows) == ["dbo.AddOrder", "dbo.ApplyAuditing", "dbo.OrdersOf", "dbo.Dynamic"]  # those that run first
    assert rows["dbo.ApplyAuditing"][2] == "administration (auditing): the cluster's audit log"
    assert rows["dbo.OrdersOf"][1:] == ["runs", "", "2", "1", "reads only", "120", "2", "1", "1.23", "0.50", "0", "same"]
    assert rows["dbo.Dynamic"][1:3] == ["stopped", "dynamic SQL at schema.sql:12: EXEC (...) of SQL built at run time"]
    assert rows["dbo.AddOrder"][5] == "INSERT dbo.Orders (line 8)" and rows["dbo.AddOrder"][6] == "—"
    fact = procedures_fact(ASSESSMENT).value
    assert fact.startswith("2 of the application's 3 as they stand") and "1 more administer the database" in fact
    assert build_procedures({}, None, None) is None


def test_assess_writes_the_procedures_and_the_page_shows_them(tmp_path: Path):
    script = tmp_path / "schema.sql"
    script.write_text("CREATE TABLE dbo.T (a int PRIMARY KEY)\nGO\nCREATE PROCEDURE dbo.P @a int AS SELECT a FROM dbo.T "
                      "WHERE a = @a\nGO\nCREATE PROCEDURE dbo.D @s nvarchar(100) AS GOTO done\nGO\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["assess", str(script), "-o", str(tmp_path / "out"), "-q"])
    assert result.exit_code in (0, 1), result.output
    doc = json.loads((tmp_path / "out" / "assessment.json").read_text())
    by_name = {p["name"]: p for p in doc["procedures"]}
    assert by_name["dbo.P"]["runs"] is True and by_name["dbo.P"]["target_statements"] == 1
    assert by_name["dbo.D"]["runs"] is False and by_name["dbo.D"]["blockers"][0]["construct"] == "GOTO"
    assert by_name["dbo.D"]["blockers"][0]["where"].endswith("schema.sql:5")
    page = (tmp_path / "out" / "report.html").read_text()
    assert '<section id="procedures"' in page and "dbo.D" in page and "GOTO at" in page
    mo01 = {f["object"]: f for f in doc["findings"] if f["rule"] == "MO01"}
    assert mo01["dbo.P"]["details"]["straight_port"] is True and "runs it on the target as it stands" in mo01["dbo.P"]["message"]
    assert "cannot run it (GOTO at" in mo01["dbo.D"]["message"]
