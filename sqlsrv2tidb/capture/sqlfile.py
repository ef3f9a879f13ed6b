"""Reads a plain `.sql` file of workload statements, and splits T-SQL batches into statements.

A DBA often has the workload as a script: the queries an application runs, pasted one after the
other, with `GO` between batches and no semicolons (T-SQL does not need them). Each statement
becomes an execution of its query class; `GO 100` runs its batch a hundred times; literals stay in
the text; equal shapes merge through their fingerprint. Variables that a batch declares with a
literal (`DECLARE @id int = 5`) become declared parameters of the statements that use them, so
`SELECT ... WHERE id = @id` keeps its type and sample value instead of an undeclared `@id`.

A file has no clock, so it has no rates unless it says so in a directive comment
(docs/workload-spec.md):

    -- sqlsrv2tidb: total_qps=500 window=nightly start=2024-12-02T01:00:00Z seconds=3600
    -- sqlsrv2tidb: qps=50          (on the line(s) above one statement: that statement's rate)

Without directives the classes have no intervals, and replay needs `--qps`.

The statement splitter is also used for Extended Events batches (`sql_batch_completed`).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from datetime import UTC, timedelta

from ..model import Finding, IntervalStat, Severity, Window, Workload
from ..model.workload import Parameter, Scalar, format_time, parse_time
from .executions import Collector, Piece
from .textfile import TextFile
from .wrappers import NotALiteral, Token, literal_value, tokens, typed_value

_GO = re.compile(r"^[ \t]*GO(?:[ \t]+(\d+))?[ \t]*(?:--[^\n]*)?$", re.I | re.M)
_LITERAL_KINDS = ("str", "num", "bin")


@dataclass(frozen=True)
class Batch:
    text: str
    line: int
    """1-based line of the batch's first line in the file."""
    repeat: int = 1
    """`GO 5` runs the batch five times."""


def split_go(text: str) -> list[Batch]:
    """Split a script on `GO` lines (SQL Server tools' batch separator, not T-SQL)."""
    batches = []
    pos, line = 0, 1
    for m in _GO.finditer(text):
        body = text[pos:m.start()]
        if body.strip():
            batches.append(Batch(body, line, int(m[1]) if m[1] else 1))
        line += text.count("\n", pos, m.end())
        pos = m.end()
    if text[pos:].strip():
        batches.append(Batch(text[pos:], line))
    return batches


class SplitError(ValueError):
    """A batch whose text cannot be tokenized (an unterminated string or bracket)."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


# Words that begin a statement; a statement without `;` ends where one of these starts, unless
# the word continues the current statement (INSERT ... SELECT, UPDATE ... SET, MERGE ... THEN DELETE).
_STARTERS = {
    "SELECT", "INSERT", "UPDATE", "DELETE", "MERGE", "DECLARE", "SET", "EXEC", "EXECUTE", "CREATE", "ALTER",
    "DROP", "TRUNCATE", "IF", "WHILE", "BEGIN", "COMMIT", "ROLLBACK", "SAVE", "PRINT", "RETURN", "USE", "GRANT",
    "REVOKE", "DENY", "RAISERROR", "THROW", "BREAK", "CONTINUE", "GOTO", "WAITFOR", "OPEN", "CLOSE", "FETCH",
    "DEALLOCATE", "BULK", "DBCC", "BACKUP", "RESTORE", "CHECKPOINT", "KILL", "RECONFIGURE", "SHUTDOWN",
}
_OBJECT_TYPES = {
    "TABLE", "VIEW", "PROC", "PROCEDURE", "FUNCTION", "TRIGGER", "INDEX", "SCHEMA", "SEQUENCE", "TYPE", "DATABASE",
    "USER", "LOGIN", "ROLE", "SYNONYM", "STATISTICS", "COLUMN", "CONSTRAINT", "ASSEMBLY", "DEFAULT", "RULE",
}
_BODY_OBJECTS = {"PROC", "PROCEDURE", "FUNCTION", "TRIGGER", "VIEW"}
_NOT_BLOCKS = {"TRAN", "TRANSACTION", "DISTRIBUTED", "DIALOG", "CONVERSATION"}
_DML = {"SELECT", "INSERT", "UPDATE", "DELETE", "MERGE"}


def _word(toks: list[Token], i: int) -> str:
    return toks[i].upper if 0 <= i < len(toks) and toks[i].kind == "word" else ""


def split_tokens(toks: list[Token]) -> list[tuple[int, int]]:
    """Statement boundaries as (first, past-last) token indexes; `;` tokens belong to no statement."""
    out = []
    i = 0
    while i < len(toks):
        if toks[i].text == ";":
            i += 1
            continue
        j = max(_statement(toks, i), i + 1)
        out.append((i, j))
        i = j
    return out


def _statement(toks: list[Token], i: int) -> int:
    w = _word(toks, i)
    n = len(toks)
    if w in ("IF", "WHILE"):
        j = _condition(toks, i + 1)
        j = _statement(toks, j) if j < n else j
        if w == "IF":
            k = j + 1 if j < n and toks[j].text == ";" else j
            if _word(toks, k) == "ELSE":
                j = _statement(toks, k + 1) if k + 1 < n else k + 1
        return j
    if w == "BEGIN" and _word(toks, i + 1) not in _NOT_BLOCKS:
        j = i + 2 if _word(toks, i + 1) in ("TRY", "CATCH") else i + 1
        while j < n and _word(toks, j) != "END":
            j = j + 1 if toks[j].text == ";" else max(_statement(toks, j), j + 1)
        j += 1
        return j + 1 if _word(toks, j) in ("TRY", "CATCH") else j
    if w in ("CREATE", "ALTER"):
        k = i + 1
        if _word(toks, k) == "OR":  # CREATE OR ALTER
            k += 2
        if _word(toks, k) in _BODY_OBJECTS:
            return n  # a module's body runs to the end of its batch, as SQL Server requires
    return _simple(toks, i)


def _condition(toks: list[Token], i: int) -> int:
    depth = 0
    while i < len(toks):
        text = toks[i].text
        if text == "(":
            depth += 1
        elif text == ")":
            depth -= 1
        elif depth == 0 and _word(toks, i) in _STARTERS:
            return i
        i += 1
    return i


def _simple(toks: list[Token], i: int) -> int:
    head = _word(toks, i)
    depth = cases = 0
    seen: set[str] = set()
    j = i + 1
    while j < len(toks):
        tok = toks[j]
        if tok.text == "(":
            depth += 1
        elif tok.text == ")":
            depth -= 1
            if depth < 0:
                return j
        elif depth == 0:
            if tok.text == ";":
                return j
            w = _word(toks, j)
            if w == "CASE":
                cases += 1
            elif w == "END":
                if not cases:
                    return j
                cases -= 1
            elif w == "ELSE" and not cases:
                return j
            elif w in _STARTERS and not _continues(head, w, toks, j, seen):
                return j
            if w:
                seen.add(w)
                if head == "WITH" and w in _DML:
                    head = w  # the statement a CTE feeds decides what follows
                    seen = {w}
        j += 1
    return j


def _continues(head: str, w: str, toks: list[Token], j: int, seen: set[str]) -> bool:
    """Whether the statement word `w` at `j` belongs to the statement that began with `head`."""
    prev, nxt = _word(toks, j - 1), _word(toks, j + 1)
    if prev in ("THEN", "FOR", "ON", "BULK") or (w == "SELECT" and prev in ("UNION", "ALL", "EXCEPT", "INTERSECT")):
        return True  # MERGE ... THEN DELETE, CURSOR FOR SELECT, ON DELETE CASCADE, UNION ALL SELECT
    if w == "IF" and prev in _OBJECT_TYPES:
        return True  # DROP TABLE IF EXISTS
    if w == "FETCH" and prev in ("ROW", "ROWS"):
        return True  # OFFSET ... ROWS FETCH NEXT
    if w == "SET" and (prev in ("UPDATE", "DELETE") or head == "ALTER" or (head == "UPDATE" and "SET" not in seen)):
        return True
    if head == "WITH" and w in _DML:
        return True
    if head == "INSERT" and w in ("SELECT", "EXEC", "EXECUTE") and not seen & {"SELECT", "VALUES", "EXEC", "EXECUTE"}:
        return True
    if head == "ALTER" and w in ("ALTER", "DROP") and nxt not in _OBJECT_TYPES - {"COLUMN", "CONSTRAINT", "INDEX"}:
        return True  # ALTER TABLE t ALTER COLUMN / DROP CONSTRAINT
    if head in ("GRANT", "REVOKE", "DENY") and not seen & {"TO", "FROM"}:
        return True
    return False


_SPLIT_CACHE: dict[str, list[tuple[int, int]]] = {}


def shape_key(toks: list[Token]) -> str:
    """The statement with every literal as `?`: equal keys split and fingerprint the same way."""
    return " ".join("?" if t.kind in _LITERAL_KINDS else t.text for t in toks)


def split_batch(
    text: str, parameters: tuple[Parameter, ...] = (), values: tuple[Scalar, ...] | None = ()
) -> list[Piece]:
    """The statements of one batch, with the parameters (inherited or DECLAREd) each one uses.

    `parameters`/`values` come from a wrapper (`sp_executesql`); each statement keeps those it
    references. `DECLARE @x int = 5` and `SET @x = 6` with literals are bindings, not statements.
    Raises SplitError for text that cannot be tokenized.
    """
    parts = _ANALYSED.get(text)
    if parts is None:
        parts = _analyse(text)
        if len(_ANALYSED) > 20_000:
            _ANALYSED.clear()
        _ANALYSED[text] = parts
    inherited = {p.name.casefold(): (p, None if values is None else values[i]) for i, p in enumerate(parameters)}
    pieces = []
    for part in parts:
        params: list[Parameter] = []
        vals: list[Scalar] = []
        known = values is not None
        for name, param, value, has_value in part.refs:
            if param is not None:
                known = known and has_value
            elif name in inherited:
                param, value = inherited[name]
            else:
                continue
            params.append(param)
            vals.append(value)
        pieces.append(Piece(part.text, part.key, part.line, tuple(params), tuple(vals) if known else None))
    return pieces


@dataclass(frozen=True)
class _Part:
    """A statement of a batch, and each variable it uses: (name, DECLAREd parameter or None, value, known)."""

    text: str
    key: str
    line: int
    refs: tuple[tuple[str, Parameter | None, Scalar, bool], ...]


# Drivers send the same statement text again and again with new values; analysing it once is
# what keeps a capture of many executions of few statements fast.
_ANALYSED: dict[str, list[_Part]] = {}


def _analyse(text: str) -> list[_Part]:
    toks = tokens(text)
    for tok in toks:
        if tok.kind == "punct" and tok.text in ("'", "["):
            kind = "string" if tok.text == "'" else "bracketed name"
            raise SplitError(f"unterminated {kind}", tok.start)
    key = shape_key(toks)
    spans = _SPLIT_CACHE.get(key)
    if spans is None:
        spans = split_tokens(toks)
        if len(_SPLIT_CACHE) > 20_000:
            _SPLIT_CACHE.clear()
        _SPLIT_CACHE[key] = spans
    bound: dict[str, tuple[Parameter, Scalar, bool]] = {}
    parts = []
    for first, last in spans:
        part = toks[first:last]
        if _bind_variables(part, text, bound):
            continue
        refs: dict[str, tuple[str, Parameter | None, Scalar, bool]] = {}
        for tok in part:
            if tok.kind != "var" or tok.text.startswith("@@"):
                continue
            name = tok.text.casefold()
            if name not in refs:
                refs[name] = (name, *bound[name]) if name in bound else (name, None, None, True)
        start, end = part[0].start, part[-1].start + len(part[-1].text)
        parts.append(_Part(text[start:end], shape_key(part), text.count("\n", 0, start) + 1, tuple(refs.values())))
    return parts


def _bind_variables(part: list[Token], text: str, bound: dict[str, tuple[Parameter, Scalar, bool]]) -> bool:
    """Record `DECLARE @x type [= literal], ...` and `SET @x = literal`; True if that is all the statement does."""
    head = part[0].upper if part[0].kind == "word" else ""
    if head == "SET" and len(part) >= 4 and part[1].kind == "var" and part[2].text == "=":
        name = part[1].text.casefold()
        param = bound[name][0] if name in bound else Parameter(part[1].text, "sql_variant")
        try:
            value = literal_value(list(part[3:]))
        except NotALiteral:
            bound[name] = (param, None, False)
            return False
        bound[name] = (param, typed_value(value, param.type), True)
        return True
    if head != "DECLARE":
        return False
    pure = True
    for item in _top_level_items(part[1:]):
        if not item or item[0].kind != "var":
            return False  # DECLARE c CURSOR FOR ...
        eq = next((k for k, t in enumerate(item) if t.text == "="), len(item))
        type_toks = item[1:eq]
        if type_toks and type_toks[0].upper == "AS":
            type_toks = type_toks[1:]
        if not type_toks or type_toks[0].upper in ("TABLE", "CURSOR"):
            pure = False
            continue
        type_text = " ".join(text[type_toks[0].start:type_toks[-1].start + len(type_toks[-1].text)].split()).lower()
        param = Parameter(item[0].text, type_text)
        if eq == len(item):
            bound[item[0].text.casefold()] = (param, None, True)  # declared, still NULL
            continue
        try:
            value = typed_value(literal_value(list(item[eq + 1:])), type_text)
            bound[item[0].text.casefold()] = (param, value, True)
        except NotALiteral:
            bound[item[0].text.casefold()] = (param, None, False)
            pure = False
    return pure


def _top_level_items(toks: list[Token]) -> list[list[Token]]:
    items: list[list[Token]] = [[]]
    depth = 0
    for tok in toks:
        if tok.text == "(":
            depth += 1
        elif tok.text == ")":
            depth -= 1
        if tok.text == "," and depth == 0:
            items.append([])
        else:
            items[-1].append(tok)
    return items


_DIRECTIVE = re.compile(r"^[ \t]*--[ \t]*sqlsrv2tidb:(.*)$", re.I | re.M)
_FILE_KEYS = {"total_qps", "window", "start", "end", "seconds"}
_DEFAULT_START = "2000-01-01T00:00:00Z"


def read_sql_workload(tf: TextFile) -> tuple[Workload, list[Finding]]:
    """Every statement of a `.sql` workload file as a query class (see the module docstring for rates)."""
    file = str(tf.path)
    findings: list[Finding] = []
    collector = Collector("sql_file", file, keep_events=False)
    placed: list[tuple[int, str]] = []  # (line, query id) of every statement, for `qps=` directives
    for batch in split_go(tf.text):
        try:
            pieces = split_batch(batch.text)
        except SplitError as exc:
            line = batch.line + batch.text.count("\n", 0, exc.offset)
            findings.append(Finding(
                "IN44", Severity.LOW, f"{file}:{line}", f"{exc} at line {line}; the batch is kept whole as one statement",
                file, line))
            body = batch.text.strip()
            pieces = [Piece(body, body, batch.text[:batch.text.index(body[0])].count("\n") + 1)]
        for piece in pieces:
            line = batch.line + piece.line - 1
            placed.append((line, collector.add(piece, line=line, count=batch.repeat)))
    settings, own_rates = _directives(tf.text, placed, file, findings)
    workload = Workload(queries=collector.classes(), notes=())
    intervals, windows, note = _rates(collector.counts(), settings, own_rates, file, findings)
    notes = (f"{file}: {collector.executions} statement execution(s) in {len(workload.queries)} query class(es); {note}",)
    return Workload(queries=workload.queries, intervals=intervals, windows=windows, notes=notes), findings


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
