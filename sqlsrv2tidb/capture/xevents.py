"""Reads Extended Events XML into query classes, per-minute rates and timed events.

An XE session with `rpc_completed`, `sql_batch_completed` and `sql_statement_completed` is the only
SQL Server capture that keeps each execution's time, duration, session and parameter values, so it
is what a timed replay needs. DBAs hand it over in three shapes, all read here: the ring-buffer
target's XML (`<RingBufferTarget>` of `<event>`, strings in CDATA), an `<events>` document, and the
rows of `sys.fn_xe_file_target_read_file` saved one `<event>` per line. `<type>` elements are
optional. Durations and CPU are microseconds, as XE reports them.
(https://learn.microsoft.com/sql/relational-databases/system-functions/sys-fn-xe-file-target-read-file-transact-sql,
https://learn.microsoft.com/sql/relational-databases/extended-events/targets-for-extended-events-in-sql-server)

The XML is parsed incrementally and each event is dropped once read, so memory holds the model,
not the document tree. RPCs are unwrapped (`capture/wrappers.py`). A `sql_batch_completed` batch is
split into its statements, each its own class, because that is how Query Store and the translator
see them; the batch's cost is shared evenly among its statements. A statement that uses what its
batch made before it (a temp table, a table variable) keeps the batch's text (`QueryClass.batch`),
from the batch event or, for a `sql_statement_completed` event, from its `sql_text` action. Events that are not queries
(`error_reported`, `*_starting`, lock events) are counted in the workload notes, not classed.

The binary `.xel` file is not read: its format is undocumented, and SQL Server exports it as XML.
"""

from __future__ import annotations

import codecs
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path

from lxml import etree

from ..errors import InputError
from ..model import Finding, Severity, Workload
from ..model.workload import parse_time
from ..tsql.fingerprint import parse_declarations, strip_parameter_prefix
from .executions import Collector, Context, Metrics, Piece
from .statements import SplitError, split_batch
from .textfile import TextFile
from .wrappers import Unwrapper, wrapper_name

_TEXT_FIELD = {
    "sql_batch_completed": "batch_text",
    "rpc_completed": "statement",
    "sql_statement_completed": "statement",
    "sp_statement_completed": "statement",
}
_STATEMENT_LEVEL = {"sql_statement_completed", "sp_statement_completed"}
_USER_FIELDS = ("username", "server_principal_name", "session_server_principal_name", "nt_username")
_CHUNK = 1 << 20
_ROOT = b"<sqlsrv2tidb-xe>"


def is_xel(data: bytes) -> bool:
    """A binary XE file: control bytes up front and UTF-16 package names (`package0`) in its metadata."""
    head = data[:64]
    if not any(b < 9 or 13 < b < 32 for b in head if b):
        return False
    window = data[:1 << 16]
    return "package0".encode("utf-16-le") in window or "sqlserver".encode("utf-16-le") in window


def read_xel(path: Path, data: bytes) -> tuple[Workload, list[Finding]]:
    """Binary `.xel` is not read; the error says how to export the same events as XML."""
    pattern = re.sub(r"_\d+_\d+$", "", path.stem) + "*.xel"
    raise InputError(
        f"{path}: binary Extended Events file (.xel) — export it as XML on the server with "
        f"SELECT event_data FROM sys.fn_xe_file_target_read_file(N'{pattern}', NULL, NULL, NULL) "
        f"and save the event_data column to a .xml file, one event per line"
    )


def looks_like_xevents(head: str) -> bool:
    """Event XML: a ring-buffer target, or `<event name=...>` elements (after any declaration)."""
    return bool(re.search(r"<RingBufferTarget\b|<event\s[^>]*\bname\s*=", head))


def read_xevents(tf: TextFile) -> tuple[Workload, list[Finding]]:
    """Read one decoded XE XML file (sources.py has already decoded it)."""
    text = re.sub(r"^\ufeff?\s*<\?xml[^>]*\?>", lambda m: "\n" * m.group().count("\n"), tf.text, count=1)
    chunks = (text[i:i + _CHUNK].encode("utf-8") for i in range(0, len(text), _CHUNK))
    return _Reader(str(tf.path)).read(chunks)


def read_xevents_file(path: Path) -> tuple[Workload, list[Finding]]:
    """Stream an XE XML file from disk without holding its text (UTF-8, or UTF-16 with a BOM)."""
    return _Reader(str(path)).read(_file_chunks(path))


def _file_chunks(path: Path) -> Iterator[bytes]:
    try:
        handle = path.open("rb")
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    with handle:
        first = handle.read(_CHUNK)
        decoder = None
        for bom, name in ((codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"),
                          (codecs.BOM_UTF8, "utf-8")):
            if first.startswith(bom):
                first = first[len(bom):]
                decoder = codecs.getincrementaldecoder(name)() if name != "utf-8" else None
                break
        chunk = first
        declaration_checked = False
        while chunk:
            data = decoder.decode(chunk).encode("utf-8") if decoder else chunk
            if not declaration_checked:
                data = re.sub(rb"^\s*<\?xml[^>]*\?>", lambda m: b"\n" * m.group().count(b"\n"), data, count=1)
                declaration_checked = True
            yield data
            chunk = handle.read(_CHUNK)
        if decoder:
            yield decoder.decode(b"", final=True).encode("utf-8")


class _Reader:
    def __init__(self, file: str) -> None:
        self.file = file
        self.collector = Collector("xevents", file)
        self.unwrapper = Unwrapper()
        self.names: Counter[str] = Counter()
        self.skipped: Counter[str] = Counter()
        self.problems: dict[str, list] = {}
        self.split_batches = 0
        self.min_duration: float | None = None
        self.timed = 0
        self.ring_notes: list[str] = []

    def read(self, chunks: Iterable[bytes]) -> tuple[Workload, list[Finding]]:
        # The document is wrapped in a root of our own, so a file of `<event>` rows (one per line,
        # as fn_xe_file_target_read_file returns them) parses like a single document.
        parser = etree.XMLPullParser(events=("start", "end"), tag=("{*}event", "{*}RingBufferTarget"),
                                     resolve_entities=False, huge_tree=True, no_network=True)
        findings: list[Finding] = []
        try:
            parser.feed(_ROOT)
            for chunk in chunks:
                parser.feed(chunk)
                self._drain(parser)
            parser.feed(b"</" + _ROOT[1:])
            self._drain(parser)
            parser.close()
        except etree.XMLSyntaxError as exc:
            self._drain(parser)  # the events completed before the error are still queued
            line = exc.lineno or None
            if not self.names:
                raise InputError(f"{self.file}:{line}: not well-formed XML ({exc.msg})") from None
            findings.append(Finding(
                "IN41", Severity.MEDIUM, self.file,
                f"not well-formed XML at line {line} ({exc.msg}); the {sum(self.names.values())} event(s) "
                "before it were read, the rest of the file was not", self.file, line))
        findings.extend(self._findings())
        c = self.collector
        return Workload(queries=c.classes(), intervals=c.intervals(), events=c.events(),
                        notes=tuple(self._notes())), findings

    def _drain(self, parser: etree.XMLPullParser) -> None:
        for action, elem in parser.read_events():
            tag = etree.QName(elem).localname
            if action == "start":
                if tag == "RingBufferTarget":
                    self._ring_buffer(elem)
                continue
            if tag != "event":
                continue
            self._event(elem)
            # Drop what was read: the event, and the already-read siblings before it.
            elem.clear(keep_tail=False)
            parent = elem.getparent()
            if parent is not None:
                while elem.getprevious() is not None:
                    del parent[0]

    def _ring_buffer(self, elem: etree._Element) -> None:
        truncated = elem.get("truncated", "0") not in ("0", "")
        dropped = elem.get("droppedCount", "0")
        if truncated or (dropped.isdigit() and int(dropped) > 0):
            self.ring_notes.append(
                f"{self.file}: the ring buffer was truncated or dropped {dropped} event(s); "
                "rates are a lower bound")

    def _event(self, elem: etree._Element) -> None:
        name = elem.get("name") or "?"
        self.names[name] += 1
        field = _TEXT_FIELD.get(name)
        if field is None:
            return
        fields = _fields(elem)
        line = elem.sourceline
        try:
            when = parse_time(elem.get("timestamp") or "")
        except ValueError:
            self._problem("IN40", line, f"{name} event without a readable timestamp")
            return
        raw = fields.get(field) or ""
        sql_text = _sql_text(fields.get("sql_text"))
        text = _sql_text(raw) if raw.strip() else sql_text
        if not text:
            self._problem("IN40", line, f"{name} event without SQL text ({field} or the sql_text action)")
            return
        session = _int(fields.get("session_id"))
        metrics = Metrics(
            duration_us=_number(fields.get("duration")), cpu_us=_number(fields.get("cpu_time")),
            logical_reads=_number(fields.get("logical_reads")), rows=_number(fields.get("row_count")),
            error=_failed(fields),
        )
        if metrics.duration_us is not None:
            self.timed += 1
            if self.min_duration is None or metrics.duration_us < self.min_duration:
                self.min_duration = metrics.duration_us
        user = next((fields[f].strip() for f in _USER_FIELDS if (fields.get(f) or "").strip()), None)
        procedure = None
        if name == "sp_statement_completed":  # its object_name is the procedure the statement ran in
            procedure = (fields.get("object_name") or "").strip() or None
        context = Context(database=(fields.get("database_name") or "").strip() or None, user=user,
                          application=(fields.get("client_app_name") or "").strip() or None, procedure=procedure)
        pieces = self._pieces(name, text, session, sql_text if raw.strip() else None, line)
        if len(pieces) > 1:
            self.split_batches += 1
        share = metrics.share(len(pieces))
        for piece in pieces:
            self.collector.add(piece, line=line, when=when, metrics=share, context=context, session_id=session,
                               event=name)

    def _pieces(self, event: str, text: str, session: int | None, sql_text: str | None, line: int) -> list[Piece]:
        try:
            decls, body = strip_parameter_prefix(text)
            if decls:  # only the sql_text action was captured: the statement, but not this call's values
                return split_batch(body, parse_declarations(decls), None)
            if event == "rpc_completed":
                call = self.unwrapper.unwrap(text, session, sql_text)
                if call.statement is None:
                    if call.problem is None:
                        self.skipped[call.wrapper or "?"] += 1
                    elif call.problem == "unknown_handle":
                        self._problem("IN42", line, f"{call.wrapper} {call.detail} on session {session}")
                    elif call.problem:
                        self._problem("IN43", line, f"{call.wrapper}: {call.detail}")
                    return []
                return split_batch(call.statement, call.parameters, call.values)
            out: list[Piece] = []
            # A statement event's sql_text is the batch it ran in: kept for a statement that leans on it.
            enclosing = sql_text if event == "sql_statement_completed" and sql_text and not _calls_wrapper(sql_text) \
                else None
            for piece in split_batch(text, enclosing=enclosing):
                head = piece.text[:40].lstrip().upper()
                if head.startswith("EXEC") and _calls_wrapper(piece.text):
                    call = self.unwrapper.unwrap(piece.text, session)
                    if call.statement is not None:
                        out.extend(split_batch(call.statement, call.parameters, call.values))
                        continue
                out.append(piece)
            return out
        except SplitError as exc:
            self._problem("IN44", line, f"{exc}; the event's text is kept whole as one statement")
            body = text.strip()
            return [Piece(body, body, 1)]

    def _problem(self, rule: str, line: int | None, detail: str) -> None:
        entry = self.problems.setdefault(rule, [0, line, detail])
        entry[0] += 1

    def _findings(self) -> list[Finding]:
        what = {
            "IN40": ("event(s) could not be used", Severity.LOW),
            "IN42": ("sp_execute/sp_cursorexecute call(s) named a handle prepared before the capture began; "
                     "they were not counted", Severity.LOW),
            "IN43": ("driver call(s) could not be unwrapped and were not counted", Severity.LOW),
            "IN44": ("event text(s) could not be split into statements", Severity.LOW),
        }
        out = []
        for rule, (count, line, detail) in sorted(self.problems.items()):
            message, severity = what[rule]
            out.append(Finding(rule, severity, self.file, f"{count} {message}; first at line {line}: {detail}",
                               self.file, line, {"count": count}))
        return out

    def _notes(self) -> list[str]:
        notes = []
        read = ", ".join(f"{n} {name}" for name, n in sorted(self.names.items(), key=lambda kv: (-kv[1], kv[0])))
        notes.append(f"{self.file}: {sum(self.names.values())} event(s): {read or 'none'}")
        others = {n: c for n, c in self.names.items() if n not in _TEXT_FIELD}
        if others:
            listed = ", ".join(f"{c} {n}" for n, c in sorted(others.items()))
            notes.append(f"{self.file}: {listed} — not query executions: counted here, not made query classes")
        if self.skipped:
            listed = ", ".join(f"{c} {n}" for n, c in sorted(self.skipped.items()))
            notes.append(f"{self.file}: {listed} — driver calls that run no statement of their own (a prepare, a "
                         "cursor fetch, a connection reset): not counted as executions")
        kinds = set(self.names) & set(_TEXT_FIELD)
        if kinds & _STATEMENT_LEVEL and kinds - _STATEMENT_LEVEL:
            notes.append(f"{self.file}: both batch/RPC-level and statement-level events were captured; a statement "
                         "inside a batch or procedure may be counted twice")
        if self.split_batches:
            notes.append(f"{self.file}: {self.split_batches} event(s) held several statements; each statement is its "
                         "own query class and shares the event's duration, CPU, reads and rows evenly")
        if self.min_duration is not None and self.min_duration >= 1000 and (
                self.timed >= 5 or self.min_duration >= 1_000_000):
            notes.append(
                f"{self.file}: every one of the {self.timed} timed event(s) lasted at least "
                f"{self.min_duration / 1000:,.1f} ms: the session looks filtered on duration, so the rates are a "
                "lower bound")
        return notes + self.ring_notes


def _fields(elem: etree._Element) -> dict[str, str]:
    """`<data>` and `<action>` values by name; a non-empty value wins over an empty one of the same name."""
    out: dict[str, str] = {}
    for child in elem:
        if not isinstance(child.tag, str) or etree.QName(child).localname not in ("data", "action"):
            continue
        name = child.get("name")
        if not name:
            continue
        value = text = None
        for part in child:
            if not isinstance(part.tag, str):
                continue
            local = etree.QName(part).localname
            if local == "value":
                value = part.text or ""
            elif local == "text":
                text = part.text
        if value is not None and (name not in out or (not out[name].strip() and value.strip())):
            out[name] = value
        if text is not None:
            out[name + "#text"] = text
    return out


def _sql_text(raw: str | None) -> str:
    """Undo pretty-printing: a value that starts on its own line lost its indent to the XML, not the SQL.

    `<value>\\n\\t\\t\\tSELECT a\\n\\t\\t\\t  FROM t\\n\\t\\t</value>` becomes `SELECT a\\n  FROM t`:
    the indent of the first line is removed from every line that carries it, nothing else.
    """
    if not raw:
        return ""
    if "\n" not in raw or raw[: raw.index("\n")].strip():
        return raw.strip()
    lines = raw.split("\n")[1:]
    while lines and not lines[-1].strip():
        lines.pop()
    first = next((ln for ln in lines if ln.strip()), "")
    indent = first[: len(first) - len(first.lstrip())]
    out = []
    for ln in lines:
        if ln.startswith(indent):
            out.append(ln[len(indent):])
        else:
            out.append(ln if ln.strip() else "")
    return "\n".join(out).strip("\n").rstrip()


def _number(raw: str | None) -> float | None:
    if raw is None or not raw.strip():
        return None
    try:
        return float(raw.strip())
    except ValueError:
        return None


def _int(raw: str | None) -> int | None:
    value = _number(raw)
    return int(value) if value is not None else None


def _failed(fields: dict[str, str]) -> bool:
    """`result` is the rpc_return_result map: 0 OK, then Error and Abort."""
    text = (fields.get("result#text") or "").strip()
    if text:
        return text.upper() != "OK"
    value = (fields.get("result") or "").strip()
    return bool(value) and value != "0"


def _calls_wrapper(statement: str) -> bool:
    m = re.match(r"\s*EXEC(?:UTE)?\s+((?:\[?\w+\]?\.){0,2}\[?\w+\]?)", statement, re.I)
    return bool(m) and wrapper_name(m[1].replace("[", "").replace("]", "")) is not None
