"""`replay examples/keywords --ramp ... --allow-writes` against a real TiDB, as a user runs it.

Every step of a ramp sends keys no earlier step sent, and a rerun draws a new seed, so neither runs
into the rows already inserted; a rerun given the same `--seed` repeats its keys on purpose, and the
result then says why the duplicate-key errors came and that the ramp's last step measured errors,
not a ceiling. What one tidb-server cannot show about hotspots is said as such in the report.
"""

from __future__ import annotations

import json
from pathlib import Path

from replay_helpers import cluster_shape, create_planned_tables
from typer.testing import CliRunner

from sqlsrv2tidb import api
from sqlsrv2tidb.cli import app

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "keywords"
INSERT = "INSERT INTO keywords"


def _replay(tidb, database: str, out: Path, *extra: str, command: str = "replay") -> dict:
    result = CliRunner().invoke(app, [
        command, str(EXAMPLE), "-o", str(out), "--target", tidb.url(database), "--window", "nightly",
        "--ramp", "100:100:300", "--duration", "1", "--warmup", "0", "--workers", "1", "--connections", "4",
        "--allow-writes", "--confirm-database", database, "--quiet", *extra,
    ], env=tidb.env())
    assert result.exit_code == 0, result.output
    return json.loads((out / "replay.json").read_text(encoding="utf-8"))


def _inserts(doc: dict) -> tuple[int, int]:
    """(rows inserted, inserts that failed) over every step of the run, from its per-second timeline."""
    insert = next(q["id"] for q in doc["per_query"] if q["target_sql"].startswith(INSERT))
    cells = [row["per_query"][insert] for row in doc["timeline"] if insert in row["per_query"]]
    return sum(c["completed"] for c in cells), sum(c["errors"] for c in cells)


def _rows(tidb, database: str) -> int:
    with tidb.connect(database) as conn, conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM keywords")
        return cur.fetchone()[0]


def test_every_ramp_step_and_every_rerun_sends_new_keys(tidb, tidb_database, tmp_path):
    create_planned_tables(tidb, tidb_database, api.read([EXAMPLE]))

    first = _replay(tidb, tidb_database, tmp_path / "first")
    assert len(first["ramp"]["steps"]) == 3, "a step failing on repeated keys would have stopped the ramp"
    assert [s["errors"] for s in first["ramp"]["steps"]] == [0, 0, 0]
    inserted, failed = _inserts(first)
    assert failed == 0 and inserted > 500 and _rows(tidb, tidb_database) == inserted
    assert first["config"]["seed_drawn"] is True

    second = _replay(tidb, tidb_database, tmp_path / "second")  # the same command again, on the rows of the first
    assert second["config"]["seed"] != first["config"]["seed"]
    inserted_again, failed = _inserts(second)
    assert failed == 0 and second["error_codes"] == []
    assert _rows(tidb, tidb_database) == inserted + inserted_again

    seed = first["config"]["seed"]
    # The first run's keys, on purpose; through `assess`, which also writes the report.
    repeat = _replay(tidb, tidb_database, tmp_path / "repeat", "--seed", str(seed), command="assess")
    assert repeat["config"] == {**first["config"], "seed_drawn": False}
    (duplicates,) = [e for e in repeat["error_codes"] if e["code"] == 1062]
    assert "Duplicate entry" in duplicates["samples"][0]["message"]
    (why,) = duplicates["why"]
    assert why.startswith("keywords held rows before this run, and --seed") and f"--seed {seed} draws the same keys" in why
    assert "leave out --seed" in why
    # The target answered at the first step's rate; its statements failed. That is no ceiling.
    assert repeat["ramp"]["stopped_by"] == "errors" and repeat["ramp"]["steps"][0]["shortfall"] == "errors"
    assert _rows(tidb, tidb_database) == inserted + inserted_again, "not one row of the repeat was new"

    page = (tmp_path / "repeat" / "report.html").read_text(encoding="utf-8")
    assert f"--seed {seed} draws the same keys" in page and "the ceiling was not measured" in page
    if cluster_shape(tidb)["pd"] == 0:
        # One tidb-server: what it cannot show is a note, not an error.
        assert "What this target cannot show: hot Regions" in page and "pd http client unavailable" not in page
