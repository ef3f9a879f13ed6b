"""The form a hierarchyid takes on the target: a path of text that sorts as SQL Server sorts the node.

SQL Server stores a hierarchyid as bits no TiDB or MySQL function can take apart, so the node's
methods (GetAncestor, GetLevel, IsDescendantOf, ToString) would have nothing to run on. Its
`ToString()` path (`/1/3.2/`) can be taken apart with string functions, but sorts wrongly as text
(`/10/` before `/2/`), and SQL Server orders nodes depth-first, by each level's labels as numbers.
So each label is written with a letter that says its sign and its number of digits, which makes
byte order numeric order, and a dot inside a level is written `:`, which sorts after `/`:

    /           ->  /
    /1/3.2/     ->  /a1/a3:a2/
    /10/-2/     ->  /b10/Ow/       (a label below zero: its letter, then each digit d as `yxwvutsrqp`[d])

On an ASCII column with a binary collation (the DDL's `VARCHAR(...) CHARACTER SET ascii COLLATE
ascii_bin`) this keeps SQL Server's order, equality and prefixes: a node's ancestors are the
prefixes of its path that end in `/`, so every method is a few string functions
(translate/transforms_hierarchy.py), and an index on the column still returns subtrees together.
https://learn.microsoft.com/sql/t-sql/data-types/hierarchyid-data-type-method-reference
"""

from __future__ import annotations

import re

MAX_DIGITS = 15
"""Digits of the largest label SQL Server takes (about 2.8 * 10**14 either way)."""
_POSITIVE = "abcdefghijklmno"  # a label of n digits, n = 1..15, zero or above
_NEGATIVE = "ONMLKJIHGFEDCBA"  # a label below zero of n digits: more digits, lower
_NEGATIVE_DIGITS = "yxwvutsrqp"  # digit d of a label below zero is _NEGATIVE_DIGITS[d]: larger digits sort first
LEVEL, DOT = "/", ":"
_PATH = re.compile(r"/(?:-?\d+(?:\.-?\d+)*/)*")


class NotAPath(ValueError):
    """A string that is not a hierarchyid's text (`/`, `/1/`, `/1/2.5/`, ...)."""


def encode(path: str) -> str:
    """The stored form of a hierarchyid's text as `hierarchyid::Parse` reads it."""
    text = path.strip()
    if not _PATH.fullmatch(text):
        raise NotAPath(f"{path!r} is not a hierarchyid path such as '/1/2/'")
    levels = text.strip("/").split("/") if text != "/" else []
    return "/" + "".join(DOT.join(_label(int(label)) for label in level.split(".")) + LEVEL for level in levels)


def _label(value: int) -> str:
    digits = str(abs(value))
    if len(digits) > MAX_DIGITS:
        raise NotAPath(f"label {value} is beyond a hierarchyid's range")
    if value >= 0:
        return _POSITIVE[len(digits) - 1] + digits
    return _NEGATIVE[len(digits) - 1] + "".join(_NEGATIVE_DIGITS[int(d)] for d in digits)


_DECODE = {**{c: "" for c in _POSITIVE}, **{c: "-" for c in _NEGATIVE},
           **{c: str(d) for d, c in enumerate(_NEGATIVE_DIGITS)}, DOT: "."}


def decode(stored: str) -> str:
    """The text SQL Server's `ToString()` gives for a stored path."""
    return "".join(_DECODE.get(c, c) for c in stored)


def replacements() -> tuple[tuple[str, str], ...]:
    """Each character of the stored form with what `ToString()` writes for it (the SQL decoding: one REPLACE
    per pair, every pair's characters distinct from every other's)."""
    return tuple((c, t) for c, t in _DECODE.items())
