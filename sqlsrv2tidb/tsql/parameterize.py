"""Ad-hoc statements as SQL Server's simple parameterization sees them: values become `@1`, `@2`, ...

An application that builds its SQL as text sends `... WHERE pub_id = '0736'`, then `'0877'`, then
`'1389'`: one query class, a different value each time. To replay that class with each execution's
own value, the class's text names its values as parameters (`WHERE pub_id = @1`, declared
`varchar(8000)` as SQL Server declares it) and each execution keeps the literals it sent, in order.
(https://learn.microsoft.com/sql/relational-databases/query-processing-architecture-guide#simple-parameterization)

Only literals in value positions are parameters: an operand of a comparison (`=`, `<>`, `<`, `>=`,
`BETWEEN ... AND ...`), an item of an `IN (...)` list and of a `VALUES (...)` row. Every other
literal is part of the statement's meaning and stays in its text: `TOP 10`, `ORDER BY 1`,
`CONVERT(varchar(10), d, 112)`, `DATEADD(day, -1, d)`, a `CASE ... THEN 'x'`, and a `LIKE` pattern,
whose T-SQL character classes (`'[a-c]%'`) translate to another operator than a plain pattern.
A procedure call's arguments are values too (`EXEC p @a = 5, 'x'` -> `EXEC p @a = @1, @2`): the
procedure runner replays each call with the arguments it was made with. Only whole arguments count
(`@a = 5`, not `@a = 5 + 1`, which T-SQL does not allow anyway), and not the SQL text of a driver's
call (`sp_executesql N'SELECT ...'`), which is a statement, not a value.

T-SQL lets a literal touch the word beside it (`d > '20130101'and x = 1`); a parameter name may not
(`@1and` is one variable), so a space is written where one would join it: the text written reads as
the original's tokens with each value literal replaced by its parameter.

    >>> text, parameters, values = parameterize("SELECT * FROM t WHERE a = N'x' AND b IN (1, -2) ORDER BY 1")
    >>> text, [p.type for p in parameters], values
    ('SELECT * FROM t WHERE a = @1 AND b IN (@2, @3) ORDER BY 1', ['nvarchar(4000)', 'int', 'int'], ('x', 1, -2))
"""

from __future__ import annotations

import re

from ..model.workload import Parameter, Scalar
from .literals import Token, literal_value, tokens

_LITERALS = ("str", "num", "bin")
_COMPARE_WORDS = {"BETWEEN"}
_COMPARE_CHARS = {"=", "<", ">"}


def value_slots(toks: list[Token]) -> tuple[int, ...]:
    """Indexes (into `toks`, whitespace dropped) of the literals in value positions, in text order.

    A negative number's slot is its `-` sign, so the slot and the token after it make one value.
    """
    if toks and toks[0].upper in ("EXEC", "EXECUTE"):
        return _call_slots(toks)
    slots: list[int] = []
    contexts: list[str] = []
    """For each open parenthesis: `in`, `values` or `other`."""
    last_closed = ""
    between = False
    for i, tok in enumerate(toks):
        text = tok.text
        if text == "(":
            before = toks[i - 1].upper if i else ""
            if before == "IN":
                contexts.append("in")
            elif before == "VALUES" or (before == "," and last_closed == "values" and _at_values_level(toks, i)):
                contexts.append("values")
            else:
                contexts.append("other")
            continue
        if text == ")":
            last_closed = contexts.pop() if contexts else ""
            continue
        if tok.kind == "word":
            upper = tok.upper
            if upper == "BETWEEN":
                between = True
            elif upper == "AND" and between:
                between = False
                if _literal_at(toks, i + 1):
                    slots.append(i + 1)
            continue
        if not _literal_at(toks, i) or (text == "-" and _literal_at(toks, i - 1)):
            continue
        if tok.kind == "num" and i and toks[i - 1].text == "-" and (i - 1) in slots:
            continue  # the number of a negative value whose slot is its sign
        previous = toks[i - 1] if i else None
        if previous is None:
            continue
        inside = contexts[-1] if contexts else ""
        if previous.text in _COMPARE_CHARS or previous.upper in _COMPARE_WORDS:
            slots.append(i)
        elif inside in ("in", "values") and previous.text in ("(", ",") and _ends_item(toks, i):
            slots.append(i)
    return tuple(slots)


_DRIVER_CALLS = {"sp_executesql", "sp_prepexec", "sp_prepare", "sp_execute", "sp_cursoropen", "sp_cursorprepexec",
                 "sp_cursorprepare", "sp_cursorexecute", "sp_prepexecrpc"}


def _call_slots(toks: list[Token]) -> tuple[int, ...]:
    """The literal arguments of `EXEC [@rc =] name arg, @p = arg, ...`, each a whole argument."""
    i = 1
    if i + 1 < len(toks) and toks[i].kind == "var" and toks[i + 1].text == "=":
        i += 2
    name = ""
    while i < len(toks) and toks[i].kind in ("word", "ident"):
        name = toks[i].text.strip("[]").lower()
        i += 1
        if i < len(toks) and toks[i].text == ".":
            while i < len(toks) and toks[i].text == ".":
                i += 1
            continue
        break
    if not name or name in _DRIVER_CALLS:
        return ()
    slots: list[int] = []
    start = True
    depth = 0
    while i < len(toks):
        tok = toks[i]
        if tok.text == ";" and depth == 0:
            break
        if tok.text == "(":
            depth += 1
        elif tok.text == ")":
            depth -= 1
        if depth == 0 and tok.text == ",":
            start = True
            i += 1
            continue
        if start and depth == 0:
            start = False
            if tok.kind == "var" and i + 1 < len(toks) and toks[i + 1].text == "=":
                i += 2
                tok = toks[i] if i < len(toks) else tok
            if i < len(toks) and _literal_at(toks, i):
                end = i + (2 if toks[i].text == "-" else 1)
                if end >= len(toks) or toks[end].text in (",", ";") or toks[end].upper in ("OUTPUT", "OUT"):
                    slots.append(i)
        i += 1
    return tuple(slots)


def _literal_at(toks: list[Token], i: int) -> bool:
    """A literal starts at `i`: a literal token, or `-` followed by a number."""
    if i >= len(toks) or i < 0:
        return False
    tok = toks[i]
    if tok.kind in _LITERALS:
        return _ends_value(toks, i + 1)
    return tok.text == "-" and i + 1 < len(toks) and toks[i + 1].kind == "num" and _ends_value(toks, i + 2)


def _ends_value(toks: list[Token], j: int) -> bool:
    """Nothing after the literal makes it part of a larger name or call (`1.x`, `'a'.b`)."""
    return j >= len(toks) or toks[j].text not in (".", "(")


def _ends_item(toks: list[Token], i: int) -> bool:
    """The literal at `i` is a whole list item: `,` or `)` follows it (not `1 + x`)."""
    j = i + (2 if toks[i].text == "-" else 1)
    return j < len(toks) and toks[j].text in (",", ")")


def _at_values_level(toks: list[Token], i: int) -> bool:
    """`), (` continues a VALUES row list only at the depth of the rows themselves."""
    return i >= 2 and toks[i - 2].text == ")"


def slot_value(toks: list[Token], slot: int) -> Scalar:
    """The value a slot holds (a `-` slot reads the number after it)."""
    if toks[slot].text == "-":
        return literal_value(toks[slot:slot + 2])
    return literal_value([toks[slot]])


def declared_type(toks: list[Token], slot: int) -> str:
    """The type SQL Server's simple parameterization would give the literal."""
    tok = toks[slot + 1] if toks[slot].text == "-" else toks[slot]
    if tok.kind == "str":
        return "nvarchar(4000)" if tok.text[0] in "Nn" else "varchar(8000)"
    if tok.kind == "bin":
        return "varbinary(8000)"
    text = tok.text
    if re.fullmatch(r"\d+", text):
        return "int" if int(text) < 2**31 else "bigint"
    if "e" in text.lower():
        return "float"
    whole, _, fraction = text.partition(".")
    digits = len(whole.lstrip("0")) + len(fraction)
    return f"numeric({max(digits, len(fraction), 1)},{len(fraction)})"


def parameterize(text: str) -> tuple[str, tuple[Parameter, ...], tuple[Scalar, ...]]:
    """(the text with its value literals as `@1`, `@2`, ..., their parameters, their values)."""
    spaced = tokens(text, keep_space=True)
    kept = [t for t in spaced if t.kind not in ("ws", "comment")]
    slots = value_slots(kept)
    if not slots:
        return text, (), ()
    params = tuple(Parameter(f"@{n}", declared_type(kept, s)) for n, s in enumerate(slots, 1))
    values = tuple(slot_value(kept, s) for s in slots)
    replaced: dict[int, tuple[int, str]] = {}
    for n, slot in enumerate(slots, 1):
        first = kept[slot]
        last = kept[slot + 1] if first.text == "-" else first
        replaced[first.start] = (last.start + len(last.text), f"@{n}")
    out, pos = [], 0
    for start in sorted(replaced):
        end, name = replaced[start]
        out.append(text[pos:start])
        out.append(_apart(text, start, end, name))
        pos = end
    out.append(text[pos:])
    return "".join(out), params, values


_JOINS = re.compile(r"[\w#$@]")
"""Characters that would run on into a parameter's name (`@1and` is one variable, `@x@1` too)."""


def _apart(text: str, start: int, end: int, name: str) -> str:
    """`name` in place of the literal at text[start:end], with a space on a side where it would otherwise
    join the word next to it: a literal may touch a word (`'20130101'and`, `and'x'`, `1.5e3and` are legal
    T-SQL), a parameter may not, so the text written reads as the same tokens with the literal replaced."""
    before = " " if start > 0 and _JOINS.match(text[start - 1]) else ""
    after = " " if end < len(text) and _JOINS.match(text[end]) else ""
    return before + name + after
