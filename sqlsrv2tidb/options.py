"""Options every stage shares: the TiDB version and cluster the plan targets, and override folders.

Version gates (KEY partitioning from 7.0, CHECK constraints from 7.2, global indexes from 8.3, ...)
compare against `Options.tidb_version`, so one option changes every decision consistently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import total_ordering
from pathlib import Path
from typing import Any

from .errors import UsageError


@total_ordering
@dataclass(frozen=True)
class Version:
    major: int
    minor: int = 0
    patch: int = 0

    @classmethod
    def parse(cls, text: str) -> Version:
        """Read `8.5`, `v7.5.0` or `6.6.0-rc.1` (suffixes ignored)."""
        m = re.fullmatch(r"\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:[-+].*)?\s*", str(text))
        if not m:
            raise UsageError(f"not a TiDB version: {text!r} (expected e.g. 8.5 or v7.5.0)")
        return cls(int(m[1]), int(m[2] or 0), int(m[3] or 0))

    def __lt__(self, other: object) -> bool:
        if isinstance(other, str):
            other = Version.parse(other)
        if not isinstance(other, Version):
            return NotImplemented
        return (self.major, self.minor, self.patch) < (other.major, other.minor, other.patch)

    def __ge__(self, other: object) -> bool:
        result = self.__lt__(other)
        return result if result is NotImplemented else not result

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


DEFAULT_TIDB_VERSION = Version(8, 5, 0)


@dataclass(frozen=True)
class Options:
    tidb_version: Version = DEFAULT_TIDB_VERSION
    tikv_nodes: int = 3
    translate_workers: int | None = None
    """Processes that translate a large workload; None: one per core."""
    tidb_nodes: int | None = None
    """None: derived from the workload's peak rate in sizing advice."""
    config: dict[str, Any] = field(default_factory=dict)
    """The per-table/per-type override file (YAML), as loaded; the planner interprets it."""
    config_file: str | None = None
    rules_dir: Path | None = None
    templates_dir: Path | None = None
    skip_rewrites: frozenset[str] = frozenset()
    """Translator rewrites to leave out, by function name (`integer_division`): a testing and
    diagnostic switch that shows what a statement means on TiDB without one rewrite (`compare`
    proves each planted meaning change this way); never needed for a migration."""

    def __post_init__(self) -> None:
        if not isinstance(self.skip_rewrites, frozenset):  # hashable, so a pipeline per set is built once
            object.__setattr__(self, "skip_rewrites", frozenset(self.skip_rewrites))
        if self.tikv_nodes < 1:
            raise UsageError(f"--tikv-nodes must be at least 1, got {self.tikv_nodes}")


def load_config(path: Path | None) -> dict[str, Any]:
    """Read the override file; a missing or malformed file is a usage error naming it."""
    if path is None:
        return {}
    import yaml

    from .errors import InputError

    if not path.is_file():
        raise InputError(f"{path}: no such config file")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise InputError(f"{where}: not valid YAML ({getattr(exc, 'problem', exc)})") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a mapping at the top level")
    return data
