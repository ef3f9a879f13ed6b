"""Ctrl-C during `sqlsrv2tidb replay` stops the run, writes what was measured, and says so in one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from replay_helpers import create_planned_tables

from sqlsrv2tidb import api

pytestmark = pytest.mark.mariadb
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "keywords"


def test_ctrl_c_leaves_a_readable_replay_json(mariadb, database, tmp_path):
    create_planned_tables(mariadb, database, api.read([EXAMPLE]))
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "sqlsrv2tidb", "replay", str(EXAMPLE), "--window", "normal",
         "--target", mariadb.url(database), "-o", str(out), "--qps", "100", "--duration", "60", "--warmup", "0",
         "--workers", "2", "--connections", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 30
        seen = ""
        while "Replaying" not in seen and time.monotonic() < deadline and proc.poll() is None:
            seen += proc.stderr.readline()
        assert "Replaying" in seen, seen
        time.sleep(2.0)
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole process group
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 2
    last = err.strip().splitlines()[-1]
    assert last.startswith("Error: interrupted: partial results written to ") and "Traceback" not in err
    doc = json.loads((out / "replay.json").read_text())
    assert doc["interrupted"] is True and doc["stopped_by"] == "interrupt"
    assert doc["statements"] > 50
    assert 0 < doc["duration_s"] < 10
    assert doc["achieved_qps"] == pytest.approx(100, rel=0.15)
    assert doc["errors"] == 0
    assert {s["kind"] for s in doc["skipped"]} == {"insert"}, "writes are not sent without --allow-writes"
