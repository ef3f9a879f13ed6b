"""The corpus procedures (Northwind, AdventureWorks, WideWorldImporters) on TiDB through the procedure runner, and
the reading ones compared with EXEC on the SQL Server endpoint: the tally is benchmarks/procedures/RESULTS.md
(`corpus_procedures`; rewrite it with UPDATE_PROCEDURES=1 after reviewing a change).

No procedure the runner runs may fail on TiDB because of its translation, and every reading one that the endpoint
holds must give the same answers as its EXEC there, or be not comparable with a reason.
"""

from __future__ import annotations

import os
import re

import pytest
from corpus_procedures import COMMAND, FIXTURES, RECORD, CorpusRun, render, run_corpus

pytestmark = [pytest.mark.slow, pytest.mark.answers, pytest.mark.timeout(3600)]
"""A corpus-wide run over the generated WideWorldImporters rows: a step of its own with the answers run."""

_RUNS: dict[str, CorpusRun] = {}
_ENDPOINT_GRAMMAR = re.compile(r'syntax error at or near "(N|[-+*/]=)"|schema "\w+" does not exist')
"""What the endpoint cannot read that SQL Server runs (docs/babelfish.md): `ROOT(N'name')` in FOR JSON, `x += y`, and a
hierarchyid method on a column (`[EMP_cte].[OrganizationNode].GetAncestor(1)`), read as a function of a schema."""


def _run(corpus: str, request, tidb, tmp_path_factory) -> CorpusRun:
    if corpus not in _RUNS:
        source = request.getfixturevalue(FIXTURES[corpus])
        database = tidb.create_database(f"t_procedures_{corpus}")
        _RUNS[corpus] = run_corpus(corpus, source, tidb, database, tmp_path_factory.mktemp(f"procedures-{corpus}"))
    return _RUNS[corpus]


@pytest.mark.parametrize("corpus", list(FIXTURES))
def test_every_procedure_the_runner_runs_runs_on_tidb(corpus, request, tidb, tmp_path_factory):
    run = _run(corpus, request, tidb, tmp_path_factory)
    for o in run.outcomes:
        print(corpus, o.name, "runs" if o.runs else "stopped", o.ran, o.target_error[:160], o.verdict, o.reason[:200],
              "" if o.created else f"NOT CREATED: {o.refused[:200]}", o.sql_server)
    assert run.count(lambda o: o.runs) > 0
    # A call TiDB refuses must be one the endpoint refuses too (the values meet a foreign key, the fixture lacks a
    # column), or one the endpoint does not hold to judge by.
    # An administration procedure (docs/procedures.md) may send what TiDB has no statement for (a DROP PROCEDURE in its
    # dynamic SQL): it is classed apart, with what TiDB does instead, and not held to the application's bar.
    failed = [(o.name, o.target_error) for o in run.outcomes if not o.administration
              and ((o.ran in ("target error", "lost") and o.created) or o.ran == "runner error")]
    assert not failed, failed
    assert all(o.ran for o in run.outcomes if o.runs)


@pytest.mark.parametrize("corpus", list(FIXTURES))
def test_reading_procedures_answer_as_exec_on_sql_server(corpus, request, tidb, tmp_path_factory):
    run = _run(corpus, request, tidb, tmp_path_factory)
    reading = [o for o in run.outcomes if o.runs and o.reads_only]
    assert reading
    for o in reading:
        endpoint_fails = o.verdict == "error" and o.reason.startswith("SQL Server failed") and (
            o.ran != "ok" or _ENDPOINT_GRAMMAR.search(o.reason) is not None)
        explained = o.verdict == "differs" and o.explained
        assert o.verdict in ("same", "same up to ties", "not comparable") or not o.created or endpoint_fails \
            or explained, (o.name, o.verdict, o.reason)
        if o.verdict == "not comparable":
            assert o.reason, o.name


@pytest.mark.parametrize("corpus", list(FIXTURES))
def test_writing_procedures_are_compared_by_their_effect(corpus, request, tidb, tmp_path_factory):
    """Every writing procedure that runs gets a verdict from `compare --allow-writes`; one that differs names its
    cause (a note of its translation, a rule of the schema, a view the endpoint answers otherwise), unless the endpoint
    could not run or hold it."""
    run = _run(corpus, request, tidb, tmp_path_factory)
    writing = [o for o in run.outcomes if o.runs and not o.reads_only and not o.administration]
    for o in writing:
        assert o.verdict, (o.name, "no verdict")
        endpoint_fails = o.verdict == "error" and o.reason.startswith("SQL Server failed") and (
            o.ran != "ok" or _ENDPOINT_GRAMMAR.search(o.reason) is not None)
        assert o.verdict != "differs" or o.explained or not o.created, (o.name, o.reason)
        assert o.verdict != "error" or endpoint_fails or not o.created or o.ran != "ok", (o.name, o.reason)


def test_the_tally_is_recorded(request, tidb, tmp_path_factory):
    runs = [_run(corpus, request, tidb, tmp_path_factory) for corpus in FIXTURES]
    text = render(runs, tidb.version())
    if os.environ.get("UPDATE_PROCEDURES") or not RECORD.is_file():
        RECORD.parent.mkdir(parents=True, exist_ok=True)
        RECORD.write_text(text, encoding="utf-8")
    # The tally's rows must be the recorded ones in the columns no run can move: a procedure that picks a row at
    # random (NEWID(), RAND()) is the same on both servers in one run and not comparable in the next, so the
    # verdict counts are not compared; what runs, what is compared and what is left out are.
    tally, recorded = _steady(text), _steady(RECORD.read_text(encoding="utf-8"))
    assert len(tally) == 3 * len(FIXTURES), tally
    assert tally == recorded, f"the tally changed: review it and run {COMMAND}\n" + "\n".join(map(str, tally))


_STEADY = {6: (0, 1, 2, 3, 5), 7: (0, 1, 2), 19: (0, 1, 2, 11, 12, 18)}
"""The columns of each tally table (by its width) that a run's random picks cannot move: the coverage table but its
answers, the writing procedures that run and are compared, and of the calls the procedures, those the runner runs,
the reading ones, those compared and those the endpoint did not create."""


def _steady(text: str) -> list[tuple[str, ...]]:
    rows = []
    for line in text.splitlines():
        if not line.startswith(tuple(f"| {c} |" for c in FIXTURES)):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows.append(tuple(cells[i] for i in _STEADY.get(len(cells), range(len(cells)))))
    return rows
