"""The report's charts, drawn with matplotlib and inlined as SVG so the page needs no network.

Text stays text (`svg.fonttype = none`): it is searchable, prints sharply and is escaped by
matplotlib's SVG writer. Element ids are salted with a constant and the date is left out, so the
same data always gives the same bytes (gold-file tests, diffable reports).
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")  # never open a window, whatever the user's environment says

from matplotlib.dates import AutoDateLocator, ConciseDateFormatter  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from ..model.workload import parse_time  # noqa: E402

_RC = {
    "svg.fonttype": "none",
    "svg.hashsalt": "sqlsrv2tidb-report",
    "font.size": 9,
    "font.sans-serif": ["DejaVu Sans", "Arial", "Helvetica"],
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
}
TARGET, ACHIEVED, WINDOW, PEAK, ERROR = "#6b7280", "#2563eb", "#f59e0b", "#dc2626", "#dc2626"
_PROLOG = re.compile(r"^.*?(?=<svg)", re.S)


def _svg(fig: Figure, title: str) -> str:
    buf = io.StringIO()
    with matplotlib.rc_context(_RC):
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    text = _PROLOG.sub("", buf.getvalue(), count=1)
    if re.search(r"<\s*script|\son\w+\s*=", text, re.I):  # matplotlib escapes text; this guards the guarantee
        raise ValueError("chart SVG contains active content")
    label = title.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    return text.replace("<svg ", f'<svg role="img" aria-label="{label}" ', 1)


def _figure(width: float = 9.0, height: float = 3.0) -> Figure:
    with matplotlib.rc_context(_RC):
        fig = Figure(figsize=(width, height), layout="constrained")
        fig.add_subplot()
    return fig


def workload_qps(timeline: Sequence[dict[str, Any]], windows: Sequence[dict[str, Any]], peak: str | None) -> str | None:
    """Total captured QPS per interval, as a step line, with the named windows shaded."""
    points = []
    for p in timeline:
        try:
            points.append((parse_time(p["start"]), parse_time(p["end"]), float(p["qps"])))
        except (KeyError, TypeError, ValueError, AttributeError):
            continue  # an interval the file does not describe properly is left out of the chart, not fatal
    points.sort(key=lambda p: p[0])
    if not points:
        return None
    with matplotlib.rc_context(_RC):
        fig = _figure()
        ax = fig.axes[0]
        xs, ys = [], []
        for i, (start, end, qps) in enumerate(points):
            if i and start > points[i - 1][1]:  # nothing captured in between: break the line, do not invent a rate
                xs.append(points[i - 1][1])
                ys.append(float("nan"))
            xs += [start, end]
            ys += [qps, qps]
        ax.plot(xs, ys, color=ACHIEVED, linewidth=1.2, label="captured QPS")
        top = max(p[2] for p in points) or 1.0
        for win in windows:
            try:
                start, end = parse_time(win["start"]), parse_time(win["end"])
            except (KeyError, ValueError, TypeError, AttributeError):
                continue
            is_peak = win.get("name") == peak
            ax.axvspan(start, end, color=PEAK if is_peak else WINDOW, alpha=0.15, linewidth=0)
            ax.text(start, top * 1.02, f"{win.get('name', '')}{' (peak)' if is_peak else ''}", fontsize=8,
                    color=PEAK if is_peak else "#92400e", va="bottom", clip_on=False)
        ax.set_ylim(0, top * 1.15)
        ax.set_ylabel("queries per second")
        ax.set_xlabel("time (UTC)")  # capture times are stored and drawn in UTC, whatever the server's zone was
        locator = AutoDateLocator()
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(ConciseDateFormatter(locator))
        return _svg(fig, "Captured queries per second over the capture period, named windows shaded")


def _series(points: Sequence[dict[str, Any]], *keys: str) -> list[float | None]:
    out: list[float | None] = []
    for p in points:
        value = next((p[k] for k in keys if isinstance(p.get(k), (int, float))), None)
        out.append(float(value) if value is not None else None)
    return out


def replay_timeline(timeline: Sequence[dict[str, Any]]) -> str | None:
    """Target against achieved rate, second by second (or per reporting step) of the replay."""
    if not timeline:
        return None
    xs = _series(timeline, "t", "second", "elapsed_s", "offset_s", "time_s")
    if any(x is None for x in xs):
        xs = [float(i) for i in range(len(timeline))]
    target = _series(timeline, "target_qps", "target")
    achieved = _series(timeline, "achieved_qps", "achieved", "qps")
    errors = _series(timeline, "errors", "error_qps")
    if all(a is None for a in achieved):
        return None
    with matplotlib.rc_context(_RC):
        fig = _figure()
        ax = fig.axes[0]
        if any(t is not None for t in target):
            ax.plot(xs, [t if t is not None else float("nan") for t in target], color=TARGET, linestyle="--",
                    linewidth=1.2, label="target")
        ax.plot(xs, [a if a is not None else float("nan") for a in achieved], color=ACHIEVED, linewidth=1.4,
                label="achieved")
        if any(e for e in errors if e):
            ax.plot(xs, [e or 0.0 for e in errors], color=ERROR, linewidth=1.0, label="errors")
        warm = [x for x, p in zip(xs, timeline, strict=True) if p.get("warmup") is True]
        if warm:
            ax.axvspan(min(warm), max(warm) + 1, color=TARGET, alpha=0.12, linewidth=0, label="warm-up (not measured)")
        ax.set_xlabel("seconds since the replay started")
        ax.set_ylabel("queries per second")
        ax.set_ylim(bottom=0)
        ax.legend(loc="lower right", frameon=False)
        return _svg(fig, "Target and achieved queries per second during the replay")


def ramp(steps: Sequence[dict[str, Any]], ceiling: float | None) -> str | None:
    """Achieved against offered rate at each ramp step; the ceiling is where they part."""
    target = _series(steps, "target_qps", "target", "offered_qps")
    achieved = _series(steps, "achieved_qps", "achieved", "qps")
    pairs = [(t, a) for t, a in zip(target, achieved, strict=False) if t is not None and a is not None]
    if not pairs:
        return None
    with matplotlib.rc_context(_RC):
        fig = _figure(6.0, 3.2)
        ax = fig.axes[0]
        ts, as_ = zip(*pairs, strict=True)
        ax.plot(ts, ts, color=TARGET, linestyle="--", linewidth=1.0, label="target = achieved")
        ax.plot(ts, as_, color=ACHIEVED, marker="o", linewidth=1.4, label="achieved")
        if ceiling:
            ax.axhline(ceiling, color=PEAK, linewidth=1.0, label=f"ceiling {ceiling:,.0f} QPS")
        ax.set_xlabel("target queries per second")
        ax.set_ylabel("achieved queries per second")
        ax.legend(loc="upper left", frameon=False)
        return _svg(fig, "Achieved against target rate at each ramp step")


def bars(labels: Sequence[str], values: Sequence[float], xlabel: str, title: str) -> str | None:
    """One horizontal bar per label (experiment designs, latency by class)."""
    if not labels:
        return None
    with matplotlib.rc_context(_RC):
        fig = _figure(7.0, 0.45 * len(labels) + 0.8)
        ax = fig.axes[0]
        positions = list(range(len(labels)))
        ax.barh(positions, values, color=ACHIEVED)
        ax.set_yticks(positions, labels=list(labels))
        ax.invert_yaxis()
        ax.set_xlabel(xlabel)
        ax.grid(axis="y", visible=False)
        return _svg(fig, title)
