"""What a table's CHECK constraints say about the values `data synthesize` may generate.

Only the shapes that bound one column, or compare two, are read; anything else is left to the
statistics and the type (and said per column in data.json). Read from the T-SQL text the capture
keeps (SQL Server stores a definition with its own brackets and parentheses, e.g.
`([UnitPrice]>=(0))`; Babelfish stores PostgreSQL's form, e.g. `(unitprice >= (0)::numeric)`):

- `col >= n`, `col > n`, `col <= n`, `col < n`, `col BETWEEN a AND b`, with numbers or quoted dates;
- `col IN ('a', 'b')`, `col = 'a' OR col = 'b'`, `upper(col) = 'A' OR ...`, optionally `col IS NULL OR ...`;
- `col_a >= col_b` (and >, <=, <, <>): the generator keeps each row's pair in that order (or apart);
- an OR whose alternatives include equalities: values come from those (one true alternative is
  enough); `col_a >= col_b OR col_a IS NULL` is read as the comparison.

Constraints joined by AND are read part by part; an OR of anything but equalities is skipped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from ..model import Table

_LITERAL = r"(?:N?'(?:[^']|'')*'|-?\d+(?:\.\d+)?)"
_NAME = r"[A-Za-z_][\w$#@]*"
_BOUND = re.compile(rf"^({_NAME})\s*(>=|<=|>|<|=)\s*({_LITERAL})$")
_BOUND_FLIPPED = re.compile(rf"^({_LITERAL})\s*(>=|<=|>|<|=)\s*({_NAME})$")
_BETWEEN = re.compile(rf"^({_NAME})\s+BETWEEN\s+({_LITERAL})\s+AND\s+({_LITERAL})$", re.I)
_IN = re.compile(rf"^(?:(?:upper|lower)\s*\(\s*)?({_NAME})\s*\)?\s+IN\s*\(\s*({_LITERAL}(?:\s*,\s*{_LITERAL})*)\s*\)$", re.I)
_EQUAL = re.compile(rf"^(?:(?:upper|lower)\s*\(\s*)?({_NAME})\s*\)?\s*=\s*({_LITERAL})$", re.I)
_IS_NULL = re.compile(rf"^({_NAME})\s+IS\s+NULL$", re.I)
_PAIR = re.compile(rf"^({_NAME})\s*(>=|<=|<>|!=|>|<)\s*({_NAME})$")
_BETWEEN_FROM = re.compile(rf"^({_NAME})\s+BETWEEN\s+({_LITERAL})\s+AND\s+.+$", re.I)
_FLIP = {">=": "<=", "<=": ">=", ">": "<", "<": ">", "=": "="}


@dataclass
class ColumnRule:
    low: object | None = None
    low_open: bool = False
    high: object | None = None
    high_open: bool = False
    choices: list[object] | None = None
    null_allowed_by_check: bool = False
    texts: list[str] = field(default_factory=list)


@dataclass
class TableRules:
    columns: dict[str, ColumnRule] = field(default_factory=dict)
    pairs: list[tuple[str, str, str]] = field(default_factory=list)
    """(a, op, b): each row must have a op b."""
    skipped: list[str] = field(default_factory=list)

    def rule(self, column: str) -> ColumnRule | None:
        return self.columns.get(column.casefold())


def read_checks(table: Table) -> TableRules:
    rules = TableRules()
    names = {c.name.casefold() for c in table.columns}
    for check in table.checks:
        if check.disabled:
            continue
        text = _plain(check.expression)
        for part in _split(text, "AND"):
            if not _read(part, rules, names):
                rules.skipped.append(check.expression)
                break
    return rules


def _plain(text: str) -> str:
    """T-SQL (or Babelfish's PostgreSQL) check text without brackets, casts and redundant parentheses."""
    text = re.sub(r"::\s*[A-Za-z ]+(?:\(\d+(?:,\s*\d+)?\))?", "", text)  # PostgreSQL casts
    text = re.sub(r"\[([^\]]+)\]", r"\1", text)
    previous = None
    while previous != text:
        previous = text
        text = re.sub(rf"(?<![\w$#@])\(\s*({_LITERAL}|{_NAME})\s*\)", r"\1", text)  # not a call's parentheses
        text = text.strip()
        if text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
            text = text[1:-1].strip()
    return " ".join(text.split())


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return False
    return depth == 0


def _split(text: str, word: str) -> list[str]:
    """Split on a top-level AND or OR (outside parentheses and quotes)."""
    parts, depth, quote, start, i = [], 0, False, 0, 0
    pattern = re.compile(rf"\s{word}\s", re.I)
    while i < len(text):
        ch = text[i]
        if ch == "'":
            quote = not quote
        elif not quote and ch in "()":
            depth += 1 if ch == "(" else -1
        elif not quote and depth == 0 and (m := pattern.match(text, i)):
            if word.upper() == "AND" and re.search(r"\bBETWEEN\s+\S+$", text[start:i], re.I):
                i += 1
                continue
            parts.append(_plain(text[start:i]))
            start = i = m.end()
            continue
        i += 1
    parts.append(_plain(text[start:]))
    return parts


def literal(text: str) -> object:
    if text.upper().startswith("N'") or text.startswith("'"):
        return text[text.index("'") + 1 : -1].replace("''", "'")
    try:
        return Decimal(text)
    except InvalidOperation:
        return text


def _read(part: str, rules: TableRules, names: set[str]) -> bool:
    alternatives = _split(part, "OR")
    if len(alternatives) > 1:
        return _read_choices(alternatives, rules, names)
    if m := _BETWEEN.match(part):
        rule = _rule(rules, m[1], names)
        if rule is None:
            return False
        rule.low, rule.high = literal(m[2]), literal(m[3])
        return True
    if m := _BETWEEN_FROM.match(part):  # BETWEEN '1930-01-01' AND DATEADD(...): the literal end is kept
        rule = _rule(rules, m[1], names)
        if rule is None:
            return False
        rule.low = literal(m[2])
        rules.skipped.append(f"{part} (upper end not read)")
        return True
    if m := _IN.match(part):
        rule = _rule(rules, m[1], names)
        if rule is None:
            return False
        rule.choices = [literal(v.strip()) for v in re.findall(_LITERAL, m[2])]
        return True
    m = _BOUND.match(part)
    if m is None and (flipped := _BOUND_FLIPPED.match(part)):
        m = (None, flipped[3], _FLIP[flipped[2]], flipped[1])
    if m is not None:
        rule = _rule(rules, m[1], names)
        if rule is None:
            return False
        value, op = literal(m[3]), m[2]
        if op in (">=", ">"):
            rule.low, rule.low_open = value, op == ">"
        elif op in ("<=", "<"):
            rule.high, rule.high_open = value, op == "<"
        else:
            rule.choices = [value]
        return True
    if (m := _PAIR.match(part)) and m[1].casefold() in names and m[3].casefold() in names:
        rules.pairs.append((m[1].casefold(), m[2], m[3].casefold()))
        return True
    return False


def _read_choices(alternatives: list[str], rules: TableRules, names: set[str]) -> bool:
    """An OR: values from its equalities (satisfying one alternative satisfies the OR), else a column
    comparison that only NULL may escape (`EndDate >= StartDate OR EndDate IS NULL`)."""
    column, choices, pairs = None, [], []
    for alt in alternatives:
        if _IS_NULL.match(alt):
            continue
        found = None
        if (m := _EQUAL.match(alt)) is not None:
            found = (m[1], [literal(m[2])])
        elif (m := _IN.match(alt)) is not None:
            found = (m[1], [literal(v.strip()) for v in re.findall(_LITERAL, m[2])])
        elif (m := _PAIR.match(alt)) and m[1].casefold() in names and m[3].casefold() in names:
            pairs.append((m[1].casefold(), m[2], m[3].casefold()))
            continue
        if found is None:
            continue  # an alternative not read (LIKE, a function): the others still satisfy the OR
        if column is not None and found[0].casefold() != column:
            return False
        column = found[0].casefold()
        choices += found[1]
    if choices:
        rule = _rule(rules, column or "", names)
        if rule is None:
            return False
        rule.choices = choices
        return True
    if len(pairs) == 1 and all(_IS_NULL.match(a) or _PAIR.match(a) for a in alternatives):
        rules.pairs.append(pairs[0])
        return True
    return False


def _rule(rules: TableRules, name: str, names: set[str]) -> ColumnRule | None:
    if name.casefold() not in names:
        return None
    return rules.columns.setdefault(name.casefold(), ColumnRule())
