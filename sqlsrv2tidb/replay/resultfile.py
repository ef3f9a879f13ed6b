"""Builds `replay.json` (format `sqlsrv2tidb.replay/1`), the file the report renders.

Top level (times in seconds, latencies in milliseconds, rates in statements per second):

- `format`, `tool_version`, `started_at` (UTC ISO), `target` (`mysql://user@host:port/db`, never a
  password), `server` {`kind`: tidb|mariadb|mysql, `version`}, `driver` (the one that sent: pymysql,
  mysqlclient or asyncmy), `workers` (sending processes, or cluster workers), `connections`;
- `config`: the options as given (`window`, `scale`, `qps`, `duration`, `warmup`, `arrival`,
  `timed`, `speed`, `ramp`, `p99_limit_ms`, `allow_writes`, `confirm_database`, `seed`, and
  `seed_drawn`: true when no `--seed` was given and the run drew its own, which `--seed` repeats;
  `driver` as given; `cluster`, the Dask scheduler's address or null);
- `mode`: `rate`, `timed` or `ramp`; `window` {`name`, `start`, `end`, `seconds`} or null;
  `scale`: the factor applied to the captured rate (the effective one when `--qps` was given);
  `captured_qps`: the chosen classes' captured rate in the window;
- `target_qps`, `achieved_qps` (successful statements per second over the measured time),
  `duration_s` (measured seconds, warm-up excluded), `warmup_s`, `statements` (answered, ok or
  not), `errors`, `missed` (sends due that the client never made because time ran out while it was
  behind), `late_sends` (sends that left more than 10 ms after their intended time), `reconnects`,
  `sustained` (achieved ≥ 95 % of target and p99 under the limit; null when a cluster worker was lost,
  since the rate is then short by its share whatever the target did);
- `client_cpu` {`workers_s`, `coordinator_s`, `us_per_statement`}: what sending cost the client
  machine (all statements of the run, warm-up included), to judge whether the client kept up;
- `cluster`: null, or for `--cluster` {`scheduler`, `lost` (share numbers whose measurements end early),
  `scheduler_cpu_s`, `workers`: one row per Dask worker: `share`, `worker` (address), `host`, `state`
  (done, lost, stopped), `connections`, `target_qps`, `sent`, `statements`, `achieved_qps`, `errors`,
  `late_sends`, `missed`, `client_cpu_s`, `cpu_us_per_statement`, `clock_offset_ms`, `clock_rtt_ms`,
  `lost_after_s`, `note`}; the merged figures are the sum of these rows (the same measured seconds);
- `latency_ms` {`p50`, `p95`, `p99`, `max`, `mean`}: from the intended send time (open loop, so it
  includes queueing when the target fell behind); `service_ms`: from the actual send; and both as
  mergeable histograms in `histograms` {`latency`, `service`} (see `sqlsrv2tidb.histogram.Histogram.to_json`);
- `per_query`: one entry per replayed class: `id`, `fingerprint`, `kind`, `status`, `target_sql`,
  `parameters` (where values came from), `captured_qps`, `target_qps`, `achieved_qps`,
  `statements`, `errors`, `latency_ms`, `service_ms`, `captured_duration_ms` {`avg`, `min`,
  `max`, and `p50`/`p95`/`p99` where the capture saw every execution} from SQL Server's own
  statistics (null when the capture has none);
- `timeline`: one entry per second since the start (`second`, `step` for a ramp, `warmup`), with
  `sent`, `completed`, `errors`, `p50_ms`, `p99_ms`, `max_lag_ms` and `per_query`
  {id: {`sent`, `completed`, `errors`, `p99_ms`}};
- `error_codes`: [{`code`, `count`, `samples`: [{`query`, `message`}], and for duplicate keys (1062)
  `why`: the cause in words, e.g. a `--seed` that repeats an earlier run's keys}], most frequent first;
- `skipped`: [{`id`, `fingerprint`, `kind`, `status`, `reason`}] for classes not sent;
- `ramp`: null, or {`steps`: [{`target_qps`, `achieved_qps`, `p99_ms`, `errors`, `sustained`,
  `shortfall`: null, `rate`, `p99`, `errors` or `lost`}], `ceiling_qps` (highest target rate sustained, null
  if none), `stopped_by` (the last step's shortfall: `errors` means the target kept up but statements
  failed, so the ceiling was not measured; null when the ramp reached MAX), `p99_limit_ms`}; the
  top-level figures then describe the ceiling step (or the first step when none was sustained);
- `evidence`: {`skipped`: reason} on MySQL/MariaDB, else {`tables`: [...], `before`, `after`, `cluster`
  (servers by kind, from information_schema.cluster_info), `not_measured` (what this cluster cannot show,
  e.g. hot Regions without PD, placement over stores with one TiKV store: sentences, not errors)};
- `interrupted`, `stopped_by` (null, `interrupt` or the fatal error), `notes`;
- what was sent and what the server measured (`statements`, `servertime`): each `per_query` entry also
  has `values` {`source`: captured, generated or both, `captured_sets`, `captured_from`, `fresh_keys`:
  written key columns whose captured values were replaced, `description`}, `protocol` (`text` or
  `prepared`) with `protocol_why`, and where the target keeps statement statistics `server_ms` {`mean`,
  `max`, `executions`, `source`, `max_may_predate_run`, `shared_with`} and on TiDB `plan_cache_hits`,
  `prepared_executions`, `plan_cache_unqualified`; the top level has `server_time` {`source`, `classes`,
  `note`: why some or all classes have no server-side figure}, and `config.protocol`;
- `procedures` (when classes call procedures, sent through the procedure runner): one entry per procedure
  called: `procedure`, `classes`, `calls`, `statements_per_call`, `round_trips_per_call`,
  `target_ms_per_call` (the mean latency of a call, every statement of it), `sql_server_ms_per_call` (the
  captured duration of the EXEC), `failed_calls`; each such class's `per_query` entry has the same figures
  as `procedure_call` {`procedures`, `calls`, ..., `target_p99_ms`, `writes`};
- `target_data`: what the target database held when the replay started: {`tables`, `rows` (each
  table counted up to `cap`), `empty`, `at_least` (tables at the cap), `per_table`, `said` (one
  line)}; reads against empty tables measure nothing (finding RP08).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .. import __version__
from ..data.holdings import describe
from ..histogram import us_to_ms
from ..model import Capture
from ..workload_durations import CapturedDuration, captured_durations
from .config import ReplayConfig
from .engine import StepData
from .selection import Selection
from .stats import ClassSecond, Histogram

FORMAT = "sqlsrv2tidb.replay/1"
SUSTAINED_SHARE = 0.95


@dataclass
class StepResult:
    """One schedule's run, reduced: what the ramp compares and the file reports."""

    target_qps: float
    warmup: float
    duration: float
    data: StepData
    classes: tuple[str, ...]
    weights: tuple[float, ...]
    per_class: dict[int, ClassSecond] = field(default_factory=dict)
    total: ClassSecond = field(default_factory=ClassSecond)
    measured: float = 0.0

    def __post_init__(self) -> None:
        for second, row in self.data.seconds.items():
            if second < int(self.warmup):
                continue
            for cls, cell in row.items():
                self.per_class.setdefault(cls, ClassSecond()).merge(_copy(cell))
                self.total.merge(_copy(cell))
        elapsed = self.data.elapsed - self.warmup
        self.measured = self.duration if not self.data.interrupted and not self.data.fatal else \
            max(0.0, min(self.duration, elapsed))

    @property
    def achieved_qps(self) -> float:
        return self.total.ok / self.measured if self.measured > 0 else 0.0

    @property
    def lost(self) -> bool:
        """A cluster worker was lost mid-step: the rate is short by its share, whatever the target did."""
        return bool(self.data.cluster and self.data.cluster.lost)

    def sustained(self, p99_limit_ms: float) -> bool:
        p99 = self.total.latency.percentile(99)
        return (self.achieved_qps >= SUSTAINED_SHARE * self.target_qps and p99 is not None
                and p99 / 1000 < p99_limit_ms)

    def shortfall(self, p99_limit_ms: float) -> str | None:
        """Why the step was not sustained: `errors` (the target answered at the rate, but statements failed),
        `p99` (answers came late), `rate` (the target answered too few) or `lost` (a cluster worker sending a share
        of it was lost); None when it was sustained."""
        if self.sustained(p99_limit_ms):
            return None
        if self.lost:
            return "lost"
        answered = (self.total.ok + self.total.errors) / self.measured if self.measured > 0 else 0.0
        if self.total.errors and answered >= SUSTAINED_SHARE * self.target_qps:
            return "errors"
        return "rate" if self.achieved_qps < SUSTAINED_SHARE * self.target_qps else "p99"


def _copy(cell: ClassSecond) -> ClassSecond:
    return ClassSecond().merge(cell)


def build(
    *, capture: Capture, selection: Selection, config: ReplayConfig, steps: list[StepResult], chosen: StepResult,
    target: str, server: dict[str, Any], driver: str, mode: str, evidence: dict[str, Any],
    parameters: dict[str, str], ceiling: float | None, stopped_by: str | None,
    why: dict[int, list[str]] | None = None, per_class: dict[str, dict[str, Any]] | None = None,
    extra: dict[str, Any] | None = None, notes: list[str] | None = None, target_data: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The whole replay.json document; `why` explains error codes (duplicate keys) in words; `per_class`
    adds fields to each class's entry, `extra` to the document (see `replay.fidelity`)."""
    data = chosen.data
    window = selection.window
    share = {cid: w / sum(chosen.weights) for cid, w in zip(chosen.classes, chosen.weights, strict=True)}
    errors = error_codes([s.data for s in steps])
    for entry in errors:
        if (why or {}).get(entry["code"]):
            entry["why"] = why[entry["code"]]
    captured = captured_durations(capture.workload, window)
    return {
        "format": FORMAT,
        "tool_version": __version__,
        "started_at": datetime.fromtimestamp(steps[0].data.started or 0, UTC).isoformat().replace("+00:00", "Z"),
        "target": target,
        "server": server,
        "driver": driver,
        "workers": data.workers,
        "connections": config.connections,
        "config": _config(config),
        "mode": mode,
        "window": {"name": window.name, "start": window.start, "end": window.end, "seconds": window.seconds}
        if window else None,
        "scale": round(chosen.target_qps / selection.captured_qps, 6) if selection.captured_qps else None,
        "captured_qps": round(selection.captured_qps, 3),
        "target_qps": round(chosen.target_qps, 3),
        "achieved_qps": round(chosen.achieved_qps, 3),
        "duration_s": round(chosen.measured, 3),
        "warmup_s": chosen.warmup,
        "statements": chosen.total.ok + chosen.total.errors,
        "errors": chosen.total.errors,
        "missed": sum(s.data.totals.missed for s in steps),
        "reconnects": sum(s.data.totals.reconnects for s in steps),
        "late_sends": chosen.total.late,
        "sustained": None if chosen.lost else chosen.sustained(config.p99_limit_ms),
        "client_cpu": _client_cpu(chosen),
        "cluster": _cluster(chosen),
        "latency_ms": chosen.total.latency.summary_ms(),
        "service_ms": chosen.total.service.summary_ms(),
        "histograms": {"latency": chosen.total.latency.to_json(), "service": chosen.total.service.to_json()},
        "per_query": [{**_per_query(selection, chosen, i, cid, share[cid], parameters.get(cid, ""), captured.get(cid)),
                       **(per_class or {}).get(cid, {})} for i, cid in enumerate(chosen.classes)],
        "timeline": _timeline(steps),
        "error_codes": errors,
        "skipped": [{"id": s.id, "fingerprint": s.fingerprint, "kind": s.kind, "status": s.status, "reason": s.reason}
                    for s in selection.skipped],
        "ramp": None if mode != "ramp" else {
            "steps": [{"target_qps": round(s.target_qps, 3), "achieved_qps": round(s.achieved_qps, 3),
                       "p99_ms": s.total.latency.summary_ms()["p99"], "errors": s.total.errors,
                       "sustained": s.sustained(config.p99_limit_ms),
                       "shortfall": s.shortfall(config.p99_limit_ms)} for s in steps],
            "ceiling_qps": ceiling,
            "stopped_by": steps[-1].shortfall(config.p99_limit_ms) if steps else None,
            "p99_limit_ms": config.p99_limit_ms,
        },
        "evidence": evidence,
        "target_data": {**target_data, "said": describe(target_data)} if target_data is not None else None,
        "interrupted": any(s.data.interrupted for s in steps),
        "stopped_by": stopped_by,
        "notes": list(selection.notes) + list(notes or ()),
        **(extra or {}),
    }


def _client_cpu(step: StepResult) -> dict[str, float]:
    """What sending cost this machine: worker and coordinator CPU, and per answered statement."""
    workers, coordinator = step.data.totals.cpu_s, step.data.coordinator_cpu_s
    answered = sum(c.ok + c.errors for row in step.data.seconds.values() for c in row.values())
    return {"workers_s": round(workers, 3), "coordinator_s": round(coordinator, 3),
            "us_per_statement": round(1e6 * (workers + coordinator) / answered, 2) if answered else 0.0}


def _cluster(step: StepResult) -> dict[str, Any] | None:
    """Where a cluster run ran, and each worker's share of it (null for a run from this machine alone)."""
    cluster = step.data.cluster
    if cluster is None:
        return None
    return {"scheduler": cluster.scheduler, "lost": [s.share for s in cluster.lost],
            "scheduler_cpu_s": None if cluster.scheduler_cpu_s is None else round(cluster.scheduler_cpu_s, 3),
            "workers": cluster.rows(step.warmup, step.measured)}


def _config(config: ReplayConfig) -> dict[str, Any]:
    return {
        "window": config.window, "scale": config.scale, "qps": config.qps, "duration": config.duration,
        "warmup": config.warmup, "workers": config.workers, "connections": config.connections,
        "arrival": config.arrival, "timed": config.timed, "speed": config.speed,
        "ramp": None if config.ramp is None else f"{config.ramp.start:g}:{config.ramp.step:g}:{config.ramp.maximum:g}",
        "p99_limit_ms": config.p99_limit_ms, "allow_writes": config.allow_writes,
        "confirm_database": config.confirm_database, "seed": config.seed, "seed_drawn": config.seed_drawn,
        "driver": config.driver, "protocol": config.protocol, "cluster": config.cluster,
    }


def _per_query(selection: Selection, step: StepResult, index: int, cid: str, share: float, parameters: str,
               captured: CapturedDuration | None) -> dict[str, Any]:
    chosen = next(c for c in selection.chosen if c.query.id == cid)
    cell = step.per_class.get(index, ClassSecond())
    tq = chosen.query
    return {
        "id": cid, "fingerprint": tq.fingerprint, "kind": tq.kind, "status": tq.status, "target_sql": tq.target_sql,
        "parameters": parameters,
        "captured_qps": round(chosen.rate, 6) if selection.rated else None,
        "target_qps": round(step.target_qps * share, 3),
        "achieved_qps": round(cell.ok / step.measured, 3) if step.measured > 0 else 0.0,
        "statements": cell.ok + cell.errors, "errors": cell.errors,
        "latency_ms": cell.latency.summary_ms(), "service_ms": cell.service.summary_ms(),
        "captured_duration_ms": captured_ms(captured),
    }


def captured_ms(d: CapturedDuration | None) -> dict[str, float | None] | None:
    """SQL Server's own duration for the class in the window: average and extremes, and percentiles
    where the capture kept every execution's duration (Extended Events)."""
    if d is None or not d.executions:
        return None
    ms = us_to_ms
    return {"avg": ms(d.avg_us), "min": ms(d.min_us), "max": ms(d.max_us),
            "p50": ms(d.percentile_us(50)), "p95": ms(d.percentile_us(95)), "p99": ms(d.percentile_us(99))}


def _timeline(steps: list[StepResult]) -> list[dict[str, Any]]:
    rows = []
    offset = 0
    for number, step in enumerate(steps):
        seconds = step.data.seconds
        last = max(seconds) if seconds else -1
        for second in range(min(0, min(seconds, default=0)), last + 1):
            row = seconds.get(second, {})
            hist = Histogram()
            for cell in row.values():
                hist.merge(cell.latency)
            summary = hist.summary_ms()
            rows.append({
                "second": offset + second, "step": number, "warmup": second < int(step.warmup),
                "sent": sum(c.sent for c in row.values()), "completed": sum(c.ok for c in row.values()),
                "errors": sum(c.errors for c in row.values()),
                "p50_ms": summary["p50"], "p99_ms": summary["p99"],
                "max_lag_ms": round(max((c.max_lag_us for c in row.values()), default=0) / 1000, 3),
                "per_query": {step.classes[cls]: {"sent": c.sent, "completed": c.ok, "errors": c.errors,
                                                  "p99_ms": c.latency.summary_ms()["p99"]}
                              for cls, c in sorted(row.items())},
            })
        offset += last + 1
    return rows


def error_codes(datas: list[StepData]) -> list[dict[str, Any]]:
    merged: dict[int, list[Any]] = {}
    for d in datas:
        for code, (count, samples) in d.totals.errors.items():
            entry = merged.setdefault(code, [0, []])
            entry[0] += count
            entry[1].extend(s for s in samples if s not in entry[1])
    return [{"code": code, "count": count, "samples": [{"query": q, "message": m} for q, m in samples[:3]]}
            for code, (count, samples) in sorted(merged.items(), key=lambda kv: -kv[1][0])]
