"""Writes docs/rules.md from the catalogue, so the documented rule list cannot drift from the YAML.

    python -m sqlsrv2tidb.rules.docs            # rewrite docs/rules.md
    python -m sqlsrv2tidb.rules.docs --check    # exit 1 if docs/rules.md is out of date

The test suite runs the check, so adding or changing a rule's YAML without regenerating fails.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from ..options import ENGINE_NAMES
from .catalogue import Catalogue, Rule, load_catalogue
from .codes import PREFIXES

DOC_PATH = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
COMMAND = "python -m sqlsrv2tidb.rules.docs"


def render_markdown(catalogue: Catalogue) -> str:
    rules = list(catalogue)
    out = [
        "# Rules",
        "",
        f"<!-- Generated from rules/ by `{COMMAND}`; edit the YAML files, not this page. -->",
        "",
        "Every finding sqlsrv2tidb reports carries one of these codes. `sqlsrv2tidb rules list` prints",
        "the same list and `sqlsrv2tidb rules show CODE` one rule in full. A rule applies only to the",
        "engine and versions in its *Target* column: TiDB (`--tidb-version`, default 8.5), or MySQL for",
        "the MY rules (`--target-engine mysql --mysql-version`, default 8.4). Effort is per finding:",
        "simple = 0.25 day, medium = 1 day, significant = 3 days; rules about code modules scale it",
        "by the module's size.",
        "",
        "| Code | Severity | Name | Target | Effort | Summary |",
        "|---|---|---|---|---|---|",
    ]
    for r in rules:
        out.append(f"| [{r.code}](#{_anchor(r)}) | {r.severity.value} | {r.name} | {_cell(r.versions)} | "
                   f"{r.effort} | {_cell(r.summary)} |")
    for prefix, category in PREFIXES.items():
        group = [r for r in rules if r.code.startswith(prefix)]
        if not group:
            continue
        out += ["", f"## {prefix}: {category}"]
        for r in group:
            out += _section(r)
    return "\n".join(out) + "\n"


def _anchor(rule: Rule) -> str:
    return f"{rule.code}-{rule.name}".lower()


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _section(rule: Rule) -> list[str]:
    lines = [
        "",
        f"### {rule.code} {rule.name}",
        "",
        rule.summary,
        "",
        f"Severity **{rule.severity.value}** · {ENGINE_NAMES[rule.engine]} **{rule.applies_to}** · effort **{rule.effort}**",
        "",
        "**Why it matters.** " + " ".join(rule.rationale.split()),
        "",
        f"**What to do on {ENGINE_NAMES[rule.engine]}.** " + " ".join(rule.remediation.split()),
    ]
    ex = rule.examples
    if ex is not None and ex.kind in ("schema", "query", "file"):
        if ex.schema:
            lines += ["", "Schema for the examples:", "", "```sql", ex.schema.strip(), "```"]
        lines += ["", "Raises it:", "", "```sql", ex.fires.strip(), "```", "", "Does not:", "", "```sql",
                  ex.passes.strip(), "```"]
    lines += ["", "References: " + ", ".join(f"<{ref}>" for ref in rule.references)]
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check" in args
    paths = [a for a in args if not a.startswith("-")]
    path = Path(paths[0]) if paths else DOC_PATH
    text = render_markdown(load_catalogue(None))
    if check:
        current = path.read_text(encoding="utf-8") if path.is_file() else ""
        if current != text:
            print(f"{path} is out of date; run `{COMMAND}`", file=sys.stderr)
            return 1
        return 0
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"Wrote {path} ({len(list(load_catalogue(None)))} rules)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
