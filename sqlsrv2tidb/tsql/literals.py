"""Reads T-SQL text as tokens, and literal values as the Python scalars the workload model stores.

Captured SQL carries its values as T-SQL literals: `N'O''Brien'`, `-5`, `1.5E3`, `0x0A`, `NULL`,
`'20040101'` for a date. The driver-call unwrapper, the statement splitter and the workload readers
all need the same small lexer (strings with `''` escapes, bracketed names, variables, comments)
and the same reading of literals, so both live here.
(https://learn.microsoft.com/sql/t-sql/data-types/constants-transact-sql)

    >>> literal_value(tokens("N'it''s'"))
    "it's"
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..model.workload import Scalar
from .datetimes import read_datetime

# One regex pass splits T-SQL into tokens; every character lands in some token, so an unterminated
# string shows up as a lone `'` punctuation token instead of being silently swallowed.
_LEX = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>--[^\n]*|/\*.*?\*/)
  | (?P<str>[Nn]?'(?:[^']|'')*')
  | (?P<bin>0[xX][0-9A-Fa-f]*)
  | (?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)
  | (?P<var>@@?[\w#$@]*)
  | (?P<ident>\[(?:[^\]]|\]\])*\]|"(?:[^"]|"")*")
  | (?P<word>[^\W\d][\w#$]*|\#[\w#$]*)
  | (?P<punct>.)
    """,
    re.X | re.S,
)


class Token(NamedTuple):
    kind: str
    """ws, comment, str, bin, num, var, ident, word or punct."""
    text: str
    start: int

    @property
    def upper(self) -> str:
        return self.text.upper()


def tokens(text: str, *, keep_space: bool = False) -> list[Token]:
    """T-SQL tokens of `text` (whitespace and comments dropped unless `keep_space`)."""
    if keep_space:
        return [Token(m.lastgroup or "punct", m.group(), m.start()) for m in _LEX.finditer(text)]
    return [Token(kind, m.group(), m.start()) for m in _LEX.finditer(text)
            if (kind := m.lastgroup or "punct") not in _SPACE]


_SPACE = frozenset(("ws", "comment"))


class NotALiteral(ValueError):
    """The argument is an expression or a variable, not a value written out."""


def literal_value(toks: list[Token]) -> Scalar:
    """The value of one literal written as T-SQL tokens: `N'it''s'`, `-5`, `1.5E3`, `0x0A`, `NULL`."""
    sign = ""
    if len(toks) == 2 and toks[0].kind == "punct" and toks[0].text in "+-" and toks[1].kind == "num":
        sign, toks = toks[0].text, toks[1:]
    if len(toks) != 1:
        raise NotALiteral(" ".join(t.text for t in toks))
    tok = toks[0]
    if tok.kind == "str":
        body = tok.text[1:] if tok.text[0] in "Nn" else tok.text
        return body[1:-1].replace("''", "'")
    if tok.kind == "num":
        text = sign + tok.text
        if re.fullmatch(r"[-+]?\d+", text):
            return int(text)
        return float(text)
    if tok.kind == "bin":
        return "0x" + tok.text[2:].upper()
    if tok.kind == "word" and tok.upper in ("NULL", "DEFAULT"):
        return None
    raise NotALiteral(tok.text)


def tsql_literal(value: Scalar, type_text: str | None = None) -> str:
    """A value written back as a T-SQL literal (the inverse of `literal_value`): `NULL`, `5`, `1.5`,
    `N'it''s'`, and `0x0A` for a binary type.

        >>> [tsql_literal(v) for v in (None, True, -5, 1.5, "it's")], tsql_literal("0x0A", "varbinary(8)")
        (['NULL', '1', '-5', '1.5', "N'it''s'"], '0x0A')
    """
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float)):
        return repr(value)
    text = str(value)
    if "binary" in (type_text or "").lower() and re.fullmatch(r"0[xX][0-9A-Fa-f]*", text):
        return text
    return "N'" + text.replace("'", "''") + "'"


_DATE_TYPES = ("date", "datetime", "datetime2", "smalldatetime")


def typed_value(value: Scalar, type_text: str | None) -> Scalar:
    """Normalise a literal for its declared type: dates become ISO text, GUIDs upper case.

    T-SQL reads `'20040101'` (or `'1/1/2004'`) as a date when the parameter is a date, so the stored
    value says `2004-01-01`; a value that does not parse as its type is kept as written.
    """
    if not isinstance(value, str) or not type_text:
        return value
    base = type_text.split("(")[0].strip().lower()
    if base in _DATE_TYPES:
        parsed = read_datetime(value)
        if parsed is None:
            return value
        return parsed.date().isoformat() if base == "date" else parsed.isoformat()
    if base == "uniqueidentifier":
        return value.strip().upper()
    return value
