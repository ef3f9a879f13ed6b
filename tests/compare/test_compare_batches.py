"""Statements cut from their batch, compared on real servers: one that reads a temp table or a table variable
its batch made runs after the batch's statements that make it, when the capture holds the batch (a workload
file's batch, an sp_executesql call, a statement event's sql_text), and is left out saying what it needs when
the capture holds it alone; a batch that writes a real table first is never run.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from compare_helpers import compare, verdicts, workload_file
from test_planted_fixtures import PLANTED, planted_on

PARIS = "SELECT id, city INTO #paris FROM dbo.visits WHERE city = N'Paris'\nSELECT id FROM #paris ORDER BY id"
TOP = ("DECLARE @top TABLE (id int)\nINSERT INTO @top SELECT id FROM dbo.visits WHERE score >= 80\n"
       "SELECT id FROM dbo.visits WHERE qty > 4\nSELECT COUNT(*) AS n FROM @top")
TOUCHED = "UPDATE dbo.visits SET qty = qty\nSELECT id INTO #touched FROM dbo.visits\nSELECT id FROM #touched"
PARIS_AGAIN = "SELECT id, city INTO #paris FROM dbo.visits WHERE score >= 80\nSELECT COUNT(*) AS paris FROM #paris"
"""The same temp table made again by the next class: the last one's is gone from both sessions."""
RECENT = "SELECT id INTO #recent FROM dbo.visits WHERE started_at >= '20240101';\nSELECT MAX(id) AS top_id FROM #recent"


def _event(name: str, statement: str, sql_text: str | None = None, second: int = 0) -> str:
    action = f'<action name="sql_text"><value>{escape(sql_text)}</value></action>' if sql_text else ""
    return (f'<event name="{name}" timestamp="2024-12-02T09:00:0{second}Z"><data name="statement">'
            f"<value>{escape(statement)}</value></data>{action}</event>")


def _events(path):
    path.write_text("<events>" + "".join([
        _event("sql_statement_completed", "SELECT id FROM #gone", second=1),
        _event("sql_statement_completed", "SELECT id FROM dbo.visits WHERE id = @missing", second=2),
        _event("sql_statement_completed", "SELECT MAX(id) AS top_id FROM #recent", RECENT, second=3),
        _event("rpc_completed", "exec sp_executesql N'SELECT id, qty INTO #big FROM dbo.visits WHERE score >= @min; "
                                "SELECT COUNT(*) AS big FROM #big WHERE qty >= @min / 20', N'@min int', @min = 80",
               second=4),
    ]) + "</events>", encoding="utf-8")
    return path


def test_a_statement_that_reads_what_its_batch_made_runs_with_the_batch(mssql, planted_tds, target, tmp_path):
    sources = [PLANTED / "schema.sql", workload_file([PARIS, TOP, TOUCHED, PARIS_AGAIN], tmp_path / "queries.sql"),
               _events(tmp_path / "events.xml")]
    target_db = planted_on(target, True)
    doc = compare(sources, tmp_path / "out", mssql.connection_string(planted_tds), target.url(target_db))
    by_text = {q["sql_server_sql"].rsplit(";\n", 1)[-1]: q for q in verdicts(doc).values()}
    left = {x["id"]: x["reason"] for x in doc["left_out"]}
    for text, rows, setup in (("SELECT id FROM #paris ORDER BY id", 3, 1), ("SELECT COUNT(*) AS n FROM @top", 1, 2),
                              ("SELECT COUNT(*) AS paris FROM #paris", 1, 1), ("SELECT MAX(id) AS top_id FROM #recent", 1, 1),
                              ("SELECT COUNT(*) AS big FROM #big WHERE qty >= @min / 20", 1, 2)):
        q = by_text[text]
        assert q["verdict"] == "same" and q["rows"] == {"sql_server": rows, "target": rows}, q
        assert q["batch"].startswith(f"run after {setup} statement(s) of its batch"), q
        assert q["target_sql"].count(";") >= 1, q  # the target ran the batch's translation, statement by statement
    assert "(1 that only return rows left out)" in by_text["SELECT COUNT(*) AS n FROM @top"]["batch"]
    big = by_text["SELECT COUNT(*) AS big FROM #big WHERE qty >= @min / 20"]
    assert big["sql_server_sql"].startswith("DECLARE @min int = 80;") and not big["values"], big
    reasons = sorted(left.values())
    assert "reads #gone created in its batch: the capture holds no statement of its batch before it" in reasons, reasons
    assert "needs @missing declared in its batch: the capture holds no statement of its batch before it" in reasons
    assert any(r.startswith("its batch runs UPDATE before it (UPDATE dbo.visits SET qty = qty)") for r in reasons), reasons
    assert any(r.startswith("it returns no rows: it only sets variables or makes temp tables") for r in reasons), reasons
    assert not any(q["verdict"] == "error" for q in doc["queries"]), doc["queries"]
    # Nothing is left behind on the target's session or tables: the temporary tables were dropped, the visits kept.
    with target.connect(target_db) as conn, conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM visits")
        assert cur.fetchone()[0] == 5
