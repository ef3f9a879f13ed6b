"""Compare benchmark: one class answering 1,000,000 rows compared in bounded memory, and how long it takes.

Run on purpose, never from the test suite:
    python3 benchmarks/compare/bench_compare.py [--json results.json]
It starts TiDB v8.5.3 and Babelfish (the SQL Server endpoint the tests use), creates a ten-row table
`digits (d, w)` on both (w = d, except that on TiDB the row d = 7 has w = 8), and runs
`sqlsrv2tidb compare` as its own process, once per class, on the cross join of six copies of it:
- `multiset`: 10^6 rows, no ORDER BY: digest buckets, equal;
- `ordered`: the same ORDER BY n: both streams walked in step, equal;
- `differs`: the multiset with w in place of d in the last digit: 100,000 rows differ, so every
  bucket differs and both statements are read a second time for the rows shown (the worst case);
- each at 10^5 rows too (five copies), to show that memory does not follow the rows, and the
  multiset at 100 rows (two copies): the process's size with (almost) no answer to hold.
Memory is the compare process's peak RSS (VmHWM); time is the whole command, reading and translating
the two-line capture included. The machine is shared (2 cores): look at ratios.
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

DB = "compare_bench"
SCHEMA = "CREATE TABLE dbo.digits (d int NOT NULL PRIMARY KEY, w int NOT NULL);\nGO\n"
ALIASES = "abcefg"


def query(copies: int, last: str = "d", ordered: bool = False) -> str:
    names = ALIASES[:copies]
    terms = [f"{a}.d * {10 ** (copies - 1 - i)}" for i, a in enumerate(names[:-1])] + [f"{names[-1]}.{last}"]
    joins = " CROSS JOIN ".join(f"dbo.digits {a}" for a in names)
    return (f"SELECT {' + '.join(terms)} AS n, CAST({names[0]}.d AS decimal(10,2)) / 4 AS q, "
            f"CAST({names[1]}.d AS varchar(10)) + 'x' AS label FROM {joins}" + (" ORDER BY n" if ordered else ""))


def run(sources: list[Path], out: Path, connection: str, target: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    shutil.rmtree(out, ignore_errors=True)
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, "-m", "sqlsrv2tidb", "compare", *map(str, sources), "-o", str(out),
                                "--connection", connection, "--target", target, "--statement-timeout", "600", "-q"],
                               env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    while process.poll() is None:
        peak = max(peak, high_water(process.pid))
        time.sleep(0.05)
    seconds = time.perf_counter() - started
    err = process.stderr.read().decode() if process.stderr else ""
    assert process.returncode in (0, 1), err
    doc = json.loads((out / "compare.json").read_text())
    q = doc["queries"][0]
    return {"verdict": q["verdict"], "method": q["method"], "rows": q["rows"], "differing_rows": q.get("differing_rows"),
            "seconds": round(seconds, 1), "compare_seconds": q["seconds"], "peak_rss_mib": round(peak / 1024, 1)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--json", type=Path, default=HERE / "results.json")
    options = parser.parse_args()
    with two_servers("sqlsrv2tidb-bench-compare-") as (work, tidb, mssql):
        mssql.create_database(DB)
        conn = mssql.connect(DB)
        conn.cursor().execute(SCHEMA.replace("GO", "") + "INSERT INTO dbo.digits VALUES "
                              + ", ".join(f"({i}, {i})" for i in range(10)))
        conn.commit()
        conn.close()
        tidb.create_database(DB)
        with tidb.connect(DB) as c, c.cursor() as cur:
            cur.execute("CREATE TABLE digits (d int NOT NULL PRIMARY KEY, w int NOT NULL)")
            cur.execute("INSERT INTO digits VALUES " + ", ".join(f"({i}, {8 if i == 7 else i})" for i in range(10)))
        schema = work / "schema.sql"
        schema.write_text(SCHEMA)
        results: dict = {"cores": os.cpu_count(), "runs": {}}
        for copies in (2, 5, 6):
            kinds = (("multiset", query(copies)), ("ordered", query(copies, ordered=True)),
                     ("differs", query(copies, last="w")))
            for name, sql in kinds[:1] if copies == 2 else kinds:
                workload = work / f"{name}-{copies}.sql"
                workload.write_text(sql + "\nGO\n")
                entry = run([schema, workload], work / f"out-{name}-{copies}", mssql.connection_string(DB),
                            tidb.url(DB))
                results["runs"][f"{name} {10 ** copies:,} rows"] = entry
                print(name, 10 ** copies, json.dumps(entry), flush=True)
        options.json.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
