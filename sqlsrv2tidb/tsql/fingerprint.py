"""Fingerprints: one key for every execution of the same statement shape, whatever source saw it.

Query Store stores `(@P1 int)SELECT ... WHERE id = @P1`, an XE `rpc_completed` event holds the
same statement inside `sp_executesql`, and a `.sql` file has `... WHERE id = 42`. All three must
land in one query class so that rates add up and the statement is translated once. So literals and
parameter markers both become `?`, identifiers lose their brackets and case, keywords are upper
case, comments and whitespace go, and lists of `?` (IN lists, multi-row VALUES) collapse to one.

    >>> fingerprint("SELECT [Name] FROM dbo.T WHERE id IN (1, 2, 3) -- x")
    'SELECT name FROM dbo.t WHERE id IN (?)'
    >>> fingerprint("(@P1 int)SELECT name FROM [dbo].[t] WHERE id IN (@P1)")
    'SELECT name FROM dbo.t WHERE id IN (?)'
"""

from __future__ import annotations

import hashlib
import re

from sqlglot.dialects.tsql import TSQL
from sqlglot.errors import TokenError
from sqlglot.tokens import Token, TokenType

from ..model.workload import Parameter, QueryKind

_LITERALS = {
    TokenType.STRING,
    TokenType.NATIONAL_STRING,
    TokenType.NUMBER,
    TokenType.HEX_STRING,
    TokenType.BIT_STRING,
    TokenType.BYTE_STRING,
}
_NAMES = {TokenType.VAR, TokenType.IDENTIFIER}
_TOKENIZER = TSQL().tokenizer_class()


def strip_parameter_prefix(text: str) -> tuple[str, str]:
    """Split Query Store's `(@P1 int,@P2 nvarchar(50))SELECT ...` into (declarations, statement).

    Types contain parentheses (`decimal(18,2)`), so the closing one is found by depth. Text without
    the prefix comes back as `("", text)`.
    """
    stripped = text.lstrip()
    if not (stripped.startswith("(") and stripped[1:].lstrip().startswith("@")):
        return "", text
    depth = 0
    for i, ch in enumerate(stripped):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return stripped[1:i].strip(), stripped[i + 1 :].lstrip()
    return "", text


def fingerprint(sql: str) -> str:
    _, body = strip_parameter_prefix(sql)
    try:
        tokens = _TOKENIZER.tokenize(body)
    except TokenError:
        return _fallback(body)
    return _from_tokens(tokens)


def fingerprint_of_tokens(tokens: list[Token]) -> str | None:
    """The fingerprint of a statement text from tokens a T-SQL reader already made of all of it
    (the translator's statement splitter), so the text is not tokenized a second time; None when
    those tokens may differ from the fingerprint's own.

    The two tokenizers differ in one way that shows here: the fingerprint's reads the rest of the
    text after a leading command word (`SHOW`, `FETCH`, `END`, ... first, or after `;` or `BEGIN`)
    as one string; token types are otherwise only told apart where both agree (literals, names,
    parameters), keywords by their text.
    """
    prefixes = _TOKENIZER.COMMAND_PREFIX_TOKENS
    for i, tok in enumerate(tokens):
        if tok.token_type in _TOKENIZER.COMMANDS and (i == 0 or tokens[i - 1].token_type in prefixes):
            return None
    return _from_tokens(tokens)


def _from_tokens(tokens: list[Token]) -> str:
    is_exec = bool(tokens) and tokens[0].text.upper() in ("EXEC", "EXECUTE")
    parts: list[str] = []
    spelled = _SPELLED
    i = 0
    n = len(tokens)
    while i < n:
        tok = tokens[i]
        tt = tok.token_type
        if tt in _LITERALS:
            parts.append("?")
            i += 1
            continue
        if tt in _NAMES:
            parts.append(tok.text.lower())
            i += 1
            continue
        if tt != TokenType.PARAMETER and tt != TokenType.HASH:
            text = tok.text
            part = spelled.get(text)
            if part is None:
                if len(spelled) > 10_000:
                    spelled.clear()
                part = spelled[text] = text.upper() if text.replace("_", "").isalpha() else text
            parts.append(part)
            i += 1
            continue
        nxt = tokens[i + 1] if i + 1 < n else None
        if tt == TokenType.PARAMETER:
            if nxt is not None and nxt.token_type == TokenType.PARAMETER:
                # `@@ROWCOUNT` and friends are functions, not parameters.
                name = tokens[i + 2].text.upper() if i + 2 < len(tokens) else ""
                parts.append("@@" + name)
                i += 3
                continue
            after = tokens[i + 2] if i + 2 < len(tokens) else None
            if is_exec and nxt is not None and after is not None and after.token_type == TokenType.EQ:
                # `EXEC p @name = value`: the name is part of the shape, the value is not.
                parts.append("@" + nxt.text.lower())
            else:
                parts.append("?")
            i += 2 if nxt is not None else 1
            continue
        parts.append("#")  # TokenType.HASH
        i += 1
    return _collapse(_join(parts))


_SPELLED: dict[str, str] = {}
"""Keyword and symbol texts as a fingerprint spells them (keywords upper case), learned once per text."""


def _join(parts: list[str]) -> str:
    """Join tokens with one canonical spacing, so `IN(1,2)` and `IN ( 1 , 2 )` agree."""
    out: list[str] = []
    append = out.append
    prev = ""  # the first part has no glue either
    for part in parts:
        if part in _TIGHT_BEFORE or prev in _TIGHT_AFTER:
            append(part)
        elif part == "(" and prev not in _SPACED and (prev[-1:].isalnum() or prev[-1:] == "_"):
            append(part)  # a function call or a column list: COUNT(*), t(a, b)
        else:
            append(" ")
            append(part)
        prev = part
    return "".join(out)


_TIGHT_BEFORE = frozenset({",", ")", "."})
_TIGHT_AFTER = frozenset({"(", ".", "#", ""})


_SPACED = {
    "IN", "VALUES", "AS", "FROM", "JOIN", "ON", "WHERE", "AND", "OR", "NOT", "EXISTS", "INTO", "SET",
    "SELECT", "WITH", "OVER", "BY", "UNION", "ALL", "APPLY", "THEN", "ELSE", "WHEN", "RETURN", "TOP",
    "IS", "LIKE", "BETWEEN", "CASE", "END", "DISTINCT", "HAVING", "USING", "OUTPUT",
}


def _collapse(text: str) -> str:
    """`(?, ?, ?)` becomes `(?)`, and repeated `(?), (?)` row lists become one row."""
    if "(?" not in text:
        return text.strip()  # no list to collapse
    previous = None
    while previous != text:
        previous = text
        text = _VALUE_LIST.sub("(?)", text)
        text = _ROW_LIST.sub("(?)", text)
    return text.strip()


_VALUE_LIST = re.compile(r"\(\?(?:, \?)+\)")
_ROW_LIST = re.compile(r"\(\?\)(?:, \(\?\))+")


def _fallback(sql: str) -> str:
    """Normalise text the tokenizer rejects (unterminated strings in captured garbage)."""
    text = re.sub(r"--[^\n]*|/\*.*?\*/", " ", sql, flags=re.S)
    text = re.sub(r"N?'(?:[^']|'')*'?", "?", text)
    text = re.sub(r"\b0x[0-9A-Fa-f]*\b|\b\d+(?:\.\d+)?(?:[eE][-+]?\d+)?\b", "?", text)
    text = re.sub(r"@\w+", "?", text)
    text = text.replace("[", "").replace("]", "")
    return _collapse(" ".join(text.split()))


def query_id(fingerprint_text: str) -> str:
    """A short stable id for a query class: `q` + 12 hex digits of the fingerprint's SHA-1."""
    return "q" + hashlib.sha1(fingerprint_text.encode("utf-8")).hexdigest()[:12]


_KIND_WORDS: dict[str, QueryKind] = {
    "SELECT": "select",
    "WITH": "select",
    "INSERT": "insert",
    "UPDATE": "update",
    "DELETE": "delete",
    "MERGE": "merge",
    "EXEC": "exec",
    "EXECUTE": "exec",
    "CREATE": "ddl",
    "ALTER": "ddl",
    "DROP": "ddl",
    "TRUNCATE": "ddl",
}


def statement_kind(sql: str) -> QueryKind:
    """What a statement does, from its first keyword (`WITH ... INSERT` counts as an insert)."""
    _, body = strip_parameter_prefix(sql)
    body = re.sub(r"--[^\n]*|/\*.*?\*/", " ", body, flags=re.S)
    words = re.findall(r"[A-Za-z_]+", body[:2000])
    if not words:
        return "other"
    first = words[0].upper()
    kind = _KIND_WORDS.get(first, "other")
    if first == "WITH":
        # A CTE feeding a DML statement: the first DML keyword after the CTE decides.
        for word in words[1:]:
            upper = word.upper()
            if upper in ("INSERT", "UPDATE", "DELETE", "MERGE"):
                return _KIND_WORDS[upper]
    return kind


def is_write(kind: QueryKind) -> bool:
    """Statements that change data or schema; replay refuses them without --allow-writes."""
    return kind in ("insert", "update", "delete", "merge", "ddl", "exec")


def parse_declarations(text: str) -> tuple[Parameter, ...]:
    """Read `@P1 int,@P2 nvarchar(50),@P3 decimal(18,2) OUTPUT` into parameters, in order.

    The declaration list of Query Store text, `sp_executesql`'s second argument and `sp_prepexec`
    all use this form; commas inside type parentheses do not split.
    """
    params: list[Parameter] = []
    depth, start = 0, 0
    pieces = []
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            pieces.append(text[start:i])
            start = i + 1
    pieces.append(text[start:])
    for piece in pieces:
        m = re.match(r"\s*(@[\w@#$]+)\s+(.*?)\s*$", piece, re.S)
        if not m:
            continue
        type_text = re.sub(r"\s+(OUTPUT|OUT|READONLY)\s*$", "", m[2], flags=re.I)
        type_text = re.sub(r"\s*=.*$", "", type_text, flags=re.S)  # a default value
        params.append(Parameter(m[1], " ".join(type_text.split()).lower()))
    return tuple(params)
