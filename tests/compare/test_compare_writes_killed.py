"""`compare --allow-writes` killed with SIGKILL mid-write leaves both databases as they were.

Nothing is timed: the test holds a row lock on the SQL Server endpoint, so the run's write of that row waits there
after the target has run the same write inside its own transaction. The test waits until the endpoint shows the
run's statement blocked by the lock, kills the process (no handler runs), lets the lock go, and then waits until
neither server holds a session of the run before it compares every table with what it held before: each server
rolls back a transaction whose session ended.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from compare_helpers import workload_file
from data_helpers import copy_args, loaded
from test_compare_writes import _fingerprints, writes_source  # noqa: F401 - the session fixture

ROOT = Path(__file__).resolve().parents[2]
WORKLOAD = ["INSERT INTO dbo.orders (title_id, qty, ordered) VALUES ('PC8888', 7, '2024-02-02')",
            "UPDATE dbo.authors SET city = 'Killed mid-write' WHERE au_id = '213-46-8915'"]



def _until(what: str, condition, deadline: float = 180.0, process: subprocess.Popen | None = None) -> None:
    """Wait for a condition the test does not control the timing of (a server noticing a closed session)."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if condition():
            return
        if process is not None and process.poll() is not None:
            raise AssertionError(f"the run ended before {what}: {process.communicate()}")
        time.sleep(0.2)
    raise AssertionError(f"not within {deadline:.0f} s: {what}")


def _blocked_by(mssql, database: str, holder: int) -> int | None:
    """The session the test's lock blocks (the run's, waiting to write the row), or None: sys.dm_exec_requests on SQL
    Server; the endpoint has none, and its sys.sysprocesses reports sessions blocked that are not, so there the wait
    is read from its PostgreSQL side (`pg_stat_activity`, which it serves over TDS too)."""
    conn = mssql.connect(database)
    try:
        cursor = conn.cursor()
        try:
            found = cursor.execute("SELECT session_id FROM sys.dm_exec_requests WHERE blocking_session_id = ?",
                                   holder).fetchall()
        except Exception:  # noqa: BLE001 - the endpoint has no sys.dm_exec_requests
            found = cursor.execute("SELECT pid FROM pg_catalog.pg_stat_activity WHERE wait_event_type = 'Lock' "
                                   "AND query LIKE '%UPDATE dbo.authors SET city%' AND pid <> @@SPID").fetchall()
        return int(found[0][0]) if found else None
    finally:
        conn.close()


def _sessions_on_target(target, database: str) -> int:
    with target.connect() as conn, conn.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE DB = %s AND ID <> CONNECTION_ID()",
                       (database,))
        return int(cursor.fetchone()[0])


def _session_on_sql_server(mssql, database: str, spid: int) -> bool:
    conn = mssql.connect(database)
    try:
        return bool(conn.cursor().execute("SELECT COUNT(*) FROM sys.sysprocesses WHERE spid = ?", spid).fetchone()[0])
    finally:
        conn.close()


@pytest.mark.slow
@pytest.mark.parametrize("server", ["tidb", "mysql"])
def test_a_compare_killed_mid_write_leaves_both_databases_as_they_were(writes_source, server, request, tmp_path):  # noqa: F811
    target = request.getfixturevalue(server)
    database = target.create_database(f"t_killed_{server}")
    copied = loaded(*copy_args(writes_source, target, database, tmp_path / "data", "--create-tables"))
    assert all(t["verify"]["status"] == "equal" for t in copied["tables"]), copied["tables"]
    before = _fingerprints(writes_source, target, database)
    workload = workload_file(WORKLOAD, tmp_path / "writes.sql")
    holder = writes_source.mssql.connect(writes_source.name, autocommit=False)
    try:
        cursor = holder.cursor()
        cursor.execute("UPDATE dbo.authors SET city = city WHERE au_id = '213-46-8915'")  # the lock the run waits for
        holder_spid = cursor.execute("SELECT @@SPID").fetchone()[0]
        env = {**os.environ, "PYTHONPATH": str(ROOT), **target.env()}
        process = subprocess.Popen([sys.executable, "-m", "sqlsrv2tidb", "compare", str(writes_source.capture),
                                    str(workload), "-o", str(tmp_path / "out"), "--connection", writes_source.connection,
                                    "--target", target.url(database), "--allow-writes", "--confirm-database", database,
                                    "--parameter-sets", "1", "--statement-timeout", "600", "-q"],
                                   env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            blocked: list[int] = []
            _until("the run's write waits on the SQL Server endpoint", lambda: blocked.append(
                _blocked_by(writes_source.mssql, writes_source.name, holder_spid) or 0) or blocked[-1], process=process)
            assert _sessions_on_target(target, database) > 0  # its target transaction is open, its write in it
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
    finally:
        holder.rollback()
        holder.close()
    _until("the target ends the killed run's sessions", lambda: _sessions_on_target(target, database) == 0)
    _until("the endpoint ends the killed run's session",
           lambda: not _session_on_sql_server(writes_source.mssql, writes_source.name, blocked[-1]))
    assert _fingerprints(writes_source, target, database) == before
    assert not (tmp_path / "out" / "compare.json").exists()  # killed before it wrote anything
