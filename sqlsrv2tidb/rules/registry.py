"""Where checks are registered under their rule code, and where a bad code is refused at import.

A check is a function of a `RuleContext` that yields `Hit`s; the engine turns each hit into a
`Finding` carrying the check's code and the catalogue's severity, so a check never spells its code
twice and a user's catalogue override changes every finding of that code consistently.

    @rule("IX01")
    def fulltext_indexes(ctx: RuleContext) -> Iterator[Hit]:
        ...
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..model import Severity, SourceRef
from .codes import validate_code
from .context import RuleContext


@dataclass(frozen=True)
class Hit:
    """One occurrence a check found: the engine adds the code and severity to make it a Finding."""

    object: str
    message: str
    source: SourceRef | None = None
    details: dict[str, Any] = field(default_factory=dict)
    severity: Severity | None = None
    """Only when this occurrence is clearly worse or milder than the rule's usual severity."""


CheckFn = Callable[[RuleContext], Iterable[Hit]]


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


def checks_so_far() -> list[Check]:
    """The checks registered by the check modules imported so far, in code order.

    `checks.registered_checks` imports every check module first; call that one.
    """
    return [_CHECKS[code] for code in sorted(_CHECKS)]
