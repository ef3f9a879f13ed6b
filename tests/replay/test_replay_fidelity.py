"""Replay sends what production sent and compares like with like, checked from the target's own side.

An Extended Events capture of three classes, each execution with its own value: an ad-hoc UPDATE
that counts a visit per publisher (`WHERE pub_id = '0736'`, `'0877'`, `'1389'` in the proportions
5:3:2), an ad-hoc INSERT of visits (its key captured too, and repeating) and a lookup the
application sent with sp_executesql. After the replay the target's tables say which values were
sent; TiDB's statements summary says the lookup ran as a prepared statement served from the plan
cache; and the verdicts set TiDB's server-side time against SQL Server's, and say so.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from replay_helpers import create_planned_tables
from servers import running_mariadb
from typer.testing import CliRunner

from sqlsrv2tidb import api
from sqlsrv2tidb.cli import app
from sqlsrv2tidb.report import compare

SCHEMA = """CREATE TABLE dbo.publishers (pub_id char(4) NOT NULL PRIMARY KEY, hits int NOT NULL DEFAULT 0)
GO
CREATE TABLE dbo.titles (title_id int NOT NULL PRIMARY KEY, pub_id char(4) NOT NULL, price decimal(8,2) NULL)
GO
CREATE TABLE dbo.visits (visit_id int NOT NULL PRIMARY KEY, pub_id char(4) NOT NULL)
GO
"""
PUBS = ["0736"] * 5 + ["0877"] * 3 + ["1389"] * 2
UPDATE_SHARE = {"0736": 0.5, "0877": 0.3, "1389": 0.2}
INSERT_SHARE = {"0736": 0.6, "0877": 0.2, "1389": 0.2}
LOOKUP = "SELECT title_id, price FROM dbo.titles WHERE pub_id = @P1"


def _event(i: int, name: str, field: str, text: str, duration_us: int) -> str:
    second, milli = divmod(i * 250, 1000)
    text = text.replace("&", "&amp;").replace("<", "&lt;")
    return (f'<event name="{name}" package="sqlserver" timestamp="2025-03-01T10:{second // 60:02d}:{second % 60:02d}.'
            f'{milli:03d}Z"><data name="duration"><value>{duration_us}</value></data><data name="{field}"><value>'
            f'{text}</value></data><action name="session_id"><value>{60 + i % 5}</value></action>'
            '<action name="database_name"><value>pubs</value></action></event>')


def write_capture(folder: Path) -> list[Path]:
    """240 events over a minute: the UPDATE and INSERT as ad-hoc batches, the lookup as sp_executesql RPCs."""
    folder.mkdir(parents=True, exist_ok=True)
    events = []
    for i in range(240):
        pub = PUBS[i % 10]
        if i % 4 in (0, 1):
            events.append(_event(i, "sql_batch_completed", "batch_text",
                                 f"UPDATE dbo.publishers SET hits = hits + 1 WHERE pub_id = '{pub}'", 40))
        elif i % 4 == 2:  # the captured keys repeat (0..6): sent again, they would fail as duplicates
            events.append(_event(i, "sql_batch_completed", "batch_text",
                                 f"INSERT INTO dbo.visits (visit_id, pub_id) VALUES ({i % 7}, '{pub}')", 150))
        else:
            events.append(_event(i, "rpc_completed", "statement",
                                 f"exec sp_executesql N'{LOOKUP}',N'@P1 char(4)','{pub}'", 60))
    (folder / "schema.sql").write_text(SCHEMA, encoding="utf-8")
    (folder / "workload.xml").write_text("<events>\n" + "\n".join(events) + "\n</events>\n", encoding="utf-8")
    return [folder / "schema.sql", folder / "workload.xml"]


def _prepare(server, database: str, sources: list[Path]) -> None:
    create_planned_tables(server, database, api.read(sources))
    with server.connect(database) as conn, conn.cursor() as cur:
        cur.execute("INSERT INTO publishers VALUES ('0736', 0), ('0877', 0), ('1389', 0)")
        cur.execute("INSERT INTO titles VALUES (1, '0736', 1.50), (2, '0877', 2.50), (3, '1389', 3.50)")


def _run(command: str, server, database: str, sources: list[Path], out: Path, *extra: str) -> dict:
    result = CliRunner().invoke(app, [
        command, *map(str, sources), "-o", str(out), "--target", server.url(database), "--qps", "200",
        "--duration", "3", "--warmup", "0", "--workers", "1", "--connections", "4", "--allow-writes",
        "--confirm-database", database, "--quiet", *extra,
    ], env=server.env())
    assert result.exit_code in (0, 1), result.output
    return json.loads((out / "replay.json").read_text(encoding="utf-8"))


def _by_kind(doc: dict) -> dict[str, dict]:
    return {q["kind"]: q for q in doc["per_query"]}


def _shares(rows: list[tuple[str, int]]) -> dict[str, float]:
    total = sum(n for _, n in rows)
    return {str(k).strip(): n / total for k, n in rows}


def _close(seen: dict[str, float], wanted: dict[str, float], tolerance: float = 0.1) -> bool:
    return set(seen) == set(wanted) and all(abs(seen[k] - wanted[k]) <= tolerance for k in wanted)


def _sent_values_follow_the_capture(server, database: str, doc: dict) -> None:
    """The target's own tables: which publishers the UPDATEs counted and the INSERTs wrote."""
    update, insert = _by_kind(doc)["update"], _by_kind(doc)["insert"]
    assert update["statements"] > 200 and update["errors"] == 0
    assert insert["statements"] > 80 and insert["errors"] == 0 and doc["error_codes"] == []
    with server.connect(database) as conn, conn.cursor() as cur:
        cur.execute("SELECT pub_id, hits FROM publishers")
        hits = cur.fetchall()
        cur.execute("SELECT pub_id, COUNT(*) FROM visits GROUP BY pub_id")
        visits = cur.fetchall()
        cur.execute("SELECT COUNT(*), COUNT(DISTINCT visit_id) FROM visits")
        rows, keys = cur.fetchone()
    # Every execution sent its own captured value, drawn in the captured proportions (5:3:2, and 3:1:1).
    assert sum(n for _, n in hits) == update["statements"]
    assert _close(_shares(hits), UPDATE_SHARE), hits
    assert _close(_shares(visits), INSERT_SHARE), visits
    # The written key got fresh values: no insert met a key sent before, and the result says so.
    assert rows == keys == insert["statements"]
    assert insert["values"]["fresh_keys"] == ["visit_id"]
    assert update["values"] == {"source": "captured", "captured_sets": 120, "captured_from": 120, "fresh_keys": [],
                                "description": "captured values"}


def test_xe_capture_replayed_on_tidb_with_captured_values_prepared_rpc_and_server_time(tidb, tidb_database, tmp_path):
    sources = write_capture(tmp_path / "in")
    _prepare(tidb, tidb_database, sources)
    out = tmp_path / "out"
    doc = _run("assess", tidb, tidb_database, sources, out)
    _sent_values_follow_the_capture(tidb, tidb_database, doc)

    kinds = _by_kind(doc)
    lookup = kinds["select"]
    assert (lookup["protocol"], kinds["update"]["protocol"], kinds["insert"]["protocol"]) == ("prepared", "text", "text")
    assert lookup["protocol_why"] == "captured as an RPC call with parameters"
    # TiDB's counters, read by the replay: every lookup prepared, and its plan served from the cache.
    assert lookup["prepared_executions"] == lookup["statements"] > 100
    assert lookup["plan_cache_hits"] >= lookup["statements"] - 8  # a miss per connection at most, and a few more
    assert kinds["update"]["prepared_executions"] == 0
    with tidb.connect(tidb_database) as conn, conn.cursor() as cur:  # and read here, independently
        cur.execute("SELECT SUM(EXEC_COUNT), SUM(PLAN_CACHE_HITS) FROM information_schema.statements_summary_history "
                    "WHERE SCHEMA_NAME = %s AND PREPARED = 1 AND DIGEST_TEXT LIKE 'select `title_id`%%'",
                    (tidb_database,))
        executed, hits = cur.fetchone()
    assert int(executed) == lookup["statements"] and int(hits) == lookup["plan_cache_hits"]

    # Server-side time per class, next to the client's, and the verdicts compare it with SQL Server's.
    assert doc["server_time"]["source"].startswith("TiDB statements summary") and doc["server_time"]["note"] is None
    for q in doc["per_query"]:
        server = q["server_ms"]
        assert server["executions"] == q["statements"] and 0 < server["mean"] <= server["max"]
        assert server["mean"] < q["latency_ms"]["mean"]  # the client's figure adds the network and the driver
    assessment = json.loads((out / "assessment.json").read_text(encoding="utf-8"))
    results = compare.classify(assessment["queries"], doc["per_query"])
    assert {r.basis for r in results} == {"server"}
    assert all(r.why.startswith("server-side mean") for r in results if r.category != "not comparable")
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "server-side mean" in page and "server-side time on both sides" in page
    assert "1 of 3 classes; TiDB&#39;s plan cache served" in page

    # --anonymize: the captured values appear in no file it writes.
    result = CliRunner().invoke(app, ["report", str(out), "--anonymize", "--quiet"])
    assert result.exit_code == 0, result.output
    shared = out / "anonymized"
    text = "".join(p.read_text(encoding="utf-8") for p in shared.rglob("*") if p.is_file())
    assert not any(value in text for value in ("0736", "0877", "1389"))


def test_on_mariadb_without_performance_schema_the_comparison_is_at_the_client(mariadb, database, tmp_path):
    sources = write_capture(tmp_path / "in")
    _prepare(mariadb, database, sources)
    with mariadb.connect() as conn, conn.cursor() as cur:
        cur.execute("SHOW GLOBAL STATUS LIKE 'Com_stmt_execute'")
        executed_before = int(cur.fetchone()[1])
    doc = _run("replay", mariadb, database, sources, tmp_path / "out")
    _sent_values_follow_the_capture(mariadb, database, doc)
    lookup = _by_kind(doc)["select"]
    with mariadb.connect() as conn, conn.cursor() as cur:
        cur.execute("SHOW GLOBAL STATUS LIKE 'Com_stmt_execute'")
        executed = int(cur.fetchone()[1]) - executed_before
    assert lookup["protocol"] == "prepared" and executed == lookup["statements"]  # the server's own count
    assert doc["server_time"] == {"source": None, "classes": 0, "note": (
        "the target's performance_schema is off, so it keeps no server-side statement times: the comparison with "
        "SQL Server uses the latency measured at the client")}
    assert not any("server_ms" in q for q in doc["per_query"])
    assert {r.basis for r in compare.classify([], doc["per_query"])} == {"client"}


@pytest.fixture
def mariadb_with_performance_schema():
    yield from running_mariadb("sqlsrv2tidb-pfs-", "--performance-schema=ON")


def test_on_mariadb_with_performance_schema_server_time_comes_from_its_digests(mariadb_with_performance_schema,
                                                                              tmp_path):
    server = mariadb_with_performance_schema
    database = server.create_database("pfs")
    sources = write_capture(tmp_path / "in")
    _prepare(server, database, sources)
    doc = _run("replay", server, database, sources, tmp_path / "out", "--protocol", "text")
    assert doc["server_time"]["source"] == "performance_schema.events_statements_summary_by_digest"
    assert {q["protocol"] for q in doc["per_query"]} == {"text"}
    for q in doc["per_query"]:
        assert q["server_ms"]["executions"] == q["statements"] and q["server_ms"]["mean"] > 0
    assert {r.basis for r in compare.classify([], doc["per_query"])} == {"server"}


def test_protocol_prepared_without_a_driver_for_it_fails_in_one_line(tmp_path):
    sources = write_capture(tmp_path / "in")
    result = CliRunner().invoke(app, ["replay", *map(str, sources), "-o", str(tmp_path / "out"), "--target",
                                      "mysql://root@127.0.0.1:1/x", "--qps", "10", "--driver", "pymysql",
                                      "--protocol", "prepared", "--quiet"])
    assert result.exit_code == 2
    assert result.stderr == ("Error: --protocol prepared: the pymysql driver sends no server-side prepared statements; "
                             "mysqlclient does (--driver mysqlclient)\n")


def test_protocol_auto_with_a_text_only_driver_sends_rpc_classes_as_text_and_says_so(mariadb, database, tmp_path):
    sources = write_capture(tmp_path / "in")
    _prepare(mariadb, database, sources)
    doc = _run("replay", mariadb, database, sources, tmp_path / "out", "--driver", "pymysql")
    lookup = _by_kind(doc)["select"]
    assert lookup["protocol"] == "text" and lookup["errors"] == 0
    assert lookup["protocol_why"].startswith("captured as an RPC call, sent as text: the pymysql driver sends no")
    assert any("1 query class(es) captured as RPC calls with parameters were sent as text" in n for n in doc["notes"])
    assert Counter(q["protocol"] for q in doc["per_query"]) == {"text": 3}
