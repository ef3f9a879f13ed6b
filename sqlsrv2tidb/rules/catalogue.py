"""The rules catalogue: one YAML file per rule code, read from `rules/` and a user's `--rules` folder.

Everything a DBA reads about a finding (name, severity, rationale, remediation, target versions,
effort, links, examples) lives in these files, not in code, so the report, `rules list`,
`rules show` and docs/rules.md all say the same thing. A user's folder overrides single rules by
code: a file there named `IX06.yaml` may hold only `severity: info` and keeps the rest of ours.
`rules/mappings/` (type and collation maps) and README files are not rules and are skipped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..errors import InputError, UsageError
from ..model import Severity
from ..options import ENGINE_NAMES, Options
from ..resources import search_path
from .codes import CODE_PATTERN, PREFIXES, engine_of, validate_code
from .versions import VersionRange

EFFORT_DAYS: dict[str, float] = {"simple": 0.25, "medium": 1.0, "significant": 3.0}
"""Person-days per finding for each effort bucket (rules/README.md); the report sums them."""

EXAMPLE_KINDS = ("schema", "query", "file", "replay")
REQUIRED = ("code", "name", "severity", "summary", "rationale", "remediation", "applies_to", "effort", "references")
KNOWN_FIELDS = {*REQUIRED, "category", "examples"}
_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


@dataclass(frozen=True)
class Examples:
    """T-SQL that must raise the rule (`fires`) and T-SQL that must not (`passes`); the tests run both."""

    kind: str
    fires: str
    passes: str
    schema: str | None = None
    """For `query`/`file` examples: a schema script read beside the workload."""
    workload: str | None = None
    """A workload spec YAML read beside the example."""
    filename: str | None = None
    """For `file` examples: the name the example is written under (`events.xml`), detected by content."""
    options: dict[str, Any] = field(default_factory=dict)
    encoding: str | None = None
    """The codec `fires`/`passes` are saved in (default UTF-8), for rules about how a file's bytes are read."""
    tested_by: str | None = None
    """For `replay` examples, which need a live target: the test that proves them (`tests/x.py::test_y`)."""


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    category: str
    severity: Severity
    summary: str
    rationale: str
    remediation: str
    applies_to: VersionRange
    effort: str
    references: tuple[str, ...]
    examples: Examples | None
    path: Path
    overridden_by: Path | None = None

    @property
    def effort_days(self) -> float:
        return EFFORT_DAYS[self.effort]

    @property
    def engine(self) -> str:
        """The target engine the rule is about (`tidb`, or `mysql` for an MY rule); `applies_to` is its versions."""
        return engine_of(self.code)

    @property
    def versions(self) -> str:
        """`TiDB all`, `MySQL <8.0.16`: the engine and versions the rule applies to, as lists show it."""
        return f"{ENGINE_NAMES[self.engine]} {self.applies_to}"

    def applies(self, options: Options) -> bool:
        """Whether the rule applies to the target `options` name: its engine, at a version in its range."""
        return options.target_engine == self.engine and self.applies_to.contains(options.version)


@dataclass(frozen=True)
class Catalogue:
    rules: dict[str, Rule]

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules[c] for c in sorted(self.rules))

    def __len__(self) -> int:
        return len(self.rules)

    def __contains__(self, code: object) -> bool:
        return isinstance(code, str) and code.upper() in self.rules

    def get(self, code: str) -> Rule | None:
        return self.rules.get(code.strip().upper())

    def __getitem__(self, code: str) -> Rule:
        found = self.get(code)
        if found is None:
            raise UsageError(f"no rule {code!r} in the catalogue; `sqlsrv2tidb rules list` shows them all")
        return found

    def by_name(self, name: str) -> Rule | None:
        return next((r for r in self.rules.values() if r.name == name), None)

    def applies(self, code: str, options: Options) -> bool:
        """Whether rule `code` applies to the target `options` name (an unknown code applies everywhere)."""
        found = self.get(code)
        return True if found is None else found.applies(options)


def load_catalogue(override_dir: Path | None = None) -> Catalogue:
    """Read every rule YAML, ours first, then the user's folder over it, code by code."""
    if override_dir is not None and not Path(override_dir).is_dir():
        raise InputError(f"--rules {override_dir}: no such folder")
    folders = search_path("rules", Path(override_dir) if override_dir is not None else None)
    builtin, user = folders[-1], (folders[0] if len(folders) > 1 else None)
    raw: dict[str, tuple[dict[str, Any], Path]] = {}
    for path in _rule_files(builtin):
        data = _read_yaml(path)
        code = _code_of(path, data)
        if code in raw:
            raise InputError(f"{path}: rule {code} is also defined in {raw[code][1]}")
        raw[code] = (data, path)
    overrides: dict[str, Path] = {}
    if user is not None:
        for path in _rule_files(user):
            data = _read_yaml(path)
            code = _code_of(path, data)
            if code in overrides:
                raise InputError(f"{path}: rule {code} is also defined in {overrides[code]}")
            overrides[code] = path
            base, ours = raw.get(code, ({}, path))
            raw[code] = ({**base, **data}, ours)
    rules = {code: _build(data, path, overrides.get(code)) for code, (data, path) in raw.items()}
    return Catalogue(dict(sorted(rules.items())))


def _rule_files(folder: Path) -> list[Path]:
    out = []
    for path in sorted(folder.rglob("*.y*ml")):
        rel = path.relative_to(folder)
        if rel.parts[0] == "mappings" or path.suffix not in (".yaml", ".yml"):
            continue
        out.append(path)
    return out


_CACHE: dict[tuple[str, int, int], dict[str, Any]] = {}


def _read_yaml(path: Path) -> dict[str, Any]:
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size)
    if key in _CACHE:
        return dict(_CACHE[key])
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark else str(path)
        raise InputError(f"{where}: not valid YAML ({getattr(exc, 'problem', None) or exc})") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: a rule file holds a mapping of fields (code, name, severity, ...)")
    _CACHE[key] = data
    return dict(data)


def _code_of(path: Path, data: dict[str, Any]) -> str:
    stem = path.stem
    if not CODE_PATTERN.match(stem):
        raise InputError(f"{path}: a rule file is named after its code, e.g. IX01.yaml")
    if stem[:2] not in PREFIXES:
        raise InputError(f"{path}: unknown code prefix {stem[:2]!r}; known: {', '.join(PREFIXES)}")
    code = data.get("code", stem)
    if code != stem:
        raise InputError(f"{path}: code {code!r} does not match the file name")
    return stem


def _build(data: dict[str, Any], ours: Path, overridden_by: Path | None) -> Rule:
    path = overridden_by or ours  # the file to name in an error is the one the user can fix
    missing = [f for f in REQUIRED if data.get(f) in (None, "", [])]
    if missing:
        raise InputError(f"{path}: missing {', '.join(missing)}")
    unknown = sorted(set(data) - KNOWN_FIELDS)
    if unknown:
        raise InputError(f"{path}: unknown field(s) {', '.join(unknown)}")
    code = validate_code(str(data["code"]))
    name = str(data["name"])
    if not _NAME.match(name):
        raise InputError(f"{path}: name {name!r} is not kebab-case (e.g. filtered-index)")
    try:
        severity = Severity(str(data["severity"]).lower())
    except ValueError:
        raise InputError(
            f"{path}: severity {data['severity']!r} is not one of {', '.join(s.value for s in Severity)}"
        ) from None
    effort = str(data["effort"]).lower()
    if effort not in EFFORT_DAYS:
        raise InputError(f"{path}: effort {data['effort']!r} is not one of {', '.join(EFFORT_DAYS)}")
    try:
        applies_to = VersionRange.parse(data["applies_to"])
    except ValueError as exc:
        raise InputError(f"{path}: {exc}") from None
    category = str(data.get("category") or PREFIXES[code[:2]])
    if category != PREFIXES[code[:2]]:
        raise InputError(f"{path}: category {category!r} does not match prefix {code[:2]} ({PREFIXES[code[:2]]})")
    refs = data["references"]
    if isinstance(refs, str):
        refs = [refs]
    if not isinstance(refs, list) or not all(isinstance(r, str) for r in refs):
        raise InputError(f"{path}: references must be a list of URLs")
    return Rule(
        code=code,
        name=name,
        category=category,
        severity=severity,
        summary=" ".join(str(data["summary"]).split()),
        rationale=str(data["rationale"]).strip(),
        remediation=str(data["remediation"]).strip(),
        applies_to=applies_to,
        effort=effort,
        references=tuple(refs),
        examples=_examples(data.get("examples"), path),
        path=ours,
        overridden_by=overridden_by,
    )


def _examples(data: Any, path: Path) -> Examples | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise InputError(f"{path}: examples must be a mapping (kind, fires, passes)")
    kind = str(data.get("kind", "schema"))
    if kind not in EXAMPLE_KINDS:
        raise InputError(f"{path}: examples.kind {kind!r} is not one of {', '.join(EXAMPLE_KINDS)}")
    options = data.get("options") or {}
    if not isinstance(options, dict):
        raise InputError(f"{path}: examples.options must be a mapping of Options fields")
    known = {"kind", "fires", "passes", "schema", "workload", "filename", "options", "encoding", "tested_by"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise InputError(f"{path}: unknown examples field(s) {', '.join(unknown)}")

    def text(key: str) -> str | None:
        value = data.get(key)
        return None if value is None else str(value)

    return Examples(
        kind=kind,
        fires=text("fires") or "",
        passes=text("passes") or "",
        schema=text("schema"),
        workload=text("workload"),
        filename=text("filename"),
        options=dict(options),
        encoding=text("encoding"),
        tested_by=text("tested_by"),
    )


def format_rule_list(catalogue: Catalogue, as_json: bool = False) -> str:
    """The `rules list` output: a table of code, severity, name and summary, or JSON."""
    rules = list(catalogue)
    if as_json:
        return json.dumps([_summary_dict(r) for r in rules], indent=1, ensure_ascii=False)
    header = ("CODE", "SEVERITY", "NAME", "SUMMARY")
    rows = [(r.code, r.severity.value, r.name, r.summary) for r in rules]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]
    lines = [
        "  ".join([*(cell.ljust(widths[i]) for i, cell in enumerate(row[:3])), row[3]]).rstrip()
        for row in [header, *rows]
    ]
    lines.append(f"{len(rules)} rules; `sqlsrv2tidb rules show CODE` explains one.")
    return "\n".join(lines)


def _summary_dict(rule: Rule) -> dict[str, Any]:
    return {
        "code": rule.code,
        "name": rule.name,
        "category": rule.category,
        "severity": rule.severity.value,
        "summary": rule.summary,
        "applies_to": str(rule.applies_to),
        "engine": rule.engine,
        "effort": rule.effort,
        "effort_days": rule.effort_days,
        "references": list(rule.references),
    }


def format_rule(catalogue: Catalogue, code: str) -> str:
    """The `rules show CODE` output: everything the catalogue says about one rule."""
    rule = catalogue[code]
    out = [
        f"{rule.code}  {rule.name}",
        f"{rule.summary}",
        "",
        f"Category:    {rule.category}",
        f"Severity:    {rule.severity.value}",
        f"Applies to:  {rule.versions}",
        f"Effort:      {rule.effort} ({rule.effort_days:g} day per finding)",
        "",
        "Why it matters",
        _indent(rule.rationale),
        "",
        f"What to do on {ENGINE_NAMES[rule.engine]}",
        _indent(rule.remediation),
    ]
    ex = rule.examples
    if ex is not None and ex.kind != "replay":
        if ex.schema:
            out += ["", "Schema for the examples", _indent(ex.schema.strip())]
        out += ["", "Raises the rule", _indent(ex.fires.strip()), "", "Does not raise it", _indent(ex.passes.strip())]
    out += ["", "References", *(f"  {ref}" for ref in rule.references)]
    source = rule.overridden_by or rule.path
    out += ["", f"Defined in {source}"]
    return "\n".join(out)


def _indent(text: str) -> str:
    return "\n".join(("  " + line).rstrip() for line in text.splitlines())
