"""Runs the registered checks that apply to the target engine and version, and turns their hits into findings.

`api.check` calls `run_rules` after reading, translating and planning. A rule is about one engine
(TiDB, or MySQL for an MY rule) and its `applies_to` names that engine's versions: a rule of another
engine, or whose range excludes `--tidb-version` (`--mysql-version`), is not run at all, so assessing
the same capture for TiDB 7.1 and 8.5, or for MySQL 8.0 and 8.4, differs exactly where the target changed. The override file may switch rules off or change their
severity by code or name:

    rules:
      disable: [descending-index-key]
      severity: {IX05: info}

A check that fails on an odd model does not take the other checks down: it becomes one finding
saying so (set SQLSRV2TIDB_DEBUG=1 to see the traceback instead).
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError
from ..model import Capture, Finding, Severity
from ..model.plan import MigrationPlan
from ..model.translation import Translation
from ..options import Options
from .catalogue import Catalogue, Rule, load_catalogue
from .checks import registered_checks
from .context import RuleContext
from .registry import Check, Hit


@dataclass(frozen=True)
class RuleSettings:
    """The `rules:` section of the override file, resolved to codes."""

    disabled: frozenset[str] = frozenset()
    severity: dict[str, Severity] = field(default_factory=dict)

    @classmethod
    def from_options(cls, options: Options, catalogue: Catalogue) -> RuleSettings:
        section = (options.config or {}).get("rules")
        if section is None:
            return cls()
        where = options.config_file or "--config"
        if not isinstance(section, dict):
            raise InputError(f"{where}: `rules` must be a mapping with `disable` and/or `severity`")
        unknown = sorted(set(section) - {"disable", "severity"})
        if unknown:
            raise InputError(f"{where}: rules.{unknown[0]} is not a setting (use disable or severity)")
        disable = section.get("disable") or []
        if isinstance(disable, str):
            disable = [disable]
        if not isinstance(disable, list):
            raise InputError(f"{where}: rules.disable must be a list of rule codes or names")
        severity_map = section.get("severity") or {}
        if not isinstance(severity_map, dict):
            raise InputError(f"{where}: rules.severity must map rule codes or names to a severity")
        severities: dict[str, Severity] = {}
        for key, value in severity_map.items():
            try:
                severities[_resolve(catalogue, key, where)] = Severity(str(value).lower())
            except ValueError:
                raise InputError(
                    f"{where}: rules.severity.{key}: {value!r} is not one of {', '.join(s.value for s in Severity)}"
                ) from None
        return cls(frozenset(_resolve(catalogue, key, where) for key in disable), severities)

    def apply(self, findings: Iterable[Finding]) -> list[Finding]:
        """Drop disabled rules' findings and set configured severities, whichever stage raised them."""
        out = []
        for f in findings:
            if f.rule in self.disabled:
                continue
            severity = self.severity.get(f.rule)
            if severity is not None and severity != f.severity:
                f = Finding(f.rule, severity, f.object, f.message, f.file, f.line, f.details)
            out.append(f)
        return out


def _resolve(catalogue: Catalogue, key: Any, where: str) -> str:
    text = str(key).strip()
    found = catalogue.get(text) or catalogue.by_name(text)
    if found is None:
        raise InputError(f"{where}: no rule {text!r} (give a code like IX05 or a name like included-columns)")
    return found.code


def run_rules(
    capture: Capture,
    options: Options,
    *,
    plan: MigrationPlan | None = None,
    translation: Translation | None = None,
    only: Collection[str] | None = None,
) -> list[Finding]:
    """Run every registered check (or those of the rules in `only`) whose rule applies to the target engine and
    version of `options`; return their findings."""
    catalogue = load_catalogue(options.rules_dir)
    settings = RuleSettings.from_options(options, catalogue)
    ctx = RuleContext(capture, options, catalogue, plan, translation)
    findings: list[Finding] = []
    for check in registered_checks():
        if only is not None and check.code not in only:
            continue
        rule_ = catalogue.get(check.code)
        if rule_ is None:
            raise RuntimeError(f"rule {check.code} has a check ({check.where}) but no YAML in rules/")
        if check.code in settings.disabled or not rule_.applies(options):
            continue
        findings.extend(_run(check, rule_, ctx, settings))
    return sorted(findings, key=lambda f: (f.rule, f.file or "", f.line or 0, f.object, f.message))


def _run(check: Check, rule_: Rule, ctx: RuleContext, settings: RuleSettings) -> list[Finding]:
    try:
        hits = list(check.function(ctx))
    except Exception as exc:  # noqa: BLE001 - one failing check must not lose the others' findings
        if os.environ.get("SQLSRV2TIDB_DEBUG"):
            raise
        return [Finding(
            rule=check.code,
            severity=Severity.INFO,
            object="sqlsrv2tidb",
            message=f"the check for {rule_.name} could not run ({type(exc).__name__}: {exc}); "
                    "its findings are missing, please report this",
        )]
    forced = settings.severity.get(check.code)
    return [_finding(check.code, rule_, hit, forced) for hit in hits]


def _finding(code: str, rule_: Rule, hit: Hit, forced: Severity | None) -> Finding:
    source = hit.source
    return Finding(
        rule=code,
        severity=forced or hit.severity or rule_.severity,
        object=hit.object,
        message=hit.message,
        file=source.file if source is not None else None,
        line=source.line if source is not None else None,
        details=dict(hit.details),
    )


def apply_rule_settings(findings: Iterable[Finding], options: Options) -> list[Finding]:
    """Apply the override file's `rules:` section to findings raised by any stage."""
    if not (options.config or {}).get("rules"):
        return list(findings)
    return RuleSettings.from_options(options, load_catalogue(options.rules_dir)).apply(findings)
