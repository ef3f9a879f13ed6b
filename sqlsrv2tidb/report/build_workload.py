"""The workload section: captured rate over time, the busiest query classes, and each class's translation."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..model.workload import parse_time
from . import charts
from . import formatting as fmt
from .links import Anchors, cut_sql, docs_links, query_label
from .rulesinfo import RuleInfo, unknown_rule
from .shape import seq
from .viewmodel import Cell, Count, Fact, Note, QueryView, WindowRow, WorkloadSection

TOP = 15
"""Rows in the "top query classes" tables; the full list below is paginated."""
LISTED_PER_STATUS = 500
"""Classes of each translation status the page lists, the busiest first (and the `TOP` by total time).

A Query Store capture of a busy server holds tens of thousands of classes, ad-hoc workloads more; a
page listing 100,000 of them weighs some 200 MB, more than a browser opens comfortably, and no one
reads it through. So the page shows, per status, the classes that matter most (by executions), with
their notes and findings; assessment.json lists every class, and the page says how many it leaves out."""
STATUS_ORDER = ("unsupported", "review", "rewritten", "translated")


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _executions(q: dict[str, Any]) -> float:
    return _num(q.get("executions")) or 0.0


def listed_query_ids(doc: dict[str, Any]) -> set[str]:
    """The ids of the classes the page lists: the `LISTED_PER_STATUS` busiest of each status, and
    the `TOP` by total time (which the page links to); every class when there are not more."""
    raw = [q for q in seq(doc.get("queries")) if isinstance(q, dict)]
    by_status: dict[str, list[dict[str, Any]]] = {}
    for q in raw:
        by_status.setdefault(str(q.get("status") or ""), []).append(q)
    if all(len(group) <= LISTED_PER_STATUS for group in by_status.values()):
        return {str(q.get("id", "")) for q in raw}
    listed = set()
    for group in by_status.values():
        group.sort(key=lambda q: (-_executions(q), str(q.get("id", ""))))
        listed.update(str(q.get("id", "")) for q in group[:LISTED_PER_STATUS])
    timed = sorted((q for q in raw if _num(q.get("total_duration_us"))),
                   key=lambda q: (-(_num(q.get("total_duration_us")) or 0.0), str(q.get("id", ""))))
    listed.update(str(q.get("id", "")) for q in timed[:TOP])
    return listed


def _rate_cell(rate: float | None) -> Cell:
    return Cell(fmt.qps(rate), fmt.sort_key(rate or 0.0), True)


def _query(q: dict[str, Any], total: float, anchors: Anchors, rules: dict[str, RuleInfo],
           window_names: tuple[str, ...]) -> QueryView:
    qid = str(q.get("id", ""))
    by_window = q.get("qps_by_window") if isinstance(q.get("qps_by_window"), dict) else {}
    executions = _num(q.get("executions")) or 0.0
    rate = _num(q.get("qps"))
    avg_ms = fmt.us_to_ms(_num(q.get("avg_duration_us")))
    total_us = _num(q.get("total_duration_us"))
    source, cut_a = cut_sql(str(q.get("source_sql") or ""))
    target, cut_b = cut_sql(str(q.get("target_sql") or ""))
    notes = []
    for n in seq(q.get("notes")):
        if isinstance(n, dict):
            code = str(n.get("code", ""))
            links = docs_links(rules.get(code) or unknown_rule(code))
            notes.append(Note(code, str(n.get("message", "")), links[0] if links else None))
    description = q.get("description")
    return QueryView(
        id=qid,
        label=anchors.labels.get(qid) or query_label(q),
        description=description if isinstance(description, str) else "",
        anchor=anchors.query(qid),
        kind=str(q.get("kind") or ""),
        status=str(q.get("status") or ""),
        executions=Cell(fmt.number(executions), fmt.sort_key(executions), True),
        share=fmt.percent(executions, total),
        qps=_rate_cell(rate),
        window_qps=tuple(_rate_cell(_num(by_window.get(name))) for name in window_names),
        avg_ms=Cell(fmt.ms(avg_ms), fmt.sort_key(avg_ms if avg_ms is not None else -1.0), True),
        total_s=Cell(fmt.seconds(total_us / 1e6) if total_us is not None else "—",
                     fmt.sort_key(total_us if total_us is not None else -1.0), True),
        source_sql=source,
        target_sql=target or ("(no TiDB statement)" if q.get("status") == "unsupported" else ""),
        truncated=cut_a or cut_b,
        notes=tuple(notes),
        location=anchors.source(q.get("file"), q.get("line")),
    )


def _windows(workload: dict[str, Any]) -> tuple[WindowRow, ...]:
    peak = workload.get("peak_window")
    rows = []
    for w in seq(workload.get("windows")):
        if not isinstance(w, dict):
            continue
        try:
            seconds = (parse_time(w["end"]) - parse_time(w["start"])).total_seconds()
        except (KeyError, ValueError, TypeError):
            seconds = None
        rate = _num(w.get("qps"))
        rows.append(WindowRow(
            name=str(w.get("name", "")), kind=str(w.get("kind") or ""), start=str(w.get("start", "")),
            end=str(w.get("end", "")), duration=fmt.seconds(seconds), qps=Cell(fmt.qps(rate), fmt.sort_key(rate or 0.0), True),
            peak=w.get("name") == peak, description=str(w.get("description") or ""),
        ))
    rows.sort(key=lambda r: (r.start, r.name))
    return tuple(rows)


def build_workload(doc: dict[str, Any], rules: dict[str, RuleInfo], anchors: Anchors) -> WorkloadSection | None:
    workload = doc.get("workload") if isinstance(doc.get("workload"), dict) else None
    raw = [q for q in seq(doc.get("queries")) if isinstance(q, dict)]
    if workload is None and not raw:
        return None
    workload = workload or {}
    total = sum(_num(q.get("executions")) or 0.0 for q in raw)
    peak = workload.get("peak_window")
    window_names = tuple(w.name for w in sorted(_windows(workload), key=lambda w: (not w.peak, w.start, w.name)))
    if not any(isinstance(q.get("qps_by_window"), dict) and q["qps_by_window"] for q in raw):
        window_names = ()  # an older file: only the peak's rate
    unlisted = anchors.unlisted_queries
    shown = [q for q in raw if str(q.get("id", "")) not in unlisted] if unlisted else raw
    views = [_query(q, total, anchors, rules, window_names) for q in shown]  # only the classes the page lists
    by_id = {v.id: (v, q) for v, q in zip(views, shown, strict=True)}
    views.sort(key=lambda v: (-float(v.executions.sort or 0), v.id))
    by_time = sorted(
        (v for v, q in by_id.values() if _num(q.get("total_duration_us"))),
        key=lambda v: (-float(v.total_s.sort), v.id),
    )
    statuses = Counter(str(q.get("status") or "") for q in raw)
    status_rows = tuple(
        Count(s, statuses[s], css=f"st-{s}", share=fmt.percent(statuses[s], len(raw)))
        for s in (*STATUS_ORDER, *sorted(set(statuses) - set(STATUS_ORDER))) if statuses.get(s)
    )
    timeline = [p for p in seq(workload.get("timeline")) if isinstance(p, dict)]
    windows = [w for w in seq(workload.get("windows")) if isinstance(w, dict)]
    facts = []
    if timeline:
        facts.append(Fact("Capture period", f"{timeline[0].get('start')} to {timeline[-1].get('end')}"))
    facts.append(Fact("Query classes", fmt.number(workload.get("query_classes", len(raw)))))
    if workload.get("intervals"):
        facts.append(Fact("Intervals", fmt.number(workload["intervals"])))
    if workload.get("events"):
        facts.append(Fact("Captured events", fmt.number(workload["events"])))
    if total:
        facts.append(Fact("Executions", fmt.number(total)))
    if peak:
        rate = next((w.get("qps") for w in windows if w.get("name") == peak), None)
        facts.append(Fact("Peak window", f"{peak}, {fmt.qps(_num(rate))} queries per second"))
    return WorkloadSection(
        chart=charts.workload_qps(timeline, windows, peak),
        facts=tuple(facts),
        windows=_windows(workload),
        top_by_executions=tuple(views[:TOP]),
        top_by_time=tuple(by_time[:TOP]),
        statuses=status_rows,
        queries=tuple(views),
        queries_total=len(raw),
        listed_per_status=LISTED_PER_STATUS,
        notes=tuple(str(n) for n in seq(workload.get("notes"))),
        window_names=window_names,
        window_headers=tuple(f"QPS, {name}" + (" (peak)" if name == peak else "") for name in window_names),
    )
