"""Translating a workload in several processes writes what one process writes, in the same order."""

from __future__ import annotations

from dataclasses import replace

import pytest
from corpora import corpus
from translate_sede import sede_database, sede_queries

from sqlsrv2tidb.model import Capture, QueryClass, Workload
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.translate import parallel
from sqlsrv2tidb.translate.queries import translate_workload
from sqlsrv2tidb.tsql.fingerprint import fingerprint, query_id

pytestmark = pytest.mark.slow


def _capture(database, samples) -> Capture:
    classes = []
    for sql, parameters in samples:
        shape = fingerprint(sql)
        classes.append(QueryClass(id=query_id(shape), fingerprint=shape, text=sql, parameters=parameters))
    return Capture(database=database, workload=Workload(queries=tuple(classes)))


@pytest.mark.parametrize("name", ["sede", "wideworldimporters"])
def test_processes_write_what_one_process_writes(name):
    if name == "sede":
        capture = _capture(sede_database(), [(q.sql, q.parameters) for q in sede_queries()])
    else:
        c = corpus(name)
        capture = _capture(c.capture.database, [(s.sql, s.parameters) for s in c.samples])
    one = translate_workload(capture, Options(translate_workers=1))
    several = translate_workload(capture, Options(translate_workers=2))
    assert parallel.workers_for(len(capture.workload.queries), Options(translate_workers=2)) == 2
    assert several == one


def test_a_small_workload_stays_in_one_process():
    assert parallel.workers_for(parallel.PARALLEL_FROM - 1, Options(translate_workers=8)) == 1
    assert parallel.workers_for(10_000, Options(translate_workers=3)) == 3


def test_duplicate_shapes_are_translated_once_in_processes(monkeypatch):
    """Classes of one fingerprint from two sources share a translation, as in one process."""
    samples = [(q.sql, q.parameters) for q in sede_queries()][: parallel.PARALLEL_FROM + 10]
    capture = _capture(sede_database(), samples)
    doubled = capture.workload.queries + tuple(replace(q, id="x" + q.id[1:]) for q in capture.workload.queries[:5])
    capture = replace(capture, workload=Workload(queries=doubled))
    result = translate_workload(capture, Options(translate_workers=2))
    assert [q.id for q in result.queries] == [q.id for q in doubled]
    assert result.queries[-1].target_sql == result.queries[4].target_sql
