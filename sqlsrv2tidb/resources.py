"""Finds the data folders `rules/` and `templates/`, and lets a user override single files in them.

In a source checkout they are the top-level folders next to the package; in an installed wheel
they ship as `sqlsrv2tidb/_data/`. A user's `--rules DIR` / `--templates DIR` is searched first,
file by file, so one template or rule can be replaced without copying the rest.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Literal

Kind = Literal["rules", "templates"]

_PACKAGE = Path(__file__).resolve().parent


def builtin_dir(kind: Kind) -> Path:
    installed = _PACKAGE / "_data" / kind
    if installed.is_dir():
        return installed
    checkout = _PACKAGE.parent / kind
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(f"the {kind}/ folder is missing from this installation")


def search_path(kind: Kind, override: Path | None = None) -> list[Path]:
    """Folders to look in, the user's first."""
    dirs = [builtin_dir(kind)]
    if override is not None:
        dirs.insert(0, override)
    return dirs


def iter_files(kind: Kind, pattern: str, override: Path | None = None) -> Iterator[tuple[str, Path]]:
    """Yield `(relative path, file)` for every file matching `pattern`, a user's file replacing ours."""
    seen: dict[str, Path] = {}
    for folder in reversed(search_path(kind, override)):
        for path in sorted(folder.rglob(pattern)):
            seen[path.relative_to(folder).as_posix()] = path
    yield from sorted(seen.items())


def find_file(kind: Kind, relative: str, override: Path | None = None) -> Path:
    for folder in search_path(kind, override):
        candidate = folder / relative
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"{kind}/{relative} not found")
