"""Where checks are registered under their rule code, and where a bad code is refused at import.

A check is a function of a `RuleContext` that yields `Hit`s; the engine turns each hit into a
`Finding` carrying the check's code and the catalogue's severity, so a check never spells its code
twice and a user's catalogue override changes every finding of that code consistently.

    @rule("IX01")
    def fulltext_indexes(ctx: RuleContext) -> Iterator[Hit]:
        ...
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..model import Severity, SourceRef

if TYPE_CHECKING:
    from .engine import RuleContext

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
}
"""Code prefix -> category, as rules/README.md lists them."""


def category_of(code: str) -> str | None:
    return PREFIXES.get(code[:2])


def validate_code(code: str) -> str:
    """Return `code` if it is two capital letters of a known prefix and two digits, else raise ValueError."""
    if not isinstance(code, str) or not CODE_PATTERN.match(code):
        raise ValueError(f"rule code {code!r} is not two capital letters and two digits (e.g. IX01)")
    if code[:2] not in PREFIXES:
        raise ValueError(f"rule code {code!r} has an unknown prefix; known: {', '.join(PREFIXES)}")
    return code


@dataclass(frozen=True)
class Hit:
    """One occurrence a check found: the engine adds the code and severity to make it a Finding."""

    object: str
    message: str
    source: SourceRef | None = None
    details: dict[str, Any] = field(default_factory=dict)
    severity: Severity | None = None
    """Only when this occurrence is clearly worse or milder than the rule's usual severity."""


CheckFn = Callable[["RuleContext"], Iterable[Hit]]


@dataclass(frozen=True)
class Check:
    code: str
    function: CheckFn

    @property
    def where(self) -> str:
        return f"{self.function.__module__}.{self.function.__qualname__}"


_CHECKS: dict[str, Check] = {}


def rule(code: str) -> Callable[[CheckFn], CheckFn]:
    """Register a check under `code`; a malformed or duplicate code fails when the module loads."""
    validate_code(code)

    def register(function: CheckFn) -> CheckFn:
        existing = _CHECKS.get(code)
        if existing is not None and existing.function is not function:
            where = f"{function.__module__}.{function.__qualname__}"
            raise ValueError(f"rule {code} is registered twice: {existing.where} and {where}")
        _CHECKS[code] = Check(code, function)
        return function

    return register


def registered_checks() -> list[Check]:
    """Every registered check, in code order (the check modules are imported first)."""
    from . import (  # noqa: F401 - importing registers the checks
        checks_constraints,
        checks_indexes,
        checks_modules,
        checks_tables,
        checks_views,
    )

    return [_CHECKS[code] for code in sorted(_CHECKS)]
