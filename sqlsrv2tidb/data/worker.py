"""Copying the key ranges of a split table (ranges.py), each in a process of its own.

Every range runs in a fresh interpreter (spawned, not forked: a fork of a process whose other
threads hold the ODBC or driver locks can hang on them). A worker opens its own SQL Server session
and target connection, rebuilds the table's spec from the captured table and the target's columns
(the converters are functions, which do not cross a process boundary), deletes what an earlier
run's unfinished chunk left in its range, and loads the range with the copier's own `ChunkLoader`.

After each chunk the target has committed, the worker sends the parent what the chunk did; the
parent records it in the checkpoint, the rejects file and the progress line, so the checkpoint
never runs ahead of the target. Secrets (the SQL Server and target passwords) reach the worker
through its pipe, never its command line or environment. A worker dies with its parent
(PR_SET_PDEATHSIG), so a killed run leaves nothing loading behind a rerun's back, and it ignores
Ctrl-C: the parent, which gets it, tells the workers to stop after their current chunk.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from dataclasses import dataclass
from multiprocessing.connection import wait as wait_any
from typing import Any

from ..capture.live import Connection
from ..errors import ToolError
from ..model import Table
from ..target import Target
from .checkpoint import decode_key, encode_key
from .copy import Chunk, ChunkLoader, CopySettings, Span, TableResult, _json_key
from .ranges import totals

_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class RangeWorkers:
    """What a range worker needs to open its own connections: the resolved logins, and which driver."""

    source: Connection
    timeout: int
    target: Target
    driver: str
    split_rows: int
    """A table of at least this many rows (by the capture's count) is split; 0: never."""

    def run(self, copier: Any, result: TableResult, fk_checks: bool) -> None:
        """Copy every unfinished range of `result`'s table at once, recording each chunk as it commits."""
        spec = result.spec
        label = spec.label
        ranges = [dict(r) for r in copier.checkpoint.state(label).ranges or []]
        context = multiprocessing.get_context("spawn")
        halt = context.Event()
        running: dict[Any, tuple[int, Any]] = {}
        for index, entry in enumerate(ranges):
            if entry["status"] == "done":
                continue
            job = _Job(self, spec.table, spec.target_name, fk_checks, copier.settings, copier.method, entry)
            parent_end, child_end = context.Pipe(duplex=False)
            process = context.Process(target=_main, args=(job, child_end, halt), daemon=True,
                                      name=f"sqlsrv2tidb-range-{index + 1}")
            process.start()
            child_end.close()
            running[parent_end] = (index, process)
        failures: list[str] = []
        try:
            while running:
                if copier.stop.is_set() or failures:
                    halt.set()
                for end in wait_any(list(running), timeout=0.5):
                    index, process = running[end]
                    try:
                        message = end.recv()
                    except EOFError:
                        process.join(5)
                        running.pop(end)
                        if ranges[index]["status"] != "done":
                            failures.append(f"the worker of key range {index + 1} ended without finishing it "
                                            f"(exit code {process.exitcode})")
                        continue
                    self._record(copier, result, ranges, index, message, failures)
        finally:
            halt.set()
            for end, (_, process) in running.items():
                process.join(30)
                end.close()
        if failures:
            result.status, result.message = "failed", "; ".join(dict.fromkeys(failures))

    def _record(self, copier: Any, result: TableResult, ranges: list[dict[str, Any]], index: int,
                message: tuple[Any, ...], failures: list[str]) -> None:
        spec = result.spec
        label = spec.label
        entry = ranges[index]
        kind = message[0]
        if kind == "chunk":
            chunk, warnings = message[1], message[2]
            entry["status"] = "partial"
            entry["rows"] += chunk.rows
            entry["bytes"] += chunk.size
            entry["chunks"] += 1
            entry["rejects"] += len(chunk.rejects)
            if chunk.last_key is not None:
                entry["last_key"] = encode_key(chunk.last_key)
                entry["last_target_key"] = encode_key(chunk.last_target_key)
            summed = totals(ranges)
            result.rows, result.bytes, result.chunks, result.rejects = (summed["rows"], summed["bytes"],
                                                                         summed["chunks"], summed["rejects"])
            result.extra["warnings"] = result.extra.get("warnings", 0) + len(warnings)
            copier.checkpoint.update(label, status="partial", ranges=[dict(r) for r in ranges], **summed)
            copier.rejects.write(chunk.rejects + [{"table": label, "key_range_end": _json_key(chunk.last_key),
                                                   "reason": f"target warning: {w}"} for w in warnings])
            copier.meter.add(label, chunk.rows)
        elif kind == "retried":
            copier._retried(spec)
        elif kind == "end":
            method, finished = message[1], message[2]
            copier.method = method
            if finished:
                entry["status"] = "done"
                copier.checkpoint.update(label, ranges=[dict(r) for r in ranges])
        elif kind == "failed":
            failures.append(f"key range {index + 1}: {message[1]}")


@dataclass(frozen=True)
class _Job:
    workers: RangeWorkers
    table: Table
    target_name: str
    fk_checks: bool
    settings: CopySettings
    method: str
    entry: dict[str, Any]


def _die_with_parent() -> None:
    """Ask Linux to kill this process when its parent ends (a no-op elsewhere)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return


def _main(job: _Job, pipe: Any, halt: Any) -> None:
    """A worker: load one key range, sending ("chunk", chunk, warnings) after each commit, then ("end", ...)."""
    parent = os.getppid()
    _die_with_parent()
    if os.getppid() != parent:  # the parent ended before the request above took effect
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from .source import Source
    from .tables import build_spec
    from .targetdb import TargetDb
    from ..capture.live import open_session

    db = source = None
    try:
        workers, entry = job.workers, job.entry
        db = TargetDb(workers.target, workers.driver, fk_checks=job.fk_checks)
        spec = build_spec(job.table, job.target_name, db.columns(job.target_name))
        source = Source(open_session(workers.source, timeout=workers.timeout))
        lower_target = decode_key(entry["lower_target"])
        committed = decode_key(entry["last_target_key"]) if entry["last_target_key"] is not None else lower_target
        span = Span(after=decode_key(entry["last_key"]) if entry["last_key"] is not None else decode_key(entry["lower"]),
                    upto=decode_key(entry["upper"]), upto_target=decode_key(entry["upper_target"]),
                    committed_target=committed, lower_target=lower_target, bounded=True)
        db.delete_range(spec, committed, span.upto_target)

        def sent(chunk: Chunk, warnings: list[str]) -> None:
            pipe.send(("chunk", Chunk([], chunk.rows, chunk.size, chunk.last_key, chunk.last_target_key,
                                      chunk.rejects), warnings))

        loader = ChunkLoader(db, source, spec, job.settings, job.method, halt, committed=sent,
                             retried=lambda: pipe.send(("retried",)))
        loader.run(span)
        pipe.send(("end", loader.method, not halt.is_set()))
    except ToolError as exc:
        pipe.send(("failed", str(exc)))
    except Exception as exc:  # noqa: BLE001 - the parent records it as the range's failure
        pipe.send(("failed", f"{type(exc).__name__}: {exc}"))
    finally:
        for closing in (source, db):
            if closing is not None:
                try:
                    closing.close()
                except Exception:  # noqa: BLE001 - a connection already lost
                    pass
        pipe.close()
