"""A cursor over the tokens of one batch, with the small vocabulary every statement parser shares.

T-SQL does not need `;` between statements, so "where does this statement end" is answered the
way SQL Server's own grammar does it in practice: at `;`, or where a keyword that can only start
a statement appears outside parentheses (`skip_statement`). The parsers use `accept`/`expect` on
keywords, `qualified_name` for `[db].[schema].[object]`, and `expression` to keep a DEFAULT,
computed column, CHECK or filter as the T-SQL text the user wrote.
"""

from __future__ import annotations

from .tokens import NUMBER, OP, QUOTED, ROWS, STRING, WORD, Token

# Keywords that begin a statement; seen outside parentheses they end the statement before them.
STATEMENT_STARTS = frozenset({
    "ALTER", "BACKUP", "BEGIN", "BREAK", "BULK", "CHECKPOINT", "CLOSE", "COMMIT", "CONTINUE", "CREATE",
    "DBCC", "DEALLOCATE", "DECLARE", "DELETE", "DENY", "DISABLE", "DROP", "ELSE", "ENABLE", "END", "EXEC",
    "EXECUTE", "FETCH", "GOTO", "GRANT", "IF", "INSERT", "KILL", "MERGE", "OPEN", "PRINT", "RAISERROR",
    "READTEXT", "RECONFIGURE", "RESTORE", "RETURN", "REVERT", "REVOKE", "ROLLBACK", "SAVE", "SELECT", "SET",
    "SETUSER", "SHUTDOWN", "THROW", "TRUNCATE", "UPDATE", "UPDATETEXT", "USE", "WAITFOR", "WHILE",
    "WRITETEXT",
})
# Statements with no bearing on the schema model: the reader skips them (`skip_statement`) without a word,
# and the script stream passes over them without tokens.
SKIPPED_STATEMENTS = frozenset({
    "SET", "PRINT", "DECLARE", "SELECT", "DROP", "GRANT", "DENY", "REVOKE", "RAISERROR", "THROW", "RETURN",
    "COMMIT", "ROLLBACK", "SAVE", "DELETE", "TRUNCATE", "WAITFOR", "DBCC", "CHECKPOINT", "OPEN", "CLOSE", "FETCH",
    "DEALLOCATE", "BREAK", "CONTINUE", "GOTO", "RECONFIGURE", "KILL", "BACKUP", "RESTORE", "SETUSER", "REVERT",
    "SHUTDOWN", "DISABLE", "ENABLE", "READTEXT", "WRITETEXT", "UPDATETEXT", "ELSE", "END", "UPDATE", "MERGE",
})
# After these, a statement keyword is part of the current statement: `GRANT INSERT, UPDATE TO`,
# `AFTER INSERT`, `UNION ALL SELECT`, `CURSOR FOR SELECT`, `THEN UPDATE SET`. `ON` is not among
# them: `SET NOCOUNT ON` is followed by whole statements far more often than `ON DELETE` is skipped.
CONTINUES_AFTER = frozenset({
    "GRANT", "DENY", "REVOKE", "FOR", "AFTER", "OF", "UNION", "ALL", "EXCEPT", "INTERSECT", "THEN", "INSTEAD",
    "UPDATE",
})


class ParseError(Exception):
    """A statement did not have the shape its parser expects; `token` is where it went wrong."""

    def __init__(self, message: str, token: Token | None) -> None:
        super().__init__(message)
        self.token = token


def continues_statement(prev: Token | None, tok: Token) -> bool:
    """True when `tok` (a statement keyword) belongs to the statement `prev` is in."""
    if prev is None:
        return False
    if prev.kind == OP:
        return prev.text in (",", ".")
    return prev.kind == WORD and prev.value in CONTINUES_AFTER


class Cursor:
    __slots__ = ("tokens", "pos", "end")

    def __init__(self, tokens: list[Token], pos: int = 0, end: int | None = None) -> None:
        self.tokens = tokens
        self.pos = pos
        self.end = len(tokens) if end is None else end

    # -- looking -------------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.pos >= self.end

    def peek(self, k: int = 0) -> Token | None:
        i = self.pos + k
        return self.tokens[i] if i < self.end else None

    @property
    def previous(self) -> Token | None:
        return self.tokens[self.pos - 1] if self.pos > 0 else None

    def at(self, *words: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.kind == WORD and tok.value in words

    def at_op(self, op: str) -> bool:
        tok = self.peek()
        return tok is not None and tok.kind == OP and tok.text == op

    def at_sequence(self, *words: str) -> bool:
        for k, word in enumerate(words):
            tok = self.peek(k)
            if tok is None or tok.kind != WORD or tok.value != word:
                return False
        return True

    # -- consuming -----------------------------------------------------------------------------
    def next(self) -> Token:
        if self.pos >= self.end:
            raise ParseError("the statement ends too early", self.tokens[self.end - 1] if self.end else None)
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def accept(self, *words: str) -> Token | None:
        if self.at(*words):
            return self.next()
        return None

    def accept_sequence(self, *words: str) -> bool:
        if self.at_sequence(*words):
            self.pos += len(words)
            return True
        return False

    def accept_op(self, op: str) -> Token | None:
        if self.at_op(op):
            return self.next()
        return None

    def expect(self, *words: str) -> Token:
        tok = self.accept(*words)
        if tok is None:
            raise ParseError(f"expected {' or '.join(words)}, found {self._describe()}", self.peek() or self.previous)
        return tok

    def expect_op(self, op: str) -> Token:
        tok = self.accept_op(op)
        if tok is None:
            raise ParseError(f"expected {op!r}, found {self._describe()}", self.peek() or self.previous)
        return tok

    def _describe(self) -> str:
        tok = self.peek()
        return "the end of the statement" if tok is None else repr(tok.text[:30])

    # -- names ---------------------------------------------------------------------------------
    def identifier(self) -> str:
        tok = self.peek()
        if tok is None or tok.kind not in (WORD, QUOTED):
            raise ParseError(f"expected a name, found {self._describe()}", tok or self.previous)
        self.pos += 1
        return tok.name

    def qualified_name(self) -> tuple[str, ...]:
        """`[server].[db].[schema].[object]`, any prefix omitted; `db..object` keeps an empty schema.

        More than four parts is no name SQL Server accepts, so it is a ParseError rather than a
        name whose extra prefixes are silently dropped.
        (https://learn.microsoft.com/sql/t-sql/language-elements/transact-sql-syntax-conventions-transact-sql#multipart-names)
        """
        first = self.peek()
        parts: list[str] = []
        if self.at_op("."):
            parts.append("")
        else:
            parts.append(self.identifier())
        while self.accept_op("."):
            if self.at_op("."):
                parts.append("")
                continue
            parts.append(self.identifier())
        if len(parts) > 4:
            raise ParseError(f"the name {'.'.join(parts)} has {len(parts)} parts; SQL Server names have at most 4: "
                             "server.database.schema.object", first)
        return tuple(parts)

    def name_list(self) -> list[tuple[str, bool]]:
        """`(a ASC, [b] DESC)` -> [(name, descending)]; the cursor is at the `(`."""
        self.expect_op("(")
        items: list[tuple[str, bool]] = []
        while True:
            name = self.identifier()
            descending = bool(self.accept("DESC"))
            if not descending:
                self.accept("ASC")
            items.append((name, descending))
            if self.accept_op(")"):
                return items
            self.expect_op(",")

    # -- spans ---------------------------------------------------------------------------------
    def skip_parens(self) -> tuple[int, int]:
        """Skip a balanced `( ... )` at the cursor; return the token range inside it."""
        self.expect_op("(")
        inner = self.pos
        depth = 1
        while self.pos < self.end:
            tok = self.tokens[self.pos]
            self.pos += 1
            if tok.kind == OP:
                if tok.text == "(":
                    depth += 1
                elif tok.text == ")":
                    depth -= 1
                    if depth == 0:
                        return inner, self.pos - 1
        raise ParseError("a '(' is never closed", self.tokens[inner - 1])

    def expression(self, stop_words: frozenset[str] = frozenset()) -> str:
        """The T-SQL text of the expression at the cursor, up to `,` `)` `;` or a stop word outside parentheses."""
        first = self.pos
        depth = 0
        while self.pos < self.end:
            tok = self.tokens[self.pos]
            if tok.kind == OP:
                if tok.text == "(":
                    depth += 1
                elif tok.text == ")":
                    if depth == 0:
                        break
                    depth -= 1
                elif depth == 0 and tok.text in (",", ";"):
                    break
            elif depth == 0 and self.pos > first and tok.kind == WORD and tok.value in stop_words:
                prev = self.tokens[self.pos - 1]
                if not (prev.kind == OP and prev.text not in (")",)) and not prev.is_word("IS", "AND", "OR"):
                    break
            self.pos += 1
        if self.pos == first or depth != 0:
            raise ParseError("expected an expression", self.peek() or self.previous)
        return span_text(self.tokens, first, self.pos - 1)

    def skip_statement(self) -> None:
        """Skip the statement starting at the cursor: through `;`, or up to the next statement outside parentheses."""
        self._skip(first=True)

    def skip_rest(self) -> None:
        """Skip what is left of the current statement (the cursor is inside it, maybe already at its end)."""
        self._skip(first=False)

    def _skip(self, first: bool) -> None:
        depth = 0
        cases = 0
        prev: Token | None = self.previous if not first else None
        while self.pos < self.end:
            tok = self.tokens[self.pos]
            if tok.kind == OP:
                if tok.text == "(":
                    depth += 1
                elif tok.text == ")":
                    depth = max(0, depth - 1)
                elif tok.text == ";" and depth == 0:
                    self.pos += 1
                    return
            elif tok.kind == ROWS and not first:  # an INSERT passed over always starts a statement
                return
            elif tok.kind == WORD and depth == 0 and not first:
                value = tok.value
                if value == "CASE":
                    cases += 1
                elif value == "END" and cases:
                    cases -= 1
                elif value in STATEMENT_STARTS and not continues_statement(prev, tok):
                    return
            first = False
            prev = tok
            self.pos += 1

    def skip_to_end(self) -> None:
        self.pos = self.end


def span_text(tokens: list[Token], first: int, last: int) -> str:
    """The source text of tokens[first..last] as written (comments and line breaks included), trimmed.

    Tokens that came from a substituted `$(var)` live in their own small source; then the text is
    rebuilt from the tokens.
    """
    a, b = tokens[first], tokens[last]
    if a.source is b.source and all(t.source is a.source for t in tokens[first : last + 1]):
        return a.source.text[a.start : b.end].strip()
    return " ".join(t.text for t in tokens[first : last + 1])


def number(tok: Token | None) -> int | None:
    if tok is None or tok.kind != NUMBER:
        return None
    try:
        return int(tok.text)
    except ValueError:
        return None


def literal(tok: Token) -> str | None:
    """A string literal's content, or None for anything else."""
    return tok.value if tok.kind == STRING else None
