"""The package's imports run one way: no circles between modules, and no import up the layers.

A circle makes every module in it load, read and change with all the others, so none can be tested
or moved alone; an import from a lower layer to a higher one (rules reaching into the planner, say)
is the start of one. The imports are read from the source with `ast`, including those inside
functions and under `if TYPE_CHECKING:`: deferring an import hides a circle from Python at load
time, but the modules still depend on each other. docs/architecture.md draws the layers.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import sqlsrv2tidb

PACKAGE = Path(sqlsrv2tidb.__file__).resolve().parent
ROOT = PACKAGE.name


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name, for its `__init__.py`)."""
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imported(node: ast.Import | ast.ImportFrom, importer: str) -> list[str]:
    """The package's modules an import statement loads: `from .x import y` names `x.y` if that is a module, else `x`."""
    known = modules()
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name in known]
    if node.level:
        is_package = modules()[importer].name == "__init__.py"
        base = importer.split(".")
        base = base[: len(base) - node.level + (1 if is_package else 0)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    found = [f"{source}.{a.name}" for a in node.names if f"{source}.{a.name}" in known]
    if source in known and len(found) < len(node.names):
        found.append(source)  # names defined in (or re-exported by) the module itself
    return found


@functools.cache
def import_graph() -> dict[str, dict[str, str]]:
    """Module -> {imported module: where (`path:line` of the first import of it)}."""
    graph: dict[str, dict[str, str]] = {}
    for name, path in modules().items():
        edges: dict[str, str] = {}
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _imported(node, name):
                    if target != name:
                        where = f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
                        if target not in edges or _line(where) < _line(edges[target]):
                            edges[target] = where
        graph[name] = edges
    return graph


def _line(where: str) -> int:
    return int(where.rpartition(":")[2])


def circles(graph: dict[str, dict[str, str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def one_loop(group: list[str], graph: dict[str, dict[str, str]]) -> list[str]:
    """A shortest path of imports from the group's first module back to it, inside the group."""
    start, members = group[0], set(group)
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for v in frontier:
            for w in sorted(graph[v]):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(came_from[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if w in members and w not in came_from:
                    came_from[w] = v
                    following.append(w)
        frontier = following
    return [start]


def describe(group: list[str], graph: dict[str, dict[str, str]]) -> str:
    short = [m.removeprefix(f"{ROOT}.") for m in group]
    loop = one_loop(group, graph)
    steps = "\n".join(f"      {graph[a][b]} imports {b.removeprefix(f'{ROOT}.')}" for a, b in zip(loop, loop[1:], strict=False))
    return f"  {len(group)} modules: {', '.join(short)}\n    for one, round the loop:\n{steps}"


def test_no_import_circles():
    graph = import_graph()
    found = circles(graph)
    assert not found, (
        f"{len(found)} import circle(s); move what both sides use into a module of its own:\n"
        + "\n".join(describe(group, graph) for group in found)
    )


def test_the_reader_sees_every_kind_of_import():
    """The circle test is only as good as the graph: relative, absolute, deferred and type-only imports all count."""
    graph = import_graph()
    assert f"{ROOT}.cli" in graph[f"{ROOT}.__main__"]  # from .cli import main
    assert f"{ROOT}.model.finding" in graph[f"{ROOT}.model"]  # a package's __init__: from .finding import ...
    assert f"{ROOT}.api" in graph[f"{ROOT}.cli"]  # from . import api, inside a function
    assert circles({"a": {"b": ""}, "b": {"c": ""}, "c": {"a": ""}, "d": {"a": ""}}) == [["a", "b", "c"]]


# The layers, lowest first: a module may import from its own layer or a lower one, never a higher
# one. A unit is a subpackage or a top-level module; docs/architecture.md says what each owns.
LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    # Needed by everything, needing nothing: errors, options, files and progress, data files,
    # the latency histogram (replay's measurements and the capture's durations).
    ("foundation", frozenset({"__init__", "errors", "options", "outdir", "progress", "resources", "histogram"})),
    # The model, and the rates and durations every stage reads off its workload.
    ("model", frozenset({"model", "workload_rates", "workload_durations"})),
    ("T-SQL reading", frozenset({"tsql"})),
    ("translate", frozenset({"translate"})),
    # Capture asks the translator's statement reader whether a statement can be translated (IN48).
    ("capture", frozenset({"capture"})),
    ("rules", frozenset({"rules"})),
    ("plan", frozenset({"plan"})),
    # The stages api strings together last, with what only they use: the replay target, the
    # assessment.json document, and the summary `schema` prints. The data stage loads the same
    # targets through replay's drivers and reads SQL Server through the live capture's session.
    # Compare runs a read query on both sides and judges the answers. The record of a run's stages
    # (which ran, failed or were left out) is read by api and written into assessment.json.
    ("data, replay and report", frozenset({"data", "replay", "report", "target", "assessment", "summary", "compare",
                                           "stages"})),
    ("api", frozenset({"api"})),
    ("cli", frozenset({"cli", "__main__"})),
)

KNOWN_EXCEPTIONS: dict[tuple[str, str], str] = {}
"""(importing module, imported module) -> why this upward import is allowed for now."""


def unit_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def layer_of(unit: str) -> int | None:
    return next((rank for rank, (_, units) in enumerate(LAYERS) if unit in units), None)


def test_every_unit_has_one_layer():
    units = [u for _, group in LAYERS for u in group]
    assert len(units) == len(set(units)), "a unit is in two layers"
    present = {unit_of(m) for m in modules()}
    unplaced = sorted(present - set(units))
    assert not unplaced, f"put these in a layer of LAYERS (and docs/architecture.md): {unplaced}"
    gone = sorted(set(units) - present)
    assert not gone, f"LAYERS names units the package no longer has: {gone}"


def test_imports_point_down_the_layers():
    graph = import_graph()
    upward = []
    for importer, edges in sorted(graph.items()):
        for imported, where in sorted(edges.items()):
            low, high = layer_of(unit_of(importer)), layer_of(unit_of(imported))
            if low is not None and high is not None and high > low and (importer, imported) not in KNOWN_EXCEPTIONS:
                upward.append(f"  {where}: {LAYERS[low][0]} imports {imported.removeprefix(f'{ROOT}.')} "
                              f"({LAYERS[high][0]})")
    assert not upward, "imports from a lower layer to a higher one:\n" + "\n".join(upward)


def test_known_exceptions_are_still_needed():
    graph = import_graph()
    stale = [pair for pair in KNOWN_EXCEPTIONS if pair[1] not in graph.get(pair[0], {})]
    assert not stale, f"these imports are gone; drop them from KNOWN_EXCEPTIONS: {stale}"
