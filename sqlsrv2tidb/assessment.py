"""`assessment.json`: the versioned document other tools (and `sqlsrv2tidb report`) read.

Each command writes the parts it computed (`ddl` the tables and findings, `translate` the
queries, `assess` everything). The shape is the contract in DESIGN.md; change it only with a
format bump.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from . import __version__
from .model import Capture, Finding, Severity, to_dict
from .model.plan import MigrationPlan
from .model.translation import STATUSES, Translation
from .options import Options
from .workload_durations import CapturedDuration, captured_durations
from .workload_rates import class_rates, executions_in, peak_window

ASSESSMENT_FORMAT = "sqlsrv2tidb.assessment/1"


@dataclass(frozen=True)
class Parts:
    """The stage results an assessment is built from; any of them may be missing."""

    capture: Capture
    options: Options
    plan: MigrationPlan | None = None
    translation: Translation | None = None
    findings: tuple[Finding, ...] = ()
    deployment: dict[str, Any] | None = None


def sort_findings(findings: tuple[Finding, ...] | list[Finding]) -> list[Finding]:
    """Most severe first, then by rule, file, line and object, so files diff cleanly between runs."""
    return sorted(
        findings,
        key=lambda f: (-f.severity.rank, f.rule, f.file or "", f.line or 0, f.object, f.message),
    )


def build_assessment(parts: Parts) -> dict[str, Any]:
    capture, options = parts.capture, parts.options
    workload = capture.workload
    findings = sort_findings(parts.findings)
    doc: dict[str, Any] = {
        "format": ASSESSMENT_FORMAT,
        "tool_version": __version__,
        "source": {
            "sources": list(capture.sources),
            "database": capture.database.name,
            "server": to_dict(capture.server) if capture.server else None,
        },
        "options": {
            "tidb_version": str(options.tidb_version),
            "tikv_nodes": options.tikv_nodes,
            "tidb_nodes": options.tidb_nodes,
            "config_file": options.config_file,
        },
    }
    if options.mysql:  # the engine and version assessed, when not TiDB's (a TiDB document stays as it was)
        doc["options"].update({"target_engine": options.target_engine, "mysql_version": str(options.mysql_version),
                               "assessed_for": options.target_label})
    if parts.plan is not None:
        doc["tables"] = [to_dict(t) for t in parts.plan.tables]
        doc["ddl_files"] = [{"name": f.name, "title": f.title, "statements": f.statements} for f in parts.plan.files]
        doc["plan_settings"] = parts.plan.settings
    doc["findings"] = [_finding(f) for f in findings]
    if not workload.is_empty:
        doc["workload"] = _workload(capture)
    if parts.translation is not None:
        doc["queries"] = _queries(capture, parts.translation)
    if parts.deployment is not None:
        doc["deployment"] = parts.deployment
    if capture.database.modules_of("procedure"):
        from .procedures.inventory import procedure_rows

        doc["procedures"] = procedure_rows(capture.database, options, workload)
    if capture.database.modules_of("trigger"):
        from .procedures.inventory import trigger_rows

        doc["triggers"] = trigger_rows(capture.database, options)
    doc["summary"] = _summary(capture, parts, findings)
    return doc


def _finding(f: Finding) -> dict[str, Any]:
    out = {
        "rule": f.rule,
        "severity": f.severity.value,
        "object": f.object,
        "message": f.message,
        "file": f.file,
        "line": f.line,
    }
    if f.details:
        out["details"] = f.details
    return out


def _workload(capture: Capture) -> dict[str, Any]:
    from .workload_rates import timeline, total_rate

    w = capture.workload
    peak = peak_window(w)
    return {
        "query_classes": len(w.queries),
        "intervals": len(w.intervals),
        "events": len(w.events),
        "windows": [
            {**to_dict(win), "qps": round(total_rate(w, win), 3)} for win in w.windows
        ],
        "peak_window": peak.name if peak else None,
        "timeline": [{"start": s, "end": e, "qps": round(q, 3)} for s, e, q in timeline(w)],
        "notes": list(w.notes),
    }


def _queries(capture: Capture, translation: Translation) -> list[dict[str, Any]]:
    w = capture.workload
    totals = executions_in(w, None)
    peak = peak_window(w)
    peak_rates = class_rates(w, peak) if peak else {}
    per_window = {win.name: class_rates(w, win) for win in w.windows}
    durations = captured_durations(w)
    out = []
    for q in translation.queries:
        cls = w.query(q.id)
        d = durations.get(q.id) or CapturedDuration()
        out.append({
            "id": q.id,
            "name": cls.name if cls else None,
            "description": cls.description if cls else None,
            "fingerprint": q.fingerprint,
            "kind": q.kind,
            "source_sql": q.source_sql,
            "target_sql": q.target_sql,
            "status": q.status,
            "notes": [to_dict(n) for n in q.notes],
            "parameters": list(q.parameters),
            "executions": int(round(totals.get(q.id, 0))),
            "qps": round(peak_rates.get(q.id, 0.0), 4),
            "qps_by_window": {name: round(r.get(q.id, 0.0), 4) for name, r in per_window.items()},
            "avg_duration_us": _us(d.avg_us),
            "p95_duration_us": _us(d.percentile_us(95)),
            "total_duration_us": round(d.total_us, 1) if d.executions else None,
            "origin": cls.origin if cls else None,
            "file": cls.source.file if cls else None,
            "line": cls.source.line if cls else None,
        })
    out.sort(key=lambda q: (-q["executions"], q["id"]))
    return out


def _us(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _summary(capture: Capture, parts: Parts, findings: list[Finding]) -> dict[str, Any]:
    db = capture.database
    by_severity = Counter(f.severity.value for f in findings)
    summary: dict[str, Any] = {
        "tables": len(db.tables),
        "views": len(db.modules_of("view")),
        "procedures": len(db.modules_of("procedure")),
        "functions": len(db.modules_of("function")),
        "triggers": len(db.modules_of("trigger")) + len(db.modules_of("ddl_trigger")),
        "sequences": len(db.sequences),
        "query_classes": len(capture.workload.queries),
        "findings_by_severity": {s.value: by_severity.get(s.value, 0) for s in Severity},
        "blockers": by_severity.get(Severity.BLOCKER.value, 0),
    }
    if parts.translation is not None:
        statuses = Counter(q.status for q in parts.translation.queries)
        summary["queries_by_status"] = {s: statuses.get(s, 0) for s in STATUSES}
    if parts.plan is not None:
        strategies = Counter(t.distribution.strategy for t in parts.plan.tables)
        summary["distribution"] = dict(sorted(strategies.items()))
    return summary
