"""What every statement parser writes to: the actions it recognised and the findings it raised."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...model import SourceRef
from .actions import Action, CreateTable, ObjectName
from .batches import SqlcmdState
from .problems import Findings
from .tokens import Token

DEFAULT_SCHEMA = "dbo"


@dataclass
class Context:
    findings: Findings
    state: SqlcmdState = field(default_factory=SqlcmdState)
    actions: list[Action] = field(default_factory=list)
    tables: set[tuple[str, str]] = field(default_factory=set)
    """The tables defined so far, as (schema, name) case-folded."""

    def ref(self, tok: Token) -> SourceRef:
        return SourceRef(tok.source.path, tok.line)

    def add(self, action: Action | None) -> None:
        if action is not None:
            self.actions.append(action)
            if isinstance(action, CreateTable):
                self.tables.add(_folded(action.table.name))

    def defines(self, name: ObjectName) -> bool:
        """Whether a table of this name was defined before: then rows into it are only counted, never reported."""
        return _folded(name) in self.tables


def split_name(name: ObjectName, default_schema: str = DEFAULT_SCHEMA) -> tuple[str, str]:
    """`('Sales', 'Orders')` -> ('Sales', 'Orders'); `('Orders',)` -> ('dbo', 'Orders'); database parts dropped."""
    if len(name) >= 2 and name[-2]:
        return name[-2], name[-1]
    return default_schema, name[-1]


def _folded(name: ObjectName) -> tuple[str, str]:
    schema, table = split_name(name)
    return schema.casefold(), table.casefold()


def display(name: ObjectName) -> str:
    schema, obj = split_name(name)
    return f"{schema}.{obj}"


def is_temporary(name: ObjectName) -> bool:
    """`#t`, `##t` and `@t` are session objects, never part of the schema."""
    return name[-1].startswith(("#", "@"))
