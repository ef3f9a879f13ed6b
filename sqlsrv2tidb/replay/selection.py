"""Which query classes a replay sends, at what share of the rate, and why the others are left out.

The captured rates come from `workload_rates` (the one place QPS is computed) over the chosen
window; a class is sent when it was translated, its statement kind is allowed by the write-safety
rules, and it ran in the window. Every class left out is listed with its reason, so the report
can say exactly what was not measured.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..errors import Refused, UsageError
from ..model import Capture, QueryClass, Window
from ..model.translation import TranslatedQuery, Translation
from ..procedures.workload import CapturedCall
from ..workload_rates import class_rates, peak_window
from .config import ReplayConfig
from .safety import may_send


@dataclass(frozen=True)
class Chosen:
    query: TranslatedQuery
    source: QueryClass | None
    rate: float
    """Captured executions per second in the window (before --scale/--qps)."""
    call: CapturedCall | None = None
    """A class that calls procedures, sent through the procedure runner (`procedure_calls`)."""


@dataclass(frozen=True)
class Skipped:
    id: str
    reason: str
    kind: str = "other"
    status: str = ""
    fingerprint: str = ""


@dataclass(frozen=True)
class Selection:
    chosen: tuple[Chosen, ...]
    skipped: tuple[Skipped, ...]
    window: Window | None
    captured_qps: float
    """Total captured rate of the chosen classes in the window (0 when the capture has no counts)."""
    rated: bool = True
    """False when the capture has no execution counts: classes then share the rate equally."""
    notes: tuple[str, ...] = field(default_factory=tuple)


def choose_window(capture: Capture, config: ReplayConfig) -> Window | None:
    workload = capture.workload
    if config.window:
        window = workload.window(config.window)
        if window is None:
            names = ", ".join(w.name for w in workload.windows) or "none"
            raise UsageError(f"--window {config.window!r}: the capture has no such window (windows: {names})")
        return window
    return peak_window(workload)


def select(capture: Capture, translation: Translation, config: ReplayConfig,
           calls: Mapping[str, CapturedCall] | None = None) -> Selection:
    """Pick the classes to send; raise a usage error when nothing is left to send. `calls` are the classes
    that call procedures: the procedure runner sends those it runs, a reading one without --allow-writes."""
    window = choose_window(capture, config)
    rates = class_rates(capture.workload, window) if capture.workload.intervals else {}
    rated = bool(rates)
    chosen: list[Chosen] = []
    skipped: list[Skipped] = []
    for tq in translation.queries:
        source = capture.workload.query(tq.id)
        kind = tq.kind if tq.kind != "other" or source is None else source.kind
        call = (calls or {}).get(tq.id)
        if call is not None and not call.runs:
            skipped.append(Skipped(tq.id, f"unsupported: a procedure call the runner cannot run ({call.stops})", kind,
                                   tq.status, tq.fingerprint))
            continue
        if call is not None:
            kind = "select" if call.reads_only else "exec"
        elif tq.status == "unsupported" or not tq.target_sql:
            skipped.append(Skipped(tq.id, "unsupported: no TiDB statement was produced", kind, tq.status, tq.fingerprint))
            continue
        verdict = may_send(kind, config)
        if not verdict.send:
            skipped.append(Skipped(tq.id, verdict.reason, kind, tq.status, tq.fingerprint))
            continue
        rate = rates.get(tq.id, 0.0) if rated else 1.0
        if config.timed:
            rate = max(rate, 1e-9)
        if rate <= 0:
            skipped.append(Skipped(tq.id, f"did not run in the window {window.name if window else ''}".strip(),
                                   kind, tq.status, tq.fingerprint))
            continue
        chosen.append(Chosen(tq, source, rate, call))
    if not chosen:
        writes = [s for s in skipped if s.reason.startswith("changes data")]
        if writes:
            others = [s for s in skipped if s not in writes]
            raise Refused(f"nothing to replay without writes: {len(writes)} of the {len(skipped)} query class(es) change "
                          "data (--allow-writes --confirm-database NAME sends them)"
                          + (f"; the other {len(others)} cannot be sent ({others[0].reason})" if others else ""))
        raise UsageError(f"nothing to replay: {len(skipped)} query class(es), none sendable")
    notes = () if rated else ("the capture has no execution counts: classes share the rate equally",)
    captured = sum(c.rate for c in chosen) if rated else 0.0
    if not rated and config.qps is None and config.ramp is None and not config.timed:
        raise UsageError("the capture has no execution counts to take rates from; give --qps N (or --ramp)")
    return Selection(tuple(chosen), tuple(skipped), window, captured, rated, notes)


def send_rate(selection: Selection, config: ReplayConfig) -> float:
    """The total rate to send: --qps, else the captured rate times --scale (1 by default)."""
    if config.qps is not None:
        return config.qps
    return selection.captured_qps * (config.scale if config.scale is not None else 1.0)
