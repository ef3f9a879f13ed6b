"""The T-SQL tokenizer: text in, tokens that remember their file, offset and line out.

T-SQL's lexical rules that matter for reading scripts
(https://learn.microsoft.com/sql/relational-databases/databases/database-identifiers):
strings `'...'` and `N'...'` with `''` as the escaped quote, delimited identifiers `[...]` (with
`]]`) and `"..."` (with `""`, QUOTED_IDENTIFIER ON as every SSMS and SSDT script sets it), `--`
line comments and `/* */` block comments that nest
(https://learn.microsoft.com/sql/t-sql/language-elements/slash-star-comment-transact-sql).
Two things are not T-SQL but tools' syntax and are recognised here because only the tokenizer
knows whether a line start is inside a string or comment: `GO [n]` alone on a line, and SQLCMD
commands (`:setvar`, `:r`, ...) at the start of a line, plus `$(name)` variable references
(https://learn.microsoft.com/sql/tools/sqlcmd/sqlcmd-use-scripting-variables).

Line numbers are computed only when asked for (findings, object sources), so tokenizing a 10 MB
data script stays cheap.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

WORD = "word"  # identifiers and keywords; `value` is upper case
QUOTED = "quoted"  # [name] or "name"; `value` is the name
STRING = "string"  # '...' or N'...'; `value` is the content
NUMBER = "number"
BINARY = "binary"  # 0x...
VARIABLE = "variable"  # @x, @@x
OP = "op"
SQLCMD_VAR = "sqlcmd_var"  # $(name); `value` is the name
GO = "go"  # `value` is the repeat count as text
COMMAND = "command"  # a SQLCMD command line, `value` is the line without the colon
UNTERMINATED = "unterminated"  # a string, identifier or comment that runs to the end of the text
ROWS = "rows"  # an INSERT ... VALUES the script stream passed over (stream.py); `value` is INSERT

token_pattern = _TOKEN = re.compile(
    r"""\s*(?:
      (?P<string>[Nn]?'(?:[^']|'')*')
    | (?P<binary>0[xX][0-9a-fA-F]*)
    | (?P<number>(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|\$\d+(?:\.\d*)?)
    | (?P<word>(?:[^\W\d]|\#+)[\w@\#]*(?:\$(?!\()[\w@\#]*)*)
    | (?P<quoted>\[(?:[^\]]|\]\])*\]|"(?:[^"]|"")*")
    | (?P<variable>@@?[\w@$#]+)
    | (?P<line_comment>--[^\n]*)
    | (?P<block_comment>/\*)
    | (?P<sqlcmd_var>\$\([A-Za-z_][\w.\-]*\))
    | (?P<open>[Nn]?'|\[|")
    | (?P<op><=|>=|<>|!=|!<|!>|\+=|-=|\*=|/=|%=|&=|\|=|\^=|::|\S)
    )""",
    re.VERBOSE,
)
go_tail = _GO_TAIL = re.compile(r"[ \t]*(\d+)?[ \t]*(?:--[^\n]*)?(?=\n|$)")
_COMMENT_EDGE = re.compile(r"/\*|\*/")


class Source:
    """A text the tokens came from: a file, or the SQL inside an `EXEC('...')` string of a file.

    `path` is the file shown in findings; `first_line` is the file line of the text's first line.
    """

    __slots__ = ("path", "text", "first_line", "_newlines")

    def __init__(self, path: str, text: str, first_line: int = 1) -> None:
        self.path = path
        self.text = text
        self.first_line = first_line
        self._newlines: list[int] | None = None

    def line_of(self, offset: int) -> int:
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self.text)]
        return self.first_line + bisect.bisect_right(self._newlines, offset - 1)


@dataclass(slots=True)
class Token:
    kind: str
    text: str
    start: int
    end: int
    source: Source
    value: str = ""
    variables: tuple[str, ...] = field(default=())
    """SQLCMD variables referenced inside a string or delimited identifier (`N'$(DatabaseName)'`)."""

    @property
    def line(self) -> int:
        return self.source.line_of(self.start)

    @property
    def name(self) -> str:
        """The identifier this token spells: `[Order Details]` and `"Order Details"` give `Order Details`."""
        return self.value if self.kind == QUOTED else self.text

    def is_word(self, *words: str) -> bool:
        return self.kind == WORD and self.value in words

    def is_op(self, op: str) -> bool:
        return self.kind == OP and self.text == op

    def __repr__(self) -> str:
        return f"<{self.kind} {self.text[:30]!r} @{self.start}>"


@dataclass(slots=True, repr=False)
class RowsToken(Token):
    """An INSERT ... VALUES the script stream passed over (kind ROWS): its table as written and its rows.

    Consecutive ones into a table already defined are one token, their rows added up (into a table not
    defined, each stays a token of its own, so each is reported at its line as a whole-text read would)."""

    target: tuple[str, ...] = ()
    rows: int = 0
    """Rows of its batch: a `GO n` ending it repeats them."""
    sealed: int = 0
    """Rows of batches before, each run once, that GO lines between INSERTs passed over ended."""


@dataclass
class Problem:
    """Something wrong with the text itself, found while tokenizing (reported by the caller)."""

    message: str
    offset: int


_SQLCMD_REF = re.compile(r"\$\(([A-Za-z_][\w.\-]*)\)")


def tokenize(source: Source, problems: list[Problem], sqlcmd: bool = True, start: int = 0,
             end: int | None = None) -> Iterator[Token]:
    """Yield the tokens of `source` (of its text from `start` to `end`); comments are dropped, unterminated text
    becomes one last token.

    With `sqlcmd=False` (the SQL inside EXEC strings) `GO` and `:commands` are ordinary text.
    """
    text = source.text
    n = len(text) if end is None else end
    pos = start
    match = _TOKEN.match
    while pos < n:
        m = match(text, pos, n)
        if m is None:  # only trailing whitespace is left
            return
        kind = m.lastgroup
        if kind is None:
            return
        start = m.start(kind)
        end = m.end()
        if kind == "word":
            word = m.group(kind)
            upper = word.upper()
            if sqlcmd and upper == "GO" and at_line_start(text, start):
                tail = _GO_TAIL.match(text, end)
                if tail is not None:
                    yield Token(GO, text[start : tail.end()], start, tail.end(), source, tail.group(1) or "1")
                    pos = tail.end()
                    continue
            yield Token(WORD, word, start, end, source, upper)
        elif kind == "quoted":
            raw = m.group(kind)
            close = raw[-1]
            value = raw[1:-1].replace(close * 2, close)
            yield Token(QUOTED, raw, start, end, source, value, _references(value))
        elif kind == "string":
            raw = m.group(kind)
            body = raw[raw.index("'") + 1 : -1]
            value = body.replace("''", "'")
            yield Token(STRING, raw, start, end, source, value, _references(value))
        elif kind in ("line_comment",):
            pass
        elif kind == "block_comment":
            end = comment_end(text, start)
            if end < 0:
                problems.append(Problem("comment /* ... is not closed before the end of the text", start))
                yield Token(UNTERMINATED, text[start:n], start, n, source, "comment")
                return
        elif kind == "op" and sqlcmd and m.group(kind) == ":" and at_line_start(text, start):
            line_end = text.find("\n", start)
            line_end = n if line_end < 0 else line_end
            yield Token(COMMAND, text[start:line_end], start, line_end, source, text[start + 1 : line_end].strip())
            end = line_end
        elif kind == "op" and sqlcmd and text.startswith("!!", start) and at_line_start(text, start):
            line_end = text.find("\n", start)
            line_end = n if line_end < 0 else line_end
            yield Token(COMMAND, text[start:line_end], start, line_end, source, text[start:line_end].strip())
            end = line_end
        elif kind == "open":
            what = {"'": "string", "[": "identifier [", '"': 'identifier "'}[m.group(kind)[-1]]
            problems.append(Problem(f"{what} is not closed before the end of the text", start))
            yield Token(UNTERMINATED, text[start:n], start, n, source, what)
            return
        else:
            value = m.group(kind)
            yield Token(_KINDS[kind], value, start, end, source, value[2:-1] if kind == "sqlcmd_var" else value)
        pos = end


_KINDS = {"binary": BINARY, "number": NUMBER, "variable": VARIABLE, "op": OP, "sqlcmd_var": SQLCMD_VAR}


def _references(value: str) -> tuple[str, ...]:
    if "$(" not in value:
        return ()
    return tuple(_SQLCMD_REF.findall(value))


def at_line_start(text: str, offset: int) -> bool:
    line_start = text.rfind("\n", 0, offset) + 1
    return offset == line_start or text[line_start:offset].isspace()


def comment_end(text: str, start: int) -> int:
    """End offset of the (nested) block comment opening at `start`, or -1 if it never closes."""
    depth = 0
    for m in _COMMENT_EDGE.finditer(text, start):
        if m.group() == "/*":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return m.end()
    return -1


def unquote_sqlcmd(value: str) -> str:
    """`:setvar X "C:\\path\\"` keeps what is between the quotes; a bare value is taken as written."""
    value = value.strip()
    if len(value) >= 2 and value[0] == '"' and value[-1] == '"':
        return value[1:-1].replace('""', '"')
    return value
