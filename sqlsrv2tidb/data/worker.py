"""Copying the key ranges of a split table (ranges.py), each in a process of its own.

Every range runs in a fresh interpreter, `python -m sqlsrv2tidb.data.worker`, started with the
same package: not a fork (a fork of a process whose other threads hold ODBC or driver locks can
hang on them), and not multiprocessing's spawn (which re-runs the caller's main script in each
child). A worker reads its job from its stdin, opens its own SQL Server session and target
connection, rebuilds the table's spec from the captured table and the target's columns (the
converters are functions, which do not cross a process boundary), deletes what an earlier run's
unfinished chunk left in its range, and loads the range with the copier's own `ChunkLoader`.

After each chunk the target has committed, the worker writes to its stdout what the chunk did; the
parent records it in the checkpoint, the rejects file and the progress line, so the checkpoint
never runs ahead of the target. Secrets (the SQL Server and target passwords) reach the worker
through its stdin, never its command line or environment. A worker dies with its parent
(PR_SET_PDEATHSIG) and stops when its stdin closes, so a killed run leaves nothing loading behind a
rerun's back; it ignores Ctrl-C: the parent, which gets it, tells the workers to stop after their
current chunk.
"""

from __future__ import annotations

import os
import pickle
import queue
import signal
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from ..capture.live import Connection
from ..errors import ToolError
from ..model import Table
from ..target import Target
from .checkpoint import decode_key, encode_key
from .copy import Chunk, ChunkLoader, CopySettings, Span, TableResult
from .landing import Landing
from .ranges import totals

_PR_SET_PDEATHSIG = 1
STOP = b"stop\n"


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
        ranges = [dict(r) for r in copier.checkpoint.state(spec.label).ranges or []]
        messages: queue.Queue[tuple[int, Any]] = queue.Queue()
        running: dict[int, subprocess.Popen[bytes]] = {}
        failures: list[str] = []
        # The workers' temp files (each chunk's LOAD DATA pipe) go in a folder of ours: a worker killed mid-chunk
        # cannot remove its own, and this one is removed once every worker has ended.
        scratch = tempfile.TemporaryDirectory(prefix="sqlsrv2tidb-ranges-")
        try:
            for index, entry in enumerate(ranges):
                if entry["status"] != "done":
                    job = _Job(self, spec.table, spec.target_name, fk_checks, copier.settings, copier.method, entry)
                    running[index] = _start(job, index, messages, scratch.name)
            stopping = False
            while running:
                if not stopping and (copier.stop.is_set() or failures):
                    stopping = True
                    for process in running.values():
                        _tell_stop(process)
                try:
                    index, message = messages.get(timeout=0.5)
                except queue.Empty:
                    continue
                if message is None:  # the worker's stdout closed: it has ended
                    process = running.pop(index)
                    process.wait()
                    if ranges[index]["status"] != "done" and not any(f.startswith(f"key range {index + 1}:")
                                                                     for f in failures) and not stopping:
                        failures.append(f"key range {index + 1}: its worker ended without finishing it "
                                        f"(exit code {process.returncode})")
                    continue
                self._record(copier, result, ranges, index, message, failures)
        finally:
            for process in running.values():
                _tell_stop(process)
            for process in running.values():
                try:
                    process.wait(60)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            scratch.cleanup()
        if failures:
            result.status, result.message = "failed", "; ".join(dict.fromkeys(failures))

    def _record(self, copier: Any, result: TableResult, ranges: list[dict[str, Any]], index: int,
                message: tuple[Any, ...], failures: list[str]) -> None:
        spec = result.spec
        label = spec.label
        entry = ranges[index]
        kind = message[0]
        if kind == "chunk":
            chunk, landing = message[1], message[2]
            entry["status"] = "partial"
            result.method = result.method or copier.method
            entry["rows"] += landing.kept
            entry["bytes"] += chunk.size
            entry["chunks"] += 1
            entry["rejects"] += len(chunk.rejects) + landing.refused
            entry["refused"] = entry.get("refused", 0) + landing.refused
            if chunk.last_key is not None:
                entry["last_key"] = encode_key(chunk.last_key)
                entry["last_target_key"] = encode_key(chunk.last_target_key)
            summed = totals(ranges)
            result.rows, result.bytes, result.chunks, result.rejects = (summed["rows"], summed["bytes"],
                                                                         summed["chunks"], summed["rejects"])
            result.refused = summed["refused"]
            result.extra["warnings"] = result.extra.get("warnings", 0) + landing.warned
            copier.checkpoint.update(label, status="partial", ranges=[dict(r) for r in ranges], **summed)
            copier.rejects.write(chunk.rejects + landing.entries)
            copier.meter.add(label, landing.kept)
        elif kind == "retried":
            copier._retried(spec)
        elif kind == "end":
            method, finished = message[1], message[2]
            copier.method = method
            if entry["chunks"]:
                result.method = method if method == "insert" else result.method or method
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


def _start(job: _Job, index: int, messages: queue.Queue, scratch: str) -> subprocess.Popen[bytes]:
    """Start a worker on `job`, its temp files in `scratch`; a thread of ours passes on what it writes, then None
    when it ends."""
    package = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(package), os.environ.get("PYTHONPATH")) if p),
           "TMPDIR": scratch}
    process = subprocess.Popen([sys.executable, "-m", "sqlsrv2tidb.data.worker"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, env=env)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(pickle.dumps(job))
    process.stdin.flush()

    def relay(stream: BinaryIO) -> None:
        try:
            while True:
                messages.put((index, pickle.load(stream)))
        except (EOFError, OSError, pickle.UnpicklingError):
            pass
        finally:
            messages.put((index, None))

    threading.Thread(target=relay, args=(process.stdout,), daemon=True, name=f"sqlsrv2tidb-range-{index + 1}").start()
    return process


def _tell_stop(process: subprocess.Popen[bytes]) -> None:
    try:
        if process.stdin is not None and not process.stdin.closed:
            process.stdin.write(STOP)
            process.stdin.close()
    except OSError:
        pass  # it has ended already


def _die_with_parent() -> None:
    """Ask Linux to kill this process when its parent ends (a no-op elsewhere)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return


def main() -> None:
    """A worker: read the job from stdin, load its range, write ("chunk", chunk, landing) after each
    commit, then ("end", method, finished) or ("failed", message), pickled, to stdout."""
    parent = os.getppid()
    _die_with_parent()
    if os.getppid() != parent:  # the parent ended before the request above took effect
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # anything else printed goes to stderr, not into the messages
    job = pickle.load(sys.stdin.buffer)
    halt = threading.Event()

    def watch() -> None:  # "stop", or stdin closed (the parent gone): stop after the current chunk
        sys.stdin.buffer.readline()
        halt.set()

    threading.Thread(target=watch, daemon=True).start()

    def send(message: tuple[Any, ...]) -> None:
        pickle.dump(message, out)
        out.flush()

    copy_range(job, send, halt)
    out.close()


def copy_range(job: _Job, send: Any, halt: threading.Event) -> None:
    """Load one key range, reporting through `send`."""
    from ..capture.live import open_session
    from .source import Source
    from .tables import build_spec
    from .targetdb import TargetDb

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

        def sent(chunk: Chunk, landing: Landing) -> None:
            send(("chunk", Chunk([], chunk.rows, chunk.size, chunk.last_key, chunk.last_target_key, chunk.rejects),
                  landing))

        loader = ChunkLoader(db, source, spec, job.settings, job.method, halt, committed=sent,
                             retried=lambda: send(("retried",)))
        loader.run(span)
        send(("end", loader.method, not halt.is_set()))
    except ToolError as exc:
        send(("failed", str(exc)))
    except Exception as exc:  # noqa: BLE001 - the parent records it as the range's failure
        send(("failed", f"{type(exc).__name__}: {exc}"))
    finally:
        for closing in (source, db):
            if closing is not None:
                try:
                    closing.close()
                except Exception:  # noqa: BLE001 - a connection already lost
                    pass


if __name__ == "__main__":
    main()
