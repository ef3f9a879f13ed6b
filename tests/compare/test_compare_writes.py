"""`compare --allow-writes`: every write class run on the SQL Server endpoint and on each target from the same rows,
each in a transaction rolled back, and judged by its effect (tests/compare/writes: a schema written for these tests).

Each statement below is one way a write may mean something else once it runs on TiDB or MySQL; every one must
come out as SQL Server's documented behaviour has it, and both databases must hold exactly the rows they held
before the run.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from compare_helpers import workload_file
from data_helpers import captured, copy_args, loaded
from meaning import load_on_tds

from sqlsrv2tidb import api
from sqlsrv2tidb.errors import Refused, UsageError
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.target import parse_target
from sqlsrv2tidb.tsql.fingerprint import fingerprint, query_id

WRITES = Path(__file__).resolve().parent / "writes"
TABLES = ("authors", "titles", "orders", "order_lines", "audit_log")

CASES = {
    # statement: (verdict, what its compare.json entry must also show)
    "UPDATE dbo.authors SET contract = 1 WHERE city = 'Oakland'":
        ("same", {"rows_affected": {"sql_server": [3], "target": [3]}}),  # matched rows, not changed ones
    "UPDATE dbo.authors SET city = 'Palo Alto' WHERE au_lname = 'green'":
        ("same", {"rows_affected": {"sql_server": [1], "target": [1]}}),  # a case-insensitive WHERE
    "UPDATE dbo.authors SET city = 'Berkeley' WHERE au_id = '172-32-1176   '":
        ("same", {"rows_affected": {"sql_server": [1], "target": [1]}}),  # a key compared with trailing spaces
    "UPDATE dbo.authors SET city = 'A city name much too long' WHERE contract = 1 AND au_id = '172-32-1176'":
        ("same", {"refused": "truncation"}),
    "INSERT INTO dbo.titles (title_id, title) VALUES ('BU1032', 'dup')": ("same", {"refused": "unique key"}),
    "UPDATE dbo.titles SET royalty = 200 WHERE title_id = 'BU1111'": ("same", {"refused": "CHECK constraint"}),
    "UPDATE dbo.titles SET ytd_sales = o.qty FROM dbo.orders AS o WHERE dbo.titles.title_id = o.title_id "
    "AND o.order_id = 2": ("same", {"rows": {"dbo.titles": 1}}),  # T-SQL joins the table its FROM does not name
    "UPDATE dbo.titles SET title = j.title FROM OPENJSON(N'[{\"title\": \"Busy\"}]') WITH (title varchar(80)) AS j "
    "WHERE dbo.titles.title_id = 'BU1032'": ("same", {}),  # rows of a JSON parameter: runs on both alike
    "DELETE FROM dbo.orders WHERE order_id = 1": ("same", {"tables": {"dbo.orders", "dbo.order_lines"}}),
    "UPDATE dbo.titles SET price = price * 2 WHERE title_id = 'PC8888'":
        ("same", {"tables": {"dbo.titles", "dbo.audit_log"}, "rows": {"dbo.audit_log": 1}}),  # the trigger's row
    "UPDATE dbo.titles SET ytd_sales = 1 WHERE title_id = 'PC8888'":
        ("same", {"rows": {"dbo.audit_log": 0}}),  # UPDATE(price) is false: the trigger writes nothing
    "INSERT INTO dbo.order_lines VALUES (2, 9, 'forbidden')": ("same", {"refused": "raised by the code"}),
    "EXEC dbo.place_order 'BU1111', 2, '2024-05-05'":
        ("same", {"tables": {"dbo.orders", "dbo.order_lines", "dbo.titles"}, "rows": {"dbo.orders": 1}}),
    "DECLARE @sales int; EXEC dbo.place_order 'BU1032', 3, '2024-05-06', @sales OUTPUT":  # its return status and
        ("same", {"result_sets": 2}),  # OUTPUT parameter compared as one more result set
    "EXEC sp_executesql N'UPDATE dbo.orders SET discount = @d WHERE order_id = @id', N'@d decimal(4,1), @id int', "
    "@d = 6.75, @id = 2": ("same", {"tables": {"dbo.orders"}}),  # the declared decimal(4,1) stores 6.8
    "UPDATE dbo.titles SET royalty = royalty * 1.05 WHERE title_id = 'BU1032'": ("same", {}),  # 14.70 is 14
    "INSERT INTO dbo.orders (title_id, qty, ordered) VALUES ('BU1032', 5, '2024-01-02 10:30:00.005')":
        ("same", {"rows": {"dbo.orders": 1}}),  # datetime keeps .007
}
THROUGH_A_VIEW = "UPDATE dbo.cheap_titles SET title = 'Cheap Cooking' WHERE title_id = 'BU1111'"
"""TiDB's views are read-only (MO10): it refuses what SQL Server, MySQL and MariaDB run."""
WITH_ITS_BATCH = ("SELECT title_id INTO #cheap FROM dbo.titles WHERE price < 15",
                  "UPDATE dbo.titles SET ytd_sales = 0 WHERE title_id IN (SELECT title_id FROM #cheap)")
"""A write that reads a temp table its batch makes: run with the statements before it, on both servers."""
LEFT_OUT = {"TRUNCATE TABLE dbo.audit_log": "schema change"}


@pytest.fixture(scope="session")
def writes_source(mssql, tmp_path_factory):
    """The write schema and its rows on the SQL Server endpoint, captured."""
    name = load_on_tds(mssql, "compare_writes", WRITES)
    return captured(mssql, name, tmp_path_factory.mktemp("writes") / "capture")


def _fingerprints(source, target, database: str) -> dict[str, tuple[str, str]]:
    """Each table's rows on both servers, as a digest of its sorted rows (what must not change)."""
    found = {}
    for table in TABLES:
        left = sorted(repr(tuple(str(v) for v in r)) for r in source.rows(f"SELECT * FROM dbo.{table}"))
        with target.connect(database) as conn, conn.cursor() as cursor:
            cursor.execute(f"SELECT * FROM `{table}`")
            right = sorted(repr(tuple(str(v) for v in r)) for r in cursor.fetchall())
        found[table] = (hashlib.sha256("\n".join(left).encode()).hexdigest(), hashlib.sha256("\n".join(right).encode()).hexdigest())
    return found


def _entry(doc: dict, statement: str) -> dict:
    """The compare.json entry of the class a statement of the workload file was read into (its own: no two
    statements above have one shape)."""
    wanted = {query_id(fingerprint(statement)), query_id(fingerprint(statement.split("; ")[-1]))}  # a DECLARE's batch: its EXEC
    found = [q for q in doc["queries"] if q["id"] in wanted]
    assert len(found) == 1, (statement, wanted, [(q["id"], q["sql_server_sql"][:60]) for q in doc["queries"]])
    return found[0]


def test_writes_are_compared_by_their_effect_and_leave_both_databases_as_they_were(
        writes_source, target, target_database, tmp_path):
    copied = loaded(*copy_args(writes_source, target, target_database, tmp_path / "data", "--create-tables"))
    assert all(t["verify"]["status"] == "equal" for t in copied["tables"]), copied["tables"]
    before = _fingerprints(writes_source, target, target_database)
    workload = workload_file([*CASES, THROUGH_A_VIEW, ";\n".join(WITH_ITS_BATCH), *LEFT_OUT], tmp_path / "writes.sql")
    outcome = api.run_compare([writes_source.capture, workload], tmp_path / "out", Options(),
                              login=api.SourceLogin(writes_source.connection),
                              target=parse_target(target.url(target_database)),
                              settings=api.CompareSettings(parameter_sets=1, timeout=30, allow_writes=True,
                                                           confirm_database=target_database))
    doc = json.loads((tmp_path / "out" / "compare.json").read_text(encoding="utf-8"))
    assert doc == outcome.assessment
    for q in doc["queries"]:
        print(target.kind, q["verdict"], q["sql_server_sql"][:70], "|", q["reason"][:200])
    wrong = []
    for statement, (verdict, shows) in CASES.items():
        q = _entry(doc, statement)
        if q["verdict"] != verdict:
            wrong.append((statement, q["verdict"], q["reason"]))
            continue
        if "rows_affected" in shows:
            assert q.get("rows_affected") == shows["rows_affected"], (statement, q.get("rows_affected"))
        if "refused" in shows:
            assert q["refused"]["sql_server"] and q["refused"]["target"], (statement, q["refused"])
            assert all(shows["refused"] in said for side in q["refused"].values() for said in side[:1]), q["refused"]
        tables = {e["table"]: e for e in q.get("end_state", [])}
        assert shows.get("tables", set()) <= set(tables), (statement, set(tables))
        if "result_sets" in shows:
            assert q["result_sets"] == {"sql_server": shows["result_sets"], "target": shows["result_sets"]}, q
        for table, rows in shows.get("rows", {}).items():
            assert tables[table]["rows"] == {"sql_server": rows, "target": rows}, (statement, tables[table])
    assert not wrong, wrong
    view = _entry(doc, THROUGH_A_VIEW)
    if target.kind == "tidb":
        assert view["verdict"] == "differs" and "the target refuses it" in view["reason"] and "MO10" in view["reason"]
    else:
        assert view["verdict"] == "same" and "not read" in view["reason"] and "cheap_titles" in view["reason"], view
    batch = _entry(doc, WITH_ITS_BATCH[1])
    assert batch["verdict"] == "same", batch
    ends = {e["table"]: e for e in batch["end_state"]}
    assert ends["dbo.titles"]["rows"] == {"sql_server": 1, "target": 1}  # BU1111, the one under 15
    left = {item["id"]: item["reason"] for item in doc["left_out"]}
    assert any(LEFT_OUT["TRUNCATE TABLE dbo.audit_log"] in reason for reason in left.values()), left
    assert _fingerprints(writes_source, target, target_database) == before


def test_writes_are_refused_without_the_database_named(writes_source, target, target_database, tmp_path):
    workload = workload_file(list(CASES)[:1], tmp_path / "writes.sql")
    with pytest.raises(Refused, match="does not name the target's database"):
        api.run_compare([writes_source.capture, workload], tmp_path / "out", Options(),
                        login=api.SourceLogin(writes_source.connection),
                        target=parse_target(target.url(target_database)),
                        settings=api.CompareSettings(allow_writes=True, confirm_database="another"))
    without = api.CompareSettings(parameter_sets=1)
    with pytest.raises(UsageError, match="nothing to compare: .*--allow-writes --confirm-database"):
        api.run_compare([writes_source.capture, workload], tmp_path / "out2", Options(),
                        login=api.SourceLogin(writes_source.connection),
                        target=parse_target(target.url(target_database)), settings=without)
