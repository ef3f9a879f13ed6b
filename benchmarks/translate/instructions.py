"""Instructions the translator executes per pass over SEDE statements, for one or more git revisions.

Wall time and CPU time on a machine shared with other work move with its load; the number of
instructions a process executes does not. So each revision is exported (`git archive`) and
`translate_sql` is run under valgrind's cachegrind (instruction counting only) over the first N
statements of the SEDE corpus: once with one pass (import, warm-up) and once with three, the
difference halved being the instructions of one pass. The installed sqlglot build is used (set
PYTHONPATH to a pure-Python copy of sqlglot to count that build). `.` names the working tree.

With `--bare`, the bare `sqlglot.transpile(read="tsql", write="mysql")` loop over the same statements
is counted too, and each revision's count is given as a multiple of it: the translator's cost per
statement against the bare loop's, free of the machine's load.

    python3 benchmarks/translate/instructions.py 016544e HEAD --statements 300
    python3 benchmarks/translate/instructions.py HEAD . --statements 300 --bare
    python3 benchmarks/translate/instructions.py . --statements 300 --bare --floor
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def child(statements: int, passes: int, bare: int = 0) -> None:
    """Translate the first `statements` SEDE queries `passes` times (the first pass warms up); `bare`: 1 runs the bare
    `sqlglot.transpile` loop over them instead, 2 the translator's reading and writing alone (its batches, statements
    and T-SQL reader, then its TiDB writer, nothing between them: the least the translator can cost)."""
    import logging

    sys.path[:0] = [str(Path.cwd() / "tests" / "translate"), str(Path.cwd())]
    logging.getLogger("sqlglot").setLevel(logging.CRITICAL)
    from translate_sede import sede_database, sede_queries

    from sqlsrv2tidb.options import Options
    from sqlsrv2tidb.translate.naming import NameMap
    from sqlsrv2tidb.translate.queries import translate_sql

    queries = list(sede_queries())[:statements]
    if bare == 2:
        from bench_translate import read_and_write  # beside this file

        for _ in range(passes):
            read_and_write(queries)
        return
    if bare:
        import sqlglot
        from sqlglot.errors import SqlglotError

        for _ in range(passes):
            for q in queries:
                try:
                    sqlglot.transpile(q.sql, read="tsql", write="mysql")
                except (SqlglotError, RecursionError):
                    pass  # a statement sqlglot rejects counts as done
        return
    database = sede_database()
    names, options = NameMap.for_database(database), Options()
    for _ in range(passes):
        for q in queries:
            translate_sql(q.sql, database=database, names=names, options=options, parameters=q.parameters)


def count(tree: Path, statements: int, passes: int, bare: int = 0) -> int:
    """Instructions of a child run on the exported `tree`, by cachegrind."""
    command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
               os.path.realpath(sys.executable), str(Path(__file__).resolve()), "--child", str(statements), str(passes),
               str(int(bare))]
    done = subprocess.run(command, cwd=tree, capture_output=True, text=True, check=True)
    match = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if match is None:
        raise SystemExit(f"valgrind printed no instruction count for {tree}:\n{done.stderr[-2000:]}")
    return int(match[1].replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("revisions", nargs="*", default=["HEAD"])
    parser.add_argument("--statements", type=int, default=300)
    parser.add_argument("--bare", action="store_true", help="count the bare sqlglot loop too, and give the ratios")
    parser.add_argument("--floor", action="store_true",
                        help="count the translator's reading and writing alone too (needs --bare for its ratio)")
    parser.add_argument("--child", nargs=3, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    bare = None
    if args.bare:
        bare = (count(ROOT, args.statements, 3, True) - count(ROOT, args.statements, 1, True)) // 2
        print(f"bare sqlglot loop: {bare / 1e6:,.0f} M instructions per pass over {args.statements} statements", flush=True)
    if args.floor:
        floor = (count(ROOT, args.statements, 3, 2) - count(ROOT, args.statements, 1, 2)) // 2
        ratio = f", {floor / bare:.2f}x the bare loop" if bare else ""
        print(f"reading and writing alone: {floor / 1e6:,.0f} M instructions per pass{ratio}", flush=True)
    first = None
    for revision in args.revisions:
        with tempfile.TemporaryDirectory() as tmp:
            if revision == ".":
                tree = ROOT
            else:
                archive = subprocess.run(["git", "archive", revision, "sqlsrv2tidb", "tests/translate",
                                          "tests/corpus/sede-val"], cwd=ROOT, capture_output=True, check=True).stdout
                subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
                tree = Path(tmp)
            per_pass = (count(tree, args.statements, 3) - count(tree, args.statements, 1)) // 2
        first = first or per_pass
        ratio = f", {per_pass / bare:.2f}x the bare loop" if bare else ""
        print(f"{revision}: {per_pass / 1e6:,.0f} M instructions per pass over {args.statements} statements"
              f" ({per_pass / first - 1:+.1%} against {args.revisions[0]}{ratio})", flush=True)


if __name__ == "__main__":
    main()
