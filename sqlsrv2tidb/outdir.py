"""Writing into OUT without ever destroying what the user gave us.

OUT may be new, empty, or a folder this tool wrote before (it holds our `assessment.json`,
`replay.json` or `report.html`). Anything else is refused, as is an OUT that is, or lies inside,
one of the SOURCES. Files are written to a temporary name and renamed, so a crash, Ctrl-C or a
full disk never leaves a half-written `assessment.json` where a good one was. A write that fails
stops the command with one line naming the file and why (`OutputError`); the files written before
it stay whole, and the temporary file is removed.
"""

from __future__ import annotations

import errno
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, TextIO

from .errors import OutputError, UsageError

OUR_FILES = ("assessment.json", "replay.json", "report.html", "capture.json", "catalog.json", "data.json",
             "data-checkpoint.json", "compare.json", "experiment.json", "capture/catalog.json")
"""Files that mark a folder as one this tool wrote (`capture/catalog.json`: the capture of `assess --connection`)."""


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
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create the output folder {out}: {_reason(exc)}") from None
    return out


def write_text(path: Path, text: str) -> Path:
    """Write through a temporary file and rename, so an interrupted run never leaves half a file.

    The file gets the mode any new file would (the temporary file's private 0600 would stop the
    team from opening a report someone else wrote); none of these files holds a secret.
    """
    return _write(path, lambda fh: fh.write(text))


def _write(path: Path, fill: Callable[[TextIO], object]) -> Path:
    """`write_text`'s safe write, the text given by `fill` piece by piece."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {_reason(exc)}; the files written before it are whole") from None
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fill(fh)
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            Path(tmp).unlink(missing_ok=True)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise OutputError(f"cannot write {path}: {_reason(exc)}; the files written before it are whole") from None
        raise
    return path


_ADVICE = {
    errno.ENOSPC: "the disk is full: free space there or choose another output folder with -o",
    errno.EDQUOT: "the disk quota is used up: free space there or choose another output folder with -o",
    errno.EACCES: "choose an output folder you may write to with -o",
    errno.EPERM: "choose an output folder you may write to with -o",
    errno.EROFS: "choose an output folder on a writable disk with -o",
}


def _reason(exc: OSError) -> str:
    """`No space left on device (the disk is full: ...)`: the system's words and what to do about them."""
    reason = exc.strerror or str(exc)
    advice = _ADVICE.get(exc.errno or 0)
    return f"{reason} ({advice})" if advice else reason


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_json(path: Path, data: Any) -> Path:
    """`data` as indented JSON, written as it is encoded: a document of 100,000 query classes (170 MB) is never
    held whole as one string beside the data it is made of. The text is `json.dumps(data, indent=1)`'s."""
    def fill(fh: TextIO) -> None:
        pieces: list[str] = []
        for piece in json.JSONEncoder(indent=1, ensure_ascii=False, default=str).iterencode(data):
            pieces.append(piece)
            if len(pieces) >= 16384:
                fh.write("".join(pieces))
                pieces.clear()
        pieces.append("\n")
        fh.write("".join(pieces))

    return _write(path, fill)


class WrittenDocument(Mapping[str, Any]):
    """A JSON document `write_json` wrote, read back from its file the first time it is asked for.

    `assess` writes assessment.json and then makes the page from OUT's files; holding the document it wrote
    as well doubles what a workload of 100,000 classes takes (some 600 MB each). The caller that wants it
    still has it, as the file says it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._doc: dict[str, Any] | None = None

    def _read(self) -> dict[str, Any]:
        if self._doc is None:
            self._doc = json.loads(self.path.read_text(encoding="utf-8"))
        return self._doc

    def __getitem__(self, key: str) -> Any:
        return self._read()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._read())

    def __len__(self) -> int:
        return len(self._read())
