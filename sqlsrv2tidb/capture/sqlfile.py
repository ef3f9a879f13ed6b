"""Reads a plain `.sql` file of workload statements into query classes, with rates when it states them.

A DBA often has the workload as a script: the queries an application runs, pasted one after the
other, with `GO` between batches and no semicolons (T-SQL does not need them). Each statement
becomes an execution of its query class; `GO 100` runs its batch a hundred times; equal shapes
merge through their fingerprint, and the values an ad-hoc statement compares or inserts become its
class's parameters (`@1`, ...) with each execution's own values kept (`tsql.parameterize`). Variables that a batch declares with a
literal (`DECLARE @id int = 5`) become declared parameters of the statements that use them, so
`SELECT ... WHERE id = @id` keeps its type and sample value instead of an undeclared `@id`.

A file has no clock, so it has no rates unless it says so in a directive comment
(docs/workload-spec.md):

    -- sqlsrv2tidb: total_qps=500 window=nightly start=2024-12-02T01:00:00Z seconds=3600
    -- sqlsrv2tidb: qps=50          (on the line(s) above one statement: that statement's rate)

Without directives the classes have no intervals, and replay needs `--qps`. Statements are split
and variables bound by `capture/statements.py`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from datetime import UTC, timedelta

from ..errors import one_line
from ..model import Finding, IntervalStat, Severity, Window, Workload
from ..model.workload import format_time, parse_time
from ..tsql.literals import tokens
from .executions import Collector, Piece
from .statements import SplitError, incomplete, split_batch
from .textfile import TextFile

_GO = re.compile(r"^[ \t]*GO(?:[ \t]+(\d+))?[ \t]*(?:--[^\n]*)?$", re.I | re.M)


@dataclass(frozen=True)
class Batch:
    text: str
    line: int
    """1-based line of the batch's first line in the file."""
    repeat: int = 1
    """`GO 5` runs the batch five times."""


def split_go(text: str) -> list[Batch]:
    """Split a script on `GO` lines (SQL Server tools' batch separator, not T-SQL).

    A `GO` line inside a block comment or a string does not split, as in the schema script reader:
    scripts often keep their clean-up steps, GO lines and all, commented out at the end.
    """
    quoted = [(t.start, t.start + len(t.text)) for t in tokens(text, keep_space=True)
              if t.kind in ("comment", "str") and "\n" in t.text]
    starts = [start for start, _ in quoted]
    batches = []
    pos, line = 0, 1
    for m in _GO.finditer(text):
        k = bisect_right(starts, m.start()) - 1
        if k >= 0 and quoted[k][1] > m.start():
            continue
        body = text[pos:m.start()]
        if body.strip():
            batches.append(Batch(body, line, int(m[1]) if m[1] else 1))
        line += text.count("\n", pos, m.end())
        pos = m.end()
    if text[pos:].strip():
        batches.append(Batch(text[pos:], line))
    return batches


_DIRECTIVE = re.compile(r"^[ \t]*--[ \t]*sqlsrv2tidb:(.*)$", re.I | re.M)
_FILE_KEYS = {"total_qps", "window", "start", "end", "seconds"}
_DEFAULT_START = "2000-01-01T00:00:00Z"


def read_sql_workload(tf: TextFile) -> tuple[Workload, list[Finding]]:
    """Every statement of a `.sql` workload file as a query class (see the module docstring for rates)."""
    file = str(tf.path)
    findings: list[Finding] = []
    collector = Collector("sql_file", file, keep_events=False)
    placed: list[tuple[int, str]] = []  # (line, query id) of every statement, for `qps=` directives
    checked: set[str] = set()
    batches = split_go(tf.text)
    if not any(tokens(batch.text) for batch in batches):  # comments are not tokens
        findings.append(Finding("IN17", Severity.LOW, file, "no statements: the file is empty or holds only comments "
                                "and GO lines, so nothing was read from it", file))
    for batch in batches:
        try:
            pieces = split_batch(batch.text)
        except SplitError as exc:
            line = batch.line + batch.text.count("\n", 0, exc.offset)
            findings.append(Finding(
                "IN44", Severity.LOW, f"{file}:{line}", f"{exc} at line {line}; the batch is kept whole as one statement",
                file, line))
            body = batch.text.strip()
            pieces = [Piece(body, body, batch.text[:batch.text.index(body[0])].count("\n") + 1)]
            checked.add(body)  # reported above
        for piece in pieces:
            line = batch.line + piece.line - 1
            qid = collector.add(piece, line=line, count=batch.repeat)
            placed.append((line, qid))
            if qid not in checked and piece.text not in checked:
                checked.add(qid)
                _check_readable(piece.text, file, line, findings)
    settings, own_rates = _directives(tf.text, placed, file, findings)
    workload = Workload(queries=collector.classes(), notes=())
    intervals, windows, note = _rates(collector.counts(), settings, own_rates, file, findings)
    notes = (f"{file}: {collector.executions} statement execution(s) in {len(workload.queries)} query class(es); {note}",)
    return Workload(queries=workload.queries, intervals=intervals, windows=windows, notes=notes), findings


_SENTINEL = re.compile(r"<Token token_type: TokenType\.SENTINEL[^>]*>")
_PLACE = re.compile(r"\(line (\d+), column (\d+)\)")


def _check_readable(text: str, file: str, line: int, findings: list[Finding]) -> None:
    """A statement that is neither a definition the schema reader took nor T-SQL the translator's
    parser reads (incomplete, cut off, not SQL) is kept as a class, and reported here at its line."""
    reason = incomplete(text)
    if reason is None:
        from ..translate.statements import parse_statements

        try:
            reason = next((s.error for s in parse_statements(text) if s.error), None)
        except RecursionError:  # nested deeper than the parser goes by default; the translator says so (QY00)
            return
    if reason is None:
        return
    reason = _SENTINEL.sub("the end of the statement", reason)
    # The parser counts lines from the statement's start; the user counts them in the file.
    reason = _PLACE.sub(lambda m: f"(line {line + int(m[1]) - 1}, column {m[2]})", reason)
    findings.append(Finding(
        "IN48", Severity.MEDIUM, f"{file}:{line}",
        f"statement at line {line} is not readable T-SQL ({reason}); it is kept as a query class, but cannot be "
        "translated or replayed", file, line, {"statement": one_line(text, 80)}))


def _directives(text: str, placed: list[tuple[int, str]], file: str,
                findings: list[Finding]) -> tuple[dict[str, str], dict[str, float]]:
    settings: dict[str, str] = {}
    own: dict[str, float] = {}
    lines = [line for line, _ in placed]
    for m in _DIRECTIVE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        for item in m[1].split():
            key, sep, value = item.partition("=")
            key = key.strip().lower()
            if not sep or key not in _FILE_KEYS | {"qps"}:
                findings.append(Finding("IN46", Severity.LOW, f"{file}:{line}",
                                        f"unknown directive {item!r}; use {', '.join(sorted(_FILE_KEYS | {'qps'}))}",
                                        file, line))
                continue
            if key in ("qps", "total_qps", "seconds") and not _number(value):
                findings.append(Finding("IN46", Severity.LOW, f"{file}:{line}",
                                        f"{key}={value!r} is not a positive number; ignored", file, line))
                continue
            if key in ("start", "end") and not _time(value):
                findings.append(Finding("IN46", Severity.LOW, f"{file}:{line}",
                                        f"{key}={value!r} is not an ISO-8601 time; ignored", file, line))
                continue
            if key != "qps":
                settings[key] = value
                continue
            index = bisect_right(lines, line)  # the first statement below the directive
            if index < len(placed):
                own[placed[index][1]] = float(value)
            else:
                findings.append(Finding("IN46", Severity.LOW, f"{file}:{line}",
                                        "qps= has no statement below it; ignored", file, line))
    return settings, own


def _number(value: str) -> bool:
    try:
        return float(value) > 0
    except ValueError:
        return False


def _time(value: str) -> bool:
    try:
        parse_time(value)
    except ValueError:
        return False
    return True


def _rates(counts: dict[str, int], settings: dict[str, str], own: dict[str, float], file: str,
           findings: list[Finding]) -> tuple[tuple[IntervalStat, ...], tuple[Window, ...], str]:
    """Synthesize one interval per class over the directive's window, from `qps=` and `total_qps=`."""
    total = float(settings["total_qps"]) if "total_qps" in settings else None
    if total is None and not own:
        return (), (), "no rates (add `-- sqlsrv2tidb: total_qps=N` or replay with --qps)"
    start = parse_time(settings.get("start", _DEFAULT_START)).astimezone(UTC)
    if "end" in settings:
        end = parse_time(settings["end"]).astimezone(UTC)
    else:
        end = start + timedelta(seconds=float(settings.get("seconds", 3600)))
    if end <= start:
        findings.append(Finding("IN46", Severity.LOW, file, "end is not after start; one hour is used", file))
        end = start + timedelta(hours=1)
    rates = dict(own)
    shared = {qid: n for qid, n in counts.items() if qid not in own}
    if total is not None and shared:
        weight = sum(shared.values())
        for qid, n in shared.items():
            rates[qid] = total * n / weight
    seconds = (end - start).total_seconds()
    first, last = format_time(start), format_time(end)
    intervals = tuple(IntervalStat(qid, first, last, max(1, round(rate * seconds))) for qid, rate in rates.items())
    windows = ()
    if "window" in settings:
        windows = (Window(settings["window"], first, last, kind="user", description=f"from the directives of {file}"),)
    unrated = len(counts) - len(rates)
    note = f"rates from directives over {first} .. {last}"
    if unrated:
        note += f"; {unrated} class(es) without a qps= have no rate"
    return intervals, windows, note
