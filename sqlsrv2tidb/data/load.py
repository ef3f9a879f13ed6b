"""Writing a chunk of rows into the target: LOAD DATA LOCAL INFILE streamed from memory, else INSERT.

LOAD DATA is the target's own bulk path (one statement, no per-row parsing of SQL). The drivers
only know how to send a file for it, so the chunk is handed to them through a named pipe: the
driver opens the path the statement names and reads the chunk's bytes as they are written into
the pipe by a feeder thread. Nothing touches the disk, and the driver's own LOCAL INFILE code
(PyMySQL or libmariadb under mysqlclient) is used unchanged. The pipe lives in a private
temporary folder (mode 0700) and is removed after the statement.

Where the server refuses LOCAL INFILE (`local_infile=OFF`, MySQL's default since 8.0), the same
rows go in as multi-row INSERT IGNOREs of at most `INSERT_BYTES` each. Which of the two a run used is
said in data.json. LOAD DATA LOCAL is always IGNORE on the server (it cannot stop the client's
stream): a row the server refuses is skipped and a value it cannot hold is changed, with a warning,
where a plain multi-row INSERT would fail whole on the first such row. IGNORE gives the INSERT the
same behaviour, so both ways load what the server takes and `landing.py` reads what it did not.
"""

from __future__ import annotations

import errno
import os
import tempfile
import threading
import time
from collections.abc import Sequence

from .encode import literal_writer, text_writer
from .tables import TableSpec, backtick
from .targetdb import LOCAL_INFILE_REFUSED, Statement, TargetDb, Warnings

INSERT_BYTES = 1 << 20
"""Largest INSERT statement the fallback sends (well under max_allowed_packet's 4-64 MiB defaults)."""


class LocalInfileRefused(Exception):
    """The server (or client) will not take LOAD DATA LOCAL INFILE; use INSERT."""


class _Feeder(threading.Thread):
    """Writes one body into a named pipe once the driver opens it; gives up when told the statement ended."""

    def __init__(self, path: str, body: bytes) -> None:
        super().__init__(daemon=True, name="sqlsrv2tidb-infile")
        self.path, self.body = path, body
        self.done = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        fd = None
        while fd is None:
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError as exc:
                if exc.errno != errno.ENXIO:  # ENXIO: nobody has opened it for reading yet
                    self.error = exc
                    return
                if self.done.wait(0.0005):
                    return
        try:
            os.set_blocking(fd, True)
            view = memoryview(self.body)
            while view:
                view = view[os.write(fd, view):]
        except BrokenPipeError:
            pass  # the driver stopped reading: the statement's own error says why
        except OSError as exc:
            self.error = exc
        finally:
            os.close(fd)


def load_data_sql(spec: TableSpec, path: str) -> str:
    """The LOAD DATA statement for a chunk written by `encode.text_writer`: hex for bytes, UNHEX back."""
    fields, sets = [], []
    for i, c in enumerate(spec.columns):
        if c.target.is_binary:
            fields.append(f"@v{i}")
            sets.append(f"{backtick(c.name)} = UNHEX(@v{i})")
        else:
            fields.append(backtick(c.name))
    quoted = path.replace("\\", "\\\\").replace("'", "\\'")
    sql = (f"LOAD DATA LOCAL INFILE '{quoted}' INTO TABLE {backtick(spec.target_name)} CHARACTER SET utf8mb4 "
           "FIELDS TERMINATED BY '\\t' ESCAPED BY '\\\\' LINES TERMINATED BY '\\n' "
           f"({', '.join(fields)})")
    return sql + (" SET " + ", ".join(sets) if sets else "")


def load_data(db: TargetDb, spec: TableSpec, body: bytes) -> int:
    """Load one chunk's LOAD DATA text; returns the rows the server took."""
    with tempfile.TemporaryDirectory(prefix="sqlsrv2tidb-load-") as folder:
        path = os.path.join(folder, "rows.tsv")
        os.mkfifo(path, 0o600)
        feeder = _Feeder(path, body)
        feeder.start()
        try:
            try:
                return db.conn.cursor.execute(load_data_sql(spec, path))
            except db.errors as exc:
                from ..replay import drivers

                code, message, _ = drivers.classify(exc)
                if code in LOCAL_INFILE_REFUSED:
                    raise LocalInfileRefused(message) from None
                raise db.failure(exc, "LOAD DATA") from None
        finally:
            feeder.done.set()
            feeder.join(5)


def writers(spec: TableSpec, literal: bool = False) -> list:
    make = literal_writer if literal else text_writer
    return [make(c.target) for c in spec.columns]


def insert_rows(db: TargetDb, spec: TableSpec, rows: Sequence[Sequence[str]]) -> list[Statement]:
    """Load rows already written as SQL literals (`writers(spec, literal=True)`) by INSERT IGNORE, a megabyte at
    a time; each statement's rows taken and warnings are read at once, on its own connection."""
    head = f"INSERT IGNORE INTO {backtick(spec.target_name)} ({', '.join(backtick(c.name) for c in spec.columns)}) VALUES "
    sent: list[Statement] = []
    batch: list[str] = []
    size, first = len(head), 0

    def send() -> None:
        kept = db.execute(head + ", ".join(batch), again=False)
        sent.append(Statement(first, len(batch), kept, db.warnings()))

    for i, row in enumerate(rows):
        values = "(" + ", ".join(row) + ")"
        if batch and size + len(values) > INSERT_BYTES:
            send()
            batch, size, first = [], len(head), i
        batch.append(values)
        size += len(values) + 2
    if batch:
        send()
    return sent


def load_rows(db: TargetDb, spec: TableSpec, body: bytes, rows: int) -> list[Statement]:
    """Load one chunk's LOAD DATA text (`rows` lines) as one statement, with what the server took of it."""
    kept = load_data(db, spec, body)
    return [Statement(0, rows, kept, db.warnings() if rows else Warnings(0, ()))]


def local_infile_works(db: TargetDb, spec: TableSpec) -> bool:
    """Whether this server takes LOAD DATA LOCAL: an empty body is loaded to find out."""
    try:
        load_data(db, spec, b"")
    except LocalInfileRefused:
        return False
    return True


def wait_briefly() -> None:
    """A pause before a retry, so a restarting server has a moment."""
    time.sleep(0.5)
