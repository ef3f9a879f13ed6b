"""Reads the hand-written workload spec: queries, their rates per named window, and value generators.

When there is no capture (or to test a "what if" load), a DBA writes down what production runs,
as seed 000's team did for its load tool: the nightly `keywords` INSERT at 50,000 QPS with random
keys, the daytime reads at their rates. The spec becomes the same workload model a capture does:
one query class per statement (parameter generators keyed by `@name`), one interval per query and
window with executions = qps x window seconds, and the windows themselves (kind `spec`).

The format (`format: sqlsrv2tidb.workload/1`) is documented with a full example in
docs/workload-spec.md. The file as a whole must be a spec; a broken window or query is reported
with its file:line (rule IN45) and the rest is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

import yaml

from ..errors import InputError
from ..model import Finding, Generator, IntervalStat, QueryClass, Severity, SourceRef, Window, Workload
from ..model.workload import Parameter, Scalar, format_time, parse_time
from ..tsql.fingerprint import (
    fingerprint,
    parse_declarations,
    query_id,
    statement_kind,
    strip_parameter_prefix,
)
from .statements import SplitError, split_batch
from .textfile import TextFile
from .wrappers import procedure_name

FORMAT = "sqlsrv2tidb.workload/1"
_MARKER = re.compile(r"^format:\s*[\"']?sqlsrv2tidb\.workload/", re.M)
_DEFAULT_START = datetime(2000, 1, 1, tzinfo=UTC)
_TOP_KEYS = {"format", "description", "database", "user", "application", "windows", "queries"}
_WINDOW_KEYS = {"start", "end", "duration", "description"}
_QUERY_KEYS = {"name", "sql", "parameters", "qps", "database", "user", "application", "description"}
GENERATORS = ("random_int", "random_float", "choice", "sequence", "constant", "random_string", "uuid", "now")


def looks_like_spec(tf: TextFile) -> bool:
    """A spec says so in its `format:` line; any other .yaml is read as one so its error is clear."""
    return has_spec_marker(tf) or tf.path.suffix.lower() in (".yaml", ".yml")


def has_spec_marker(tf: TextFile) -> bool:
    """The file names its format (`format: sqlsrv2tidb.workload/1`) near the top."""
    return bool(_MARKER.search(tf.head(4096)[:4096]))


class _Map(dict):
    line: int = 0
    lines: dict[Any, int]


class _Seq(list):
    line: int = 0
    lines: list[int]


class _Loader(yaml.SafeLoader):
    """Safe YAML that remembers each mapping's and value's line, so errors name file:line."""


def _construct_map(loader: _Loader, node: yaml.MappingNode) -> _Map:
    loader.flatten_mapping(node)
    out = _Map()
    out.line, out.lines = node.start_mark.line + 1, {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in out:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        out[key] = loader.construct_object(value_node, deep=True)
        out.lines[key] = value_node.start_mark.line + 1
    return out


def _construct_seq(loader: _Loader, node: yaml.SequenceNode) -> _Seq:
    out = _Seq(loader.construct_object(child, deep=True) for child in node.value)
    out.line = node.start_mark.line + 1
    out.lines = [child.start_mark.line + 1 for child in node.value]
    return out


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_map)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_seq)


class _Invalid(ValueError):
    def __init__(self, message: str, line: int | None) -> None:
        super().__init__(message)
        self.line = line


def read_spec(tf: TextFile) -> tuple[Workload, list[Finding]]:
    """Read a workload spec (docs/workload-spec.md) into query classes, intervals and windows."""
    file = str(tf.path)
    try:
        doc = yaml.load(tf.text, Loader=_Loader)  # _Loader is a SafeLoader: no Python objects
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{file}:{mark.line + 1}" if mark else file
        raise InputError(f"{where}: not valid YAML ({getattr(exc, 'problem', None) or exc})") from None
    if not isinstance(doc, dict) or doc.get("format") is None:
        raise InputError(f"{file}: not a workload spec; it must start with `format: {FORMAT}` (docs/workload-spec.md)")
    if doc["format"] != FORMAT:
        raise InputError(f"{file}:{doc.lines.get('format', 1)}: workload spec format {doc['format']!r} "
                         f"is not one this version reads ({FORMAT})")
    findings: list[Finding] = []
    if doc.get("queries") is None and doc.get("windows") is not None:
        return _windows_only(doc, file, findings)
    if not isinstance(doc.get("queries"), list) or not doc["queries"]:
        raise InputError(f"{file}:{doc.lines.get('queries', doc.line)}: `queries:` must be a list of queries "
                         "(or give only `windows:` to name windows in the other sources)")
    _unknown_keys(doc, _TOP_KEYS, "top level", file, findings)
    windows = _windows(doc, file, findings)
    defaults = {k: doc.get(k) for k in ("database", "user", "application")}
    classes: dict[str, QueryClass] = {}
    executions: dict[tuple[str, str], float] = {}
    for index, entry in enumerate(doc["queries"]):
        line = doc["queries"].lines[index]
        label = f"queries[{index}]"
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            label += f" ({entry['name']})"
        try:
            if not isinstance(entry, dict):
                raise _Invalid("each query must be a mapping with at least `sql:`", line)
            _unknown_keys(entry, _QUERY_KEYS, label, file, findings)
            query, rates = _query(entry, defaults, windows, file)
        except _Invalid as exc:
            findings.append(Finding("IN45", Severity.HIGH, f"{file}:{exc.line or line}",
                                    f"{label}: {exc}; this query is left out", file, exc.line or line))
            continue
        classes.setdefault(query.id, query)
        for window_name, qps in rates.items():
            key = (query.id, window_name)
            executions[key] = executions.get(key, 0.0) + qps * windows[window_name].seconds
    intervals = tuple(
        IntervalStat(qid, windows[name].start, windows[name].end, int(round(n)))
        for (qid, name), n in executions.items() if n > 0
    )
    used = {name for _, name in executions}
    notes = (f"{file}: workload spec with {len(classes)} query class(es) over {len(used)} window(s)",)
    return Workload(queries=tuple(classes.values()), intervals=intervals,
                    windows=tuple(w for w in windows.values() if w.name in used or w.name != "default"),
                    notes=notes), findings


def _windows_only(doc: _Map, file: str, findings: list[Finding]) -> tuple[Workload, list[Finding]]:
    """A spec of `windows:` alone names windows in the captured workload read beside it (Query Store,
    Extended Events, SQL files): they replace the detected `peak`/`batch-N` windows."""
    _unknown_keys(doc, _TOP_KEYS, "top level", file, findings)
    windows = tuple(w for w in _windows(doc, file, findings).values() if w.name != "default")
    if not windows:
        raise InputError(f"{file}:{doc.lines.get('windows', doc.line)}: `windows:` names no usable window")
    names = ", ".join(w.name for w in windows)
    return Workload(windows=windows, notes=(f"{file}: {len(windows)} window(s) named for the other sources: {names}",)), findings


def _unknown_keys(entry: dict, allowed: set[str], label: str, file: str, findings: list[Finding]) -> None:
    for key in entry:
        if key not in allowed:
            line = entry.lines.get(key) if isinstance(entry, _Map) else None
            findings.append(Finding("IN47", Severity.MEDIUM, f"{file}:{line}",
                                    f"{label}: unknown key {key!r} ignored (expected one of {', '.join(sorted(allowed))})",
                                    file, line))


def _windows(doc: _Map, file: str, findings: list[Finding]) -> dict[str, Window]:
    raw = doc.get("windows")
    windows: dict[str, Window] = {}
    if raw is None:
        windows["default"] = Window("default", format_time(_DEFAULT_START),
                                    format_time(_DEFAULT_START + timedelta(hours=1)), kind="spec",
                                    description="no windows given: one hour from 2000-01-01T00:00:00Z")
        return windows
    if isinstance(raw, list):  # also accept `- name: nightly` entries
        items = [(w.get("name") if isinstance(w, dict) else None, w) for w in raw]
    elif isinstance(raw, dict):
        items = list(raw.items())
    else:
        raise InputError(f"{file}:{doc.lines.get('windows', doc.line)}: `windows:` must map names to start/end")
    for name, body in items:
        line = getattr(body, "line", doc.lines.get("windows"))
        try:
            if not isinstance(name, str) or not name:
                raise _Invalid("a window needs a name", line)
            if not isinstance(body, dict):
                raise _Invalid(f"window {name!r} must be a mapping with start and end (or duration)", line)
            _unknown_keys(body, _WINDOW_KEYS | {"name"}, f"window {name!r}", file, findings)
            start = _time(body.get("start"), "start", body)
            if "end" in body:
                end = _time(body["end"], "end", body)
            elif "duration" in body:
                end = start + timedelta(seconds=_duration(body["duration"], body))
            else:
                raise _Invalid(f"window {name!r} needs `end:` or `duration:`", line)
            if end <= start:
                raise _Invalid(f"window {name!r} ends before it starts", body.lines.get("end", line))
        except _Invalid as exc:
            findings.append(Finding("IN45", Severity.HIGH, f"{file}:{exc.line or line}",
                                    f"{exc}; the window is left out", file, exc.line or line))
            continue
        windows[name] = Window(name, format_time(start), format_time(end), kind="spec",
                               description=body.get("description"))
    return windows


def _time(value: Any, key: str, body: _Map) -> datetime:
    line = body.lines.get(key, body.line)
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if isinstance(value, str):
        try:
            return parse_time(value.strip())
        except ValueError:
            pass
    raise _Invalid(f"{key}: {value!r} is not a time like 2024-12-02T09:00:00Z", line)


def _duration(value: Any, body: _Map) -> float:
    """`3600`, `90s`, `30m`, `1h`, `1h30m`."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value)
    if isinstance(value, str):
        parts = re.findall(r"(\d+(?:\.\d+)?)\s*([hms])", value.lower())
        if parts and re.fullmatch(r"(?:\s*\d+(?:\.\d+)?\s*[hms])+\s*", value.lower()):
            return sum(float(n) * {"h": 3600, "m": 60, "s": 1}[u] for n, u in parts)
    raise _Invalid(f"duration: {value!r} is not like 3600, 90s, 30m or 1h", body.lines.get("duration", body.line))


@dataclass(frozen=True)
class _Declared:
    parameter: Parameter
    generator: Generator | None
    typed: bool = True
    """False when the type was only inferred from the generator."""


def _query(entry: _Map, defaults: dict[str, Any], windows: dict[str, Window],
           file: str) -> tuple[QueryClass, dict[str, float]]:
    sql = entry.get("sql")
    if not isinstance(sql, str) or not sql.strip():
        raise _Invalid("`sql:` with one T-SQL statement is required", entry.line)
    sql_line = entry.lines.get("sql", entry.line)
    decls, body = strip_parameter_prefix(sql.strip())
    declared = {p.name.casefold(): _Declared(p, None) for p in parse_declarations(decls)} if decls else {}
    raw_params = entry.get("parameters") or {}
    if not isinstance(raw_params, dict):
        raise _Invalid("`parameters:` must map parameter names to a type and/or a generator",
                       entry.lines.get("parameters", entry.line))
    for name, spec in raw_params.items():
        line = raw_params.lines.get(name, entry.line) if isinstance(raw_params, _Map) else entry.line
        key = f"@{str(name).lstrip('@')}".casefold()
        given = _parameter(str(name), spec, line)
        if not given.typed and key in declared:  # `(@id int)` in the SQL already typed it
            given = _Declared(declared[key].parameter, given.generator)
        declared[key] = given
    try:
        pieces = split_batch(body)
    except SplitError as exc:
        raise _Invalid(f"sql: {exc}", sql_line) from None
    if len(pieces) != 1:
        raise _Invalid(f"sql: holds {len(pieces)} statements; give each its own query", sql_line)
    used: list[_Declared] = []
    for name in re.findall(r"(?<![@\w])@\w+", _without_strings(body)):
        folded = name.casefold()
        if folded not in declared:
            raise _Invalid(f"parameter {name} is used by the statement but not declared under `parameters:`", sql_line)
        if declared[folded] not in used:
            used.append(declared[folded])
    fp = fingerprint(body)
    kind = statement_kind(body)
    query = QueryClass(
        id=query_id(fp), fingerprint=fp, text=body.strip(), kind=kind,
        parameters=tuple(d.parameter for d in used),
        generators={d.parameter.name: d.generator for d in used if d.generator is not None},
        database=_text(entry.get("database", defaults["database"])), user=_text(entry.get("user", defaults["user"])),
        application=_text(entry.get("application", defaults["application"])),
        procedure=procedure_name(body) if kind == "exec" else None,
        origin="spec", source=SourceRef(file, sql_line),
        name=_text(entry.get("name")), description=_text(entry.get("description")),
    )
    return query, _rates(entry, windows)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _without_strings(sql: str) -> str:
    return re.sub(r"N?'(?:[^']|'')*'|--[^\n]*|/\*.*?\*/|\[[^\]]*\]", " ", sql, flags=re.S)


def _rates(entry: _Map, windows: dict[str, Window]) -> dict[str, float]:
    raw = entry.get("qps")
    line = entry.lines.get("qps", entry.line)
    if raw is None:
        return {}
    if _is_number(raw):
        if raw < 0:
            raise _Invalid("qps cannot be negative", line)
        return {name: float(raw) for name in windows}
    if not isinstance(raw, dict):
        raise _Invalid("qps: give a number, or a rate per window (`qps: {nightly: 50000}`)", line)
    rates = {}
    for name, value in raw.items():
        if name not in windows:
            known = ", ".join(sorted(windows)) or "none"
            raise _Invalid(f"qps names window {name!r}, which is not defined (windows: {known})",
                           raw.lines.get(name, line))
        if not _is_number(value) or value < 0:
            raise _Invalid(f"qps for {name!r} must be a number of queries per second", raw.lines.get(name, line))
        rates[name] = float(value)
    return rates


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _parameter(name: str, spec: Any, line: int) -> _Declared:
    """`e_type: smallint`, or `e_type: {type: smallint, random_int: [1, 8]}`."""
    full = "@" + name.lstrip("@")
    if isinstance(spec, str):
        return _Declared(Parameter(full, " ".join(spec.split()).lower()), None)
    if not isinstance(spec, dict):
        raise _Invalid(f"parameter {full}: give a type (`int`) or a mapping with type and a generator", line)
    kinds = [k for k in spec if k in GENERATORS]
    unknown = [k for k in spec if k not in GENERATORS and k != "type"]
    if unknown:
        raise _Invalid(f"parameter {full}: unknown key {unknown[0]!r} (generators: {', '.join(GENERATORS)})", line)
    if len(kinds) > 1:
        raise _Invalid(f"parameter {full}: one generator at a time, not {' and '.join(kinds)}", line)
    generator = _generator(kinds[0], spec[kinds[0]], full, line) if kinds else None
    type_text = spec.get("type")
    if type_text is None and generator is None:
        raise _Invalid(f"parameter {full}: needs a type or a generator", line)
    if type_text is not None and not isinstance(type_text, str):
        raise _Invalid(f"parameter {full}: type must be T-SQL type text such as int or nvarchar(50)", line)
    if type_text:
        return _Declared(Parameter(full, " ".join(type_text.split()).lower()), generator)
    return _Declared(Parameter(full, _inferred_type(generator)), generator, typed=False)  # type: ignore[arg-type]


def _pair(value: Any, full: str, kind: str, line: int) -> tuple[float, float]:
    if isinstance(value, dict):
        value = [value.get("min"), value.get("max")]
    if not (isinstance(value, list) and len(value) == 2 and all(_is_number(v) for v in value)):
        raise _Invalid(f"parameter {full}: {kind} takes [min, max]", line)
    low, high = value
    if low > high:
        raise _Invalid(f"parameter {full}: {kind} min {low} is above max {high}", line)
    return low, high


def _generator(kind: str, value: Any, full: str, line: int) -> Generator:
    if kind in ("random_int", "random_float"):
        low, high = _pair(value, full, kind, line)
        if kind == "random_int" and not (float(low).is_integer() and float(high).is_integer()):
            raise _Invalid(f"parameter {full}: random_int bounds must be whole numbers", line)
        return Generator(kind, min=low, max=high)
    if kind == "choice":
        if not isinstance(value, list) or not value or not all(_is_scalar(v) for v in value):
            raise _Invalid(f"parameter {full}: choice takes a list of values", line)
        return Generator(kind, values=tuple(_scalar(v) for v in value))
    if kind == "sequence":
        if _is_number(value):
            value = {"start": value}
        if not isinstance(value, dict) or not all(isinstance(value.get(k, 1), int) for k in ("start", "step")):
            raise _Invalid(f"parameter {full}: sequence takes a start number or {{start, step}}", line)
        return Generator(kind, start=value.get("start", 1), step=value.get("step", 1))
    if kind == "constant":
        if not _is_scalar(value):
            raise _Invalid(f"parameter {full}: constant takes one value", line)
        return Generator(kind, value=_scalar(value))
    if kind == "random_string":
        length = value.get("length") if isinstance(value, dict) else value
        if not isinstance(length, int) or isinstance(length, bool) or length < 1:
            raise _Invalid(f"parameter {full}: random_string takes a length", line)
        return Generator(kind, length=length)
    if value not in (True, None, {}):
        raise _Invalid(f"parameter {full}: write `{kind}: true`", line)
    return Generator(kind)


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool, date))


def _scalar(value: Any) -> Scalar:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return value


def _inferred_type(gen: Generator) -> str:
    """A T-SQL type for a parameter declared only by its generator."""
    if gen.kind == "random_int":
        small = -(2**31) <= (gen.min or 0) and (gen.max or 0) < 2**31
        return "int" if small else "bigint"
    if gen.kind == "random_float":
        return "float"
    if gen.kind == "sequence":
        return "bigint"
    if gen.kind == "random_string":
        return f"nvarchar({gen.length})"
    if gen.kind == "uuid":
        return "uniqueidentifier"
    if gen.kind == "now":
        return "datetime2"
    values = gen.values if gen.kind == "choice" else (gen.value,)
    if all(isinstance(v, bool) for v in values):
        return "bit"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "int" if all(-(2**31) <= v < 2**31 for v in values) else "bigint"  # type: ignore[operator]
    if all(_is_number(v) for v in values):
        return "float"
    longest = max((len(str(v)) for v in values if v is not None), default=1)
    return f"nvarchar({max(longest, 1)})"
