"""A procedure body as a tree of blocks, whose leaves are the statements the translator reads.

The translator's statement splitter (`translate.statements.parse_statements`) already cuts a body
into statements, and gives the control-flow words a statement each (`IF cond`, `ELSE`, `BEGIN`,
`END`, `WHILE cond`, `BEGIN TRY`, `END CATCH`, `RETURN x`, `BREAK`); sqlglot reads control flow
poorly, so the structure is built here from that flat list, by recursive descent: IF takes the next
statement (a block, or another IF that may take the ELSE) and an ELSE after it; WHILE the next
statement; BEGIN the statements up to its END; BEGIN TRY ... END TRY BEGIN CATCH ... END CATCH.

Lines are the definition's (1-based), so what cannot run is reported where it is written.
https://learn.microsoft.com/sql/t-sql/language-elements/control-of-flow
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..translate.statements import Statement, parse_statements
from .header import Blocker


@dataclass(frozen=True)
class Leaf:
    """One statement: its text, line and parsed form (see `translate.statements.Statement`)."""

    statement: Statement
    line: int


@dataclass(frozen=True)
class Block:
    nodes: tuple[Node, ...]
    line: int


@dataclass(frozen=True)
class If:
    condition: str
    then: Node
    otherwise: Node | None
    line: int


@dataclass(frozen=True)
class While:
    condition: str
    body: Node
    line: int


@dataclass(frozen=True)
class Try:
    body: Block
    catch: Block
    line: int


@dataclass(frozen=True)
class Atomic:
    """BEGIN ATOMIC WITH (...) ... END: a natively compiled procedure's body, all of it or none of it."""

    body: Block
    line: int


@dataclass(frozen=True)
class Control:
    """RETURN [value], BREAK, CONTINUE, GOTO and labels: `word` is the keyword, `rest` what follows it."""

    word: str
    rest: str
    line: int


Node = Leaf | Block | If | While | Try | Atomic | Control


class _Structure(Exception):
    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


_HEAD = re.compile(r"^\s*([A-Za-z_]+)(?:\s+([A-Za-z_]+))?", re.S)


def _words(statement: Statement) -> tuple[str, str]:
    m = _HEAD.match(statement.sql)
    return ((m[1] or "").upper(), (m[2] or "").upper()) if m else ("", "")


def read_body(body: str, first_line: int) -> tuple[Block, list[Blocker]]:
    """The body (`first_line`: the definition's line it starts on) as one block, and what could not be read."""
    statements = parse_statements(body)
    reader = _Reader(statements, first_line - 1)
    try:
        nodes = reader.until(())
        return Block(tuple(nodes), first_line), []
    except _Structure as exc:
        return Block((), first_line), [Blocker("unbalanced control flow", exc.line, str(exc))]


class _Reader:
    def __init__(self, statements: list[Statement], offset: int) -> None:
        self.statements = statements
        self.offset = offset
        self.at = 0

    def line(self, statement: Statement) -> int:
        return statement.line + self.offset

    def peek(self) -> Statement | None:
        return self.statements[self.at] if self.at < len(self.statements) else None

    def until(self, ends: tuple[tuple[str, str], ...]) -> list[Node]:
        """Nodes up to (and consuming) one of `ends` ((first word, second word or ``)); to the end when none."""
        nodes: list[Node] = []
        while True:
            statement = self.peek()
            if statement is None:
                if ends:
                    wanted = " or ".join(" ".join(w for w in end if w) for end in ends)
                    last = self.statements[-1] if self.statements else None
                    raise _Structure(f"the body ends before {wanted}", self.line(last) if last else self.offset + 1)
                return nodes
            if statement.control_flow:
                first, second = _words(statement)
                if (first, second) in ends or (first, "") in ends and second not in ("TRY", "CATCH"):
                    self.at += 1
                    return nodes
            nodes.append(self.node())

    def node(self) -> Node:
        statement = self.peek()
        assert statement is not None
        self.at += 1
        line = self.line(statement)
        if not statement.control_flow:
            return Leaf(statement, line)
        first, second = _words(statement)
        text = statement.sql.strip().rstrip(";").strip()
        if first == "IF":
            then = self.required(statement, "IF")
            otherwise = None
            following = self.peek()
            if following is not None and following.control_flow and _words(following)[0] == "ELSE":
                self.at += 1
                otherwise = self.required(following, "ELSE")
            return If(text[2:].strip(), then, otherwise, line)
        if first == "WHILE":
            return While(text[5:].strip(), self.required(statement, "WHILE"), line)
        if first == "BEGIN" and second == "TRY":
            body = self.until((("END", "TRY"),))
            following = self.peek()
            if following is None or _words(following) != ("BEGIN", "CATCH"):
                raise _Structure("END TRY is not followed by BEGIN CATCH", line)
            self.at += 1
            catch = self.until((("END", "CATCH"),))
            return Try(Block(tuple(body), line), Block(tuple(catch), self.line(following)), line)
        if first == "BEGIN" and text.upper() == "BEGIN":
            return Block(tuple(self.until((("END", ""),))), line)
        if first == "BEGIN" and second == "ATOMIC":  # a natively compiled body
            return Atomic(Block(tuple(self.until((("END", ""),))), line), line)
        if first in ("RETURN", "BREAK", "CONTINUE", "GOTO"):
            return Control(first, text[len(first):].strip(), line)
        if first == "ELSE":
            raise _Structure("ELSE without an IF before it", line)
        if first == "END":
            raise _Structure(f"{text} without a BEGIN before it", line)
        if re.match(r"^[A-Za-z_]\w*\s*:", text):
            return Control("LABEL", text.split(":", 1)[0].strip(), line)
        return Control(first, text[len(first):].strip(), line)

    def required(self, owner: Statement, word: str) -> Node:
        if self.peek() is None:
            raise _Structure(f"{word} has no statement after it", self.line(owner))
        return self.node()
