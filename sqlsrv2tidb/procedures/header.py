"""The head of CREATE PROCEDURE: the procedure's name, its parameters, its options, and where its body starts.

    CREATE [OR ALTER] PROC[EDURE] [schema.]name [;number]
        [ ( ] @param [AS] type [VARYING] [NULL | NOT NULL] [= default] [OUT | OUTPUT] [READONLY], ... [ ) ]
        [WITH option, ...] [FOR REPLICATION]
    AS body

Read with the T-SQL lexer (`tsql.literals`), so comments, strings and bracketed names never
confuse it; `WITH EXECUTE AS OWNER` holds an AS that does not start the body. What the runner
cannot run is said here once, with its line: a numbered procedure, a CLR body (EXTERNAL NAME).
A natively compiled body (BEGIN ATOMIC) is an atomic block the runner runs in a transaction (`blocks`), and a
table-valued parameter (READONLY) is the
compiler's: it arrives as a temporary table the runner fills from the call's rows.
https://learn.microsoft.com/sql/t-sql/statements/create-procedure-transact-sql
"""

from __future__ import annotations

from dataclasses import dataclass

from ..tsql.literals import Token, tokens


@dataclass(frozen=True)
class ParameterHead:
    """One declared parameter as written: `@name`, its type text, its default's text, OUTPUT, READONLY."""

    name: str
    type: str
    default: str | None = None
    output: bool = False
    readonly: bool = False
    line: int = 1


@dataclass(frozen=True)
class Blocker:
    """A construct the runner cannot run: what it is, where (1-based line of the definition), and why."""

    construct: str
    line: int
    message: str


@dataclass(frozen=True)
class Head:
    schema: str | None
    name: str
    parameters: tuple[ParameterHead, ...]
    body_start: int
    """Offset of the body in the definition (after AS)."""
    body_line: int
    """The definition's 1-based line on which the body starts."""
    options: tuple[str, ...] = ()
    blockers: tuple[Blocker, ...] = ()


class HeadError(ValueError):
    """The text is no CREATE PROCEDURE the reader understands; the message says where."""


def line_at(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _name_part(tok: Token) -> str:
    if tok.kind == "ident":
        return tok.text[1:-1].replace("]]", "]").replace('""', '"')
    return tok.text


def read_head(definition: str) -> Head:
    """The head of a CREATE [OR ALTER] PROCEDURE text; HeadError when it is not one."""
    toks = tokens(definition)
    i = 0
    words = [t.upper for t in toks[:4]]
    if words[:1] == ["CREATE"] and words[1:3] == ["OR", "ALTER"]:
        i = 3
    elif words[:1] in (["CREATE"], ["ALTER"]):
        i = 1
    else:
        raise HeadError("the definition does not start with CREATE PROCEDURE")
    if i >= len(toks) or toks[i].upper not in ("PROC", "PROCEDURE"):
        raise HeadError("the definition does not start with CREATE PROCEDURE")
    i += 1
    parts: list[str] = []
    while i < len(toks) and toks[i].kind in ("word", "ident"):
        parts.append(_name_part(toks[i]))
        i += 1
        if i < len(toks) and toks[i].text == ".":
            i += 1
            continue
        break
    if not parts:
        raise HeadError("CREATE PROCEDURE names no procedure")
    blockers: list[Blocker] = []
    if i + 1 < len(toks) and toks[i].text == ";" and toks[i + 1].kind == "num":
        blockers.append(Blocker("numbered procedure", line_at(definition, toks[i].start),
                                f"a numbered procedure (;{toks[i + 1].text}) has no counterpart in the application's calls"))
        i += 2
    parameters, i = _parameters(definition, toks, i)
    options: list[str] = []
    if i < len(toks) and toks[i].upper == "WITH":
        i += 1
        while i < len(toks) and toks[i].upper != "AS":
            word = toks[i].upper
            if word == "EXECUTE" or word == "EXEC":
                options.append("EXECUTE AS")
                i += 3 if i + 1 < len(toks) and toks[i + 1].upper == "AS" else 1  # EXECUTE AS CALLER | 'user'
                continue
            if toks[i].kind == "word":
                options.append(word)
            i += 1
    if i + 1 < len(toks) and toks[i].upper == "FOR" and toks[i + 1].upper == "REPLICATION":
        i += 2
    if i >= len(toks) or toks[i].upper != "AS":
        raise HeadError(f"no AS before the body of {'.'.join(parts)} (line {line_at(definition, toks[min(i, len(toks) - 1)].start)})")
    body_start = toks[i].start + 2
    following = toks[i + 1] if i + 1 < len(toks) else None
    if following is not None and following.upper == "EXTERNAL":
        blockers.append(Blocker("CLR procedure", line_at(definition, following.start),
                                "its body is .NET code (EXTERNAL NAME): there are no statements to run"))
    schema = parts[-2] if len(parts) >= 2 else None
    return Head(schema, parts[-1], tuple(parameters), body_start, line_at(definition, body_start), tuple(options),
                tuple(blockers))


_ENDS_HEAD = {"WITH", "AS", "FOR"}


def _parameters(text: str, toks: list[Token], i: int) -> tuple[list[ParameterHead], int]:
    """The parameters from toks[i] (in parentheses or not) to the WITH, FOR or AS that ends them."""
    enclosed = i < len(toks) and toks[i].text == "("
    if enclosed:
        i += 1
    pieces: list[list[Token]] = [[]]
    depth = 0
    while i < len(toks):
        tok = toks[i]
        if tok.text == "(":
            depth += 1
        elif tok.text == ")":
            if depth == 0 and enclosed:
                i += 1
                break
            depth -= 1
        elif depth == 0 and tok.text == ",":
            pieces.append([])
            i += 1
            continue
        elif depth == 0 and not enclosed and tok.kind == "word" and tok.upper in _ENDS_HEAD and not _inside_type(pieces[-1]):
            break
        pieces[-1].append(tok)
        i += 1
    return [_parameter(text, piece) for piece in pieces if piece and piece[0].kind == "var"], i


def _inside_type(piece: list[Token]) -> bool:
    """`@p AS int`: an AS right after the parameter's name is part of its declaration."""
    return len(piece) == 1 and piece[0].kind == "var"


def _parameter(text: str, piece: list[Token]) -> ParameterHead:
    name = piece[0].text
    rest = piece[1:]
    if rest and rest[0].upper == "AS":
        rest = rest[1:]
    output = readonly = False
    while rest and rest[-1].kind == "word" and rest[-1].upper in ("OUT", "OUTPUT", "READONLY"):
        output = output or rest[-1].upper in ("OUT", "OUTPUT")
        readonly = readonly or rest[-1].upper == "READONLY"
        rest = rest[:-1]
    default: str | None = None
    equals = next((k for k, t in enumerate(rest) if t.text == "="), None)
    if equals is not None:
        value = rest[equals + 1:]
        default = text[value[0].start:value[-1].start + len(value[-1].text)] if value else None
        rest = rest[:equals]
    while rest and rest[-1].kind == "word" and rest[-1].upper in ("NULL", "NOT", "VARYING"):
        rest = rest[:-1]
    type_text = text[rest[0].start:rest[-1].start + len(rest[-1].text)] if rest else ""
    return ParameterHead(name, type_text, default, output, readonly, line_at(text, piece[0].start))
