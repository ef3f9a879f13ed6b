"""Every procedure of a schema as the runner sees it, for assessment.json and the report's procedures section.

Per procedure: whether the runner runs it on the target as it stands, or what stops it (each
construct with its file and line); the T-SQL statements of its body and the TiDB statements it can
send (every branch once: a round trip each when it runs); what it changes outside the session; the
procedures it calls; and how often the captured workload called it. The measured cost per call
(statements and round trips per call, latency beside SQL Server's) comes from a replay
(replay.json's `procedures`).
"""

from __future__ import annotations

from typing import Any

from ..model import Database, Workload
from ..options import Options
from .catalog import procedures_of
from .workload import captured_calls


def procedure_rows(database: Database, options: Options | None = None, workload: Workload | None = None) -> list[dict[str, Any]]:
    """assessment.json's `procedures`: one entry per procedure, by name."""
    catalog = procedures_of(database, options)
    called: dict[str, list[str]] = {}
    if workload is not None and any(q.kind == "exec" for q in workload.queries):
        for query_id, call in captured_calls(workload, catalog).items():
            for name in call.procedures:
                called.setdefault(name.casefold(), []).append(query_id)
    rows = []
    for summary in catalog.summaries():
        program = summary.program
        module = catalog.module(summary.name)
        rows.append({
            "name": summary.name,
            "runs": summary.runs,
            "status": summary.status,
            "stops": summary.stops() or None,
            "blockers": [{"construct": b.construct, "where": program.where(b.line), "message": b.message}
                         for b in summary.blockers],
            "lines": module.line_count if module is not None else 0,
            "statements": summary.statements,
            "target_statements": summary.sent,
            "writes": list(summary.writes),
            "calls": list(summary.calls),
            "transactions": summary.transactions,
            "notes": sorted({n.code for n in summary.notes}),
            "query_classes": called.get(summary.name.casefold(), []),
            "administration": ({"kind": summary.administration.kind, "instead": summary.administration.instead}
                               if summary.administration is not None else None),
        })
    return rows


def trigger_rows(database: Database, options: Options | None = None) -> list[dict[str, Any]]:
    """assessment.json's `triggers`: each DML trigger, what it does, and whether the runner runs it after the
    statements that fire it (TiDB has none: the application must)."""
    catalog = procedures_of(database, options)
    rows = []
    for trigger in catalog.all_triggers():
        blockers = trigger.blockers
        rows.append({
            "name": trigger.name,
            "table": trigger.table,
            "timing": trigger.timing,
            "actions": sorted(trigger.actions),
            "runs": trigger.runs,
            "does": trigger.what_it_does(),
            "stops": (f"{blockers[0].construct} at {trigger.program.where(blockers[0].line)}: {blockers[0].message}"
                      if blockers else None),
            "writes": list(trigger.program.writes),
            "statements": trigger.program.statements,
            "target_statements": trigger.program.sent,
        })
    return rows
