"""Prepared statements against text: client CPU per statement of each, beside sysbench's own two modes, in one run.

Run on purpose, never from the test suite:

    python3 benchmarks/replay/protocols.py [--server mariadb|tidb] [--seconds 6] [--rounds 3] [--json FILE]

It starts a private MariaDB 10.11 (or, with `--server tidb`, the shared TiDB v8.5.3 build), creates
seed 000's `keywords` table, and for its single-row INSERT and point SELECT, at 1 and 16 connections,
measures in each round:
- sysbench 1.0 with `keywords_ps.lua` (the statements prepared once per connection, values bound per
  execution, as sysbench's own OLTP scripts do) in `--db-ps-mode=auto` (server-side prepared
  statements) and `--db-ps-mode=disable` (sysbench writes the values into text);
- a bare mysqlclient loop per protocol: threads sending as fast as they can through replay's own
  senders (`drivers._mysqlclient_sender` for text, `binary.PreparedStatements` for prepared);
- the replay engine (`run_replay`, mysqlclient) with `--protocol text` and `--protocol prepared`,
  flat out (asked for 4× sysbench's rate) and then paced, with both sysbench modes (`--rate`), at
  70 % of the slower engine's ceiling.
Client CPU is counted as in bench.py (getrusage of this process and its reaped children). Ratios
divide by sysbench's CPU per statement in the same round, mode (flat out or paced) and protocol.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import tempfile
import threading
import time
from pathlib import Path
from statistics import median

from bench import CORES, client_cpu, engine, per_statement_us, sysbench  # bench puts tests/ on the path
from replay_helpers import INSERT_SQL, KEYWORDS_DDL, SELECT_SQL
from servers import MariaDB, TiDB

from sqlsrv2tidb.replay import drivers
from sqlsrv2tidb.replay.sqltext import to_format_style
from sqlsrv2tidb.target import parse_target

PS_MODES = {"prepared": "auto", "text": "disable"}


def _bare_worker(url: str, protocol: str, statement: str, threads: int, seconds: float, out) -> None:
    target = parse_target(url)
    conns = [drivers.connect(target, "mysqlclient", prepared=protocol == "prepared") for _ in range(threads)]
    sql = INSERT_SQL if statement == "insert" else SELECT_SQL
    text = to_format_style(sql)[0]
    counts = [0] * threads
    deadline = time.perf_counter() + seconds

    def loop(i: int) -> None:
        rng, n = random.Random(), 0
        run, what = (conns[i].run_prepared, sql) if protocol == "prepared" else (conns[i].run, text)
        while time.perf_counter() < deadline:
            if statement == "insert":
                run(what, (rng.randint(1, 8), rng.randint(1, 2_100_000_000), rng.randint(1, 3),
                           rng.randint(1, 2_100_000_000)))
            else:
                run(what, (rng.randint(1, 8), rng.randint(1, 2_100_000_000)))
            n += 1
        counts[i] = n

    threads_ = [threading.Thread(target=loop, args=(i,)) for i in range(threads)]
    for t in threads_:
        t.start()
    for t in threads_:
        t.join()
    for conn in conns:
        conn.close()
    out.put(sum(counts))


def bare(server, db: str, protocol: str, statement: str, conns: int, seconds: float) -> dict:
    procs_n = min(conns, CORES)
    ctx = multiprocessing.get_context("fork")
    q = ctx.Queue()
    cpu0 = client_cpu()
    procs = [ctx.Process(target=_bare_worker, args=(server.url(db), protocol, statement,
                                                     len(range(w, conns, procs_n)), seconds, q))
             for w in range(procs_n)]
    for p in procs:
        p.start()
    total = sum(q.get() for _ in procs)
    for p in procs:
        p.join()
    return {"statements": total, "qps": total / seconds, "cpu_s": client_cpu() - cpu0}


def start(kind: str, base: Path):
    if kind == "tidb":
        server = TiDB(base)
        server.start()
        return server
    server = MariaDB(base)
    server.initialize()
    server.start()
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", choices=("mariadb", "tidb"), default="mariadb")
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--connections", default="1,16")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    server = start(args.server, Path(tempfile.mkdtemp(prefix="sqlsrv2tidb-protocols-")))
    rows: list[dict] = []
    try:
        db = server.create_database("bench")
        with server.connect(db) as conn, conn.cursor() as cur:
            cur.execute(KEYWORDS_DDL)
        for round_ in range(1, args.rounds + 1):
            for statement in ("insert", "select"):
                for conns in (int(c) for c in args.connections.split(",")):
                    def add(tool: str, protocol: str, result: dict, mode: str = "max", statement: str = statement,
                            conns: int = conns, round_: int = round_) -> dict:
                        row = {"round": round_, "server": args.server, "statement": statement, "connections": conns,
                               "tool": tool, "protocol": protocol, "mode": mode, **result,
                               "cpu_us_per_statement": per_statement_us(result)}
                        rows.append(row)
                        print(json.dumps(row), flush=True)
                        return row

                    refs = {p: add("sysbench", p, sysbench(server, db, statement, conns, args.seconds,
                                                           script="keywords_ps.lua", ps_mode=m))
                            for p, m in PS_MODES.items()}
                    for p in PS_MODES:
                        add("bare-loop", p, bare(server, db, p, statement, conns, args.seconds))
                    ceilings = [add("engine", p, engine(server, db, "mysqlclient", statement, conns, args.seconds,
                                                        refs[p]["qps"] * 4, protocol=p))["qps"] for p in PS_MODES]
                    paced = round(min(ceilings) * 0.7)
                    for p, m in PS_MODES.items():
                        add("engine", p, engine(server, db, "mysqlclient", statement, conns, args.seconds, paced,
                                                protocol=p), mode="paced")
                        add("sysbench", p, sysbench(server, db, statement, conns, args.seconds, paced,
                                                    script="keywords_ps.lua", ps_mode=m), mode="paced")
    finally:
        server.stop()
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    print_summary(rows)


def _reference(rows: list[dict], r: dict, protocol: str | None = None) -> dict:
    """sysbench's row of the same round, statement, connections, mode and protocol."""
    return next(x for x in rows if x["tool"] == "sysbench" and x["round"] == r["round"] and x["mode"] == r["mode"]
                and x["statement"] == r["statement"] and x["connections"] == r["connections"]
                and x["protocol"] == (protocol or r["protocol"]))


def print_summary(rows: list[dict]) -> None:
    """Medians over rounds: µs of client CPU per statement, and the ratio to sysbench in the same protocol."""
    cells: dict[tuple, list[dict]] = {}
    for r in rows:
        cells.setdefault((r["statement"], r["connections"], r["mode"], r["tool"], r["protocol"]), []).append(r)
    print("\n| statement | conns | mode | tool | protocol | rounds | median µs/stmt | median × sysbench (same protocol) | "
          "median achieved q/s |")
    print("|---|---:|---|---|---|---:|---:|---:|---:|")
    for (statement, conns, mode, tool, protocol), group in sorted(cells.items()):
        us = median(r["cpu_us_per_statement"] for r in group)
        ratio = median(r["cpu_us_per_statement"] / _reference(rows, r)["cpu_us_per_statement"] for r in group)
        qps = median(r["qps"] for r in group)
        print(f"| {statement} | {conns} | {mode} | {tool} | {protocol} | {len(group)} | {us:.1f} | {ratio:.2f} | "
              f"{qps:.0f} |")


if __name__ == "__main__":
    main()
