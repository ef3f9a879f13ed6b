"""Writes translated trees as TiDB SQL, binds parameters to `?`, and checks the text it wrote.

sqlglot's `unsupported_messages` stay empty for much output MySQL would reject, so the generated
text is read back: with TiDB's dialect (a statement sqlglot cannot re-read is not written), and
every function it calls is looked up in TiDB's built-in list (`tidb_functions`). Comments are not
written at all: a T-SQL comment such as `/*T! ... */` would become an executable TiDB comment.
https://docs.pingcap.com/tidb/stable/comment-syntax
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, ParseError, SqlglotError, TokenError, UnsupportedError
from sqlglot.tokens import TokenType

from ..errors import one_line
from .context import Context
from .dialect import TiDB
from .statements import parse_error
from .tidb_functions import is_builtin

_MARKER = re.compile(r"^__sqlsrv2tidb_param_(.+)__$")


def generate(statements: list[exp.Expr], ctx: Context) -> tuple[str | None, tuple[str, ...]]:
    """TiDB text of the statements (joined by `;` and a newline) and the parameter bound to each `?`."""
    texts, checked = [], []
    for statement in statements:
        try:
            text = statement.sql(dialect=TiDB, unsupported_level=ErrorLevel.RAISE, comments=False)
        except UnsupportedError as exc:
            ctx.note("QY50", "unsupported", f"Not expressible in TiDB: {one_line(str(exc), 200)}")
            return None, ()
        except (SqlglotError, ValueError, KeyError, TypeError) as exc:
            ctx.note("QY50", "unsupported", f"TiDB SQL could not be written: {type(exc).__name__}: {one_line(str(exc), 160)}")
            return None, ()
        if text.strip():
            texts.append(text.strip())
            # Commands are statements the translator wrote itself (DO SLEEP, SET SESSION ..., SAVEPOINT)
            # and sqlglot cannot read back; everything else must survive a re-read.
            if not isinstance(statement, exp.Command):
                checked.append(text.strip())
    sql, parameters = bind_parameters(";\n".join(texts), ctx)
    if checked and not check(bind_parameters(";\n".join(checked), ctx)[0], ctx):
        return None, ()
    return sql, parameters


def split_target_sql(sql: str) -> list[str]:
    """The statements of a translation, in order: a batch's TiDB text holds several, joined by `;`
    and a newline. Quote-aware, so a `;` inside a string or a quoted name does not split.

        >>> split_target_sql("SET @x = ';';\nSELECT @x")
        ["SET @x = ';'", 'SELECT @x']
    """
    statements: list[str] = []
    start = 0
    for i in unquoted(sql, ";"):
        statements.append(sql[start:i].strip())
        start = i + 1
    statements.append(sql[start:].strip())
    return [s for s in statements if s]


def unquoted(sql: str, mark: str) -> Iterator[int]:
    """Positions of the character `mark` in TiDB text outside strings and quoted names (`;`, a `?` marker)."""
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch in ("'", '"', "`"):
            i += 1
            while i < n and sql[i] != ch:
                i += 2 if sql[i] == "\\" and ch != "`" else 1
        elif ch == mark:
            yield i
        i += 1


def bind_parameters(sql: str, ctx: Context) -> tuple[str, tuple[str, ...]]:
    """Replace the parameter markers by `?`, returning the source parameter of each, in text order."""
    if "__sqlsrv2tidb_param_" not in sql:
        return sql, ()
    tokens = TiDB().tokenize(sql)
    out, bound, position = [], [], 0
    for token in tokens:
        if token.token_type not in (TokenType.VAR, TokenType.IDENTIFIER):
            continue
        match = _MARKER.match(token.text)
        if match is None:
            continue
        out.append(sql[position : token.start])
        out.append("?")
        bound.append(ctx.parameters.get(match[1], "@" + match[1]))
        position = token.end + 1
    out.append(sql[position:])
    return "".join(out), tuple(bound)


_WRITTEN_AS: dict[type, str | None] = {}
# Syntax that is written like a call but is no function: EXISTS(...), a ROW constructor, ...
_SYNTAX = {"EXISTS", "ROW", "VALUES", "ANY", "ALL", "SOME", "NOT", "IN", "INTERVAL"}
_CALL = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\(")


def _unknown_function(node: exp.Func) -> str | None:
    """The name a function call is written with when TiDB has no such function, else None.

    sqlglot re-reads names it knows from other dialects (`DATE_FROM_PARTS`) as typed nodes, so
    the name checked is the one the TiDB writer spells, learned once per node class."""
    if isinstance(node, exp.Anonymous):
        return None if is_builtin(node.name) else node.name.upper()
    cls = type(node)
    if cls not in _WRITTEN_AS:
        try:
            match = _CALL.match(node.sql(dialect=TiDB))
        except (SqlglotError, ValueError, KeyError, TypeError):
            match = None
        _WRITTEN_AS[cls] = match[1].upper() if match else None
    name = _WRITTEN_AS[cls]
    return name if name is not None and name not in _SYNTAX and not is_builtin(name) else None


# Time units of TiDB's grammar (INTERVAL, DATE_ADD, TIMESTAMPDIFF, EXTRACT); sqlglot reads any word there.
# https://docs.pingcap.com/tidb/stable/date-and-time-functions
_TIME_UNITS = frozenset("""
MICROSECOND SECOND MINUTE HOUR DAY WEEK MONTH QUARTER YEAR SECOND_MICROSECOND MINUTE_MICROSECOND MINUTE_SECOND
HOUR_MICROSECOND HOUR_SECOND HOUR_MINUTE DAY_MICROSECOND DAY_SECOND DAY_MINUTE DAY_HOUR YEAR_MONTH
""".split())
_UNIT_ARGS = {exp.Interval: "unit", exp.DateAdd: "unit", exp.DateSub: "unit", exp.TimestampAdd: "unit",
              exp.TimestampDiff: "unit", exp.Extract: "this"}


def grammar_gaps(tree: exp.Expr) -> list[str]:
    """Constructs sqlglot's MySQL reader accepts but TiDB's grammar rejects, described for a note.

    The output check re-reads the text with sqlglot, which is more lenient than TiDB's parser in a
    few places the rewrites can reach: LIMIT/OFFSET take only a number or a `?` marker, GROUP BY
    takes ROLLUP only as the `WITH ROLLUP` modifier (no CUBE, no GROUPING SETS), and a time unit
    must be one TiDB knows (no NANOSECOND).
    https://docs.pingcap.com/tidb/stable/sql-statement-select
    https://docs.pingcap.com/tidb/stable/group-by-modifier
    """
    gaps: list[str] = []
    for node in tree.walk():
        if isinstance(node, (exp.Limit, exp.Offset)):
            value = node.expression
            if value is not None and not (isinstance(value, exp.Placeholder) or (isinstance(value, exp.Literal) and value.is_int)):
                gaps.append(f"{type(node).__name__.upper()} takes only a number or a `?` marker in TiDB, not `{value.sql(dialect=TiDB)}`")
        elif isinstance(node, exp.Group) and (
            node.args.get("cube") or node.args.get("grouping_sets")
            or any(isinstance(e, (exp.Rollup, exp.Cube, exp.GroupingSets)) for e in node.expressions)
        ):
            gaps.append("GROUP BY takes ROLLUP only as WITH ROLLUP in TiDB (no CUBE, no GROUPING SETS)")
        elif type(node) in _UNIT_ARGS:
            unit = node.args.get(_UNIT_ARGS[type(node)])
            if isinstance(unit, exp.Var) and unit.name.upper() not in _TIME_UNITS:
                gaps.append(f"TiDB has no {unit.name.upper()} time unit")
    return gaps


def check(sql: str, ctx: Context) -> bool:
    """Read the output back as TiDB SQL; flag what TiDB's grammar rejects and calls of functions TiDB does not have."""
    try:
        trees = sqlglot.parse(sql, read=TiDB, error_level=ErrorLevel.RAISE)
    except (ParseError, TokenError) as exc:
        ctx.note("QY50", "unsupported", f"The translation is not valid TiDB SQL: {parse_error(exc)}")
        return False
    gaps = sorted({gap for tree in trees if tree is not None for gap in grammar_gaps(tree)})
    for gap in gaps:
        ctx.note("QY50", "unsupported", f"The translation is not valid TiDB SQL: {gap}.")
    if gaps:
        return False
    missing = sorted({
        name
        for tree in trees if tree is not None
        for node in tree.find_all(exp.Func)
        if not isinstance(node.parent, exp.Dot) and (name := _unknown_function(node)) is not None
    })
    for name in missing:
        ctx.note("QY36", "unsupported", f"{name}() is not a TiDB function.")
    return not missing
