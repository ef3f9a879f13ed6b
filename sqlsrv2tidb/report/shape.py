"""Reading JSON whose inner shape may be off (hand-edited files, newer versions): never a traceback.

`inputs` checks the top-level fields; inside them the builders read through these, so a string
where an object was expected shows as nothing rather than stopping the report.
"""

from __future__ import annotations

from typing import Any


def obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def seq(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else []


def objs(value: Any) -> list[dict[str, Any]]:
    """The objects of a list, skipping anything else."""
    return [v for v in seq(value) if isinstance(v, dict)]


def num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None
