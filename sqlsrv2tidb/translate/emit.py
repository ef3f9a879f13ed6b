"""Writes translated trees as TiDB SQL, binds parameters to `?`, and has what it writes checked.

sqlglot's `unsupported_messages` stay empty for much output MySQL would reject, so the output is
checked (`verify`): TiDB's grammar, and every function it calls against TiDB's built-in list; a
statement that fails is not written. Comments are not written at all: a T-SQL comment such as
`/*T! ... */` would become an executable TiDB comment.
https://docs.pingcap.com/tidb/stable/comment-syntax
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from sqlglot import exp
from sqlglot.errors import ErrorLevel, SqlglotError, UnsupportedError
from sqlglot.tokens import TokenType

from ..errors import one_line
from .context import Context
from .dialect import TIDB, target_dialect
from .verify import check_text, report, tree_findings

_MARKER = re.compile(r"^__sqlsrv2tidb_param_(.+)__$")
_TOKENIZER = TIDB.tokenizer()
_PLAIN_NAME = re.compile(r"[a-z0-9_]+")
_STRINGS_OR_MARKER = re.compile(
    r"""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`[^`]*`|(?<![\w$])__sqlsrv2tidb_param_([a-z0-9_]+)__(?![\w$])""", re.DOTALL)
"""A string, a quoted name, or a parameter marker of a plain name as the TiDB writer writes it (a whole word)."""


def generate(statements: list[exp.Expr], ctx: Context) -> tuple[str | None, tuple[str, ...]]:
    """TiDB text of the statements (joined by `;` and a newline) and the parameter bound to each `?`.

    Each tree is checked before it is written (`verify`), since writing may reshape it; it is then
    written in place (no copy: nothing reads it afterwards). Commands are statements the translator
    wrote itself (DO SLEEP, SET SESSION ..., SAVEPOINT) and sqlglot cannot read back: they are not checked.
    """
    texts, checked = [], []
    gaps: set[str] = set()
    missing: set[str] = set()
    reread = False
    dialect = target_dialect(ctx.options)
    for statement in statements:
        checks = not isinstance(statement, exp.Command)
        vouched = False  # the output check saw every node: no UNNEST for the writer to look for
        if checks and not reread:
            found = tree_findings(statement, ctx.options.target_engine)
            reread = found is None
            if found is not None:
                gaps.update(found[0])
                missing.update(found[1])
                vouched = True
        try:
            text = statement.sql(dialect=dialect, unsupported_level=ErrorLevel.RAISE, comments=False, copy=False,
                                 unnest=not vouched)
        except UnsupportedError as exc:
            ctx.note("QY50", "unsupported", f"Not expressible in {ctx.options.engine_name}: {one_line(str(exc), 200)}")
            return None, ()
        except (SqlglotError, ValueError, KeyError, TypeError) as exc:
            ctx.note("QY50", "unsupported", f"{ctx.options.engine_name} SQL could not be written: {type(exc).__name__}: "
                     f"{one_line(str(exc), 160)}")
            return None, ()
        if text.strip():
            texts.append(text.strip())
            if checks:
                checked.append(text.strip())
    sql, parameters = bind_parameters(";\n".join(texts), ctx)
    if checked:
        passed = check_text(bind_parameters(";\n".join(checked), ctx)[0], ctx) if reread else report(gaps, missing, ctx)
        if not passed:
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
    if "`__sqlsrv2tidb_param_" not in sql and all(_PLAIN_NAME.fullmatch(name) for name in ctx.parameters):
        # Markers of plain names are whole words outside strings: found by one scan, not by tokenizing
        # the text again (the same `?`s, in the same places).
        bound: list[str] = []

        def marker(match: re.Match[str]) -> str:
            if match[1] is None:
                return match[0]  # a string or a quoted name, left as it is
            bound.append(ctx.parameters.get(match[1], "@" + match[1]))
            return "?"

        return _STRINGS_OR_MARKER.sub(marker, sql), tuple(bound)
    tokens = _TOKENIZER.tokenize(sql)
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
