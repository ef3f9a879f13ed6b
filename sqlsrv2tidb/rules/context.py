"""What a check may look at: the capture, the options, the catalogue, and the plan and translation if they ran.

Checks take it, the registry types them by it and the engine builds it; it is its own module so
that a check depends on this and the registry, never on the engine that runs it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Capture, Database, Module, Table
from ..model.plan import MigrationPlan, TablePlan
from ..model.translation import Translation
from ..options import Options
from .catalogue import Catalogue


@dataclass(frozen=True)
class RuleContext:
    """Everything a check may look at; `plan` and `translation` are None when those stages did not run."""

    capture: Capture
    options: Options
    catalogue: Catalogue
    plan: MigrationPlan | None = None
    translation: Translation | None = None

    @property
    def database(self) -> Database:
        return self.capture.database

    def plan_for(self, table: Table) -> TablePlan | None:
        return self.plan.table(table.schema, table.name) if self.plan is not None else None

    def module(self, qualified: str) -> Module | None:
        """Find a module by `schema.name` or `name`, case-insensitively, ignoring brackets."""
        parts = [p.strip("[]\"") for p in qualified.split(".")]
        name = parts[-1].casefold()
        schema = parts[-2].casefold() if len(parts) > 1 else None
        hits = [m for m in self.database.modules if m.name.casefold() == name]
        if schema is not None:
            hits = [m for m in hits if (m.schema or "").casefold() == schema]
        return hits[0] if len(hits) == 1 else None
