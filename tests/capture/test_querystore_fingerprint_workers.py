"""A Query Store export or capture reads the same whether its texts are fingerprinted in this process or in workers."""

from __future__ import annotations

import csv
import os
import sys
from pathlib import Path

import pytest

from sqlsrv2tidb.capture.catalog import read_catalog
from sqlsrv2tidb.capture.catalog_sql import MARKER
from sqlsrv2tidb.capture.querystore import EXPORT_COLUMNS, read_query_store_export
from sqlsrv2tidb.capture.textfile import read_text
from sqlsrv2tidb.tsql import fingerprints

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS / "translate"))
sys.path.insert(0, str(TESTS / "tsql"))
from fingerprint_workers import note_processes, processes  # noqa: E402
from test_catalog_mapping import PATH, live_document  # noqa: E402
from translate_sede import sede_queries  # noqa: E402

HOURS = (("2026-01-05 09:00:00.0000000", "2026-01-05 10:00:00.0000000"),
         ("2026-01-05 10:00:00.0000000", "2026-01-05 11:00:00.0000000"))


def write_sede_export(path: Path) -> Path:
    """The SEDE queries as Query Store stores them, over two hours: some spelled twice (one class, two
    texts), some aborted, with the capture's own query, a row without text and a bad row among them."""
    rows = []
    for i, q in enumerate(sede_queries(), start=1):
        prefix = "(" + ",".join(f"{p.name} {p.type or 'int'}" for p in q.parameters) + ")" if q.parameters else ""
        spellings = [prefix + q.sql] + ([prefix + q.sql + " \n"] if i % 5 == 0 else [])
        for hour, (start, end) in enumerate(HOURS):
            for k, text in enumerate(spellings):
                rows.append(dict(query_id=i * 10 + k, query_sql_text=text, interval_start_utc=start, interval_end_utc=end,
                                 execution_type=3 if i % 7 == 0 and hour else 0, count_executions=1 + (i * 31 + hour) % 97,
                                 avg_duration_us=100 + i % 50))
    rows.insert(5, dict(query_id=1, query_sql_text=f"SELECT 1 AS {MARKER}", interval_start_utc=HOURS[0][0],
                        interval_end_utc=HOURS[0][1], count_executions=3))
    rows.insert(9, dict(query_id=2, query_sql_text="", interval_start_utc=HOURS[0][0], interval_end_utc=HOURS[0][1],
                        count_executions=3))
    rows.insert(12, dict(query_id=3, query_sql_text="SELECT 2", interval_start_utc=HOURS[0][0],
                         interval_end_utc=HOURS[0][1], count_executions="lots"))
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(EXPORT_COLUMNS)
        for row in rows:
            writer.writerow([row.get(c, "NULL") for c in EXPORT_COLUMNS])
    return path


def read_export(path: Path):
    return read_query_store_export(read_text(path))


def read_fixture_capture(_: Path):
    capture = read_catalog(live_document(), PATH)
    return capture.workload, capture.findings


@pytest.mark.parametrize("read", [read_export, read_fixture_capture], ids=["sede-export", "fixture-capture"])
def test_workers_read_the_same_workload_and_findings(read, monkeypatch, tmp_path):
    path = write_sede_export(tmp_path / "querystore.csv")
    monkeypatch.setattr(fingerprints, "PARALLEL_FROM", 10**9)
    in_process = read(path)
    monkeypatch.setattr(fingerprints, "PARALLEL_FROM", 2)
    monkeypatch.setattr(fingerprints, "CHUNK", 1 if read is read_fixture_capture else 50)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    folder = note_processes(monkeypatch, tmp_path / "pids", wait_for=2)
    in_workers = read(path)
    ran = processes(folder)
    assert len(ran) == 2 and os.getpid() not in ran, ran
    assert in_workers == in_process
    workload, findings = in_process
    assert len(workload.queries) >= 4 and len(workload.intervals) >= 4


def test_the_sede_export_has_what_the_comparison_relies_on(tmp_path):
    """Texts spelled twice (fewer classes than texts), aborted executions, the rows the reader skips."""
    path = write_sede_export(tmp_path / "querystore.csv")
    workload, findings = read_export(path)
    assert [f.rule for f in findings] == ["IN27", "IN27"] and 1 < findings[0].line < findings[1].line
    assert "no query_sql_text" in findings[0].message and "lots" in findings[1].message
    assert any(i.errors for i in workload.intervals)
    with path.open(encoding="utf-8", newline="") as f:
        texts = {row["query_sql_text"] for row in csv.DictReader(f)}
    assert 800 < len(workload.queries) < len(texts) - 150
    assert not any(MARKER in q.text for q in workload.queries)
