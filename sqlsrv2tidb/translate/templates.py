"""Small TiDB expression templates the rewrites fill in, so formulas read as SQL, not as node trees.

`fill("TO_SECONDS(b) DIV 3600 - TO_SECONDS(a) DIV 3600", a=start, b=end)` parses the template once
(as TiDB SQL), then puts a copy of each argument where its placeholder column stands.
"""

from __future__ import annotations

import functools

import sqlglot
from sqlglot import exp
from sqlglot.expressions.core import POSITION_META_KEYS

from .dialect import TiDB


@functools.lru_cache(maxsize=256)
def _template(text: str) -> exp.Expr:
    tree = sqlglot.parse_one(text, read=TiDB)
    for node in tree.walk():
        for key in POSITION_META_KEYS:  # where the template's words stood: never read, but copied with every fill
            node.meta.pop(key, None)
        node.meta["tidb"] = True  # TiDB SQL already: no rewrite may touch it again (each fill's copy keeps the mark)
    return tree


def fill(text: str, **parts: exp.Expr) -> exp.Expr:
    """The template with each placeholder column (`a`, `b`, `d`, ...) replaced by a copy of its part."""
    tree = _template(text).copy()  # marked as TiDB SQL already, the parts not
    for column in list(tree.find_all(exp.Column)):
        if not column.table and column.name in parts:
            replacement = parts[column.name].copy()
            if isinstance(replacement, exp.Binary | exp.Connector) and not isinstance(column.parent, exp.Func):
                replacement = exp.Paren(this=replacement)
            if column is tree:
                return replacement
            column.replace(replacement)
    return tree


def call(name: str, *args: exp.Expr) -> exp.Expr:
    """A plain function call that sqlglot writes as-is: `call("RTRIM", x)` -> `RTRIM(x)`."""
    node = exp.Anonymous(this=name, expressions=[a.copy() if a.parent is not None else a for a in args])
    node.meta["tidb"] = True
    return node


def paren(node: exp.Expr) -> exp.Expr:
    """Wrap an operator expression so it keeps its meaning inside a larger one."""
    return exp.Paren(this=node) if isinstance(node, exp.Binary | exp.Connector) else node
