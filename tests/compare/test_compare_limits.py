"""What compare never does: write (whatever the capture holds), or wait on a statement past its timeout."""

from __future__ import annotations

from compare_helpers import compare, load_planted, verdicts, workload_file
from test_planted_fixtures import PLANTED, planted_on

LONG = "SELECT COUNT(*) FROM " + " CROSS JOIN ".join(f"dbo.visits v{i}" for i in range(12))
"""5^12 rows to count: about ten seconds on the endpoint, longer on TiDB. Its own database: Babelfish does not
stop a statement when the client gives up on it (the attention pyodbc sends), it runs to its end, holding the
database it runs in for those seconds; SQL Server stops it."""


def test_a_class_past_the_timeout_is_reported_and_the_next_one_still_compared(mssql, tidb, tmp_path):
    database = load_planted(mssql, "t_compare_timeout")
    queries = workload_file([LONG, "SELECT id, city FROM dbo.visits"], tmp_path / "queries.sql")
    doc = compare([PLANTED / "schema.sql", queries], tmp_path / "out", mssql.connection_string(database),
                  tidb.url(planted_on(tidb, True)), "--statement-timeout", "2")
    found = sorted(verdicts(doc).values(), key=lambda q: q["sql_server_sql"])
    slow, plain = found
    assert slow["verdict"] == "error" and slow["timed_out"] and slow["side"] in ("sql_server", "both"), slow
    assert "statement timeout" in slow["reason"], slow
    assert plain["verdict"] == "same" and plain["rows"] == {"sql_server": 5, "target": 5}, plain


def test_a_write_is_never_sent_to_either_side(mssql, planted_tds, tidb, tmp_path):
    target_db = planted_on(tidb, True)
    queries = workload_file(["DELETE FROM dbo.visits WHERE id = 1", "UPDATE dbo.visits SET city = N'x'",
                             "SELECT id FROM dbo.visits"], tmp_path / "queries.sql")
    doc = compare([PLANTED / "schema.sql", queries], tmp_path / "out", mssql.connection_string(planted_tds),
                  tidb.url(target_db))
    assert [q["verdict"] for q in doc["queries"]] == ["same"], doc["queries"]
    assert sorted(x["reason"].split(":")[0] for x in doc["left_out"]) == ["changes data", "changes data"], doc["left_out"]
    conn = mssql.connect(planted_tds)
    try:
        assert conn.cursor().execute("SELECT COUNT(*) FROM dbo.visits WHERE city <> N'x'").fetchone()[0] == 5
    finally:
        conn.close()
    with tidb.connect(target_db) as c, c.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM visits WHERE city <> 'x'")
        assert cur.fetchone()[0] == 5
