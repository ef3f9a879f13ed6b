"""The decision at the top of the report: is the migration ready, and what will the changes cost?

Readiness, from the worst reason found:

- **not ready**: any blocker finding; a replay that did not sustain its target rate (the replay's own
  test, `sustained`: at least 95% of the target with p99 under its limit; when the file does not
  say, less than `MIN_ACHIEVED_SHARE` of the target); a ramp whose ceiling is below the captured
  rate; a replay in which more than `MAX_ERROR_SHARE` of the statements failed; a table the data
  stage did not load, or that verify found different from SQL Server's (data.json); or a query
  class whose answers differ with nothing to explain why (compare.json: a `differs` entry whose
  translation does not say its meaning may differ). The report's other figures are measured on
  those rows and answers, so none of them can stand while the rows or answers are not the source's.
- **ready with changes**: any high or medium finding; any query class whose translation is
  `unsupported` (someone must rewrite it) or `review` (it runs, but its meaning may differ); any
  query class the replay found degraded or failing; a class whose answers differ for a reason its
  translation names (status review, with its notes, or rows only in another order where a note says
  text sorts otherwise).
- **ready**: none of the above; low and info findings only, every query translated or rewritten.

Effort: each finding costs its rule's bucket from the catalogue (simple 0.25, medium 1, significant
3 person-days; `details.effort_days` overrides), summed per rule and in total. A query class that is
unsupported or needs review and that no finding names costs the medium bucket, so hand rewrites are
never free.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from . import formatting as fmt
from .compare import run_basis
from .rulesinfo import DEFAULT_EFFORT, EFFORT_DAYS, RuleInfo, unknown_rule
from .shape import obj, objs

MIN_ACHIEVED_SHARE = 0.9
MAX_ERROR_SHARE = 0.01
SEVERITIES = ("blocker", "high", "medium", "low", "info")

READY, WITH_CHANGES, NOT_READY = "ready", "ready-with-changes", "not-ready"
NOTE = "note"
"""A reason that qualifies the verdict without changing it."""
LABELS = {READY: "Ready", WITH_CHANGES: "Ready with changes", NOT_READY: "Not ready"}
_RANK = {READY: 0, WITH_CHANGES: 1, NOT_READY: 2}

VERDICT_METHOD = (
    "Not ready: any blocker finding; a replay that did not sustain its target rate (the replay's own test: at least "
    f"95% of the target with p99 under its limit, or {MIN_ACHIEVED_SHARE:.0%} of the target when the file does not say); "
    f"a ramp whose ceiling is below the captured rate; more than {MAX_ERROR_SHARE:.0%} of replayed statements "
    "failing; a table that did not load or that verify found different from SQL Server's; or a query class whose "
    "answers differ from SQL Server's with nothing to explain why (its translation does not say its meaning may "
    "differ). Ready with changes: any high or medium finding, any query class that is unsupported or needs review, "
    "any class the replay found degraded or failing, or a class whose answers differ for a reason its translation "
    "names. Tables not verified are said, and left out of the verdict. Ready: none of these."
)
EFFORT_METHOD = (
    "Each finding costs its rule's effort bucket from the rules catalogue: simple = 0.25, medium = 1, "
    "significant = 3 person-days (a finding's own effort_days, when a rule sets it, overrides the bucket). "
    "A query class that is unsupported or needs review and that no finding names is counted as medium. "
    "Rules missing from the catalogue are counted as medium. Info findings cost nothing."
)


@dataclass(frozen=True)
class Reason:
    level: str
    text: str
    findings: bool = False
    """The reason is a count of findings (listed as such elsewhere), not a measurement."""


@dataclass(frozen=True)
class Verdict:
    level: str
    label: str
    reasons: tuple[Reason, ...]
    method: str = VERDICT_METHOD


@dataclass(frozen=True)
class EffortLine:
    rule: str
    name: str
    bucket: str
    findings: int
    days: float
    days_text: str


@dataclass(frozen=True)
class Effort:
    total_days: float
    total_text: str
    lines: tuple[EffortLine, ...]
    method: str = EFFORT_METHOD


def _rules_named(findings: list[dict[str, Any]], limit: int = 5) -> str:
    counts = Counter(f.get("rule", "?") for f in findings)
    parts = [f"{code} ×{n}" if n > 1 else code for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    more = f", +{len(parts) - limit} more" if len(parts) > limit else ""
    return ", ".join(parts[:limit]) + more


def _load_reasons(replay: dict[str, Any], engine: str = "TiDB") -> list[Reason]:
    """Did the target keep up? The ramp's ceiling against the captured rate, else the run against its target."""
    target, achieved = replay.get("target_qps"), replay.get("achieved_qps")
    ramp = replay.get("ramp") if isinstance(replay.get("ramp"), dict) else None
    captured = replay.get("captured_qps")
    if ramp is not None and isinstance(captured, (int, float)) and captured > 0:
        ceiling = ramp.get("ceiling_qps")
        if not isinstance(ceiling, (int, float)):
            return [Reason(NOT_READY, "the ramp found no rate the target sustained")]
        if ceiling < captured:
            return [Reason(NOT_READY, f"the ramp's ceiling, {fmt.qps(ceiling)} queries per second, is below the captured "
                                      f"{fmt.qps(captured)}")]
        return [Reason(READY, f"the ramp's ceiling, {fmt.qps(ceiling)} queries per second, held the captured {fmt.qps(captured)}")]
    if not (isinstance(target, (int, float)) and isinstance(achieved, (int, float)) and target > 0):
        return []
    share = achieved / target
    figures = f"{fmt.qps(achieved)} of {fmt.qps(target)} queries per second ({share:.0%})"
    sustained = replay.get("sustained")
    if sustained is False:
        p99 = obj(replay.get("latency_ms")).get("p99") if isinstance(replay.get("latency_ms"), dict) else None
        limit = obj(replay.get("config")).get("p99_limit_ms") if isinstance(replay.get("config"), dict) else None
        slow = f", p99 {fmt.ms(p99)} ms against a limit of {fmt.ms(limit)} ms" if p99 is not None and limit is not None else ""
        return [Reason(NOT_READY, f"the replay did not sustain its target: {figures}{slow}")]
    if sustained is None and share < MIN_ACHIEVED_SHARE:
        return [Reason(NOT_READY, f"the replay reached {figures}")]
    if isinstance(captured, (int, float)) and captured > 0 and target < captured * 0.95:
        return [Reason(NOTE, f"the replay held {figures}, but that is only {target / captured:.0%} of the captured "
                             f"{fmt.qps(captured)}: it does not show that {engine} holds the captured load")]
    return [Reason(READY, f"the replay held {figures}")]


def explained(entry: dict[str, Any]) -> bool:
    """Whether a compare.json entry whose verdict is `differs` says why: its translation warned that its meaning
    may differ (status review, with the notes that say how), or its rows are the same in another order and a
    note says text sorts otherwise on the target (QY75). Read from the entry's own fields (`verdict`,
    `translation_status`, `notes`, `order_only`, a write's `explained_by`), whatever kind of statement it is."""
    notes = [n for n in entry.get("notes") or () if isinstance(n, dict)]
    if entry.get("explained_by"):  # a write whose difference a rule of the schema names (MO10: a view TiDB cannot write)
        return True
    if entry.get("translation_status") == "review" and notes:
        return True
    return bool(entry.get("order_only")) and any(n.get("code") == "QY75" for n in notes)


def _answer_reasons(answers: dict[str, Any], engine: str) -> list[Reason]:
    """Classes whose answers differ from SQL Server's: without an explanation they stop the migration."""
    differing = [q for q in objs(answers.get("queries")) if q.get("verdict") == "differs"]
    unexplained = [str(q.get("id")) for q in differing if not explained(q)]
    reasons = []
    if unexplained:
        n = len(unexplained)
        reasons.append(Reason(NOT_READY, f"{n} query class{'es' if n != 1 else ''} answer{'s' if n == 1 else ''} "
                                         f"differently on {engine} than on SQL Server, and nothing explains why "
                                         f"({_listed(unexplained)})"))
    if len(differing) > len(unexplained):
        n = len(differing) - len(unexplained)
        reasons.append(Reason(WITH_CHANGES, f"{n} query class{'es' if n != 1 else ''} answer{'s' if n == 1 else ''} "
                                            f"differently on {engine} for a reason {'their' if n != 1 else 'its'} "
                                            "translation names"))
    return reasons


def _data_reasons(data: dict[str, Any]) -> list[Reason]:
    """Tables not loaded or not equal to SQL Server's stop the migration; tables not verified are said."""
    tables = objs(data.get("tables"))
    total = len(tables)

    def named(entries: list[dict[str, Any]]) -> str:
        return _listed([f"{t.get('schema')}.{t.get('name')}" for t in entries])

    failed = [t for t in tables if t.get("status") == "failed"]
    different = [t for t in tables if t not in failed and obj(t.get("verify")).get("status") == "different"]
    unverified = [t for t in tables if t not in failed and t not in different
                  and obj(t.get("verify")).get("status") != "equal"]
    reasons = []
    if different:
        reasons.append(Reason(NOT_READY, f"{len(different)} of {total} tables differ from SQL Server's after the "
                                         f"copy (verify): {named(different)}"))
    if failed:
        reasons.append(Reason(NOT_READY, f"{len(failed)} of {total} tables did not load into the target: "
                                         f"{named(failed)}"))
    if unverified:
        reasons.append(Reason(NOTE, f"{len(unverified)} of {total} tables were not verified against SQL Server, so "
                                    f"nothing here shows their rows are the source's: {named(unverified)}"))
    return reasons


def _listed(names: list[str], limit: int = 5) -> str:
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def decide(
    findings: list[dict[str, Any]],
    queries: list[dict[str, Any]],
    replay: dict[str, Any] | None,
    comparison_counts: dict[str, int] | None = None,
    engine: str = "TiDB",
    *,
    data: dict[str, Any] | None = None,
    answers: dict[str, Any] | None = None,
) -> Verdict:
    """The page's verdict; `engine` names the target (`TiDB`, `MySQL`) in its reasons; `data` and `answers` are
    the run's data.json and compare.json, when it has them."""
    reasons: list[Reason] = []
    by_sev: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for f in findings:
        by_sev[str(f.get("severity", "info"))].append(f)
    if by_sev["blocker"]:
        n = len(by_sev["blocker"])
        reasons.append(Reason(NOT_READY, f"{n} blocker finding{'s' if n != 1 else ''} ({_rules_named(by_sev['blocker'])})",
                              findings=True))
    if replay is not None:
        reasons.extend(_load_reasons(replay, engine))
        statements, errors = replay.get("statements") or 0, replay.get("errors") or 0
        if statements and errors / statements > MAX_ERROR_SHARE:
            reasons.append(Reason(NOT_READY, f"{fmt.number(errors)} of {fmt.number(statements)} replayed statements failed ({errors / statements:.1%})"))
    for sev in ("high", "medium"):
        if by_sev[sev]:
            n = len(by_sev[sev])
            reasons.append(Reason(WITH_CHANGES, f"{n} {sev} finding{'s' if n != 1 else ''} ({_rules_named(by_sev[sev])})"))
    statuses = Counter(q.get("status") for q in queries)
    if statuses["unsupported"]:
        reasons.append(Reason(WITH_CHANGES, f"{statuses['unsupported']} query class{'es' if statuses['unsupported'] != 1 else ''} could not be translated and must be rewritten by hand"))
    if statuses["review"]:
        reasons.append(Reason(WITH_CHANGES, f"{statuses['review']} query class{'es' if statuses['review'] != 1 else ''} run on {engine} but need review: their meaning may differ"))
    counts = comparison_counts or {}
    for category, words in (("degraded", "ran slower on the target than on SQL Server"), ("errors", "failed on the target")):
        if counts.get(category):
            n = counts[category]
            basis = f" ({run_basis(replay)})" if category == "degraded" and replay is not None else ""
            reasons.append(Reason(WITH_CHANGES, f"{n} query class{'es' if n != 1 else ''} {words}{basis}"))
    if data:
        reasons.extend(_data_reasons(data))
    if answers:
        reasons.extend(_answer_reasons(answers, engine))
    if replay is None and (data is not None or answers is not None):  # a target was given: the replay was left out
        reasons.append(Reason(NOTE, f"the load was not measured: the replay was left out of this run; run assess "
                                    f"without --no-replay (or replay) to measure the workload on {engine}"))
    elif replay is None:
        reasons.append(Reason(NOTE, f"the load was not measured: run assess with --target to replay the workload on {engine}"))
    level = max((r.level for r in reasons if r.level in _RANK), key=_RANK.__getitem__, default=READY)
    if level == READY:
        reasons.insert(0, Reason(READY, "no blocker, high or medium findings, and every query class translated"))
    reasons.sort(key=lambda r: -_RANK.get(r.level, -1))
    return Verdict(level=level, label=LABELS[level], reasons=tuple(reasons))


def finding_days(finding: dict[str, Any], rule: RuleInfo) -> float:
    details = obj(finding.get("details"))
    override = details.get("effort_days") if isinstance(details, dict) else None
    if isinstance(override, (int, float)) and not isinstance(override, bool) and override >= 0:
        return float(override)
    if finding.get("severity") == "info":
        return 0.0
    return EFFORT_DAYS.get(rule.effort, EFFORT_DAYS[DEFAULT_EFFORT])


def estimate(findings: list[dict[str, Any]], queries: list[dict[str, Any]], rules: dict[str, RuleInfo]) -> Effort:
    per_rule: dict[str, list[float]] = defaultdict(list)
    for f in findings:
        code = str(f.get("rule", "?"))
        per_rule[code].append(finding_days(f, rules.get(code) or unknown_rule(code)))
    named = {str(f.get("object", "")) for f in findings}
    hand_work = [
        q for q in queries
        if q.get("status") in ("unsupported", "review") and f"query {q.get('id')}" not in named and q.get("id") not in named
    ]
    lines = []
    for code, costs in per_rule.items():
        info = rules.get(code) or unknown_rule(code)
        total = sum(costs)
        lines.append(EffortLine(code, info.name or "(not in the catalogue)", info.effort, len(costs), total, fmt.days(total)))
    if hand_work:
        total = EFFORT_DAYS[DEFAULT_EFFORT] * len(hand_work)
        lines.append(EffortLine("—", "query classes to rewrite or review by hand", DEFAULT_EFFORT, len(hand_work), total, fmt.days(total)))
    lines.sort(key=lambda line: (-line.days, line.rule))
    grand = sum(line.days for line in lines)
    return Effort(total_days=grand, total_text=fmt.days(grand), lines=tuple(lines))
