"""The 857 real Stack Exchange Data Explorer queries: each gets a status and notes, none crashes the
translator, and every TiDB text it writes parses with TiDB's parser.

The status of every query is recorded in `sede_statuses.txt` (one line per query: id, status, note
codes, and the distribution on top). A change of any query's status fails the test with the change in
the distribution and the queries that moved, so an improvement or a regression is seen, not missed.
Accept a change with `UPDATE_SEDE=1 pytest tests/translate/test_sede.py`.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from translate_sede import sede_database, sede_queries

from sqlsrv2tidb.model.translation import STATUSES, TranslatedQuery
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.translate.naming import NameMap
from sqlsrv2tidb.translate.queries import translate_sql

RECORD = Path(__file__).resolve().parent / "sede_statuses.txt"


@cache
def translations() -> tuple[tuple[int, TranslatedQuery], ...]:
    database = sede_database()
    names = NameMap.for_database(database)
    return tuple(
        (q.id, translate_sql(q.sql, database=database, names=names, options=Options(), parameters=q.parameters))
        for q in sede_queries()
    )


def _line(query_id: int, result: TranslatedQuery) -> str:
    codes = " ".join(sorted({n.code for n in result.notes}))
    return f"{query_id} {result.status} {codes}".rstrip()


def _distribution(statuses: Counter) -> str:
    return ", ".join(f"{s} {statuses.get(s, 0)}" for s in STATUSES)


def test_all_857_queries_translate_without_a_crash():
    started = time.perf_counter()
    results = translations()
    elapsed = time.perf_counter() - started
    assert len(results) == 857
    for query_id, result in results:
        assert result.status in STATUSES, query_id
        assert not [n for n in result.notes if n.code == "QY00"], (query_id, result.notes)
        if result.status != "translated":
            assert result.notes, f"{query_id}: status {result.status} without a note saying why"
        if result.status == "unsupported":
            assert result.target_sql is None
        else:
            assert result.target_sql is not None
            assert result.target_sql.count("?") >= len(result.parameters)
    print(f"\ntranslated 857 SEDE queries in {elapsed:.1f}s ({elapsed / 857 * 1000:.1f} ms each)")


@pytest.mark.tidb_parser
def test_every_written_translation_parses_with_tidb(tidb_parser):
    failures = []
    for query_id, result in translations():
        if result.target_sql:
            check = tidb_parser.check(result.target_sql)
            if not check.ok:
                failures.append(f"{query_id} [{result.status}]: {check.error}\n    {result.target_sql[:300]}")
    assert not failures, f"{len(failures)} translations TiDB's parser rejects:\n" + "\n".join(failures[:20])


def test_statuses_match_the_record():
    actual = {query_id: _line(query_id, result) for query_id, result in translations()}
    statuses = Counter(line.split()[1] for line in actual.values())
    header = f"# SEDE validation set, {len(actual)} queries: {_distribution(statuses)}"
    if os.environ.get("UPDATE_SEDE") == "1" or not RECORD.exists():
        RECORD.write_text("\n".join([header, *actual.values()]) + "\n", encoding="utf-8")
    recorded_lines = [line for line in RECORD.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    recorded = {int(line.split()[0]): line for line in recorded_lines}
    before = Counter(line.split()[1] for line in recorded.values())
    moved = [f"  {recorded.get(qid, f'{qid} (new)')}  ->  {line}" for qid, line in actual.items() if recorded.get(qid) != line]
    assert not moved, (
        f"statuses changed: before {_distribution(before)}; now {_distribution(statuses)}\n"
        + "\n".join(moved[:40])
        + ("\n  ..." if len(moved) > 40 else "")
        + "\n(accept with UPDATE_SEDE=1 after reviewing the changes)"
    )
