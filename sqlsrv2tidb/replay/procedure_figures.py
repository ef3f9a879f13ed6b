"""What replayed procedure calls cost, for replay.json: per class and per procedure called.

Each send of a class that calls procedures is one call (`procedure_calls`); the workers count each
call's T-SQL statements and round trips (`WorkerTotals.calls`). Per call: statements and round trips
(over every call of the run), the target's latency (the measured calls' mean and p99, from the
intended send time like every replayed class), and SQL Server's captured duration of the EXEC.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .resultfile import StepResult
from .selection import Selection


def figures(selection: Selection, step: StepResult, steps: list[StepResult],
            captured_ms: Mapping[str, dict[str, Any] | None]) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """Per class (`per_query[].procedure_call`) and per procedure (`procedures`), what the calls cost."""
    totals: dict[str, list[int]] = {}
    for each in steps:
        for class_id, counts in each.data.totals.calls.items():
            entry = totals.setdefault(class_id, [0, 0, 0, 0])
            for i, count in enumerate(counts):
                entry[i] += count
    per_class: dict[str, dict[str, Any]] = {}
    per_procedure: dict[str, dict[str, Any]] = {}
    for index, chosen in enumerate(selection.chosen):
        if chosen.call is None:
            continue
        calls, statements, trips, failed = totals.get(chosen.query.id, [0, 0, 0, 0])
        cell = step.per_class.get(index)
        latency = cell.latency.summary_ms() if cell is not None else {}
        sql_server = (captured_ms.get(chosen.query.id) or {}).get("avg")
        row = {"procedures": list(chosen.call.procedures), "calls": calls,
               "statements_per_call": round(statements / calls, 2) if calls else None,
               "round_trips_per_call": round(trips / calls, 2) if calls else None,
               "failed_calls": failed, "target_ms_per_call": latency.get("mean"), "target_p99_ms": latency.get("p99"),
               "sql_server_ms_per_call": sql_server, "writes": bool(chosen.call.writes)}
        per_class[chosen.query.id] = {"procedure_call": row, "target_sql": chosen.call.plan.target_sql()}
        name = ", ".join(chosen.call.procedures)
        entry = per_procedure.setdefault(name, {"procedure": name, "classes": [], "calls": 0, "statements": 0,
                                                "round_trips": 0, "failed_calls": 0, "_target": [], "_server": []})
        entry["classes"].append(chosen.query.id)
        entry["calls"] += calls
        entry["statements"] += statements
        entry["round_trips"] += trips
        entry["failed_calls"] += failed
        if latency.get("mean") is not None and calls:
            entry["_target"].append((latency["mean"], calls))
        if sql_server is not None and calls:
            entry["_server"].append((sql_server, calls))
    out = []
    for entry in per_procedure.values():
        calls = entry["calls"]
        out.append({"procedure": entry["procedure"], "classes": entry["classes"], "calls": calls,
                    "statements_per_call": round(entry["statements"] / calls, 2) if calls else None,
                    "round_trips_per_call": round(entry["round_trips"] / calls, 2) if calls else None,
                    "target_ms_per_call": _weighted(entry["_target"]),
                    "sql_server_ms_per_call": _weighted(entry["_server"]),
                    "failed_calls": entry["failed_calls"]})
    return per_class, sorted(out, key=lambda e: e["procedure"].casefold())


def _weighted(pairs: list[tuple[float, int]]) -> float | None:
    total = sum(n for _, n in pairs)
    return round(sum(v * n for v, n in pairs) / total, 3) if total else None

