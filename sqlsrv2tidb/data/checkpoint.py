"""The checkpoint of a load: per table, the last key whose chunk is safely in the target.

A chunk is recorded only after the target has committed it, and chunks of one table are loaded
in key order, so on a rerun everything in the target after the recorded key belongs to a chunk
that never finished: it is deleted and that chunk is loaded again, so nothing is loaded twice
(`data verify` proves it). A table split into key ranges keeps that per range: each range's
bounds, fixed when it was split, and the last key loaded in it. A table without a key has no such place to resume from: an unfinished
one is emptied and loaded again from its start.

The file is `OUT/data-checkpoint.json`, rewritten whole (through a temporary file) after every
chunk; it is small (one entry per table). Key values are stored with their kinds, so a date
comes back a date: `encode_key` / `decode_key`. The run's settings are stored too, and a rerun
with different ones is refused rather than mixing two loads in one table. With `--create-tables`,
the views the load created are kept too (`views`), so a rerun does not create them again.
"""

from __future__ import annotations

import json
import threading
from base64 import b64decode, b64encode
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from ..errors import InputError, UsageError
from ..outdir import write_json

FORMAT = "sqlsrv2tidb.data-checkpoint/1"
FILE = "data-checkpoint.json"


def encode_key(values: Sequence[Any] | None) -> list[Any] | None:
    """Key values as JSON, each with its kind where JSON has none."""
    if values is None:
        return None
    out: list[Any] = []
    for v in values:
        if v is None or type(v) in (int, str):
            out.append(v)
        elif isinstance(v, bool):
            out.append({"bool": v})
        elif isinstance(v, Decimal):
            out.append({"decimal": format(v, "f")})
        elif isinstance(v, float):
            out.append({"float": repr(v)})
        elif isinstance(v, datetime):
            out.append({"datetime": v.isoformat()})
        elif isinstance(v, date):
            out.append({"date": v.isoformat()})
        elif isinstance(v, timedelta):
            out.append({"time": [v.days, v.seconds, v.microseconds]})
        elif isinstance(v, (bytes, bytearray)):
            out.append({"bytes": b64encode(bytes(v)).decode("ascii")})
        else:
            out.append(str(v))
    return out


def decode_key(values: Sequence[Any] | None) -> tuple[Any, ...] | None:
    if values is None:
        return None
    out: list[Any] = []
    for v in values:
        if not isinstance(v, dict):
            out.append(v)
            continue
        (kind, text), = v.items()
        out.append({"bool": bool, "decimal": Decimal, "float": float, "datetime": datetime.fromisoformat,
                    "date": date.fromisoformat, "time": lambda t: timedelta(*t),
                    "bytes": lambda t: b64decode(t)}[kind](text))
    return tuple(out)


@dataclass
class TableState:
    status: str = "new"
    """new, partial or done."""
    rows: int = 0
    bytes: int = 0
    chunks: int = 0
    rejects: int = 0
    """Rows not in the target: values that do not convert, and rows the target refused."""
    refused: int = 0
    """Of those, the rows the target refused (landing.py)."""
    seconds: float = 0.0
    last_key: list[Any] | None = None
    """The source key of the last loaded row, as SQL Server returned it (encoded)."""
    last_target_key: list[Any] | None = None
    """The same row's key as the target stores it (encoded)."""
    extra: dict[str, Any] = field(default_factory=dict)
    ranges: list[dict[str, Any]] | None = None
    """A table split into key ranges (ranges.py): each range's bounds and its own progress, as above."""


class Checkpoint:
    """The checkpoint file of one OUT folder, shared by the threads loading its tables."""

    def __init__(self, path: Path, run: dict[str, Any], tables: dict[str, TableState] | None = None,
                 views: list[str] | None = None, check_constraints: dict[str, Any] | None = None) -> None:
        self.path, self.run = path, run
        self.tables: dict[str, TableState] = tables or {}
        self.views: list[str] = views or []
        """The target names of the views this load created, in the order it created them."""
        self.check_constraints = check_constraints
        """What became of the CHECK constraints of the tables this load created (constraints.py), kept for a rerun,
        which creates those tables no more."""
        self._lock = threading.Lock()

    @classmethod
    def open(cls, out: Path, run: dict[str, Any], *, restart: bool = False) -> Checkpoint:
        """The checkpoint in OUT for this run: resumed if OUT holds one of the same run, else new."""
        path = Path(out) / FILE
        if restart or not path.is_file():
            return cls(path, run)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise InputError(f"{path}: cannot read the checkpoint ({exc}); delete it to start the load again") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise InputError(f"{path}: not a {FORMAT} file; delete it to start the load again")
        if data.get("run") != run:
            differs = sorted(k for k in set(run) | set(data.get("run") or {}) if run.get(k) != (data.get("run") or {}).get(k))
            raise UsageError(f"{path} is the checkpoint of a different load ({', '.join(differs)} differ); "
                             "rerun with the same options to continue it, or use --restart to start again")
        tables = {name: TableState(**state) for name, state in (data.get("tables") or {}).items()}
        checks = data.get("check_constraints")
        return cls(path, run, tables, [str(v) for v in data.get("views") or []],
                   checks if isinstance(checks, dict) else None)

    def state(self, table: str) -> TableState:
        with self._lock:
            return self.tables.setdefault(table, TableState())

    def update(self, table: str, **changes: Any) -> None:
        """Change a table's entry and write the file before returning."""
        with self._lock:
            state = self.tables.setdefault(table, TableState())
            for key, value in changes.items():
                setattr(state, key, value)
            self._write()

    def view_created(self, view: str) -> None:
        """Record a view this load created and write the file before returning."""
        with self._lock:
            self.views.append(view)
            self._write()

    def checks_created(self, found: dict[str, Any]) -> None:
        """Record what became of the CHECK constraints of the tables this load created, and write the file."""
        with self._lock:
            self.check_constraints = found
            self._write()

    def _write(self) -> None:
        write_json(self.path, {"format": FORMAT, "run": self.run,
                               "tables": {n: vars(s) for n, s in sorted(self.tables.items())}, "views": self.views,
                               "check_constraints": self.check_constraints})

    @property
    def resumed(self) -> bool:
        return any(s.status != "new" for s in self.tables.values())
