"""Where fingerprinting in several processes pays: `tsql.fingerprints` in one process and in one per core.

Two kinds of text: the SEDE queries (long ad-hoc reports, a column added per variant as
`make_workload.py` does) and the golden corpus's statements (short, as an application's are). For
each count of distinct texts, the wall time of `fingerprint_texts` with its threshold set so that
it uses one process, then one per core; rounds alternate the order. The machine is shared, so
the fastest round of each is printed (the median beside it): another tenant's process on one core
makes a round of two workers as slow as one.

    python3 benchmarks/translate/fingerprint_processes.py
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "translate"))
sys.path.insert(0, str(ROOT))

from translate_golden import read_cases  # noqa: E402
from translate_sede import sede_queries  # noqa: E402

from sqlsrv2tidb.tsql import fingerprints  # noqa: E402


def texts(kind: str, count: int) -> list[str]:
    """`count` distinct texts: the corpus's statements, each again with a column alias `v<k>` added in front."""
    base = [q.sql for q in sede_queries()] if kind == "sede" else [c.source for c in read_cases()]
    out = []
    for k in range(count):
        sql = base[k % len(base)]
        out.append(sql if k < len(base) else f"SELECT {k} AS [v{k}], * FROM ({sql.rstrip().rstrip(';')}) AS t")
    return out


def timed(items: list[str], processes: bool) -> float:
    fingerprints.PARALLEL_FROM = 1 if processes else len(items) + 1
    started = time.perf_counter()
    fingerprints.fingerprint_texts(items)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--counts", default="2,100,200,400,800,1600,3200,6400")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    print(f"{'texts':>8} {'count':>6} {'one, ms':>9} {'per core, ms':>13} {'ratio':>6}   (medians: one, per core)")
    for kind in ("sede", "golden"):
        for count in (int(c) for c in args.counts.split(",")):
            items = texts(kind, count)
            timed(items, False)  # warm: the keyword spellings are learned once per process
            one, many = [], []
            for r in range(args.rounds):
                for processes in ((False, True) if r % 2 == 0 else (True, False)):
                    (many if processes else one).append(timed(items, processes))
            a, b = min(one) * 1000, min(many) * 1000
            print(f"{kind:>8} {count:>6} {a:9.1f} {b:13.1f} {b / a:6.2f}   "
                  f"({statistics.median(one) * 1000:.1f}, {statistics.median(many) * 1000:.1f})", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
