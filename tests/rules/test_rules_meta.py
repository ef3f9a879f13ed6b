"""Every rule in the catalogue has logic, and every code the package can raise has a rule.

Logic means a check registered with `@rule(CODE)`, or the code written as a string literal in the
package source where a stage creates the finding or note (`Finding(rule="TY03", ...)`,
`Note("QY01", ...)`), or named in a data file under rules/mappings/ that the package reads.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import yaml

import sqlsrv2tidb
from sqlsrv2tidb.resources import builtin_dir
from sqlsrv2tidb.rules.catalogue import load_catalogue
from sqlsrv2tidb.rules.checks import registered_checks
from sqlsrv2tidb.rules.codes import PREFIXES

PACKAGE = Path(sqlsrv2tidb.__file__).resolve().parent
CODE = re.compile(rf"^(?:{'|'.join(PREFIXES)})\d{{2}}$")


@functools.cache
def literal_codes() -> dict[str, list[str]]:
    """Code-shaped string constants in the package source, with where they appear."""
    found: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "_data" in path.relative_to(PACKAGE).parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and CODE.match(node.value):
                found.setdefault(node.value, []).append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
    return found


def mapping_codes() -> set[str]:
    """Codes named as values in rules/mappings/ (e.g. the finding a type mapping raises)."""
    codes: set[str] = set()

    def walk(value: object) -> None:
        if isinstance(value, str) and CODE.match(value):
            codes.add(value)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    folder = builtin_dir("rules") / "mappings"
    for path in sorted(folder.rglob("*.y*ml")) if folder.is_dir() else []:
        walk(yaml.safe_load(path.read_text(encoding="utf-8")))
    return codes


def test_every_rule_has_logic():
    registered = {c.code for c in registered_checks()}
    emitted = set(literal_codes()) | mapping_codes()
    orphans = sorted(r.code for r in load_catalogue(None) if r.code not in registered | emitted)
    assert not orphans, f"rules with a YAML but no check and no emitting code: {orphans}"


def test_every_registered_or_emitted_code_has_a_rule():
    catalogue = load_catalogue(None)
    registered = {c.code: c.where for c in registered_checks()}
    missing = {code: where for code, where in registered.items() if code not in catalogue}
    missing |= {code: where[0] for code, where in literal_codes().items() if code not in catalogue}
    missing |= {code: "rules/mappings" for code in mapping_codes() if code not in catalogue}
    assert not missing, f"codes without rules/<category>/<CODE>.yaml: {missing}"


def test_the_scan_sees_registered_checks_and_literals():
    # The meta-tests above are only as good as this scan: it must see the decorator's literal.
    where = literal_codes()
    assert any("checks_indexes.py" in w for w in where["IX01"])
    assert {c.code for c in registered_checks()} <= set(where)
