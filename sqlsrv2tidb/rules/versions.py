"""Version ranges, as a rule's `applies_to` writes them: `all`, `>=6.6`, `<7.2`, `>=6.6,<8.5`.

The versions are those of the rule's engine: TiDB's, or MySQL's for an MY rule (`<8.0.16`). A rule
about a gap stops applying from the version that closed it, so the same capture assessed for TiDB
7.1 and 8.5 (or MySQL 8.0.15 and 8.4) gets different findings. Comparisons use `options.Version`, the one
version type every stage shares.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass

from ..errors import UsageError
from ..options import Version

_OPS: dict[str, Callable[[Version, Version], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
    "==": operator.eq,
    "=": operator.eq,
}
_TERM = re.compile(r"^\s*(>=|<=|==|=|>|<)\s*(v?\d+(?:\.\d+){0,2})\s*$")


@dataclass(frozen=True)
class VersionRange:
    text: str
    terms: tuple[tuple[str, Version], ...] = ()
    """Every term must hold; no terms means all versions."""

    @classmethod
    def parse(cls, text: object) -> VersionRange:
        """Read an `applies_to` value; raise ValueError saying what is wrong."""
        if text is None:
            raise ValueError("applies_to is missing (use \"all\" for every version)")
        raw = str(text).strip()
        if raw.lower() == "all":
            return cls("all")
        terms = []
        for part in raw.split(","):
            m = _TERM.match(part)
            if not m:
                raise ValueError(f"applies_to {raw!r}: {part.strip()!r} is not like \">=6.6\" or \"<8.5\"")
            try:
                terms.append((m[1], Version.parse(m[2])))
            except UsageError as exc:
                raise ValueError(f"applies_to {raw!r}: {exc}") from None
        return cls(raw, tuple(terms))

    def contains(self, version: Version) -> bool:
        return all(_OPS[op](version, bound) for op, bound in self.terms)

    def __str__(self) -> str:
        return self.text
