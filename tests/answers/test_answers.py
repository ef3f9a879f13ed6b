"""Answers proven on data: every query of the corpora compared on the SQL Server endpoint and on TiDB,
MariaDB and MySQL (its own DDL and translation, as `data copy` and `compare` write them for it) over the same rows (answers_run.py says how each verdict is classed), tallied in
benchmarks/translate/ANSWERS.md.

Each corpus and target fails on a difference that neither the translation nor a documented departure of
the endpoint explains, and on an error of the target's alone that is neither a timeout nor a feature
MariaDB lacks (a translation defect). The Stack Exchange queries must leave at most 10% of the compared
classes not comparable. The record is rewritten with `UPDATE_ANSWERS=1` once every corpus ran.

These tests load and copy a few databases and compare about a thousand classes per target: they are
marked `answers` and run as their own step of `.ci/run` (`scripts/test -m answers`), not in every run.
"""

from __future__ import annotations

import os

import pytest
from answers_run import RECORD, Query, _reason_class, render, run, tally

from sqlsrv2tidb import api

pytestmark = pytest.mark.answers

CORPORA = ("golden", "northwind", "adventureworks", "wideworldimporters", "sede")
RESULTS: dict[tuple[str, str], object] = {}
SEEDS = "Stack Exchange at scale 1, seed 1; WideWorldImporters and AdventureWorks from their loaders' seeds"


def _golden(mssql, tmp_path_factory):
    from data_helpers import captured
    from meaning import create_on_tds, skipped
    from translate_golden import read_cases

    database = create_on_tds(mssql, "answers_golden")
    source = captured(mssql, database, tmp_path_factory.mktemp("golden") / "capture")
    queries = [Query(f"golden {c.id}", c.source) for c in read_cases() if skipped(c) is None]
    return source, queries, None


def _pinned(queries: list[Query]) -> dict[str, str]:
    """The golden classes whose answers the meaning test pins (Babelfish's own answer, a flagged review, char
    padding), by class id, with the pin's reason."""
    from test_compare_golden import KNOWN
    from test_meaning import PINS

    from sqlsrv2tidb.tsql.fingerprint import fingerprint, query_id

    found = {}
    for q in queries:
        case = q.label.split()[-1]
        why = PINS.get(case, (None, KNOWN.get(case)))[1]
        if why:
            found[query_id(fingerprint(q.sql))] = f"golden pair {case} is pinned: {why}"
    return found


def _modules(source, modules_from=None):
    from module_queries import module_queries

    database = api.read([modules_from or source.capture]).database
    queries = [Query(f"{q.module} #{q.position}", q.sql, q.parameters) for q in module_queries(database).queries]
    return source, queries, database


def _corpus(name: str, request, tmp_path_factory):
    from paths import CORPUS_SCHEMAS

    if name == "golden":
        return _golden(request.getfixturevalue("mssql"), tmp_path_factory)
    if name == "northwind":
        return _modules(request.getfixturevalue("compare_northwind"))
    if name == "adventureworks":
        return _modules(request.getfixturevalue("compare_adventureworks"), CORPUS_SCHEMAS["adventureworks-oltp"])
    if name == "wideworldimporters":
        return _modules(request.getfixturevalue("compare_wwi"), CORPUS_SCHEMAS["wwi-oltp-ssdt"])
    from translate_sede import sede_queries

    queries = [Query(f"sede {q.id}", q.sql, q.parameters) for q in sede_queries()]
    return request.getfixturevalue("compare_sede"), queries, None


@pytest.mark.parametrize("corpus", CORPORA)
def test_every_answer_is_the_same_or_explained(corpus, target, request, tmp_path, tmp_path_factory):
    from departures import departing_views

    source, queries, modules = _corpus(corpus, request, tmp_path_factory)
    database = target.create_database(f"answers_{corpus}"[:40])
    doc = run(source, queries, target, database, tmp_path)
    result = tally(corpus, target.kind, doc, departing_views(modules) if modules is not None else set(),
                   _pinned(queries) if corpus == "golden" else None, modules)
    RESULTS[(corpus, target.kind)] = result
    print(f"\n{corpus} on {target.kind}: {doc['summary']}")
    assert result.compared > 0 and result.same > 0, doc["summary"]
    assert not result.unexplained, "differences nothing explains:\n" + "\n".join(result.unexplained)
    assert not result.defects, "target errors of the translation's own:\n" + "\n".join(result.defects)
    writes = result.writes
    print(f"  writes: {writes.compared} compared, {writes.same} same, {writes.explained} explained, "
          f"{len(writes.unexplained)} unexplained, {dict(writes.errors)} errors, {sum(writes.left_out.values())} left out")
    assert not writes.unexplained, "write differences nothing explains:\n" + "\n".join(writes.unexplained)
    assert not writes.defects, "write errors of the translation's own:\n" + "\n".join(writes.defects)
    if corpus == "sede":
        not_comparable = sum(result.not_comparable.values())
        assert not_comparable <= 0.10 * result.compared, (not_comparable, result.compared, result.not_comparable)


def test_the_answers_table_is_recorded():
    """The table of every corpus and target (after them in this module): written with UPDATE_ANSWERS=1; else
    each corpus's compared, unexplained, not-comparable and left-out counts must be the recorded ones."""
    expected = {(c, k) for c in CORPORA for k in ("mariadb", "tidb", "mysql")}
    if set(RESULTS) != expected:
        pytest.skip(f"the table needs every corpus on every target; this run has {len(RESULTS)} of {len(expected)}")
    tallies = [RESULTS[key] for key in sorted(expected, key=lambda k: (CORPORA.index(k[0]), k[1]))]
    text = render(tallies, SEEDS)
    if os.environ.get("UPDATE_ANSWERS") == "1" or not RECORD.exists():
        RECORD.write_text(text, encoding="utf-8")
    # A class that runs near its statement timeout may time out on one side in one run and not in the next, which
    # moves it between same, differs and errors; what each corpus compares, leaves out and cannot compare, and
    # that nothing is unexplained, does not depend on the machine's load.
    now, then = _summary_rows(text), _summary_rows(RECORD.read_text(encoding="utf-8"))
    assert now == then, ("the answers changed: review benchmarks/translate/ANSWERS.md and run with UPDATE_ANSWERS=1\n"
                         + "\n".join(f"{key}: {now.get(key)} (recorded {then.get(key)})" for key in sorted(set(now) | set(then))
                                      if now.get(key) != then.get(key)))


STEADY = {"compared": 2, "differs, unexplained": 7, "not comparable": 11, "left out": 12}
"""The summary table's columns (by position) that a run's load cannot move."""


def _summary_rows(text: str) -> dict[tuple[str, str], dict[str, str]]:
    """Each (corpus, target) row of ANSWERS.md's first table: its steady columns."""
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 13 and cells[2].isdigit():
            rows[(cells[0], cells[1])] = {name: cells[i] for name, i in STEADY.items()}
    return rows


def test_reasons_are_counted_together():
    """A reason's particulars (variables, names, numbers) do not split its count."""
    assert _reason_class("needs @UserId declared in its batch") == _reason_class("needs @Year declared in its batch")
    assert _reason_class("reads 'Posts' at row 12: the rest") == _reason_class("reads 'Users' at row 3")
    assert _reason_class("TOP without ORDER BY returns any rows; the answers happened to be the same") == \
        "TOP without ORDER BY returns any rows"
