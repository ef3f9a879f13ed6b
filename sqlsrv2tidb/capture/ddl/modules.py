"""Views, procedures, functions and triggers: kept whole as source text, with what their header says.

A module must be the only statement of its batch
(https://learn.microsoft.com/sql/t-sql/statements/create-procedure-transact-sql#limitations), so
its text runs from CREATE to the end of the batch. Only the header is parsed: the name, the
function kind from RETURNS (https://learn.microsoft.com/sql/t-sql/statements/create-function-transact-sql),
the options (SCHEMABINDING, NATIVE_COMPILATION), `EXTERNAL NAME` for CLR code, and a trigger's
table or `ON DATABASE` / `ON ALL SERVER`
(https://learn.microsoft.com/sql/t-sql/statements/create-trigger-transact-sql).
"""

from __future__ import annotations

from typing import Literal

from ...model import Module
from ..statements import BODY_OBJECTS, NOT_BLOCKS
from .actions import Action, CreateModule
from .context import Context, split_name
from .cursor import Cursor, ParseError, span_text
from .tokens import OP, VARIABLE, WORD, Token

CreatedWith = Literal["create", "create_or_alter", "alter"]
_BODY_STARTS = frozenset({"AS", "BEGIN", "RETURN", "EXTERNAL"})


def parse_module(cur: Cursor, ctx: Context, start: Token, first_index: int, kind: str, created_with: CreatedWith) -> Action:
    """At the module's name (after `CREATE [OR ALTER] VIEW|PROC|FUNCTION|TRIGGER`); reads to the end of the batch."""
    name = cur.qualified_name()
    header_end = _header_end(cur)
    header = Cursor(cur.tokens, cur.pos, header_end)
    definition = ctx.state.substitute(span_text(cur.tokens, first_index, cur.end - 1))
    cur.skip_to_end()
    options = _options(header)
    schema, obj = split_name(name)
    fields: dict = {"is_schema_bound": "SCHEMABINDING" in options, "native_compilation": "NATIVE_COMPILATION" in options}
    body = cur.tokens[header_end] if header_end < cur.end else None
    if body is not None and body.is_word("AS") and header_end + 1 < cur.end and cur.tokens[header_end + 1].is_word("EXTERNAL"):
        fields["is_clr"] = True
    elif body is not None and body.is_word("EXTERNAL"):
        fields["is_clr"] = True
    parent = None
    module_kind = kind
    if kind == "function":
        fields["function_kind"] = _function_kind(cur.tokens, header.pos, header_end)
    elif kind == "trigger":
        parent, module_kind = _trigger_target(Cursor(cur.tokens, header.pos, header_end))
        if parent is not None and len(name) < 2:
            schema = split_name(parent)[0]  # a DML trigger lives in its table's schema
        if module_kind == "ddl_trigger":
            schema = None
    module = Module(schema, obj, module_kind, definition=definition, source=ctx.ref(start),
                    created_with=created_with, **fields)  # type: ignore[arg-type]
    return CreateModule(start, module, parent)


def unbalanced_block(tokens: list[Token], first: int, end: int) -> tuple[Token, Token | None] | None:
    """A module's first BEGIN (or CASE) left open, as (it, None), or an END that closes nothing, as (END, END).

    BEGIN TRY/CATCH and BEGIN ATOMIC open blocks; BEGIN TRAN, BEGIN DIALOG and END CONVERSATION are
    statements. A module runs to the end of its batch, so a block still open there means the text was
    cut off (https://learn.microsoft.com/sql/t-sql/language-elements/begin-end-transact-sql).
    """
    open_blocks: list[Token] = []
    for i in range(first, end):
        tok = tokens[i]
        if tok.kind != WORD:
            continue
        nxt = tokens[i + 1] if i + 1 < end and tokens[i + 1].kind == WORD else None
        if tok.value == "CASE" or (tok.value == "BEGIN" and (nxt is None or nxt.value not in NOT_BLOCKS)):
            open_blocks.append(tok)
        elif tok.value == "END" and not (nxt is not None and nxt.value == "CONVERSATION"):
            if not open_blocks:
                return tok, tok
            open_blocks.pop()
    return (open_blocks[0], None) if open_blocks else None


def nested_modules(tokens: list[Token], first: int, end: int) -> list[tuple[Token, str]]:
    """The CREATE/ALTER of other views, procedures, functions or triggers inside a module's text.

    A module must be alone in its batch, so SQL Server rejects such a script; it means a GO is
    missing before the inner CREATE, and the inner module is only text of the outer one.
    """
    found: list[tuple[Token, str]] = []
    for i in range(first + 1, end):
        tok = tokens[i]
        if not tok.is_word("CREATE", "ALTER") or tokens[i - 1].is_word("OR"):  # the ALTER of CREATE OR ALTER
            continue
        k = i + 1
        if tok.is_word("CREATE") and k + 1 < end and tokens[k].is_word("OR") and tokens[k + 1].is_word("ALTER"):
            k += 2
        if k < end and tokens[k].kind == WORD and tokens[k].value in BODY_OBJECTS:
            found.append((tok, " ".join(t.value for t in tokens[i : k + 1])))
    return found


def parse_aggregate(cur: Cursor, ctx: Context, start: Token, first_index: int) -> Action:
    """After CREATE AGGREGATE: a CLR aggregate function, `name (@p type) RETURNS type EXTERNAL NAME a.b`."""
    name = cur.qualified_name()
    cur.skip_rest()
    schema, obj = split_name(name)
    definition = span_text(cur.tokens, first_index, cur.pos - 1)
    module = Module(schema, obj, "function", definition=definition, function_kind="aggregate", is_clr=True,
                    source=ctx.ref(start))
    return CreateModule(start, module)


def _header_end(cur: Cursor) -> int:
    """Index of the token where the body starts: the `AS` that is not `@p AS type` or `EXECUTE AS`, or
    BEGIN / RETURN / EXTERNAL for functions written without AS. Parenthesised parts are skipped."""
    depth = 0
    i = cur.pos
    while i < cur.end:
        tok = cur.tokens[i]
        if tok.kind == OP:
            if tok.text == "(":
                depth += 1
            elif tok.text == ")":
                depth -= 1
        elif depth == 0 and tok.kind == WORD and tok.value in _BODY_STARTS:
            prev = cur.tokens[i - 1]
            if tok.value == "AS":
                if prev.kind == VARIABLE or prev.is_word("EXECUTE", "EXEC"):
                    i += 1
                    continue
                return i
            if tok.value == "RETURN" or tok.value == "BEGIN":
                return i
            if tok.value == "EXTERNAL" and i + 1 < cur.end and cur.tokens[i + 1].is_word("NAME"):
                return i
        i += 1
    raise ParseError("the module has no AS before its body", cur.peek() or cur.previous)


def _options(header: Cursor) -> set[str]:
    """The words of `WITH opt, ...` clauses in the header (after the parameters)."""
    found: set[str] = set()
    depth = 0
    in_with = False
    for tok in header.tokens[header.pos : header.end]:
        if tok.kind == OP and tok.text == "(":
            depth += 1
        elif tok.kind == OP and tok.text == ")":
            depth -= 1
        elif depth == 0 and tok.kind == WORD:
            if tok.value == "WITH":
                in_with = True
            elif in_with:
                found.add(tok.value)
    return found


def _function_kind(tokens: list[Token], start: int, end: int) -> str:
    """From RETURNS: `TABLE` is inline, `@t TABLE (...)` multi-statement, anything else scalar."""
    depth = 0
    for i in range(start, end):
        tok = tokens[i]
        if tok.kind == OP and tok.text == "(":
            depth += 1
        elif tok.kind == OP and tok.text == ")":
            depth -= 1
        elif depth == 0 and tok.is_word("RETURNS"):
            nxt = tokens[i + 1] if i + 1 < end else None
            if nxt is not None and nxt.is_word("TABLE"):
                return "inline_table"
            if nxt is not None and nxt.kind == VARIABLE:
                return "table"
            return "scalar"
    return "scalar"


def _trigger_target(header: Cursor) -> tuple[tuple[str, ...] | None, str]:
    """`ON DATABASE` / `ON ALL SERVER` make a DDL trigger; `ON table` a DML trigger of that table."""
    header.expect("ON")
    if header.accept("DATABASE") or header.accept_sequence("ALL", "SERVER"):
        return None, "ddl_trigger"
    return header.qualified_name(), "trigger"
