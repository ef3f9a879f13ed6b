"""Time and peak memory of `sqlsrv2tidb assess` on a generated workload (`make_workload.py`).

Runs the CLI as a child process, as a DBA would, and records the wall time, when each stage's
progress line appeared (so the time of each stage), and the peak resident memory of the largest
process (the CLI or one of its translation workers: `getrusage(RUSAGE_CHILDREN)` reports the
largest of the waited-for descendants, not their sum).

    python3 benchmarks/translate/run_workload.py benchmarks/.work/qs100k --json benchmarks/translate/workload_100k.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", type=Path, help="a folder written by make_workload.py")
    parser.add_argument("--json", type=Path, help="write the measurements here")
    args = parser.parse_args()
    out = args.folder / "out"
    shutil.rmtree(out, ignore_errors=True)
    command = [sys.executable, "-m", "sqlsrv2tidb", "assess", str(args.folder / "schema.sql"),
               str(args.folder / "querystore.csv"), "-o", str(out)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    started = time.perf_counter()
    stages = []
    with subprocess.Popen(command, stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env) as child:
        assert child.stderr is not None
        for line in child.stderr:
            stages.append((round(time.perf_counter() - started, 2), line.rstrip()))
            print(f"{stages[-1][0]:8.2f}s  {stages[-1][1]}", flush=True)
        stdout = child.stdout.read() if child.stdout else ""
    elapsed = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak_mib = usage.ru_maxrss / 1024
    import sqlglot
    from sqlglot.tokens import SQLGLOTC_INSTALLED

    result = {
        "classes": None,
        "exit_code": child.returncode,
        "wall_s": round(elapsed, 1),
        "peak_rss_mib_largest_process": round(peak_mib, 1),
        "cpu_s_all_processes": round(usage.ru_utime + usage.ru_stime, 1),
        "stages": stages,
        "stdout_tail": stdout.strip().splitlines()[-2:],
        "assessment_json_mib": round((out / "assessment.json").stat().st_size / 2**20, 1) if (out / "assessment.json").exists() else None,
        "report_html_mib": round((out / "report.html").stat().st_size / 2**20, 1) if (out / "report.html").exists() else None,
        "python": platform.python_version(),
        "sqlglot": sqlglot.__version__,
        "sqlglot_compiled": SQLGLOTC_INSTALLED,
        "cores": os.cpu_count(),
        "load_average_after": os.getloadavg(),
    }
    result["classes"] = len(json.loads((out / "assessment.json").read_text(encoding="utf-8"))["queries"]) \
        if result["assessment_json_mib"] is not None else None
    print(json.dumps({k: v for k, v in result.items() if k != "stages"}, indent=1))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
