"""Every node of a tree as a list, in sqlglot's own walking orders, at the cost the build allows.

The translator lists each statement's nodes four times (the scalar rewrites, the query rewrites,
the names, the output check). sqlglot's `walk` yields through three nested generators per node
(`walk`, `dfs`/`bfs`, `iter_expressions`): compiled by sqlglot's extension that is as fast as a
loop, but on the pure-Python build it is a third slower than one loop over each node's `args`.
So the pure-Python build gets that loop and the compiled build keeps sqlglot's walk; both give the
nodes in exactly the order `Expr.walk` gives them (a test compares them on the corpora).
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.tokens import SQLGLOTC_INSTALLED

_Expr = exp.Expr


def _depth_first(tree: exp.Expr) -> list[exp.Expr]:
    """`list(tree.walk(bfs=False))`: a node, then its children's subtrees in argument order."""
    out: list[exp.Expr] = []
    stack = [tree]
    pop, push, add = stack.pop, stack.append, out.append
    while stack:
        node = pop()
        add(node)
        for value in reversed(node.args.values()):
            if isinstance(value, list):
                for item in reversed(value):
                    if isinstance(item, _Expr):
                        push(item)
            elif isinstance(value, _Expr):
                push(value)
    return out


def _breadth_first(tree: exp.Expr) -> list[exp.Expr]:
    """`list(tree.walk())`: the tree level by level, each node's children in argument order."""
    out = [tree]
    add = out.append
    i = 0
    while i < len(out):
        node = out[i]
        i += 1
        for value in node.args.values():
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, _Expr):
                        add(item)
            elif isinstance(value, _Expr):
                add(value)
    return out


def _sqlglot_depth_first(tree: exp.Expr) -> list[exp.Expr]:
    return list(tree.walk(bfs=False))


def _sqlglot_breadth_first(tree: exp.Expr) -> list[exp.Expr]:
    return list(tree.walk())


depth_first = _sqlglot_depth_first if SQLGLOTC_INSTALLED else _depth_first
breadth_first = _sqlglot_breadth_first if SQLGLOTC_INSTALLED else _breadth_first
