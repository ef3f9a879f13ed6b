"""A script's text, a block at a time, cut into what the statement reader needs and what it may pass over.

A schema-and-data script (SSMS "Generate Scripts" with data, an install script with its sample
rows) is mostly INSERT rows the schema model only counts. This module reads the text as it comes
and hands on two kinds of item: `Piece`, text the tokenizer and the statement parsers read as
before (the DDL, and everything it cannot prove it may pass over), and `RowsToken`, one INSERT ...
VALUES statement passed over, with its table and its number of rows, read by one regular
expression and never cut into tokens. SET, PRINT, DECLARE, UPDATE, DELETE and the other statements
the reader skips anyway are passed over the same way, found by the reader's own rule for where a
statement ends (`Cursor.skip_statement`) applied to the text. So memory follows the schema, not
the data, and what is read is what the whole-text reader read.

A statement is passed over only where the reader would be at the start of a statement of its
own: at the start of a batch (after `GO`), after a statement passed over, or after `;` outside
parentheses, BEGIN ... END and MERGE, in a batch with no module (a procedure's INSERT is part of
its text). Anything the regular expression or the skip does not cover exactly (a comment inside,
a SQLCMD `$(var)`, a `GO` or `:command` line, text cut off) is left to the tokenizer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from .cursor import CONTINUES_AFTER, SKIPPED_STATEMENTS, STATEMENT_STARTS
from .insert_text import (
    AFTER_ROW,
    GO_LINE,
    INSERT_HEAD,
    ONE_ROW_INSERT,
    ROW,
    SEMICOLON,
    VALUES_LIST,
    one_row_insert,
    table_name,
)
from .problems import SNIPPET_LENGTH
from .tokens import ROWS, RowsToken, Source, at_line_start, comment_end, go_tail, token_pattern

_TAIL = 4 * SNIPPET_LENGTH
"""Text kept after a piece, so a finding's quote of its last statement reads on as it did in the whole text."""
_LONGEST_STATEMENT = 1 << 26
"""An INSERT longer than this is left to the tokenizer (SQL Server takes at most 1,000 rows in one VALUES)."""
_BLOCK_TEXT = 1 << 20
_AHEAD = 1 << 16
_KEPT_BEHIND = 1 << 22
"""Text already handed on that may stay in the buffer before it is dropped."""
_SETTLED = 1 << 12
"""Text read past a statement before it is taken as ended (a comma there would make it go on)."""
_TOOL_LINE = re.compile(r"\n[^\S\n]*(?:GO(?![\w@#$])|:|!)", re.IGNORECASE)
"""A line the tokenizer reads as `GO` or a SQLCMD command, wherever it is (the head of an INSERT may span lines)."""
_TRANSACTION_WORDS = frozenset({"TRAN", "TRANSACTION", "DISTRIBUTED", "DIALOG", "CONVERSATION"})
_MODULE_WORDS = frozenset({"VIEW", "PROC", "PROCEDURE", "FUNCTION", "TRIGGER", "RULE", "DEFAULT", "AGGREGATE",
                           "SCHEMA"})
_KEEPS_STATEMENTS = re.compile(r":\s*(?:setvar|on\s+error)\b", re.IGNORECASE)
_PASSED = SKIPPED_STATEMENTS - {"ELSE", "END", "UPDATE", "MERGE"}
_CONTINUE_OPS = (",", ".")

# What a lexeme is, as the tokenizer would make it (tokens.py); comments are lexemes here.
WORD, OP, OTHER, COMMENT, GO, COMMAND, VARIABLE_REF, OPEN, END = range(9)


@dataclass(frozen=True)
class BatchEnd:
    """A `GO [n]` line between INSERT statements passed over: the batch ends, run `repeat` times."""

    repeat: int


@dataclass(frozen=True)
class Piece:
    """Text for the tokenizer: `source.text[begin:end]`, with the start of its first line before and a tail after."""

    source: Source
    begin: int
    end: int


class _Lexeme:
    __slots__ = ("kind", "start", "end", "value")

    def __init__(self, kind: int, start: int, end: int, value: str = "") -> None:
        self.kind = kind
        self.start = start
        self.end = end
        self.value = value


class ScriptStream:
    """Cuts one file's text into `Piece` and `RowsToken` items, holding only the text not handed on yet."""

    def __init__(self, path: str, chunks: Iterator[str], clean: bool = True, pass_over: bool = True,
                 defined: Callable[[tuple[str, ...]], bool] = lambda table: False) -> None:
        self.path = path
        self._chunks = chunks
        self._buf = ""
        self._final = False
        self._line = 1  # the line of _buf[_line_pos]
        self._line_pos = 0
        self._pass_over_allowed = pass_over
        """False: every statement goes to the tokenizer, as when the whole text was read (to prove they agree)."""
        self._clean = clean and pass_over
        """The reader would be at the start of a statement of its own here."""
        self._defined = defined
        """Whether a table is defined by what was read before: only then are its INSERTs one token for many."""
        self._targets: dict[str, tuple[str, ...]] = {}
        self._heads: dict[str, tuple[tuple[str, ...] | None, re.Pattern[str]]] = {}

    # -- the text ------------------------------------------------------------------------------
    def _more(self, keep: int) -> int:
        """Read the next block, dropping the text before `keep`; returns how far offsets moved (0 at the end)."""
        chunk = next(self._chunks, None)
        if chunk is None:
            self._final = True
            return 0
        moved = self._drop(keep)
        self._buf += chunk
        return moved

    def _drop(self, keep: int) -> int:
        """Drop the text before the line `keep` is on; returns how far offsets moved."""
        keep = self._buf.rfind("\n", 0, keep) + 1  # a piece keeps the start of its first line
        self.line_at(keep)
        self._buf = self._buf[keep:]
        self._line_pos = 0
        return keep

    def line_at(self, pos: int) -> int:
        """The file line of `_buf[pos]`, counted from the last position asked for (they come nearly in order)."""
        if pos > self._line_pos:
            self._line += self._buf.count("\n", self._line_pos, pos)
        elif pos < self._line_pos:
            self._line -= self._buf.count("\n", pos, self._line_pos)
        self._line_pos = pos
        return self._line

    # -- lexemes -------------------------------------------------------------------------------
    def _lex(self, pos: int) -> _Lexeme:
        """The lexeme at `pos`, read as the tokenizer reads it, comments, `GO` and SQLCMD lines included (one that
        reaches the end of the text read so far may go on: see `_complete`)."""
        buf = self._buf
        m = token_pattern.match(buf, pos)
        kind = m.lastgroup if m is not None else None
        if kind is None:
            return _Lexeme(END, len(buf), len(buf))
        start, end = m.start(kind), m.end()
        if kind == "word":
            word = m.group(kind)
            upper = word.upper()
            if upper == "GO" and at_line_start(buf, start) and (tail := go_tail.match(buf, end)) is not None:
                return _Lexeme(GO, start, tail.end())
            return _Lexeme(WORD, start, end, upper)
        if kind in ("string", "quoted"):
            return _Lexeme(VARIABLE_REF if "$(" in m.group(kind) else OTHER, start, end)
        if kind == "line_comment":
            return _Lexeme(COMMENT, start, end)
        if kind == "block_comment":
            close = comment_end(buf, start)
            return _Lexeme(OPEN, start, len(buf)) if close < 0 else _Lexeme(COMMENT, start, close)
        if kind == "open":
            return _Lexeme(OPEN, start, len(buf))
        if kind == "sqlcmd_var":
            return _Lexeme(VARIABLE_REF, start, end)
        if kind == "op":
            text = m.group(kind)
            if (text == ":" or buf.startswith("!!", start)) and at_line_start(buf, start):
                line_end = buf.find("\n", start)
                line_end = len(buf) if line_end < 0 else line_end
                return _Lexeme(COMMAND, start, line_end, buf[start:line_end])
            return _Lexeme(OP, start, end, text)
        return _Lexeme(OTHER, start, end)

    def _complete(self, lexeme: _Lexeme) -> bool:
        """Whether a lexeme is whole, or may go on in text not read yet."""
        return self._final or (lexeme.kind != OPEN and lexeme.kind != END and lexeme.end < len(self._buf))

    # -- items ---------------------------------------------------------------------------------
    def items(self) -> Iterator[Piece | RowsToken | BatchEnd]:
        """The file's text as pieces for the tokenizer, with the statements passed over between them, in order."""
        piece: int | None = None  # where the text not yet handed on starts
        pos = 0
        paren = block = 0
        module = False
        self._more(0)
        while True:
            if pos > _KEPT_BEHIND and (piece is None or piece > _KEPT_BEHIND):  # what is behind is handed on
                moved = self._drop(pos if piece is None else piece)
                pos -= moved
                piece = None if piece is None else piece - moved
            lexeme = self._lex(pos)
            if not self._complete(lexeme):
                moved = self._more(pos if piece is None else piece)
                pos -= moved
                piece = None if piece is None else piece - moved
                continue
            if lexeme.kind == END:
                break
            if lexeme.kind == COMMENT:
                pos = lexeme.end
                continue
            if self._clean and lexeme.kind == WORD:
                passed = self._pass_over(lexeme)
                if passed is not None:
                    end, rows = passed
                    if piece is not None:
                        yield self._piece(piece, lexeme.start)
                        piece = None
                    if rows is not None:
                        yield rows
                    pos = yield from self._inserts(end)
                    continue
            if piece is None:
                piece = lexeme.start
            pos = lexeme.end
            kind, value = lexeme.kind, lexeme.value
            if kind == GO:  # a new batch: the reader starts afresh
                self._clean, paren, block, module = self._pass_over_allowed, 0, 0, False
            elif kind == COMMAND:
                if not _KEEPS_STATEMENTS.match(value):
                    self._clean = False  # `:r`: the included file's statements come here
            elif kind == OP and value == ";" and paren == 0:
                self._clean = block == 0 and not module and self._pass_over_allowed  # MERGE ends at its `;` too
            elif kind == OP:
                paren += 1 if value == "(" else -1 if value == ")" and paren else 0
                self._clean = False
            elif kind == WORD:
                self._clean = False
                if value == "CASE" or (value == "BEGIN" and self._next_word(lexeme.end) not in _TRANSACTION_WORDS):
                    block += 1
                elif value == "END":
                    block = max(0, block - 1)
                elif value in ("CREATE", "ALTER") and self._defines_module(lexeme.end):
                    module = True
            else:
                self._clean = False
        if piece is not None:
            yield self._piece(piece, len(self._buf))

    def _piece(self, start: int, end: int) -> Piece:
        self._load(end + _TAIL)
        first = self._buf.rfind("\n", 0, start) + 1
        source = Source(self.path, self._buf[first:end + _TAIL], self.line_at(first))
        return Piece(source, start - first, end - first)

    def _load(self, pos: int) -> None:
        """Have the text up to `pos` in the buffer (or all of it), without dropping any."""
        while not self._final and len(self._buf) < pos:
            chunk = next(self._chunks, None)
            if chunk is None:
                self._final = True
            else:
                self._buf += chunk

    def _next_word(self, pos: int) -> str | None:
        lexeme = self._next(pos)
        return lexeme.value if lexeme.kind == WORD else None

    def _next(self, pos: int) -> _Lexeme:
        """The next lexeme after `pos` that is not a comment (the buffer grows without dropping text)."""
        while True:
            lexeme = self._lex(pos)
            if not self._complete(lexeme):
                self._load(len(self._buf) + 1)
                continue
            if lexeme.kind != COMMENT:
                return lexeme
            pos = lexeme.end

    def _defines_module(self, pos: int) -> bool:
        nxt = self._next(pos)
        if nxt.kind == WORD and nxt.value == "OR":
            nxt = self._next(self._next(nxt.end).end)
        return nxt.kind == WORD and nxt.value in _MODULE_WORDS

    # -- passing over --------------------------------------------------------------------------
    def _pass_over(self, first: _Lexeme) -> tuple[int, RowsToken | None] | None:
        """Where the statement starting with `first` ends, and its rows, if it may be passed over; else None."""
        after = self._next(first.end)
        if after.kind == OP and after.value == ":" and after.start == first.end:
            return None  # a GOTO label
        word = first.value
        if word == "INSERT":
            return self._insert(first)
        if word == "UPDATE":  # the reader looks for its SET first: `UPDATE t SET` is one statement
            lexeme = after
            while not (lexeme.kind == WORD and lexeme.value == "SET") and not (lexeme.kind == OP and lexeme.value == ";"):
                if lexeme.kind in (END, GO):
                    return lexeme.start, None
                if lexeme.kind in (COMMAND, VARIABLE_REF, OPEN):
                    return None
                lexeme = self._next(lexeme.end)
            end = self._skip(lexeme, first=True, prev=None)
        elif word == "BEGIN" and after.kind == WORD and after.value in _TRANSACTION_WORDS:
            end = self._skip(after, first=False, prev=first)
        elif word in _PASSED:
            end = self._skip(first, first=True, prev=None)
        else:
            return None
        return None if end is None else (end, None)

    def _skip(self, lexeme: _Lexeme, first: bool, prev: _Lexeme | None) -> int | None:
        """`Cursor._skip` on lexemes: through `;`, or up to the next statement outside parentheses."""
        depth = cases = 0
        while True:
            kind = lexeme.kind
            if kind in (END, GO):
                return lexeme.start
            if kind in (COMMAND, VARIABLE_REF, OPEN):
                return None
            if kind == OP:
                if lexeme.value == "(":
                    depth += 1
                elif lexeme.value == ")":
                    depth = max(0, depth - 1)
                elif lexeme.value == ";" and depth == 0:
                    return lexeme.end
            elif kind == WORD and depth == 0 and not first:
                value = lexeme.value
                if value == "CASE":
                    cases += 1
                elif value == "END" and cases:
                    cases -= 1
                elif value in STATEMENT_STARTS and not _continues(prev):
                    return lexeme.start
            first = False
            prev = lexeme
            lexeme = self._next(lexeme.end)

    def _insert(self, first: _Lexeme) -> tuple[int, RowsToken | None] | None:
        """An INSERT [INTO] table [(columns)] VALUES (...)[, (...)] [;] as `_insert` in statements.py reads it.

        The value lists are matched by one pattern and counted by another, both over the whole statement."""
        self._load(first.start + _AHEAD)
        buf = self._buf
        head = INSERT_HEAD.match(buf, first.start)
        if head is None or _TOOL_LINE.search(head.group()):
            return None
        values = VALUES_LIST.match(buf, head.end())
        # A statement that ends near the end of the text read so far may go on: read more (to a limit).
        while not self._final and (values is None or len(buf) - values.end() < _SETTLED):
            if len(buf) - first.start > _LONGEST_STATEMENT:
                return None
            self._load(len(buf) + max(_BLOCK_TEXT, len(buf) - first.start))
            buf = self._buf
            values = VALUES_LIST.match(buf, head.end())
        if values is None or AFTER_ROW.match(buf, values.end()):
            return None  # not values the pattern reads, or a comma the reader takes as part of this statement
        # Rows are apart by commas and spaces only, so each row found from the start is one of the list.
        rows = len(ROW.findall(values.group()))
        pos = values.end()
        if (semicolon := SEMICOLON.match(buf, pos)) is not None:
            pos = semicolon.end()
        target = self._target(head["name"])
        if target is None:
            return pos, None
        return pos, self._rows_token(first.start, target, rows)

    def _inserts(self, pos: int) -> Iterator[RowsToken | BatchEnd]:
        """The INSERT ... VALUES (...) statements of one row each that follow, one after the other, as SSMS writes a
        table's rows: one regular expression each, a token for each run into one table already defined (for each
        statement into another, so each can be reported at its line). Returns where they end.

        A table's rows repeat the same head (`INSERT [dbo].[t] ([a], [b]) VALUES `), so once one is read the
        next are matched with that head as plain text and only their values as a pattern."""
        buf = self._buf
        run: RowsToken | None = None
        same: re.Pattern[str] | None = None  # the statement that repeats the last one's head
        same_target: tuple[str, ...] | None = None
        merges = False  # the run's table is defined: its rows are one token
        alone = False  # the run is all its batch holds: a GO in it need not end the batch (see below)
        while True:
            if not self._final and len(buf) - pos < _AHEAD:
                pos -= self._more(pos)
                buf = self._buf
                continue
            statement = same.match(buf, pos) if same is not None else None
            if statement is not None:
                target = same_target
            else:
                statement = ONE_ROW_INSERT.match(buf, pos)
                if statement is None:
                    go = GO_LINE.match(buf, pos)
                    if go is None:
                        break  # not such a statement: the general way reads it
                    if not self._final and len(buf) - go.end() < _SETTLED:
                        pos -= self._more(pos)
                        buf = self._buf
                        continue
                    if run is not None and (run.rows or run.sealed):
                        yield run
                    run, alone = None, False
                    yield BatchEnd(max(1, int(go["repeat"] or 1)))
                    pos = go.end()
                    continue
                head_start, head_end = statement.span("insert")
                if buf.find("\n", head_start, head_end) >= 0 and _TOOL_LINE.search(buf, head_start, head_end):
                    break
                head = buf[head_start:head_end]
                target, same = self._heads.get(head) or self._head(head, statement["name"])
                same_target = target
            if not self._final and len(buf) - statement.end() < _SETTLED:
                pos -= self._more(pos)  # what follows may still turn it into another statement: read on first
                buf = self._buf
                continue
            if statement["go"] is not None:
                repeat = max(1, int(statement["repeat"] or 1))
                if alone and merges and repeat == 1 and run is not None and run.target == target:
                    # The batches of this run hold nothing else, each run once: its rows so far are final,
                    # and one token carries them on (GO after every INSERT, as newer SSMS writes).
                    run.sealed += run.rows
                    run.rows = 0
                else:
                    if run is not None and (run.rows or run.sealed):
                        yield run
                    run = None
                    yield BatchEnd(repeat)
                    alone = True
            if run is None or run.target != target or (run.rows and not merges):
                if run is not None:
                    if run.rows or run.sealed:  # (a run may end before its first row is taken)
                        yield run
                    alone = False  # the batch now holds the run before too
                run = None if target is None else self._rows_token(statement.start("insert"), target, 0)
                merges = target is not None and self._defined(target)  # else a token for each statement
            if run is not None:
                run.rows += 1
            pos = statement.end()
        if run is not None and (run.rows or run.sealed):
            yield run
        return pos

    def _head(self, head: str, name: str) -> tuple[tuple[str, ...] | None, re.Pattern[str]]:
        """The table of an INSERT's head, and the pattern of a statement with that head and one row of values."""
        if len(self._heads) > 1000:
            self._heads.clear()
        found = self._heads[head] = (self._target(name), re.compile(one_row_insert(re.escape(head))))
        return found

    def _target(self, name: str) -> tuple[str, ...] | None:
        """The table an INSERT names, None for a temporary one (no part of the schema)."""
        target = self._targets.get(name)
        if target is None:
            if len(self._targets) > 10_000:
                self._targets.clear()
            target = self._targets[name] = table_name(name)
        return None if target[-1].startswith(("#", "@")) else target

    def _rows_token(self, start: int, target: tuple[str, ...], rows: int) -> RowsToken:
        source = Source(self.path, self._buf[start:start + _TAIL], self.line_at(start))
        return RowsToken(ROWS, "INSERT", 0, len("INSERT"), source, "INSERT", (), target, rows)


def _continues(prev: _Lexeme | None) -> bool:
    """`continues_statement` for lexemes: a statement keyword after these belongs to the statement before."""
    if prev is None:
        return False
    if prev.kind == OP:
        return prev.value in _CONTINUE_OPS
    return prev.kind == WORD and prev.value in CONTINUES_AFTER
