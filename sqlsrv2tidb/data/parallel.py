"""Running one function per table on `--jobs` threads, in the tables' order, stoppable by Ctrl-C.

Each call opens its own connections (neither pyodbc nor the MySQL drivers share one across
threads). The drivers wait on the network with the GIL released, so threads overlap the two
servers' work; the Python work of converting and hashing values is what one process spends.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def each(items: Sequence[T], work: Callable[[T], R], jobs: int, stop: threading.Event) -> list[R | None]:
    """`work(item)` for every item not reached before `stop` was set (None for those); results in order."""
    results: list[R | None] = [None] * len(items)

    def run(index: int) -> None:
        if not stop.is_set():
            results[index] = work(items[index])

    with ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="sqlsrv2tidb-data") as pool:
        futures = [pool.submit(run, i) for i in range(len(items))]
        try:
            for future in futures:
                future.result()
        except BaseException:
            stop.set()
            raise
    return results
