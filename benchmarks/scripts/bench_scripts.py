"""Benchmark: read a large schema-and-data script (the pubs-like schema, then INSERT rows) into a Capture.

Each run is a fresh process that reads the script with `api.read`, as `sqlsrv2tidb schema` does;
its peak memory is its own high-water mark read by `benchmarks/procstat.py` before it exits (the
process waits for this one to read it). Time is taken as wall time and as the process's CPU time:
the machine is shared, so MB per CPU second is the figure for "MB/s on one core". In the same run, the same file is read line by line by
plain Python (`for line in open(path, encoding=...)`), the floor any reader of the text pays:
the result is MB/s of script and the ratio to that floor.

    python3 benchmarks/scripts/bench_scripts.py --mb 50 500 [--encoding utf-8] [--style ssms] [--tree DIR] [--label after]

`--tree` runs another checkout of the package (e.g. `git archive` of an older commit unpacked
into a folder) to measure "before". Scripts are generated once into benchmarks/.work/scripts/
(make_script.py). Results are added to benchmarks/scripts/results.json under the label.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
WORK = ROOT / "benchmarks" / ".work" / "scripts"
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from make_script import write_script  # noqa: E402
from procstat import high_water  # noqa: E402

READ = r"""
import json, sys, time
t0 = time.perf_counter()
from sqlsrv2tidb import api
t1, c1 = time.perf_counter(), time.process_time()
capture = api.read([sys.argv[1]])
t2, c2 = time.perf_counter(), time.process_time()
db = capture.database
print(json.dumps({"seconds": t2 - t1, "cpu_seconds": c2 - c1, "imports": t1 - t0, "tables": len(db.tables),
                  "scripted_rows": sum(t.scripted_rows for t in db.tables), "findings": len(capture.findings),
                  "module": api.__file__}), flush=True)
sys.stdin.read()  # wait until the benchmark has read this process's peak memory
"""

LINES = r"""
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
n = 0
with open(sys.argv[1], encoding=sys.argv[2]) as fh:
    for line in fh:
        n += 1
print(json.dumps({"seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0, "lines": n}), flush=True)
sys.stdin.read()
"""


def measure(code: str, args: list[str], tree: Path) -> dict:
    """Run `code` in a fresh process; its JSON line, with `peak_mib` (VmHWM) read before it exits."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    proc = subprocess.Popen([sys.executable, "-c", code, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True, env=env, cwd=tree)
    assert proc.stdout is not None and proc.stdin is not None
    line = proc.stdout.readline()
    peak = high_water(proc.pid)
    proc.stdin.close()
    if proc.wait() != 0 or not line:
        raise SystemExit(f"the measured process failed (exit {proc.returncode})")
    result = json.loads(line)
    result["peak_mib"] = round(peak / 1024, 1)
    return result


def script_for(megabytes: float, encoding: str, style: str) -> Path:
    path = WORK / f"pubs-{megabytes:g}mb-{encoding}{'' if style == 'ssms' else '-' + style}.sql"
    if not path.exists():
        print(f"writing {path.name} ...", file=sys.stderr)
        write_script(path, megabytes, encoding, style=style)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=float, nargs="+", default=[50, 500])
    parser.add_argument("--encoding", choices=("utf-8", "utf-16"), default="utf-8")
    parser.add_argument("--style", choices=("ssms", "go-each", "multirow"), default="ssms")
    parser.add_argument("--tree", type=Path, default=ROOT, help="source tree whose sqlsrv2tidb is measured")
    parser.add_argument("--label", default="after")
    parser.add_argument("--results", type=Path, default=HERE / "results.json")
    args = parser.parse_args()
    results = json.loads(args.results.read_text()) if args.results.exists() else {}
    for mb in args.mb:
        path = script_for(mb, args.encoding, args.style)
        size = path.stat().st_size / 1e6
        floor = measure(LINES, [str(path), "utf-16" if args.encoding == "utf-16" else "utf-8"], args.tree)
        read = measure(READ, [str(path)], args.tree.resolve())
        row = {
            "file": path.name, "file_mb": round(size, 1), "encoding": args.encoding, "style": args.style,
            "seconds": round(read["seconds"], 2), "cpu_seconds": round(read["cpu_seconds"], 2),
            "mb_per_s": round(size / read["seconds"], 1), "mb_per_cpu_s": round(size / read["cpu_seconds"], 1),
            "peak_mib": read["peak_mib"], "tables": read["tables"], "scripted_rows": read["scripted_rows"],
            "findings": read["findings"], "lines_seconds": round(floor["seconds"], 2),
            "lines_cpu_seconds": round(floor["cpu_seconds"], 2), "lines_mb_per_cpu_s": round(size / floor["cpu_seconds"], 1),
            "lines_peak_mib": floor["peak_mib"], "times_lines_cpu": round(read["cpu_seconds"] / floor["cpu_seconds"], 1),
            "machine": f"{os.cpu_count()} cores, Python {platform.python_version()}",
            "when": time.strftime("%Y-%m-%d %H:%M"),
        }
        print(json.dumps(row))
        results.setdefault(args.label, {})[path.stem.removeprefix("pubs-")] = row
        args.results.write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
