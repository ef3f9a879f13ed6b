"""Normalized values written the two ways a target takes rows: LOAD DATA text, and INSERT literals.

LOAD DATA reads tab-separated lines with backslash escapes, `\\N` for NULL
(https://docs.pingcap.com/tidb/stable/sql-statement-load-data). Binary values travel as hex and
are turned back into bytes by the statement itself (`SET col = UNHEX(@v)`), so no byte sequence
can be misread as text in the connection's character set. The multi-row INSERT that stands in
where the server refuses LOCAL INFILE uses the same values as SQL literals (hex literals for bytes).

Each column gets its writer once per table (`text_writer`, `literal_writer`), so the per-value
work in the copy loop is one call with no type dispatch for the common kinds.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

from .normalize import TargetType

_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\0": "\\0"})
_QUOTES = str.maketrans({"\\": "\\\\", "'": "\\'", "\n": "\\n", "\r": "\\r", "\0": "\\0", "\x1a": "\\Z"})

Writer = Callable[[Any], str]


def time_text(value: timedelta) -> str:
    """A TIME value as MySQL writes it: [-]H:MM:SS[.ffffff], hours past 24 allowed."""
    micros = (value.days * 86400 + value.seconds) * 1_000_000 + value.microseconds
    sign = "-" if micros < 0 else ""
    micros = abs(micros)
    seconds, fraction = divmod(micros, 1_000_000)
    text = f"{sign}{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
    return f"{text}.{fraction:06d}" if fraction else text


def plain_text(value: Any) -> str:
    """A non-text value's characters in either form (numbers, dates, times)."""
    kind = type(value)
    if kind is int:
        return str(value)
    if kind is Decimal:
        return format(value, "f")
    if kind is float:
        return repr(value)
    if kind is datetime:
        return value.isoformat(" ")
    if kind is date:
        return value.isoformat()
    if kind is timedelta:
        return time_text(value)
    if kind is bool:
        return "1" if value else "0"
    return str(value)


def text_writer(target: TargetType) -> Writer:
    """The LOAD DATA field of a normalized value (never called with None: that is `\\N`)."""
    if target.family == "integer":
        return str
    if target.is_binary:
        return lambda v: v.hex()
    if target.is_text:
        return lambda v: v.translate(_ESCAPES)
    return plain_text


def literal_writer(target: TargetType) -> Writer:
    """The SQL literal of a normalized value (never called with None: that is NULL)."""
    if target.family == "integer":
        return str
    if target.is_binary:
        return lambda v: "X'" + v.hex() + "'"
    if target.is_text:
        return lambda v: "'" + v.translate(_QUOTES) + "'"
    if target.family in ("decimal", "double", "float", "bit"):
        return plain_text
    return lambda v: "'" + plain_text(v) + "'"


def line_encoder(targets: list[TargetType], nullable: list[bool]) -> Callable[[Any], str]:
    """One function that writes a whole row as a LOAD DATA line, compiled once per table.

    The same encodings as `text_writer`, written out column by column with no per-value call or
    dispatch: a copy spends most of its Python time here, and this form is about twice as fast as
    calling a writer per value. NOT NULL columns skip the NULL test.
    """
    parts = []
    for i, (target, may_be_null) in enumerate(zip(targets, nullable, strict=True)):
        v = f"r[{i}]"
        if target.family == "integer":
            expr = f"str({v})"
        elif target.is_binary:
            expr = f"{v}.hex()"
        elif target.is_text:
            expr = f"{v}.translate(E)"
        elif target.family == "decimal":
            expr = f"format({v}, 'f')"
        elif target.family in ("double", "float"):
            expr = f"repr({v})"
        elif target.family == "datetime":  # plain_text's own answer for a datetime, without its dispatch
            expr = f"({v}.isoformat(' ') if type({v}) is DT else P({v}))"
        else:
            expr = f"P({v})"
        parts.append(f"('\\\\N' if {v} is None else {expr})" if may_be_null else expr)
    namespace: dict[str, Any] = {"E": _ESCAPES, "P": plain_text, "DT": datetime}
    exec(f"def line(r):\n    return '\\t'.join(({', '.join(parts)},))\n", namespace)  # noqa: S102 - our own code
    return namespace["line"]


_UNESCAPE = re.compile(r"\\(.)")
_UNESCAPED = {"t": "\t", "n": "\n", "r": "\r", "0": "\0", "\\": "\\"}


def literal_from_text(field: str, target: TargetType) -> str:
    """A LOAD DATA field as the SQL literal `literal_writer` writes for the same value: a chunk written for
    LOAD DATA goes in as INSERT where the server refused LOCAL INFILE part-way through a run, and a row the
    server did not keep is sent again alone."""
    if field == "\\N":
        return "NULL"
    if target.is_binary:
        return "X'" + field + "'"
    text = _UNESCAPE.sub(lambda m: _UNESCAPED.get(m[1], m[1]), field)
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


_LITERAL_UNESCAPED = {"n": "\n", "r": "\r", "0": "\0", "Z": "\x1a", "t": "\t"}


def shown_value(literal: str, target: TargetType) -> int | str | None:
    """What a SQL literal of `literal_writer` holds, for naming a row's key in the rejects file: an integer
    as a number, bytes as 0x hex, anything else as its text."""
    if literal == "NULL":
        return None
    if target.family == "integer":
        try:
            return int(literal)
        except ValueError:
            return literal
    if literal.startswith("X'"):
        return "0x" + literal[2:-1]
    if len(literal) >= 2 and literal[0] == "'" and literal[-1] == "'":
        return _UNESCAPE.sub(lambda m: _LITERAL_UNESCAPED.get(m[1], m[1]), literal[1:-1])
    return literal
