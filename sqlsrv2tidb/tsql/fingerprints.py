"""Fingerprinting many distinct statement texts on every core: the same keys as one at a time.

Reading a large Query Store export fingerprints every distinct text, tokenizing it in Python: for
100,000 texts some 7 s of one core, half of the read. A text's fingerprint depends only on the
text, so the texts are cut into ranges in input order, each worker process fingerprints whole
ranges, and the results come back in that order: what `fingerprint` and `query_id` give one text
at a time (`tests/tsql/test_fingerprints.py` compares them on the SEDE and golden corpora).

Workers are forked where the platform can (the texts are then already in their memory, and only a
range's start and end is sent); elsewhere each one is handed the texts once. Small inputs stay in
one process: starting and stopping two workers takes 7 to 9 ms, and one text takes 25 us (a short
application statement) to 70 us (a long report query) of one process, so on two free cores two
processes pay from about 500 long or 1,100 short texts; `PARALLEL_FROM` leaves a margin
(`benchmarks/translate/fingerprint_processes.py`).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from .fingerprint import fingerprint, query_id

PARALLEL_FROM = 2000
"""Texts from which fingerprinting in several processes pays for starting them."""
CHUNK = 2000
"""Most texts per task: a task of 2,000 texts is some 0.1 s of work, so sending it costs little,
and a mid-sized input is still cut into eight tasks per worker so the workers finish together."""

_TEXTS: list[Sequence[str]] = []
"""The texts a worker reads its ranges from (inherited when forked, handed over once otherwise)."""


def workers_for(texts: int) -> int:
    """How many processes fingerprint `texts` texts: one per core, one when few."""
    return 1 if texts < PARALLEL_FROM else max(1, min(os.cpu_count() or 1, texts))


def fingerprint_texts(texts: Sequence[str]) -> list[tuple[str, str]]:
    """(fingerprint, query id) of each text, in input order, on one process per core when there are many."""
    workers = workers_for(len(texts))
    if workers == 1:
        return _fingerprint_range(texts, 0, len(texts))
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    size = max(1, min(CHUNK, -(-len(texts) // (workers * 8))))
    starts = range(0, len(texts), size)
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(method),
                             initializer=_start, initargs=(texts,)) as pool:
        results: list[tuple[str, str]] = []
        for part in pool.map(_fingerprint_chunk, starts, [start + size for start in starts]):
            results.extend(part)
    return results


def _fingerprint_range(texts: Sequence[str], start: int, stop: int) -> list[tuple[str, str]]:
    out = []
    for i in range(start, min(stop, len(texts))):
        shape = fingerprint(texts[i])
        out.append((shape, query_id(shape)))
    return out


def _start(texts: Sequence[str]) -> None:
    _TEXTS[:] = [texts]


def _fingerprint_chunk(start: int, stop: int) -> list[tuple[str, str]]:
    return _fingerprint_range(_TEXTS[0], start, stop)
