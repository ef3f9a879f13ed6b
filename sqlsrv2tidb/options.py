"""Options every stage shares: the engine and version the plan targets, the cluster, and override folders.

The target is TiDB unless `target_engine` says MySQL. Version gates compare against that engine's
version (`Options.version`): TiDB's (KEY partitioning from 7.0, CHECK constraints from 7.2, global
indexes from 8.3, ...) or MySQL's (CHECK enforced from 8.0.16, functional key parts from 8.0.13), so
one option changes every decision consistently.
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
    series: bool = field(default=False, compare=False)
    """Named as a series (`8.0`): its newest release, whatever its patch (`release_of`)."""

    @classmethod
    def parse(cls, text: str) -> Version:
        """Read `8.5`, `v7.5.0` or `6.6.0-rc.1` (suffixes ignored)."""
        m = re.fullmatch(r"\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:[-+].*)?\s*", str(text))
        if not m:
            raise UsageError(f"not a version: {text!r} (expected e.g. 8.5 or v7.5.0)")
        return cls(int(m[1]), int(m[2] or 0), int(m[3] or 0))

    @classmethod
    def release_of(cls, text: str) -> Version:
        """A version as a user names the release they run: `8.0` is the 8.0 series as released today (its
        newest patch, which has what any 8.0.x added: CHECK enforced since 8.0.16, expression defaults since
        8.0.13), not 8.0.0; `8.0.36` is that release. Written back as given (`8.0`)."""
        version = cls.parse(text)
        if re.fullmatch(r"\s*v?\d+(\.\d+)?\s*", str(text)):
            return cls(version.major, version.minor, SERIES_PATCH, series=True)
        return version

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
        if self.series:
            return f"{self.major}.{self.minor}"
        return f"{self.major}.{self.minor}.{self.patch}"


SERIES_PATCH = 10_000
"""The patch a series named without one (`8.0`) compares as: above any release of it (`release_of`)."""


DEFAULT_TIDB_VERSION = Version(8, 5, 0)
DEFAULT_MYSQL_VERSION = Version(8, 4, SERIES_PATCH, series=True)
"""MySQL's long-term support release; `--mysql-version` names another (8.0, 9.7, ...)."""
OLDEST_MYSQL = Version(8, 0, 0)
"""MySQL 5.7 reached its end of life in October 2023; the plan writes for 8.0 and later."""
ENGINES = ("tidb", "mysql")
"""The target engines a plan and a translation are written for (`--target-engine`)."""
ENGINE_NAMES = {"tidb": "TiDB", "mysql": "MySQL"}


@dataclass(frozen=True)
class Options:
    tidb_version: Version = DEFAULT_TIDB_VERSION
    target_engine: str = "tidb"
    """`tidb` or `mysql`: what the DDL, the translation and the rules are written for."""
    mysql_version: Version = DEFAULT_MYSQL_VERSION
    """The MySQL version a `mysql` target runs (ignored for TiDB)."""
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
    named_versions: frozenset[str] = frozenset()
    """The engines whose version the user named (`--tidb-version`, `--mysql-version`). A stage given a
    `--target` plans for the version that server reports (`replay/target_engine.py`) unless its engine's
    version is named here."""
    skip_rewrites: frozenset[str] = frozenset()
    """Translator rewrites to leave out, by function name (`integer_division`): a testing and
    diagnostic switch that shows what a statement means on TiDB without one rewrite (`compare`
    proves each planted meaning change this way); never needed for a migration."""

    def __post_init__(self) -> None:
        if not isinstance(self.skip_rewrites, frozenset):  # hashable, so a pipeline per set is built once
            object.__setattr__(self, "skip_rewrites", frozenset(self.skip_rewrites))
        if not isinstance(self.named_versions, frozenset):
            object.__setattr__(self, "named_versions", frozenset(self.named_versions))
        if self.tikv_nodes < 1:
            raise UsageError(f"--tikv-nodes must be at least 1, got {self.tikv_nodes}")
        if self.target_engine not in ENGINES:
            raise UsageError(f"--target-engine must be one of {', '.join(ENGINES)}, got {self.target_engine!r}")
        if self.target_engine == "mysql" and self.mysql_version < OLDEST_MYSQL:
            raise UsageError(f"--mysql-version {self.mysql_version}: MySQL before 8.0 is past its end of life; "
                             "give 8.0 or later")

    @property
    def mysql(self) -> bool:
        """Whether the target is MySQL rather than TiDB."""
        return self.target_engine == "mysql"

    @property
    def version(self) -> Version:
        """The target engine's version: what version-gated decisions and rules compare against."""
        return self.mysql_version if self.mysql else self.tidb_version

    @property
    def engine_name(self) -> str:
        """`TiDB` or `MySQL`, as messages and file headers name the target."""
        return ENGINE_NAMES[self.target_engine]

    @property
    def target_label(self) -> str:
        """The engine and version, as the report and the DDL headers name them (`MySQL 8.4.0`)."""
        return f"{self.engine_name} {self.version}"


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
