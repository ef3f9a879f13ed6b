"""`assess --connection`: from a database on the SQL Server endpoint to the whole report in one command.

The database is one the project has not seen (greenhouse.py: made here, schema, rows and a workload
script), the target MariaDB, then TiDB, both started by the suite. One command fills every section
of the report; the same command run again continues instead of starting over, and says so; a run
stopped with Ctrl-C in the copy and started again ends with the report an unstopped run gives; a
stage that fails is a finding naming it, and the stages that do not need it still run.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from greenhouse import READS, TABLES, workload_file
from typer.testing import CliRunner

from sqlsrv2tidb.cli import app

ROOT = Path(__file__).resolve().parents[2]
REPLAY = ("--qps", "20", "--duration", "2", "--warmup", "0", "--workers", "1", "--connections", "2")


def _args(mssql, source: str, target, database: str, out: Path, workload: Path, *extra: str) -> list[str]:
    return ["assess", "--connection", mssql.connection_string(source), str(workload), "--target",
            target.url(database), "--confirm-database", database, "-o", str(out), *REPLAY, *extra]


def _assess(*args: str, target) -> tuple[int, str]:
    result = CliRunner().invoke(app, [*args, "-q"], env=target.env())
    return result.exit_code, result.output


def _doc(out: Path, name: str) -> dict:
    return json.loads((out / name).read_text(encoding="utf-8"))


def _section(page: str, name: str) -> str:
    return page.split(f'<section id="{name}"', 1)[1].split("</section>", 1)[0]


def _report(out: Path) -> dict:
    """What a report says, without what differs between any two runs (times, rates, the replay's figures)."""
    page = (out / "report.html").read_text(encoding="utf-8")
    data, compare, assessment = _doc(out, "data.json"), _doc(out, "compare.json"), _doc(out, "assessment.json")
    return {
        "sections": re.findall(r'<section id="([^"]+)"', page),
        "tables": {f"{t['schema']}.{t['name']}".casefold(): (t["rows"], (t["verify"] or {}).get("status"))
                   for t in data["tables"]},
        "answers": {q["id"]: q["verdict"] for q in compare["queries"]},
        "findings": sorted({(f["rule"], f["object"]) for doc in (assessment, data, compare) for f in doc["findings"]}),
        "stages": [(s["name"], s["status"]) for s in assessment["run"]["stages"]],
    }


@pytest.mark.slow
def test_one_command_fills_every_section_and_a_rerun_continues(mssql, greenhouse, target, target_database, tmp_path):
    workload = workload_file(tmp_path / "workload.sql")
    out = tmp_path / "out"
    args = _args(mssql, greenhouse, target, target_database, out, workload)
    code, said = _assess(*args, target=target)
    assert code == 0, said
    lines = said.splitlines()
    assert [line.split(":")[0] for line in lines[:6]] == ["capture", "plan", "data", "compare", "replay", "report"]
    assert all(": done in " in line for line in lines[:6]), said
    page = (out / "report.html").read_text(encoding="utf-8")
    sizing = [] if target.kind == "mysql" else ["deployment"]  # a TiDB cluster's sizing; MySQL's advice is in MY14
    assert re.findall(r'<section id="([^"]+)"', page) == ["summary", "schema", "workload", "data", "compare",
                                                          "replay", *sizing, "plan"]
    assert "dbo.readings" in _section(page, "schema") and "Copied from SQL Server" in _section(page, "data")
    assert "Answers on SQL Server and the target" in _section(page, "compare")
    assert "Achieved rate" in _section(page, "replay")
    assert "Stages" in _section(page, "summary")
    data = _doc(out, "data.json")
    copied = {f"{t['schema']}.{t['name']}".casefold(): t for t in data["tables"]}
    assert {n: t["rows"] for n, t in copied.items()} == TABLES
    assert all(t["status"] == "done" and t["verify"]["status"] == "equal" for t in copied.values()), copied
    assert data["views"]["created"] == ["grower_batches"]
    compare = _doc(out, "compare.json")
    assert compare["summary"]["classes"] == READS and compare["summary"]["same"] == READS, compare["queries"]
    assert [q["reason"] for q in compare["left_out"]] == [
        "changes data: replayed only with --allow-writes --confirm-database NAME"]
    replay = _doc(out, "replay.json")
    assert replay["statements"] > 0 and replay["errors"] == 0
    assert replay["target_data"]["rows"] == sum(TABLES.values())
    assessment = _doc(out, "assessment.json")
    assert assessment["run"]["resumed"] is False and "IN31" not in {f["rule"] for f in assessment["findings"]}
    first = _report(out)

    code, said = _assess(*args, target=target)  # the same command again: it goes on from what OUT holds
    assert code == 0, said
    assert "capture: done" in said and "resumed: the capture in" in said, said
    assert f"{len(TABLES)} already loaded by the earlier run" in said
    assert f"{READS} kept as the earlier run judged them" in said
    again = _doc(out, "data.json")
    assert {t["status"] for t in again["tables"]} == {"already done"} and again["summary"]["equal"] == len(TABLES)
    assert _doc(out, "compare.json")["summary"]["kept"] == READS
    assert _doc(out, "assessment.json")["run"]["resumed"] is True
    assert _report(out) == first


def _checkpoint(out: Path) -> dict:
    try:
        return json.loads((out / "data-checkpoint.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _ctrl_c_heard() -> None:
    """Ctrl-C as a terminal delivers it: a suite started in the background by a shell without job control runs
    with SIGINT ignored, which a child inherits, and Python raises KeyboardInterrupt only when SIGINT is not
    ignored at its start."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
def test_a_run_stopped_in_the_copy_resumes_and_ends_with_the_same_report(mssql, greenhouse, target, target_database,
                                                                         tmp_path):
    workload = workload_file(tmp_path / "workload.sql")
    whole = tmp_path / "whole"
    reference = target.create_database(f"{target_database[:50]}_whole")
    code, said = _assess(*_args(mssql, greenhouse, target, reference, whole, workload), target=target)
    assert code == 0, said

    out = tmp_path / "out"
    args = _args(mssql, greenhouse, target, target_database, out, workload)
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **target.env()}
    last = _last_reading(mssql, greenhouse)
    run = subprocess.Popen([sys.executable, "-m", "sqlsrv2tidb", *args, "-q"], env=environment,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_ctrl_c_heard)
    # The point of the stop is the test's, not the clock's: once the run has made `readings` on the target, the test
    # writes its last row there in a transaction it keeps open, so the copy loads the first chunks and then waits
    # for that row's lock; Ctrl-C reaches it waiting, with part of the table loaded.
    blocker = target.connect(target_database)
    try:
        _until(lambda: _has_table(target, target_database, "readings"), run, "the run creates readings on the target")
        with blocker.cursor() as cursor:
            cursor.execute("BEGIN")
            cursor.execute("INSERT INTO readings (BatchId, TakenAt, Temperature, Humidity) VALUES (%s, %s, %s, %s)",
                           last)
        _until(lambda: _waits_for_a_lock(target), run, "the copy of readings waits for the test's row")
        state = next((v for k, v in _checkpoint(out).get("tables", {}).items() if k.casefold() == "dbo.readings"), {})
        assert state.get("status") == "partial" and 0 < state.get("rows", 0) < TABLES["dbo.readings"], state
        run.send_signal(signal.SIGINT)
        _, stderr = run.communicate(timeout=120)
    finally:
        blocker.rollback()
        blocker.close()
    assert run.returncode == 2, stderr
    assert stderr.strip().splitlines()[-1] == ("Error: interrupted in the data stage: run the same command again "
                                                "with the same -o folder to continue"), stderr
    stopped = {t["name"].casefold(): t for t in _doc(out, "data.json")["tables"]}
    assert stopped["readings"]["status"] == "interrupted" and 0 < stopped["readings"]["rows"] < TABLES["dbo.readings"]
    assert not (out / "compare.json").exists() and not (out / "replay.json").exists()

    code, said = _assess(*args, target=target)
    assert code == 0, said
    assert "resumed: the copy goes on from its checkpoint" in said and "continued where it stopped" in said, said
    resumed = {t["name"].casefold(): t for t in _doc(out, "data.json")["tables"]}
    assert resumed["readings"]["resumed"] and resumed["readings"]["rows"] == TABLES["dbo.readings"]
    count, distinct = _rows(target, target_database, "SELECT COUNT(*), COUNT(DISTINCT batchid, takenat) FROM readings")
    assert count == distinct == TABLES["dbo.readings"]  # nothing loaded twice
    assert _report(out) == _report(whole)


def _until(condition, run: subprocess.Popen, what: str, deadline: float = 300) -> None:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if condition():
            return
        assert run.poll() is None, (what, run.communicate())
        time.sleep(0.05)
    raise AssertionError(f"not within {deadline:.0f} s: {what}")


def _last_reading(mssql, database: str) -> tuple:
    conn = mssql.connect(database)
    try:
        row = conn.cursor().execute("SELECT TOP 1 BatchId, TakenAt, Temperature, Humidity FROM dbo.readings "
                                    "ORDER BY BatchId DESC, TakenAt DESC").fetchone()
        return tuple(row)
    finally:
        conn.close()


def _has_table(target, database: str, table: str) -> bool:
    with target.connect(database) as conn, conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = %s AND TABLE_NAME = %s",
                    (database, table))
        return bool(cur.fetchone()[0])


def _waits_for_a_lock(target) -> bool:
    """A statement on the server waits for a row lock another transaction holds (each server's own view of it)."""
    view = {"tidb": "information_schema.DATA_LOCK_WAITS", "mysql": "performance_schema.data_lock_waits"}.get(
        target.kind, "information_schema.INNODB_LOCK_WAITS")
    with target.connect() as conn, conn.cursor() as cur:
        cur.execute(f"SELECT COUNT(*) FROM {view}")
        return bool(cur.fetchone()[0])


def _rows(target, database: str, sql: str) -> tuple:
    with target.connect(database) as conn, conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchone()


@pytest.mark.slow
def test_a_stage_that_fails_is_a_finding_and_the_others_still_run(mssql, greenhouse, mariadb, database, tmp_path):
    """The target already holds rows the run did not load: the data stage fails (ST01), compare, which needs
    the copied rows, is left out, and the replay and the report still run."""
    with mariadb.connect(database) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE plants (plantcode CHAR(6) PRIMARY KEY, species VARCHAR(100))")
        cur.execute("INSERT INTO plants VALUES ('P00000', 'a plant of the DBA''s own')")
    workload = workload_file(tmp_path / "workload.sql")
    out = tmp_path / "out"
    code, said = _assess(*_args(mssql, greenhouse, mariadb, database, out, workload), "--fail-on", "high",
                         target=mariadb)
    assert code == 1, said
    assert "data: failed: the target already holds rows in plants" in said, said
    assert "compare: left out: it needs the data stage, which failed" in said
    assert "replay: done" in said and "report: done" in said
    assessment = _doc(out, "assessment.json")
    failed = [f for f in assessment["findings"] if f["rule"] == "ST01"]
    assert [(f["object"], f["severity"]) for f in failed] == [("data stage", "high")]
    assert failed[0]["message"].startswith("the data stage failed: the target already holds rows in plants")
    assert failed[0]["message"].endswith("left out because of it: compare")
    assert [(s["name"], s["status"]) for s in assessment["run"]["stages"]] == [  # (the report is the page itself)
        ("capture", "done"), ("plan", "done"), ("data", "failed"), ("compare", "left out"), ("replay", "done")]
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "ST01" in _section(page, "summary") and "data failed (the target already holds rows" in page
    assert not (out / "compare.json").exists() and (out / "replay.json").exists()
    with mariadb.connect(database) as conn, conn.cursor() as cur:
        cur.execute("SELECT species FROM plants")
        assert cur.fetchall() == (("a plant of the DBA's own",),)  # nothing of the user's was written over


@pytest.mark.slow
def test_a_sample_is_copied_and_verified_and_compare_says_why_it_is_left_out(mssql, greenhouse, mariadb, database,
                                                                              tmp_path):
    workload = workload_file(tmp_path / "workload.sql")
    out = tmp_path / "out"
    code, said = _assess(*_args(mssql, greenhouse, mariadb, database, out, workload), "--sample", "10%", "--no-replay",
                         target=mariadb)
    assert code == 0, said
    assert ("compare: left out: the target holds a sample (10%) of the rows SQL Server answers from, so their answers "
            "differ by construction; run without --sample to compare them") in said
    copied = {f"{t['schema']}.{t['name']}".casefold(): t for t in _doc(out, "data.json")["tables"]}
    assert all(t["verify"]["status"] == "equal" for t in copied.values()), copied
    assert 0 < copied["dbo.readings"]["rows"] < TABLES["dbo.readings"] // 2
    assert not (out / "compare.json").exists() and not (out / "replay.json").exists()
    assert [(s["name"], s["status"]) for s in _doc(out, "assessment.json")["run"]["stages"]] == [
        ("capture", "done"), ("plan", "done"), ("data", "done"), ("compare", "left out")]


def test_without_sources_or_connection_assess_says_what_it_needs(tmp_path):
    result = CliRunner().invoke(app, ["assess", "-o", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert result.stderr == ("Error: assess needs SOURCES, or --connection to a live SQL Server; see "
                             "'sqlsrv2tidb assess --help'\n")


def test_a_copy_is_refused_before_anything_connects_without_the_database_confirmed(tmp_path):
    """No server is reached: the SQL Server and target named here do not exist."""
    result = CliRunner().invoke(app, ["assess", "--connection", "DRIVER={FreeTDS};SERVER=127.0.0.1;PORT=9;DATABASE=x",
                                      "--target", "mysql://root@127.0.0.1:9/sales", "-o", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert result.stderr == ("Error: writing rows needs --confirm-database sales (the target's database, "
                             "mysql://root@127.0.0.1:9/sales); nothing was written\n")
    assert not (tmp_path / "out").exists()


def test_help_shows_the_one_command_first():
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "250"})
    assert result.exit_code == 0
    text = [line.strip() for line in result.output.splitlines() if line.strip()]
    assert text[1] == "From a live SQL Server to the whole report in one command:"
    assert text[2].startswith("sqlsrv2tidb assess --connection ") and "--confirm-database" in text[2]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "## From a live server" in readme and "sqlsrv2tidb assess --connection" in readme


@pytest.mark.slow
def test_one_command_with_allow_writes_compares_and_replays_the_writes(mssql, greenhouse, tidb, tidb_database, tmp_path):
    """`--allow-writes --confirm-database NAME`: the workload's write is compared by its effect (in a transaction
    rolled back on both servers) and replayed; without them the summary says the writes were left out and why."""
    workload = workload_file(tmp_path / "workload.sql")
    out = tmp_path / "out"
    code, said = _assess(*_args(mssql, greenhouse, tidb, tidb_database, out, workload, "--allow-writes"), target=tidb)
    assert code == 0, said
    compare = _doc(out, "compare.json")
    writes = [q for q in compare["queries"] if q.get("write")]
    assert len(writes) == 1 and writes[0]["verdict"] == "same", writes
    assert writes[0]["statement_kind"] == "update" and writes[0]["rows_affected"] == {"sql_server": [1], "target": [1]}
    assert [e["table"].casefold() for e in writes[0]["end_state"]] == ["dbo.batches"]
    assert compare["summary"]["writes"]["classes"] == 1 and compare["summary"]["same"] == READS + 1
    assert compare["left_out"] == []
    replay = _doc(out, "replay.json")
    assert any(q["kind"] == "update" for q in replay["per_query"]), replay["per_query"]
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "1 write classes compared by their effect on the rows: 1 the same" in _section(page, "summary")

    without = tmp_path / "without"
    code, said = _assess(*_args(mssql, greenhouse, tidb, f"{tidb_database}", without, workload, "--no-data",
                                "--no-replay"), target=tidb)
    assert code == 0, said
    page = (without / "report.html").read_text(encoding="utf-8")
    assert ("1 write classes left out: --allow-writes --confirm-database NAME runs them on both servers"
            in _section(page, "summary")), _section(page, "summary")
