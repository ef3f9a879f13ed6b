"""Progress reporting for long stages, kept out of the stages themselves.

Stages call `progress.task(description, total)` and `task.advance()`, and `progress.note(line)` for
an event worth one line of its own (a wait for a server that went away); the library default does
nothing, the CLI passes one that draws a bar on stderr (never on stdout, which may be piped).
A run of several stages (`assess --connection`) shows them through one `StageProgress`: each
stage's number, name and counts, the run's elapsed time and, where the stage can tell, its expected
time, with the stage's own tasks under it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Protocol


class Task(Protocol):
    def advance(self, n: int = 1) -> None: ...

    def update(self, description: str) -> None: ...


class Progress(Protocol):
    def task(self, description: str, total: int | None = None) -> AbstractContextManager[Task]: ...

    def note(self, line: str) -> None: ...


class _NullTask:
    def advance(self, n: int = 1) -> None:
        pass

    def update(self, description: str) -> None:
        pass


class NullProgress:
    """Reports nothing: the default for library callers and tests."""

    @contextmanager
    def task(self, description: str, total: int | None = None) -> Iterator[Task]:
        yield _NullTask()

    def note(self, line: str) -> None:
        pass


class StderrProgress:
    """A live bar on stderr when it is a terminal; one line per stage otherwise (logs, CI)."""

    def __init__(self) -> None:
        import sys

        from rich.console import Console

        self._console = Console(stderr=True)
        self._live = sys.stderr.isatty()

    @contextmanager
    def task(self, description: str, total: int | None = None) -> Iterator[Task]:
        if not self._live:
            self._console.print(f"{description}…", highlight=False, soft_wrap=True)
            yield _NullTask()
            return
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        with Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            TimeRemainingColumn(), console=self._console, transient=True,
        ) as bar:
            task_id = bar.add_task(description, total=total)

            class _Task:
                def advance(self, n: int = 1) -> None:
                    bar.advance(task_id, n)

                def update(self, text: str) -> None:
                    bar.update(task_id, description=text)

            yield _Task()
        self._console.print(f"{description}: done", highlight=False, soft_wrap=True)

    def note(self, line: str) -> None:
        """One line of its own, above the bar while one is drawn (never cut into several in a log)."""
        self._console.print(line, highlight=False, markup=False, soft_wrap=True)


def clock(seconds: float) -> str:
    """`1:04` or `2:03:09`: a span of time as a display shows it."""
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


class _PrefixedTask:
    """A stage's task whose every description (the data meter rewrites it as rows arrive) keeps the stage's mark."""

    def __init__(self, task: Task, prefix: str) -> None:
        self._task, self._prefix = task, prefix

    def advance(self, n: int = 1) -> None:
        self._task.advance(n)

    def update(self, description: str) -> None:
        self._task.update(self._prefix + description)


class StageProgress:
    """One display over the stages of a run: `[4/7 data] 12 table(s), 45,000 row(s) (0:41 elapsed)` as a stage
    begins, its tasks marked `[4/7 data]` under it, and `[4/7 data] done in 0:12: ...` as it ends.

    A stage names its expected time where it can tell (a replay's length); the tasks under it show their own
    time left as their counts advance. Stages left out are said in one line each, and keep their numbers.
    """

    def __init__(self, progress: Progress, names: Sequence[str], now: Callable[[], float] = time.perf_counter) -> None:
        self.progress, self.names, self.now = progress, tuple(names), now
        self.started = now()
        self.current: str | None = None
        self._stage_started = self.started

    def mark(self, name: str) -> str:
        return f"[{self.names.index(name) + 1}/{len(self.names)} {name}]"

    def begin(self, name: str, counts: str = "", expected: float | None = None) -> None:
        self.current, self._stage_started = name, self.now()
        timing = f"{clock(self._stage_started - self.started)} elapsed" + (
            f", about {clock(expected)} expected" if expected is not None else "")
        self.progress.note(f"{self.mark(name)} {counts}{' ' if counts else ''}({timing})")

    def end(self, said: str) -> float:
        """The current stage ended as `said` (`done: ...`, `failed: ...`); returns its seconds."""
        name = self.current or ""
        seconds = self.now() - self._stage_started
        self.progress.note(f"{self.mark(name)} {said} ({clock(seconds)})")
        self.current = None
        return seconds

    def skip(self, name: str, why: str) -> None:
        self.progress.note(f"{self.mark(name)} left out: {why}")

    @contextmanager
    def task(self, description: str, total: int | None = None) -> Iterator[Task]:
        prefix = f"{self.mark(self.current)} " if self.current else ""
        with self.progress.task(prefix + description, total) as task:
            yield _PrefixedTask(task, prefix)

    def note(self, line: str) -> None:
        self.progress.note(line)
