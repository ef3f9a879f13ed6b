"""A capture: the schema and workload read from all the sources a user gave, plus what went wrong reading them.

This is the input of every later stage. A capture folder written by `sqlsrv2tidb capture` stores
the raw catalog rows; reading it (or any scripts, XE files, Query Store exports) yields a
`Capture`, and `capture.json` can also be written whole with `save_capture`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .finding import Finding
from .schema import Database
from .serde import from_dict, to_dict
from .workload import Workload

CAPTURE_FORMAT = "sqlsrv2tidb.capture/1"


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
    path.write_text(json.dumps(to_dict(capture), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def load_capture(path: Path) -> Capture:
    data = json.loads(path.read_text(encoding="utf-8"))
    if data.get("format") != CAPTURE_FORMAT:
        raise ValueError(f"{path}: not a {CAPTURE_FORMAT} file (format {data.get('format')!r})")
    return from_dict(Capture, data)
