"""A capture: the schema and workload read from all the sources a user gave, plus what went wrong reading them.

This is the input of every later stage. A capture folder written by `sqlsrv2tidb capture` stores
the raw catalog rows; reading it (or any scripts, XE files, Query Store exports) yields a
`Capture`, and `capture.json` can also be written whole with `save_capture`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError
from .finding import Finding
from .schema import Database
from .serde import from_dict, to_dict
from .workload import Workload

CAPTURE_FORMAT = "sqlsrv2tidb.capture/2"
READABLE_FORMATS = ("sqlsrv2tidb.capture/1", CAPTURE_FORMAT)
"""/2 added each class's `samples_from`, `call` and ad-hoc values as `@1` parameters; a /1 file reads as one
whose samples were not counted (its first distinct value sets) and whose calls are unknown."""


@dataclass(frozen=True)
class ServerInfo:
    """What the source SQL Server said about itself; `instance` identifies it so replay can refuse it."""

    product_version: str | None = None
    edition: str | None = None
    engine_edition: int | None = None
    collation: str | None = None
    instance: str | None = None
    """`host[,port]/database` of the captured server, never with credentials."""


@dataclass(frozen=True)
class Capture:
    database: Database = field(default_factory=Database)
    workload: Workload = field(default_factory=Workload)
    findings: tuple[Finding, ...] = ()
    sources: tuple[str, ...] = ()
    server: ServerInfo | None = None
    format: str = CAPTURE_FORMAT


def save_capture(capture: Capture, path: Path) -> None:
    """Write `capture.json` through a temporary file, so a failed write never leaves half a capture."""
    from ..outdir import write_text

    write_text(path, json.dumps(to_dict(capture), indent=1, ensure_ascii=False) + "\n")


def load_capture(path: Path) -> Capture:
    """Read a capture written by `save_capture`; a damaged or foreign file is an InputError naming the field."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot read ({getattr(exc, 'strerror', None) or exc})") from None
    return parse_capture(text, path)


def parse_capture(text: str, path: Path | str) -> Capture:
    """The Capture in the text of a `capture.json`; `path` only names the file in errors."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        if is_cut_off(text, exc):
            raise InputError(
                f"{path}: capture JSON is cut off: the file ends at line {text.rstrip().count(chr(10)) + 1} inside "
                "the document (its last field, format, is missing); copy or write it again") from None
        raise InputError(f"{path}: capture JSON is not valid JSON ({exc.msg} at line {exc.lineno}, column "
                         f"{exc.colno})") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: capture JSON holds a {type(data).__name__}, not an object")
    fmt = data.get("format")
    if fmt not in READABLE_FORMATS:
        raise InputError(f"{path}: field format is {fmt!r}, and this version of sqlsrv2tidb reads "
                         f"{' and '.join(READABLE_FORMATS)}; write the capture again with this version (schema SOURCES --json FILE)")
    try:
        return from_dict(Capture, {**data, "format": CAPTURE_FORMAT})
    except ValueError as exc:
        where = str(exc).removeprefix("Capture.").removeprefix("Capture")
        raise InputError(f"{path}: damaged capture: field {where.lstrip(': ')}") from None


_PARTIAL_NUMBER = re.compile(r"-?\d*(\.\d*)?([eE][-+]?\d*)?")


def is_cut_off(text: str, exc: json.JSONDecodeError) -> bool:
    """True if JSON failed only because the text stops before the document does (a truncated copy).

    The cut can fall inside a literal (`fal`, `nu`, `12.`), where the parser stops at the literal's
    start: what is left from there must be the beginning of one, and nothing after it."""
    rest = text[exc.pos:].rstrip()
    if not rest or exc.msg.startswith("Unterminated string"):
        return True
    return any(word.startswith(rest) for word in ("true", "false", "null")) or bool(_PARTIAL_NUMBER.fullmatch(rest))
