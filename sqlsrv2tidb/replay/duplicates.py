"""Why a replay sent keys the target already had (MySQL error 1062), said in words.

Before the run, replay notes which tables its INSERT classes write already held rows; after it, a
duplicate-key finding gets its cause: a `--seed` that repeats an earlier run over that run's rows,
a `sequence` generator that starts at the same value on every run, captured values sent again, or
generated ranges too narrow for the rows sent. Each ramp step and each run without `--seed` draws
new values (see `params`), so none of these is the tool repeating itself by accident.
"""

from __future__ import annotations

from dataclasses import replace

from ..model import Finding
from . import drivers, evidence
from .config import ReplayConfig
from .resultfile import StepResult
from .selection import Selection
from .workers import Statement


def tables_holding_rows(probe: drivers.Connection, selection: Selection) -> dict[str, bool]:
    """For each table an INSERT class writes: whether it held rows before the run (to explain duplicate keys)."""
    out: dict[str, bool] = {}
    for chosen in selection.chosen:
        if chosen.query.kind != "insert":
            continue
        table = evidence.written_table(chosen.query.target_sql or "")
        if table is None or table in out:
            continue
        try:
            out[table] = bool(probe.fetch(f"SELECT 1 FROM {evidence.quote_table(table)} LIMIT 1"))
        except Exception:  # noqa: BLE001 - a table the target lacks fails the inserts with its own error
            continue
    return out


DUPLICATE_KEY = 1062


def explain_duplicates(finding: Finding, config: ReplayConfig, statements: tuple[Statement, ...],
                       selection: Selection, held: dict[str, bool], steps: list[StepResult]) -> Finding:
    """An RP05 finding for duplicate keys (MySQL error 1062), with why the replay sent keys already there."""
    if finding.rule != "RP05" or finding.details.get("code") != DUPLICATE_KEY:
        return finding
    queries = {s["query"] for s in finding.details.get("samples", [])}
    reasons = []
    for statement in statements:
        if statement.id not in queries:
            continue
        chosen = next(c for c in selection.chosen if c.query.id == statement.id)
        table = evidence.written_table(chosen.query.target_sql or "") or "the table"
        kinds = {m.kind for m in statement.plan.markers}
        sequences = [m.generator for m in statement.plan.markers
                     if m.kind == "generator" and m.generator is not None and m.generator.kind == "sequence"]
        sent = sum(s.per_class[i].ok + s.per_class[i].errors for s in steps
                   for i, cid in enumerate(s.classes) if cid == statement.id and i in s.per_class)
        before = f"{table} held rows before this run"
        if held.get(table) and "sample" in kinds:
            why = f"{before}, and the replay sends the captured values again: empty {table} before replaying"
        elif held.get(table) and sequences:
            why = (f"{before}, and the sequence generator starts at {sequences[0].start or 1} on every run: empty "
                   f"{table} before replaying, or start the sequence past its rows")
        elif held.get(table) and not config.seed_drawn:
            why = (f"{before}, and --seed {config.seed} draws the same keys as any earlier run with that seed (a seed "
                   f"repeats its statements): empty {table}, or leave out --seed so that each run draws new keys")
        elif held.get(table):
            why = (f"{before}, and keys drawn for this run (seed {config.seed}) met rows already there: widen the "
                   f"generators' ranges, or empty {table}")
        elif "sample" in kinds:
            why = (f"the capture holds {len(statement.plan.samples)} value row(s) for this statement and the replay "
                   f"sent it {sent} times, so captured values repeat")
        else:
            why = (f"{table} was empty, so the keys repeated within this run: the generated values' ranges are too "
                   f"narrow for {sent} inserts (widen them in the workload spec)")
        reasons.append(why)
    if not reasons:
        return finding
    return replace(finding, message=f"{finding.message}. Why: {' / '.join(reasons)}",
                   details={**finding.details, "why": reasons})
