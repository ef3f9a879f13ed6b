"""Plain .sql workload files: GO batches, statements without semicolons, variables, shapes and directive rates."""

from __future__ import annotations

from pathlib import Path

import pytest

from sqlsrv2tidb.capture.sqlfile import read_sql_workload, split_go
from sqlsrv2tidb.capture.statements import SplitError, split_batch
from sqlsrv2tidb.capture.textfile import TextFile
from sqlsrv2tidb.model import Parameter
from sqlsrv2tidb.workload_rates import class_rates, executions_in


def _read(text: str, name: str = "workload.sql"):
    return read_sql_workload(TextFile(Path(name), text, "utf-8", False))


def _texts(batch: str) -> list[str]:
    return [p.text for p in split_batch(batch)]


@pytest.mark.parametrize(("batch", "statements"), [
    ("SELECT 1 SELECT 2", ["SELECT 1", "SELECT 2"]),
    ("SELECT 1; SELECT 2;", ["SELECT 1", "SELECT 2"]),
    ("INSERT INTO t (a) VALUES (1) SELECT SCOPE_IDENTITY()", ["INSERT INTO t (a) VALUES (1)", "SELECT SCOPE_IDENTITY()"]),
    ("INSERT INTO t SELECT a FROM x UNION ALL SELECT b FROM y SELECT 3",
     ["INSERT INTO t SELECT a FROM x UNION ALL SELECT b FROM y", "SELECT 3"]),
    ("INSERT t EXEC dbo.p 1 SELECT 2", ["INSERT t EXEC dbo.p 1", "SELECT 2"]),
    ("UPDATE t SET a = 1 WHERE b = 2 SET NOCOUNT OFF", ["UPDATE t SET a = 1 WHERE b = 2", "SET NOCOUNT OFF"]),
    ("WITH c AS (SELECT 1 AS x) INSERT INTO t SELECT x FROM c; SELECT 4",
     ["WITH c AS (SELECT 1 AS x) INSERT INTO t SELECT x FROM c", "SELECT 4"]),
    ("IF EXISTS (SELECT 1 FROM t) DELETE FROM t ELSE INSERT INTO t VALUES (1) SELECT 5",
     ["IF EXISTS (SELECT 1 FROM t) DELETE FROM t ELSE INSERT INTO t VALUES (1)", "SELECT 5"]),
    ("BEGIN TRAN UPDATE t SET a = 1 COMMIT", ["BEGIN TRAN", "UPDATE t SET a = 1", "COMMIT"]),
    ("BEGIN TRY SELECT 1 END TRY BEGIN CATCH SELECT 2 END CATCH SELECT 3",
     ["BEGIN TRY SELECT 1 END TRY", "BEGIN CATCH SELECT 2 END CATCH", "SELECT 3"]),
    ("SELECT CASE WHEN a = 1 THEN 'x' ELSE 'y' END FROM t SELECT 2",
     ["SELECT CASE WHEN a = 1 THEN 'x' ELSE 'y' END FROM t", "SELECT 2"]),
    ("MERGE t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET t.a = s.a WHEN NOT MATCHED THEN INSERT (a) VALUES (s.a) "
     "WHEN NOT MATCHED BY SOURCE THEN DELETE;",
     ["MERGE t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET t.a = s.a WHEN NOT MATCHED THEN INSERT (a) VALUES (s.a) "
      "WHEN NOT MATCHED BY SOURCE THEN DELETE"]),
    ("DROP TABLE IF EXISTS #t CREATE TABLE #t (a int) ALTER TABLE #t ALTER COLUMN a bigint ALTER TABLE #t DROP COLUMN a",
     ["DROP TABLE IF EXISTS #t", "CREATE TABLE #t (a int)", "ALTER TABLE #t ALTER COLUMN a bigint", "ALTER TABLE #t DROP COLUMN a"]),
    ("CREATE TABLE c (id int REFERENCES p (id) ON DELETE CASCADE ON UPDATE SET NULL) SELECT 1",
     ["CREATE TABLE c (id int REFERENCES p (id) ON DELETE CASCADE ON UPDATE SET NULL)", "SELECT 1"]),
    ("SELECT a FROM t ORDER BY a OFFSET 10 ROWS FETCH NEXT 5 ROWS ONLY SELECT 9",
     ["SELECT a FROM t ORDER BY a OFFSET 10 ROWS FETCH NEXT 5 ROWS ONLY", "SELECT 9"]),
    ("DECLARE c CURSOR FOR SELECT a FROM t OPEN c FETCH NEXT FROM c INTO @a CLOSE c DEALLOCATE c",
     ["DECLARE c CURSOR FOR SELECT a FROM t", "OPEN c", "FETCH NEXT FROM c INTO @a", "CLOSE c", "DEALLOCATE c"]),
    ("CREATE PROCEDURE p AS SELECT 1 SELECT 2", ["CREATE PROCEDURE p AS SELECT 1 SELECT 2"]),
    ("WHILE @i < 10 BEGIN SET @i = @i + 1 PRINT @i END SELECT 1",
     ["WHILE @i < 10 BEGIN SET @i = @i + 1 PRINT @i END", "SELECT 1"]),
    ("GRANT SELECT, INSERT ON dbo.t TO app SELECT 1", ["GRANT SELECT, INSERT ON dbo.t TO app", "SELECT 1"]),
    ("SELECT 'SELECT' AS [select] FROM [update] -- SELECT\nSELECT 2", ["SELECT 'SELECT' AS [select] FROM [update]", "SELECT 2"]),
])
def test_statements_are_split_without_semicolons(batch, statements):
    assert _texts(batch) == statements


def test_go_lines_split_batches_and_repeat_them():
    batches = split_go("SELECT 1\nGO\n\nSELECT 2\ngo 5\nSELECT 3 -- no GO here\n  GO  -- done\n")

    def first_line(b):  # a batch starts right after its GO, so its text begins with that line's end
        return b.line + b.text[: len(b.text) - len(b.text.lstrip())].count("\n")

    assert [(b.text.strip(), first_line(b), b.repeat) for b in batches] == [
        ("SELECT 1", 1, 1), ("SELECT 2", 4, 5), ("SELECT 3 -- no GO here", 6, 1)]


def test_declared_variables_become_typed_parameters_with_their_values():
    pieces = split_batch("DECLARE @id int = 5, @n nvarchar(10) = N'x'\n"
                         "SELECT * FROM t WHERE id = @id AND n = @n\nSET @id = 6\nSELECT * FROM t WHERE id = @id")
    assert [(p.text, p.line) for p in pieces] == [("SELECT * FROM t WHERE id = @id AND n = @n", 2),
                                                  ("SELECT * FROM t WHERE id = @id", 4)]
    assert pieces[0].parameters == (Parameter("@id", "int"), Parameter("@n", "nvarchar(10)"))
    assert pieces[0].values == (5, "x")
    assert pieces[1].values == (6,)


def test_a_variable_set_by_a_query_keeps_its_type_but_has_no_value():
    pieces = split_batch("DECLARE @max int = (SELECT MAX(id) FROM t)\nSELECT * FROM t WHERE id = @max")
    assert [p.text for p in pieces] == ["DECLARE @max int = (SELECT MAX(id) FROM t)", "SELECT * FROM t WHERE id = @max"]
    assert pieces[1].parameters == (Parameter("@max", "int"),) and pieces[1].values is None


def test_table_variables_stay_statements():
    assert _texts("DECLARE @t TABLE (a int) INSERT INTO @t VALUES (1)") == [
        "DECLARE @t TABLE (a int)", "INSERT INTO @t VALUES (1)"]


def test_a_statement_that_uses_what_its_batch_made_keeps_the_batch_through_its_own_end():
    batch = ("SELECT id INTO #recent FROM t WHERE d > '20130101'\n"
             "DECLARE @t TABLE (a int)\nINSERT INTO @t SELECT id FROM #recent\n"
             "SELECT COUNT(*) FROM #recent\nSELECT a FROM @t\nSELECT name FROM t WHERE id = 4\n"
             "DECLARE @k int\nSELECT @k = MAX(id) FROM t\nSELECT name FROM t WHERE id = @k")
    kept = {p.text: p.batch for p in split_batch(batch)}
    assert kept["SELECT id INTO #recent FROM t WHERE d > '20130101'"] is None  # it makes #recent itself
    assert kept["SELECT COUNT(*) FROM #recent"] == batch[:batch.index("SELECT COUNT(*) FROM #recent") + 28]
    assert kept["SELECT a FROM @t"].endswith("SELECT a FROM @t") and kept["INSERT INTO @t SELECT id FROM #recent"]
    assert kept["SELECT name FROM t WHERE id = 4"] is None
    # A column named with a number sign is no temp table.
    assert [p.batch for p in split_batch("SELECT 1\nSELECT COUNT(*) AS [# answers], COUNT(*) [#q] FROM t")] == [None, None]
    # A variable set by a query is a parameter with no known value, not NULL, and needs no batch.
    last = split_batch(batch)[-1]
    assert (last.parameters, last.values, last.batch) == ((Parameter("@k", "int"),), None, None)
    (q,) = [c for c in _read(batch)[0].queries if c.text == "SELECT COUNT(*) FROM #recent"]
    assert q.batch == kept["SELECT COUNT(*) FROM #recent"]


def test_unterminated_string_cannot_be_split():
    with pytest.raises(SplitError, match="unterminated string"):
        split_batch("SELECT 'abc FROM t")


def test_workload_file_statements_become_classes_and_equal_shapes_merge():
    text = ("SELECT name FROM dbo.users WHERE user_id = 5\n"
            "SELECT name FROM dbo.users WHERE user_id = 6\n"
            "GO\n"
            "INSERT INTO dbo.reviews (user_id, rating) VALUES (5, 4)\n"
            "GO 3\n")
    workload, findings = _read(text)
    assert findings == []
    select, insert = workload.queries
    # Each execution's literal is kept as its value of the class's parameter `@1`; `GO 3` runs its batch thrice.
    assert select.text == "SELECT name FROM dbo.users WHERE user_id = @1"
    assert (select.samples, select.samples_from, select.call) == (((5,), (6,)), 2, None)
    assert insert.text == "INSERT INTO dbo.reviews (user_id, rating) VALUES (@1, @2)"
    assert (insert.samples, insert.samples_from) == (((5, 4),) * 3, 3)
    assert (select.kind, select.source.file, select.source.line, select.origin) == ("select", "workload.sql", 1, "sql_file")
    assert (insert.kind, insert.source.line) == ("insert", 4)
    assert workload.intervals == ()  # a file has no clock
    assert any("2 query class(es)" in n and "5 statement execution(s)" in n and "--qps" in n for n in workload.notes)


def test_directives_give_rates_total_and_per_statement():
    text = ("-- sqlsrv2tidb: window=nightly start=2024-12-02T01:00:00Z end=2024-12-02T02:00:00Z total_qps=300\n"
            "SELECT a FROM dbo.t WHERE id = 1\n"
            "SELECT a FROM dbo.t WHERE id = 2\n"
            "SELECT b FROM dbo.u WHERE id = 3\n"
            "-- sqlsrv2tidb: qps=50000\n"
            "INSERT INTO dbo.keywords (e_type) VALUES (1)\n")
    workload, findings = _read(text)
    assert findings == []
    (window,) = workload.windows
    assert (window.name, window.start, window.end, window.kind) == ("nightly", "2024-12-02T01:00:00Z",
                                                                   "2024-12-02T02:00:00Z", "user")
    rates = class_rates(workload, window)
    by_kind = {q.text.split()[1]: rates[q.id] for q in workload.queries}
    # total_qps is shared by count among the statements without their own qps: 2 of 3 and 1 of 3.
    assert by_kind == {"a": pytest.approx(200), "b": pytest.approx(100), "INTO": pytest.approx(50000)}
    assert sum(executions_in(workload, window).values()) == pytest.approx(3600 * 50300)


def test_bad_directives_are_findings_naming_the_line():
    workload, findings = _read("SELECT 1\n-- sqlsrv2tidb: qps=fast colour=blue\n-- sqlsrv2tidb: start=yesterday\n")
    assert [(f.rule, f.line) for f in findings] == [("IN46", 2), ("IN46", 2), ("IN46", 3)]
    assert "qps='fast' is not a positive number" in findings[0].message
    assert workload.intervals == ()


def test_a_broken_batch_is_kept_whole_and_the_others_are_read():
    workload, findings = _read("SELECT a FROM t\nGO\nSELECT 'abc\nFROM t WHERE\nGO\nSELECT b FROM u\n")
    (finding,) = findings
    assert (finding.rule, finding.line) == ("IN44", 3)
    assert [q.text for q in workload.queries] == ["SELECT a FROM t", "SELECT 'abc\nFROM t WHERE", "SELECT b FROM u"]
    assert [q.source.line for q in workload.queries] == [1, 3, 6]


def test_many_repeated_statements_cost_one_split_and_one_fingerprint(monkeypatch):
    from sqlsrv2tidb.capture import executions

    calls = []
    real = executions.fingerprint
    monkeypatch.setattr(executions, "fingerprint", lambda sql: calls.append(sql) or real(sql))
    text = "\n".join(f"SELECT name FROM dbo.users WHERE user_id = {i}" for i in range(2000))
    workload, _ = _read(text)
    assert len(workload.queries) == 1 and len(calls) == 1
