"""Finds references to other databases and other servers inside T-SQL module bodies.

TiDB has no linked servers and maps each SQL Server schema into one target database, so a view or
procedure that reads `OtherDb.dbo.Orders` (three-part name), `Srv.OtherDb.dbo.Orders` (four-part
name) or `OPENQUERY(Srv, '...')` needs the other database moved too, or the code rewritten. Module
bodies rarely parse as a whole (procedural T-SQL), so this works on tokens: comments and strings
are skipped by the tokenizer, and a dotted name counts only where an object name can stand
(after FROM, JOIN, INTO, UPDATE, EXEC, ...) or where it is called like a function. Column
references such as `Sales.Orders.OrderID` in a select list and XML or hierarchyid method calls
such as `e.Resume.value(...)` are therefore not mistaken for them.

    >>> [r.text for r in find_external_references("SELECT * FROM Archive.dbo.Orders o", "Sales")]
    ['Archive.dbo.Orders']
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

from sqlglot.dialects.tsql import TSQL
from sqlglot.errors import TokenError
from sqlglot.tokens import Token, TokenType

ReferenceKind = Literal["cross_database", "linked_server", "remote_query"]

_TOKENIZER = TSQL().tokenizer_class()
_OBJECT_CONTEXT = {
    "FROM", "JOIN", "INTO", "UPDATE", "EXEC", "EXECUTE", "MERGE", "DELETE", "APPLY", "TABLE",
    "USING", "INSERT", "REFERENCES",
}
_REMOTE_FUNCTIONS = {"OPENQUERY", "OPENROWSET", "OPENDATASOURCE"}
# Methods of xml, hierarchyid and the spatial types: `col.method(...)` is not a function in another database.
_METHODS = {
    "value", "query", "nodes", "exist", "modify", "getancestor", "getdescendant", "getlevel", "getroot",
    "isdescendantof", "parse", "read", "getreparentedvalue", "tostring", "write",
}
SYSTEM_DATABASES = {"master", "msdb", "tempdb", "model"}


@dataclass(frozen=True)
class ExternalReference:
    kind: ReferenceKind
    text: str
    """As written, without brackets: `Archive.dbo.Orders`, `OPENQUERY(Srv)`."""
    server: str | None
    database: str | None
    line: int
    """1-based line within the scanned text."""

    @property
    def system_database(self) -> bool:
        return (self.database or "").casefold() in SYSTEM_DATABASES


@functools.lru_cache(maxsize=256)
def tokens_of(sql: str) -> tuple[Token, ...] | None:
    """T-SQL tokens of a module body (None when the tokenizer rejects it), cached across checks."""
    try:
        return tuple(_TOKENIZER.tokenize(sql))
    except TokenError:
        return None


# Text that cannot hold a three-part name or a remote query is skipped without tokenizing.
_CANDIDATE = re.compile(r'\w[\]"]?\s*\.\s*(?:[\["]?\w+[\]"]?)?\s*\.|OPEN(?:QUERY|ROWSET|DATASOURCE)', re.I)


def find_external_references(sql: str, current_database: str | None = None) -> list[ExternalReference]:
    """Every three-part, four-part and OPENQUERY-style reference in `sql`, in text order."""
    if not _CANDIDATE.search(sql):
        return []
    tokens = tokens_of(sql)
    if tokens is None:
        return _fallback(sql, current_database)
    current = (current_database or "").casefold()
    found: list[ExternalReference] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if (
            tok.text.upper() in _REMOTE_FUNCTIONS
            and nxt is not None
            and nxt.token_type == TokenType.L_PAREN
        ):
            server = tokens[i + 2].text if i + 2 < len(tokens) and _is_name(tokens[i + 2]) else None
            label = f"{tok.text.upper()}({server})" if server and tok.text.upper() == "OPENQUERY" else tok.text.upper()
            found.append(ExternalReference("remote_query", label, server, None, tok.line))
            i += 2
            continue
        if not _is_name(tok) or (i > 0 and tokens[i - 1].token_type in (TokenType.DOT, TokenType.PARAMETER)):
            i += 1
            continue
        parts, end = dotted_name(tokens, i)
        if len(parts) >= 3:
            ref = _classify(tokens, i, end, parts, current)
            if ref is not None:
                found.append(ref)
        i = end
    return found


_LITERALS = {TokenType.STRING, TokenType.NATIONAL_STRING, TokenType.NUMBER, TokenType.HEX_STRING}


def _is_name(tok: Token) -> bool:
    if tok.token_type in (TokenType.VAR, TokenType.IDENTIFIER):
        return True
    if tok.token_type in _LITERALS:
        return False
    return bool(re.fullmatch(r"[A-Za-z_][\w$#@]*", tok.text))


def dotted_name(tokens: tuple[Token, ...], start: int) -> tuple[list[str], int]:
    """Read `a.b.c` or `a..c` from `start`; return the parts and the index after the chain."""
    parts = [tokens[start].text]
    i = start + 1
    while i < len(tokens) and tokens[i].token_type == TokenType.DOT:
        if i + 1 < len(tokens) and tokens[i + 1].token_type == TokenType.DOT:
            parts.append("")  # `db..table`: the default schema
            i += 1
            continue
        if i + 1 < len(tokens) and _is_name(tokens[i + 1]):
            parts.append(tokens[i + 1].text)
            i += 2
            continue
        break
    return parts, i


def _classify(
    tokens: tuple[Token, ...], start: int, end: int, parts: list[str], current: str
) -> ExternalReference | None:
    called = end < len(tokens) and tokens[end].token_type == TokenType.L_PAREN
    if called and (parts[-1].casefold() in _METHODS or _spatial(parts[-1])):
        return None  # a method call on a column or variable
    before = tokens[start - 1].text.upper() if start > 0 else ""
    if before not in _OBJECT_CONTEXT and not called:
        return None  # `schema.table.column` in an expression
    if parts[0].startswith("$"):
        return None  # an unsubstituted SQLCMD variable stands for this database
    line = tokens[start].line
    text = ".".join(parts)
    if len(parts) == 3:
        database = parts[0]
        if database.casefold() == current or not database:
            return None
        return ExternalReference("cross_database", text, None, database, line)
    if len(parts) == 4:
        return ExternalReference("linked_server", text, parts[0] or None, parts[1] or None, line)
    return None


def _spatial(method: str) -> bool:
    # geometry/geography methods are all ST-prefixed (STDistance, STAsText, STIntersects, ...).
    return len(method) > 2 and method[:2] == "ST" and method[2].isupper()


_FALLBACK_NAME = r"(?:\[[^\]]+\]|[A-Za-z_][\w$#@]*)"
_FALLBACK = re.compile(
    rf"\b(?:FROM|JOIN|INTO|UPDATE|EXEC|EXECUTE|MERGE)\s+({_FALLBACK_NAME}(?:\.{_FALLBACK_NAME}?){{2,3}})",
    re.I,
)


def _fallback(sql: str, current_database: str | None) -> list[ExternalReference]:
    """For text the tokenizer rejects (an unterminated string): object-context names only."""
    text = re.sub(r"--[^\n]*|/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group()), sql, flags=re.S)
    found = []
    for m in _FALLBACK.finditer(text):
        parts = [p.strip("[]") for p in m[1].split(".")]
        line = text.count("\n", 0, m.start(1)) + 1
        if len(parts) == 3 and parts[0] and parts[0].casefold() != (current_database or "").casefold():
            found.append(ExternalReference("cross_database", ".".join(parts), None, parts[0], line))
        elif len(parts) == 4:
            found.append(ExternalReference("linked_server", ".".join(parts), parts[0], parts[1], line))
    for m in re.finditer(r"\b(OPENQUERY|OPENROWSET|OPENDATASOURCE)\s*\(", text, re.I):
        found.append(ExternalReference("remote_query", m[1].upper(), None, None, text.count("\n", 0, m.start()) + 1))
    return sorted(found, key=lambda r: r.line)
