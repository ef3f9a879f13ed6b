"""Splits captured T-SQL into statements and parses each one, never losing a statement silently.

SQL Server needs neither semicolons between statements nor anything but `GO` between batches, so
`DECLARE @x int = 5 SELECT * FROM t WHERE a = @x` is two statements. sqlglot cannot split that
(it reads the whole text as one `Command`), and `GO` is no statement at all
(https://github.com/tobymao/sqlglot/issues/3490). So the text is cut here: into batches at `GO`
lines, then into statements at the keywords that can only start a new statement at parenthesis
depth 0, knowing which keywords continue the current one (`INSERT ... SELECT`, `UNION SELECT`,
`UPDATE ... SET`, a CTE's main statement, `MERGE ... THEN UPDATE`, a module body up to `GO`).

Each statement is parsed on its own, so one that sqlglot rejects becomes a `Statement` with an
`error` and the others still translate. A few T-SQL forms sqlglot misreads are adjusted on the
tokens first: `DELETE FROM t FROM ...`, `UPDATE/DELETE TOP (n)`, `WAITFOR`, `THROW`,
`SET TRANSACTION ISOLATION LEVEL` and `SAVE TRANSACTION`.
https://learn.microsoft.com/sql/t-sql/language-elements/sql-server-utilities-statements-go
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from ..errors import one_line
from .dialect import SqlServer

_GO = re.compile(r"^[ \t]*GO(?:[ \t]+\d+)?[ \t]*(?:--[^\n]*)?$", re.IGNORECASE | re.MULTILINE)


class _SplitTokenizer(SqlServer.Tokenizer):
    # Commands (PRINT, GO, SHOW) would swallow the rest of the text as one string token.
    COMMANDS: set[TokenType] = set()


_SPLITTER = _SplitTokenizer()
"""One tokenizer for every batch (it starts afresh on each text; making one costs as much as a short query's tokens)."""


class _QuietFallback(logging.Filter):
    """sqlglot logs a warning whenever it reads a statement as a raw Command; the translator reports
    those statements itself, as notes, so the warning would only be noise on the user's terminal."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "Falling back to parsing as a 'Command'" not in record.getMessage()


logging.getLogger("sqlglot").addFilter(_QuietFallback())

ALWAYS_STARTS = {
    "DECLARE", "PRINT", "RAISERROR", "THROW", "WAITFOR", "USE", "TRUNCATE", "COMMIT", "ROLLBACK", "SAVE",
    "GOTO", "BREAK", "CONTINUE", "RETURN", "DBCC", "GRANT", "REVOKE", "DENY", "CHECKPOINT", "KILL",
    "RECONFIGURE", "BULK", "OPEN", "CLOSE", "FETCH", "DEALLOCATE", "IF", "WHILE", "ELSE", "END", "BEGIN",
    "CREATE", "ALTER", "DROP",
}
CONTROL_FLOW = {"IF", "WHILE", "ELSE", "END", "GOTO", "BREAK", "CONTINUE", "RETURN", "BEGIN"}
_DML = {"INSERT", "UPDATE", "DELETE", "MERGE"}
_MODULES = {"PROCEDURE", "PROC", "FUNCTION", "TRIGGER", "VIEW"}
_SET_OPERATORS = {"UNION", "ALL", "EXCEPT", "INTERSECT", "DISTINCT"}


@dataclass(frozen=True)
class Statement:
    """One statement of a batch: its text, and its tree or why it has none."""

    sql: str
    tree: exp.Expr | None = None
    error: str | None = None
    control_flow: bool = False
    """IF/WHILE/BEGIN...END/TRY...CATCH: the statements around it cannot be translated one by one."""
    line: int = 1
    """The 1-based line of the text given to `parse_statements` on which the statement starts."""


def split_batches(text: str) -> list[str]:
    """The batches of a script, cut at `GO` lines (which SQL Server's tools, not the server, read)."""
    return [b for b in _GO.split(text) if b.strip()]


@dataclass(frozen=True)
class Batch:
    """One batch of a script and its tokens, or why it has none."""

    text: str
    tokens: list[Token] | None
    error: str | None = None
    line: int = 1
    """The 1-based line of the whole text on which the batch starts."""


def read_batches(text: str) -> list[Batch]:
    """The batches of `text`, each tokenized once (the fingerprint can be taken from the same tokens)."""
    batches = []
    pieces = split_batches(text)
    position, line = 0, 1
    for batch in pieces:
        if len(pieces) > 1:  # where the batch starts: the pieces are the text's own, in order
            start = text.find(batch, position)
            line += text.count("\n", position, start)
            position = start
        try:
            batches.append(Batch(batch, _SPLITTER.tokenize(batch), line=line))
        except TokenError as exc:
            batches.append(Batch(batch, None, f"cannot read the text: {one_line(str(exc))}", line=line))
    return batches


def parse_statements(text: str, batches: list[Batch] | None = None) -> list[Statement]:
    """Split every batch of `text` into statements and parse each with the T-SQL reader
    (`batches`: `read_batches(text)`, when the caller has it already)."""
    statements: list[Statement] = []
    for batch in read_batches(text) if batches is None else batches:
        tokens = batch.tokens
        if tokens is None:
            statements.append(Statement(batch.text.strip(), error=batch.error, line=batch.line))
            continue
        for start, end in _statement_spans(tokens):
            piece = batch.text[tokens[start].start : tokens[end].end + 1]
            statement = _parse_one(piece, tokens[start : end + 1], batch.text)
            line = batch.line + tokens[start].line - 1
            statements.append(statement if line == 1 else Statement(statement.sql, statement.tree, statement.error,
                                                                    statement.control_flow, line))
    return _drop_if_exists(statements)


_IF_OBJECT = re.compile(
    r"^IF\s+OBJECT_ID\s*\(\s*N?'(?:tempdb\.\w*\.)?(?P<name>[^']+)'\s*(?:,\s*N?'U'\s*)?\)\s+IS\s+NOT\s+NULL\s*$", re.IGNORECASE
)


def _drop_if_exists(statements: list[Statement]) -> list[Statement]:
    """`IF OBJECT_ID('tempdb..#t') IS NOT NULL DROP TABLE #t` is `DROP TABLE IF EXISTS #t`, no control flow."""
    out: list[Statement] = []
    for statement in statements:
        previous = out[-1] if out else None
        if (
            previous is not None
            and previous.control_flow
            and isinstance(statement.tree, exp.Drop)
            and (m := _IF_OBJECT.match(previous.sql.strip())) is not None
            and len(statement.tree.args.get("tables") or []) == 1
            and m["name"].lstrip("#").lower().split(".")[-1].strip("[]") == statement.tree.args["tables"][0].name.lower()
        ):
            tree = statement.tree.copy()
            tree.set("exists", True)
            out[-1] = Statement(previous.sql + "\n" + statement.sql, tree=tree, line=previous.line)
            continue
        out.append(statement)
    return out


_TEXT = frozenset(t for t in (getattr(TokenType, n, None) for n in (
    "STRING", "NATIONAL_STRING", "RAW_STRING", "UNICODE_STRING", "HEREDOC_STRING", "HEX_STRING", "BIT_STRING",
    "BYTE_STRING")) if t is not None)
"""Token types of literal text (`'x'`, `N'x'`, `0x..`): a word inside one (`N'BEGIN'`) starts no statement."""

_STARTERS = frozenset({*ALWAYS_STARTS, *_DML, "SELECT", "EXEC", "EXECUTE", "SET", "WITH"})
"""Every word `_starts_statement` can take for the start of a statement."""


def _one_statement(tokens: list[Token]) -> bool:
    """True when no token after the first can start a statement (no `;`, no statement word outside
    parentheses): the common single query is then not walked word by word."""
    depth = 0
    starts = _STARTS
    for tok in tokens[1:]:
        tt = tok.token_type
        if tt == TokenType.L_PAREN:
            depth += 1
        elif tt == TokenType.R_PAREN:
            depth = max(0, depth - 1)
        elif tt == TokenType.SEMICOLON:
            return False
        elif depth == 0 and tt not in _TEXT:
            text = tok.text
            found = starts.get(text)
            if found is None:
                if len(starts) > 10_000:
                    starts.clear()
                found = starts[text] = text.upper() in _STARTERS
            if found:
                return False
    return bool(tokens) and tokens[0].token_type != TokenType.SEMICOLON


_STARTS: dict[str, bool] = {}
"""Whether a word, as spelled, is one of `_STARTERS` (learned once per spelling)."""


def _statement_spans(tokens: list[Token]) -> list[tuple[int, int]]:
    if _one_statement(tokens):
        return [(0, len(tokens) - 1)]
    spans: list[tuple[int, int]] = []
    start: int | None = None
    first = ""
    seen: set[str] = set()
    main = ""
    depth = case_depth = 0
    module = False
    for i, tok in enumerate(tokens):
        word = tok.text.upper() if tok.token_type not in _TEXT else ""
        if tok.token_type == TokenType.SEMICOLON and depth == 0 and not module:
            if start is not None:
                spans.append((start, i - 1))
            start, first, seen, case_depth, main = None, "", set(), 0, ""
            continue
        if start is not None and depth == 0 and not module and _starts_statement(tokens, i, first, seen, case_depth, main):
            spans.append((start, i - 1))
            start = None
        if start is None:
            start, first, seen, case_depth, main = i, word, set(), 0, ""
            module = first in ("CREATE", "ALTER") and any(
                t.text.upper() in _MODULES for t in tokens[i + 1 : i + 4]
            )
        if tok.token_type == TokenType.L_PAREN:
            depth += 1
        elif tok.token_type == TokenType.R_PAREN:
            depth = max(0, depth - 1)
        elif word == "CASE":
            case_depth += 1
        elif word == "END" and case_depth:
            case_depth -= 1
        if depth == 0:
            seen.add(word)
            if first == "WITH" and not main and word in ("SELECT", *_DML) and tokens[i - 1].token_type == TokenType.R_PAREN:
                main = word  # the statement the CTEs feed
    if start is not None:
        spans.append((start, len(tokens) - 1))
    return spans


def _starts_statement(tokens: list[Token], i: int, first: str, seen: set[str], case_depth: int, main: str = "") -> bool:
    tok = tokens[i]
    if tok.token_type in _TEXT:
        return False
    word = tok.text.upper()
    prev = tokens[i - 1].text.upper() if i else ""
    if first in ("GRANT", "REVOKE", "DENY"):
        return word in ALWAYS_STARTS  # SELECT, INSERT, EXECUTE are permission names here
    if first in ("CREATE", "ALTER"):
        if prev in ("AS", "ON", "FOR", "OF", "THEN", "DELETE", "UPDATE") or (first == "ALTER" and word in ("DROP", "IF")):
            return False
        if word == "WITH":
            return _starts_cte(tokens, i)
        if word == "SET" and i + 1 < len(tokens) and tokens[i + 1].text.startswith("@"):
            return True  # `CREATE TABLE #t (...)` then `SET @sql = ...`: ALTER ... SET never sets a variable
        return word in ALWAYS_STARTS or word in _DML or word in ("SELECT", "EXEC", "EXECUTE")
    if word in ("END", "ELSE") and case_depth:
        return False
    if word == "IF" and first == "DROP":
        return False
    if word == "FETCH" and prev in ("ROWS", "ROW"):
        return False
    if word in ("OPEN", "CLOSE") and prev in ("(", ","):
        return False
    if word in ALWAYS_STARTS:
        return True
    if word in ("EXEC", "EXECUTE"):
        return not (first == "INSERT" and not seen & {"SELECT", "VALUES", "EXEC", "EXECUTE"})
    if word == "SELECT":
        if prev in _SET_OPERATORS or tokens[i - 1].token_type == TokenType.L_PAREN:
            return False
        if (main or first) == "INSERT" and not seen & {"SELECT", "VALUES", "EXEC", "EXECUTE", "DEFAULT"}:
            return False  # INSERT ... SELECT, also after CTEs (WITH x AS (...) INSERT INTO t SELECT ...)
        if first == "WITH" and not seen & {"SELECT", *_DML} and tokens[i - 1].token_type == TokenType.R_PAREN:
            return False
        return prev != "FOR"
    if word in _DML:
        if first == "WITH" and not seen & {"SELECT", *_DML}:
            return False
        if first == "SET" and prev in ("ON", "OFF"):
            return True  # `SET NOCOUNT ON UPDATE t ...`: the option's value, then the next statement
        return not (first == "MERGE" or prev in ("FOR", "ON", "THEN", "INSTEAD", "AFTER", "OF"))
    if word == "SET":
        lead = main or first
        return not (lead == "MERGE" or (lead == "UPDATE" and "SET" not in seen))
    if word == "WITH":
        return _starts_cte(tokens, i)
    return False


def _starts_cte(tokens: list[Token], i: int) -> bool:
    """`WITH name AS (` or `WITH name (cols) AS (` starts a statement; `WITH (NOLOCK)`, `WITH TIES` do not."""
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    after = tokens[i + 2] if i + 2 < len(tokens) else None
    return (
        nxt is not None
        and nxt.token_type in (TokenType.VAR, TokenType.IDENTIFIER)
        and after is not None
        and after.token_type in (TokenType.ALIAS, TokenType.L_PAREN)
        and nxt.text.upper() not in ("TIES", "ROLLUP", "CUBE", "CHECK", "XMLNAMESPACES")
    )


_DIALECT = SqlServer()


def _parse_one(sql: str, tokens: list[Token], batch: str | None = None) -> Statement:
    words = [t.text.upper() for t in tokens[:6] if t.token_type not in _TEXT]
    head = words[0] if words else ""
    if head in CONTROL_FLOW and not (head == "BEGIN" and len(words) > 1 and words[1] in ("TRAN", "TRANSACTION", "DISTRIBUTED")):
        return Statement(sql, control_flow=True)
    if len(tokens) > 1 and tokens[0].token_type == TokenType.VAR and tokens[1].token_type == TokenType.COLON:
        return Statement(sql, control_flow=True)  # a GOTO label
    special = _special(sql, words)
    if special is not None:
        return Statement(sql, tree=special)
    text, top = _lift_top(_compound_assignments(sql, tokens), words)
    if words[:2] == ["DELETE", "FROM"]:
        text = _delete_from_from(text)
    elif words[:1] == ["DELETE"] and not _has_from(tokens):
        text = _delete_without_from(text)
    try:
        if text == sql and batch is not None and tokens[0].token_type not in SqlServer.Tokenizer.COMMANDS:
            # The splitter's tokens are the parser's too (only statement-leading commands differ), so
            # the text is not tokenized twice; positions index the whole batch.
            parsed = _DIALECT.parse_tokens(tokens, batch, error_level=ErrorLevel.RAISE)
        else:
            parsed = sqlglot.parse(text, read=SqlServer, error_level=ErrorLevel.RAISE)
        trees = [t for t in parsed if t is not None]
    except (ParseError, TokenError) as exc:
        return Statement(sql, error=parse_error(exc))
    if len(trees) != 1:
        return Statement(sql, error=f"read as {len(trees)} statements")
    tree = trees[0]
    if top is not None and isinstance(tree, (exp.Update, exp.Delete)):
        tree.set("limit", exp.Limit(expression=top))
    return Statement(sql, tree=tree)


_COMPOUND = {"+=": "+", "-=": "-", "*=": "*", "/=": "/", "%=": "%", "&=": "&", "|=": "|", "^=": "^"}
_COMPOUND_TEXT = re.compile(r"[-+*/%&|^]=")
_ENDS_ASSIGNMENT = {"FROM", "WHERE", "OUTPUT", "OPTION", "SET", "SELECT", "UPDATE", "DELETE", "INSERT", "WHEN"}


def _compound_assignments(sql: str, tokens: list[Token]) -> str:
    """`SET @x += 1` / `UPDATE t SET a -= b * 2` -> `@x = @x + (1)` / `a = a - (b * 2)` (sqlglot has no `+=`)."""
    if _COMPOUND_TEXT.search(sql) is None:
        return sql  # no operator and `=` side by side anywhere: nothing to look for token by token
    base = tokens[0].start if tokens else 0
    edits: list[tuple[int, int, str]] = []
    for i in range(1, len(tokens) - 1):
        op = tokens[i].text + tokens[i + 1].text
        if op not in _COMPOUND or tokens[i + 1].start != tokens[i].end + 1:
            continue
        j = i - 1
        while j > 0 and tokens[j - 1].token_type in (TokenType.DOT, TokenType.PARAMETER):
            j -= 2 if tokens[j - 1].token_type == TokenType.DOT else 1
        target = sql[tokens[max(j, 0)].start - base : tokens[i - 1].end + 1 - base]
        depth, k = 0, i + 2
        while k < len(tokens):
            tt = tokens[k].token_type
            if tt == TokenType.L_PAREN:
                depth += 1
            elif tt == TokenType.R_PAREN:
                if depth == 0:
                    break
                depth -= 1
            elif depth == 0 and (tt in (TokenType.COMMA, TokenType.SEMICOLON) or tokens[k].text.upper() in _ENDS_ASSIGNMENT):
                break
            k += 1
        end = tokens[k - 1].end + 1 - base
        start_rhs = tokens[i + 2].start - base if i + 2 < len(tokens) else end
        edits.append((tokens[i].start - base, end, f"= {target} {_COMPOUND[op]} ({sql[start_rhs:end]})"))
    for start, end, text in reversed(edits):
        sql = sql[:start] + text + sql[end:]
    return sql


def parse_error(exc: Exception) -> str:
    """One line naming what the parser rejected and where, without the terminal highlighting."""
    errors = getattr(exc, "errors", None)
    if errors:
        first = errors[0]
        near = (first.get("highlight") or "").strip()
        return f"{first.get('description', 'syntax error')} near {near!r} (line {first.get('line')}, column {first.get('col')})"
    return one_line(re.sub(r"\x1b\[[0-9;]*m", "", str(exc)), 200)


_SPECIAL_COMMANDS = {
    ("WAITFOR",): "WAITFOR",
    ("THROW",): "THROW",
    ("SAVE",): "SAVE",
}


def _special(sql: str, words: list[str]) -> exp.Expr | None:
    """Statements sqlglot cannot read, kept as Commands that name what they are."""
    head = tuple(words[:1])
    rest = sql.strip().rstrip(";")
    if head in _SPECIAL_COMMANDS:
        return exp.Command(this=_SPECIAL_COMMANDS[head], expression=exp.Literal.string(rest[len(words[0]) :].strip()))
    if head == ("SET",) and len(words) > 1 and not words[1].startswith("@"):
        # Session options (SET NOCOUNT ON, SET ANSI_NULLS, QUOTED_IDENTIFIER ON, SET TRANSACTION ...).
        return exp.Command(this="SET", expression=exp.Literal.string(rest[3:].strip()))
    return None


_TOP = re.compile(r"^\s*(DELETE|UPDATE)\s+TOP\s*\(([^()]*)\)\s*(PERCENT\s+)?", re.IGNORECASE)


def _lift_top(sql: str, words: list[str]) -> tuple[str, exp.Expr | None]:
    """`DELETE TOP (10) FROM t` / `UPDATE TOP (10) t SET ...`: sqlglot misreads TOP as a table name."""
    if len(words) < 2 or words[0] not in ("DELETE", "UPDATE") or words[1] != "TOP":
        return sql, None
    m = _TOP.match(sql)
    if m is None or m[3]:
        return sql, None  # TOP ... PERCENT is left for the parser to reject and the translator to report
    try:
        count = sqlglot.parse_one(m[2], read=SqlServer)
    except (ParseError, TokenError):
        return sql, None
    return f"{m[1]} {sql[m.end():]}", count


def _has_from(tokens: list[Token]) -> bool:
    """Whether a FROM stands outside parentheses (DELETE t FROM ..., DELETE FROM t)."""
    depth = 0
    for tok in tokens:
        if tok.token_type == TokenType.L_PAREN:
            depth += 1
        elif tok.token_type == TokenType.R_PAREN:
            depth -= 1
        elif depth == 0 and tok.token_type == TokenType.FROM:
            return True
    return False


def _delete_without_from(sql: str) -> str:
    """`DELETE dbo.t WHERE ...` (FROM is optional in T-SQL) is `DELETE FROM dbo.t WHERE ...`, which sqlglot reads.
    https://learn.microsoft.com/sql/t-sql/statements/delete-transact-sql"""
    m = re.match(r"(\s*DELETE\s+)(?!TOP\b)", sql, re.IGNORECASE)
    return m[1] + "FROM " + sql[m.end():] if m else sql


def _delete_from_from(sql: str) -> str:
    """`DELETE FROM t FROM t JOIN s ...` is `DELETE t FROM t JOIN s ...`; sqlglot reads only the second."""
    m = re.match(r"(\s*DELETE\s+)FROM(\s+[\w.\[\]#@\"]+\s+FROM\b)", sql, re.IGNORECASE)
    return m[1] + m[2].lstrip() + sql[m.end():] if m else sql
