"""Writes compared: what a write class costs against a read of the same table, and memory on a table of 1,000,000 rows.

Run on purpose, never from the test suite:
    python3 benchmarks/compare/bench_writes.py [--rows 1000000] [--sets 20] [--json writes-results.json]
It starts TiDB v8.5.3 and Babelfish (the SQL Server endpoint the tests use), makes the same table on both,
`dbo.big (id int PRIMARY KEY, grp int, v int, note varchar(20))` with ROWS rows (from a cross join of digits on
each server, so no copy is timed), and runs `sqlsrv2tidb compare --allow-writes` as its own process once per class,
each with SETS captured value sets (the statements of a workload script, the same shape with other literals):
- `read by key`: SELECT by the primary key: the yardstick;
- `update by key`, `delete by key`, `insert`: one row each, every set its own transaction rolled back;
- `read 1,000 rows`, `update 1,000 rows`: a WHERE on `grp` (no index: each server scans the table) that finds
  1,000 rows; the update's rows are read before and after on both sides, and it is measured against the read;
- `update 50,000 rows` (one set): more rows than a statement keeps on the client (10,000): memory stays bounded.
Time is the whole command divided by the sets it ran (the capture read and translated once per command: a
constant); memory is the process's peak RSS (VmHWM). The machine is shared (2 cores): look at the ratios, which
come from one run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "benchmarks")]

from procstat import high_water  # noqa: E402
from two_servers import two_servers  # noqa: E402

DB = "compare_writes_bench"
SCHEMA = "CREATE TABLE dbo.big (id int NOT NULL PRIMARY KEY, grp int NOT NULL, v int NOT NULL, note varchar(20) NULL);\nGO\n"


def digits(rows: int) -> int:
    count = len(str(rows - 1))
    assert 10 ** count == rows, "--rows must be a power of ten"
    return count


def fill_sql(rows: int, tsql: bool) -> str:
    """INSERT of `rows` rows from a cross join of a digits table: id, grp = id / 1000, v = id % 97, note."""
    names = "abcdefghij"[:digits(rows)]
    terms = " + ".join(f"{a}.d * {10 ** (len(names) - 1 - i)}" for i, a in enumerate(names))
    joins = " CROSS JOIN ".join(f"dig {a}" for a in names)
    note = f"CONCAT('n', ({terms}) % 1000)" if not tsql else f"'n' + CAST(({terms}) % 1000 AS varchar(10))"
    divided = f"({terms}) / 1000" if tsql else f"({terms}) DIV 1000"  # integer division on each server
    return (f"INSERT INTO {'dbo.' if tsql else ''}big (id, grp, v, note) SELECT {terms}, {divided}, "
            f"({terms}) % 97, {note} FROM {joins}")


def workload(rows: int, sets: int) -> dict[str, list[str]]:
    step = rows // (sets + 1)
    keys = [step * (n + 1) for n in range(sets)]
    return {
        "read by key": [f"SELECT id, v, note FROM dbo.big WHERE id = {k}" for k in keys],
        "update by key": [f"UPDATE dbo.big SET v = v + 1 WHERE id = {k}" for k in keys],
        "delete by key": [f"DELETE FROM dbo.big WHERE id = {k}" for k in keys],
        "insert": [f"INSERT INTO dbo.big (id, grp, v, note) VALUES ({rows + n}, -1, {n}, 'new')" for n in range(sets)],
        "read 1,000 rows": [f"SELECT id, v, note FROM dbo.big WHERE grp = {k // 1000}" for k in keys],
        "update 1,000 rows": [f"UPDATE dbo.big SET v = v + 1 WHERE grp = {k // 1000}" for k in keys],
        "update 50,000 rows": [f"UPDATE dbo.big SET v = v + 2 WHERE id < {min(50_000, rows)}"],
    }


def run(statements: list[str], folder: Path, connection: str, target: str, database: str) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "workload.sql"
    script.write_text("".join(s + "\nGO\n" for s in statements), encoding="utf-8")
    out = folder / "out"
    shutil.rmtree(out, ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "sqlsrv2tidb", "compare", str(HERE / "writes-schema.sql"),
                                str(script), "-o", str(out), "--connection", connection, "--target", target,
                                "--allow-writes", "--confirm-database", database, "--parameter-sets",
                                str(len(statements)), "--statement-timeout", "600", "-q"],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    while process.poll() is None:
        peak = max(peak, high_water(process.pid))
        time.sleep(0.05)
    seconds = time.perf_counter() - started
    err = process.stderr.read().decode() if process.stderr else ""
    assert process.returncode in (0, 1), err
    doc = json.loads((out / "compare.json").read_text())
    [q] = doc["queries"]
    ends = q.get("end_state", [])
    return {"verdict": q["verdict"], "reason": q["reason"][:200], "sets": q["sets_run"], "seconds": round(seconds, 2),
            "compare_seconds": q["seconds"], "per_set_ms": round(q["seconds"] * 1000 / max(1, q["sets_run"]), 1),
            "keys_read": sum(e.get("keys_read", 0) for e in ends), "peak_rss_mib": round(peak / 1024, 1)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--sets", type=int, default=20)
    parser.add_argument("--json", type=Path, default=HERE / "writes-results.json")
    options = parser.parse_args()
    (HERE / "writes-schema.sql").write_text(SCHEMA, encoding="utf-8")
    with two_servers("sqlsrv2tidb-bench-writes-") as (work, tidb, mssql):
        started = time.perf_counter()
        mssql.create_database(DB)
        conn = mssql.connect(DB)
        cursor = conn.cursor()
        cursor.execute(SCHEMA.replace("GO", ""))
        cursor.execute("CREATE TABLE dig (d int)")
        cursor.execute("INSERT INTO dig VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)")
        cursor.execute(fill_sql(options.rows, True))
        cursor.execute("DROP TABLE dig")
        conn.close()
        tidb.create_database(DB)
        with tidb.connect(DB) as t, t.cursor() as c:
            c.execute("CREATE TABLE big (id INT NOT NULL PRIMARY KEY, grp INT NOT NULL, v INT NOT NULL, note VARCHAR(20))")
            c.execute("CREATE TABLE dig (d INT)")
            c.execute("INSERT INTO dig VALUES (0),(1),(2),(3),(4),(5),(6),(7),(8),(9)")
            c.execute("SET tidb_dml_type = 'bulk'")
            c.execute(fill_sql(options.rows, False))
            c.execute("DROP TABLE dig")
        made = time.perf_counter() - started
        results = {}
        for name, statements in workload(options.rows, options.sets).items():
            results[name] = run(statements, work / name.replace(" ", "-").replace(",", ""),
                                mssql.connection_string(DB), tidb.url(DB), DB)
            print(name, results[name], flush=True)
        for name, entry in results.items():
            read = results["read 1,000 rows" if "1,000" in name or "50,000" in name else "read by key"]["per_set_ms"]
            entry["per_set_vs_read"] = round(entry["per_set_ms"] / read, 2) if read else None
        doc = {"rows": options.rows, "sets": options.sets, "tables_made_s": round(made, 1),
               "load_average": os.getloadavg(), "classes": results}
        options.json.write_text(json.dumps(doc, indent=1), encoding="utf-8")
        print(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
