"""Query Store rows become query classes with per-interval rates, whichever way they arrived.

Three roads lead here: the live capture (rowsets in catalog.json), the capture-script (the same
rowsets, written by FOR JSON), and a DBA's own export of the reference §2.7 query saved as CSV or
JSON. All three give rows of the same columns, in different value forms (pyodbc types serialised,
FOR JSON's, or CSV text with `NULL`), so the readers below accept every form.

Mapping (reference §2): one QueryClass per fingerprint, whatever query_id or context settings
SQL Server split it into; its parameters come from the `(@P1 int,...)` prefix of the stored text;
one IntervalStat per class and interval, summing plans and execution types, with execution types
3 (aborted) and 4 (exception) counted as errors; compiled parameter values from each plan's
ParameterList become samples. QPS is then Σcount_executions / interval seconds (workload_rates.py).
https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-query-store-runtime-stats-transact-sql
"""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from ..errors import InputError
from ..model import Finding, IntervalStat, QueryClass, Severity, SourceRef, Workload
from ..model.workload import Scalar, format_time, parse_time
from ..tsql.fingerprint import parse_declarations, statement_kind, strip_parameter_prefix
from ..tsql.fingerprints import fingerprint_texts
from .catalog_sql import MARKER
from .textfile import TextFile

SHOWPLAN_NS = "http://schemas.microsoft.com/sqlserver/2004/07/showplan"
MAX_SAMPLES = 100

# The reference §2.7 query's columns, in its order: a header-less CSV export is read in this order.
EXPORT_COLUMNS = (
    "query_id", "query_hash", "object_id", "object_schema", "object_name", "query_parameterization_type",
    "query_parameterization_type_desc", "query_text_id", "query_sql_text", "plan_id", "query_plan_hash",
    "runtime_stats_interval_id", "interval_start_utc", "interval_end_utc", "execution_type", "count_executions",
    "avg_duration_us", "total_duration_us", "total_cpu_time_us", "total_logical_io_reads",
    "total_logical_io_writes", "total_rowcount", "min_duration_us", "max_duration_us",
    "first_execution_utc", "last_execution_utc",
)
# Names DBAs' own exports use for the same things (raw runtime_stats / interval columns).
_ALIASES = {
    "start_time": "interval_start_utc", "interval_start": "interval_start_utc",
    "end_time": "interval_end_utc", "interval_end": "interval_end_utc",
    "avg_duration": "avg_duration_us", "avg_cpu_time": "avg_cpu_time_us",
    "min_duration": "min_duration_us", "max_duration": "max_duration_us",
}
_REQUIRED = ("query_sql_text", "count_executions")


# --- values, in any of the forms rows arrive in -------------------------------------------------

def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip() in ("", "NULL"))


def as_text(value: Any) -> str | None:
    return None if value is None else str(value)


def as_int(value: Any) -> int | None:
    """bigint/int/tinyint from a number, a Decimal or digits in text; None for NULL or blank."""
    if _blank(value):
        return None
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        raise ValueError(f"not a whole number: {value!r}") from None
    if number != number.to_integral_value():
        raise ValueError(f"not a whole number: {value!r}")
    return int(number)


def as_float(value: Any) -> float | None:
    if _blank(value):
        return None
    if isinstance(value, bool):
        raise ValueError(f"not a number: {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"not a number: {value!r}") from None


def as_bool(value: Any) -> bool | None:
    """bit: pyodbc and FOR JSON give true/false; CSV exports give 1/0 or True/False."""
    if _blank(value):
        return None
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true"):
        return True
    if text in ("0", "false"):
        return False
    raise ValueError(f"not a bit: {value!r}")


def as_utc(value: Any) -> str | None:
    """datetime2 already converted to UTC on the server (naive ISO text), or text with an offset."""
    if _blank(value):
        return None
    text = str(value).strip().replace(" ", "T", 1)
    try:
        return format_time(parse_time(text))
    except ValueError:
        raise ValueError(f"not a date and time: {value!r}") from None


# --- compiled parameter values from showplan XML -------------------------------------------------

_NUMBER = re.compile(r"[-+]?\d+")
_FLOAT = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def compiled_literal(text: str) -> Scalar:
    """Read a ParameterCompiledValue: `(54321)`, `(-1.5)`, `N'abc'`, `'a''b'`, `NULL`, `0x0A`, `{guid'...'}`."""
    value = text.strip()
    while value.startswith("(") and value.endswith(")"):
        value = value[1:-1].strip()
    if value.upper() == "NULL":
        return None
    guid = re.fullmatch(r"\{guid'(.*)'\}", value, re.I)
    if guid:
        return guid[1].upper()
    quoted = re.fullmatch(r"[nN]?'(.*)'", value, re.S)
    if quoted:
        return quoted[1].replace("''", "'")
    if re.fullmatch(r"0x[0-9A-Fa-f]*", value):
        return "0x" + value[2:].upper()
    if _NUMBER.fullmatch(value):
        return int(value)
    if _FLOAT.fullmatch(value):
        return float(value)
    return value


def compiled_values(plan: str) -> dict[str, Scalar]:
    """Parameter name -> compiled value from a whole showplan or just its <ParameterList> element.

    The capture sends only the ParameterList cut out of the plan (it loses the root's namespace
    declaration), so a fragment is put back under a showplan root before parsing.
    """
    text = re.sub(r"^\s*<\?xml[^>]*\?>", "", plan).strip()
    if not text:
        return {}
    if not text.startswith("<ShowPlanXML"):
        text = f'<ShowPlanXML xmlns="{SHOWPLAN_NS}">{text}</ShowPlanXML>'
    root = ET.fromstring(text)
    ns = {"sp": SHOWPLAN_NS}
    values: dict[str, Scalar] = {}
    for ref in root.iterfind(".//sp:ParameterList/sp:ColumnReference", ns):
        name, raw = ref.get("Column"), ref.get("ParameterCompiledValue")
        if name and raw is not None:
            values[name] = compiled_literal(raw)
    return values


# --- rows -> workload ------------------------------------------------------------------------------

@dataclass
class _Totals:
    executions: int = 0
    errors: int = 0
    sums: dict[str, float] = field(default_factory=dict)
    low: float | None = None
    high: float | None = None

    def add(self, name: str, value: float | None) -> None:
        if value is not None:
            self.sums[name] = self.sums.get(name, 0.0) + value


@dataclass
class _Variant:
    text: str
    executions: int = 0
    procedure: str | None = None
    keys: set[Any] = field(default_factory=set)


@dataclass
class _Class:
    fingerprint: str
    variants: dict[str, _Variant] = field(default_factory=dict)
    line: int | None = None


def _text_read(row: Mapping[str, Any]) -> str | None:
    """A row's text if `workload_from_rows` reads it: present, not blank, not the capture's own catalog query."""
    text = as_text(row.get("query_sql_text"))
    return text if text and text.strip() and MARKER not in text else None


def _row_total(row: Mapping[str, Any], total: str, avg: str, count: int) -> float | None:
    value = as_float(row.get(total))
    if value is None:
        mean = as_float(row.get(avg))
        value = None if mean is None else mean * count
    return value


def workload_from_rows(
    rows: Sequence[tuple[int | None, Mapping[str, Any]]],
    *,
    plans: Mapping[Any, list[str]] | None = None,
    database: str | None = None,
    file: str | None = None,
    notes: tuple[str, ...] = (),
) -> tuple[Workload, list[Finding]]:
    """Map Query Store rows (each with its line in `file`, or None) to a Workload.

    `plans` maps a row's key (its Query Store query_id, or its text when it has none) to plan or
    ParameterList texts whose compiled values become samples.

    One text recurs on every interval's row, so each distinct text is fingerprinted once, all of
    them before the rows are read (on every core when there are many; a row the loop then skips
    for a bad value only costs its text's fingerprint).
    """
    findings: list[Finding] = []
    classes: dict[str, _Class] = {}
    stats: dict[tuple[str, str, str], _Totals] = {}
    texts = list(dict.fromkeys(filter(None, (_text_read(row) for _, row in rows))))
    shapes = dict(zip(texts, fingerprint_texts(texts), strict=True))
    for line, row in rows:
        try:
            text = as_text(row.get("query_sql_text"))
            if not text or not text.strip():
                raise ValueError("no query_sql_text")
            if MARKER in text:
                continue  # the capture's own catalog queries
            start, end = as_utc(row.get("interval_start_utc")), as_utc(row.get("interval_end_utc"))
            if start is None or end is None:
                raise ValueError("no interval start/end")
            if parse_time(end) <= parse_time(start):
                raise ValueError(f"interval ends ({end}) before it starts ({start})")
            count = as_int(row.get("count_executions"))
            if count is None or count < 0:
                raise ValueError(f"bad count_executions {row.get('count_executions')!r}")
            kind = as_int(row.get("execution_type")) or 0
            durations = (as_float(row.get("min_duration_us")), as_float(row.get("max_duration_us")))
            totals = {
                "duration": _row_total(row, "total_duration_us", "avg_duration_us", count),
                "cpu": _row_total(row, "total_cpu_time_us", "avg_cpu_time_us", count),
                "reads": _row_total(row, "total_logical_io_reads", "avg_logical_io_reads", count),
                "rows": _row_total(row, "total_rowcount", "avg_rowcount", count),
            }
            qs_id = as_int(row.get("query_id"))
            procedure = None
            if (as_int(row.get("object_id")) or 0) != 0 and row.get("object_name"):
                schema = as_text(row.get("object_schema"))
                procedure = f"{schema}.{row['object_name']}" if schema else str(row["object_name"])
        except ValueError as exc:
            what = "Query Store row" if row.get("query_id") is None else f"Query Store query_id {row.get('query_id')}"
            findings.append(Finding("IN27", Severity.LOW, what, f"Query Store row skipped: {exc}", file, line))
            continue
        fp, qid = shapes[text]
        cls = classes.setdefault(qid, _Class(fp, line=line))
        variant = cls.variants.setdefault(text, _Variant(text))
        variant.executions += count
        variant.keys.add(qs_id if qs_id is not None else text)
        variant.procedure = variant.procedure or procedure
        acc = stats.setdefault((qid, start, end), _Totals())
        acc.executions += count
        if kind in (3, 4):  # 3 Aborted (client), 4 Exception
            acc.errors += count
        for name, value in totals.items():
            acc.add(name, value)
        if count and durations[0] is not None:
            acc.low = durations[0] if acc.low is None else min(acc.low, durations[0])
        if count and durations[1] is not None:
            acc.high = durations[1] if acc.high is None else max(acc.high, durations[1])

    queries = []
    for qid, cls in classes.items():
        queries.append(_query_class(qid, cls, plans or {}, database, file, findings))
    executions = {qid: sum(v.executions for v in c.variants.values()) for qid, c in classes.items()}
    queries.sort(key=lambda q: (-executions[q.id], q.id))
    intervals = [
        IntervalStat(
            qid, start, end, acc.executions,
            total_duration_us=acc.sums.get("duration"), min_duration_us=acc.low, max_duration_us=acc.high,
            total_cpu_us=acc.sums.get("cpu"), total_logical_reads=acc.sums.get("reads"),
            total_rows=acc.sums.get("rows"), errors=acc.errors,
        )
        for (qid, start, end), acc in stats.items()
    ]
    intervals.sort(key=lambda i: (parse_time(i.start), i.query_id))
    return Workload(queries=tuple(queries), intervals=tuple(intervals), notes=notes), findings


def _query_class(
    qid: str, cls: _Class, plans: Mapping[Any, list[str]], database: str | None, file: str | None,
    findings: list[Finding],
) -> QueryClass:
    # The most executed spelling represents the class; samples only come from spellings that
    # declare the same parameters, so their values line up with `parameters`.
    best = max(cls.variants.values(), key=lambda v: v.executions)
    declarations, body = strip_parameter_prefix(best.text)
    parameters = parse_declarations(declarations)
    names = [p.name.lower() for p in parameters]
    samples: list[tuple[Scalar, ...]] = []
    for variant in cls.variants.values():
        own = [p.name.lower() for p in parse_declarations(strip_parameter_prefix(variant.text)[0])]
        if not names or own != names:
            continue
        for key in sorted(variant.keys, key=str):
            for plan in plans.get(key, ()):
                try:
                    values = {k.lower(): v for k, v in compiled_values(plan).items()}
                except ET.ParseError as exc:
                    findings.append(Finding("IN28", Severity.INFO, f"query {qid}",
                                            f"plan XML of Query Store query {key} unreadable ({exc}); no samples from it",
                                            file, cls.line))
                    continue
                if all(n in values for n in names):
                    sample = tuple(values[n] for n in names)
                    if sample not in samples and len(samples) < MAX_SAMPLES:
                        samples.append(sample)
    # `(@P1 int)` comes from the application's own parameters (sp_executesql, a prepare: an RPC);
    # `(@1 int)` and `(@0 int)` from SQL Server parameterizing an ad-hoc batch itself.
    auto = all(re.fullmatch(r"@\d+", p.name) for p in parameters)
    return QueryClass(
        id=qid, fingerprint=cls.fingerprint, text=body.strip(), kind=statement_kind(best.text),
        parameters=parameters, samples=tuple(samples), database=database, procedure=best.procedure,
        origin="query_store", source=SourceRef(file, cls.line if file else None), call="batch" if auto else "rpc",
    )


# --- Query Store options --------------------------------------------------------------------------

_READONLY_REASONS = (
    (1, "the database is read-only"), (2, "the database is in single-user mode"),
    (4, "the database is in emergency mode"), (8, "the database is a secondary replica"),
    (65536, "MAX_STORAGE_SIZE_MB was reached"), (131072, "the statement-count memory limit was reached"),
    (262144, "the in-memory flush limit was reached"), (524288, "the disk is full"),
)


def assess_options(options: Mapping[str, Any], where: str | None) -> tuple[list[str], list[Finding]]:
    """Notes on how Query Store was set up, and a finding when it was not recording.

    actual_state 0 OFF, 1 READ_ONLY, 2 READ_WRITE, 3 ERROR; capture mode NONE records nothing new.
    https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-database-query-store-options-transact-sql
    """
    state = as_int(options.get("actual_state"))
    state_desc = as_text(options.get("actual_state_desc")) or {0: "OFF", 1: "READ_ONLY", 2: "READ_WRITE", 3: "ERROR"}.get(
        state if state is not None else -1, "unknown")
    interval = as_int(options.get("interval_length_minutes"))
    mode = as_text(options.get("query_capture_mode_desc"))
    notes = [f"Query Store: {state_desc}" + (f", {interval}-minute intervals" if interval else "")
             + (f", capture mode {mode}" if mode else "")]
    problems = []
    if state in (0, 1, 3):
        problem = {0: "is OFF", 1: "is READ_ONLY", 3: "is in ERROR"}[state]
        if state == 1:
            reason = as_int(options.get("readonly_reason")) or 0
            causes = [text for bit, text in _READONLY_REASONS if reason & bit]
            if causes:
                problem += f" ({'; '.join(causes)})"
        problems.append(problem)
    if mode and mode.upper() == "NONE":
        problems.append("captures no new queries (QUERY_CAPTURE_MODE = NONE)")
    findings = []
    if problems:
        findings.append(Finding(
            "IN20", Severity.MEDIUM, "Query Store",
            f"Query Store {' and '.join(problems)}: the captured workload misses what ran while it was not recording",
            where, None, {"actual_state": state, "actual_state_desc": state_desc}))
    return notes, findings


# --- user exports (CSV or JSON of the §2.7 query) ------------------------------------------------

def _normalise(name: str) -> str:
    key = name.strip().strip('"[]\ufeff').strip().lower()
    return _ALIASES.get(key, key)


def _json_rows(text: str) -> list[Any] | None:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return None
    if isinstance(data, dict):
        lists = [v for v in data.values() if isinstance(v, list)]
        data = lists[0] if len(lists) == 1 else None
    return data if isinstance(data, list) else None


def _is_export_header(names: Iterable[str]) -> bool:
    keys = {_normalise(n) for n in names}
    return all(r in keys for r in _REQUIRED)


def _csv_records(text: str) -> tuple[str, list[tuple[int, list[str]]]]:
    first_line = text.split("\n", 1)[0]
    delimiter = max(",\t;|", key=lambda d: sum(_normalise(n) in EXPORT_COLUMNS for n in first_line.split(d)))
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    records, line = [], 1
    for record in reader:
        if any(cell.strip() for cell in record):
            records.append((line, record))
        line = reader.line_num + 1
    return delimiter, records


def _headerless(record: list[str]) -> bool:
    """A CSV saved without headers, in the reference query's column order (SSMS's default)."""
    if len(record) != len(EXPORT_COLUMNS):
        return False
    try:
        return (as_int(record[0]) is not None and as_utc(record[EXPORT_COLUMNS.index("interval_start_utc")]) is not None
                and as_int(record[EXPORT_COLUMNS.index("count_executions")]) is not None)
    except ValueError:
        return False


def looks_like_query_store_export(tf: TextFile) -> bool:
    """True for a CSV or JSON file of Query Store runtime rows with their query text (JSON is read whole)."""
    text = tf.head(1 << 17).lstrip("\ufeff \t\n")
    if text.startswith(("[", "{")):
        rows = _json_rows(tf.text.lstrip("\ufeff \t\n"))
        return bool(rows) and isinstance(rows[0], dict) and _is_export_header(rows[0].keys())
    try:
        _, records = _csv_records(text[:65536])
    except csv.Error:
        return False
    if not records:
        return False
    return _is_export_header(records[0][1]) or _headerless(records[0][1])


def read_query_store_export(tf: TextFile) -> tuple[Workload, list[Finding]]:
    """Read a Query Store export (the reference §2.7 query's rows) saved as CSV or JSON."""
    text = tf.text.lstrip("\ufeff \t\n")
    where = str(tf.path)
    rows: list[tuple[int | None, dict[str, Any]]] = []
    if text.startswith(("[", "{")):
        data = _json_rows(text)
        if data is None:
            raise InputError(f"{where}: not a JSON array of Query Store rows")
        for i, item in enumerate(data):
            if isinstance(item, dict):
                rows.append((None, {_normalise(k): v for k, v in item.items()}))
            else:
                raise InputError(f"{where}: item {i + 1} of the Query Store export is not an object")
    else:
        try:
            _, records = _csv_records(text)
        except csv.Error as exc:
            raise InputError(f"{where}: unreadable CSV ({exc})") from None
        if not records:
            raise InputError(f"{where}: empty Query Store export")
        if _is_export_header(records[0][1]):
            header = [_normalise(n) for n in records[0][1]]
            records = records[1:]
        else:
            header = list(EXPORT_COLUMNS)
        for line, record in records:
            values = [None if cell.strip() == "NULL" else cell for cell in record]
            rows.append((line, dict(zip(header, values, strict=False))))
    present = set().union(*(r.keys() for _, r in rows)) if rows else set()
    missing = [c for c in ("interval_start_utc", "interval_end_utc") if c not in present]
    if missing:
        raise InputError(
            f"{where}: Query Store export lacks {' and '.join(missing)}; export the interval start and end "
            "(sys.query_store_runtime_stats_interval) with each row, as the capture-script does")
    plans: dict[Any, list[str]] = {}
    for _, row in rows:
        plan = row.get("parameter_list") or row.get("query_plan")
        if plan:
            try:
                key = as_int(row.get("query_id"))
            except ValueError:
                key = None
            key = key if key is not None else row.get("query_sql_text")
            if plan not in plans.setdefault(key, []):
                plans[key].append(plan)
    note = f"Query Store export {tf.path.name}: {len(rows)} rows"
    return workload_from_rows(rows, plans=plans, file=where, notes=(note,))
