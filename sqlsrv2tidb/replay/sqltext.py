"""Turning the translator's `?` markers into the drivers' `%s` markers without touching string literals.

The MySQL drivers we use (PyMySQL, mysqlclient, asyncmy) all interpolate arguments with Python's
`%` operator over the whole statement, so a literal `%` anywhere (`LIKE 'a%'`) must be doubled,
and a `?` inside a string, a quoted identifier or a comment is text, not a marker. MySQL strings
take both `''` and backslash escapes.
(https://dev.mysql.com/doc/refman/8.0/en/string-literals.html)

    >>> to_format_style("SELECT * FROM t WHERE a = ? AND b LIKE '%?' -- ?")
    ("SELECT * FROM t WHERE a = %s AND b LIKE '%%?' -- ?", 1)
"""

from __future__ import annotations

from collections.abc import Callable


def to_format_style(sql: str) -> tuple[str, int]:
    """Return (statement with `%s` markers and `%` doubled, number of markers)."""
    return _rewrite(sql, lambda _: "%s", "%%")


def to_named_markers(sql: str) -> tuple[str, int]:
    """Return the statement with `:p0`, `:p1`, ... markers, so a parser can tell them apart."""
    return _rewrite(sql, lambda i: f":p{i}", "%")


def _rewrite(sql: str, marker: Callable[[int], str], percent: str) -> tuple[str, int]:
    out: list[str] = []
    markers = 0
    i, n = 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch in ("'", '"', "`"):
            j = _end_of_quoted(sql, i, ch)
            out.append(sql[i:j].replace("%", percent))
            i = j
        elif ch == "-" and sql.startswith("-- ", i) or ch == "#" or (ch == "-" and sql.startswith("--\n", i)):
            j = sql.find("\n", i)
            j = n if j < 0 else j
            out.append(sql[i:j].replace("%", percent))
            i = j
        elif ch == "/" and sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(sql[i:j].replace("%", percent))
            i = j
        elif ch == "?":
            out.append(marker(markers))
            markers += 1
            i += 1
        elif ch == "%":
            out.append(percent)
            i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out), markers


def _end_of_quoted(sql: str, start: int, quote: str) -> int:
    """Index just past the closing quote (a doubled quote or, outside identifiers, a backslash escapes)."""
    i, n = start + 1, len(sql)
    while i < n:
        ch = sql[i]
        if ch == "\\" and quote != "`":
            i += 2
            continue
        if ch == quote:
            if i + 1 < n and sql[i + 1] == quote:
                i += 2
                continue
            return i + 1
        i += 1
    return n
