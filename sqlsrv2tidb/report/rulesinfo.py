"""What the report needs from the rules catalogue: each code's name, effort bucket, remediation and links.

The catalogue (`rules/<category>/<CODE>.yaml`, overridable with `--rules`) is the single source of
the effort buckets the summary adds up and of the TiDB documentation each finding links to. A
finding whose code has no YAML still shows; it is counted at the medium bucket and says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

EFFORT_DAYS = {"simple": 0.25, "medium": 1.0, "significant": 3.0}
"""Person-days per finding, bucketed as the established assessment tools do (see rules/README.md)."""
DEFAULT_EFFORT = "medium"


@dataclass(frozen=True)
class RuleInfo:
    code: str
    name: str = ""
    summary: str = ""
    remediation: str = ""
    effort: str = DEFAULT_EFFORT
    references: tuple[str, ...] = ()
    known: bool = True
    """False when no YAML in the catalogue describes this code."""


def unknown_rule(code: str) -> RuleInfo:
    return RuleInfo(code=code, known=False)


def load_rule_info(override: Path | None = None) -> dict[str, RuleInfo]:
    """Every rule the catalogue knows, by code, as the report shows it."""
    from ..rules.catalogue import load_catalogue

    out = {}
    for rule in load_catalogue(override):
        out[rule.code] = RuleInfo(
            code=rule.code,
            name=rule.name,
            summary=rule.summary.strip(),
            remediation=rule.remediation.strip(),
            effort=rule.effort if rule.effort in EFFORT_DAYS else DEFAULT_EFFORT,
            references=tuple(rule.references),
        )
    return out
