"""`replay --cluster`: one schedule sent by the workers of a real, local Dask cluster, one merged result.

Every statement here is `SELECT SLEEP(0.01)`: the server holds each connection for 10 ms, so a
worker's few connections give it a hard ceiling (2 connections: under 200 statements per second),
whatever the CPU. One worker alone cannot reach 300 per second; three workers, each with two
connections, reach it within 1 %.
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

import distributed
import pytest
from dask_cluster import ROOT, LocalDask
from replay_helpers import keywords_case

from sqlsrv2tidb.errors import ConnectionFailed
from sqlsrv2tidb.replay import cluster_task
from sqlsrv2tidb.replay.config import Ramp, ReplayConfig
from sqlsrv2tidb.replay.runner import run_replay
from sqlsrv2tidb.replay.schedule import RateSchedule
from sqlsrv2tidb.replay.workers import Job
from sqlsrv2tidb.target import parse_target

pytestmark = pytest.mark.slow
RATE = 300.0
SLEEP = {"qsleep": ("select", "SELECT SLEEP(0.01)", 10.0)}
SPEC = """format: sqlsrv2tidb.workload/1
description: one statement that holds its connection for 10 ms on the server
database: bench
queries:
  - name: sleep
    sql: SELECT SLEEP(0.01)
    qps: 300
"""


@pytest.fixture(scope="module")
def dask3(tmp_path_factory):
    cluster = LocalDask(tmp_path_factory.mktemp("dask"), workers=3).start()
    try:
        yield cluster
    finally:
        cluster.stop()


def _sleeps(target, database: str, out: Path, **config) -> dict:
    capture, translation = keywords_case(insert_rate=0, select_rate=0, extra_sql=SLEEP)
    settings = ReplayConfig(qps=RATE, duration=3, warmup=0, **config)
    return run_replay(capture, translation, parse_target(target.url(database)), settings, out=out).result


def test_three_workers_reach_a_rate_one_worker_cannot(target, target_database, dask3, tmp_path):
    one = _sleeps(target, target_database, tmp_path / "one", connections=2, cluster=dask3.address, workers=1)
    assert one["workers"] == 1 and one["cluster"]["workers"][0]["connections"] == 2
    # Two connections, each held 10 ms per statement: under 200 a second, far from 300.
    assert one["achieved_qps"] < 0.75 * RATE and one["missed"] > 0

    three = _sleeps(target, target_database, tmp_path / "three", connections=6, cluster=dask3.address)
    assert three["workers"] == 3 and three["server"]["kind"] == target.kind
    assert three["achieved_qps"] == pytest.approx(RATE, rel=0.01)
    assert three["errors"] == 0 and three["driver"] in ("mysqlclient", "pymysql")
    rows = three["cluster"]["workers"]
    assert [(r["state"], r["connections"], r["target_qps"]) for r in rows] == [("done", 2, 100.0)] * 3
    assert len({r["worker"] for r in rows}) == 3 and three["cluster"]["lost"] == []
    # One result: the merged counts and histograms are the workers' own, added up.
    assert sum(r["statements"] for r in rows) == three["statements"] == three["histograms"]["latency"]["count"]
    assert sum(r["sent"] for r in rows) == sum(second["sent"] for second in three["timeline"])
    assert sum(r["missed"] for r in rows) == three["missed"] and sum(r["late_sends"] for r in rows) == three["late_sends"]
    for row in rows:
        assert row["achieved_qps"] == pytest.approx(100, rel=0.03)  # ~300 statements each: a few missed is 1 %
        assert row["client_cpu_s"] > 0 and row["cpu_us_per_statement"] > 0
        assert abs(row["clock_offset_ms"]) <= row["clock_rtt_ms"] / 2 + 1, "one machine, one clock"
    assert three["client_cpu"]["workers_s"] == pytest.approx(sum(r["client_cpu_s"] for r in rows), abs=0.01)
    assert three["service_ms"]["p50"] >= 10, "the server held every statement 10 ms"


def test_shares_and_ramp_steps_start_together_though_a_workers_clock_is_off(mariadb, database, tmp_path):
    with mariadb.connect(database) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE tick (id INT AUTO_INCREMENT PRIMARY KEY, conn BIGINT, at DATETIME(6))")
    dask = LocalDask(tmp_path / "dask", workers=3, env={"SQLSRV2TIDB_TEST_CLOCK_SKEW": "5"},
                     preload={1: "worker_faults"}).start()
    try:
        capture, translation = keywords_case(insert_rate=0, select_rate=0, extra_sql={
            "qtick": ("insert", "INSERT INTO tick (conn, at) VALUES (CONNECTION_ID(), NOW(6))", 10.0)})
        config = ReplayConfig(ramp=Ramp.parse("30:30:60"), duration=1.5, warmup=0, connections=3, cluster=dask.address,
                              allow_writes=True, confirm_database=database, p99_limit_ms=1000)
        doc = run_replay(capture, translation, parse_target(mariadb.url(database)), config, out=tmp_path).result
    finally:
        dask.stop()
    offsets = sorted(r["clock_offset_ms"] for r in doc["cluster"]["workers"])
    assert offsets[-1] == pytest.approx(5000, abs=20) and abs(offsets[0]) < 20 and abs(offsets[1]) < 20
    assert [s["sustained"] for s in doc["ramp"]["steps"]] == [True, True]
    with mariadb.connect(database) as conn, conn.cursor() as cur:
        cur.execute("SELECT conn, MIN(at) FROM tick GROUP BY conn ORDER BY MIN(at)")
        firsts = [at.timestamp() for _, at in cur.fetchall()]
    # Each step opens its own connections, one per share: the first three belong to step 1.
    assert len(firsts) == 6
    for step in (firsts[:3], firsts[3:]):
        # The shards' first sends are 0, 1/rate and 2/rate after the start; a share started on the
        # skewed clock would be 5 s away.
        assert max(step) - min(step) < 0.25, step
    assert firsts[3] - firsts[2] > 1.0, "the second step starts after the first ended"


def _spec(tmp_path: Path) -> Path:
    folder = tmp_path / "spec"
    folder.mkdir()
    (folder / "workload.yaml").write_text(SPEC, encoding="utf-8")
    return folder


def _start_replay(mariadb, database: str, out: Path, spec: Path, address: str, *extra: str,
                  env: dict[str, str] | None = None) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "sqlsrv2tidb", "replay", str(spec), "--target", mariadb.url(database), "-o", str(out),
         "--qps", f"{RATE:g}", "--warmup", "0", "--connections", "6", "--cluster", address, *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def _wait_for_sending(proc: subprocess.Popen, seconds: float) -> str:
    """Read stderr until the run starts, then let it send for about `seconds`."""
    deadline, seen = time.monotonic() + 60, ""
    while "Replaying" not in seen and time.monotonic() < deadline and proc.poll() is None:
        seen += proc.stderr.readline()
    assert "Replaying" in seen, seen
    time.sleep(seconds + 1.5)  # clock offsets, connecting and the start margin come first
    return seen


def _wait_for_every_share(mariadb, database: str, proc: subprocess.Popen, connections: int) -> None:
    """Wait until the server has seen statements from each of the run's connections (every share is
    sending, however loaded the machine), then past one poll of the coordinator, so each share has
    reported a finished second."""
    seen: set[int] = set()
    deadline = time.monotonic() + 60
    with mariadb.connect() as conn, conn.cursor() as cur:
        while len(seen) < connections and time.monotonic() < deadline and proc.poll() is None:
            cur.execute("SELECT ID FROM information_schema.PROCESSLIST WHERE DB = %s AND INFO LIKE 'SELECT SLEEP(0.01)%%'",
                        (database,))
            seen.update(row[0] for row in cur.fetchall())
            time.sleep(0.002)
    assert len(seen) == connections, (seen, proc.poll())
    time.sleep(2.5)


def test_a_worker_killed_mid_run_leaves_the_others_data_and_names_its_share(mariadb, database, tmp_path):
    dask = LocalDask(tmp_path / "dask", workers=3).start()
    try:
        with distributed.Client(dask.address, timeout=10) as client:
            address_of = {pid: worker for worker, pid in client.run(os.getpid).items()}
        victim = address_of[dask.worker_pids()[1]]
        proc = _start_replay(mariadb, database, tmp_path / "out", _spec(tmp_path), dask.address, "--duration", "10")
        try:
            _wait_for_every_share(mariadb, database, proc, 6)
            dask.kill_worker(1)
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
    finally:
        dask.stop()
    assert proc.returncode == 2, err
    doc = json.loads((tmp_path / "out" / "replay.json").read_text())
    rows = doc["cluster"]["workers"]
    (lost,) = [r for r in rows if r["worker"] == victim]
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"Error: replay incomplete: share {lost['share']} of 3 (worker {victim} on ")
    # (The scheduler may notice first, or a poll of the worker: either way the worker is named as gone.)
    assert ", 2 connections) was lost " in last and re.search(
        r"s after the start: its worker (left the cluster|stopped answering \(\w+\)); partial results", last), last
    assert last.endswith(f"partial results written to {tmp_path / 'out' / 'replay.json'}") and "Traceback" not in err
    assert doc["cluster"]["lost"] == [lost["share"]] and lost["state"] == "lost" and 1.0 < lost["lost_after_s"] < 10.0
    # What the lost worker reported before it died stays; every other worker's data are complete.
    assert 0 < lost["statements"] < 1000
    kept = [r for r in rows if r is not lost]
    assert [r["state"] for r in kept] == ["done", "done"]
    assert [r["statements"] for r in kept] == [pytest.approx(1000, rel=0.01)] * 2
    assert doc["statements"] == sum(r["statements"] for r in rows)
    # The achieved rate says so: short by the rest of the lost share, over the whole measured time.
    assert doc["duration_s"] == 10 and doc["achieved_qps"] == pytest.approx(doc["statements"] / 10, rel=0.01)
    assert doc["achieved_qps"] < 0.95 * RATE
    assert doc["sustained"] is None and doc["interrupted"] is False and doc["stopped_by"].startswith("share ")


def test_ctrl_c_stops_every_worker_and_writes_what_they_measured(mariadb, database, dask3, tmp_path):
    proc = _start_replay(mariadb, database, tmp_path / "out", _spec(tmp_path), dask3.address, "--duration", "60")
    try:
        _wait_for_sending(proc, 2.0)
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the command's process group
        pressed = time.monotonic()
        _, err = proc.communicate(timeout=30)
        took = time.monotonic() - pressed
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 2 and took < 10, (took, err)
    assert err.strip().splitlines()[-1].startswith("Error: interrupted: partial results written to ")
    doc = json.loads((tmp_path / "out" / "replay.json").read_text())
    assert doc["interrupted"] is True and doc["stopped_by"] == "interrupt"
    rows = doc["cluster"]["workers"]
    assert [r["state"] for r in rows] == ["done"] * 3, "each worker stopped and returned what it measured"
    assert doc["statements"] == sum(r["statements"] for r in rows) > 300 and doc["errors"] == 0
    assert 1 < doc["duration_s"] < 10 and doc["achieved_qps"] == pytest.approx(RATE, rel=0.05)
    # Nothing goes on sending: the workers are idle and the server runs none of the statements.
    with distributed.Client(dask3.address, timeout=10) as client:
        assert not any(client.processing().values())
    time.sleep(0.5)
    with mariadb.connect() as conn, conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM information_schema.processlist WHERE info LIKE 'SELECT SLEEP%'")
        assert cur.fetchone()[0] == 0


def _selects(mariadb) -> int:
    with mariadb.connect() as conn, conn.cursor() as cur:
        cur.execute("SHOW GLOBAL STATUS LIKE 'Com_select'")
        return int(cur.fetchone()[1])


def test_the_workers_stop_sending_when_the_command_dies(mariadb, database, dask3, tmp_path):
    proc = _start_replay(mariadb, database, tmp_path / "out", _spec(tmp_path), dask3.address, "--duration", "60")
    try:
        _wait_for_sending(proc, 1.0)
        proc.kill()  # no Ctrl-C, no goodbye: the scheduler sees its client go and cancels the tasks
        proc.wait()
        time.sleep(1.5)
        before = _selects(mariadb)
        time.sleep(1.0)
        sent = _selects(mariadb) - before  # (SHOW STATUS is not counted as a SELECT)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert sent == 0, f"{sent} statements sent after the command died"
    with distributed.Client(dask3.address, timeout=10) as client:
        assert not any(client.processing().values())


def test_a_worker_that_cannot_reach_the_target_fails_the_run_before_anything_is_sent(mariadb, database, tmp_path):
    with mariadb.connect(database) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE tick (id INT AUTO_INCREMENT PRIMARY KEY, at DATETIME(6))")
    dask = LocalDask(tmp_path / "dask", workers=2, env={"SQLSRV2TIDB_TEST_REFUSE_PORT": str(mariadb.port)},
                     preload={1: "worker_faults"}).start()
    try:
        with distributed.Client(dask.address, timeout=10) as client:
            refusing = {pid: worker for worker, pid in client.run(os.getpid).items()}[dask.worker_pids()[1]]
        capture, translation = keywords_case(insert_rate=0, select_rate=0, extra_sql={
            "qtick": ("insert", "INSERT INTO tick (at) VALUES (NOW(6))", 10.0)})
        config = ReplayConfig(qps=50, duration=2, warmup=0, connections=4, cluster=dask.address, driver="pymysql",
                              allow_writes=True, confirm_database=database)
        with pytest.raises(ConnectionFailed) as failed:
            run_replay(capture, translation, parse_target(mariadb.url(database)), config, out=tmp_path / "out")
        with distributed.Client(dask.address, timeout=10) as client:
            assert not any(client.processing().values()), "the other share was stopped as well"
    finally:
        dask.stop()
    message = str(failed.value)
    assert message.startswith(f"{mariadb.url(database)}: share ") and f" of 2 (worker {refusing} on " in message
    assert "cannot reach the target: MySQL error 2003: Can't connect to MySQL server" in message
    assert message.endswith("; nothing was sent")
    with mariadb.connect(database) as conn, conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM tick")
        assert cur.fetchone()[0] == 0
    assert not (tmp_path / "out" / "replay.json").exists()


def test_the_password_reaches_the_workers_and_none_of_their_logs(mariadb, database, tmp_path):
    password = "pw-" + os.urandom(6).hex()
    with mariadb.connect() as conn, conn.cursor() as cur:  # a user of its own: other tests have a 'replayer'
        cur.execute("DROP USER IF EXISTS 'cluster_sender'@'127.0.0.1'")
        cur.execute("CREATE USER 'cluster_sender'@'127.0.0.1' IDENTIFIED BY %s", (password,))
        cur.execute(f"GRANT ALL ON `{database}`.* TO 'cluster_sender'@'127.0.0.1'")
    url = f"mysql://cluster_sender@127.0.0.1:{mariadb.port}/{database}"
    dask = LocalDask(tmp_path / "dask", workers=2, env={"DASK_LOGGING__DISTRIBUTED": "debug"}).start()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "sqlsrv2tidb", "replay", str(_spec(tmp_path)), "--target", url,
             "-o", str(tmp_path / "out"), "--qps", "100", "--duration", "2", "--warmup", "0", "--connections", "2",
             "--cluster", dask.address],
            capture_output=True, text=True, timeout=120,
            env={**os.environ, "PYTHONPATH": str(ROOT), "SQLSRV2TIDB_TARGET_PASSWORD": password})
        # A task that fails is logged by its worker with its arguments ("Compute Failed ... Task: ...").
        schedule = RateSchedule(("a",), (1.0,), total_qps=1.0, duration=1.0, shards=1)
        # (A run name that cannot be a key fails the task at once, before anything connects.)
        job = Job(parse_target(url.replace("sender@", f"sender:{password}@")), "pymysql", (), schedule, 1)
        broken = cluster_task.ShareTask(["broken"], 0, (0,), job)  # type: ignore[arg-type]
        with distributed.Client(dask.address, timeout=10) as client:
            failed = client.submit(cluster_task.run_share, broken, pure=False)
            distributed.wait(failed, timeout=30)
            assert failed.status == "error"
        time.sleep(0.5)
    finally:
        dask.stop()
    assert proc.returncode == 0, proc.stderr
    doc = json.loads((tmp_path / "out" / "replay.json").read_text())
    assert doc["statements"] > 100 and doc["errors"] == 0, "the workers logged in with the password"
    logs = {p.name: p.read_text(errors="replace") for p in (tmp_path / "dask").glob("*.log")}
    # (This Dask prints the task as `run_share(...)`; older ones printed its arguments, which is why a
    # ShareTask's repr names no password: see test_a_share_task_prints_no_password.)
    assert any("Compute Failed" in text and "run_share" in text for text in logs.values()), logs.keys()
    for name, text in {**logs, "stderr": proc.stderr, "stdout": proc.stdout,
                       "replay.json": (tmp_path / "out" / "replay.json").read_text()}.items():
        assert password not in text, name
