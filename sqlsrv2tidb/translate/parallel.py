"""Translating many query classes on every core: one process per core, the same output as one.

Translation is CPU-bound Python (sqlglot's parse and write, the rewrites), so threads would share
one core; processes do not. Each class's translation depends only on its text, its parameters and
the schema, so the classes are cut into spans in workload order, each worker translates whole
spans, and the results are put back in that order: the output is the one a single process writes
(`tests/translate/test_parallel.py` compares them on the development corpora). A worker sends back
what the main process does not hold already: not the class's text and fingerprint (read there), and
the few hundred distinct notes of a workload are shared among its classes, not held once per class.

Small workloads stay in one process: starting and stopping two workers (a fork each, the schema
handed over once) takes some 20 ms, what one process spends on 10 to 40 classes (1 to 2.5 ms
each, compiled or pure-Python sqlglot), so several processes pay from about 40 distinct classes;
`PARALLEL_FROM` leaves a margin (`benchmarks/translate/RESULTS.md`).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor

from ..model import Database, QueryClass
from ..model.translation import Note, TranslatedQuery
from ..options import Options
from .naming import NameMap

PARALLEL_FROM = 64
"""Distinct classes from which translating in several processes pays for starting them."""
CHUNK = 50
"""Most classes per task: sending a task costs little next to it, and tasks are small enough to
spread evenly (a small workload is cut into eight tasks per worker)."""

Translate = Callable[..., TranslatedQuery]

_WORKER: dict[str, object] = {}


def workers_for(classes: int, options: Options) -> int:
    """How many processes translate `classes` distinct classes: one per core (or the option), one when few."""
    wanted = options.translate_workers or os.cpu_count() or 1
    return 1 if classes < PARALLEL_FROM else max(1, min(wanted, classes))


def translate_in_processes(
    queries: Sequence[QueryClass], translate: Translate, *, database: Database, options: Options, workers: int,
) -> Iterator[list[TranslatedQuery]]:
    """Translate `queries` with `workers` processes; yields each chunk's results, in order."""
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    size = max(1, min(CHUNK, -(-len(queries) // (workers * 8))))
    spans = [(i, min(i + size, len(queries))) for i in range(0, len(queries), size)]
    notes: dict[Note, Note] = {}
    # The workers get the classes when they start (a forked worker shares the parent's memory: nothing is
    # copied), and each task is a span of them: no class's text is pickled per task.
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(method),
                             initializer=_start, initargs=(translate, database, options, queries)) as pool:
        for (start, end), sent in zip(spans, pool.map(_translate_span, spans), strict=True):
            yield [_received(query, fields, notes) for query, fields in zip(queries[start:end], sent, strict=True)]


def _start(translate: Translate, database: Database, options: Options, queries: Sequence[QueryClass]) -> None:
    _WORKER.update(translate=translate, database=database, options=options, names=NameMap.for_database(database),
                   queries=queries)


def _translate_span(span: tuple[int, int]) -> list[tuple]:
    translate, queries = _WORKER["translate"], _WORKER["queries"]
    start, end = span
    return [_sent(query, translate(query, database=_WORKER["database"], names=_WORKER["names"], options=_WORKER["options"]))  # type: ignore[operator]
            for query in queries[start:end]]  # type: ignore[index]


def _sent(query: QueryClass, result: TranslatedQuery) -> tuple:
    """What a worker sends back of a class's translation: its fields, less the class's own text and fingerprint,
    which the main process holds already (a large workload's texts cross the pipe, and sit in memory, once)."""
    return (result.id, None if result.fingerprint == query.fingerprint else result.fingerprint,
            None if result.source_sql == query.text else result.source_sql, result.target_sql, result.status,
            result.notes, result.kind, result.parameters)


def _received(query: QueryClass, fields: tuple, notes: dict[Note, Note]) -> TranslatedQuery:
    """A class's translation from what its worker sent, its notes shared with every class that has the same (a
    workload's classes share a few hundred notes among them)."""
    ident, fingerprint, source, target, status, sent_notes, kind, parameters = fields
    return TranslatedQuery(id=ident, fingerprint=query.fingerprint if fingerprint is None else fingerprint,
                           source_sql=query.text if source is None else source, target_sql=target, status=status,
                           notes=tuple(notes.setdefault(note, note) for note in sent_notes), kind=kind,
                           parameters=parameters)
