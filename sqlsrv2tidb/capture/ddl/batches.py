"""SQLCMD and `GO`: turning one script file into the batches SQL Server would have received.

`GO` is not T-SQL: sqlcmd and SSMS cut the script into batches there, and `GO n` sends the batch
n times (https://learn.microsoft.com/sql/t-sql/language-elements/sql-server-utilities-statements-go).
In SQLCMD mode they also run `:setvar NAME value`, substitute `$(NAME)` everywhere (also inside
strings and delimited identifiers), include other files with `:r file`, and honour
`:on error exit|ignore` (https://learn.microsoft.com/sql/tools/sqlcmd/sqlcmd-utility#sqlcmd-commands).
SSDT post-deployment scripts rely on `:r` with Windows paths relative to the script.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ...errors import InputError
from ...model import Severity
from ..textfile import TextFile, read_text
from .problems import Findings
from .stream import BatchEnd, Piece, ScriptStream
from .tokens import (
    COMMAND,
    GO,
    QUOTED,
    SQLCMD_VAR,
    STRING,
    UNTERMINATED,
    WORD,
    Problem,
    RowsToken,
    Source,
    Token,
    tokenize,
)

_SETVAR = re.compile(r"setvar\s+([A-Za-z_][\w.\-]*)\s*(.*)$", re.IGNORECASE | re.DOTALL)
_INCLUDE = re.compile(r"r\s+(.+)$", re.IGNORECASE | re.DOTALL)
_ON_ERROR = re.compile(r"on\s+error\s+(exit|ignore)\s*$", re.IGNORECASE)
_REFERENCE = re.compile(r"\$\(([A-Za-z_][\w.\-]*)\)")


@dataclass
class Batch:
    tokens: list[Token]
    repeat: int = 1
    """`GO n` runs the batch n times; INSERT row counts are multiplied by it."""
    truncated: bool = False
    """The text ended inside a string or comment in this batch (already reported as IN03)."""


@dataclass
class SqlcmdState:
    """What SQLCMD mode carries from line to line: variables (case-insensitive) and the include chain."""

    variables: dict[str, str] = field(default_factory=dict)
    including: list[Path] = field(default_factory=list)
    on_error: str = "ignore"

    def lookup(self, name: str) -> str | None:
        return self.variables.get(name.casefold())

    def substitute(self, text: str) -> str:
        """Replace the defined `$(NAME)` references in `text`, leaving undefined ones as written."""
        if "$(" not in text:
            return text
        return _REFERENCE.sub(lambda m: self.variables.get(m.group(1).casefold(), m.group(0)), text)


class BatchSplitter:
    """Reads one script (and the files it includes) into batches, reporting SQLCMD problems."""

    def __init__(
        self,
        findings: Findings,
        state: SqlcmdState,
        skip_include: Callable[[Path], bool] = lambda path: False,
        pass_over: bool = True,
        defined: Callable[[tuple[str, ...]], bool] = lambda table: False,
    ) -> None:
        self.findings = findings
        self.pass_over = pass_over
        """Pass over the statements the schema does not need (stream.py); False tokenizes every one."""
        self.defined = defined
        """Whether a table is defined by what was read so far: its INSERTs passed over may be one token (into a
        table never defined, each is reported on its own line, as a statement read whole would be)."""
        self.state = state
        self.skip_include = skip_include
        self._current: list[Token] = []
        self._undefined_reported: set[tuple[str, str]] = set()
        self._truncated = False

    def batches(self, text: TextFile | Source, path: Path | None) -> Iterator[Batch]:
        """The batches of one script, its text read a block at a time (see stream.py), and of the files it includes."""
        if isinstance(text, Source):
            text = TextFile(Path(text.path), text.text)
        if path is not None:
            self.state.including.append(path.resolve())
        try:
            yield from self._stream(text, path, clean=True)
        finally:
            if path is not None:
                self.state.including.pop()
        if self._current:
            yield Batch(self._current, truncated=self._truncated)
            self._current = []

    def _stream(self, text: TextFile, path: Path | None, clean: bool) -> Iterator[Batch]:
        for item in ScriptStream(str(text.path), text.chunks(), clean, self.pass_over, self.defined).items():
            if isinstance(item, Piece):
                yield from self._read(item.source, path, item.begin, item.end)
            elif isinstance(item, BatchEnd):  # a GO line among INSERTs passed over, as a GO token below
                batch, self._current = self._current, []
                if batch:
                    yield Batch(batch, item.repeat, self._truncated)
                self._truncated = False
            else:
                self._add_rows(item)

    def _add_rows(self, rows: RowsToken) -> None:
        """An INSERT passed over; one into the same table as the one just before adds its rows to that one's."""
        last = self._current[-1] if self._current else None
        if isinstance(last, RowsToken) and last.target == rows.target and self.defined(rows.target):
            last.rows += rows.rows
            last.sealed += rows.sealed
        else:
            self._current.append(rows)

    def _read(self, source: Source, path: Path | None, start: int = 0, end: int | None = None) -> Iterator[Batch]:
        problems: list[Problem] = []
        tokens = list(tokenize(source, problems, start=start, end=end))
        for problem in problems:
            self.findings.add(
                "IN03", Severity.HIGH, source.path,
                f"truncated script: {problem.message}; the statement there is incomplete", (source, problem.offset),
            )
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            kind = tok.kind
            if kind == GO:
                batch, self._current = self._current, []
                if batch:
                    yield Batch(batch, max(1, int(tok.value)), self._truncated)
                self._truncated = False
            elif kind == COMMAND:
                yield from self._command(tok, path)
            elif kind == SQLCMD_VAR:
                i = self._substitute_reference(tokens, i)
                continue
            elif kind == UNTERMINATED:
                self._truncated = True  # reported above; the statement it is in is read as far as it goes
            else:
                if tok.variables:
                    tok = self._substitute_inside(tok)
                self._current.append(tok)
            i += 1

    def _command(self, tok: Token, path: Path | None) -> Iterator[Batch]:
        command = tok.value
        if tok.text.startswith("!!"):
            self.findings.add("IN06", Severity.LOW, tok.source.path,
                              "SQLCMD shell command (!!) is not run by the reader", tok, statement=tok)
            return
        if m := _SETVAR.match(command):
            from .tokens import unquote_sqlcmd

            name, value = m.group(1), m.group(2).strip()
            if value:
                self.state.variables[name.casefold()] = unquote_sqlcmd(value)
            else:
                self.state.variables.pop(name.casefold(), None)
            return
        if m := _ON_ERROR.match(command):
            self.state.on_error = m.group(1).lower()
            return
        if m := _INCLUDE.match(command):
            yield from self._include(tok, m.group(1), path)
            return
        word = command.split(None, 1)[0] if command else ""
        self.findings.add("IN06", Severity.LOW, tok.source.path,
                          f"SQLCMD command :{word} is not run by the reader; the line is skipped", tok, statement=tok)

    def _include(self, tok: Token, raw: str, path: Path | None) -> Iterator[Batch]:
        from .tokens import unquote_sqlcmd

        name = self.state.substitute(unquote_sqlcmd(raw.strip()))
        base = path.parent if path is not None else Path.cwd()
        target = _resolve(base, name)
        if target is None:
            self.findings.add("IN05", Severity.HIGH, tok.source.path,
                              f":r {name}: no such file next to {tok.source.path}; its statements are not read",
                              tok, statement=tok)
            return
        if target.resolve() in self.state.including:
            self.findings.add("IN05", Severity.HIGH, tok.source.path,
                              f":r {name} includes itself (directly or through other files); not read again",
                              tok, statement=tok)
            return
        if self.skip_include(target):
            return  # the file is among the scripts being read, and is read once on its own
        try:
            text_file = read_text(target)
        except InputError as exc:
            self.findings.add("IN05", Severity.HIGH, tok.source.path, f":r {name}: {exc}", tok, statement=tok)
            return
        for finding in text_file.findings:  # how the included file's bytes were read
            self.findings.add_finding(finding)
        self.state.including.append(target.resolve())
        try:  # a file included at the start of a batch starts where the reader is at a statement of its own
            yield from self._stream(text_file, target, clean=not self._current)
        finally:
            self.state.including.pop()

    def _substitute_reference(self, tokens: list[Token], i: int) -> int:
        """Replace the `$(NAME)` token at `i` (glued to any adjacent words) by the tokens of its value."""
        ref = tokens[i]
        value = self.state.lookup(ref.value)
        if value is None:
            self._report_undefined(ref.value, ref)
            self._current.append(Token(WORD, ref.text, ref.start, ref.end, ref.source, ref.text.upper()))
            return i + 1
        pieces = [value]
        start = ref.start
        if self._current and self._current[-1].end == ref.start and self._current[-1].kind == WORD:
            glued = self._current.pop()
            pieces.insert(0, glued.text)
            start = glued.start
        j = i + 1
        while j < len(tokens) and tokens[j].start == tokens[j - 1].end and tokens[j].kind in (WORD, SQLCMD_VAR):
            nxt = tokens[j]
            pieces.append(nxt.text if nxt.kind == WORD else (self.state.lookup(nxt.value) or nxt.text))
            j += 1
        line_source = Source(ref.source.path, "".join(pieces), ref.source.line_of(start))
        problems: list[Problem] = []
        for tok in tokenize(line_source, problems, sqlcmd=False):
            self._current.append(tok)
        return j

    def _substitute_inside(self, tok: Token) -> Token:
        for name in tok.variables:
            if self.state.lookup(name) is None:
                self._report_undefined(name, tok)
        if tok.kind in (STRING, QUOTED):
            tok.value = self.state.substitute(tok.value)
            tok.text = self.state.substitute(tok.text)
        return tok

    def _report_undefined(self, name: str, tok: Token) -> None:
        key = (tok.source.path, name.casefold())
        if key in self._undefined_reported:
            return
        self._undefined_reported.add(key)
        self.findings.add(
            "IN04", Severity.MEDIUM, tok.source.path,
            f"SQLCMD variable $({name}) is not defined (no :setvar before it); it is left as written",
            tok,
        )


def _resolve(base: Path, name: str) -> Path | None:
    """Find an included file: relative to the including script, Windows separators and case allowed."""
    relative = Path(name.replace("\\", "/"))
    candidate = relative if relative.is_absolute() else base / relative
    if candidate.is_file():
        return candidate
    # Scripts written on Windows name files case-insensitively; match each part ignoring case.
    current = Path(candidate.anchor) if candidate.is_absolute() else Path(".")
    for part in candidate.parts[1:] if candidate.is_absolute() else candidate.parts:
        if part in (".", ""):
            continue
        if part == "..":
            current = current / ".."
            continue
        exact = current / part
        if exact.exists():
            current = exact
            continue
        try:
            found = next((p for p in current.iterdir() if p.name.casefold() == part.casefold()), None)
        except OSError:
            return None
        if found is None:
            return None
        current = found
    return current if current.is_file() else None


def included_paths(text: TextFile, path: Path) -> set[Path]:
    """The files a script pulls in with `:r` (resolved, recursively), without reading its statements."""
    from .tokens import unquote_sqlcmd

    found: set[Path] = set()
    pending = [(text, path)]
    while pending:
        current, current_path = pending.pop()
        if not any(":r" in chunk.lower() for chunk in current.chunks()):  # the common case, read a block at a time
            continue
        current_text = current.text
        state = SqlcmdState()
        for tok in tokenize(Source(str(current_path), current_text), []):
            if tok.kind != COMMAND:
                continue
            if m := _SETVAR.match(tok.value):
                state.variables[m.group(1).casefold()] = unquote_sqlcmd(m.group(2).strip())
            elif m := _INCLUDE.match(tok.value):
                target = _resolve(current_path.parent, state.substitute(unquote_sqlcmd(m.group(1).strip())))
                if target is not None and target.resolve() not in found:
                    found.add(target.resolve())
                    try:
                        pending.append((read_text(target), target))
                    except InputError:
                        pass  # reported as IN05 when the script itself is read
    return found
