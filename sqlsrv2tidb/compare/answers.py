"""Two answers to the same query compared row by row, in memory that does not grow with the answer.

Rows are compared by their digests (`values.RowShape`: normalized under the target's column types,
64 bits each); values are kept only for rows that may be shown.

- **Ordered** (the statement orders its rows): both streams are walked in step, a group of rows at a
  time, a group being the consecutive rows that share the ORDER BY key. Two groups must have the
  same key and the same rows as a multiset: SQL Server and the target may return rows tied on the
  key in any order, and that is not a difference. A group longer than `GROUP_ROWS` is compared by
  its row count and digest sum alone, so even an ORDER BY over few distinct values stays bounded.
- **Cut** (`ties.Cut`: TOP or OFFSET ... FETCH over an ORDER BY that is not total): the group where
  the limit cuts (the last; with OFFSET the first too) holds as many rows on both sides, with the
  same key, but each server may keep other rows of the tie. Where the two differ, the group is
  looked up in SQL Server's answer without the limit (`tie_groups`): every row either side kept
  must be one of the group's. Then the answers are the same up to ties (a note in `ties`); a
  target row outside the group is a difference.
- **Numbered** (`ties.Numbered`): a row of an answer with ROW_NUMBER() or NTILE() columns stands for
  several digests (`RowShape.items`): the row without the numbers, and each number with its window's
  keys. Rows tied on the keys may swap numbers on either side; the items, compared as a multiset,
  are what is fixed.
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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import zip_longest
from typing import Any

from .comparison import MASK, Comparison, Group, RowPair, Stream, items_of, unmatched
from .tie_groups import Whole, against_whole
from .ties import Cut
from .values import RowShape

BUCKETS = 256
KEEP_ROWS = 20_000
GROUP_ROWS = 10_000

Again = Callable[[], tuple[Stream, Stream]]
"""Both statements run again: fresh streams of both sides, for reading the rows of differing buckets."""


class _Swaps:
    """Whether two answers with numbered columns are also the same row for row: the sums of each side's
    whole-row digests (numbers included), compared once the items have been found equal."""

    def __init__(self, shape: RowShape) -> None:
        self.shape, self.sums = shape, [0, 0]

    def add(self, side: int, values: tuple[Any, ...]) -> None:
        if self.shape.numbered:
            self.sums[side] = (self.sums[side] + self.shape.digest(values)) & MASK

    def note(self, result: Comparison) -> None:
        if self.shape.numbered and result.equal and self.sums[0] != self.sums[1]:
            names = ", ".join(sorted({f"{n.function}()" for n in self.shape.numbered}))
            result.ties.append(f"{names} numbered rows tied on the window's keys in another order on each server")


# Ordered -----------------------------------------------------------------------------------------

def _groups(stream: Stream, shape: RowShape, positions: Sequence[int], swaps: _Swaps, side: int,
            apart: _Buckets) -> Iterator[Group]:
    """The answer's groups of rows tied on the key. A numbered column whose window's keys do not hold the
    ORDER BY keys may swap numbers between rows of different groups: its items go to `apart`, compared
    as one multiset over the whole answer."""
    group: Group | None = None
    index = 0
    loose = {i + 1 for i, n in enumerate(shape.numbered) if not set(positions) <= set(n.keys)}
    for digests, values in items_of(stream, shape):
        if loose:
            for i in loose:
                apart.add(digests[i], values)
            digests = tuple(d for i, d in enumerate(digests) if i not in loose)
        key = shape.key_of(values, positions)
        if group is None or key != group.key:
            if group is not None:
                yield group
            group = Group(key, index)
        if group.count < GROUP_ROWS:
            if len(digests) == 1:
                group.rows.append((digests[0], values))
            else:
                group.rows.extend((d, values) for d in digests)
            group.kept += 1
        else:
            group.total = (group.total + sum(digests)) & MASK
        group.count += 1
        swaps.add(side, values)
        index += 1
    if group is not None:
        yield group


def _same(left: Group | None, right: Group | None) -> bool:
    return left is not None and right is not None and left.key == right.key and left.count == right.count \
        and left.total == right.total and Counter(d for d, _ in left.rows) == Counter(d for d, _ in right.rows)


def compare_ordered(sql_server: Stream, target: Stream, shape: RowShape, positions: Sequence[int],
                    cut: Cut | None = None, whole: Whole | None = None) -> Comparison:
    """Both answers in their ORDER BY order; rows tied on the key (`positions`) compared as a multiset. With
    a `cut`, the tie group the limit cuts may hold other tied rows on each side: `whole` reads them all."""
    result = Comparison("ordered")
    swaps = _Swaps(shape)
    apart = (_Buckets(), _Buckets())
    pairs = zip_longest(_groups(sql_server, shape, positions, swaps, 0, apart[0]),
                        _groups(target, shape, positions, swaps, 1, apart[1]))
    cut_groups: list[tuple[Group, Group]] = []
    pending: tuple[Group | None, Group | None] | None = None
    index = -1
    sums = [0, 0]
    """Each side's sum of its row digests, order aside: equal with equal counts, the rows are the same."""
    for index, (left, right) in enumerate(pairs):
        result.sql_server_rows += left.count if left else 0
        result.target_rows += right.count if right else 0
        for side, group in ((0, left), (1, right)):
            if group is not None:
                sums[side] = (sums[side] + group.total + sum(d for d, _ in group.rows)) & MASK
        if pending is not None:
            _judge(result, *pending, bool(cut and cut.first and index == 1), cut_groups)
        pending = (left, right)
    if pending is not None:
        _judge(result, *pending, bool(cut and (cut.last or (cut.first and index == 0))), cut_groups)
    if cut_groups and result.equal:
        assert cut is not None
        against_whole(result, cut, cut_groups, whole, shape, positions)
    if apart[0].differs(apart[1]):
        if apart[0].kept is not None and apart[1].kept is not None:
            _multiset_differences(result, apart[0].kept, apart[1].kept)
        else:
            result.equal = False
            result.notes.append(f"the numbers and their window's keys differ; more than {KEEP_ROWS:,} of them, not shown")
    swaps.note(result)
    if not result.equal and result.undetermined is None and result.sql_server_rows == result.target_rows \
            and sums[0] == sums[1] and not apart[0].differs(apart[1]):
        result.same_rows = True
        result.notes.append("the same rows on both sides, in another order")
    return result


def _judge(result: Comparison, left: Group | None, right: Group | None, may_be_cut: bool,
           cut_groups: list[tuple[Group, Group]]) -> None:
    """Two groups in the same place: the same, or a group a limit may have cut (judged later), or different."""
    if _same(left, right):
        return
    if may_be_cut and left is not None and right is not None and left.key == right.key and left.count == right.count:
        cut_groups.append((left, right))
        return
    _group_differences(result, left, right)


def _group_differences(result: Comparison, left: Group | None, right: Group | None) -> None:
    lefts = Counter(d for d, _ in left.rows) if left else Counter()
    rights = Counter(d for d, _ in right.rows) if right else Counter()
    only_left = unmatched(left.rows if left else [], lefts - rights)
    only_right = unmatched(right.rows if right else [], rights - lefts)
    start = left.start if left else right.start if right else 0
    if not only_left and not only_right:  # same kept rows; the rows past GROUP_ROWS differ
        result.equal = False
        result.notes.append(f"rows tied on the ORDER BY key from position {start} differ past the first "
                            f"{GROUP_ROWS:,} (compared by count and checksum)")
        return
    for i, (a, b) in enumerate(zip_longest(only_left, only_right)):
        result.add(RowPair(start + i, a, b))


# Multiset ----------------------------------------------------------------------------------------

@dataclass
class _Buckets:
    counts: list[int] = field(default_factory=lambda: [0] * BUCKETS)
    sums: list[int] = field(default_factory=lambda: [0] * BUCKETS)
    rows: int = 0
    kept: list[tuple[int, tuple[Any, ...]]] | None = field(default_factory=list)

    def add(self, digest: int, values: tuple[Any, ...]) -> None:
        i = digest >> 56
        self.counts[i] += 1
        self.sums[i] = (self.sums[i] + digest) & MASK
        if self.kept is not None:
            if len(self.kept) < KEEP_ROWS:
                self.kept.append((digest, values))
            else:
                self.kept = None

    def differs(self, other: _Buckets) -> bool:
        return self.counts != other.counts or self.sums != other.sums


def _bucket(digest: int) -> int:
    return digest >> 56


def _fill(stream: Stream, shape: RowShape, swaps: _Swaps, side: int) -> _Buckets:
    b = _Buckets()
    counts, sums = b.counts, b.sums
    for digests, values in items_of(stream, shape):
        for digest in digests:
            i = digest >> 56
            counts[i] += 1
            sums[i] = (sums[i] + digest) & MASK
            if b.kept is not None:
                if len(b.kept) < KEEP_ROWS:
                    b.kept.append((digest, values))
                else:
                    b.kept = None
        b.rows += 1
        swaps.add(side, values)
    return b


def compare_multiset(sql_server: Stream, target: Stream, shape: RowShape, again: Again | None = None) -> Comparison:
    """Both answers as multisets of rows; `again` re-runs both statements to find the rows of a large answer."""
    swaps = _Swaps(shape)
    left, right = _fill(sql_server, shape, swaps, 0), _fill(target, shape, swaps, 1)
    result = Comparison("multiset", left.rows, right.rows)
    differing = {i for i in range(BUCKETS) if left.counts[i] != right.counts[i] or left.sums[i] != right.sums[i]}
    if not differing:
        swaps.note(result)
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
    for digests, values in items_of(stream, shape):
        for digest in digests:
            if _bucket(digest) in buckets:
                if len(kept) < KEEP_ROWS:
                    kept.append((digest, values))
                else:
                    complete = False
    return kept, complete


def _multiset_differences(result: Comparison, left: list[tuple[int, tuple[Any, ...]]],
                          right: list[tuple[int, tuple[Any, ...]]]) -> None:
    lefts, rights = Counter(d for d, _ in left), Counter(d for d, _ in right)
    only_left = unmatched(left, lefts - rights)
    only_right = unmatched(right, rights - lefts)
    for a, b in zip_longest(sorted(only_left, key=repr), sorted(only_right, key=repr)):
        result.add(RowPair(None, a, b))
