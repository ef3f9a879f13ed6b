"""Writing into OUT without ever destroying what the user gave us.

OUT may be new, empty, or a folder this tool wrote before (it holds our `assessment.json`,
`replay.json` or `report.html`). Anything else is refused, as is an OUT that is, or lies inside,
one of the SOURCES. Files are written to a temporary name and renamed, so a crash or Ctrl-C never
leaves a half-written `assessment.json` where a good one was.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .errors import UsageError

OUR_FILES = ("assessment.json", "replay.json", "report.html", "capture.json", "catalog.json", "data.json",
             "data-checkpoint.json")


def prepare_output(out: Path, sources: Iterable[Path | str] = ()) -> Path:
    out = Path(out)
    resolved = out.resolve()
    for source in sources:
        src = Path(source).resolve()
        if resolved == src or src.is_relative_to(resolved) or (src.is_dir() and resolved.is_relative_to(src)):
            raise UsageError(f"-o {out} overlaps the source {source}; choose an output folder outside the sources")
    if out.exists():
        if not out.is_dir():
            raise UsageError(f"-o {out} is a file; give a folder")
        entries = [p for p in out.iterdir() if not p.name.startswith(".")]
        if entries and not any((out / name).exists() for name in OUR_FILES):
            raise UsageError(f"-o {out} already holds files this tool did not write; choose an empty folder")
    out.mkdir(parents=True, exist_ok=True)
    return out


def write_text(path: Path, text: str) -> Path:
    """Write through a temporary file and rename, so an interrupted run never leaves half a file.

    The file gets the mode any new file would (the temporary file's private 0600 would stop the
    team from opening a report someone else wrote); none of these files holds a secret.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_json(path: Path, data: Any) -> Path:
    return write_text(path, json_text(data) + "\n")


_ONE_LINE = json.JSONEncoder(ensure_ascii=False, default=str, separators=(", ", ": "))
_EXPANDED_LEVELS = 2


def json_text(data: Any, depth: int = 0) -> str:
    """JSON with the document and its sections one entry per line, and each entry of a section (a
    query class, a finding, a table) on one line of its own.

    Python writes indented JSON with its pure-Python encoder (its C encoder writes only one line):
    some 20 seconds for the assessment of a 100,000-class workload. Written this way, every entry
    goes through the C encoder, and a file of many classes still reads (and greps) one class a line."""
    if depth < _EXPANDED_LEVELS and isinstance(data, dict) and data:
        pad = " " * (depth + 1)
        lines = [f"{pad}{_key(key)}: {json_text(value, depth + 1)}" for key, value in data.items()]
        return "{\n" + ",\n".join(lines) + "\n" + " " * depth + "}"
    if depth < _EXPANDED_LEVELS and isinstance(data, (list, tuple)) and data:
        pad = " " * (depth + 1)
        return "[\n" + ",\n".join(pad + json_text(value, depth + 1) for value in data) + "\n" + " " * depth + "]"
    return _ONE_LINE.encode(data)


def _key(key: Any) -> str:
    if isinstance(key, str):
        return _ONE_LINE.encode(key)
    return _ONE_LINE.encode({key: None})[1 : -len(": null}")]  # JSON's spelling of a number, true, null as a key
