"""Fingerprinting many texts in one process per core gives, in order, what one text at a time gives."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from fingerprint_workers import note_processes, processes

from sqlsrv2tidb.tsql import fingerprints
from sqlsrv2tidb.tsql.fingerprint import fingerprint, query_id

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "translate"))
from translate_golden import read_cases  # noqa: E402
from translate_sede import sede_queries  # noqa: E402


def corpus_texts() -> list[str]:
    """The 857 SEDE queries, each also as Query Store stores it (`(@Name int, ...)` first) when it has
    parameters, the golden corpus's statements, and text the tokenizer rejects (the fallback)."""
    texts = []
    for q in sede_queries():
        texts.append(q.sql)
        if q.parameters:
            texts.append("(" + ",".join(f"{p.name} {p.type or 'int'}" for p in q.parameters) + ")" + q.sql)
    texts += [case.source for case in read_cases()]
    texts += ["SELECT 'unterminated FROM t WHERE a = 1", "", "   ", "(@P1 int)"]
    return list(dict.fromkeys(texts))


def one_at_a_time(texts: list[str]) -> list[tuple[str, str]]:
    return [(shape, query_id(shape)) for shape in map(fingerprint, texts)]


def test_workers_give_what_one_process_gives_in_input_order(monkeypatch, tmp_path):
    texts = corpus_texts()
    assert len(texts) > 1200
    expected = one_at_a_time(texts)
    monkeypatch.setattr(fingerprints, "PARALLEL_FROM", 2)
    monkeypatch.setattr(fingerprints, "CHUNK", 25)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    folder = note_processes(monkeypatch, tmp_path / "pids", wait_for=2)
    assert fingerprints.fingerprint_texts(texts) == expected
    ran = processes(folder)
    assert len(ran) == 2 and os.getpid() not in ran, ran


def test_few_texts_stay_in_this_process(monkeypatch, tmp_path):
    texts = corpus_texts()[:50]
    folder = note_processes(monkeypatch, tmp_path / "pids")
    assert fingerprints.fingerprint_texts(texts) == one_at_a_time(texts)
    assert processes(folder) == {os.getpid()}
    assert fingerprints.fingerprint_texts([]) == []


def test_one_process_per_core_from_the_threshold(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    assert fingerprints.workers_for(fingerprints.PARALLEL_FROM - 1) == 1
    assert fingerprints.workers_for(fingerprints.PARALLEL_FROM) == 3
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert fingerprints.workers_for(10 * fingerprints.PARALLEL_FROM) == 1
