"""Translation throughput: the project's translator against a bare `sqlglot.transpile` loop, same statements.

The statements are the 857 Stack Exchange Data Explorer queries of the test corpus (real ad-hoc
T-SQL against the Stack Overflow schema), prepared as the SEDE test prepares them. The yardstick is
a bare `sqlglot.transpile(read="tsql", write="mysql")` loop on sqlglot's pure-Python build; against
it, in every round of one run:

- `bare`: the yardstick itself (and the same loop on the compiled build, for scale);
- `translator`: `translate_sql` over the statements in one process (statement splitting, typed
  rewrites, names, parameters, the output check), on the pure-Python and on the compiled build;
- `all cores`: `translate_workload` over the statements as one workload of 857 distinct classes,
  one process per core (the way `assess` translates), on both builds;
- `bare_statements`: the bare loop over the statements the translator reads, each batch split as the
  translator splits it (before timing): the bare loop reads a batch it cannot parse whole as one
  cheap `Command`, this one parses every statement, as the translator must;
- `read_write`: the translator's own reading (batches, statements, its T-SQL reader) and writing (its
  TiDB writer) with no rewrite, note or check between them: the least the translator can cost.

Each measurement runs in a child process of its own (the two builds cannot share one): the child
warms up on 50 statements and times one loop over all 857. The pure-Python build is sqlglot's own
`.py` files, copied aside and imported first. Rounds alternate the order of the measurements; the
ratios are taken within a round and the medians reported.

    python3 benchmarks/translate/bench_translate.py --rounds 5 --json benchmarks/translate/results.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MODES = ("bare", "bare_statements", "read_write", "translator", "all_cores")


def child(mode: str) -> None:
    """Time one loop of `mode` over the statements; print the seconds and the build."""
    import logging

    sys.path[:0] = [str(ROOT / "tests" / "translate"), str(ROOT)]
    logging.getLogger("sqlglot").setLevel(logging.CRITICAL)  # the bare loop's Command fallbacks

    import sqlglot
    from sqlglot.errors import SqlglotError
    from sqlglot.tokens import SQLGLOTC_INSTALLED
    from translate_sede import sede_database, sede_queries

    from sqlsrv2tidb.model import Capture, QueryClass, Workload
    from sqlsrv2tidb.options import Options
    from sqlsrv2tidb.translate.naming import NameMap
    from sqlsrv2tidb.translate.queries import translate_sql, translate_workload
    from sqlsrv2tidb.translate.statements import parse_statements
    from sqlsrv2tidb.tsql.fingerprint import fingerprint, query_id

    queries = list(sede_queries())
    database = sede_database()
    names = NameMap.for_database(database)
    options = Options()

    def bare(items) -> None:
        for q in items:
            try:
                sqlglot.transpile(q.sql, read="tsql", write="mysql")
            except (SqlglotError, RecursionError):
                pass  # a statement sqlglot rejects counts as done

    def translator(items) -> None:
        for q in items:
            translate_sql(q.sql, database=database, names=names, options=options, parameters=q.parameters)

    def capture(items) -> Capture:
        classes = tuple(QueryClass(id=query_id(f), fingerprint=f, text=q.sql, parameters=q.parameters)
                        for q in items for f in [fingerprint(q.sql) + f" -- {q.id}"])
        return Capture(database=database, workload=Workload(queries=classes))

    def bare_statements(items) -> None:
        for texts in items:
            for text in texts:
                try:
                    sqlglot.transpile(text, read="tsql", write="mysql")
                except (SqlglotError, RecursionError):
                    pass

    if mode == "all_cores":  # a capture's classes carry their fingerprints from the reader: made before timing
        warm, full = capture(queries[:50]), capture(queries)
        run = lambda workload: translate_workload(workload, options)  # noqa: E731
    elif mode == "bare_statements":  # split as the translator splits them, before timing
        split = [[s.sql for s in parse_statements(q.sql)] for q in queries]
        warm, full = split[:50], split
        run = bare_statements
    elif mode == "read_write":
        warm, full = queries[:50], queries
        run = read_and_write
    else:
        warm, full = queries[:50], queries
        run = bare if mode == "bare" else translator
    run(warm)
    cpu = _cpu_seconds()
    started = time.perf_counter()
    run(full)
    elapsed = time.perf_counter() - started
    print(json.dumps({"seconds": elapsed, "cpu_seconds": _cpu_seconds() - cpu, "statements": len(queries),
                      "compiled": SQLGLOTC_INSTALLED}))


def read_and_write(queries) -> None:
    """The translator's reading and writing alone: its batches, statements and T-SQL reader, then its TiDB writer,
    with no rewrite, note or check between them (the least the translator can cost). Shared with instructions.py."""
    from sqlglot.errors import SqlglotError

    from sqlsrv2tidb.translate.dialect import TIDB
    from sqlsrv2tidb.translate.statements import parse_statements

    for q in queries:
        for statement in parse_statements(q.sql):
            if statement.tree is not None:
                try:
                    statement.tree.sql(dialect=TIDB, comments=False, copy=False)
                except (SqlglotError, ValueError, KeyError, TypeError):
                    pass


def _cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the translation workers)."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def pure_copy(into: Path) -> Path:
    """sqlglot's pure-Python build: its `.py` files alone (Python prefers a compiled module beside them)."""
    import sqlglot

    shutil.copytree(Path(sqlglot.__file__).parent, into / "sqlglot", ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    return into


def measure(mode: str, pure: Path | None) -> dict:
    path = [str(pure)] if pure is not None else []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*path, str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])}
    done = subprocess.run([sys.executable, __file__, "--child", mode], capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--json", type=Path, help="write the measurements here")
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return

    from sqlglot.tokens import SQLGLOTC_INSTALLED

    builds = ("pure", "compiled") if SQLGLOTC_INSTALLED else ("pure",)
    cells = [(mode, build) for build in builds for mode in MODES]
    rounds = []
    with tempfile.TemporaryDirectory() as tmp:
        pure = pure_copy(Path(tmp))
        for i in range(args.rounds):
            order = cells if i % 2 == 0 else cells[::-1]
            times, cpu = {}, {}
            for mode, build in order:
                result = measure(mode, pure if build == "pure" else None)
                assert result["compiled"] == (build == "compiled"), (mode, build, result)
                times[f"{mode}/{build}"] = result["seconds"]
                cpu[f"{mode}/{build}"] = result["cpu_seconds"]
            statements = result["statements"]
            yardstick = times["bare/pure"]
            rounds.append({"seconds": times, "cpu_seconds": cpu,
                           "time_vs_bare_pure": {k: v / yardstick for k, v in times.items()},
                           "cpu_vs_bare_pure": {k: v / cpu["bare/pure"] for k, v in cpu.items()},
                           "load_average": os.getloadavg()[0]})
            print(f"round {i + 1}: " + "  ".join(f"{k} {statements / v:7.1f}/s ({v / yardstick:.2f}x)"
                                                 for k, v in times.items()) + f"  load {os.getloadavg()[0]:.1f}")
    keys = list(rounds[0]["seconds"])
    median_rate = {k: statistics.median(statements / r["seconds"][k] for r in rounds) for k in keys}
    median_ratio = {k: statistics.median(r["time_vs_bare_pure"][k] for r in rounds) for k in keys}
    median_cpu_rate = {k: statistics.median(statements / r["cpu_seconds"][k] for r in rounds) for k in keys}
    median_cpu_ratio = {k: statistics.median(r["cpu_vs_bare_pure"][k] for r in rounds) for k in keys}
    print(f"medians over {len(rounds)} rounds (statements/s of wall time, wall time as a multiple of the bare "
          "pure-Python loop's, statements per CPU-second, CPU time as a multiple of the bare loop's):")
    for k in keys:
        print(f"  {k:22} {median_rate[k]:8.1f}/s  {median_ratio[k]:5.2f}x  {median_cpu_rate[k]:8.1f}/CPU-s  "
              f"{median_cpu_ratio[k]:5.2f}x")
    if args.json:
        args.json.write_text(json.dumps({
            "statements": statements, "python": platform.python_version(), "machine": platform.machine(),
            "cores": os.cpu_count(), "rounds": rounds, "median_stmt_per_s": median_rate,
            "median_time_vs_bare_pure": median_ratio, "median_stmt_per_cpu_s": median_cpu_rate,
            "median_cpu_vs_bare_pure": median_cpu_ratio,
        }, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
