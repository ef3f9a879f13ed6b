"""compare through the faults of a long run, on real servers: a target that restarts mid-run, a SQL Server
endpoint that crashes and starts again, a class that breaks its own session, a side that stays away.

Nothing is simulated. The target is a MariaDB of this module's own (stopping it disturbs no other test),
killed as a crash would and started again; the SQL Server endpoint that crashes is a Babelfish started by
the test itself (its first start takes about a minute), stopped with PostgreSQL's immediate mode (no
checkpoint, every session cut: the next start recovers from the log and answers "the database system is
starting up" meanwhile); a session is cut by the server itself (`pg_terminate_backend` behind Babelfish).
A fault is set off by the progress display once a given number of classes are judged, between two classes.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import pytest
from compare_helpers import load_planted, workload_file
from servers import SqlServer, running_mariadb
from test_compare_limits import LONG
from test_planted_fixtures import PLANTED, planted_on

from sqlsrv2tidb import api
from sqlsrv2tidb.errors import ConnectionFailed
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.target import parse_target

READS = ["SELECT id FROM dbo.visits", "SELECT id, city FROM dbo.visits", "SELECT id, qty, boxes FROM dbo.visits",
         "SELECT MAX(score) AS top_score FROM dbo.visits", "SELECT id, first_name FROM dbo.visits WHERE score >= 80",
         "SELECT COUNT(*) AS n FROM dbo.visits WHERE middle_name IS NULL"]
"""Six classes of their own shapes, each the same on both sides."""


@pytest.fixture(scope="module")
def own_mariadb():
    yield from running_mariadb("sqlsrv2tidb-mariadb-faults-")


class FaultAfter:
    """A progress display that sets off `fault` once `after` classes are judged, and keeps the lines the run
    notes (one per wait for a server)."""

    def __init__(self, after: int, fault: Callable[[], None]) -> None:
        self.after, self.fault, self.done, self.described = after, fault, 0, ""
        self.notes: list[str] = []

    @contextmanager
    def task(self, description: str, total: int | None = None):
        self.described = description
        yield self

    def update(self, description: str) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        if self.described.startswith("Comparing"):
            self.done += n
            if self.done == self.after:
                self.fault()

    def note(self, line: str) -> None:
        self.notes.append(line)


def _compare(tmp_path: Path, connection: str, target_url: str, progress, statements: list[str] = READS,
             **settings) -> dict:
    sources = [PLANTED / "schema.sql", workload_file(statements, tmp_path / "queries.sql")]
    api.run_compare(sources, tmp_path / "out", Options(), login=api.SourceLogin(connection),
                    target=parse_target(target_url), settings=api.CompareSettings(**settings), progress=progress)
    return json.loads((tmp_path / "out" / "compare.json").read_text(encoding="utf-8"))


def _in_background(action: Callable[[], None], after: float) -> threading.Thread:
    def run() -> None:
        time.sleep(after)
        action()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_the_target_restarted_mid_run_every_class_is_judged(mssql, planted_tds, own_mariadb, tmp_path):
    target_db = planted_on(own_mariadb, True)
    restarted: list[threading.Thread] = []

    def crash() -> None:
        own_mariadb.kill()
        restarted.append(_in_background(own_mariadb.start, 2))

    progress = FaultAfter(2, crash)
    doc = _compare(tmp_path, mssql.connection_string(planted_tds), own_mariadb.url(target_db), progress,
                   reconnect_within=90)
    restarted[0].join()
    print(progress.notes, [q.get("reconnected") for q in doc["queries"]])
    assert sorted(q["verdict"] for q in doc["queries"]) == ["same"] * len(READS), doc["queries"]
    reopened = [(q["id"], r) for q in doc["queries"] for r in q.get("reconnected", [])]
    assert reopened and all(r["side"] == "target" for _, r in reopened), doc["queries"]
    third = doc["queries"][2]
    assert third["retried"].startswith("the first run lost its session: the target failed"), third
    assert doc["summary"]["reconnects"] == len(reopened) >= 1
    assert any("waiting" in line and own_mariadb.host in line for line in progress.notes), progress.notes
    assert not doc["findings"], doc["findings"]


@pytest.fixture
def own_babelfish(tmp_path_factory):
    """A Babelfish of this test's own, so that crashing it disturbs no other test."""
    base = Path(tempfile.mkdtemp(prefix="sqlsrv2tidb-mssql-faults-"))
    server = SqlServer(base)
    if not server.started_here:
        shutil.rmtree(base, ignore_errors=True)
        pytest.skip(f"the SQL Server endpoint is the one {SqlServer.ENV} names: a test cannot crash it")
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(base, ignore_errors=True)


def test_sql_server_crashed_and_started_again_mid_run(own_babelfish, own_mariadb, tmp_path):
    database = load_planted(own_babelfish, "t_compare_crash")
    target_db = planted_on(own_mariadb, True)
    restarted: list[threading.Thread] = []

    def crash() -> None:
        own_babelfish.kill()
        restarted.append(_in_background(own_babelfish.start_again, 2))

    progress = FaultAfter(2, crash)
    doc = _compare(tmp_path, own_babelfish.connection_string(database), own_mariadb.url(target_db), progress,
                   reconnect_within=120)
    restarted[0].join()
    print(progress.notes, [(q["verdict"], q["reason"], q.get("retried"), q.get("reconnected")) for q in doc["queries"]])
    assert sorted(q["verdict"] for q in doc["queries"]) == ["same"] * len(READS), doc["queries"]
    third = doc["queries"][2]
    assert third["retried"].startswith("the first run lost its session: SQL Server failed"), third
    assert [r["side"] for r in third["reconnected"]] == ["sql_server"], third
    assert any("waiting" in line and "SQL Server at 127.0.0.1" in line for line in progress.notes), progress.notes


BREAKS = LONG.replace("COUNT(*)", "COUNT(*) AS breaks_its_session")
"""Ten seconds of counting on the endpoint, long enough for the server to cut its session while it runs."""


def test_a_class_that_breaks_its_session_is_its_own_error_and_the_next_class_is_same(mssql, own_mariadb, tmp_path):
    if not (mssql.babelfish and mssql.started_here):
        pytest.skip("the session is cut by Babelfish's PostgreSQL side, reachable only where the tests started it")
    database = load_planted(mssql, "t_compare_breaks")
    stop = threading.Event()

    def cut_sessions() -> None:  # the server cuts any session running the class, as often as it runs
        while not stop.is_set():
            mssql.postgres("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                           "WHERE query ILIKE '%breaks_its_session%' AND pid <> pg_backend_pid()")
            time.sleep(0.2)

    cutter = threading.Thread(target=cut_sessions, daemon=True)
    cutter.start()
    try:
        doc = _compare(tmp_path, mssql.connection_string(database), own_mariadb.url(planted_on(own_mariadb, True)),
                       None, [BREAKS, *READS[:2]], timeout=60, reconnect_within=30)
    finally:
        stop.set()
        cutter.join()
    broken, *others = doc["queries"]
    print(broken["reason"], broken.get("retried"), broken["reconnected"])
    assert "breaks_its_session" in broken["sql_server_sql"], broken
    assert broken["verdict"] == "error" and broken["side"] == "sql_server" and not broken.get("unreachable"), broken
    assert "session" in broken["reason"] and broken["reconnected"], broken
    assert [q["verdict"] for q in others] == ["same", "same"], others
    assert not any(q.get("retried") or q.get("reconnected") for q in others), others


def test_a_side_that_stays_down_stops_the_run_after_writing_what_was_judged(mssql, planted_tds, own_mariadb,
                                                                             tmp_path):
    target_db = planted_on(own_mariadb, True)
    progress = FaultAfter(1, own_mariadb.kill)
    try:
        with pytest.raises(ConnectionFailed) as stopped:
            _compare(tmp_path, mssql.connection_string(planted_tds), own_mariadb.url(target_db), progress,
                     reconnect_within=2)
    finally:
        own_mariadb.start()
    message = str(stopped.value)
    assert message.startswith("compare stopped: a side stayed unreachable for 3 classes in a row"), message
    assert "compare.json holds the 4 class(es) judged before, and lists the 2 not run" in message, message
    doc = json.loads((tmp_path / "out" / "compare.json").read_text(encoding="utf-8"))
    first, *down = doc["queries"]
    assert first["verdict"] == "same" and len(down) == 3, doc["queries"]
    for q in down:
        assert (q["verdict"], q["side"], q["unreachable"]) == ("error", "target", True), q
        assert q["reason"].startswith(f"the target at {own_mariadb.url(target_db)} was unreachable: "), q
    assert [x["reason"].split(" (")[0] for x in doc["left_out"]] == ["not run: the run stopped"] * 2, doc["left_out"]
    assert doc["stopped"] and not doc["findings"], doc  # an unreachable target says nothing about the translation
    assert sum("waiting" in line for line in progress.notes) >= 3, progress.notes
