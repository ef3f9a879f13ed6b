"""The comparison itself, without servers: rows normalized under the target's result types, ordered answers
by tie groups, multisets by digest buckets (a large answer read again only for its differing buckets), and
the findings a verdict raises, and the waits for a server that went away."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest

from sqlsrv2tidb.compare import answers
from sqlsrv2tidb.compare.answers import compare_multiset, compare_ordered
from sqlsrv2tidb.compare.batches import temporary_tables, unsafe_setup
from sqlsrv2tidb.compare.classes import Compared, Left, ValueSet, choose, read_verdict, with_batch
from sqlsrv2tidb.compare.document import document, findings
from sqlsrv2tidb.compare.reopen import Reconnect, SideDown, reopen
from sqlsrv2tidb.compare.runner import ClassResult
from sqlsrv2tidb.compare.sides import declared_batch
from sqlsrv2tidb.compare.values import ResultColumn, RowShape
from sqlsrv2tidb.errors import ConnectionFailed, UsageError
from sqlsrv2tidb.model import Capture, Database, Parameter, QueryClass, Workload
from sqlsrv2tidb.model.translation import TranslatedQuery, Translation
from sqlsrv2tidb.options import Options

INT, DEC2, DT3, CHAR, VARCHAR, DOUBLE = (ResultColumn("i", 3), ResultColumn("d", 246, 2), ResultColumn("t", 12, 3),
                                          ResultColumn("c", 254, None, "utf8mb4_general_ci"),
                                          ResultColumn("v", 253, None, "utf8mb4_bin"), ResultColumn("f", 5, 31))


def _batches(rows, size=2):
    return [rows[i:i + size] for i in range(0, len(rows), size)]


def test_values_are_compared_as_the_target_column_holds_them():
    shape = RowShape([INT, DEC2, DT3, CHAR, VARCHAR, DOUBLE], "SQL_Latin1_General_CP1_CI_AS")
    sql_server = (True, Decimal("2.5"), datetime.datetime(2024, 1, 1, 10, 0, 0, 123400), "ab   ", "x", 0.1 + 0.2)
    target = (1, Decimal("2.50"), datetime.datetime(2024, 1, 1, 10, 0, 0, 123000), "AB", "x", 0.3)
    assert shape.digest(shape.normalize(sql_server)) == shape.digest(shape.normalize(target))
    assert shape.digest(shape.normalize((1, 2, None, "a", "X", 0.3))) != shape.digest(shape.normalize((1, 2, None, "a", "x", 0.3)))
    # A fraction where the target's column is an integer is not rounded away: it matches nothing.
    assert shape.normalize((Decimal("3.5"), 0, None, "", "", 0))[0] != 3


def test_case_folds_only_where_both_sides_ignore_case():
    assert RowShape([CHAR], "SQL_Latin1_General_CP1_CI_AS").folds == (True,)
    assert RowShape([CHAR], "Latin1_General_BIN2").folds == (False,)
    assert RowShape([CHAR], None).folds == (True,)  # SQL Server's install default is case-insensitive
    assert RowShape([VARCHAR], "SQL_Latin1_General_CP1_CI_AS").folds == (False,)


def test_rows_tied_on_the_order_key_compare_as_a_multiset():
    shape = RowShape([INT, INT], None)
    left = [(1, 10), (2, 20), (2, 21), (3, 30)]
    same = compare_ordered(_batches(left), _batches([(1, 10), (2, 21), (2, 20), (3, 30)]), shape, [0])
    assert same.equal and same.sql_server_rows == same.target_rows == 4
    moved = compare_ordered(_batches(left), _batches([(1, 10), (3, 30), (2, 20), (2, 21)]), shape, [0])
    assert not moved.equal and moved.first[0].position == 1
    changed = compare_ordered(_batches(left), _batches([(1, 10), (2, 20), (2, 22), (3, 30)]), shape, [0])
    assert not changed.equal and changed.differing_rows == 1
    assert changed.first[0].to_json() == {"position": 1, "sql_server": [2, 21], "target": [2, 22]}


def test_a_multiset_ignores_order_and_counts_repeats():
    shape = RowShape([INT], None)
    assert compare_multiset(_batches([(1,), (2,), (2,)]), _batches([(2,), (1,), (2,)]), shape).equal
    found = compare_multiset(_batches([(1,), (2,), (2,)]), _batches([(2,), (1,), (1,)]), shape)
    assert not found.equal and [(p.sql_server, p.target) for p in found.first] == [((2,), (1,))]


def test_a_large_multiset_is_read_again_only_for_its_differing_buckets(monkeypatch):
    monkeypatch.setattr(answers, "KEEP_ROWS", 100)
    shape = RowShape([INT, INT], None)
    left = [(i, i % 7) for i in range(5000)]
    right = [*left[:4000], (4000, 99), *left[4001:]]
    reads = []

    def again():
        reads.append(1)
        return _batches(left, 500), _batches(right, 500)

    found = compare_multiset(_batches(left, 500), _batches(right, 500), shape, again)
    assert reads == [1] and found.method == "multiset by buckets" and found.sql_server_rows == found.target_rows == 5000
    assert [(p.sql_server, p.target) for p in found.first] == [((4000, 3), (4000, 99))]
    assert compare_multiset(_batches(left, 500), _batches(list(reversed(left)), 500), shape, again).equal
    assert reads == [1]  # equal buckets need no second read


def test_a_class_declares_its_parameters_for_sql_server():
    batch = declared_batch("SELECT * FROM t WHERE a = @1 AND b = @name",
                           (Parameter("@1", "int"), Parameter("@name", "nvarchar(20)")))
    assert batch == "SET NOCOUNT ON; DECLARE @1 int = ?, @name nvarchar(20) = ?;\nSELECT * FROM t WHERE a = @1 AND b = @name"


def test_only_reads_are_compared():
    read = QueryClass("q1", "f", "SELECT 1", kind="select")
    write = QueryClass("q2", "f", "DELETE FROM t", kind="delete")
    assert read_verdict(TranslatedQuery("q1", "f", "SELECT 1", "SELECT 1", "translated", kind="select"), read) is None
    assert "changes data" in read_verdict(TranslatedQuery("q2", "f", "DELETE FROM t", "DELETE FROM t", "translated",
                                                          kind="delete"), write)



@pytest.mark.parametrize(("text", "batch", "reason"), [
    ("SELECT id FROM #recent", None, "reads #recent created in its batch: the capture holds no statement of its batch before it"),
    ("SELECT id FROM t WHERE a = @a", None, "needs @a declared in its batch: the capture holds no statement of its batch before it"),
    ("SELECT id FROM #recent", "UPDATE dbo.t SET a = 1\nSELECT id INTO #recent FROM t\nSELECT id FROM #recent",
     "its batch runs UPDATE before it (UPDATE dbo.t SET a = 1), which compare never runs"),
    ("SELECT id FROM #recent", "EXEC dbo.p\nSELECT id FROM #recent", "its batch runs EXEC before it (EXEC dbo.p)"),
    ("SELECT id FROM #recent", "SELECT 1\nSELECT id FROM #recent", "reads #recent created in its batch, and its batch does "
                                                                    "not make it before it"),
    ("SELECT id INTO #recent FROM t", None, "it returns no rows: it only sets variables or makes temp tables"),
])
def test_a_class_that_leans_on_its_batch_is_left_out_saying_what_it_needs(text, batch, reason):
    source = QueryClass("q1", "f", text, kind="select", batch=batch)
    tq = TranslatedQuery("q1", "f", text, "SELECT 1;\nSELECT 2" if "INTO" in text else "SELECT 1", "translated",
                         kind="select")
    found = with_batch(tq, source, Database(), Options())
    assert isinstance(found, Left) and found.reason.startswith(reason), found


def test_a_batch_whose_translation_would_write_a_real_table_is_not_run():
    assert unsafe_setup(["SET @d = NULL", "CREATE TEMPORARY TABLE tmp_x (id INT)", "INSERT INTO tmp_x SELECT 1"]) is None
    assert unsafe_setup(["INSERT INTO orders SELECT 1"]).startswith("its batch's translation runs INSERT INTO orders")
    assert unsafe_setup(["CREATE TABLE tmp_x (id INT)"]) is not None
    assert temporary_tables(["DROP TEMPORARY TABLE IF EXISTS var_t", "CREATE TEMPORARY TABLE var_t (a INT)",
                             "CREATE TEMPORARY TABLE tmp_x (b INT)"]) == ("var_t", "tmp_x")


def _result(verdict: str, side: str | None = None) -> ClassResult:
    tq = TranslatedQuery("q0123456789ab", "f", "SELECT 1", "SELECT 1", "translated", kind="select")
    return ClassResult(Compared(tq, "SELECT 1", (), "SELECT 1", (ValueSet((), ()),), "no parameters"), verdict,
                       "why", side)


def test_a_differing_class_is_a_high_finding_on_its_query():
    [found] = findings([_result("differs"), _result("same"), _result("not comparable")])
    assert (found.rule, found.severity.value, found.object) == ("RP09", "high", "query q0123456789ab")


def test_a_target_error_is_a_medium_finding():
    found = findings([_result("error", "target"), _result("error", "sql_server"), _result("error", "both")])
    assert [(f.rule, f.severity.value) for f in found] == [("RP10", "medium"), ("RP10", "medium")]
    doc = document(source="s", target="t", server="tidb", settings={}, results=[_result("error", "target")], left=[],
                   found=found, seconds=1.0)
    assert doc["format"] == "sqlsrv2tidb.compare/1" and doc["summary"]["error"] == 1
    assert doc["queries"][0]["side"] == "target"


def test_an_unreachable_target_is_no_finding():
    down = _result("error", "target")
    down.unreachable = True
    assert findings([down]) == []
    assert document(source="s", target="t", server="tidb", settings={}, results=[down], left=[], found=[],
                    seconds=1.0)["queries"][0]["unreachable"] is True


def test_the_waits_for_a_lost_server_double_up_to_the_longest_and_stop_at_the_bound():
    assert list(Reconnect().waits()) == [1, 2, 4, 8, 15, 15, 15, 15, 15, 15, 15]
    assert sum(Reconnect().waits()) == 120
    assert list(Reconnect(within=5).waits()) == [1, 2, 2]
    assert list(Reconnect(within=0).waits()) == []


def test_reopening_tries_at_once_then_after_each_wait_with_one_line_each_and_gives_up_at_the_bound():
    tried, slept, notes = [], [], []

    def comes_back() -> None:
        tried.append(1)
        if len(tried) < 3:
            raise ConnectionFailed("the database system is starting up")

    done = reopen(comes_back, side="sql_server", what="SQL Server at h", why="lost", policy=Reconnect(),
                  note=notes.append, sleep=slept.append)
    assert (done.attempts, done.waited, slept) == (3, 3.0, [1, 2])
    assert notes[1] == ("SQL Server at h: attempt 2 to reconnect failed (the database system is starting up); "
                        "waiting 2 s (3 of 120 s)")

    def never() -> None:
        raise ConnectionFailed("the database system is in recovery mode")

    slept.clear()
    with pytest.raises(SideDown) as down:
        reopen(never, side="target", what="the target", why="lost", policy=Reconnect(within=3), note=notes.append,
               sleep=slept.append)
    assert slept == [1, 2] and down.value.attempts == 3
    assert str(down.value) == ("the target was unreachable: 3 attempt(s) over 3 s failed, the last with: the database "
                               "system is in recovery mode")


def test_a_query_id_the_capture_lacks_is_one_line_naming_it():
    read = QueryClass("q1", "f", "SELECT 1", kind="select")
    capture = Capture(workload=Workload(queries=(read,)))
    translation = Translation((TranslatedQuery("q1", "f", "SELECT 1", "SELECT 1", "translated", kind="select"),))
    assert [c.query.id for c in choose(capture, translation, ["Q1"])[0]] == ["q1"]
    with pytest.raises(UsageError, match="--query qmissing: the capture has no query class of that id"):
        choose(capture, translation, ["qmissing"])


def test_doubles_on_a_rounding_boundary_agree_when_looked_at_with_fewer_digits():
    # An average two engines computed in another order, a unit apart in the last binary place, on either side
    # of the 12th digit's boundary (the Stack Exchange rows gave 0.3106133312235 on TiDB, 0.31061333122350004 on
    # the endpoint): unequal at 12 digits, equal at COARSE_FLOAT_DIGITS, and a real difference stays one.
    from sqlsrv2tidb.compare.values import COARSE_FLOAT_DIGITS

    fine, coarse = RowShape([INT, DOUBLE], None), RowShape([INT, DOUBLE], None, float_digits=COARSE_FLOAT_DIGITS)
    left, right = [(1, 0.31061333122350004)], [(1, 0.3106133312235)]
    assert not compare_multiset([left], [right], fine).equal
    assert compare_multiset([left], [right], coarse).equal
    assert coarse.has_doubles and not RowShape([INT, DEC2], None).has_doubles
    assert not compare_multiset([left], [[(1, 0.3106134)]], coarse).equal
