"""Data benchmark: the tool's copy rate next to the `mysql` client's own LOAD DATA LOCAL INFILE, in one run.

Run on purpose, never from the test suite:

    python3 benchmarks/data/bench_copy.py [--rows 1000000] [--json results.json]

It starts the servers the tests use (MariaDB, TiDB v8.5.3 as one process, Babelfish as the SQL
Server endpoint), fills a source table with ROWS rows on Babelfish, and for each target measures:

- reference: the `mysql` client (MariaDB's) loading the very bytes the tool sends, from a file,
  with LOAD DATA LOCAL INFILE: the physical ceiling of the target's bulk path on this machine;
- loader: the tool's writer alone (chunks of those bytes from memory, through the named pipe):
  what the tool adds on the way in;
- copy: `data copy --no-verify`, end to end from the SQL Server endpoint (reading through pyodbc
  and FreeTDS, converting every value, loading), as a user runs it: as one process (`--jobs 1
  --split-rows 0`), and with the table split into 2 and 4 key ranges copied by processes of their
  own (`--jobs 2`, `--jobs 4`), the three modes taking turns in each round;
- verify: `data verify` of the same table (both sides read and hashed);
- and, once, the source alone: the table streamed from the endpoint through pyodbc with nothing
  else done, which no copy from it can outrun.

Rates are rows/s and MB/s of the LOAD DATA text. Memory is the copy's peak RSS (the sum of each of
its processes' own peaks), at a tenth of the rows and at all of them, each run in its own process:
flat means the chunks, not the table, decide it. In each of --rounds rounds the reference, the
loader and the copies run one after another on a target (its speed drifts over a run: TiDB's store
grows with every load), each round's ratios are kept, and each figure is its best round; the
machine is shared, so look at ratios, and the load average is recorded before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

from procstat import high_water  # noqa: E402
from servers import MariaDB, SqlServer, TiDB  # noqa: E402

from sqlsrv2tidb import api  # noqa: E402
from sqlsrv2tidb.data.copy import chunks, encoded_body  # noqa: E402
from sqlsrv2tidb.data.load import load_data, load_data_sql  # noqa: E402
from sqlsrv2tidb.data.source import Source  # noqa: E402
from sqlsrv2tidb.data.tables import build_spec  # noqa: E402
from sqlsrv2tidb.data.targetdb import TargetDb  # noqa: E402
from sqlsrv2tidb.target import parse_target  # noqa: E402

SOURCE_DB = "data_bench"
TABLE = """CREATE TABLE dbo.orders (id bigint NOT NULL PRIMARY KEY, customer int NOT NULL, amount decimal(12,2) NOT NULL,
created datetime2(3) NOT NULL, label nvarchar(40) NULL, shipped bit NOT NULL)"""
FILL = """INSERT INTO data_bench_dbo.orders
SELECT n, n % 50000, (n % 100000) / 100.0, timestamp '2020-01-01' + n * interval '1 second',
       'order ' || n || ' ü', (n % 2)::int::sys.bit
FROM generate_series(1, {rows}) AS n"""


def best(rounds: int, measure) -> dict:
    runs = [measure() for _ in range(rounds)]
    return min(runs, key=lambda r: r["seconds"])


def rates(rows: int, size: int, seconds: float) -> dict:
    return {"rows": rows, "bytes": size, "seconds": round(seconds, 3), "rows_per_s": round(rows / seconds),
            "mb_per_s": round(size / seconds / 1e6, 2)}


def source_body(mssql: SqlServer, capture: Path) -> tuple[bytes, object]:
    """The table's LOAD DATA text, exactly as the tool sends it (every chunk's bytes, in order)."""
    cap = api.read([capture])
    table = cap.database.tables[0]
    from sqlsrv2tidb.data.tables import TargetColumn

    spec = build_spec(table, "orders", [TargetColumn("id", "BIGINT"), TargetColumn("customer", "INT"),
                                        TargetColumn("amount", "DECIMAL(12,2)"), TargetColumn("created", "DATETIME(3)"),
                                        TargetColumn("label", "VARCHAR(40)", "utf8mb4_bin"),
                                        TargetColumn("shipped", "TINYINT(1)")])
    session = api._open_source(api.SourceLogin(mssql.connection_string(SOURCE_DB)))
    source = Source(session)
    body = b"".join(encoded_body(c, spec) for c in chunks(spec, source.rows(spec), literal=False, chunk_rows=10_000,
                                                           chunk_bytes=8 << 20))
    source.close()
    return body, spec


def reset(server, database: str) -> None:
    server.create_database(database)
    with server.connect(database) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE orders (id BIGINT NOT NULL PRIMARY KEY, customer INT NOT NULL, amount DECIMAL(12,2) "
                    "NOT NULL, created DATETIME(3) NOT NULL, label VARCHAR(40) NULL, shipped TINYINT(1) NOT NULL)")


def mysql_client(server, database: str, path: Path, spec, rows: int, size: int) -> dict:
    reset(server, database)
    sql = load_data_sql(spec, str(path))
    started = time.perf_counter()
    subprocess.run([shutil.which("mariadb") or "mysql", "--local-infile=1", "-h", server.host, "-P", str(server.port),
                    "-u", server.user, database, "-e", sql], check=True)
    return rates(rows, size, time.perf_counter() - started)


def loader(server, database: str, body: bytes, spec, rows: int) -> dict:
    reset(server, database)
    db = TargetDb(parse_target(server.url(database)), "mysqlclient")
    pieces, start = [], 0
    while start < len(body):  # 10,000-row chunks, as the copy sends them
        end = start
        for _ in range(10_000):
            end = body.find(b"\n", end) + 1
            if end == 0 or end >= len(body):
                end = len(body)
                break
        pieces.append(body[start:end])
        start = end
    started = time.perf_counter()
    for piece in pieces:
        load_data(db, spec, piece)
    seconds = time.perf_counter() - started
    db.close()
    return rates(rows, len(body), seconds)


def _descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        children = []
        for task in Path(f"/proc/{current}/task").glob("*"):  # a child belongs to the thread that started it
            try:
                children += (task / "children").read_text().split()
            except OSError:
                continue
        found += [int(c) for c in children]
        todo += [int(c) for c in children]
    return found


def _machine_busy() -> float:
    """Seconds of CPU the whole machine has spent busy since boot (every core, every process)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def cli(args: list[str]) -> tuple[dict, int, dict]:
    """Run `sqlsrv2tidb data ...` as its own process; returns data.json, the peak RSS (KiB) of the
    process and every process it started (the key-range workers; the sum of each one's own peak), and
    the cores it used beside the cores the whole machine was busy on meanwhile (2.0: both full)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    busy, started = _machine_busy(), time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "sqlsrv2tidb", "data", *args, "-q"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peaks: dict[int, int] = {}
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)  # its usage counts the workers it waited for
        if pid:
            process.returncode = os.waitstatus_to_exitcode(status)
            break
        for each in [process.pid, *_descendants(process.pid)]:
            peaks[each] = max(peaks.get(each, 0), high_water(each))
        time.sleep(0.05)
    wall = time.perf_counter() - started
    cores = {"copy": round((usage.ru_utime + usage.ru_stime) / wall, 2),
             "machine": round((_machine_busy() - busy) / wall, 2)}
    if process.returncode != 0:
        raise RuntimeError(process.stderr.read().decode())
    out = Path(args[args.index("-o") + 1])
    return json.loads((out / "data.json").read_text()), sum(peaks.values()), cores


MODES = {"copy": ["--jobs", "1", "--split-rows", "0"], "copy_split_2": ["--jobs", "2"], "copy_split_4": ["--jobs", "4"]}
"""The copy as one process (the table read, converted and loaded by one Python process), and split into
2 and 4 key ranges each copied by a process of its own (`--split-rows` set to an eighth of the
table, so it splits into --jobs ranges at a tenth of the rows too)."""


def copy(mssql, server, database: str, capture: Path, work: Path, mode: str, rows: int) -> tuple[dict, int]:
    reset(server, database)
    out = Path(tempfile.mkdtemp(dir=work))
    split = [] if mode == "copy" else ["--split-rows", str(rows // 8)]
    doc, rss, cores = cli(["copy", "-o", str(out), "--connection", mssql.connection_string(SOURCE_DB), "--target",
                           server.url(database), "--confirm-database", database, "--no-verify", "--table", "orders",
                           *MODES[mode], *split, str(capture)])
    t = doc["tables"][0]
    assert t["rows"] == rows and t["ranges"] == (1 if mode == "copy" else int(MODES[mode][1])), t
    return {**rates(t["rows"], t["bytes"], t["seconds"]), "cores": cores}, rss


def verify(mssql, server, database: str, capture: Path, work: Path) -> dict:
    out = Path(tempfile.mkdtemp(dir=work))
    started = time.perf_counter()
    doc, _, _ = cli(["verify", "-o", str(out), "--connection", mssql.connection_string(SOURCE_DB), "--target",
                  server.url(database), "--table", "orders", str(capture)])
    seconds = time.perf_counter() - started
    assert doc["tables"][0]["verify"]["status"] == "equal", doc["tables"][0]["verify"]
    return {"seconds": round(seconds, 3), "rows_per_s": round(doc["tables"][0]["verify"]["source_rows"] / seconds)}


def source_read(mssql: SqlServer, spec, rows: int) -> dict:
    """Streaming the table from the SQL Server endpoint alone (pyodbc, no conversion): the copy's ceiling here."""
    source = Source(api._open_source(api.SourceLogin(mssql.connection_string(SOURCE_DB))))
    started = time.perf_counter()
    count = sum(len(batch) for batch in source.rows(spec))
    seconds = time.perf_counter() - started
    source.close()
    return {"rows": count, "seconds": round(seconds, 3), "rows_per_s": round(rows / seconds)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", type=Path, default=HERE / "results.json")
    options = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="sqlsrv2tidb-bench-data-"))
    work.chmod(0o755)  # Babelfish runs as nobody under root and must reach its data folder
    servers = {}
    try:
        mariadb = MariaDB(work / "mariadb")
        (work / "mariadb").mkdir()
        mariadb.initialize()
        mariadb.start()
        servers["mariadb"] = mariadb
        (work / "tidb").mkdir()
        tidb = TiDB(work / "tidb")
        tidb.start()
        servers["tidb"] = tidb
        (work / "mssql").mkdir()
        mssql = SqlServer(work / "mssql")
        mssql.start()
        servers["mssql"] = mssql
        results = {"rows": options.rows, "cores": os.cpu_count(), "targets": {}}
        for rows, name in ((options.rows // 10, "tenth"), (options.rows, "all")):
            mssql.create_database(SOURCE_DB)
            conn = mssql.connect(SOURCE_DB)
            conn.cursor().execute(TABLE)
            conn.close()
            mssql.postgres(FILL.format(rows=rows))
            capture = work / f"capture-{name}"
            shutil.rmtree(capture, ignore_errors=True)
            from sqlsrv2tidb.capture.live import capture_to_folder

            capture_to_folder(mssql.connection_string(SOURCE_DB), capture, password_env="", prompt=False,
                              query_store=False, days=1, timeout=15)
            if name == "tenth":
                results["peak_rss_kib_tenth"] = {t: {m: copy(mssql, servers[t], "bench", capture, work, m, rows)[1]
                                                     for m in MODES} for t in ("mariadb", "tidb")}
                continue
            results["load_average_before"] = os.getloadavg()
            body, spec = source_body(mssql, capture)
            path = work / "orders.tsv"
            path.write_bytes(body)
            del body  # the loader reads it back; this process holds no rows while the copies run
            results["source_read"] = best(options.rounds, lambda s=spec, n=rows: source_read(mssql, s, n))
            for target in ("mariadb", "tidb"):
                entry = results["targets"][target] = {}
                server = servers[target]
                # Every measure of a round runs next to the others, rounds one after another: the target's
                # own speed drifts over a run (TiDB's store grows with every load), so a ratio compares
                # neighbours; each figure is its best round.
                for _ in range(options.rounds):
                    runs = {"reference": mysql_client(server, "bench", path, spec, rows, path.stat().st_size),
                            "loader": loader(server, "bench", path.read_bytes(), spec, rows)}
                    for mode in MODES:
                        runs[mode], rss = copy(mssql, server, "bench", capture, work, mode, rows)
                        entry[f"{mode}_peak_rss_kib"] = max(entry.get(f"{mode}_peak_rss_kib", 0), rss)
                    for key, rate in runs.items():
                        if key not in entry or rate["seconds"] < entry[key]["seconds"]:
                            entry[key] = rate
                    entry.setdefault("rounds", []).append(
                        {k: round(r["rows_per_s"] / runs["reference"]["rows_per_s"], 2) for k, r in runs.items()
                         if k != "reference"})
                for key in ("loader", *MODES):
                    entry[f"{key}_vs_reference"] = round(entry[key]["rows_per_s"] / entry["reference"]["rows_per_s"], 2)
                entry["verify"] = verify(mssql, server, "bench", capture, work)
                print(target, json.dumps(entry), flush=True)
        results["load_average_after"] = os.getloadavg()
        options.json.write_text(json.dumps(results, indent=1) + "\n")
        print(json.dumps(results, indent=1))
    finally:
        for server in servers.values():
            server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
