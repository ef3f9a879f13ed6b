"""Reading T-SQL with sqlglot's own T-SQL parser, and the few corrections the translator needs.

sqlglot's T-SQL reader folds GETDATE and SYSDATETIME (different precisions) into one node, wraps
LEN/LEFT/RIGHT arguments in casts, turns DATEDIFF into a day count, and rejects query hints it has
no entry for (`OPTION (OPTIMIZE FOR (@p = 5))`, `USE HINT (...)`, `TABLE HINT (...)`). The fixes
keep the meaning in the tree so the transforms can act on it.

They are made around the parser, on its tokens and its tree, not in a subclass of it: with
sqlglot's compiled extension (`sqlglot[c]`) the parser is a compiled class that a Python subclass
cannot be instantiated from, and compiled code looks up neither overridden methods nor a
subclass's function table. So, before parsing, the name of a call to one of `FUNCTIONS` is
renamed to a marker the parser reads as an unknown function, and each query hint the parser has
no entry for is replaced by a hint it reads (`RECOMPILE` with a marker string); after parsing,
each marker is given back its meaning (`restore`). The same code runs on both builds.
"""

from __future__ import annotations

import datetime
import logging
import re
import typing as t

from sqlglot import exp
from sqlglot.errors import ErrorLevel, ParseError, highlight_sql
from sqlglot.helper import seq_get
from sqlglot.parser import Parser
from sqlglot.parsers.tsql import OPTIONS, TSQLParser
from sqlglot.tokens import Token, TokenType

# DATEDIFF/DATEADD date parts and their abbreviations.
# https://learn.microsoft.com/sql/t-sql/functions/datediff-transact-sql#datepart
DATE_PARTS: dict[str, str] = {
    **dict.fromkeys(("year", "yy", "yyyy"), "YEAR"),
    **dict.fromkeys(("quarter", "qq", "q"), "QUARTER"),
    **dict.fromkeys(("month", "mm", "m"), "MONTH"),
    **dict.fromkeys(("dayofyear", "dy", "y"), "DAYOFYEAR"),
    **dict.fromkeys(("day", "dd", "d"), "DAY"),
    **dict.fromkeys(("week", "wk", "ww"), "WEEK"),
    **dict.fromkeys(("weekday", "dw", "w"), "WEEKDAY"),
    **dict.fromkeys(("hour", "hh"), "HOUR"),
    **dict.fromkeys(("minute", "mi", "n"), "MINUTE"),
    **dict.fromkeys(("second", "ss", "s"), "SECOND"),
    **dict.fromkeys(("millisecond", "ms"), "MILLISECOND"),
    **dict.fromkeys(("microsecond", "mcs"), "MICROSECOND"),
    **dict.fromkeys(("nanosecond", "ns"), "NANOSECOND"),
    **dict.fromkeys(("iso_week", "isowk", "isoww"), "ISO_WEEK"),
}

_DAY_ZERO = datetime.date(1900, 1, 1)


def _date_part(node: exp.Expr | None) -> exp.Var:
    name = node.name if node is not None else ""
    return exp.var(DATE_PARTS.get(name.lower(), name.upper()))


def _date_value(node: exp.Expr | None) -> exp.Expr | None:
    """An integer date argument is the datetime that many days after 1900-01-01 (`DATEADD(day, n, 0)` is a datetime)."""
    if node is not None and node.is_int:
        day = exp.Literal.string((_DAY_ZERO + datetime.timedelta(days=node.to_py())).isoformat())
        return exp.Cast(this=day, to=exp.DataType.build("datetime"))
    return node


def _build_datediff(args: list[exp.Expr]) -> exp.DateDiff:
    return exp.DateDiff(
        this=_date_value(seq_get(args, 2)), expression=_date_value(seq_get(args, 1)), unit=_date_part(seq_get(args, 0))
    )


# DATEADD parts TiDB's INTERVAL spells differently: (unit, factor applied to the number).
# https://docs.pingcap.com/tidb/stable/date-and-time-functions
_DATEADD_UNITS = {"DAYOFYEAR": ("DAY", None), "WEEKDAY": ("DAY", None), "MILLISECOND": ("MICROSECOND", 1000)}


def _build_dateadd(args: list[exp.Expr]) -> exp.DateAdd:
    part = _date_part(seq_get(args, 0))
    number = seq_get(args, 1)
    unit, factor = _DATEADD_UNITS.get(part.name, (part.name, None))
    if factor is not None and number is not None:
        number = exp.Mul(this=exp.Paren(this=number), expression=exp.Literal.number(factor))
    return exp.DateAdd(this=_date_value(seq_get(args, 2)), expression=number, unit=exp.var(unit))


def _build_plain(klass: type[exp.Expr]) -> t.Callable[[list[exp.Expr]], exp.Expr]:
    def build(args: list[exp.Expr]) -> exp.Expr:
        kwargs: dict[str, t.Any] = {"this": seq_get(args, 0)}
        if len(args) > 1:
            kwargs["expression"] = args[1]
        return klass(**kwargs)

    return build


def _precision(digits: int) -> t.Callable[[list[exp.Expr]], exp.Expr]:
    return lambda args: exp.CurrentTimestamp(this=exp.Literal.number(digits))


def _utc_precision(digits: int) -> t.Callable[[list[exp.Expr]], exp.Expr]:
    return lambda args: exp.UtcTimestamp(this=exp.Literal.number(digits))


FUNCTIONS: dict[str, t.Callable[[list[exp.Expr]], exp.Expr]] = {
    # datetime has 3 fractional digits (rounded to 1/300 s), datetime2 has 7; TiDB keeps 6.
    # https://learn.microsoft.com/sql/t-sql/functions/date-and-time-data-types-and-functions-transact-sql
    "GETDATE": _precision(3),
    "SYSDATETIME": _precision(6),
    "GETUTCDATE": _utc_precision(3),
    "SYSUTCDATETIME": _utc_precision(6),
    "DATEDIFF": _build_datediff,
    "DATEADD": _build_dateadd,
    "DATEDIFF_BIG": _build_datediff,
    "LEN": _build_plain(exp.Length),
    "LEFT": _build_plain(exp.Left),
    "RIGHT": _build_plain(exp.Right),
}
"""The translator's reading of these T-SQL functions, in place of sqlglot's."""

_L_PAREN, _HASH, _INSERT = TokenType.L_PAREN, TokenType.HASH, TokenType.INSERT
_CALL_MARKER = "__sqlsrv2tidb_call_{}__"
_HINT_MARKER = "__sqlsrv2tidb_hint_{}__"
_TABLE_HINT_MARKER = "__sqlsrv2tidb_table_hint_{}__"


class _Marks(t.NamedTuple):
    calls: dict[str, tuple[Token, Token | None]]
    """Marker -> the call's name token and its closing parenthesis."""
    hints: dict[str, str]
    """Marker -> the text of a query hint the parser has no entry for."""
    empty: list[Token]
    """Where a hint is missing (`OPTION ()`, `OPTION (a,,b)`): the `,` or `)` found instead."""
    table_hints: dict[str, tuple[str, list[str]]]
    """Marker -> the name it stands for and the table hints written between an INSERT's table and its rows."""


def read(parser: Parser, tokens: list[Token], sql: str, into: exp.IntoType | None = None) -> list[exp.Expr | None]:
    """Parse the tokens of `sql` (T-SQL) with the translator's corrections (module docstring)."""
    marked, marks = _mark(tokens, sql)
    for token in marks.empty:
        _error("Expected a query hint", token, parser, sql)
    trees = parser.parse(marked, sql) if into is None else parser.parse_into(into, marked, sql)
    if not (marks.calls or marks.hints or marks.table_hints):
        return trees
    return [None if tree is None else _restore(tree, marks, parser, sql) for tree in trees]


def _mark(tokens: list[Token], sql: str) -> tuple[list[Token], _Marks]:
    """The tokens with each call to one of `FUNCTIONS` and each hint the parser has no entry for marked."""
    marks = _Marks({}, {}, [], {})
    edits: list[tuple[int, int, list[Token]]] = []
    n = len(tokens)
    kinds = [tok.token_type for tok in tokens]
    # Only a token before `(` (a call, OPTION), a `#` or an INSERT (its table's hints) can be marked: those are
    # looked at, in order.
    resume = 0
    for i in [i for i in range(n - 1) if kinds[i + 1] is _L_PAREN or kinds[i] is _HASH or kinds[i] is _INSERT]:
        if i < resume:
            continue  # inside a hint clause already replaced
        tok = tokens[i]
        if kinds[i] is _HASH and _lone(tok, tokens[i + 1]):
            edits.append((i, i + 1, [Token(TokenType.IDENTIFIER, "#", tok.line, tok.col, tok.start, tok.end, tok.comments)]))
            continue
        if kinds[i] is _INSERT:
            hinted = _insert_table_hints(tokens, i, sql, marks)
            if hinted is not None:
                edits.extend(hinted)
                resume = hinted[-1][1]
            continue
        if kinds[i + 1] is not _L_PAREN:
            continue
        if kinds[i] is not TokenType.STRING and tok.text.upper() in FUNCTIONS and not (i and kinds[i - 1] is TokenType.DOT):
            # (`dbo.Len(x)` after a dot is a user function: sqlglot reads it as such, whatever its name)
            marker = _CALL_MARKER.format(len(marks.calls))
            marks.calls[marker] = (tok, _closing(tokens, i + 1))
            edits.append((i, i + 1, [Token(tok.token_type, marker, tok.line, tok.col, tok.start, tok.end, tok.comments)]))
        elif kinds[i] is TokenType.OPTION:
            replaced = _mark_hints(tokens, i, sql, marks)
            if replaced is not None:
                edits.append((i, replaced[1], replaced[0]))
                resume = replaced[1]
    if tokens and tokens[-1].token_type == TokenType.HASH:
        last = tokens[-1]
        edits.append((n - 1, n, [Token(TokenType.IDENTIFIER, "#", last.line, last.col, last.start, last.end, last.comments)]))
    if not edits:
        return tokens, marks
    out: list[Token] = []
    position = 0
    for start, end, new in edits:
        out.extend(tokens[position:start])
        out.extend(new)
        position = end
    out.extend(tokens[position:])
    return out, marks


_ROWS_START = {TokenType.L_PAREN, TokenType.SELECT, TokenType.VALUES, TokenType.DEFAULT, TokenType.EXECUTE,
               TokenType.COMMAND, TokenType.WITH}
_NAME_TOKENS = {TokenType.VAR, TokenType.IDENTIFIER}


def _insert_table_hints(tokens: list[Token], at: int, sql: str, marks: _Marks) -> list[tuple[int, int, list[Token]]] | None:
    """`INSERT [INTO] t WITH (TABLOCK) (a, b) SELECT ...`: the hints between the table and its rows taken out, and
    the table's name marked so `_restore` gives them back to it. sqlglot's reader takes a WITH there for a common
    table expression and fails; T-SQL reads it as table hints (any of them, not only TABLOCK). The edits, in order.
    https://learn.microsoft.com/sql/t-sql/statements/insert-transact-sql#with-table_hint_limited
    """
    j = at + 1
    if j < len(tokens) and tokens[j].token_type == TokenType.INTO:
        j += 1
    name_at = None
    while j < len(tokens) and tokens[j].token_type in _NAME_TOKENS:
        name_at = j
        j += 1
        if j < len(tokens) and tokens[j].token_type == TokenType.DOT:
            j += 1
            continue
        break
    if name_at is None or j + 1 >= len(tokens) or tokens[j].token_type != TokenType.WITH \
            or tokens[j + 1].token_type != TokenType.L_PAREN:
        return None
    close = _closing(tokens, j + 1)
    if close is None:
        return None
    end = tokens.index(close, j + 1)
    inside = tokens[j + 2:end]
    if not inside or any(tok.token_type in (TokenType.SELECT, TokenType.STRING) for tok in inside):
        return None  # a common table expression's query, not hints
    following = tokens[end + 1] if end + 1 < len(tokens) else None
    if following is not None and following.token_type not in _ROWS_START and following.text.upper() not in ("EXEC", "OUTPUT"):
        return None
    marker = _TABLE_HINT_MARKER.format(len(marks.table_hints))
    named = tokens[name_at]
    hints = [" ".join(piece.split()) for piece in _top_level(sql[inside[0].start:inside[-1].end + 1])]
    marks.table_hints[marker] = (named.text, hints)
    renamed = Token(named.token_type, marker, named.line, named.col, named.start, named.end, named.comments)
    return [(name_at, name_at + 1, [renamed]), (j, end + 1, [])]


def _top_level(text: str) -> list[str]:
    """The comma-separated items of `text` outside parentheses."""
    pieces, depth, start = [], 0, 0
    for k, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            pieces.append(text[start:k])
            start = k + 1
    pieces.append(text[start:])
    return [piece.strip() for piece in pieces if piece.strip()]


def _table_hint(text: str) -> exp.Expr:
    """One table hint as the reader reads one after FROM: a word, or `INDEX(a, b)`."""
    m = re.match(r"^(\w+)\s*(?:\((.*)\))?\s*(?:=\s*(.*))?$", text, re.DOTALL)
    if m is None:
        return exp.var(text)
    if m[2] is not None or m[3] is not None:
        arguments = _top_level(m[2] if m[2] is not None else m[3])
        return exp.Anonymous(this=m[1].upper(), expressions=[exp.var(a) for a in arguments])
    return exp.var(m[1].upper())


def _lone(hash_: Token, following: Token) -> bool:
    """A `#` that starts no temp table name (`#t`): the column named `#` (`SELECT #, Id`), a regular
    identifier in T-SQL, whose first character may be `#`. The reader would drop it.
    https://learn.microsoft.com/sql/relational-databases/databases/database-identifiers#rules-for-regular-identifiers"""
    if following.start != hash_.end + 1:
        return True
    return not (following.text[:1].isalnum() or following.text[:1] in "_#@$[\"")


def _closing(tokens: list[Token], open_at: int) -> Token | None:
    depth = 0
    for tok in tokens[open_at:]:
        if tok.token_type == TokenType.L_PAREN:
            depth += 1
        elif tok.token_type == TokenType.R_PAREN:
            depth -= 1
            if depth == 0:
                return tok
    return None


def _mark_hints(tokens: list[Token], at: int, sql: str, marks: _Marks) -> tuple[list[Token], int] | None:
    """`OPTION (RECOMPILE, USE HINT ('x'))` with each hint the parser has no entry for replaced by
    `RECOMPILE '<marker>'`: the tokens from `at` to the closing parenthesis, and the index after it.
    None when the clause has no such hint or does not close (the parser reports what is wrong).
    https://learn.microsoft.com/sql/t-sql/queries/hints-transact-sql-query
    """
    close = _closing(tokens, at + 1)
    if close is None:
        return None
    end = tokens.index(close, at + 1)
    out = [tokens[at], tokens[at + 1]]
    start, depth, changed = at + 2, 0, False
    for j in range(at + 2, end + 1):
        tt = tokens[j].token_type
        if depth == 0 and tt in (TokenType.COMMA, TokenType.R_PAREN):
            item = tokens[start:j]
            if not item:
                marks.empty.append(tokens[j])
            elif not _known_option(tokens, start, j):
                marker = _HINT_MARKER.format(len(marks.hints))
                first, last = item[0], item[-1]
                marks.hints[marker] = " ".join(sql[first.start : last.end + 1].split())
                out.append(Token(TokenType.VAR, "RECOMPILE", first.line, first.col, first.start, first.end))
                out.append(Token(TokenType.STRING, marker, last.line, last.col, last.start, last.end))
                changed = True
            else:
                out.extend(item)
            out.append(tokens[j])
            start = j + 1
        elif tt == TokenType.L_PAREN:
            depth += 1
        elif tt == TokenType.R_PAREN:
            depth -= 1
    return (out, end + 1) if changed else None


def _known_option(tokens: list[Token], start: int, end: int) -> bool:
    """True when sqlglot's own reading of the hint at `start` stands: one of its option words
    (with a continuation it knows) not followed by a parenthesis. Mirrors its `_parse_var_from_options`."""
    first = tokens[start]
    if first.token_type in TSQLParser.TEXT_MATCH_EXCLUDED_TOKENS:
        return False
    continuations = OPTIONS.get(first.text.upper())
    if continuations is None:
        return False
    j = start + 1
    if continuations:
        for keywords in continuations:
            words = (keywords,) if isinstance(keywords, str) else tuple(keywords)
            if all(j + k < len(tokens) and tokens[j + k].token_type not in TSQLParser.TEXT_MATCH_EXCLUDED_TOKENS
                   and tokens[j + k].text.upper() == word for k, word in enumerate(words)):
                j += len(words)
                break
        else:
            return False
    return not (j < len(tokens) and tokens[j].token_type == TokenType.L_PAREN)


def _restore(tree: exp.Expr, marks: _Marks, parser: Parser, sql: str) -> exp.Expr:
    for node in list(tree.walk()):
        called = node.name if isinstance(node, exp.Anonymous) else None  # a quoted name (`[LEN](x)`) too
        if called in marks.calls:
            name, close = marks.calls[called]
            args = list(node.expressions)
            built = FUNCTIONS[name.text.upper()](args)
            _validate(built, args, close or name, parser, sql)
            built.meta.update(node.meta)
            if node.comments:
                built.add_comments(node.comments)
            if node is tree:
                tree = built
            else:
                node.replace(built)
        elif isinstance(node, exp.QueryOption) and isinstance(node.expression, exp.Literal) and node.expression.name in marks.hints:
            hint = exp.QueryOption(this=exp.var(marks.hints[node.expression.name]))
            node.replace(hint)
        elif isinstance(node, exp.Identifier) and node.this in marks.table_hints:
            name, hints = marks.table_hints[node.this]
            node.set("this", name)
            table = node.parent
            if isinstance(table, exp.Table) and table.this is node:
                table.set("hints", [exp.WithTableHint(expressions=[_table_hint(h) for h in hints])])
        elif isinstance(node, (exp.Identifier, exp.Var, exp.Anonymous)) and isinstance(node.this, str) and node.this in marks.calls:
            node.set("this", marks.calls[node.this][0].text)  # a name followed by `(` that was no call
    return tree


def _validate(built: exp.Expr, args: list[exp.Expr], token: Token, parser: Parser, sql: str) -> None:
    """What sqlglot's parser checks of a function it knows (the number of arguments, the required ones)."""
    for message in built.error_messages(args):
        _error(message, token, parser, sql)


def _error(message: str, token: Token, parser: Parser, sql: str) -> None:
    """Report an error at `token` as sqlglot's parser would, at the parser's error level."""
    if parser.error_level == ErrorLevel.IGNORE:
        return
    formatted, start, highlight, end = highlight_sql(sql=sql, positions=[(token.start, token.end)],
                                                     context_length=parser.error_message_context)
    error = ParseError.new(f"{message}. Line {token.line}, Col: {token.col}.\n  {formatted}", description=message,
                           line=token.line, col=token.col, start_context=start, highlight=highlight, end_context=end)
    if parser.error_level == ErrorLevel.WARN:
        logging.getLogger("sqlglot").error(str(error))
        return
    raise error
