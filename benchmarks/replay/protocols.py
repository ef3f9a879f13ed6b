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
import tempfile
from collections.abc import Callable
from pathlib import Path
from statistics import median

from bench import (  # puts tests/ on the path
    Opener,
    bare,
    cells,
    engine,
    keywords_database,
    recorder,
    sysbench,
)
from replay_helpers import INSERT_SQL, SELECT_SQL
from servers import MariaDB, TiDB

from sqlsrv2tidb.replay import drivers
from sqlsrv2tidb.replay.sqltext import to_format_style

PS_MODES = {"prepared": "auto", "text": "disable"}


def protocol_opener(protocol: str, statement: str) -> Opener:
    """Replay's own senders on a mysqlclient connection: the text one, or the prepared statement one."""
    sql = INSERT_SQL if statement == "insert" else SELECT_SQL
    text = to_format_style(sql)[0]

    def open_(target: object) -> Callable[[tuple], object]:
        conn = drivers.connect(target, "mysqlclient", prepared=protocol == "prepared")  # type: ignore[arg-type]
        if protocol == "prepared":
            run = conn.run_prepared
            return lambda v: run(sql, v)  # type: ignore[misc]
        return lambda v: conn.run(text, v)

    return open_


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
    add = recorder(rows)
    try:
        db = keywords_database(server)
        for cell in cells(args.rounds, args.connections):
            statement, conns, seconds = cell["statement"], cell["connections"], args.seconds
            cell = {**cell, "server": args.server}
            refs = {p: add(cell, sysbench(server, db, statement, conns, seconds, script="keywords_ps.lua", ps_mode=m),
                           tool="sysbench", protocol=p, mode="max") for p, m in PS_MODES.items()}
            for p in PS_MODES:
                add(cell, bare(server, db, protocol_opener(p, statement), statement, conns, seconds), tool="bare-loop",
                    protocol=p, mode="max")
            ceilings = [add(cell, engine(server, db, "mysqlclient", statement, conns, seconds, refs[p]["qps"] * 4,
                                         protocol=p), tool="engine", protocol=p, mode="max")["qps"] for p in PS_MODES]
            paced = round(min(ceilings) * 0.7)
            for p, m in PS_MODES.items():
                add(cell, engine(server, db, "mysqlclient", statement, conns, seconds, paced, protocol=p),
                    tool="engine", protocol=p, mode="paced")
                add(cell, sysbench(server, db, statement, conns, seconds, paced, script="keywords_ps.lua", ps_mode=m),
                    tool="sysbench", protocol=p, mode="paced")
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
