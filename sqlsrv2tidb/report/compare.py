"""Replay latency against SQL Server's captured durations, one verdict per query class.

Classes are sorted into improved, unchanged, degraded, errors and not comparable. The captured
figure is SQL Server's average elapsed time (Query Store `avg_duration`, Extended Events
`duration`) in the replayed window when the replay file has it, else over the whole capture:
time measured inside the server. So the target's figure is its own server-side mean too where the
replay read one (`server_ms`: TiDB's statements summary, MySQL's performance_schema), as DEA
compares server time with server time; else the class's mean latency measured at the client (its
median when the replay file has no mean), which includes the network round trip and the driver
that SQL Server's figure leaves out, and the verdict says so. A class counts as degraded only
beyond the threshold.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from . import formatting as fmt
from .shape import obj

THRESHOLD = 0.25
"""Degraded when the target is more than 25% slower; improved when SQL Server was 25% slower."""
MIN_EXECUTIONS = 20
"""Fewer executions than this, on either side, make a class not comparable."""
CATEGORIES = ("degraded", "errors", "improved", "unchanged", "not comparable")


@dataclass(frozen=True)
class ClassResult:
    id: str
    kind: str
    status: str
    statements: int
    errors: int
    p50: str
    p95: str
    p99: str
    target_ms: float | None
    captured_ms: float | None
    captured_executions: int
    ratio: float | None
    category: str
    why: str
    basis: str = "client"
    """`server`: the target's server-side time against SQL Server's; `client`: the latency measured at the client."""


def replay_statements(item: dict[str, Any]) -> int:
    for key in ("statements", "executions", "count", "sent"):
        value = item.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return int(value)
    return 0


def latency(item: dict[str, Any]) -> dict[str, Any]:
    lat = item.get("latency_ms")
    return lat if isinstance(lat, dict) else {}


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def target_latency(item: dict[str, Any]) -> tuple[float | None, str, str]:
    """(the target's figure, which statistic, `server` or `client`): server-side where the replay read it."""
    server = item.get("server_ms")
    mean = _number(server.get("mean")) if isinstance(server, dict) else None
    if mean is not None:
        return mean, "server-side mean", "server"
    lat = latency(item)
    mean = _number(lat.get("mean", item.get("mean_ms")))
    if mean is not None:
        return mean, "mean at the client", "client"
    return _number(lat.get("p50")), "median at the client", "client"


def classify(queries: list[dict[str, Any]], per_query: list[dict[str, Any]]) -> list[ClassResult]:
    by_id = {q.get("id"): q for q in queries}
    out: list[ClassResult] = []
    for item in per_query:
        qid = str(item.get("id") or item.get("query_id") or "?")
        q = by_id.get(qid, {})
        n = replay_statements(item)
        errors = int(_number(item.get("errors")) or 0)
        target_ms, stat, basis = target_latency(item)
        window_figure = item.get("captured_duration_ms")  # SQL Server's figure for the replayed window, when replay has it
        cap_ms = _number(window_figure.get("avg")) if isinstance(window_figure, dict) else None
        cap_p95 = _number(window_figure.get("p95")) if isinstance(window_figure, dict) else None
        if cap_ms is None:
            cap_ms = fmt.us_to_ms(_number(q.get("avg_duration_us")))
        cap_n = int(_number(q.get("executions")) or 0)
        ratio = target_ms / cap_ms if target_ms is not None and cap_ms else None
        if errors:
            category, why = "errors", f"{fmt.number(errors)} failed statements ({fmt.number(n)} sent)"
        elif cap_ms is None:
            category, why = "not comparable", "no captured duration on SQL Server"
        elif target_ms is None:
            category, why = "not comparable", "no latency measured on the target"
        elif n < MIN_EXECUTIONS or cap_n < MIN_EXECUTIONS:
            category, why = "not comparable", f"fewer than {MIN_EXECUTIONS} executions (target {n}, captured {cap_n})"
        elif ratio is not None and ratio > 1 + THRESHOLD:
            category, why = "degraded", f"{stat} {fmt.ms(target_ms)} ms vs {fmt.ms(cap_ms)} ms"
        elif ratio is not None and ratio < 1 / (1 + THRESHOLD):
            category, why = "improved", f"{stat} {fmt.ms(target_ms)} ms vs {fmt.ms(cap_ms)} ms"
        else:
            category, why = "unchanged", f"{stat} within {THRESHOLD:.0%}"
        lat = latency(item)
        target_p95 = _number(lat.get("p95"))
        if basis == "client" and cap_p95 is not None and target_p95 is not None and category != "errors":
            why += f"; p95 {fmt.ms(target_p95)} ms vs {fmt.ms(cap_p95)} ms"

        out.append(ClassResult(
            id=qid, kind=str(q.get("kind") or item.get("kind") or ""), status=str(q.get("status") or ""),
            statements=n, errors=errors, p50=fmt.ms(_number(lat.get("p50"))), p95=fmt.ms(_number(lat.get("p95"))),
            p99=fmt.ms(_number(lat.get("p99"))), target_ms=target_ms, captured_ms=cap_ms, captured_executions=cap_n,
            ratio=ratio, category=category, why=why, basis=basis,
        ))
    order = {c: i for i, c in enumerate(CATEGORIES)}
    out.sort(key=lambda r: (order[r.category], -(r.ratio or 0.0), -r.statements, r.id))
    return out


def counts(results: list[ClassResult]) -> dict[str, int]:
    found = Counter(r.category for r in results)
    return {c: found.get(c, 0) for c in CATEGORIES}


METHOD = (
    f"Each replayed query class is compared with SQL Server's captured average duration, which SQL Server measures "
    f"inside the server. Degraded: the target's figure is more than {THRESHOLD:.0%} above SQL Server's; improved: "
    f"more than {THRESHOLD:.0%} below (SQL Server took over {1 + THRESHOLD:.2f}× as long); unchanged: in between. "
    f"Errors: any statement of the class failed. Not comparable: no captured duration, or fewer than "
    f"{MIN_EXECUTIONS} executions on either side. The target's figure is its own server-side mean where the replay "
    "read one (TiDB's statements summary, MySQL's performance_schema), so that server time is compared with server "
    "time; else its mean latency measured at the client (the median when the replay recorded no mean), which "
    "includes a network round trip and the driver that SQL Server's figure does not. Each verdict names which was "
    "used. Where the comparison is at the client and the capture kept every execution's duration (Extended Events), "
    "both sides' 95th percentiles are shown beside the verdict."
)


def run_basis(replay: dict[str, Any]) -> str:
    """What a whole replay's verdicts compared, in words: server time, client latency, or some of each."""
    items = [q for q in replay.get("per_query") or () if isinstance(q, dict)]
    bases = {target_latency(q)[2] for q in items}
    if bases == {"server"}:
        return "server-side time on both sides"
    if bases == {"server", "client"}:
        return "server-side time where the target reported it, else its latency measured at the client"
    note = obj(replay.get("server_time")).get("note")
    return ("the target's latency measured at the client against SQL Server's server-side time"
            + (f": {note}" if note else ""))
