"""`sqlsrv2tidb replay` and the replay inside `assess --target`: from a capture to `replay.json`.

The capture and its translation come in from `api` (`api.run_replay`, `api.run_assess`); replay
never reads or translates sources itself.

Order of work: refuse unsafe targets and unconfirmed writes before anything connects; choose the
classes and their rates; open one probe connection to learn what the target is, sample parameter
domains and take the "before" hotspot evidence; run the schedule (or each ramp step) over the
worker processes, or with `--cluster` over a Dask cluster's workers (`cluster`); take the "after"
evidence; write `replay.json` atomically; and only then, if the run was cut short by Ctrl-C, a fatal
error or a lost cluster worker, raise — so whatever was measured is always on disk.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..data.holdings import describe, target_holdings
from ..errors import ConnectionFailed, Interrupted, SendersLost, one_line
from ..model import Capture, Finding, Severity
from ..model.translation import Translation
from ..model.workload import parse_time
from ..options import Options
from ..outdir import write_json
from ..progress import NullProgress, Progress
from ..target import Target
from ..workload_durations import captured_durations
from . import drivers, evidence, resultfile, servertime
from .config import ReplayConfig
from .duplicates import explain_duplicates, tables_holding_rows
from .engine import StepData, live_printer, run_schedule
from .params import serial_span
from .procedure_calls import calls_of
from .procedure_figures import figures as procedure_figures
from .protocol import check_requested
from .resultfile import StepResult
from .safety import check_not_source, check_writes_confirmed
from .schedule import RateSchedule, Schedule, TimedSchedule
from .selection import Selection, select, send_rate
from .statements import prepare
from .workers import Job


@dataclass
class ReplayOutcome:
    """What a replay (or a design experiment) found and wrote: its findings, its document and where it is."""

    findings: list[Finding] = field(default_factory=list)
    result: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None


def run_replay(capture: Capture, translation: Translation, target: Target, config: ReplayConfig | None, *,
               out: Path, progress: Progress | None = None, options: Options | None = None) -> ReplayOutcome:
    """Replay the translated workload against TARGET; writes OUT/replay.json and returns its findings.
    Classes that call procedures go through the procedure runner (`procedure_calls`), their programs
    translated with `options`."""
    config = (config or ReplayConfig()).with_seed()
    check_not_source(target, capture.server)
    check_writes_confirmed(target, config)
    selection = select(capture, translation, config, calls_of(capture, options))
    with _sender(config) as sender:
        return _run(capture, translation, target, config, selection, sender, out, progress)


@dataclass(frozen=True)
class _Sender:
    """Who sends each schedule: this machine's worker processes, or the workers of a Dask cluster."""

    driver: str
    send: Callable[[Job, Callable[[StepData, int], None] | None], StepData]


@contextmanager
def _sender(config: ReplayConfig) -> Iterator[_Sender]:
    if config.cluster is None:
        yield _Sender(drivers.resolve(config.driver).name, lambda job, live: run_schedule(job, config.worker_count, live))
        return
    from .cluster import Cluster
    from .cluster_step import run_step

    with Cluster(config.cluster, config.workers) as cluster:
        yield _Sender(cluster.driver(config.driver), lambda job, live: run_step(cluster, job, live))


def _run(capture: Capture, translation: Translation, target: Target, config: ReplayConfig, selection: Selection,
         sender: _Sender, out: Path, progress: Progress | None) -> ReplayOutcome:
    check_requested(config.protocol, sender.driver)
    calling = any(c.call is not None for c in selection.chosen)
    if calling and sender.driver == "asyncmy":
        from ..errors import UsageError

        raise UsageError("--driver asyncmy cannot send procedure calls (the procedure runner needs a blocking "
                         "connection): use --driver pymysql or mysqlclient")
    probe = _probe(target, sender.driver)
    try:
        server = evidence.detect_server(probe)
        sending = prepare(probe, capture, selection, config.protocol, sender.driver)
        statements = sending.statements
        held = tables_holding_rows(probe, selection)
        holdings = target_holdings(probe.fetch)
        tables = [t for t, _ in evidence.written_tables(
            [(c.query.kind, c.query.target_sql or "", c.rate) for c in selection.chosen])]
        shape = evidence.cluster_shape(probe) if server.kind == "tidb" else None
        before = evidence.snapshot(probe, tables, shape) if server.kind == "tidb" else {}
        timing = servertime.locate(probe, server.kind, sending.texts)
        timing_before = servertime.snapshot(probe, timing)
    except Exception:
        probe.close()
        raise
    quiet = isinstance(progress, NullProgress) or progress is None
    live = None if quiet else live_printer(sys.stderr, 1 if sys.stderr.isatty() else 5)
    steps: list[StepResult] = []
    ceiling: float | None = None
    stopped_by: str | None = None
    mode = "timed" if config.timed else "ramp" if config.ramp else "rate"
    serial_base = 0
    try:
        for number, schedule in enumerate(_schedules(capture, selection, config)):
            warmup = config.warmup if number == 0 else 0.0
            if not quiet:
                sys.stderr.write(f"Replaying {schedule.total_qps:.1f} q/s for {schedule.duration:.0f}s "
                                 f"against {target.display}\n")
            job = Job(target, sender.driver, statements, schedule, config.seed, step=number, serial_base=serial_base,
                      prepared=sending.choice.any_prepared, procedures=calling)
            serial_base += _serial_span(schedule)
            data = sender.send(job, live)
            step = StepResult(schedule.total_qps, warmup, schedule.duration - warmup, data,
                              tuple(c.query.id for c in selection.chosen), tuple(c.rate for c in selection.chosen))
            steps.append(step)
            lost = data.cluster.lost_text() if data.cluster else None
            if data.interrupted or data.fatal or lost:
                stopped_by = "interrupt" if data.interrupted else data.fatal or lost
                break
            if mode == "ramp":
                if not step.sustained(config.p99_limit_ms):
                    break
                ceiling = step.target_qps
    except BaseException:
        probe.close()
        raise
    if live is not None and sys.stderr.isatty():
        sys.stderr.write("\n")
    try:
        timing_after = servertime.snapshot(probe, timing)
        after = evidence.snapshot(probe, tables, shape) if server.kind == "tidb" else {}
    finally:
        probe.close()
    findings = _findings(capture, selection, config, steps, ceiling, mode)
    findings = [explain_duplicates(f, config, statements, selection, held, steps) for f in findings]
    if server.kind == "tidb":
        findings += evidence.hotspot_findings(before, after, capture, evidence.distribution_rules(), shape)
        missing = evidence.not_measured(shape)
        if missing:
            findings.append(evidence.limited_note(server, missing))
        proof: dict[str, Any] = {"tables": tables, "before": before, "after": after, "cluster": shape,
                                 "not_measured": missing}
    else:
        findings.append(evidence.skipped_note(server))
        proof = {"skipped": findings[-1].message}
    findings += _data_findings(holdings)
    chosen = _chosen_step(steps, ceiling, mode)
    per_class = sending.described()
    server_side = servertime.per_class(timing, timing_before, timing_after)
    for qid, figures in server_side.items():
        per_class[qid].update(figures)
    extra: dict[str, Any] = {"server_time": servertime.summary(timing, server_side, len(selection.chosen))}
    if calling:
        window = selection.window
        durations = captured_durations(capture.workload, window)
        calls, per_procedure = procedure_figures(selection, chosen, steps,
                                                 {qid: resultfile.captured_ms(d) for qid, d in durations.items()})
        for qid, figures in calls.items():
            per_class[qid].update(figures)
        extra["procedures"] = per_procedure
    doc = resultfile.build(
        capture=capture, selection=selection, config=config, steps=steps, chosen=chosen, target=target.display,
        server={"kind": server.kind, "version": server.version}, driver=sender.driver, mode=mode, evidence=proof,
        parameters={qid: d["values"]["description"] for qid, d in per_class.items()},
        ceiling=ceiling, stopped_by=stopped_by, per_class=per_class, notes=list(sending.choice.notes),
        target_data=holdings,
        extra=extra,
        why={f.details["code"]: f.details["why"] for f in findings if f.rule == "RP05" and f.details.get("why")},
    )
    path = write_json(Path(out) / "replay.json", doc)
    if stopped_by == "interrupt":
        raise Interrupted(f"interrupted: partial results written to {path}")
    if stopped_by and steps[-1].data.cluster and stopped_by == steps[-1].data.cluster.lost_text():
        raise SendersLost(f"replay incomplete: {one_line(stopped_by, 600)}; partial results written to {path}")
    if stopped_by:
        raise ConnectionFailed(f"{target.display}: replay stopped: {one_line(stopped_by)}; "
                               f"partial results written to {path}")
    return ReplayOutcome(findings, doc, path)


def _data_findings(held: dict[str, Any]) -> list[Finding]:
    """RP08 when the target held no rows: the replay's reads then measured empty tables."""
    if held.get("rows"):
        return []
    return [Finding(rule="RP08", severity=Severity.MEDIUM, object="replay target", message=describe(held) +
                    "; load rows first (sqlsrv2tidb data copy, or data synthesize from the capture's statistics)",
                    details={"tables": held.get("tables", 0)})]


def _probe(target: Target, driver: str) -> drivers.Connection:
    # A cluster's workers may have a driver this machine lacks; PyMySQL is always here.
    blocking = driver if driver != "asyncmy" and drivers.installed(driver) else "pymysql"
    try:
        return drivers.connect(target, blocking)
    except drivers.driver_errors(blocking) as exc:
        code, message, _ = drivers.classify(exc)
        raise ConnectionFailed(f"{target.display}: {message}" + (f" (MySQL error {code})" if code else "")) from None


def _schedules(capture: Capture, selection: Selection, config: ReplayConfig) -> list[Schedule]:
    classes = tuple(c.query.id for c in selection.chosen)
    weights = tuple(c.rate for c in selection.chosen)
    length = config.warmup + config.duration
    if config.timed:
        window = selection.window
        events = tuple(e for e in capture.workload.events
                       if window is None or parse_time(window.start) <= parse_time(e.timestamp) < parse_time(window.end))
        if not events:
            from ..errors import UsageError

            raise UsageError("--timed needs captured events (Extended Events) in the window; this capture has none")
        return [TimedSchedule(classes, events, length, config.connections, config.speed)]
    common = {"classes": classes, "weights": weights, "shards": config.connections, "arrival": config.arrival,
              "seed": config.seed}
    if config.ramp:
        rates = config.ramp.rates()
        return [RateSchedule(total_qps=r, duration=(length if i == 0 else config.duration), **common)
                for i, r in enumerate(rates)]
    return [RateSchedule(total_qps=send_rate(selection, config), duration=length, **common)]


def _serial_span(schedule: Schedule) -> int:
    if isinstance(schedule, RateSchedule):
        return serial_span(schedule.total_qps, schedule.duration, schedule.shards, schedule.arrival)
    return (len(schedule.sends) + 1) * schedule.shards


def _chosen_step(steps: list[StepResult], ceiling: float | None, mode: str) -> StepResult:
    if mode == "ramp" and ceiling is not None:
        return next(s for s in steps if s.target_qps == ceiling)
    return steps[0] if mode == "ramp" else steps[-1]


def _findings(capture: Capture, selection: Selection, config: ReplayConfig, steps: list[StepResult],
              ceiling: float | None, mode: str) -> list[Finding]:
    findings: list[Finding] = []
    writes = [s for s in selection.skipped if s.reason.startswith("changes data")]
    if writes:
        findings.append(Finding(
            rule="RP02", severity=Severity.INFO, object="replay",
            message=f"{len(writes)} query class(es) that change data were not replayed (read-only by default; "
                    "--allow-writes --confirm-database NAME sends them)",
            details={"queries": [s.id for s in writes]}))
    unsupported = [s for s in selection.skipped if s.reason.startswith("unsupported")]
    if unsupported:
        findings.append(Finding(
            rule="RP03", severity=Severity.LOW, object="replay",
            message=f"{len(unsupported)} query class(es) have no TiDB statement and were not replayed; "
                    "their load is missing from the measurement",
            details={"queries": [s.id for s in unsupported]}))
    step = _chosen_step(steps, ceiling, mode)
    p99 = step.total.latency.percentile(99)
    p99_text = "no answers" if p99 is None else f"p99 {p99 / 1000:.1f} ms"
    if mode == "ramp":
        wanted = send_rate(selection, config) if selection.rated or config.qps else None
        last = steps[-1]
        if last.shortfall(config.p99_limit_ms) == "errors" and not (last.data.interrupted or last.data.fatal):
            # The target answered at the step's rate: it was failing statements, not falling behind.
            findings.append(Finding(
                rule="RP04", severity=Severity.HIGH, object="replay target",
                message=f"the ramp stopped at {last.target_qps:g} q/s because {last.total.errors:,} statement(s) "
                        f"failed (see the MySQL errors), not because the target fell behind: the ceiling was not "
                        f"measured" + (f"; {ceiling:g} q/s was sustained before" if ceiling is not None else ""),
                details={"ceiling_qps": ceiling, "needed_qps": wanted, "stopped_by": "errors",
                         "errors": last.total.errors}))
        elif not last.lost and (ceiling is None or (wanted and ceiling < wanted)):
            findings.append(Finding(
                rule="RP04", severity=Severity.HIGH, object="replay target",
                message=(f"the target sustained at most {ceiling:g} q/s" if ceiling is not None else
                         "the target sustained none of the ramp's rates")
                + (f", below the {wanted:.0f} q/s the workload needs" if wanted else "")
                + f" (achieved ≥ 95% of the rate and p99 under {config.p99_limit_ms:g} ms)",
                details={"ceiling_qps": ceiling, "needed_qps": wanted}))
    elif not step.data.interrupted and not step.lost and not step.sustained(config.p99_limit_ms):
        findings.append(Finding(
            rule="RP04", severity=Severity.HIGH, object="replay target",
            message=f"the target did not sustain {step.target_qps:.1f} q/s: achieved {step.achieved_qps:.1f} q/s, "
                    f"{p99_text} (needs ≥ 95% of the rate and p99 under {config.p99_limit_ms:g} ms)",
            details={"target_qps": step.target_qps, "achieved_qps": step.achieved_qps}))
    for entry in resultfile.error_codes([s.data for s in steps]):
        sample = entry["samples"][0] if entry["samples"] else {"query": "replay", "message": ""}
        findings.append(Finding(
            rule="RP05", severity=Severity.MEDIUM, object=f"query {sample['query']}",
            message=f"MySQL error {entry['code']} on {entry['count']} replayed statement(s): {sample['message']}",
            details={"code": entry["code"], "count": entry["count"], "samples": entry["samples"]}))
    return findings
