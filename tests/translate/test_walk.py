"""The translator's node lists are sqlglot's walking orders, node for node, on the corpora's trees.

The pure-Python build lists nodes with its own loop (`translate.walk`): a different order would
change which rewrite sees a node first, and so the notes and the text.
"""

from __future__ import annotations

from translate_sede import sede_queries

from sqlsrv2tidb.translate import walk
from sqlsrv2tidb.translate.statements import parse_statements


def _trees():
    for query in sede_queries():
        for statement in parse_statements(query.sql):
            if statement.tree is not None:
                yield statement.tree


def test_own_walks_give_sqlglots_orders():
    trees = list(_trees())
    assert len(trees) > 1000
    nodes = 0
    for tree in trees:
        depth, breadth = walk._depth_first(tree), walk._breadth_first(tree)
        expected_depth, expected_breadth = list(tree.walk(bfs=False)), list(tree.walk())
        assert len(depth) == len(expected_depth) and all(a is b for a, b in zip(depth, expected_depth, strict=True)), tree.sql("tsql")
        assert len(breadth) == len(expected_breadth) and all(a is b for a, b in zip(breadth, expected_breadth, strict=True)), tree.sql("tsql")
        nodes += len(depth)
    assert nodes > 50_000  # the corpus's trees, not a handful


def test_the_build_picks_one_pair_of_walks():
    tree = next(_trees())
    assert [id(n) for n in walk.depth_first(tree)] == [id(n) for n in tree.walk(bfs=False)]
    assert [id(n) for n in walk.breadth_first(tree)] == [id(n) for n in tree.walk()]
