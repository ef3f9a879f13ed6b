"""`WITH (...)` option lists and `ON filegroup | scheme(column)` placement, shared by tables, keys and indexes.

SQL Server writes options as `NAME = value` with values that may carry their own parenthesised
list: `SYSTEM_VERSIONING = ON (HISTORY_TABLE = [Sales].[X], DATA_CONSISTENCY_CHECK = ON)`,
`DATA_COMPRESSION = PAGE ON PARTITIONS (1 TO 3)`, or the pre-2005 form `WITH FILLFACTOR = 90`.
https://learn.microsoft.com/sql/t-sql/statements/create-table-transact-sql#table_option
"""

from __future__ import annotations

from dataclasses import dataclass

from .cursor import Cursor, ParseError
from .tokens import OP, QUOTED, STRING, WORD, Token


@dataclass
class Option:
    key: str
    """Upper case: `MEMORY_OPTIMIZED`, `HISTORY_TABLE`."""
    tokens: list[Token]
    """The value's tokens as written (may be empty for a bare flag such as `PAD_INDEX`)."""

    @property
    def word(self) -> str:
        """The value's first word, upper case (`ON`, `SCHEMA_ONLY`), or '' without one."""
        if not self.tokens:
            return ""
        tok = self.tokens[0]
        return tok.value.upper() if tok.kind in (WORD, QUOTED, STRING) else tok.text.upper()

    def sub_options(self) -> list[Option]:
        """The parenthesised list after the value: `ON (HISTORY_TABLE = x)` -> [HISTORY_TABLE]."""
        for i, tok in enumerate(self.tokens):
            if tok.kind == OP and tok.text == "(":
                return parse_option_list(Cursor(self.tokens, i))
        return []

    def name(self) -> tuple[str, ...]:
        return Cursor(self.tokens).qualified_name()


def parse_option_list(cur: Cursor) -> list[Option]:
    """`( NAME [= value] [, ...] )` at the cursor."""
    cur.expect_op("(")
    options: list[Option] = []
    if cur.accept_op(")"):
        return options
    while True:
        options.append(_option(cur))
        if cur.accept_op(")"):
            return options
        cur.expect_op(",")


def parse_with(cur: Cursor) -> list[Option]:
    """After WITH: `(options)`, or the old unparenthesised `FILLFACTOR = 90, PAD_INDEX`."""
    if cur.at_op("("):
        return parse_option_list(cur)
    options = [_option(cur)]
    while cur.accept_op(","):
        options.append(_option(cur))
    return options


def _option(cur: Cursor) -> Option:
    key_tok = cur.next()
    if key_tok.kind not in (WORD, QUOTED):
        raise ParseError(f"expected an option name, found {key_tok.text!r}", key_tok)
    key = key_tok.name.upper()
    cur.accept_op("=")
    value: list[Token] = []
    depth = 0
    while not cur.done:
        tok = cur.peek()
        assert tok is not None
        if tok.kind == OP:
            if tok.text == "(":
                depth += 1
            elif tok.text == ")":
                if depth == 0:
                    break
                depth -= 1
            elif tok.text in (",", ";") and depth == 0:
                break
        elif depth == 0 and tok.kind == WORD and tok.value in ("ON", "TEXTIMAGE_ON", "FILESTREAM_ON") and value \
                and key not in ("DATA_COMPRESSION", "XML_COMPRESSION", "ONLINE"):
            break  # `WITH FILLFACTOR = 90 ON [PRIMARY]`: the placement is not part of the option
        value.append(cur.next())
    return Option(key, value)


def find(options: list[Option], key: str) -> Option | None:
    return next((o for o in options if o.key == key), None)


def parse_storage(cur: Cursor) -> tuple[str, str] | None:
    """After ON: `[PRIMARY]`, `"default"`, or `scheme(column)`; only a partition scheme is returned."""
    scheme = cur.identifier()
    if cur.accept_op("("):
        column = cur.identifier()
        cur.expect_op(")")
        return scheme, column
    return None
