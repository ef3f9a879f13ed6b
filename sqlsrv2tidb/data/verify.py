"""Verify: the same rows on both sides, table by table, chunk by chunk, down to the rows that differ.

TiDB's documented data-check method (https://docs.pingcap.com/tidb/stable/sync-diff-inspector-overview):
split each table into chunks of its key, compare a row count and a checksum per chunk, and look at
the rows only where a chunk differs. SQL Server and TiDB share no hash function over a common text
form of their values, so the checksum is computed here, the same way for both sides: every value
is first normalized to what its target column holds (normalize.py: a datetime2(7) compares at
microseconds, text is case-folded only where the target's collation ignores case), each row
hashes to 64 bits, and a chunk's checksum is its row count with the sum of its row hashes.

With a key, both servers stream the table in the key's order (tables.py makes the orders agree)
and the chunks are consecutive key ranges of `chunk_rows` source rows; a differing chunk's rows are
matched by key, so every difference is named: missing on the target, extra on it, or which columns
differ. Without a key (or where a server's order turns out not to agree, which the walk notices),
rows are spread over buckets by a hash of the key, or of the whole row for a keyless table, and a
second pass reads only the rows of the buckets that differ.

`subset` verifies a sample: the target must hold a part of the source's rows, each equal to its
source row; source rows the sample left out are not differences.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .normalize import Unconvertible, converter, row_digest, token
from .tables import TableSpec, sort_key

FIRST_DIFFERENCES = 10
BUCKETS = 64
MASK = (1 << 64) - 1

Side = Callable[[], Iterator[Sequence[Sequence[Any]]]]
"""A fresh stream of one side's raw rows in batches (in key order for the ordered walk)."""


@dataclass(frozen=True)
class Difference:
    kind: str
    """missing on target, extra on target, or values differ."""
    key: dict[str, Any] | None
    columns: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "key": self.key, "columns": list(self.columns)}

    def __str__(self) -> str:
        key = ", ".join(f"{k}={v!r}" for k, v in (self.key or {}).items()) or "(a row without a key)"
        return f"{self.kind}: {key}" + (f" ({', '.join(self.columns)})" if self.columns else "")


@dataclass
class TableVerify:
    status: str = "not verified"
    """equal, different, or not verified."""
    method: str = ""
    source_rows: int = 0
    target_rows: int = 0
    rejected: int = 0
    """Source rows whose values do not convert (they are in the rejects file, not in the target)."""
    chunks: int = 0
    chunks_different: int = 0
    differences: int = 0
    first: list[Difference] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "method": self.method, "source_rows": self.source_rows,
                "target_rows": self.target_rows, "rejected": self.rejected, "chunks": self.chunks,
                "chunks_different": self.chunks_different, "differences": self.differences,
                "first_differences": [d.to_json() for d in self.first], "notes": self.notes}

    def add(self, difference: Difference) -> None:
        self.differences += 1
        if len(self.first) < FIRST_DIFFERENCES:
            self.first.append(difference)


class _OutOfOrder(Exception):
    pass


class _Normalizer:
    """Raw rows of one side → (sort key, normalized values, digest)."""

    def __init__(self, spec: TableSpec, source_side: bool) -> None:
        self.spec = spec
        self.convert = [c.convert if source_side else converter(c.target) for c in spec.columns]
        self.folds = [c.target.case_insensitive for c in spec.columns]
        self.rejected = 0

    def rows(self, batches: Iterator[Sequence[Sequence[Any]]]) -> Iterator[tuple[tuple[Any, ...], list[Any], int]]:
        key = self.spec.key
        for batch in batches:
            for raw in batch:
                try:
                    values = [v if v is None or f is None else f(v) for v, f in zip(raw, self.convert, strict=True)]
                except Unconvertible:
                    self.rejected += 1
                    continue
                yield sort_key([values[i] for i in key]), values, row_digest(values, self.folds)


def verify_table(spec: TableSpec, source: Side, target: Side, *, chunk_rows: int = 10_000, subset: bool = False,
                 ordered: bool = True) -> TableVerify:
    """Compare one table; `ordered` when both sides stream in key order (not so for synthesized rows)."""
    if spec.key and ordered:
        try:
            return _ordered(spec, source, target, chunk_rows, subset)
        except _OutOfOrder as exc:
            result = _buckets(spec, source, target, subset)
            result.notes.append(f"the two servers order the key differently ({exc}); compared by hash buckets instead")
            return result
    return _buckets(spec, source, target, subset)


def _ordered(spec: TableSpec, source: Side, target: Side, chunk_rows: int, subset: bool) -> TableVerify:
    result = TableVerify(method="key ranges")
    left, right = _Normalizer(spec, True), _Normalizer(spec, False)
    src, tgt = _checked(left.rows(source()), "source"), _checked(right.rows(target()), "target")
    pending = next(tgt, None)
    while True:
        chunk_src: dict[tuple[Any, ...], tuple[list[Any], int]] = {}
        last = None
        for row in src:
            chunk_src[row[0]] = (row[1], row[2])
            last = row[0]
            if len(chunk_src) >= chunk_rows:
                break
        chunk_tgt: dict[tuple[Any, ...], tuple[list[Any], int]] = {}
        while pending is not None and (last is None or pending[0] <= last):
            chunk_tgt[pending[0]] = (pending[1], pending[2])
            pending = next(tgt, None)
        if not chunk_src and not chunk_tgt:
            break
        if subset:
            chunk_src = {k: v for k, v in chunk_src.items() if k in chunk_tgt}
        result.source_rows += len(chunk_src)
        result.target_rows += len(chunk_tgt)
        result.chunks += 1
        if _checksum(chunk_src) != _checksum(chunk_tgt):
            result.chunks_different += 1
            _narrow(spec, chunk_src, chunk_tgt, result)
        if last is None:
            break
    result.rejected = left.rejected
    result.status = "equal" if not result.differences else "different"
    return result


def _checked(rows: Iterator[tuple[tuple[Any, ...], list[Any], int]], side: str):
    previous = None
    for row in rows:
        if previous is not None and not previous < row[0]:
            raise _OutOfOrder(f"the {side} returned {previous!r} before {row[0]!r}")
        previous = row[0]
        yield row


def _checksum(rows: dict[Any, tuple[list[Any], int]]) -> tuple[int, int]:
    return len(rows), sum(digest for _, digest in rows.values()) & MASK


def _narrow(spec: TableSpec, src: dict[Any, tuple[list[Any], int]], tgt: dict[Any, tuple[list[Any], int]],
            result: TableVerify) -> None:
    for key in sorted(set(src) | set(tgt)):
        a, b = src.get(key), tgt.get(key)
        if a is None:
            result.add(Difference("extra on target", _key_dict(spec, b[0])))
        elif b is None:
            result.add(Difference("missing on target", _key_dict(spec, a[0])))
        elif a[1] != b[1]:
            columns = tuple(c.source.name for c, x, y in zip(spec.columns, a[0], b[0], strict=True)
                            if token(x, c.target.case_insensitive) != token(y, c.target.case_insensitive))
            result.add(Difference("values differ", _key_dict(spec, a[0]), columns))


def _key_dict(spec: TableSpec, values: Sequence[Any]) -> dict[str, Any] | None:
    if not spec.key:
        return None
    return {c.source.name: _plain(values[i]) for i, c in zip(spec.key, spec.key_columns, strict=True)}


def _plain(value: Any) -> Any:
    return value if value is None or isinstance(value, (int, str, float)) else str(value)


def _buckets(spec: TableSpec, source: Side, target: Side, subset: bool) -> TableVerify:
    result = TableVerify(method="hash buckets of the key" if spec.key else "hash buckets of whole rows (no key)")
    left, right = _Normalizer(spec, True), _Normalizer(spec, False)

    def bucket_of(row: tuple[tuple[Any, ...], list[Any], int]) -> int:
        return (row_digest(list(row[0]), [False] * len(row[0])) if spec.key else row[2]) % BUCKETS

    sums = {side: [[0, 0] for _ in range(BUCKETS)] for side in ("s", "t")}
    for side, norm, stream in (("s", left, source), ("t", right, target)):
        for row in norm.rows(stream()):
            cell = sums[side][bucket_of(row)]
            cell[0] += 1
            cell[1] = (cell[1] + row[2]) & MASK
    result.source_rows = sum(c[0] for c in sums["s"])
    result.target_rows = sum(c[0] for c in sums["t"])
    result.rejected = left.rejected
    result.chunks = BUCKETS
    differing = {b for b in range(BUCKETS) if sums["s"][b] != sums["t"][b]}
    if differing:
        _narrow_buckets(spec, source, target, left, right, differing, bucket_of, result, subset)
    result.status = "equal" if not result.differences else "different"
    return result


def _narrow_buckets(spec: TableSpec, source: Side, target: Side, left: _Normalizer, right: _Normalizer,
                    differing: set[int], bucket_of: Callable, result: TableVerify, subset: bool) -> None:
    if spec.key:
        rows: dict[str, dict[Any, tuple[list[Any], int]]] = {}
        for name, norm, stream in (("s", left, source), ("t", right, target)):
            rows[name] = {}
            for r in norm.rows(stream()):
                if bucket_of(r) in differing:
                    if r[0] in rows[name]:  # a key the target does not keep unique
                        result.add(Difference(f"{'extra on target' if name == 't' else 'repeated in source'} "
                                              "(the key occurs twice)", _key_dict(spec, r[1])))
                    rows[name][r[0]] = (r[1], r[2])
        if subset:
            rows["s"] = {k: v for k, v in rows["s"].items() if k in rows["t"]}
            result.source_rows = result.target_rows  # a sample's source is the rows the target holds
        result.chunks_different = len(differing)
        _narrow(spec, rows["s"], rows["t"], result)
        return
    counts: dict[str, Counter[int]] = {}
    shown: dict[int, list[Any]] = {}
    for name, norm, stream in (("s", left, source), ("t", right, target)):
        counts[name] = Counter()
        for r in norm.rows(stream()):
            if bucket_of(r) in differing:
                counts[name][r[2]] += 1
                shown.setdefault(r[2], r[1])
    result.chunks_different = len(differing)
    for digest, n in sorted((counts["s"] - counts["t"]).items()) if not subset else ():
        for _ in range(n):
            result.add(Difference("missing on target", {"row": [_plain(v) for v in shown[digest]]}))
    for digest, n in sorted((counts["t"] - counts["s"]).items()):
        for _ in range(n):
            result.add(Difference("extra on target", {"row": [_plain(v) for v in shown[digest]]}))
