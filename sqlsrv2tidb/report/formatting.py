"""How numbers, durations and sizes read in the report: one place, so every table agrees.

The view-model stores display strings and, beside them, a plain sort key, so templates never
format anything and the page's sortable tables order numbers as numbers.
"""

from __future__ import annotations

import math
from typing import Any


def number(value: float | int | None, digits: int = 0) -> str:
    """`12,345` or `12,345.6`; an em dash for missing values."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if digits == 0:
        return f"{round(value):,}"
    return f"{value:,.{digits}f}"


def qps(value: float | None) -> str:
    """Rates: whole numbers from 10 up, one decimal below, two below 1."""
    if value is None:
        return "—"
    if abs(value) >= 10:
        return number(value)
    if abs(value) >= 1:
        return number(value, 1)
    return number(value, 2)


def ms(value: float | None) -> str:
    """Milliseconds with three significant figures (`0.412`, `12.3`, `1,204`)."""
    if value is None:
        return "—"
    if abs(value) >= 100:
        return number(value)
    if abs(value) >= 10:
        return number(value, 1)
    if abs(value) >= 1:
        return number(value, 2)
    return number(value, 3)


def us_to_ms(value: float | None) -> float | None:
    return None if value is None else value / 1000.0


def seconds(value: float | None) -> str:
    """A duration: `45 s`, `12.5 min`, `3.2 h`."""
    if value is None:
        return "—"
    if value < 120:
        return f"{qps(value)} s"
    if value < 7200:
        return f"{value / 60:,.1f} min"
    return f"{value / 3600:,.1f} h"


def percent(part: float | None, whole: float | None, digits: int = 1) -> str:
    if part is None or not whole:
        return "—"
    value = 100.0 * part / whole
    if 0 < abs(value) < 10 ** -digits:
        return f"<{10 ** -digits:.{digits}f}%"  # never print a non-zero share as 0.00%
    return f"{value:.{digits}f}%"


def ratio(value: float | None) -> str:
    """`1.25×`: how many times the reference."""
    if value is None:
        return "—"
    return f"{value:.2f}×"


def size(value: int | float | None) -> str:
    """Bytes in binary units, as DBAs read table sizes."""
    if value is None:
        return "—"
    step = 1024.0
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if abs(value) < step or unit == "TiB":
            return f"{value:,.0f} {unit}" if unit == "B" else f"{value:,.1f} {unit}"
        value /= step
    return f"{value:,.1f} PiB"  # pragma: no cover - the loop returns at TiB


def days(value: float) -> str:
    """Person-days: quarter-day steps read as `0.25`, `1`, `3.5`."""
    text = f"{value:,.2f}".rstrip("0").rstrip(".")
    return text or "0"


def scalar(value: Any) -> str:
    """Any JSON value from a file whose shape we do not own (replay evidence, experiments)."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return number(value)
    if isinstance(value, float):
        return qps(value)
    if isinstance(value, (list, tuple)):
        return ", ".join(scalar(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k}: {scalar(v)}" for k, v in value.items())
    return str(value)


def sort_key(value: Any) -> str:
    """The `data-sort` attribute of a cell: numbers as numbers, everything else as text."""
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, (int, float)):
        return repr(float(value))
    return str(value)
