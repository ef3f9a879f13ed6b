"""A tie group that a row limit cut, judged against the whole group read from SQL Server without the limit.

`TOP 3 ... ORDER BY points DESC` keeps any 3 of the rows tied at the third place (`ties.Cut`). Where
SQL Server and the target kept different ones, the query without its limit (`Whole`) is read in
order, only as far as past the group's key (and no further than `WHOLE_ROWS` rows, then left, which
cancels it), and only the digests of the rows in question are counted: every row either side kept
must be one of the tie. Without an OFFSET, the group starts in the whole answer where it starts in
the limited one, since the rows before it are the same: a row of another key there means SQL
Server's rows changed between the reads, and nothing can be judged.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from itertools import zip_longest
from typing import Any

from .comparison import Comparison, Group, RowPair, Stream, items_of, unmatched
from .ties import Cut
from .values import RowShape

WHOLE_ROWS = 1_000_000

Whole = Callable[[], Stream]
"""SQL Server's answer without the row limit, in order (the caller closes it when the comparison returns)."""


class WholeUnread(Exception):
    """SQL Server could not answer the query without its limit (its error, one line): the tie group stays unread."""


def against_whole(result: Comparison, cut: Cut, groups: list[tuple[Group, Group]], whole: Whole | None,
                   shape: RowShape, positions: Sequence[int]) -> None:
    """The rows each side kept of a cut tie group, looked up among the whole group's rows read from SQL Server
    without the limit; in memory, only the digests in question are counted."""
    if whole is None:
        result.undetermined = f"the tie group {cut.limit} cuts differs and the rows of the whole group were not read"
        return
    kept = [group.kept for pair in groups for group in pair if not group.whole]
    if kept:
        result.undetermined = (f"the tie group {cut.limit} cuts holds more than {min(kept):,} rows and they differ: too "
                               "many to look up")
        return
    wanted: dict[tuple[Any, ...], Counter[int]] = {}
    for left, right in groups:
        lefts, rights = Counter(d for d, _ in left.rows), Counter(d for d, _ in right.rows)
        wanted[left.key] = Counter({d: max(lefts[d], rights[d]) for d in (lefts - rights) | (rights - lefts)})
    try:
        found, why = _read_whole(whole(), cut, groups, wanted, shape, positions)
    except WholeUnread as exc:
        found, why = {}, f"the tie group {cut.limit} cuts differs, and SQL Server failed on the query without it: {exc}"
    if why is not None:
        result.undetermined = why
        return
    for left, right in groups:
        _judge_cut(result, cut, left, right, wanted[left.key], found[left.key], bool(positions))


def _read_whole(stream: Stream, cut: Cut, groups: list[tuple[Group, Group]], wanted: dict[tuple[Any, ...], Counter[int]],
                shape: RowShape, positions: Sequence[int]) -> tuple[dict[tuple[Any, ...], Counter[int]], str | None]:
    """Count the wanted digests among the whole groups' rows; stop past the last group, once every wanted
    digest is found, or at WHOLE_ROWS rows. Without an OFFSET the last group starts where it does in the
    answer, since the rows before it are the same: a row of another key there means the rows changed."""
    found: dict[tuple[Any, ...], Counter[int]] = {key: Counter() for key in wanted}
    missing = sum(sum(c.values()) for c in wanted.values())
    last = groups[-1][0]
    seen: set[tuple[Any, ...]] = set()
    for index, (digests, values) in enumerate(items_of(stream, shape)):
        if index >= WHOLE_ROWS:
            return found, (f"the tie group {cut.limit} cuts was not found in the first {WHOLE_ROWS:,} rows of the "
                           "query without the limit")
        key = shape.key_of(values, positions)
        if not cut.first and index == last.start and key != last.key:
            return found, (f"SQL Server's rows changed between the reads: without the limit, row {index + 1} is not "
                           f"of the tie group {cut.limit} cuts there")
        counts = found.get(key)
        if counts is None:
            if len(seen) == len(wanted):
                break  # past every group in question
            continue
        seen.add(key)
        want = wanted[key]
        for d in digests:
            if counts[d] < want[d]:
                counts[d] += 1
                missing -= 1
        if missing == 0:
            break
    return found, None


def _judge_cut(result: Comparison, cut: Cut, left: Group, right: Group, wanted: Counter[int],
               found: Counter[int], ordered: bool) -> None:
    """A cut group, once its rows in question were looked up: the same up to ties, or the target's rows
    that are not of the tie (differences)."""
    lefts, rights = Counter(d for d, _ in left.rows), Counter(d for d, _ in right.rows)
    if any(lefts[d] > found[d] for d in wanted):
        result.undetermined = (f"SQL Server's rows changed between the reads: its own rows of the tie group "
                               f"{cut.limit} cuts at row {left.start + 1} are not among the rows it returns without the limit")
        return
    outside = unmatched(right.rows, Counter({d: rights[d] - found[d] for d in wanted if rights[d] > found[d]}))
    rows = f"rows {left.start + 1}-{left.start + left.count}" if left.count > 1 else f"row {left.start + 1}"
    if not outside and not ordered:
        result.ties.append(f"{rows}: {cut.limit} keeps any of the query's rows, ordered by nothing the answer holds: "
                           "SQL Server and the target kept different ones")
        return
    if not outside:
        result.ties.append(f"{rows} {'tie' if left.count > 1 else 'ties'} on the ORDER BY key with rows {cut.limit} "
                           "leaves out: SQL Server and the target kept different ones of the tied rows")
        return
    result.notes.append(f"{rows}, where {cut.limit} cuts a tie group: the target returns rows that are not among "
                        "SQL Server's rows of that tie (read without the limit)")
    kept = unmatched(left.rows, lefts - rights)
    for i, (a, b) in enumerate(zip_longest(kept[:len(outside)], outside)):
        result.add(RowPair(left.start + i, a, b))
