"""What one statement's rewrites share: the schema, names and types they read, the notes they write.

Every rewrite module (`transforms_*`) takes a `Context`, and `transforms` composes those modules
into the pipeline; the context lives apart from both so that a rewrite module depends only on it,
never on the pipeline that calls it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from sqlglot import exp

from ..model import Database
from ..model.translation import Note, Status
from ..model.workload import Scalar
from ..options import Options
from .expression_types import Types
from .mysql_wording import for_mysql
from .naming import NameMap

_Rewrite = TypeVar("_Rewrite", bound=Callable[..., exp.Expr])


def applies_to(*types: type[exp.Expr]) -> Callable[[_Rewrite], _Rewrite]:
    """Declare the node classes (and their subclasses) a bottom-up rewrite can change; it returns
    every other node as it is. The pipeline calls a rewrite only on those, so a node costs the
    few rewrites that concern it, not all thirty."""
    def mark(rewrite: _Rewrite) -> _Rewrite:
        rewrite.node_types = types  # type: ignore[attr-defined]
        return rewrite

    return mark


STATUS_RANK: dict[Status, int] = {"translated": 0, "rewritten": 1, "review": 2, "unsupported": 3}


@dataclass
class Context:
    """What a statement's rewrites may read (schema, names, types) and where they put their notes."""

    database: Database
    names: NameMap
    options: Options
    types: Types
    parameters: dict[str, str] = field(default_factory=dict)
    """Lower-case name (no `@`) -> the source spelling (`@P1`) of parameters that become `?`."""
    samples: dict[str, tuple[Scalar, ...]] = field(default_factory=dict)
    """Lower-case parameter name (no `@`) -> the values captured for it (what the application sent)."""
    local_variables: set[str] = field(default_factory=set)
    """Lower-case names of variables the batch DECLAREd; they become session user variables."""
    previous: exp.Expr | None = None
    """The statement before this one in the same batch (e.g. what @@ROWCOUNT counts)."""
    notes: list[Note] = field(default_factory=list)

    def note(self, code: str, status: Status, message: str) -> None:
        """Record a construct that changed the statement; the same note is kept once. For a MySQL target the
        note names MySQL where it names TiDB (`mysql_wording`)."""
        if self.options.mysql:
            message = for_mysql(code, message)
        if not any(n.code == code and n.message == message for n in self.notes):
            self.notes.append(Note(code, message, status))

    @property
    def status(self) -> Status:
        worst: Status = "translated"
        for note in self.notes:
            if note.status is not None and STATUS_RANK[note.status] > STATUS_RANK[worst]:
                worst = note.status
        return worst

    @property
    def unsupported(self) -> bool:
        return self.status == "unsupported"
