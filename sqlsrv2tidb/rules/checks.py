"""The checks the engine runs: importing each `checks_*` module registers its `@rule` functions.

The list of check modules is here, not in the registry, so that a check module imports the
registry (for `@rule`) and the registry imports no check.
"""

from __future__ import annotations

from . import (  # noqa: F401 - importing registers the checks
    checks_constraints,
    checks_indexes,
    checks_modules,
    checks_mysql,
    checks_tables,
    checks_views,
)
from .registry import Check, checks_so_far


def registered_checks() -> list[Check]:
    """Every check of every check module, in code order."""
    return checks_so_far()
