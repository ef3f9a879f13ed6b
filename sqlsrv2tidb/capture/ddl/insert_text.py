"""The patterns that read an INSERT ... VALUES statement from text without cutting it into tokens.

They read what `_insert` in statements.py reads from tokens, and nothing it would read otherwise:
`INSERT [INTO] table [(columns)] VALUES (...)[, (...)] [;]`, the table named as `Cursor.qualified_name`
names it, the value lists as balanced parentheses whose strings, delimited names and line comments are
taken whole. Whatever they do not match (a block comment, a SQLCMD `$(var)`, a `GO` or `:command` line
inside, an unclosed quote, parentheses nested deeper than five) is left to the tokenizer (stream.py).
A `GO [n]` line is read as the tokenizer reads one (tokens.py).
"""

from __future__ import annotations

import re

_WORD_END = r"(?![\w@#$])"
_NAME = r"(?:\[[^\]]*(?:\]\][^\]]*)*\]|\"[^\"]*(?:\"\"[^\"]*)*\"|(?:[^\W\d]|\#+)[\w@#]*)"
INSERT_HEAD = re.compile(
    rf"INSERT{_WORD_END}\s*(?:INTO{_WORD_END}\s*)?+(?P<name>{_NAME}(?:\s*\.\s*{_NAME}){{0,3}}+)"
    rf"\s*(?:\(\s*{_NAME}(?:\s*,\s*{_NAME})*\s*\)\s*)?VALUES{_WORD_END}\s*(?=\()",
    re.IGNORECASE,
)
_PART = re.compile(r"\[((?:[^\]]|\]\])*)\]|\"((?:[^\"]|\"\")*)\"|([^\s.]+)")
# One value list: strings, delimited names and line comments whole; a line break only where the next
# line is no GO or SQLCMD command; nested parentheses to a depth of five. Anything else (a block
# comment, `$(var)`, an unclosed quote) does not match, and the statement is left to the tokenizer.
_ATOM = (r"[^()'\"\[\]\-/$\n]+|'[^']*(?:''[^']*)*'|\[[^\]]*(?:\]\][^\]]*)*\]|\"[^\"]*(?:\"\"[^\"]*)*\""
         r"|--[^\n]*|-|/(?!\*)|\$(?!\()|\n(?![^\S\n]*(?:[Gg][Oo](?![\w@#$])|:|!))")
_PARENS = rf"\((?:{_ATOM})*+\)"
for _ in range(4):
    _PARENS = rf"\((?:{_ATOM}|{_PARENS})*+\)"
ROW = re.compile(_PARENS)
VALUES_LIST = re.compile(rf"{_PARENS}(?:\s*+,\s*+{_PARENS})*+")
AFTER_ROW = re.compile(r"(?:\s|--[^\n]*)*+,")
SEMICOLON = re.compile(r"\s*;")


# The rest of a line, blank or comment lines, then a `GO [n]` line as the tokenizer reads one (tokens.py).
_GO = (r"(?i:(?:[^\S\n]|--[^\n]*)*+\n(?:(?:[^\S\n]|--[^\n]*)*+\n)*+[^\S\n]*GO(?![\w@#$])"
       r"[ \t]*(?P<repeat>\d+)?[ \t]*(?:--[^\n]*)?(?=\n|\Z))")
GO_LINE = re.compile(_GO)


def one_row_insert(head: str) -> str:
    """A `GO` line (or none), whitespace and comments, then one INSERT (its head matching `head`) of one row, not
    followed by a comma."""
    return rf"(?P<go>{_GO})?(?:\s|--[^\n]*)*+(?P<insert>{head})(?:{_PARENS})(?!(?:\s|--[^\n]*)*+,)(?:\s*;)?"


ONE_ROW_INSERT = re.compile(one_row_insert(INSERT_HEAD.pattern), re.IGNORECASE)


def table_name(name: str) -> tuple[str, ...]:
    """`[dbo].[Order Details]` -> ('dbo', 'Order Details'), as `Cursor.qualified_name` spells it."""
    parts = []
    for m in _PART.finditer(name):
        if m[1] is not None:
            parts.append(m[1].replace("]]", "]"))
        elif m[2] is not None:
            parts.append(m[2].replace('""', '"'))
        else:
            parts.append(m[3])
    return tuple(parts)
