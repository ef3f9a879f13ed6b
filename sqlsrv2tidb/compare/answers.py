"""Two answers to the same query compared row by row, in memory that does not grow with the answer.

Rows are compared by their digests (`values.RowShape`: normalized under the target's column types,
64 bits each); values are kept only for rows that may be shown.

- **Ordered** (the statement orders its rows): both streams are walked in step, a group of rows at a
  time, a group being the consecutive rows that share the ORDER BY key. Two groups must have the
  same key and the same rows as a multiset: SQL Server and the target may return rows tied on the
  key in any order, and that is not a difference. A group longer than `GROUP_ROWS` is compared by
  its row count and digest sum alone, so even an ORDER BY over few distinct values stays bounded.
- **Multiset** (no ORDER BY): each row falls in one of `BUCKETS` buckets by its digest's top byte;
  each side keeps a count and a sum (mod 2^64) of its row digests per bucket. Equal buckets are equal
  multisets (to the odds of a 64-bit collision). While an answer is small (up to `KEEP_ROWS` rows)
  its rows are kept too and the differing rows come straight from them; for a larger one both
  statements are run again (`again`) and only the rows of the differing buckets are kept.

This is the chunk-checksum method the data stage verifies tables with (`data.verify`), applied to a
query's answer instead of a table's key ranges.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import zip_longest
from typing import Any

from ..model.workload import jsonable
from .values import RowShape, Unheld

BUCKETS = 256
KEEP_ROWS = 20_000
GROUP_ROWS = 10_000
FIRST_DIFFERENCES = 10
MASK = (1 << 64) - 1

Stream = Iterable[Sequence[Sequence[Any]]]
"""One side's raw rows, in batches (fetchmany)."""
Again = Callable[[], tuple[Stream, Stream]]
"""Both statements run again: fresh streams of both sides, for reading the rows of differing buckets."""


@dataclass(frozen=True)
class RowPair:
    """One difference: a SQL Server row and the target row in its place (either may be missing)."""

    position: int | None
    """The row's place (0-based) in an ordered answer; None in a multiset."""
    sql_server: tuple[Any, ...] | None
    target: tuple[Any, ...] | None

    def to_json(self) -> dict[str, Any]:
        return {"position": self.position, "sql_server": _shown(self.sql_server), "target": _shown(self.target)}


def _shown(row: tuple[Any, ...] | None) -> list[Any] | None:
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

    def add(self, pair: RowPair) -> None:
        self.equal = False
        self.differing_rows += 1
        if len(self.first) < FIRST_DIFFERENCES:
            self.first.append(pair)


def _rows(stream: Stream, shape: RowShape) -> Iterator[tuple[int, tuple[Any, ...]]]:
    for batch in stream:
        for raw in batch:
            values = shape.normalize(raw)
            yield shape.digest(values), values


# Ordered -----------------------------------------------------------------------------------------

@dataclass
class _Group:
    key: tuple[Any, ...]
    start: int
    rows: list[tuple[int, tuple[Any, ...]]] = field(default_factory=list)
    count: int = 0
    total: int = 0
    """Sum of the digests of the rows past GROUP_ROWS (mod 2^64)."""


def _groups(stream: Stream, shape: RowShape, positions: Sequence[int]) -> Iterator[_Group]:
    group: _Group | None = None
    index = 0
    for digest, values in _rows(stream, shape):
        key = shape.key_of(values, positions)
        if group is None or key != group.key:
            if group is not None:
                yield group
            group = _Group(key, index)
        if len(group.rows) < GROUP_ROWS:
            group.rows.append((digest, values))
        else:
            group.total = (group.total + digest) & MASK
        group.count += 1
        index += 1
    if group is not None:
        yield group


def compare_ordered(sql_server: Stream, target: Stream, shape: RowShape, positions: Sequence[int]) -> Comparison:
    """Both answers in their ORDER BY order; rows tied on the key (`positions`) compared as a multiset."""
    result = Comparison("ordered")
    for left, right in zip_longest(_groups(sql_server, shape, positions), _groups(target, shape, positions)):
        result.sql_server_rows += left.count if left else 0
        result.target_rows += right.count if right else 0
        if left is not None and right is not None and left.key == right.key and left.count == right.count \
                and left.total == right.total and Counter(d for d, _ in left.rows) == Counter(d for d, _ in right.rows):
            continue
        _group_differences(result, left, right)
    return result


def _group_differences(result: Comparison, left: _Group | None, right: _Group | None) -> None:
    lefts = Counter(d for d, _ in left.rows) if left else Counter()
    rights = Counter(d for d, _ in right.rows) if right else Counter()
    only_left = _unmatched(left.rows if left else [], lefts - rights)
    only_right = _unmatched(right.rows if right else [], rights - lefts)
    start = left.start if left else right.start if right else 0
    if not only_left and not only_right:  # same kept rows; the rows past GROUP_ROWS differ
        result.equal = False
        result.notes.append(f"rows tied on the ORDER BY key from position {start} differ past the first "
                            f"{GROUP_ROWS:,} (compared by count and checksum)")
        return
    for i, (a, b) in enumerate(zip_longest(only_left, only_right)):
        result.add(RowPair(start + i, a, b))


def _unmatched(rows: list[tuple[int, tuple[Any, ...]]], extra: Counter[int]) -> list[tuple[Any, ...]]:
    found = []
    for digest, values in rows:
        if extra[digest] > 0:
            extra[digest] -= 1
            found.append(values)
    return found


# Multiset ----------------------------------------------------------------------------------------

@dataclass
class _Buckets:
    counts: list[int] = field(default_factory=lambda: [0] * BUCKETS)
    sums: list[int] = field(default_factory=lambda: [0] * BUCKETS)
    rows: int = 0
    kept: list[tuple[int, tuple[Any, ...]]] | None = field(default_factory=list)


def _bucket(digest: int) -> int:
    return digest >> 56


def _fill(stream: Stream, shape: RowShape) -> _Buckets:
    b = _Buckets()
    counts, sums = b.counts, b.sums
    for digest, values in _rows(stream, shape):
        i = digest >> 56
        counts[i] += 1
        sums[i] = (sums[i] + digest) & MASK
        b.rows += 1
        if b.kept is not None:
            if len(b.kept) < KEEP_ROWS:
                b.kept.append((digest, values))
            else:
                b.kept = None
    return b


def compare_multiset(sql_server: Stream, target: Stream, shape: RowShape, again: Again | None = None) -> Comparison:
    """Both answers as multisets of rows; `again` re-runs both statements to find the rows of a large answer."""
    left, right = _fill(sql_server, shape), _fill(target, shape)
    result = Comparison("multiset", left.rows, right.rows)
    differing = {i for i in range(BUCKETS) if left.counts[i] != right.counts[i] or left.sums[i] != right.sums[i]}
    if not differing:
        return result
    result.equal = False
    if left.kept is not None and right.kept is not None:
        _multiset_differences(result, left.kept, right.kept)
        return result
    result.method = "multiset by buckets"
    if again is None:
        result.notes.append(f"{len(differing)} of {BUCKETS} row buckets differ; the rows were not read again")
        return result
    streams = again()
    kept_left, full_left = _kept_in(streams[0], shape, differing)
    kept_right, full_right = _kept_in(streams[1], shape, differing)
    _multiset_differences(result, kept_left, kept_right)
    if not (full_left and full_right):
        result.notes.append(f"the {len(differing)} differing bucket(s) hold more than {KEEP_ROWS:,} rows; the rows "
                            "shown come from the first of them")
    if result.differing_rows == 0:
        result.notes.append("the answers differed when first read and not when read again: a table changed meanwhile")
    return result


def _kept_in(stream: Stream, shape: RowShape, buckets: set[int]) -> tuple[list[tuple[int, tuple[Any, ...]]], bool]:
    kept: list[tuple[int, tuple[Any, ...]]] = []
    complete = True
    for digest, values in _rows(stream, shape):
        if _bucket(digest) in buckets:
            if len(kept) < KEEP_ROWS:
                kept.append((digest, values))
            else:
                complete = False
    return kept, complete


def _multiset_differences(result: Comparison, left: list[tuple[int, tuple[Any, ...]]],
                          right: list[tuple[int, tuple[Any, ...]]]) -> None:
    lefts, rights = Counter(d for d, _ in left), Counter(d for d, _ in right)
    only_left = _unmatched(left, lefts - rights)
    only_right = _unmatched(right, rights - lefts)
    for a, b in zip_longest(sorted(only_left, key=repr), sorted(only_right, key=repr)):
        result.add(RowPair(None, a, b))
