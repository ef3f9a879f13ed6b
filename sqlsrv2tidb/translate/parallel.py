"""Translating many query classes on every core: one process per core, the same output as one.

Translation is CPU-bound Python (sqlglot's parse and write, the rewrites), so threads would share
one core; processes do not. Each class's translation depends only on its text, its parameters and
the schema, so the classes are cut into chunks in workload order, each worker translates whole
chunks, and the results are put back in that order: the output is the one a single process writes
(`tests/translate/test_parallel.py` compares them on the development corpora).

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
from ..model.translation import TranslatedQuery
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
    chunks = [list(queries[i : i + size]) for i in range(0, len(queries), size)]
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context(method),
                             initializer=_start, initargs=(translate, database, options)) as pool:
        yield from pool.map(_translate_chunk, chunks)


def _start(translate: Translate, database: Database, options: Options) -> None:
    _WORKER.update(translate=translate, database=database, options=options, names=NameMap.for_database(database))


def _translate_chunk(chunk: list[QueryClass]) -> list[TranslatedQuery]:
    translate = _WORKER["translate"]
    return [translate(query, database=_WORKER["database"], names=_WORKER["names"], options=_WORKER["options"])  # type: ignore[operator]
            for query in chunk]
