"""Where one copy process spends its time: a profile of `data copy` of one table, and the source's
fetch sizes tried one against another.

Run on purpose, never from the test suite:

    python3 benchmarks/data/profile_copy.py [--rows 200000]

It starts MariaDB and the SQL Server endpoint, fills the benchmark's `orders` table, and prints:
- the source read alone (pyodbc `fetchmany`) at several batch sizes, rows/s;
- the conversion and encoding of those rows alone (the copy's `chunks`), rows/s;
- cProfile's top functions (own time) of the copy's path run in one thread: read, convert, encode,
  load (the copy runs the read in a thread of its own, which a profiler of one thread would miss).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1]), str(HERE.parents[1] / "tests")]

from bench_copy import FILL, SOURCE_DB, TABLE, reset, source_body  # noqa: E402
from servers import MariaDB, SqlServer  # noqa: E402

from sqlsrv2tidb import api  # noqa: E402
from sqlsrv2tidb.data.copy import chunks, encoded_body  # noqa: E402
from sqlsrv2tidb.data.load import load_data  # noqa: E402
from sqlsrv2tidb.data.source import Source  # noqa: E402
from sqlsrv2tidb.data.targetdb import TargetDb  # noqa: E402
from sqlsrv2tidb.target import parse_target  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=200_000)
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="sqlsrv2tidb-profile-data-"))
    work.chmod(0o755)
    servers = []
    try:
        (work / "mariadb").mkdir()
        mariadb = MariaDB(work / "mariadb")
        mariadb.initialize()
        mariadb.start()
        servers.append(mariadb)
        (work / "mssql").mkdir()
        mssql = SqlServer(work / "mssql")
        mssql.start()
        servers.append(mssql)
        mssql.create_database(SOURCE_DB)
        conn = mssql.connect(SOURCE_DB)
        conn.cursor().execute(TABLE)
        conn.close()
        mssql.postgres(FILL.format(rows=options.rows))
        from sqlsrv2tidb.capture.live import capture_to_folder

        capture = work / "capture"
        capture_to_folder(mssql.connection_string(SOURCE_DB), capture, password_env="", prompt=False,
                          query_store=False, days=1, timeout=15)
        _, spec = source_body(mssql, capture)
        login = api.SourceLogin(mssql.connection_string(SOURCE_DB))
        for batch in (500, 2000, 10_000, 50_000):
            source = Source(api._open_source(login))
            started = time.perf_counter()
            count = sum(len(b) for b in source.rows(spec, batch=batch))
            print(f"source read, fetchmany({batch}): {count / (time.perf_counter() - started):,.0f} rows/s", flush=True)
            source.close()
        source = Source(api._open_source(login))
        batches = [list(b) for b in source.rows(spec)]
        source.close()
        started = time.perf_counter()
        size = sum(c.size for c in chunks(spec, iter(batches), literal=False, chunk_rows=10_000, chunk_bytes=8 << 20))
        seconds = time.perf_counter() - started
        print(f"convert + encode alone: {options.rows / seconds:,.0f} rows/s ({seconds / options.rows * 1e6:.2f} us/row, "
              f"{size / 1e6:.1f} MB)", flush=True)
        reset(mariadb, "bench")
        db = TargetDb(parse_target(mariadb.url("bench")), "mysqlclient")
        source = Source(api._open_source(login))
        profile = cProfile.Profile()
        started = time.perf_counter()
        profile.enable()
        for chunk in chunks(spec, source.rows(spec), literal=False, chunk_rows=10_000, chunk_bytes=8 << 20):
            load_data(db, spec, encoded_body(chunk, spec))
        profile.disable()
        print(f"read, convert, encode and load in one thread, under the profiler: "
              f"{options.rows / (time.perf_counter() - started):,.0f} rows/s")
        source.close()
        db.close()
        text = io.StringIO()
        pstats.Stats(profile, stream=text).sort_stats("tottime").print_stats(14)
        print(text.getvalue())
    finally:
        for server in servers:
            server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
