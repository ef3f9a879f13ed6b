"""In which order tables are loaded so the target's foreign keys hold at every commit.

Only the foreign keys the target already has matter: the ddl/ files add them after the load
(05-foreign-keys.sql), and then any order works. When they are there, a table waits for the tables
it references. Tables whose keys reference each other in a circle, or a table that references
itself (an employee's manager), cannot be ordered: those are loaded with the session's
`foreign_key_checks` off, and data.json says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class LoadOrder:
    waits_for: dict[str, frozenset[str]]
    """Folded target table name -> the tables it must wait for."""
    checks_off: frozenset[str]
    """Tables loaded with foreign_key_checks = 0 (a circle of references, or a reference to itself)."""

    def ready(self, table: str, done: set[str]) -> bool:
        return self.waits_for.get(table, frozenset()) <= done


def load_order(tables: Iterable[str], references: Iterable[tuple[str, str]]) -> LoadOrder:
    """From (child, parent) pairs of the target's foreign keys, among `tables` (folded names)."""
    names = {t.casefold() for t in tables}
    edges: dict[str, set[str]] = {t: set() for t in names}
    for child, parent in references:
        c, p = child.casefold(), parent.casefold()
        if c in names and p in names:
            edges[c].add(p)
    groups = _strongly_connected(edges)
    group_of = {t: i for i, group in enumerate(groups) for t in group}
    checks_off = {t for group in groups for t in group if len(group) > 1 or t in edges[t]}
    waits = {t: frozenset(p for p in edges[t] if group_of[p] != group_of[t]) for t in names}
    return LoadOrder(waits, frozenset(checks_off))


def _strongly_connected(edges: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm, iteratively (a long chain of references must not exhaust the stack)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    groups: list[set[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == node:
                        break
                groups.append(group)
    return groups
