"""`data synthesize`: rows shaped like the source's, made from its statistics where the rows may not leave.

Each table gets the row count the capture recorded (times `--scale`), and each column its values
(synth_values.py): following its histogram where SQL Server kept one, else from its type and CHECKs.
Keys hold as on the source:

- a primary key (or unique key) of one column takes distinct values in ascending order, so a row's
  position is its key's rank; a key of several columns is kept unique by drawing again the last
  column of a tuple already used;
- a foreign key takes a key the parent table really has: the parent's key values are computed
  first, and the child's value (drawn from the child column's own histogram, so a popular parent
  stays popular) is moved to the nearest existing one; a key that is also a foreign key (a 1:1
  table) takes the parent's keys in order;
- two columns a CHECK compares (`DueDate >= OrderDate`) are swapped in a row where they disagree.

The output is the same for the same seed and scale, which is also how verify works: the rows are
generated again and compared with the target's by hash buckets. The rows are generated in one
process; a table's parent keys are held in memory while its children are generated.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from math import gcd
from typing import Any

from ..model import Table
from .checks import ColumnRule, read_checks
from .synth_values import allocate, from_histogram, from_type, kind_of, mix
from .tables import TableSpec

BATCH = 2000
_OPS: dict[str, Callable[[Any, Any], bool]] = {">=": lambda a, b: a >= b, ">": lambda a, b: a > b,
                                               "<=": lambda a, b: a <= b, "<": lambda a, b: a < b,
                                               "<>": lambda a, b: a != b, "!=": lambda a, b: a != b}


def _seed(seed: int, *parts: str) -> int:
    value = seed & ((1 << 64) - 1)
    for part in parts:
        for ch in part.casefold():
            value = mix(value ^ ord(ch))
    return value


class _Permutation:
    """Row number → position, a seeded bijection of 0..n-1 (so every position is used exactly once)."""

    def __init__(self, n: int, seed: int) -> None:
        self.n = max(n, 1)
        a = seed % self.n or 1
        while gcd(a, self.n) != 1:
            a = a % self.n + 1
        self.a, self.b = a, (seed >> 20) % self.n

    def __call__(self, i: int) -> int:
        return (self.a * i + self.b) % self.n


@dataclass
class _ColumnPlan:
    name: str
    how: str
    value: Callable[[int, int], Any]
    """(row number, attempt) → value; attempts > 0 give another value for the same row."""


@dataclass
class _TablePlan:
    spec: TableSpec
    rows: int
    columns: list[_ColumnPlan] = field(default_factory=list)
    unique: list[tuple[int, ...]] = field(default_factory=list)
    pairs: list[tuple[int, str, int]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class Synthesizer:
    """Plans every table's columns once; `rows(spec)` then generates a table's rows in batches."""

    def __init__(self, specs: Sequence[TableSpec], *, seed: int, scale: float) -> None:
        self.seed, self.scale = seed, scale
        self.specs = {s.label: s for s in specs}
        self._by_table = {(s.table.schema.casefold(), s.table.name.casefold()): s for s in specs}
        self._plans: dict[str, _TablePlan] = {}
        self._keys: dict[tuple[str, tuple[str, ...]], list[tuple[Any, ...]]] = {}
        self._planning: set[str] = set()

    # Row counts and plans ----------------------------------------------------------------------

    def row_count(self, table: Table) -> int | None:
        counted = table.statistics.rows if table.statistics and table.statistics.rows is not None else table.row_count
        return None if counted is None else round(counted * self.scale)

    def plan(self, spec: TableSpec) -> _TablePlan:
        if spec.label in self._plans:
            return self._plans[spec.label]
        self._planning.add(spec.label)
        table = spec.table
        rows = self.row_count(table)
        plan = _TablePlan(spec, rows or 0)
        if rows is None:
            plan.notes.append("no row count in the capture: no rows generated")
        rules = read_checks(table)
        plan.notes += [f"CHECK not followed: {text}" for text in rules.skipped]
        position = {c.source.name.casefold(): i for i, c in enumerate(spec.columns)}
        singles = _single_unique(table)
        fk_columns = self._foreign_keys(spec, plan, position)
        together = _paired(rules.pairs)
        for i, column in enumerate(spec.columns):
            if i in fk_columns:
                plan.columns.append(fk_columns[i])
                continue
            name = column.source.name.casefold()
            plan.columns.append(self._column(spec, plan, column.source, name in singles, rules.rule(column.source.name),
                                             i, together.get(name, name)))
        keys = [table.primary_key.column_names] if table.primary_key else []
        keys += [k.column_names for k in table.unique_keys]
        keys += [tuple(c.name for c in ix.columns) for ix in table.indexes if ix.unique and ix.filter is None]
        for names in keys:
            if len(names) > 1 and all(n.casefold() in position for n in names):
                plan.unique.append(tuple(position[n.casefold()] for n in names))
        plan.pairs = [(position[a], op, position[b]) for a, op, b in rules.pairs if a in position and b in position]
        self._planning.discard(spec.label)
        self._plans[spec.label] = plan
        return plan

    def _column(self, spec: TableSpec, plan: _TablePlan, source: Any, unique: bool, rule: Any, index: int,
                order: str | None = None) -> _ColumnPlan:
        """`order` names the permutation: columns a CHECK compares share one, so their ranks line up."""
        stats = spec.table.statistics.column(source.name) if spec.table.statistics else None
        seed = _seed(self.seed, spec.label, source.name)
        length = spec.columns[index].target.length
        if stats is not None and stats.histogram:
            column = from_histogram(stats, source.type, plan.rows, unique=unique, nullable=source.nullable,
                                    max_length=length)
            how = f"histogram of {sum(1 for s in stats.histogram if s.range_hi_key is not None)} steps"
        else:
            if source.identity is not None and rule is None:  # an identity starts at its seed
                rule = ColumnRule(low=Decimal(source.identity.seed))
            column, how = from_type(source.type, plan.rows, rule, seed, unique=unique, max_length=length)
            how = f"no statistics: {how}"
        if unique:  # in order: the row's position is its rank
            return _ColumnPlan(source.name, how, lambda i, attempt, c=column: c.value((i + attempt) % max(c.rows, 1)))
        permute = _Permutation(plan.rows, _seed(self.seed, spec.label, order or source.name))
        return _ColumnPlan(source.name, how,
                           lambda i, attempt, c=column, p=permute: c.value(p((i + attempt * 7919) % p.n)))

    def _foreign_keys(self, spec: TableSpec, plan: _TablePlan, position: dict[str, int]) -> dict[int, _ColumnPlan]:
        out: dict[int, _ColumnPlan] = {}
        key = [c.casefold() for c in spec.table.primary_key.column_names] if spec.table.primary_key else []
        for fk in spec.table.foreign_keys:
            parent = self._by_table.get((fk.ref_schema.casefold(), fk.ref_table.casefold()))
            cols = [position.get(c.casefold()) for c in fk.columns]
            if parent is None or any(c is None for c in cols) or any(c in out for c in cols):
                continue
            keys = self.keys(parent, tuple(c.casefold() for c in fk.ref_columns))
            nullable = all(spec.columns[c].source.nullable for c in cols)
            if not keys:
                if not nullable:
                    plan.notes.append(f"{parent.label} has no rows, so no row can reference it: no rows generated")
                    plan.rows = 0
                for c in cols:
                    out[c] = _ColumnPlan(spec.columns[c].source.name, f"NULL: {parent.label} has no rows",
                                         lambda i, attempt: None)
                continue
            is_key = [c.casefold() for c in fk.columns] == key
            if is_key and plan.rows > len(keys):
                plan.notes.append(f"{plan.rows} rows asked, but each takes its own {parent.label} row: {len(keys)} made")
                plan.rows = len(keys)
            chooser = self._chooser(spec, plan, fk.columns, keys, ordered=is_key)
            how = f"a key of {parent.label}" + (" (one each, in order)" if is_key else "")
            for k, c in enumerate(cols):
                out[c] = _ColumnPlan(spec.columns[c].source.name, how,
                                     lambda i, attempt, k=k, ch=chooser: None if (t := ch(i, attempt)) is None else t[k])
        return out

    def _chooser(self, spec: TableSpec, plan: _TablePlan, names: Sequence[str], keys: list[tuple[Any, ...]], *,
                 ordered: bool) -> Callable[[int, int], tuple[Any, ...] | None]:
        """Row → a parent key: in order for a 1:1 key, else the parent key nearest the values the child's
        own histograms give its columns (so a popular parent stays popular), or one at random."""
        if ordered:
            return lambda i, attempt: keys[(i + attempt) % len(keys)]
        seed = _seed(self.seed, spec.label, *names, "fk")
        drawn = []
        for name in names:  # the leading columns that have a histogram
            stats = spec.table.statistics.column(name) if spec.table.statistics else None
            source = spec.table.column(name)
            if stats is None or not stats.histogram or source is None:
                break
            drawn.append((from_histogram(stats, source.type, plan.rows, unique=False, nullable=source.nullable,
                                         max_length=None), _Permutation(plan.rows, _seed(self.seed, spec.label, name))))
        if not drawn:
            return lambda i, attempt: keys[(mix(seed ^ i) + attempt) % len(keys)]
        if len(names) > 1:
            return _fitted(keys, [column for column, _ in drawn], plan.rows, _Permutation(plan.rows, seed))
        sorted_keys = [_order(k) for k in keys]

        def near(i: int, attempt: int) -> tuple[Any, ...] | None:
            probe = []
            for column, permute in drawn:
                value = column.value(permute(i))
                if value is None:
                    if not probe:
                        return None  # the child's NULLs, as many as its histogram has
                    break
                probe.append(value)
            try:
                at = min(bisect_left(sorted_keys, _order(tuple(probe))), len(keys) - 1)
            except TypeError:
                at = mix(seed ^ i) % len(keys)
            return keys[(at + attempt) % len(keys)]
        return near

    def keys(self, spec: TableSpec, columns: tuple[str, ...]) -> list[tuple[Any, ...]]:
        """The values a table's rows hold in `columns` (its key), sorted: what its children may reference."""
        cache = (spec.label, columns)
        if cache not in self._keys:
            if spec.label in self._planning:  # a table that references itself: its key columns are planned first
                plan = self._plans.get(spec.label) or self._self_plan(spec)
            else:
                plan = self.plan(spec)
            position = {c.name.casefold(): i for i, c in enumerate(plan.columns)}
            at = [position[c] for c in columns if c in position]
            if len(at) != len(columns):
                self._keys[cache] = []
            else:
                if spec.label in self._planning:  # its own unique key columns, planned apart
                    values = {tuple(plan.columns[k].value(i, 0) for k in at) for i in range(plan.rows)}
                else:  # the rows as they are written (a key of several columns may have been made unique)
                    values = {tuple(row[k] for k in at) for batch in self.rows(spec) for row in batch}
                self._keys[cache] = sorted((v for v in values if None not in v), key=_order)
        return self._keys[cache]

    def _self_plan(self, spec: TableSpec) -> _TablePlan:
        """The key columns of a table being planned, for its own self-references (employee → manager)."""
        table = spec.table
        plan = _TablePlan(spec, self.row_count(table) or 0)
        singles = _single_unique(table)
        rules = read_checks(table)
        for i, column in enumerate(spec.columns):
            unique = column.source.name.casefold() in singles
            plan.columns.append(self._column(spec, plan, column.source, unique, rules.rule(column.source.name), i)
                                if unique else _ColumnPlan(column.source.name, "", lambda i, a: None))
        return plan

    def describe(self, spec: TableSpec) -> tuple[list[dict[str, str]], list[str]]:
        plan = self.plan(spec)
        return [{"name": c.name, "values": c.how} for c in plan.columns], plan.notes

    # Rows ------------------------------------------------------------------------------------------

    def rows(self, spec: TableSpec, after: Any = None, *, columns: Any = None,
             batch: int = BATCH) -> Iterator[list[tuple[Any, ...]]]:
        """The table's rows in batches (the same on every call); `after` is ignored: a table restarts whole."""
        plan = self.plan(spec)
        fixed = self._unique_tuples(plan, plan.unique[0]) if plan.unique else None
        seen: list[set[tuple[Any, ...]]] = [set() for _ in plan.unique[1:]]
        out: list[tuple[Any, ...]] = []
        for i in range(plan.rows):
            row = [c.value(i, 0) for c in plan.columns]
            if fixed is not None:
                for p, value in zip(plan.unique[0], fixed[i], strict=True):
                    row[p] = value
            for positions, used in zip(plan.unique[1:], seen, strict=True):
                last = positions[-1]
                for attempt in range(1, 50):
                    key = tuple(row[p] for p in positions)
                    if key not in used:
                        break
                    row[last] = plan.columns[last].value(i, attempt)
                used.add(tuple(row[p] for p in positions))
            for a, op, b in plan.pairs:
                if row[a] is None or row[b] is None or _OPS[op](row[a], row[b]):
                    continue
                if op in ("<>", "!="):
                    for attempt in range(1, 20):
                        row[b] = plan.columns[b].value(i, attempt)
                        if row[b] != row[a]:
                            break
                else:
                    row[a], row[b] = row[b], row[a]
            out.append(tuple(row))
            if len(out) >= batch:
                yield out
                out = []
        if out:
            yield out

    def _unique_tuples(self, plan: _TablePlan, positions: tuple[int, ...]) -> list[tuple[Any, ...]]:
        """A key of several columns, made unique by swapping its last (or first) column between rows.

        Swapping keeps every column's values exactly as drawn (each histogram step keeps its rows);
        only which rows pair up changes. Held in memory: one tuple per row of this table.
        """
        tuples = [[plan.columns[p].value(i, 0) for p in positions] for i in range(plan.rows)]
        count: dict[tuple[Any, ...], int] = {}
        for t in tuples:
            count[tuple(t)] = count.get(tuple(t), 0) + 1
        seed = _seed(self.seed, plan.spec.label, "unique")
        for i, t in enumerate(tuples):
            if count[tuple(t)] == 1:
                continue
            for attempt in range(400):
                j = mix(seed ^ (i << 9) ^ attempt) % len(tuples)
                at = -1 if attempt % 2 == 0 else 0  # the last column, else the first: one of them has room
                mine, theirs = list(t), list(tuples[j])
                mine[at], theirs[at] = theirs[at], mine[at]
                if j != i and mine != theirs and count.get(tuple(mine), 0) == 0 and count.get(tuple(theirs), 0) == 0:
                    for old in (tuple(t), tuple(tuples[j])):
                        count[old] -= 1
                    for new in (tuple(mine), tuple(theirs)):
                        count[new] = count.get(new, 0) + 1
                    tuples[i], tuples[j] = mine, theirs
                    break
            else:  # every pairing is taken (a value with all its partners used): draw new values instead
                for attempt in range(1, 100):
                    at = -1 if attempt % 2 else 0
                    mine = list(t)
                    mine[at] = plan.columns[positions[at]].value(i, attempt)
                    if count.get(tuple(mine), 0) == 0:
                        count[tuple(t)] -= 1
                        count[tuple(mine)] = 1
                        tuples[i] = mine
                        break
        return [tuple(t) for t in tuples]

    def close(self) -> None:
        pass


def _fitted(keys: list[tuple[Any, ...]], columns: list[Any], rows: int,
            permute: _Permutation) -> Callable[[int, int], tuple[Any, ...] | None]:
    """A key of several columns: how often each parent tuple is used, fitted so that each child column with a
    histogram keeps its counts (iterative proportional fitting over the tuples the parent really has).

    Drawing each column alone would make pairs the parent lacks; the nearest real tuple would then
    pull every column's values away from their histograms.
    """
    nulls = columns[0].nulls
    targets = []
    for k, column in enumerate(columns):
        values = sorted({key[k] for key in keys}, key=lambda v: _order((v,)))
        ordered = [_order((v,)) for v in values]
        counts: dict[Any, float] = {}
        for p in range(nulls, rows):
            value = column.value(p)
            if value is None:
                continue
            try:
                at = min(bisect_left(ordered, _order((value,))), len(values) - 1)
            except TypeError:
                at = 0
            counts[values[at]] = counts.get(values[at], 0) + 1
        targets.append(counts)
    weights = [1.0] * len(keys)
    best, best_error = weights, float("inf")
    for _ in range(300):  # a few hundred rounds over a few hundred tuples: milliseconds
        for k, counts in enumerate(targets):
            sums = _sums(keys, weights, k)
            weights = [w * counts.get(key[k], 0.0) / sums[key[k]] if sums[key[k]] else 0.0
                       for key, w in zip(keys, weights, strict=True)]
            # Where no weighting meets every column (the parent lacks the pairs), keep the one that misses least.
            error = max(abs(_sums(keys, weights, c).get(v, 0.0) - n) / n
                        for c, target in enumerate(targets) for v, n in target.items())
            if error < best_error:
                best, best_error = weights, error
    weights = best
    total = rows - nulls
    if sum(weights) <= 0:
        weights = [1.0] * len(keys)
    uses = allocate(total, weights)
    chosen = [index for index, n in enumerate(uses) for _ in range(n)]

    def pick(i: int, attempt: int) -> tuple[Any, ...] | None:
        position = permute((i + attempt * 7919) % permute.n)
        return None if position < nulls else keys[chosen[(position - nulls) % len(chosen)]]
    return pick


def _sums(keys: list[tuple[Any, ...]], weights: list[float], k: int) -> dict[Any, float]:
    sums: dict[Any, float] = {}
    for key, w in zip(keys, weights, strict=True):
        sums[key[k]] = sums.get(key[k], 0.0) + w
    return sums


def _paired(pairs: list[tuple[str, str, str]]) -> dict[str, str]:
    """Columns a CHECK compares, grouped: each maps to its group's first name (the shared permutation).

    With the rows of both columns in the same rank order, `a >= b` on every source row means the
    k-th smallest a is at least the k-th smallest b, so the generated rows keep the CHECK without
    changing either column's distribution (a row that still disagrees is swapped).
    """
    group: dict[str, str] = {}
    for a, _, b in pairs:
        root = min(group.get(a, a), group.get(b, b))
        for name in [n for n, g in group.items() if g in (group.get(a, a), group.get(b, b))] + [a, b]:
            group[name] = root
    return group


def _single_unique(table: Table) -> set[str]:
    """Columns that alone form the primary key or a unique key or index: each value once."""
    names = []
    if table.primary_key and len(table.primary_key.columns) == 1:
        names.append(table.primary_key.columns[0].name)
    names += [k.columns[0].name for k in table.unique_keys if len(k.columns) == 1]
    names += [ix.columns[0].name for ix in table.indexes if ix.unique and len(ix.columns) == 1 and ix.filter is None]
    return {n.casefold() for n in names}


def _order(key: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple((v.casefold(), v) if isinstance(v, str) else (v,) for v in key)


def kinds(table: Table) -> dict[str, str]:
    return {c.name: kind_of(c.type) for c in table.columns}
