"""`--sample`: a part of every table, closed under foreign keys (the parents of sampled rows come along).

Each table's own sample is chosen by a hash of its key and the seed, so the same options pick the
same rows on every run (and a resumed load keeps the sample it started with): `10%` keeps a row
when its hash falls in the lowest tenth, `500` keeps the 500 rows with the lowest hashes. Then
every row a sampled row references must come too, and every row that one references, and so on:
the tables are read children first (only their key and foreign-key columns), each parent learns
which of its rows are needed before it is read, and tables in a circle of references are read
again until nothing new is needed. Text keys match as SQL Server compares them by default
(case-insensitively, trailing spaces ignored), so a reference written 'abc' to a parent 'ABC'
still brings the parent.

The result is a predicate per table that the copy applies to the rows it reads.
"""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .order import load_order
from .settings import Sample
from .tables import TableSpec


def match(values: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(v.casefold().rstrip(" ") if isinstance(v, str) else v for v in values)


def _hash(seed: int, values: tuple[Any, ...]) -> int:
    return int.from_bytes(hashlib.blake2b(repr((seed, values)).encode("utf-8", "surrogatepass"),
                                          digest_size=8).digest(), "big")


@dataclass
class _Link:
    """A foreign key between two loaded tables: child columns → parent columns (positions in each spec)."""

    child: str
    parent: str
    child_columns: tuple[int, ...]
    parent_columns: tuple[int, ...]


@dataclass
class _Table:
    spec: TableSpec
    reads: list[int]
    """Positions of the columns the sample reads: the key (or all, without one) and every linked column."""
    selected: set[tuple[Any, ...]] = field(default_factory=set)
    needed: dict[tuple[int, ...], set[tuple[Any, ...]]] = field(default_factory=dict)
    scanned: bool = False


def links_between(specs: Sequence[TableSpec]) -> list[_Link]:
    by_name = {(s.table.schema.casefold(), s.table.name.casefold()): s for s in specs}
    out = []
    for spec in specs:
        positions = {c.source.name.casefold(): i for i, c in enumerate(spec.columns)}
        for fk in spec.table.foreign_keys:
            parent = by_name.get((fk.ref_schema.casefold(), fk.ref_table.casefold()))
            if parent is None:
                continue
            parent_positions = {c.source.name.casefold(): i for i, c in enumerate(parent.columns)}
            try:
                child_cols = tuple(positions[c.casefold()] for c in fk.columns)
                parent_cols = tuple(parent_positions[c.casefold()] for c in fk.ref_columns)
            except KeyError:
                continue
            out.append(_Link(spec.label, parent.label, child_cols, parent_cols))
    return out


def choose(specs: Sequence[TableSpec], rows: Callable[..., Any], sample: Sample, seed: int) -> dict[str, Callable]:
    """The sample of every table: label → predicate over the copy's raw rows.

    `rows(spec, columns)` streams the given select expressions of a table in batches.
    """
    links = links_between(specs)
    tables: dict[str, _Table] = {}
    for spec in specs:
        linked = {i for link in links if link.child == spec.label for i in link.child_columns}
        linked |= {i for link in links if link.parent == spec.label for i in link.parent_columns}
        own = list(spec.key) if spec.key else list(range(len(spec.columns)))
        tables[spec.label] = _Table(spec, sorted(set(own) | linked))
    order = load_order(tables, [(link.child, link.parent) for link in links])
    pending = _children_first(list(tables), order.waits_for)
    while pending:
        table = tables[pending.pop(0)]
        for parent in _scan(table, rows, links, tables, sample, seed):
            if tables[parent].scanned and parent not in pending:
                pending.append(parent)  # a circle: the parent must be read again for the rows now needed
    return {label: _predicate(t) for label, t in tables.items()}


def _children_first(names: list[str], waits_for: dict[str, frozenset[str]]) -> list[str]:
    """Tables no other table waits for first, so a parent is read after the tables that reference it."""
    out: list[str] = []
    remaining = {n.casefold(): n for n in names}
    while remaining:
        referenced = {p for n in remaining for p in waits_for.get(n, ()) if p in remaining}
        ready = sorted(n for n in remaining if n not in referenced) or sorted(remaining)[:1]
        for name in ready:
            out.append(remaining.pop(name))
    return out


def _own(table: _Table, row: Sequence[Any]) -> tuple[Any, ...]:
    positions = table.spec.key or range(len(table.spec.columns))
    return match([row[i] for i in positions])


def _scan(table: _Table, rows: Callable[..., Any], links: list[_Link], tables: dict[str, _Table], sample: Sample,
          seed: int) -> set[str]:
    """Read one table's linked columns; select its sample and what it is needed for. Returns parents that changed."""
    spec = table.spec
    index = {pos: n for n, pos in enumerate(table.reads)}
    outgoing = [link for link in links if link.child == spec.label]
    changed: set[str] = set()
    first = not table.scanned
    threshold = (sample.percent or 0) / 100 * 2 ** 64
    lowest: list[tuple[int, tuple[Any, ...], tuple[Any, ...]]] = []

    def take(own: tuple[Any, ...], full: tuple[Any, ...]) -> None:
        if own in table.selected:
            return
        table.selected.add(own)
        for link in outgoing:
            value = match([full[index[i]] for i in link.child_columns])
            if any(v is None for v in value):
                continue
            needed = tables[link.parent].needed.setdefault(link.parent_columns, set())
            if value not in needed:
                needed.add(value)
                changed.add(link.parent)

    for batch in rows(spec, [spec.columns[i].select for i in table.reads]):
        for raw in batch:
            full = tuple(raw)
            own = _own(table, _spread(full, table.reads, len(spec.columns)))
            wanted = any(match([full[index[i]] for i in cols]) in values for cols, values in table.needed.items())
            if wanted:
                take(own, full)
            elif first and sample.percent is not None and _hash(seed, own) < threshold:
                take(own, full)
            elif first and sample.rows is not None:
                item = (-_hash(seed, own), own, full)
                if len(lowest) < sample.rows:
                    heapq.heappush(lowest, item)
                elif item > lowest[0]:
                    heapq.heapreplace(lowest, item)
    for _, own, full in lowest:
        take(own, full)
    table.scanned = True
    return changed


def _spread(values: tuple[Any, ...], positions: list[int], width: int) -> list[Any]:
    row: list[Any] = [None] * width
    for value, position in zip(values, positions, strict=True):
        row[position] = value
    return row


def _predicate(table: _Table) -> Callable[[Sequence[Any]], bool]:
    selected, positions = table.selected, table.spec.key or range(len(table.spec.columns))
    return lambda row: match([row[i] for i in positions]) in selected
