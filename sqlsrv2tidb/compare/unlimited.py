"""The T-SQL of a query without its outermost row limit: every row, in the same order.

`TOP 3 ... ORDER BY points DESC` over rows tied at the third place returns any of the tied rows; to
judge the rows each server picked, the comparison reads the whole tie group from SQL Server, and
that is what the query returns without its TOP (or without its OFFSET ... FETCH, or without the
`WHERE rn <= 3` that keeps the first rows a ROW_NUMBER() numbers). The limit is cut out of the
captured text itself, token by token, and nothing else is touched: the text SQL Server runs is the
application's, less the limit, never a rewrite of it.

- `SELECT [DISTINCT|ALL] TOP (n) [PERCENT] [WITH TIES] ...`: the TOP clause of the main SELECT (the
  first SELECT outside parentheses, after any CTEs) is removed;
- `... ORDER BY k OFFSET m ROWS [FETCH {FIRST|NEXT} n ROWS ONLY]`: the OFFSET clause outside
  parentheses is removed, and the FETCH with it;
- `... WHERE rn <= k [ORDER BY ...]` (`without_filter`): the main SELECT's WHERE clause outside
  parentheses is removed, up to its GROUP BY, ORDER BY or OPTION.

https://learn.microsoft.com/sql/t-sql/queries/top-transact-sql
https://learn.microsoft.com/sql/t-sql/queries/select-order-by-clause-transact-sql#using-offset-and-fetch-to-limit-the-rows-returned
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot.errors import TokenError
from sqlglot.tokens import Token, TokenType

from ..translate.dialect import SqlServer
from ..tsql.fingerprint import strip_parameter_prefix

_TOKENIZER = SqlServer.Tokenizer()


def without_limit(tsql: str, statement: str) -> str | None:
    """`tsql` with the outermost TOP or OFFSET ... FETCH of `statement` (one statement of it, as the
    statement splitter cut it) removed; None when the text does not show one where it should be."""
    return _without(tsql, statement, lambda tokens: _top(tokens) or _offset(tokens))


def without_filter(tsql: str, statement: str) -> str | None:
    """`tsql` with the WHERE clause of `statement`'s main SELECT removed; None when it has none outside
    parentheses."""
    return _without(tsql, statement, _where)


def _without(tsql: str, statement: str, find: Callable[[list[Token]], tuple[int, int] | None]) -> str | None:
    _, body = strip_parameter_prefix(tsql)
    start = len(tsql) - len(body)
    if not tsql.endswith(body) or body.count(statement) != 1:
        return None
    start += body.index(statement)
    try:
        tokens = _TOKENIZER.tokenize(statement)
    except TokenError:
        return None
    span = find(tokens)
    if span is None:
        return None
    cut_from, cut_to = tokens[span[0]].start, tokens[span[1]].end + 1
    return tsql[:start + cut_from] + " " + tsql[start + cut_to:]


def _depths(tokens: list[Token]) -> list[int]:
    """Each token's parenthesis depth (a parenthesis itself counts at the depth outside it)."""
    depths, depth = [], 0
    for tok in tokens:
        if tok.token_type == TokenType.R_PAREN:
            depth = max(0, depth - 1)
        depths.append(depth)
        if tok.token_type == TokenType.L_PAREN:
            depth += 1
    return depths


def _word(tok: Token) -> str:
    return "" if tok.token_type == TokenType.STRING else tok.text.upper()


def _top(tokens: list[Token]) -> tuple[int, int] | None:
    """The span (first and last token) of the main SELECT's TOP clause."""
    depths = _depths(tokens)
    select = next((i for i, tok in enumerate(tokens) if depths[i] == 0 and tok.token_type == TokenType.SELECT), None)
    if select is None:
        return None
    i = select + 1
    while i < len(tokens) and _word(tokens[i]) in ("DISTINCT", "ALL"):
        i += 1
    if i >= len(tokens) - 1 or _word(tokens[i]) != "TOP":
        return None
    first = i
    i += 1
    if tokens[i].token_type == TokenType.L_PAREN:
        while i < len(tokens) and not (tokens[i].token_type == TokenType.R_PAREN and depths[i] == 0):
            i += 1
        if i >= len(tokens):
            return None
    elif tokens[i].token_type == TokenType.PARAMETER and i + 1 < len(tokens):
        i += 1  # @n: the parameter sign and its name
    elif tokens[i].token_type not in (TokenType.NUMBER, TokenType.VAR):
        return None
    last = i
    if last + 1 < len(tokens) and _word(tokens[last + 1]) == "PERCENT":
        last += 1
    if last + 2 < len(tokens) and _word(tokens[last + 1]) == "WITH" and _word(tokens[last + 2]) == "TIES":
        last += 2
    return first, last


def _offset(tokens: list[Token]) -> tuple[int, int] | None:
    """The span of the outermost `OFFSET m ROWS [FETCH ... ONLY]`."""
    depths = _depths(tokens)
    first = next((i for i, tok in enumerate(tokens) if depths[i] == 0 and _word(tok) == "OFFSET"), None)
    if first is None:
        return None
    rows = next((i for i in range(first + 1, len(tokens)) if depths[i] == 0 and _word(tokens[i]) in ("ROWS", "ROW")), None)
    if rows is None:
        return None
    if rows + 1 < len(tokens) and _word(tokens[rows + 1]) == "FETCH":
        only = next((i for i in range(rows + 1, len(tokens)) if depths[i] == 0 and _word(tokens[i]) == "ONLY"), None)
        return (first, only) if only is not None else None
    return first, rows


def _where(tokens: list[Token]) -> tuple[int, int] | None:
    """The span of the main SELECT's WHERE clause (outside parentheses), up to what follows it."""
    depths = _depths(tokens)
    first = next((i for i, tok in enumerate(tokens) if depths[i] == 0 and tok.token_type == TokenType.WHERE), None)
    if first is None:
        return None
    ends = (TokenType.GROUP_BY, TokenType.ORDER_BY, TokenType.HAVING, TokenType.UNION, TokenType.EXCEPT,
            TokenType.INTERSECT, TokenType.SEMICOLON)
    last = next((i - 1 for i in range(first + 1, len(tokens)) if depths[i] == 0 and (
        tokens[i].token_type in ends or _word(tokens[i]) == "OPTION")), len(tokens) - 1)
    return (first, last) if last > first else None
