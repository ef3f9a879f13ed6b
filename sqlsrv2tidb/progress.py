"""Progress reporting for long stages, kept out of the stages themselves.

Stages call `progress.task(description, total)` and `task.advance()`, and `progress.note(line)` for
an event worth one line of its own (a wait for a server that went away); the library default does
nothing, the CLI passes one that draws a bar on stderr (never on stdout, which may be piped).
"""

from __future__ import annotations

from collections.abc import Iterator
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
            self._console.print(f"{description}…", highlight=False)
            yield _NullTask()
            return
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        with Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            console=self._console, transient=True,
        ) as bar:
            task_id = bar.add_task(description, total=total)

            class _Task:
                def advance(self, n: int = 1) -> None:
                    bar.advance(task_id, n)

                def update(self, text: str) -> None:
                    bar.update(task_id, description=text)

            yield _Task()
        self._console.print(f"{description}: done", highlight=False)

    def note(self, line: str) -> None:
        """One line of its own, above the bar while one is drawn."""
        self._console.print(line, highlight=False, markup=False)
