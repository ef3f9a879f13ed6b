"""Turns the SOURCES a user names on the command line into one `Capture`.

Every command takes the same SOURCES: capture folders, `.sql` scripts, SSDT project folders,
Extended Events XML, Query Store exports (JSON/CSV), workload spec YAML and `capture.json`. Each
file is recognised by its content, not only its extension, because DBAs rename things. Folders are
walked to any depth. All schema scripts are read together, so an SSDT project whose constraint
file comes before its table file still resolves.

A source that cannot be read at all (missing, binary, undecodable) stops the command with one
line; a statement or event that cannot be understood becomes a finding and reading goes on.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..errors import InputError, UsageError
from ..model import Capture, Database, Finding, QueryClass, ServerInfo, Severity, Workload
from ..model.capture import is_cut_off, parse_capture
from ..model.workload import parse_time
from ..progress import NullProgress, Progress
from .reservoir import merge as merge_samples
from .textfile import TextFile, is_binary, open_text, read_head

# Extensions worth opening inside a folder; anything else there (.md, .sqlproj, .png) is skipped.
_FOLDER_EXTENSIONS = {".sql", ".xml", ".json", ".csv", ".yaml", ".yml", ".xel", ".tsql", ".ddl"}
_SKIP_DIRS = {"bin", "obj", ".git", "__pycache__", "node_modules"}


@dataclass
class _Collected:
    scripts: list[TextFile] = field(default_factory=list)
    workloads: list[Workload] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    sql_workloads: list[tuple[TextFile, bool]] = field(default_factory=list)
    """Plain statement files, read once the schema scripts are known (some are their `:r` data files)."""
    schema: tuple[str, Database] | None = None
    server: ServerInfo | None = None
    sources: list[str] = field(default_factory=list)

    def set_schema(self, origin: str, database: Database) -> None:
        if self.schema is not None:
            raise UsageError(
                f"two schema sources given ({self.schema[0]} and {origin}); pass one capture or one set of scripts"
            )
        self.schema = (origin, database)


def read_sources(paths: Sequence[Path | str], progress: Progress | None = None) -> Capture:
    """Read every source into one Capture (schema, merged workload, findings)."""
    progress = progress or NullProgress()
    if not paths:
        raise UsageError("no SOURCES given: name capture folders, .sql scripts, SSDT folders or workload files")
    files: list[tuple[Path, bool]] = []  # (file, found by walking a folder)
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise InputError(f"{path}: no such file or folder")
        if path.is_dir():
            found = _walk(path)
            if not found:
                raise InputError(f"{path}: folder has no SQL, capture or workload files")
            files.extend((f, True) for f in found)
        else:
            files.append((path, False))

    collected = _Collected(sources=[str(Path(p)) for p in paths])
    with progress.task("Reading sources", total=len(files)) as task:
        for path, walked in files:
            try:
                _read_file(path, collected, walked)
            except _NotASource as exc:
                if not walked:
                    raise InputError(str(exc)) from None
                collected.findings.append(
                    Finding("IN14", Severity.LOW, str(path), f"{exc}; skipped while reading the folder", file=str(path))
                )
            task.advance()

    _read_sql_workloads(collected)
    if collected.scripts:
        from .scripts import read_scripts

        with progress.task(f"Reading {len(collected.scripts)} T-SQL script(s)", total=len(collected.scripts)) as task:
            database, findings = read_scripts(collected.scripts, progress=task)
        collected.set_schema(str(collected.scripts[0].path), database)
        collected.findings.extend(findings)

    from .windows import with_detected_windows

    workload = with_detected_windows(_merge(collected.workloads))
    findings = collected.findings
    if workload.queries:  # a source beside the catalog gave the workload its server's Query Store could not
        findings = [f for f in findings if f.rule != "IN31"]
    return Capture(
        database=collected.schema[1] if collected.schema else Database(),
        workload=workload,
        findings=tuple(findings),
        sources=tuple(collected.sources),
        server=collected.server,
    )


def _walk(folder: Path) -> list[Path]:
    found = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(names):
            path = Path(root) / name
            if path.suffix.lower() in _FOLDER_EXTENSIONS:
                found.append(path)
    return found


def _read_file(path: Path, collected: _Collected, walked: bool = False) -> None:
    head = read_head(path)  # a script of any size is read a block at a time, never whole
    from . import xevents

    if xevents.is_xel(head):
        collected.workloads.append(_take(collected, xevents.read_xel(path, head)))
        return
    if is_binary(head):
        raise _NotASource(f"{path}: binary file, not SQL text or a capture file")
    text_file = open_text(path, head)
    collected.findings.extend(text_file.findings)  # a cut-off character, invalid bytes, an assumed code page
    kind = detect_kind(text_file)
    if kind == "capture":
        capture = parse_capture(text_file.text, path)
        collected.set_schema(str(path), capture.database)
        collected.workloads.append(capture.workload)
        collected.findings.extend(capture.findings)
        collected.server = capture.server or collected.server
    elif kind == "catalog":
        from .catalog import parse_catalog_text, read_catalog

        capture = read_catalog(parse_catalog_text(text_file), path)
        collected.set_schema(str(path), capture.database)
        collected.workloads.append(capture.workload)
        collected.findings.extend(capture.findings)
        collected.server = capture.server or collected.server
    elif kind == "xevents":
        collected.workloads.append(_take(collected, xevents.read_xevents(text_file)))
    elif kind == "query_store":
        from .querystore import read_query_store_export

        collected.workloads.append(_take(collected, read_query_store_export(text_file)))
    elif kind == "spec":
        from .spec import has_spec_marker, read_spec

        if walked and not has_spec_marker(text_file):  # a folder's other YAML (CI, compose files)
            raise _NotASource(f"{path}: YAML without the line `format: sqlsrv2tidb.workload/1`, not a workload spec")

        collected.workloads.append(_take(collected, read_spec(text_file)))
    elif kind == "sql_workload":
        collected.sql_workloads.append((text_file, walked))
    elif kind == "script":
        collected.scripts.append(text_file)
    else:
        raise _NotASource(f"{path}: not a kind of file sqlsrv2tidb reads ({kind})")


class _NotASource(Exception):
    """A file that is no kind of source: an error when named, a skipped file when met in a folder."""


def _read_sql_workloads(collected: _Collected) -> None:
    """Read plain statement files as workload, except the data files schema scripts pull in with `:r`.

    An SSDT post-deployment script includes its seed-data files (INSERTs only, so they look like
    workload); the script reader counts their rows per table, and replaying them would be wrong.
    Statement files met in the same folder as those data files but not included (parts the script
    comments out) are deployment data too: skipped with a finding, never replayed.
    """
    if not collected.sql_workloads:
        return
    from .scripts import included_files
    from .sqlfile import read_sql_workload

    included = included_files(collected.scripts) if collected.scripts else set()
    data_folders = {p.parent for p in included}
    for text_file, walked in collected.sql_workloads:
        path = Path(text_file.path).resolve()
        if path in included:
            continue
        if walked and path.parent in data_folders:
            collected.findings.append(Finding(
                "IN14", Severity.LOW, str(text_file.path),
                f"{text_file.path}: statements beside the data files a deployment script includes, but not "
                "included by it; read as deployment data, not workload", file=str(text_file.path)))
            continue
        collected.workloads.append(_take(collected, read_sql_workload(text_file)))


def _take(collected: _Collected, result: tuple[Workload, list[Finding]]) -> Workload:
    workload, findings = result
    collected.findings.extend(findings)
    return workload


def detect_kind(text_file: TextFile) -> str:
    """Classify a decoded file by content: capture, catalog, xevents, query_store, spec, sql_workload, script.

    Only JSON is read whole to be recognised; a script is looked at a block at a time.
    """
    head = text_file.head().lstrip("\ufeff \t\n")[:4096]
    from .catalog import looks_like_catalog

    if looks_like_catalog(head):  # also a capture-script output saved with headers or messages around it
        return "catalog"
    if head.startswith("{") or head.startswith("["):
        text = text_file.text.lstrip("\ufeff \t\n")
        fmt, cut_at = _json_format(text)
        if (fmt is not None and fmt.startswith("sqlsrv2tidb.capture/")) or (cut_at and _CAPTURE_START.match(head)):
            return "capture"  # a cut-off capture too: parse_capture says where it ends
        if fmt is not None and fmt.startswith("sqlsrv2tidb.catalog/"):
            return "catalog"
        if fmt is not None and fmt.startswith("sqlsrv2tidb."):
            return f"an output file of this tool ({fmt}), not a source"
        from .querystore import looks_like_query_store_export

        if looks_like_query_store_export(text_file):
            return "query_store"
        if cut_at:
            return f"JSON cut off at line {cut_at}: the file ends before the document does"
        return "JSON that is neither a capture nor a Query Store export"
    if head.startswith("<"):
        from .xevents import looks_like_xevents

        if looks_like_xevents(head):
            return "xevents"
        if "TracePersistence" in head or "<TraceData" in head:
            return "SQL Profiler trace XML; capture with Extended Events instead (see README)"
        return "XML that is not Extended Events output"
    from .querystore import looks_like_query_store_export
    from .spec import looks_like_spec

    if looks_like_spec(text_file):
        return "spec"
    if looks_like_query_store_export(text_file):
        return "query_store"
    from .scripts import looks_like_schema

    if looks_like_schema(text_file.chunks()):
        return "script"
    return "sql_workload"


# `save_capture` writes the database first and `format` last, so a cut-off capture starts like this.
_CAPTURE_START = re.compile(r'\{\s*"database"\s*:\s*\{')


def _json_format(text: str) -> tuple[str | None, int | None]:
    """(the document's `format` field, None), or (None, the last line) when the JSON is cut off."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, (text.rstrip().count("\n") + 1 if is_cut_off(text, exc) else None)
    if isinstance(data, dict) and isinstance(data.get("format"), str):
        return data["format"], None
    return None, None


def _merge(workloads: list[Workload]) -> Workload:
    """Combine workloads from several sources; a query class seen twice keeps one entry."""
    workloads = [w for w in workloads if not w.is_empty or w.windows or w.notes]
    if not workloads:
        return Workload()
    if len(workloads) == 1:
        return workloads[0]
    queries: dict[str, QueryClass] = {}
    for w in workloads:
        for q in w.queries:
            kept = queries.get(q.id)
            if kept is None:
                queries[q.id] = q
            elif kept.parameters == q.parameters:  # another spelling's values would not line up with the kept ones
                samples, seen = merge_samples(q.id, kept.samples, kept.samples_from, q.samples, q.samples_from)
                queries[q.id] = replace(kept, samples=samples, samples_from=seen, call=kept.call or q.call)
    return Workload(
        queries=tuple(queries.values()),
        intervals=tuple(i for w in workloads for i in w.intervals),
        windows=tuple(win for w in workloads for win in w.windows),
        events=tuple(sorted((e for w in workloads for e in w.events), key=lambda e: parse_time(e.timestamp))),
        notes=tuple(n for w in workloads for n in w.notes),
    )
