"""Faults and bad input during a load: a wrong value planted in the target, a load killed half-way and
run again, connections cut mid-chunk, warnings from the target, a table the target refuses.

Nothing is simulated: the process is killed with SIGKILL, connections are killed by the servers
themselves (`KILL` on the target, `pg_terminate_backend` behind Babelfish), and refusals come from
real privileges.
"""

from __future__ import annotations

import json
import signal
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from data_helpers import (
    SourceDb,
    by_table,
    captured,
    copy_args,
    data,
    data_process,
    document,
    loaded,
    target_rows,
)

from sqlsrv2tidb import api
from sqlsrv2tidb.data.settings import DataSettings
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.target import parse_target

BIG = 40_000
SKEWED = 20_000


@pytest.fixture(scope="module")
def big(mssql, tmp_path_factory) -> SourceDb:
    """40,000 keyed rows, 6,000 rows of a heap and 20,000 of a skewed composite key: enough chunks to stop
    a load half-way, and to split a table into key ranges."""
    name = mssql.create_database("data_big")
    conn = mssql.connect(name)
    try:
        cur = conn.cursor()
        cur.execute("CREATE TABLE dbo.big (id int NOT NULL PRIMARY KEY, label nvarchar(40) NOT NULL, amount decimal(12,2))")
        cur.execute("CREATE TABLE dbo.heap (a int, b nvarchar(20))")
        for start in range(1, BIG + 1, 1000):
            cur.execute("INSERT INTO dbo.big VALUES " + ", ".join(
                f"({i}, N'row {i} ü', {i * 7 % 10000}.{i % 100:02d})" for i in range(start, start + 1000)))
        for start in range(0, 6000, 1000):
            cur.execute("INSERT INTO dbo.heap VALUES " + ", ".join(f"({i % 13}, N'h{i % 11}')" for i in range(start, start + 1000)))
        # A composite key whose leading column is skewed (nine rows in ten share grp 1) and whose second
        # column has gaps: ranges cut at equal row counts must still come out equal.
        cur.execute("CREATE TABLE dbo.skewed (grp int NOT NULL, n bigint NOT NULL, note nvarchar(20), PRIMARY KEY (grp, n))")
        for start in range(0, SKEWED, 1000):
            cur.execute("INSERT INTO dbo.skewed VALUES " + ", ".join(
                f"({1 if i % 10 else 2 + i % 37}, {i * i}, N's{i}')" for i in range(start, start + 1000)))
    finally:
        conn.close()
    return captured(mssql, name, tmp_path_factory.mktemp("big") / "capture")


@pytest.mark.slow
def test_a_planted_wrong_value_is_found_with_its_key(target, target_database, chinook, tmp_path):
    """DA02: verify narrows a differing chunk down to its rows and prints their keys."""
    copied = data(*copy_args(chinook, target, target_database, tmp_path / "copy", "--create-tables",
                             "--table", "track", "--table", "genre", "--chunk-rows", "500"))
    assert copied.exit_code == 0, copied.output
    with target.connect(target_database) as conn, conn.cursor() as cur:
        cur.execute("SET foreign_key_checks = 0")
        cur.execute("UPDATE track SET name = 'planted' WHERE trackid = 1234")
        cur.execute("DELETE FROM track WHERE trackid = 3000")
        cur.execute("INSERT INTO genre (genreid, name) VALUES (99, 'extra')")
    result = data("verify", "-o", str(tmp_path / "verify"), "--connection", chinook.connection, "--target",
                  target.url(target_database), "--table", "track", "--table", "genre", "--chunk-rows", "500",
                  "--fail-on", "high", str(chinook.capture))
    assert result.exit_code == 1, result.output
    tables = by_table(document(tmp_path / "verify"))
    track = tables["dbo.track"]["verify"]
    assert track["status"] == "different" and track["differences"] == 2 and track["chunks_different"] == 2
    assert track["chunks"] == 8 and track["source_rows"] == 3503 and track["target_rows"] == 3502
    found = {(d["kind"], json.dumps(d["key"]).lower(), tuple(c.lower() for c in d["columns"]))
             for d in track["first_differences"]}
    assert found == {("values differ", '{"trackid": 1234}', ("name",)), ("missing on target", '{"trackid": 3000}', ())}
    genre = tables["dbo.genre"]["verify"]
    assert genre["first_differences"][0]["kind"] == "extra on target"
    line = next(line for line in result.stderr.splitlines() if "track" in line.lower() and "verify found" in line)
    assert "1234" in line and "3000" in line


def _checkpoint(out: Path) -> dict:
    try:
        return json.loads((out / "data-checkpoint.json").read_text())
    except (OSError, ValueError):
        return {}


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def _kill_when(process, out: Path, table: str, rows: int, timeout: float = 60, ranges: int = 0) -> list[int]:
    """SIGKILL the load once the checkpoint holds `rows` rows of `table` (and rows in `ranges` of its key
    ranges); returns the processes it had started (its key-range workers)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = _checkpoint(out).get("tables", {}).get(table, {})
        loading = sum(1 for r in state.get("ranges") or [] if r["rows"] > 0)
        if state.get("status") == "partial" and state.get("rows", 0) >= rows and loading >= ranges:
            workers = _children(process.pid)
            process.send_signal(signal.SIGKILL)
            process.wait()
            return workers
        assert process.poll() is None, process.communicate()
        time.sleep(0.01)
    raise AssertionError(f"{table} never reached {rows} rows")


def _gone(pids: list[int], timeout: float = 10) -> bool:
    """Whether every one of `pids` has ended (a zombie has ended; its new parent reaps it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        alive = []
        for pid in pids:
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                alive.append(pid)
        if not alive:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.slow
def test_a_killed_load_resumes_without_loading_twice(target, target_database, big, tmp_path):
    out = tmp_path / "out"
    args = copy_args(big, target, target_database, out, "--create-tables", "--chunk-rows", "500", "--jobs", "1")
    first = data_process(*args, "--table", "big")
    _kill_when(first, out, "dbo.big", 5000)
    killed_at = _checkpoint(out)["tables"]["dbo.big"]["rows"]
    assert 5000 <= killed_at < BIG
    second = data_process(*args, "--table", "big")
    assert second.wait(120) == 0, second.communicate()
    entry = by_table(document(out))["dbo.big"]
    assert entry["resumed"] and entry["rows"] == BIG and entry["verify"]["status"] == "equal"
    count, distinct = target_rows(target, target_database, "SELECT COUNT(*), COUNT(DISTINCT id) FROM big")[0]
    assert count == distinct == BIG
    # A heap has no key to resume after: the rerun empties it and loads it whole, never twice.
    heap_out = tmp_path / "heap"
    heap_args = copy_args(big, target, target_database, heap_out, "--create-tables", "--chunk-rows", "200",
                          "--jobs", "1", "--table", "heap")
    third = data_process(*heap_args)
    _kill_when(third, heap_out, "dbo.heap", 400)
    assert target_rows(target, target_database, "SELECT COUNT(*) FROM heap")[0][0] > 0
    fourth = data_process(*heap_args)
    assert fourth.wait(120) == 0, fourth.communicate()
    heap = by_table(document(heap_out))["dbo.heap"]
    assert heap["resumed"] and heap["rows"] == 6000 and heap["verify"]["status"] == "equal"
    assert target_rows(target, target_database, "SELECT COUNT(*) FROM heap")[0][0] == 6000


def _still(target, database: str, table: str) -> int:
    """The table's row count once its killed load's workers are gone: a statement the server had already
    received may still finish in the first moment, after that nothing changes it."""
    time.sleep(1)
    before = target_rows(target, database, f"SELECT COUNT(*) FROM {table}")[0][0]
    time.sleep(1.5)
    after = target_rows(target, database, f"SELECT COUNT(*) FROM {table}")[0][0]
    assert before == after, f"{table} went from {before} to {after} rows after its load was killed"
    return after


@pytest.mark.slow
def test_a_killed_split_load_resumes_every_range_without_loading_twice(target, target_database, big, tmp_path):
    """A table cut into key ranges copied by worker processes: killed mid-way (its workers die with it),
    rerun with --jobs 1, every range continues from its own checkpoint."""
    out = tmp_path / "out"
    args = copy_args(big, target, target_database, out, "--create-tables", "--chunk-rows", "500",
                     "--split-rows", "10000", "--table", "big")
    first = data_process(*args, "--jobs", "4")
    workers = _kill_when(first, out, "dbo.big", 4000, ranges=2)
    assert workers and _gone(workers), "the key-range workers outlived the killed load"  # (one may have finished)
    state = _checkpoint(out)["tables"]["dbo.big"]
    ranges = state["ranges"]
    assert len(ranges) == 4 and [r["lower"] for r in ranges] == [None, [10000], [20000], [30000]]
    assert [r["upper"] for r in ranges] == [[10000], [20000], [30000], None]
    assert 4000 <= state["rows"] < BIG and sum(r["rows"] for r in ranges) == state["rows"]
    assert sum(1 for r in ranges if r["rows"] > 0) >= 2  # the ranges were loading at the same time
    assert any(r["status"] != "done" for r in ranges)
    assert _still(target, target_database, "big") >= state["rows"]
    second = data_process(*args, "--jobs", "1")  # the ranges stay as they were cut, whatever --jobs says now
    assert second.wait(180) == 0, second.communicate()
    entry = by_table(document(out))["dbo.big"]
    assert entry["resumed"] and entry["ranges"] == 4 and entry["rows"] == BIG, entry
    assert entry["verify"]["status"] == "equal", entry["verify"]
    assert target_rows(target, target_database, "SELECT COUNT(*), COUNT(DISTINCT id) FROM big")[0] == (BIG, BIG)
    done = _checkpoint(out)["tables"]["dbo.big"]
    assert done["status"] == "done" and [r["rows"] for r in done["ranges"]] == [10000] * 4


@pytest.mark.slow
def test_an_uneven_composite_key_splits_into_equal_ranges(target, target_database, big, tmp_path):
    out = tmp_path / "out"
    doc = loaded(*copy_args(big, target, target_database, out, "--create-tables", "--chunk-rows", "700",
                            "--split-rows", "5000", "--jobs", "4", "--table", "skewed"))
    entry = by_table(doc)["dbo.skewed"]
    assert entry["status"] == "done" and entry["ranges"] == 4 and entry["rows"] == SKEWED
    assert entry["method"] == "load data" and entry["chunks"] >= 8
    assert entry["verify"]["status"] == "equal", entry["verify"]
    ranges = _checkpoint(out)["tables"]["dbo.skewed"]["ranges"]
    assert [r["rows"] for r in ranges] == [SKEWED // 4] * 4
    assert all(len(r["upper"]) == 2 for r in ranges[:-1])
    assert target_rows(target, target_database, "SELECT COUNT(*), COUNT(DISTINCT grp, n) FROM skewed")[0] == (SKEWED, SKEWED)
    # A table under twice --split-rows is copied whole, by the copy's own threads.
    whole = loaded(*copy_args(big, target, target_database, tmp_path / "whole", "--create-tables", "--truncate",
                              "--split-rows", "10001", "--jobs", "4", "--table", "skewed"))
    assert by_table(whole)["dbo.skewed"]["ranges"] == 1


def test_ranges_are_cut_at_the_true_count_when_the_capture_estimated_fewer_rows(target, target_database, big, tmp_path):
    """The capture's row count is the server's estimate (the endpoint's comes from PostgreSQL's statistics, taken
    whenever its autovacuum last looked): it decides whether a table is split, and the cuts come from the true count,
    so the ranges hold equal rows however stale the estimate is."""
    import shutil

    capture = tmp_path / "capture"
    shutil.copytree(big.capture, capture)
    catalog = json.loads((capture / "catalog.json").read_text(encoding="utf-8"))
    for row in catalog["rowsets"]["TABLE_ROWS"]:
        row["row_count"] = 12_000  # two ranges by this count, four by the table's 20,000 rows
    (capture / "catalog.json").write_text(json.dumps(catalog), encoding="utf-8")
    stale = SourceDb(big.mssql, big.name, capture)
    out = tmp_path / "out"
    doc = loaded(*copy_args(stale, target, target_database, out, "--create-tables", "--chunk-rows", "700",
                            "--split-rows", "5000", "--jobs", "4", "--table", "skewed"))
    entry = by_table(doc)["dbo.skewed"]
    assert entry["status"] == "done" and entry["ranges"] == 4 and entry["rows"] == SKEWED
    assert [r["rows"] for r in _checkpoint(out)["tables"]["dbo.skewed"]["ranges"]] == [SKEWED // 4] * 4


class _CutConnections:
    """A progress display that, after the second chunk, kills the load's connections on both servers."""

    def __init__(self, target, database: str, mssql) -> None:
        self.target, self.database, self.mssql = target, database, mssql
        self.chunks, self.cut = 0, []

    @contextmanager
    def task(self, description: str, total: int | None = None):
        yield self

    def update(self, description: str) -> None:
        pass

    def advance(self, n: int = 1) -> None:
        self.chunks += 1
        if self.chunks != 2:
            return
        with self.target.connect() as conn, conn.cursor() as cur:
            cur.execute("SELECT id FROM information_schema.processlist WHERE db = %s AND id <> CONNECTION_ID()",
                        (self.database,))
            for (pid,) in cur.fetchall():
                try:
                    cur.execute(f"KILL {int(pid)}")
                    self.cut.append("target")
                except Exception:  # noqa: BLE001 - a connection that ended on its own meanwhile
                    pass
        if self.mssql.babelfish and self.mssql.started_here:
            self.mssql.postgres("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                "WHERE query ILIKE '%big%' AND pid <> pg_backend_pid()")
            self.cut.append("source")


@pytest.mark.slow
@pytest.mark.parametrize("split", [0, 10_000], ids=["whole", "key-ranges"])
def test_lost_connections_retry_the_chunk(target, target_database, big, tmp_path, split):
    """Whole, the copy's own connections are cut; split, those of the worker processes loading the ranges.

    Split, the cut follows the second chunk's message, which the parent reads while the workers go
    on: wherever it finds a worker (loading a chunk, reading its warnings, between two chunks), the
    chunk is loaded again; with 40 chunks a range a worker still has chunks left however late a
    loaded machine lets the parent read the message."""
    cutter = _CutConnections(target, target_database, big.mssql)
    settings = DataSettings(confirm_database=target_database, create_tables=True, chunk_rows=500 if split else 2000,
                            jobs=2 if split else 1, split_rows=split, tables=("big",))
    outcome = api.run_data_copy([big.capture], tmp_path / "out", Options(), login=api.SourceLogin(big.connection),
                                target=parse_target(target.url(target_database)), settings=settings, progress=cutter)
    assert "target" in cutter.cut
    entry = by_table(outcome.assessment)["dbo.big"]
    assert entry["status"] == "done" and entry["retries"] >= 1, entry
    assert entry["rows"] == BIG and entry["verify"]["status"] == "equal"
    assert entry["ranges"] == (2 if split else 1)
    assert target_rows(target, target_database, "SELECT COUNT(*), COUNT(DISTINCT id) FROM big")[0] == (BIG, BIG)


@pytest.mark.slow
def test_target_warnings_are_recorded_and_verify_names_the_rows(mariadb, database, chinook, tmp_path):
    """DA06: a column override too narrow for the values: the target cuts them, with warnings."""
    config = tmp_path / "narrow.yaml"
    config.write_text('columns:\n  "dbo.artist.name": "VARCHAR(5)"\n')
    out = tmp_path / "out"
    result = data(*copy_args(chinook, mariadb, database, out, "--create-tables", "--table", "artist",
                             "--config", str(config)))
    assert result.exit_code == 0, result.output
    doc = document(out)
    rules = {f["rule"] for f in doc["findings"]}
    assert {"DA06", "DA02"} <= rules
    rejects = [json.loads(line) for line in (out / "data-rejects.jsonl").read_text().splitlines()]
    assert rejects and all(r["reason"].startswith("target warning:") for r in rejects)
    check = by_table(doc)["dbo.artist"]["verify"]
    assert check["status"] == "different" and check["first_differences"][0]["columns"] in (["name"], ["Name"])


@pytest.mark.slow
def test_a_table_the_target_refuses_fails_alone(mariadb, database, chinook, tmp_path):
    """DA08: no INSERT privilege on one table: it fails with the server's message, the other loads."""
    made = data(*copy_args(chinook, mariadb, database, tmp_path / "made", "--create-tables", "--table", "genre",
                           "--table", "mediatype", "--no-verify"))
    assert made.exit_code == 0, made.output
    with mariadb.connect(database) as conn, conn.cursor() as cur:
        cur.execute("DELETE FROM genre")
        cur.execute("DELETE FROM mediatype")
        cur.execute("CREATE USER IF NOT EXISTS 'partial'@'127.0.0.1'")
        cur.execute(f"GRANT SELECT, INSERT, DELETE ON `{database}`.genre TO 'partial'@'127.0.0.1'")
        cur.execute(f"GRANT SELECT ON `{database}`.mediatype TO 'partial'@'127.0.0.1'")
    url = f"mysql://partial@{mariadb.host}:{mariadb.port}/{database}"
    out = tmp_path / "out"
    result = data("copy", "-o", str(out), "--connection", chinook.connection, "--target", url, "--confirm-database",
                  database, "--table", "genre", "--table", "mediatype", "--create-tables", "--fail-on", "high",
                  str(chinook.capture))
    assert result.exit_code == 1, result.output
    tables = by_table(document(out))
    assert tables["dbo.genre"]["status"] == "done" and tables["dbo.genre"]["verify"]["status"] == "equal"
    refused = tables["dbo.mediatype"]
    assert refused["status"] == "failed" and "1142" in refused["message"] and refused["verify"] is None
    assert [f["object"] for f in document(out)["findings"] if f["rule"] == "DA08"] == ["dbo.mediatype"]
    # With --create-tables, what comes after the load (indexes, foreign keys, views) waits for the failed table.
    assert document(out)["views"] is None
    assert any(n.startswith("--create-tables: indexes, foreign keys and views wait") for n in document(out)["notes"])
