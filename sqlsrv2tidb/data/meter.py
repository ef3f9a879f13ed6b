"""Rows per second and time left, per table, for the progress line of a load.

Several tables load at once, and the progress bar is one line, so the meter keeps every running
table's count and writes them into the bar's description: `dbo.Orders 41,000/830,000 rows
12,300 rows/s ETA 1:04`, with `(4 key ranges)` after the name of a table split into ranges
copied by processes of their own (its count is theirs together). The bar itself counts rows over
all tables.
"""

from __future__ import annotations

import threading
import time

from ..progress import Task, clock


class Meter:
    def __init__(self, task: Task, verb: str) -> None:
        self.task, self.verb = task, verb
        self._lock = threading.Lock()
        self._running: dict[str, tuple[float, int, int | None]] = {}
        self._parts: dict[str, int] = {}

    def start(self, table: str, expected: int | None, parts: int | None = None) -> None:
        """A table starts loading; `parts` is the number of key ranges it was split into, if it was."""
        with self._lock:
            self._running[table] = (time.perf_counter(), 0, expected)
            if parts:
                self._parts[table] = parts
        self._show()

    def add(self, table: str, rows: int) -> None:
        with self._lock:
            started, done, expected = self._running.get(table, (time.perf_counter(), 0, None))
            self._running[table] = (started, done + rows, expected)
        self.task.advance(rows)
        self._show()

    def finish(self, table: str) -> None:
        with self._lock:
            self._running.pop(table, None)
            self._parts.pop(table, None)
        self._show()

    def line(self, table: str) -> str:
        with self._lock:
            started, done, expected = self._running.get(table, (time.perf_counter(), 0, None))
            parts = self._parts.get(table)
        rate = done / max(time.perf_counter() - started, 1e-6)
        text = f"{table}" + (f" ({parts} key ranges)" if parts else "") + f" {done:,}" + (f"/{expected:,}" if expected else "") + f" rows {rate:,.0f} rows/s"
        if expected and rate > 0 and done < expected:
            text += f" ETA {clock((expected - done) / rate)}"
        return text

    def _show(self) -> None:
        with self._lock:
            names = list(self._running)
        self.task.update(f"{self.verb}: " + ("; ".join(self.line(n) for n in names) if names else "finishing"))
