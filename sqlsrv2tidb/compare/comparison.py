"""What comparing two answers found, and what the ways of walking them share.

`Comparison` is the finding: equal or not, the first differing rows side by side (`RowPair`), notes,
where equal answers agree only up to ties, and why none could be judged. `items_of` turns one side's
raw rows into the digests they are compared by (`values.RowShape`); a `Group` holds the rows of an
ordered answer tied on the ORDER BY key.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model.workload import jsonable
from .values import RowShape, Unheld

FIRST_DIFFERENCES = 10
MASK = (1 << 64) - 1

Stream = Iterable[Sequence[Sequence[Any]]]
"""One side's raw rows, in batches (fetchmany)."""


@dataclass(frozen=True)
class RowPair:
    """One difference: a SQL Server row and the target row in its place (either may be missing)."""

    position: int | None
    """The row's place (0-based) in an ordered answer; None in a multiset."""
    sql_server: tuple[Any, ...] | None
    target: tuple[Any, ...] | None

    def to_json(self) -> dict[str, Any]:
        return {"position": self.position, "sql_server": shown(self.sql_server), "target": shown(self.target)}


def shown(row: tuple[Any, ...] | None) -> list[Any] | None:
    if row is None:
        return None
    return [repr(v) if isinstance(v, Unheld) else jsonable(v) for v in row]


@dataclass
class Comparison:
    method: str
    """ordered, multiset, or multiset by buckets."""
    sql_server_rows: int = 0
    target_rows: int = 0
    equal: bool = True
    first: list[RowPair] = field(default_factory=list)
    differing_rows: int = 0
    """Rows on either side without a match on the other (what was found of them)."""
    notes: list[str] = field(default_factory=list)
    ties: list[str] = field(default_factory=list)
    """Where equal answers agree only up to ties (tied rows a limit cut, numbers swapped among ties)."""
    undetermined: str | None = None
    """Why the answers could not be judged (a cut tie group too large to read, or changed between reads)."""
    same_rows: bool = False
    """Ordered answers that differ only in the order of their rows (the same rows, as a multiset)."""
    doubles: bool = False
    """The answer has double-precision columns (rounded to some digits before they were compared)."""

    def add(self, pair: RowPair) -> None:
        self.equal = False
        self.differing_rows += 1
        if len(self.first) < FIRST_DIFFERENCES:
            self.first.append(pair)


def items_of(stream: Stream, shape: RowShape) -> Iterator[tuple[tuple[int, ...], tuple[Any, ...]]]:
    """Each row's normalized values and the digests it is compared by (one, or more with numbered columns)."""
    items, normalize = shape.items, shape.normalize
    for batch in stream:
        for raw in batch:
            values = normalize(raw)
            yield items(values), values


@dataclass
class Group:
    """Consecutive rows of an ordered answer that share the ORDER BY key."""

    key: tuple[Any, ...]
    start: int
    """The 0-based place of its first row in the answer."""
    rows: list[tuple[int, tuple[Any, ...]]] = field(default_factory=list)
    """The items (digest, the row's values) of the rows kept, the first ones up to a bound."""
    count: int = 0
    kept: int = 0
    """Rows whose items are in `rows`; the items of the others are only summed in `total`."""
    total: int = 0
    """Sum of the digests of the items not kept (mod 2^64)."""

    @property
    def whole(self) -> bool:
        """Every row of the group is kept (none only summed)."""
        return self.kept == self.count


def unmatched(rows: list[tuple[int, tuple[Any, ...]]], extra: Counter[int]) -> list[tuple[Any, ...]]:
    """The rows of the items left over, each row once (a row with numbered columns has several items)."""
    found: list[tuple[Any, ...]] = []
    seen: set[int] = set()
    for digest, values in rows:
        if extra[digest] > 0:
            extra[digest] -= 1
            if id(values) not in seen:
                seen.add(id(values))
                found.append(values)
    return found
