"""Replay benchmark: the engine against sysbench and a bare driver loop, on one MariaDB, in one run.

Run on purpose, never from the test suite:

    python3 benchmarks/replay/bench.py [--seconds 8] [--rounds 3] [--json results.json]

It starts a private MariaDB (the same class the tests use), creates seed 000's `keywords` table,
and for the single-row INSERT and a point SELECT, at 1 and 16 connections, measures:
- sysbench 1.0 with `keywords.lua`, flat out (closed loop, as fast as it can);
- a bare driver loop (threads calling `cursor.execute` as fast as they can) per installed driver;
- the replay engine per driver, asked for far more than it can send (its own ceiling, the
  closed-loop equivalent);
- then every engine and sysbench (`--rate`) paced at one common rate, 70 % of the slowest engine's
  ceiling: below saturation, so the schedule's accuracy shows, and costs compare at the same rate.
Client CPU is user + system time of the client processes (getrusage of the benchmark and its
reaped children; the server runs on as a child and is not counted until it stops). Ratios divide
by sysbench's CPU per statement in the same round and mode (flat out by flat out, paced by paced).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "replay")]

from replay_helpers import INSERT_SQL, KEYWORDS_DDL, SELECT_SQL, keywords_case  # noqa: E402
from servers import MariaDB  # noqa: E402

from sqlsrv2tidb.replay import drivers  # noqa: E402
from sqlsrv2tidb.replay.config import ReplayConfig  # noqa: E402
from sqlsrv2tidb.replay.runner import run_replay  # noqa: E402
from sqlsrv2tidb.target import parse_target  # noqa: E402

CORES = os.cpu_count() or 1


def client_cpu() -> float:
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def sysbench(server: MariaDB, db: str, statement: str, threads: int, seconds: float, rate: float = 0, *,
             script: str = "keywords.lua", ps_mode: str = "disable") -> dict:
    """sysbench flat out (`rate` 0), or paced at `rate` statements per second (its `--rate`); `keywords_ps.lua`
    with `ps_mode` auto sends server-side prepared statements (protocols.py)."""
    cpu0 = client_cpu()
    out = subprocess.run(
        ["sysbench", str(HERE / script), f"--statement={statement}", f"--threads={threads}",
         f"--time={int(seconds)}", "--mysql-host=127.0.0.1", f"--mysql-port={server.port}", "--mysql-user=root",
         f"--mysql-db={db}", f"--db-ps-mode={ps_mode}", "--rand-type=uniform", f"--rate={int(rate)}", "run"],
        check=True, capture_output=True, text=True, cwd=HERE,
    ).stdout
    cpu = client_cpu() - cpu0
    queries = int(re.search(r"queries:\s+(\d+)", out)[1])
    row = {"statements": queries, "qps": queries / seconds, "cpu_s": cpu}
    return {**row, "target_qps": int(rate)} if rate else row


Opener = Callable[[object], Callable[[tuple], object]]
"""Given a target, open one connection and return its `send(values)`."""


def cursor_opener(driver: str, statement: str) -> Opener:
    """The driver as an application uses it: `cursor.execute`, and `fetchall` for the SELECT."""
    from sqlsrv2tidb.replay.sqltext import to_format_style

    sql = to_format_style(INSERT_SQL if statement == "insert" else SELECT_SQL)[0]

    def open_(target: object) -> Callable[[tuple], object]:
        cursor = drivers.connect(target, driver).cursor  # type: ignore[arg-type]
        execute, fetchall = cursor.execute, cursor.fetchall
        return (lambda v: execute(sql, v)) if statement == "insert" else (lambda v: (execute(sql, v), fetchall()))

    return open_


def _bare_worker(url: str, opener: Opener, statement: str, threads: int, seconds: float,
                 out: multiprocessing.Queue) -> None:
    import random

    target = parse_target(url)
    senders = [opener(target) for _ in range(threads)]
    counts = [0] * threads
    deadline = time.perf_counter() + seconds

    def loop(i: int) -> None:
        rng, send, n = random.Random(), senders[i], 0  # fresh random keys on every send
        while time.perf_counter() < deadline:
            if statement == "insert":
                send((rng.randint(1, 8), rng.randint(1, 2_100_000_000), rng.randint(1, 3), rng.randint(1, 2_100_000_000)))
            else:
                send((rng.randint(1, 8), rng.randint(1, 2_100_000_000)))
            n += 1
        counts[i] = n

    ts = [threading.Thread(target=loop, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    out.put(sum(counts))


def bare(server: MariaDB, db: str, opener: Opener, statement: str, conns: int, seconds: float) -> dict:
    """Threads sending as fast as they can, one per connection, over one process per core (the engine's layout)."""
    procs_n = min(conns, CORES)
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    cpu0 = client_cpu()
    procs = [ctx.Process(target=_bare_worker, args=(server.url(db), opener, statement, len(range(w, conns, procs_n)),
                                                     seconds, q)) for w in range(procs_n)]
    for p in procs:
        p.start()
    total = sum(q.get() for _ in procs)
    for p in procs:
        p.join()
    return {"statements": total, "qps": total / seconds, "cpu_s": client_cpu() - cpu0}


def engine(server: MariaDB, db: str, driver: str, statement: str, conns: int, seconds: float, qps: float,
           protocol: str = "auto") -> dict:
    capture, translation = keywords_case(insert_rate=1 if statement == "insert" else 0,
                                         select_rate=1 if statement == "select" else 0, select_generators=True)
    config = ReplayConfig(qps=qps, duration=seconds, warmup=0, workers=min(conns, CORES), connections=conns,
                          driver=driver, allow_writes=statement == "insert", confirm_database=db,
                          seed=time.time_ns(), protocol=protocol)  # a new seed per run: the same seed would insert the same keys
    with tempfile.TemporaryDirectory() as out:
        cpu0 = client_cpu()
        doc = run_replay(capture, translation, parse_target(server.url(db)), config, out=Path(out)).result
        cpu = client_cpu() - cpu0
    return {"statements": doc["statements"], "qps": doc["achieved_qps"], "cpu_s": cpu, "target_qps": qps,
            "errors": doc["errors"], "p99_ms": doc["latency_ms"]["p99"], "service_p99_ms": doc["service_ms"]["p99"],
            "send_cpu_us_per_statement": doc["client_cpu"]["us_per_statement"]}


def per_statement_us(row: dict) -> float:
    return 1e6 * row["cpu_s"] / max(1, row["statements"])


def cells(rounds: int, connections: str) -> Iterator[dict]:
    """Each cell of the matrix in run order: {round, statement, connections}."""
    for round_ in range(1, rounds + 1):
        for statement in ("insert", "select"):
            for conns in (int(c) for c in connections.split(",")):
                yield {"round": round_, "statement": statement, "connections": conns}


def recorder(rows: list[dict]) -> Callable[..., dict]:
    """`add(cell, result, **labels)`: one measured row, kept in `rows` and printed as it comes."""
    def add(cell: dict, result: dict, **labels: object) -> dict:
        row = {**cell, **labels, **result, "cpu_us_per_statement": per_statement_us(result)}
        rows.append(row)
        print(json.dumps(row), flush=True)
        return row

    return add


def keywords_database(server: object) -> str:
    db = server.create_database("bench")  # type: ignore[attr-defined]
    with server.connect(db) as conn, conn.cursor() as cur:  # type: ignore[attr-defined]
        cur.execute(KEYWORDS_DDL)
    return db


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--rounds", type=int, default=1, help="repeat the whole matrix; the summary takes medians")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--connections", default="1,16")
    args = parser.parse_args()
    names = [d for d in ("pymysql", "mysqlclient", "asyncmy") if drivers.installed(d)]
    base = Path(tempfile.mkdtemp(prefix="sqlsrv2tidb-bench-"))
    server = MariaDB(base)
    server.initialize()
    server.start()
    rows: list[dict] = []
    add = recorder(rows)
    try:
        db = keywords_database(server)
        for cell in cells(args.rounds, args.connections):
            statement, conns = cell["statement"], cell["connections"]
            ref = add(cell, sysbench(server, db, statement, conns, args.seconds), tool="sysbench",
                      driver="libmariadb", mode="max")
            for d in names:
                if d != "asyncmy":
                    add(cell, bare(server, db, cursor_opener(d, statement), statement, conns, args.seconds),
                        tool="bare-loop", driver=d, mode="max")
            ceilings = [add(cell, engine(server, db, d, statement, conns, args.seconds, ref["qps"] * 4),
                            tool="engine", driver=d, mode="max")["qps"] for d in names]
            # One paced rate for every tool of the cell: 70 % of the slowest engine's ceiling, so
            # each is below saturation and per-statement costs compare at the same rate.
            paced = round(min(ceilings) * 0.7)
            for d in names:
                add(cell, engine(server, db, d, statement, conns, args.seconds, paced), tool="engine", driver=d,
                    mode="paced")
            add(cell, sysbench(server, db, statement, conns, args.seconds, paced), tool="sysbench",
                driver="libmariadb", mode="paced")
    finally:
        server.stop()
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    print_table(rows)
    print_summary(rows)


def _reference(rows: list[dict], r: dict) -> dict:
    """The sysbench row of the same round, statement, connections and mode (paced against paced)."""
    return next(x for x in rows if x["tool"] == "sysbench" and x["round"] == r["round"] and x["mode"] == r["mode"]
                and x["statement"] == r["statement"] and x["connections"] == r["connections"])


def print_table(rows: list[dict]) -> None:
    print("\n| round | statement | conns | tool | driver | mode | target q/s | achieved q/s | achieved/target | "
          "client CPU µs/stmt | × sysbench CPU/stmt |")
    print("|---:|---|---:|---|---|---|---:|---:|---:|---:|---:|")
    for r in rows:
        ref = _reference(rows, r)
        target = r.get("target_qps")
        ratio = f"{r['qps'] / target:.4f}" if target and r["mode"] != "max" else ""
        print(f"| {r['round']} | {r['statement']} | {r['connections']} | {r['tool']} | {r['driver']} | {r['mode']} | "
              f"{target or '':} | {r['qps']:.0f} | {ratio} | {r['cpu_us_per_statement']:.1f} | "
              f"{r['cpu_us_per_statement'] / ref['cpu_us_per_statement']:.2f} |")


def print_summary(rows: list[dict]) -> None:
    """Median over rounds of each cell's ratio to sysbench (same round, same mode) and of its accuracy."""
    from statistics import median

    cells: dict[tuple, list[dict]] = {}
    for r in rows:
        if r["tool"] != "sysbench":
            cells.setdefault((r["statement"], r["connections"], r["tool"], r["driver"], r["mode"]), []).append(r)
    print("\n| statement | conns | tool | driver | mode | rounds | median × sysbench CPU/stmt | "
          "median achieved/target |")
    print("|---|---:|---|---|---|---:|---:|---:|")
    for (statement, conns, tool, driver, mode), group in cells.items():
        ratio = median(r["cpu_us_per_statement"] / _reference(rows, r)["cpu_us_per_statement"] for r in group)
        accuracy = (f"{median(r['qps'] / r['target_qps'] for r in group):.4f}" if mode == "paced" else "")
        print(f"| {statement} | {conns} | {tool} | {driver} | {mode} | {len(group)} | {ratio:.2f} | {accuracy} |")


if __name__ == "__main__":
    main()
