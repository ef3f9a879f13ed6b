"""Reading what a run left in OUT: the files `sqlsrv2tidb report OUT` renders from.

`assessment.json` is required; `replay.json`, `experiment.json`, `data.json`, `compare.json` and `ddl/*.sql` are
used when present. A file that is not ours, or not valid JSON, stops the command with one line naming it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import InputError

ASSESSMENT_FORMAT = "sqlsrv2tidb.assessment/1"
REPLAY_FORMAT = "sqlsrv2tidb.replay/1"
EXPERIMENT_PREFIX = "sqlsrv2tidb.experiment/"
DATA_FORMAT = "sqlsrv2tidb.data/1"
COMPARE_FORMAT = "sqlsrv2tidb.compare/1"


@dataclass
class ReportInputs:
    """The documents of one OUT folder, as plain JSON values (the report owns none of their shapes)."""

    assessment: dict[str, Any]
    replay: dict[str, Any] | None = None
    experiment: dict[str, Any] | None = None
    data: dict[str, Any] | None = None
    """data.json of `data copy`, `data synthesize` or `data verify` into the same OUT."""
    compare: dict[str, Any] | None = None
    """compare.json of `compare` into the same OUT: each read class's answers on SQL Server and the target."""
    ddl: list[tuple[str, str]] = field(default_factory=list)
    """`(file name, content)` of `ddl/*.sql`, in apply (name) order."""


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise InputError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected a JSON object at the top level")
    return data


def _check_format(path: Path, data: dict[str, Any], expected: str, prefix: bool = False) -> None:
    found = data.get("format")
    ok = isinstance(found, str) and (found.startswith(expected) if prefix else found == expected)
    if not ok:
        raise InputError(f"{path}: not a {expected}{'*' if prefix else ''} file (format {found!r})")


_LISTS_OF_OBJECTS = {"tables", "findings", "queries", "ddl_files", "per_query", "timeline", "variants"}
_OBJECTS = {"source", "options", "workload", "summary", "deployment", "plan_settings", "latency_ms", "config"}


def _check_shape(path: Path, data: dict[str, Any]) -> None:
    """The top-level fields the report walks must have the shape the format gives them."""
    for key, value in data.items():
        if value is None:
            continue
        if key in _LISTS_OF_OBJECTS:
            if not isinstance(value, list):
                raise InputError(f"{path}: {key} must be a list, got {type(value).__name__}")
            for i, item in enumerate(value):
                if not isinstance(item, dict):
                    raise InputError(f"{path}: {key}[{i}] must be an object, got {type(item).__name__}")
        elif key in _OBJECTS and not isinstance(value, dict):
            raise InputError(f"{path}: {key} must be an object, got {type(value).__name__}")


_STAGE_FILES = (("replay.json", "replay", REPLAY_FORMAT, False), ("experiment.json", "experiment", EXPERIMENT_PREFIX, True),
                ("data.json", "data", DATA_FORMAT, False), ("compare.json", "compare", COMPARE_FORMAT, False))
"""The later stages' files in OUT: the file, its field of ReportInputs, its format (or format prefix)."""


def load_inputs(out: Path) -> ReportInputs:
    out = Path(out)
    if not out.is_dir():
        raise InputError(f"{out}: no such folder (give the -o folder of assess, ddl, translate or replay)")
    path = out / "assessment.json"
    if not path.is_file():
        raise InputError(f"{path}: missing; run `sqlsrv2tidb assess SOURCES -o {out}` first")
    assessment = _read_json(path)
    _check_format(path, assessment, ASSESSMENT_FORMAT)
    _check_shape(path, assessment)
    inputs = ReportInputs(assessment=assessment)
    for name, attribute, expected, prefix in _STAGE_FILES:
        stage_path = out / name
        if stage_path.is_file():  # each stage's file is read when that stage ran
            document = _read_json(stage_path)
            _check_format(stage_path, document, expected, prefix=prefix)
            _check_shape(stage_path, document)
            setattr(inputs, attribute, document)
    ddl_dir = out / "ddl"
    if ddl_dir.is_dir():
        for sql in sorted(ddl_dir.glob("*.sql")):
            try:
                inputs.ddl.append((sql.name, sql.read_text(encoding="utf-8")))
            except (UnicodeDecodeError, OSError) as exc:
                raise InputError(f"{sql}: cannot read as UTF-8 text ({exc})") from None
    return inputs
