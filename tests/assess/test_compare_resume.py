"""`compare --resume` (what `assess --connection` does when run again): the classes OUT's compare.json judged are
kept, the others judged; a class judged with other settings, or not judged for want of a server, is judged again.

The greenhouse database (greenhouse.py) on the endpoint, its rows copied into MariaDB first.
"""

from __future__ import annotations

import json

import pytest
from data_helpers import captured, copy_args, loaded
from greenhouse import READS, workload_file
from typer.testing import CliRunner

from sqlsrv2tidb import api
from sqlsrv2tidb.cli import app
from sqlsrv2tidb.options import Options


def _compare(source, workload, mariadb, database: str, out, *extra: str) -> tuple[dict, str]:
    result = CliRunner().invoke(app, ["compare", str(source.capture), str(workload), "-o", str(out), "--connection",
                                      source.connection, "--target", mariadb.url(database), "-q", *extra])
    assert result.exit_code == 0, result.output
    return json.loads((out / "compare.json").read_text(encoding="utf-8")), result.output


@pytest.mark.slow
def test_compare_resume_keeps_what_was_judged_and_judges_the_rest(mssql, greenhouse, mariadb, database, tmp_path):
    source = captured(mssql, greenhouse, tmp_path / "capture")
    loaded(*copy_args(source, mariadb, database, tmp_path / "copy", "--create-tables"))
    workload = workload_file(tmp_path / "workload.sql")
    capture = api.read([source.capture, workload])
    reads = [q.id for q in api.translate(capture, Options()).queries if q.kind == "select"]
    assert len(reads) == READS
    out = tmp_path / "out"

    first, _ = _compare(source, workload, mariadb, database, out, "--query", reads[0])
    assert first["summary"]["classes"] == 1 and first["summary"]["kept"] == 0
    whole, said = _compare(source, workload, mariadb, database, out, "--resume")
    assert whole["summary"]["classes"] == READS and whole["summary"]["kept"] == 1
    assert "(1 kept as the earlier run judged them)" in said
    assert whole["queries"][reads.index(reads[0])] == first["queries"][0]  # as it was, its seconds included
    assert [q["id"] for q in whole["queries"]] == reads  # in the workload's order, kept or not

    # A class the last run could not judge for want of a server is judged again; the rest are kept.
    whole["queries"][1] = {**whole["queries"][1], "verdict": "error", "unreachable": True, "side": "target"}
    (out / "compare.json").write_text(json.dumps(whole), encoding="utf-8")
    again, _ = _compare(source, workload, mariadb, database, out, "--resume")
    assert again["summary"]["kept"] == READS - 1 and again["queries"][1]["verdict"] == "same"

    # Other settings judge every class again; so does a run without --resume.
    other, _ = _compare(source, workload, mariadb, database, out, "--resume", "--parameter-sets", "2")
    assert other["summary"]["kept"] == 0 and other["summary"]["classes"] == READS
    fresh, _ = _compare(source, workload, mariadb, database, out)
    assert fresh["summary"]["kept"] == 0
