"""The comparison over ties, without servers: a tie group a limit cuts, judged against the whole group read from
SQL Server's answer without the limit (only as far as needed), numbers swapped among tied rows, and text that
differs only by trailing spaces (PAD SPACE)."""

from __future__ import annotations

import pytest

from sqlsrv2tidb.compare import answers, tie_groups
from sqlsrv2tidb.compare.answers import compare_multiset, compare_ordered
from sqlsrv2tidb.compare.classes import Compared, ValueSet
from sqlsrv2tidb.compare.document import document, findings
from sqlsrv2tidb.compare.runner import ClassResult
from sqlsrv2tidb.compare.tie_groups import WholeUnread
from sqlsrv2tidb.compare.ties import Cut, Numbered
from sqlsrv2tidb.compare.values import ResultColumn, RowShape
from sqlsrv2tidb.model.translation import TranslatedQuery

INT, TEXT, CI_TEXT, BLOB = (ResultColumn("i", 3), ResultColumn("v", 253, None, "utf8mb4_bin"),
                            ResultColumn("c", 253, None, "utf8mb4_general_ci"), ResultColumn("b", 252, None, None, True))
TOP, OFFSET = Cut("TOP", False, True, "SELECT ..."), Cut("OFFSET ... FETCH", True, True, "SELECT ...")
SCORES = [(1, 100), (5, 90), (6, 80), (8, 80), (2, 80), (4, 80), (7, 80), (3, 70)]
"""(id, points) in SQL Server's order without the limit: five rows tie at 80."""


class Whole:
    """SQL Server's answer without the limit, counting the rows the comparison reads of it."""

    def __init__(self, rows: list[tuple]) -> None:
        self.rows, self.read, self.opened = rows, 0, 0

    def __call__(self):
        self.opened += 1

        def batches():
            for row in self.rows:
                self.read += 1
                yield [row]
        return batches()


def _ordered(left, right, cut=TOP, whole=None, columns=(INT, INT), positions=(1,), numbered=()):
    return compare_ordered([left], [right], RowShape(list(columns), None, numbered), list(positions), cut, whole)


def test_a_cut_tie_group_with_other_tied_rows_is_the_same_up_to_ties():
    whole = Whole(SCORES)
    result = _ordered([(1, 100), (5, 90), (6, 80)], [(1, 100), (5, 90), (2, 80)], whole=whole)
    assert result.equal and result.undetermined is None, result
    assert result.ties == ["row 3 ties on the ORDER BY key with rows TOP leaves out: SQL Server and the target kept "
                           "different ones of the tied rows"]
    assert whole.read == 5  # up to (2, 80), the last row in question: no further


def test_equal_answers_never_read_the_whole_group():
    whole = Whole(SCORES)
    result = _ordered([(1, 100), (5, 90), (6, 80)], [(1, 100), (5, 90), (6, 80)], whole=whole)
    assert result.equal and not result.ties and whole.opened == 0


def test_a_target_row_outside_the_tie_differs_and_the_read_stops_past_the_group():
    whole = Whole(SCORES + [(9, 60)] * 1000)
    result = _ordered([(1, 100), (5, 90), (6, 80), (8, 80)], [(1, 100), (5, 90), (2, 80), (9, 80)], whole=whole)
    assert not result.equal and result.differing_rows == 1, result
    assert [p.to_json() for p in result.first] == [{"position": 2, "sql_server": [6, 80], "target": [9, 80]}]
    assert "not among SQL Server's rows of that tie" in result.notes[0]
    assert whole.read == 8  # the first row past the tie group ends the read


def test_a_difference_before_the_cut_group_differs_without_reading_the_whole_group():
    whole = Whole(SCORES)
    result = _ordered([(1, 100), (5, 90), (6, 80)], [(1, 100), (5, 91), (2, 80)], whole=whole)
    assert not result.equal and result.first[0].position == 1 and whole.opened == 0


def test_counts_in_the_cut_group_are_fixed():
    result = _ordered([(1, 100), (6, 80), (8, 80)], [(1, 100), (6, 80), (5, 90)], whole=Whole(SCORES))
    assert not result.equal


def test_rows_that_changed_between_the_reads_leave_the_answer_undetermined():
    moved = _ordered([(1, 100), (5, 90), (6, 80)], [(1, 100), (5, 90), (2, 80)], whole=Whole([(1, 100), (9, 95)] + SCORES[1:]))
    assert moved.undetermined and "changed between the reads" in moved.undetermined
    gone = _ordered([(1, 100), (5, 90), (6, 80)], [(1, 100), (5, 90), (2, 80)], whole=Whole([r for r in SCORES if r[0] != 6]))
    assert gone.undetermined and "its own rows of the tie group" in gone.undetermined


def test_sql_server_failing_on_the_query_without_the_limit_leaves_the_answer_undetermined():
    def failing():
        raise WholeUnread("no answer within 30 s (the statement timeout)")
    result = _ordered([(1, 100), (5, 90), (6, 80)], [(1, 100), (5, 90), (2, 80)], whole=failing)
    assert result.undetermined == ("the tie group TOP cuts differs, and SQL Server failed on the query without it: "
                                   "no answer within 30 s (the statement timeout)")


def test_reading_the_whole_group_stops_at_its_limit(monkeypatch):
    monkeypatch.setattr(tie_groups, "WHOLE_ROWS", 4)
    everything = [(i, 0) for i in range(100)]
    result = _ordered([(0, 0), (1, 0)], [(0, 0), (98, 0)], whole=Whole(everything), positions=())
    assert result.undetermined == "the tie group TOP cuts was not found in the first 4 rows of the query without the limit"


def test_a_cut_group_too_large_to_look_up_is_undetermined(monkeypatch):
    monkeypatch.setattr(answers, "GROUP_ROWS", 2)
    result = _ordered([(1, 100), (6, 80), (8, 80), (2, 80)], [(1, 100), (6, 80), (8, 80), (4, 80)], whole=Whole(SCORES))
    assert result.undetermined and "more than 2 rows" in result.undetermined


def test_without_an_order_every_row_ties():
    """TOP without ORDER BY: one group, the whole answer; the target's rows must be rows of the query."""
    whole = Whole(SCORES)
    kept = _ordered([(1, 100), (5, 90)], [(7, 80), (3, 70)], whole=whole, positions=())
    assert kept.equal and whole.read == 8
    assert kept.ties == ["rows 1-2: TOP keeps any of the query's rows, ordered by nothing the answer holds: SQL Server "
                         "and the target kept different ones"]
    other = _ordered([(1, 100), (5, 90)], [(7, 80), (3, 71)], whole=Whole(SCORES), positions=())
    assert not other.equal and other.first[0].target == (3, 71)


def test_an_offset_cuts_the_first_group_too():
    whole = Whole(SCORES)
    # OFFSET 3 ROWS FETCH NEXT 4 ROWS ONLY: rows 4-7 of SQL Server's order; the first group is the tail of the tie.
    result = _ordered([(2, 80), (4, 80), (7, 80), (3, 70)], [(6, 80), (8, 80), (2, 80), (3, 70)], cut=OFFSET, whole=whole)
    assert result.equal and result.ties and "OFFSET ... FETCH" in result.ties[0]
    fixed = _ordered([(2, 80), (3, 70), (9, 60)], [(6, 80), (3, 70), (9, 61)], cut=OFFSET, whole=Whole(SCORES))
    assert not fixed.equal and fixed.first[0].position == 2  # a middle row is fixed


NUMBERED = (Numbered(0, (2,), "ROW_NUMBER"),)
PLACES = [(1, 1, 100), (2, 5, 90), (3, 6, 80), (4, 8, 80), (5, 2, 80), (6, 3, 70)]
"""ROW_NUMBER() OVER (ORDER BY points DESC) AS place, id, points."""


@pytest.mark.parametrize("compare", ["ordered", "multiset"])
def test_numbers_swapped_among_tied_rows_are_the_same_up_to_ties(compare):
    swapped = [(1, 1, 100), (2, 5, 90), (3, 2, 80), (4, 6, 80), (5, 8, 80), (6, 3, 70)]
    shape = RowShape([INT, INT, INT], None, NUMBERED)
    result = compare_ordered([PLACES], [swapped], shape, [2]) if compare == "ordered" else \
        compare_multiset([PLACES], [swapped], shape)
    assert result.equal and result.ties == ["ROW_NUMBER() numbered rows tied on the window's keys in another order on "
                                            "each server"]
    same = compare_multiset([PLACES], [list(reversed(PLACES))], shape)
    assert same.equal and not same.ties


def test_numbers_of_an_answer_ordered_by_other_columns_are_compared_over_the_whole_answer():
    """ROW_NUMBER() OVER (ORDER BY points DESC) AS place, id, points, city ... ORDER BY city: rows tied on points
    sit in different groups of the answer's order, and may swap numbers all the same."""
    shape = RowShape([INT, INT, INT, TEXT], None, NUMBERED)
    left = [(3, 6, 80, "Lyon"), (1, 1, 100, "Nice"), (4, 8, 80, "Nice"), (2, 5, 90, "Paris")]
    right = [(4, 6, 80, "Lyon"), (1, 1, 100, "Nice"), (3, 8, 80, "Nice"), (2, 5, 90, "Paris")]
    swapped = compare_ordered([left], [right], shape, [3])
    assert swapped.equal and swapped.ties, swapped
    wrong = [(4, 6, 80, "Lyon"), (1, 1, 100, "Nice"), (2, 8, 80, "Nice"), (3, 5, 90, "Paris")]  # 2 is not an 80's place
    found = compare_ordered([left], [wrong], shape, [3])
    assert not found.equal and {p.target for p in found.first} >= {(2, 8, 80, "Nice")}, found


def test_a_number_moved_out_of_its_tie_differs():
    shape = RowShape([INT, INT, INT], None, NUMBERED)
    moved = [(1, 1, 100), (3, 5, 90), (2, 6, 80), (4, 8, 80), (5, 2, 80), (6, 3, 70)]  # 90 and 80 do not tie
    result = compare_multiset([PLACES], [moved], shape)
    assert not result.equal and result.differing_rows == 2, result
    assert sorted(p.target for p in result.first) == [(2, 6, 80), (3, 5, 90)]


def test_text_compares_without_trailing_spaces_and_binary_with_every_byte():
    shape = RowShape([TEXT, CI_TEXT, BLOB], "SQL_Latin1_General_CP1_CI_AS")
    assert compare_multiset([[("ab  ", "Cd ", b"x")]], [[("ab", "cD", b"x")]], shape).equal
    assert not compare_multiset([[("ab\t", "cd", b"x")]], [[("ab", "cd", b"x")]], shape).equal  # only spaces pad
    assert not compare_multiset([[("ab", "cd", b"x ")]], [[("ab", "cd", b"x")]], shape).equal
    assert not compare_multiset([[(" ab", "cd", b"x")]], [[("ab", "cd", b"x")]], shape).equal
    assert shape.key_of(("ab  ", "Cd ", b"x "), [0, 1, 2]) == ("ab", "cd", b"x ")


def test_tie_groups_are_delimited_as_sql_server_ties_text():
    shape = RowShape([INT, TEXT], None)
    left = [(1, "a"), (2, "b  "), (3, "b")]
    right = [(1, "a"), (3, "b "), (2, "b")]
    assert compare_ordered([left], [right], shape, [1]).equal  # 'b  ', 'b ' and 'b' are one key


def _result(verdict: str) -> ClassResult:
    tq = TranslatedQuery("q0123456789ab", "f", "SELECT 1", "SELECT 1", "translated", kind="select")
    return ClassResult(Compared(tq, "SELECT 1", (), "SELECT 1", (ValueSet((), ()),), "no parameters"), verdict, "why")


def test_same_up_to_ties_is_counted_and_raises_no_finding():
    results = [_result("same up to ties"), _result("same"), _result("same up to ties")]
    assert findings(results) == []
    doc = document(source="s", target="t", server="tidb", settings={}, results=results, left=[], found=[], seconds=1.0)
    assert doc["summary"]["same_up_to_ties"] == 2 and doc["summary"]["same"] == 1
