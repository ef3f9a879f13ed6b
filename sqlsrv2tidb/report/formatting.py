"""How numbers, durations and sizes read in the report: one place, so every table agrees.

The view-model stores display strings and, beside them, a plain sort key, so templates never
format anything and the page's sortable tables order numbers as numbers.
"""

from __future__ import annotations

import math
from typing import Any


def _odd(value: Any) -> str | None:
    """What to show for a value that is not a number: a dash when missing, else its text as written."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return None


def number(value: Any, digits: int = 0) -> str:
    """`12,345` or `12,345.6`; an em dash for missing values."""
    odd = _odd(value)
    if odd is not None:
        return odd
    if digits == 0:
        return f"{round(value):,}"
    return f"{value:,.{digits}f}"


def qps(value: Any) -> str:
    """Rates: whole numbers from 10 up, one decimal below, two below 1."""
    odd = _odd(value)
    if odd is not None:
        return odd
    if abs(value) >= 10:
        return number(value)
    if abs(value) >= 1:
        return number(value, 1)
    return number(value, 2)


def ms(value: Any) -> str:
    """Milliseconds with three significant figures (`0.412`, `12.3`, `1,204`)."""
    odd = _odd(value)
    if odd is not None:
        return odd
    if abs(value) >= 100:
        return number(value)
    if abs(value) >= 10:
        return number(value, 1)
    if abs(value) >= 1:
        return number(value, 2)
    return number(value, 3)


def us_to_ms(value: float | None) -> float | None:
    return None if value is None else value / 1000.0


def seconds(value: Any) -> str:
    """A duration: `45 s`, `12.5 min`, `3.2 h`."""
    odd = _odd(value)
    if odd is not None:
        return odd
    if value < 120:
        return f"{qps(value)} s"
    if value < 7200:
        return f"{value / 60:,.1f} min"
    return f"{value / 3600:,.1f} h"


def percent(part: Any, whole: Any, digits: int = 1) -> str:
    if _odd(part) is not None or _odd(whole) is not None or not whole:
        return "—"
    value = 100.0 * part / whole
    if 0 < abs(value) < 10 ** -digits:
        return f"<{10 ** -digits:.{digits}f}%"  # never print a non-zero share as 0.00%
    return f"{value:.{digits}f}%"


def ratio(value: Any) -> str:
    """`1.25×`: how many times the reference."""
    odd = _odd(value)
    if odd is not None:
        return odd
    return f"{value:.2f}×"


def size(value: Any) -> str:
    """Bytes in binary units, as DBAs read table sizes."""
    odd = _odd(value)
    if odd is not None:
        return odd
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
