"""Cluster replay benchmark: `replay --cluster` against one sending process, at the same rate, in one run.

Run on purpose, never from the test suite:

    python3 benchmarks/replay/cluster_bench.py [--seconds 6] [--rounds 3] [--json cluster-results.json]

It starts a private MariaDB (the class the tests use) with seed 000's `keywords` table, and a local
Dask cluster (`dask scheduler` and three `dask worker` processes, as a user starts them), all on
this machine. In each round:

- **ceiling**: the local engine with one sending process, asked for far more than it can send, on
  the seed-000 INSERT with 8 connections: one process's ceiling; then the same with one Dask worker;
- **fixed**: the same, at 10 statements per second: what a sending process costs per second whatever
  it sends (a local worker process against a Dask worker process);
- **paced**, at half that ceiling: one local process, the cluster with one worker (the same 8
  connections in one Dask worker process) and with two workers (4 each), in turns (reversed every
  other round). Half, not the 70 % of `bench.py`: on two cores shared with the server, 70 % already
  falls behind, and a sender that is behind sends back to back, with no timer to wait for, so its CPU
  per statement drops and the comparison measures who fell further behind. Client CPU per statement
  is compared at the same rate: the sending processes' own (what each `replay.json` reports, measured
  inside the sending loop) and every client process's (sending processes, the coordinator, and the
  Dask scheduler; read from the kernel's counters, psutil for the Dask processes);
- **growth**: the cluster's ceiling with 2 and 3 workers (1 is the ceiling above) on the INSERT (CPU-bound: the server and
  every client share this machine's cores), and on `SELECT SLEEP(0.01)` with 2 connections per
  worker (latency-bound: each worker's ceiling is its connections', whatever the CPU).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "replay")]

import psutil  # noqa: E402  (installed with distributed)
from dask_cluster import LocalDask  # noqa: E402
from replay_helpers import KEYWORDS_DDL, keywords_case  # noqa: E402
from servers import MariaDB  # noqa: E402

from sqlsrv2tidb.replay import drivers  # noqa: E402
from sqlsrv2tidb.replay.config import ReplayConfig  # noqa: E402
from sqlsrv2tidb.replay.runner import run_replay  # noqa: E402
from sqlsrv2tidb.target import parse_target  # noqa: E402

CONNECTIONS = 8


def own_cpu() -> float:
    """This process and its reaped children (the local engine's forked workers)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def dask_cpu(dask: LocalDask) -> float:
    """The Dask scheduler's and workers' CPU seconds so far."""
    total = 0.0
    for proc in [dask.scheduler, *dask.workers]:
        times = psutil.Process(proc.pid).cpu_times()
        total += times.user + times.system
    return total


def replay(server: MariaDB, db: str, dask: LocalDask, statement: str, qps: float, seconds: float, *,
           workers: int, cluster: bool, connections: int = CONNECTIONS) -> dict:
    if statement == "insert":
        capture, translation = keywords_case(insert_rate=1, select_rate=0)
    else:
        capture, translation = keywords_case(insert_rate=0, select_rate=0,
                                             extra_sql={"qsleep": ("select", "SELECT SLEEP(0.01)", 1.0)})
    config = ReplayConfig(qps=qps, duration=seconds, warmup=0, workers=workers, connections=connections,
                          driver="mysqlclient" if drivers.installed("mysqlclient") else "pymysql",
                          allow_writes=True, confirm_database=db, seed=time.time_ns() % 2**31,
                          cluster=dask.address if cluster else None)
    with tempfile.TemporaryDirectory() as out:
        mine, theirs = own_cpu(), dask_cpu(dask)
        doc = run_replay(capture, translation, parse_target(server.url(db)), config, out=Path(out)).result
        mine, theirs = own_cpu() - mine, dask_cpu(dask) - theirs
    statements = max(1, doc["statements"])
    sending = doc["client_cpu"]["workers_s"]
    return {"statement": statement, "mode": "cluster" if cluster else "local", "workers": workers,
            "connections": connections, "seconds": seconds, "target_qps": qps, "qps": doc["achieved_qps"], "statements": doc["statements"],
            "errors": doc["errors"], "missed": doc["missed"], "late_sends": doc["late_sends"],
            "p99_ms": doc["latency_ms"]["p99"], "sending_cpu_s": sending,
            "sending_us_per_statement": 1e6 * sending / statements,
            "all_cpu_s": mine + (theirs if cluster else 0.0),
            "all_us_per_statement": 1e6 * (mine + (theirs if cluster else 0.0)) / statements,
            "coordinator_cpu_s": doc["client_cpu"]["coordinator_s"],
            "scheduler_cpu_s": (doc["cluster"] or {}).get("scheduler_cpu_s")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--max-workers", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="sqlsrv2tidb-cluster-bench-"))
    server = MariaDB(base / "mariadb")
    (base / "mariadb").mkdir()
    server.initialize()
    server.start()
    dask = LocalDask(base / "dask", workers=args.max_workers).start()
    rows: list[dict] = []

    def add(round_: int, kind: str, row: dict) -> dict:
        row = {"round": round_, "run": kind, **row}
        rows.append(row)
        print(json.dumps(row), flush=True)
        return row

    try:
        db = server.create_database("bench")
        with server.connect(db) as conn, conn.cursor() as cur:
            cur.execute(KEYWORDS_DDL)
        s = args.seconds
        for round_ in range(1, args.rounds + 1):
            ceiling = add(round_, "ceiling", replay(server, db, dask, "insert", 100_000, s, workers=1, cluster=False))
            add(round_, "ceiling", replay(server, db, dask, "insert", 100_000, s, workers=1, cluster=True))
            for cluster in (False, True):
                add(round_, "fixed", replay(server, db, dask, "insert", 10, s, workers=1, cluster=cluster))
            paced = round(ceiling["qps"] * 0.5)
            turns = [(1, False), (1, True), (2, True)]
            for workers, cluster in turns if round_ % 2 else turns[::-1]:
                add(round_, "paced", replay(server, db, dask, "insert", paced, s, workers=workers, cluster=cluster))
            for n in range(2, args.max_workers + 1):
                add(round_, "growth", replay(server, db, dask, "insert", 100_000, s, workers=n, cluster=True,
                                             connections=CONNECTIONS * n))
            for n in range(1, args.max_workers + 1):
                add(round_, "growth", replay(server, db, dask, "sleep", 1_000, s, workers=n, cluster=True,
                                             connections=2 * n))
    finally:
        dask.stop()
        server.stop()
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    summary(rows)


def summary(rows: list[dict]) -> None:
    print("\n| round | run | statement | mode | workers | conns | target q/s | achieved q/s | achieved/target | "
          "late sends | sending CPU µs/stmt | all client CPU µs/stmt |")
    print("|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        ratio = f"{r['qps'] / r['target_qps']:.4f}" if r["run"] in ("paced", "fixed") else ""
        print(f"| {r['round']} | {r['run']} | {r['statement']} | {r['mode']} | {r['workers']} | {r['connections']} | "
              f"{r['target_qps']:g} | {r['qps']:.0f} | {ratio} | {r['late_sends']} | {r['sending_us_per_statement']:.1f} | "
              f"{r['all_us_per_statement']:.1f} |")
    rounds = sorted({r["round"] for r in rows})

    def paced(round_: int, mode: str, workers: int) -> dict:
        return next(r for r in rows if r["round"] == round_ and r["run"] == "paced" and r["mode"] == mode
                    and r["workers"] == workers)

    def per_second(key: str, mode: str) -> float:
        return median(1000 * (r[key] or 0.0) / r["seconds"] for r in rows if r["run"] == "fixed" and r["mode"] == mode)

    print("\nfixed costs at 10 q/s (median ms of CPU per second): sending process: local "
          f"{per_second('sending_cpu_s', 'local'):.1f}, Dask worker {per_second('sending_cpu_s', 'cluster'):.1f}; "
          f"coordinator: local {per_second('coordinator_cpu_s', 'local'):.1f}, cluster "
          f"{per_second('coordinator_cpu_s', 'cluster'):.1f}; Dask scheduler {per_second('scheduler_cpu_s', 'cluster'):.1f}")
    print("\n| cluster workers | median sending CPU per statement × one process | median all client CPU × one process | "
          "median achieved/target |")
    print("|---:|---:|---:|---:|")
    for workers in (1, 2):
        sending = median(paced(n, "cluster", workers)["sending_us_per_statement"] /
                         paced(n, "local", 1)["sending_us_per_statement"] for n in rounds)
        everything = median(paced(n, "cluster", workers)["all_us_per_statement"] /
                            paced(n, "local", 1)["all_us_per_statement"] for n in rounds)
        accuracy = median(paced(n, "cluster", workers)["qps"] / paced(n, "cluster", workers)["target_qps"] for n in rounds)
        print(f"| {workers} | {sending:.3f} | {everything:.3f} | {accuracy:.4f} |")
    ceilings = {mode: median(r["qps"] for r in rows if r["run"] == "ceiling" and r["mode"] == mode)
                for mode in ("local", "cluster")}
    ratio = median(next(r for r in rows if r["round"] == n and r["run"] == "ceiling" and r["mode"] == "cluster")["qps"] /
                   next(r for r in rows if r["round"] == n and r["run"] == "ceiling" and r["mode"] == "local")["qps"]
                   for n in rounds)
    print(f"\nceiling of one sending process, flat out (median q/s): local {ceilings['local']:.0f}, one Dask worker "
          f"{ceilings['cluster']:.0f} (median ratio within a round {ratio:.3f})")
    print("\n| statement | cluster workers | median ceiling q/s |")
    print("|---|---:|---:|")
    for statement in ("insert", "sleep"):
        growth = [r for r in rows if r["mode"] == "cluster" and r["statement"] == statement
                  and (r["run"] == "growth" or (r["run"] == "ceiling" and statement == "insert"))]
        for workers in sorted({r["workers"] for r in growth}):
            print(f"| {statement} | {workers} | {median(r['qps'] for r in growth if r['workers'] == workers):.0f} |")


if __name__ == "__main__":
    main()
