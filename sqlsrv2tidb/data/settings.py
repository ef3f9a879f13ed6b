"""What a data run is told to do, checked once before anything connects.

Writing is always confirmed: `--confirm-database NAME` must name the target URL's own database,
so a slip of the URL cannot load rows into the wrong place (as replay's `--allow-writes`).
"""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass

from ..errors import Refused, UsageError
from ..target import Target


@dataclass(frozen=True)
class Sample:
    """`--sample 10%` (a share of every table's rows) or `--sample 500` (at most that many per table)."""

    percent: float | None = None
    rows: int | None = None

    @classmethod
    def parse(cls, text: str) -> Sample:
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(%?)\s*", text)
        if not m:
            raise UsageError(f"--sample must be PERCENT% or ROWS (e.g. 10% or 5000), got {text!r}")
        value = float(m[1])
        if m[2]:
            if not 0 < value <= 100:
                raise UsageError(f"--sample {text}: a percentage must be more than 0 and at most 100")
            return cls(percent=value)
        if value < 1 or value != int(value):
            raise UsageError(f"--sample {text}: a row count must be a whole number of at least 1")
        return cls(rows=int(value))

    def __str__(self) -> str:
        return f"{self.percent:g}%" if self.percent is not None else f"{self.rows} rows per table"


@dataclass(frozen=True)
class DataSettings:
    jobs: int = 4
    chunk_rows: int = 10_000
    split_rows: int = 200_000
    """`data copy`: a keyed table of at least twice this many rows is cut into up to `jobs` key ranges of at
    least this many rows each, copied by processes of their own (ranges.py); 0 never splits."""
    confirm_database: str | None = None
    sample: Sample | None = None
    scale: float = 1.0
    seed: int = 1
    tables: tuple[str, ...] = ()
    """Patterns of `schema.table` (fnmatch, case-insensitive); empty means every table."""
    truncate: bool = False
    restart: bool = False
    create_tables: bool = False
    verify: bool = True
    driver: str = "auto"
    retries: int = 3

    def __post_init__(self) -> None:
        if self.jobs < 1:
            raise UsageError("--jobs must be at least 1")
        if self.chunk_rows < 1:
            raise UsageError("--chunk-rows must be at least 1")
        if self.split_rows < 0:
            raise UsageError("--split-rows must be 0 (never split) or more")
        if self.scale <= 0:
            raise UsageError("--scale must be more than 0")

    def wants(self, schema: str, name: str) -> bool:
        if not self.tables:
            return True
        full = f"{schema}.{name}".casefold()
        return any(fnmatch.fnmatchcase(full, p.casefold()) or fnmatch.fnmatchcase(name.casefold(), p.casefold())
                   for p in self.tables)


def check_confirmed(target: Target, settings: DataSettings) -> None:
    """Refuse to write unless `--confirm-database` names the target's database."""
    if settings.confirm_database is None:
        raise Refused(f"writing rows needs --confirm-database {target.database} (the target's database, "
                      f"{target.display}); nothing was written")
    if settings.confirm_database != target.database:
        raise Refused(f"--confirm-database {settings.confirm_database!r} does not name the target's database "
                      f"{target.database!r} ({target.display}); nothing was written")
