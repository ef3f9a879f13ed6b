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

_LEAST, _LAST = -281479271682120, 281479271683151
"""The labels SQL Server takes ([MS-SSCLRT]): 15 digits at most."""
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
    if not _LEAST <= value <= _LAST:
        raise NotAPath(f"label {value} is beyond a hierarchyid's range")
    if value >= 0:
        return _POSITIVE[len(digits) - 1] + digits
    return _NEGATIVE[len(digits) - 1] + "".join(_NEGATIVE_DIGITS[int(d)] for d in digits)


_DECODE = {**{c: "" for c in _POSITIVE}, **{c: "-" for c in _NEGATIVE},
           **{c: str(d) for d, c in enumerate(_NEGATIVE_DIGITS)}, DOT: "."}


def decode(stored: str) -> str:
    """The text SQL Server's `ToString()` gives for a stored path."""
    return "".join(_DECODE.get(c, c) for c in stored)


# SQL Server's own bytes ([MS-SSCLRT] 2.1.x, HIERARCHYID): each label is a pattern of fixed bits and value bits
# (`x`, the label's offset from the pattern's least value, most significant first) chosen by the label's range,
# then one bit that is 1 where the level ends (`/`) and 0 where a dot follows; a label before a dot is written one
# more than it is. The bits are padded with zeros to a whole byte; the root is no bytes at all.
_PATTERNS = (
    (-281479271682120, "000100xxxxxxxxxxxxxx0xxxxxxxxxxxxxxxxxxxxx0xxxxxx0xxx0x1xxx"),
    (-4294971464, "000101xxxxxxxxxxxxxxxxxxx0xxxxxx0xxx0x1xxx"),
    (-4168, "000110xxxxx0xxx0x1xxx"),
    (-72, "0010xx0x1xxx"),
    (-8, "00111xxx"),
    (0, "01xx"),
    (4, "100xx"),
    (8, "101xxx"),
    (16, "110xx0x1xxx"),
    (80, "1110xxx0xxx0x1xxx"),
    (1104, "11110xxxxx0xxx0x1xxx"),
    (5200, "111110xxxxxxxxxxxxxxxxxxx0xxxxxx0xxx0x1xxx"),
    (4294972496, "111111xxxxxxxxxxxxxx0xxxxxxxxxxxxxxxxxxxxx0xxxxxx0xxx0x1xxx"),
)
"""(least value, bits) of each label range, in value order; each range ends where the next begins."""


def _range_of(value: int) -> tuple[int, str]:
    for (low, bits), following in zip(_PATTERNS, (*(p[0] for p in _PATTERNS[1:]), _LAST + 1), strict=True):
        if low <= value < following:
            return low, bits
    raise NotAPath(f"label {value} is beyond a hierarchyid's range")


def to_sql_server(path: str) -> bytes:
    """The bytes SQL Server stores for a hierarchyid's text (`CAST(hierarchyid::Parse(path) AS varbinary)`)."""
    encode(path)  # the same checks
    levels = path.strip().strip("/").split("/") if path.strip() != "/" else []
    out = []
    for level in levels:
        labels = [int(x) for x in level.split(".")]
        for i, label in enumerate(labels):
            last = i == len(labels) - 1
            low, bits = _range_of(label if last else label + 1)
            offset = (label if last else label + 1) - low
            width = bits.count("x")
            value = format(offset, f"0{width}b")
            it = iter(value)
            out.append("".join(next(it) if b == "x" else b for b in bits) + ("1" if last else "0"))
    text = "".join(out)
    text += "0" * (-len(text) % 8)
    return int(text, 2).to_bytes(len(text) // 8, "big") if text else b""


def from_sql_server(data: bytes) -> str:
    """The text of a hierarchyid from SQL Server's bytes; NotAPath when they are no hierarchyid."""
    bits = "".join(format(b, "08b") for b in data)
    levels: list[str] = []
    labels: list[str] = []
    at = 0
    while at < len(bits):
        if len(bits) - at < 8 and "1" not in bits[at:]:
            break  # the padding
        found = _label_at(bits, at)
        if found is None:
            raise NotAPath(f"0x{data.hex().upper()} is not a hierarchyid's bytes")
        value, real, at = found
        labels.append(str(value))
        if real:
            levels.append(".".join(labels))
            labels = []
    if labels:
        raise NotAPath(f"0x{data.hex().upper()} ends inside a level")
    return "/" + "".join(f"{level}/" for level in levels)


def _label_at(bits: str, at: int) -> tuple[int, bool, int] | None:
    """The label whose pattern starts at bit `at`: (its value, whether its level ends there, the next bit), or None."""
    for low, pattern in _PATTERNS:
        end = at + len(pattern) + 1
        written = bits[at:end - 1]
        if end <= len(bits) and bits.startswith(pattern[:pattern.index("x")], at) and all(
                p == "x" or p == b for p, b in zip(pattern, written, strict=True)):
            offset = int("".join(b for p, b in zip(pattern, written, strict=True) if p == "x") or "0", 2)
            real = bits[end - 1] == "1"
            return low + offset - (0 if real else 1), real, end
    return None


def replacements() -> tuple[tuple[str, str], ...]:
    """Each character of the stored form with what `ToString()` writes for it (the SQL decoding: one REPLACE
    per pair, every pair's characters distinct from every other's)."""
    return tuple((c, t) for c, t in _DECODE.items())
