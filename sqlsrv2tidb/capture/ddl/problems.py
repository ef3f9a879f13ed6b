"""Findings raised while reading scripts: one place that knows how to name a file, line and statement.

Every finding a reader emits points at the file and 1-based line the user sees in an editor and
quotes the start of the statement (about 80 characters, whitespace squashed, passwords masked,
because `CREATE LOGIN ... WITH PASSWORD = '...'` is common in deployment scripts and secrets must
never reach the report).
"""

from __future__ import annotations

import re

from ...model import Finding, Severity
from .tokens import Source, Token

_SECRET = re.compile(r"((?:PASSWORD|SECRET)\s*=\s*)N?'(?:[^']|'')*'?", re.IGNORECASE)
_STATEMENT_END = re.compile(r";|\n[ \t]*GO\b", re.IGNORECASE)
SNIPPET_LENGTH = 80


def snippet(source: Source, start: int) -> str:
    """The first ~80 characters of the statement starting at `start`, on one line, secrets masked."""
    raw = source.text[start : start + 4 * SNIPPET_LENGTH]
    if (end := _STATEMENT_END.search(raw)) is not None:
        raw = raw[: end.end()] if end.group() == ";" else raw[: end.start()]
    flat = " ".join(raw.split())
    flat = _SECRET.sub(r"\1'***'", flat)
    return flat if len(flat) <= SNIPPET_LENGTH else flat[: SNIPPET_LENGTH - 1] + "…"


class Findings:
    """Collects the findings of one read; the same problem at the same place is reported once."""

    def __init__(self) -> None:
        self.items: list[Finding] = []
        self._seen: set[tuple[str, str | None, int | None, str]] = set()
        self._once: set[tuple] = set()

    def first_time(self, *key: object) -> bool:
        """True the first time `key` is seen: for findings worth reporting once per file, not per statement."""
        if key in self._once:
            return False
        self._once.add(key)
        return True

    def add(
        self,
        rule: str,
        severity: Severity,
        obj: str,
        message: str,
        at: Token | tuple[Source, int] | None = None,
        *,
        statement: Token | None = None,
    ) -> None:
        file: str | None = None
        line: int | None = None
        details: dict[str, str] = {}
        if isinstance(at, Token):
            file, line = at.source.path, at.line
        elif at is not None:
            file, line = at[0].path, at[0].line_of(at[1])
        if statement is not None:
            details["statement"] = snippet(statement.source, statement.start)
            if file is None:
                file, line = statement.source.path, statement.line
        self.add_finding(Finding(rule, severity, obj, message, file, line, details))

    def add_finding(self, finding: Finding) -> None:
        """Keep a finding made elsewhere (e.g. by the text decoder), unless it is already here."""
        key = (finding.rule, finding.file, finding.line, finding.message)
        if key in self._seen:
            return
        self._seen.add(key)
        self.items.append(finding)
