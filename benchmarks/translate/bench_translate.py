"""Translation throughput: the project's translator against a bare `sqlglot.transpile` loop, same statements.

The statements are the 857 Stack Exchange Data Explorer queries of the test corpus (real ad-hoc
T-SQL against the Stack Overflow schema), prepared as the SEDE test prepares them. Each round runs
both loops over all statements in one process, alternating which goes first, and the ratio of their
times is the result: the translator does more (statement splitting, typed rewrites, names,
parameters, and re-reading its own output), and the ratio says how much that costs next to
sqlglot's own parse-and-write.

    python3 benchmarks/translate/bench_translate.py --rounds 3 --json benchmarks/translate/results.json
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import sqlglot
from sqlglot.errors import SqlglotError

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "translate"))

from translate_sede import sede_database, sede_queries  # noqa: E402

from sqlsrv2tidb.options import Options  # noqa: E402
from sqlsrv2tidb.translate.naming import NameMap  # noqa: E402
from sqlsrv2tidb.translate.queries import translate_sql  # noqa: E402


def bare_loop(texts: list[str]) -> tuple[float, int]:
    """sqlglot alone: parse T-SQL, write MySQL; a statement it rejects counts as done (and failed)."""
    failed = 0
    started = time.perf_counter()
    for text in texts:
        try:
            sqlglot.transpile(text, read="tsql", write="mysql")
        except (SqlglotError, RecursionError):
            failed += 1
    return time.perf_counter() - started, failed


def translator_loop(queries, database, names) -> tuple[float, int]:
    unsupported = 0
    options = Options()
    started = time.perf_counter()
    for q in queries:
        result = translate_sql(q.sql, database=database, names=names, options=options, parameters=q.parameters)
        unsupported += result.status == "unsupported"
    return time.perf_counter() - started, unsupported


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", type=Path, help="write the measurements here")
    args = parser.parse_args()

    queries = list(sede_queries())
    texts = [q.sql for q in queries]
    database = sede_database()
    names = NameMap.for_database(database)
    # Warm both paths once (imports, caches) so the rounds measure steady-state work.
    bare_loop(texts[:50])
    translator_loop(queries[:50], database, names)

    rounds = []
    for i in range(args.rounds):
        if i % 2 == 0:
            bare, failed = bare_loop(texts)
            ours, unsupported = translator_loop(queries, database, names)
        else:
            ours, unsupported = translator_loop(queries, database, names)
            bare, failed = bare_loop(texts)
        rounds.append({"bare_s": bare, "translator_s": ours, "ratio": ours / bare,
                       "bare_failed": failed, "translator_unsupported": unsupported})
        print(f"round {i + 1}: bare {len(texts) / bare:7.1f} stmt/s   translator {len(texts) / ours:7.1f} stmt/s   "
              f"ratio {ours / bare:.2f}x")
    ratio = statistics.median(r["ratio"] for r in rounds)
    bare_rate = statistics.median(len(texts) / r["bare_s"] for r in rounds)
    our_rate = statistics.median(len(texts) / r["translator_s"] for r in rounds)
    print(f"median over {len(rounds)} rounds: bare sqlglot {bare_rate:.1f} stmt/s, translator {our_rate:.1f} stmt/s, "
          f"translator takes {ratio:.2f}x the time of the bare loop")
    if args.json:
        args.json.write_text(json.dumps({
            "statements": len(texts),
            "python": platform.python_version(),
            "sqlglot": sqlglot.__version__,
            "machine": platform.machine(),
            "rounds": rounds,
            "median_ratio": ratio,
            "median_bare_stmt_per_s": bare_rate,
            "median_translator_stmt_per_s": our_rate,
        }, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
