"""The rows of the findings tables: one per finding, grouped by severity, linked to what it names.

The summary lists the blockers and the schema section every finding; both build their rows here.
"""

from __future__ import annotations

from typing import Any

from .links import Anchors, docs_links
from .rulesinfo import RuleInfo, unknown_rule
from .verdict import SEVERITIES
from .viewmodel import FindingGroup, FindingRow


def finding_row(f: dict[str, Any], rules: dict[str, RuleInfo], anchors: Anchors) -> FindingRow:
    code = str(f.get("rule", "?"))
    rule = rules.get(code) or unknown_rule(code)
    obj = str(f.get("object") or "")
    return FindingRow(
        rule=code,
        rule_name=rule.name,
        severity=str(f.get("severity", "info")),
        object=obj,
        object_anchor=anchors.for_object(obj),
        message=str(f.get("message") or ""),
        location=anchors.source(f.get("file"), f.get("line")),
        docs=docs_links(rule),
        remediation=rule.remediation,
        effort=rule.effort if rule.known else "medium (rule not in the catalogue)",
    )


def finding_groups(findings: list[dict[str, Any]], rules: dict[str, RuleInfo], anchors: Anchors) -> tuple[FindingGroup, ...]:
    by_sev: dict[str, list[FindingRow]] = {s: [] for s in SEVERITIES}
    for f in findings:
        row = finding_row(f, rules, anchors)
        by_sev.setdefault(row.severity, []).append(row)
    groups = []
    for sev, rows in by_sev.items():
        if rows:
            rows.sort(key=lambda r: (r.rule, r.object.casefold(), r.location.text if r.location else "", r.message))
            groups.append(FindingGroup(sev, sev.capitalize(), tuple(rows)))
    return tuple(groups)
