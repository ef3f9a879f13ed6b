"""Splitting one large table into key ranges that separate processes copy at the same time.

A copy of one table runs in one Python process, and converting and encoding its rows keeps that
process busy before either server is; a large table is therefore cut into `parts` ranges of its
key, each copied by a process of its own with its own SQL Server and target connections
(worker.py). The cuts are the keys at equal row counts in key order (`Source.boundaries`), so
uneven keys (gaps, skewed values) still give ranges of equal size.

A range is `(lower, upper]` in the load's key order: after the key `lower` (None: from the first
row) up to and including `upper` (None: to the last). Its bounds are fixed when the table is split
and kept in the checkpoint with the range's own progress, so a rerun continues every range where
it stopped, each deleting only what its own unfinished chunk left, between its last loaded key
and its upper bound. Ranges never overlap, so nothing is loaded twice.

Only a table read in key order can be split: a keyed table copied whole (not a sample, not
synthesized rows) with at least `split_rows` rows by the capture's count. The cuts are then taken at
the table's true count (COUNT_BIG), since the capture's may be an estimate made before the last rows
arrived.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from .checkpoint import encode_key
from .normalize import Unconvertible
from .tables import TableSpec


def parts_for(rows: int | None, jobs: int, split_rows: int) -> int:
    """How many ranges a table of `rows` rows is cut into: one per job, each of at least `split_rows`."""
    if not rows or split_rows <= 0 or jobs < 2:
        return 1
    return max(1, min(jobs, rows // split_rows))


def target_key(spec: TableSpec, key: Sequence[Any]) -> tuple[Any, ...] | None:
    """A source key as the target stores it (each key column's conversion), or None if it does not convert."""
    out = []
    for value, column in zip(key, spec.key_columns, strict=True):
        try:
            out.append(column.convert(value) if column.convert is not None and value is not None else value)
        except Unconvertible:
            return None
    return tuple(out)


def plan(spec: TableSpec, cuts: Sequence[Sequence[Any]]) -> list[dict[str, Any]] | None:
    """The checkpoint entries of the ranges between `cuts` (source keys in key order); None when there
    is nothing to split or a cut has no value in the target."""
    if not cuts:
        return None
    targets = [target_key(spec, c) for c in cuts]
    if any(t is None for t in targets):
        return None
    bounds = [(None, None)] + [(tuple(c), t) for c, t in zip(cuts, targets, strict=True)] + [(None, None)]
    entries = []
    for (lower, lower_t), (upper, upper_t) in pairwise(bounds):
        entries.append({"lower": encode_key(lower), "upper": encode_key(upper),
                        "lower_target": encode_key(lower_t), "upper_target": encode_key(upper_t),
                        "status": "new", "rows": 0, "bytes": 0, "chunks": 0, "rejects": 0, "refused": 0,
                        "last_key": None, "last_target_key": None})
    return entries


def totals(ranges: Sequence[dict[str, Any]]) -> dict[str, int]:
    """A split table's rows, bytes, chunks, rejects and rows the target refused: the sums over its ranges."""
    return {k: sum(int(r.get(k, 0)) for r in ranges) for k in ("rows", "bytes", "chunks", "rejects", "refused")}
