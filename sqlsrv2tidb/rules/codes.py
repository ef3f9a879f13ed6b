"""What a rule code looks like: two capital letters naming its category, two digits.

The catalogue checks the YAML files against this, the registry checks every `@rule(CODE)`, and the
rules page lists the categories; it is its own module so that none of them imports the others for it.
"""

from __future__ import annotations

import re

CODE_PATTERN = re.compile(r"^[A-Z]{2}\d{2}$")

PREFIXES: dict[str, str] = {
    "IN": "input",
    "TY": "types",
    "ID": "identity",
    "DI": "distribution",
    "IX": "indexes",
    "TB": "tables",
    "MO": "modules",
    "QY": "queries",
    "RP": "replay",
    "DA": "data",
    "MY": "mysql",
    "ST": "stages",
}
"""Code prefix -> category, as rules/README.md lists them."""

ENGINE_OF_CATEGORY: dict[str, str] = {"mysql": "mysql"}
"""The target engine a category's rules are about, when not TiDB: an MY rule is MySQL's, its versions MySQL's."""


def category_of(code: str) -> str | None:
    return PREFIXES.get(code[:2])


def engine_of(code: str) -> str:
    """`mysql` for a MySQL rule (MY), `tidb` for every other: whose versions the rule's `applies_to` names."""
    return ENGINE_OF_CATEGORY.get(PREFIXES.get(code[:2], ""), "tidb")


def validate_code(code: str) -> str:
    """Return `code` if it is two capital letters of a known prefix and two digits, else raise ValueError."""
    if not isinstance(code, str) or not CODE_PATTERN.match(code):
        raise ValueError(f"rule code {code!r} is not two capital letters and two digits (e.g. IX01)")
    if code[:2] not in PREFIXES:
        raise ValueError(f"rule code {code!r} has an unknown prefix; known: {', '.join(PREFIXES)}")
    return code
