"""`sqlsrv2tidb assess examples/keywords --target ...` replays the seed-000 workload and reports it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from replay_helpers import create_planned_tables
from typer.testing import CliRunner

from sqlsrv2tidb import api
from sqlsrv2tidb.cli import app

pytestmark = pytest.mark.mariadb
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "keywords"


def test_assess_replays_the_nightly_insert_workload(mariadb, database, tmp_path):
    create_planned_tables(mariadb, database, api.read([EXAMPLE]))
    out = tmp_path / "out"
    # The nightly window asks for 50,000 inserts a second; --qps keeps the mix and makes it 200.
    result = CliRunner().invoke(app, [
        "assess", str(EXAMPLE), "-o", str(out), "--target", mariadb.url(database), "--window", "nightly",
        "--qps", "200", "--duration", "2", "--warmup", "0", "--workers", "2", "--connections", "4",
        "--allow-writes", "--confirm-database", database, "--quiet",
    ])
    assert result.exit_code == 0, result.output
    doc = json.loads((out / "replay.json").read_text())
    assert doc["window"]["name"] == "nightly" and doc["captured_qps"] > 50_000
    assert doc["target_qps"] == 200 and doc["achieved_qps"] == pytest.approx(200, rel=0.05)
    insert = next(q for q in doc["per_query"] if q["target_sql"].startswith("INSERT INTO keywords"))
    assert insert["target_qps"] > 190 and insert["errors"] == 0
    with mariadb.connect(database) as conn, conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM keywords")
        assert cur.fetchone()[0] == insert["statements"]
    report = (out / "report.html").read_text()
    assert mariadb.url(database) in report
