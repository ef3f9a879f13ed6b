"""The report's data section: what a data run left in OUT, on the same page as the assessment."""

from __future__ import annotations

import json

import pytest
from data_helpers import copy_args, data
from typer.testing import CliRunner

from sqlsrv2tidb.cli import app


@pytest.mark.slow
def test_the_report_shows_the_data_run_beside_the_assessment(mariadb, database, chinook, tmp_path):
    out = tmp_path / "out"
    assessed = CliRunner().invoke(app, ["assess", str(chinook.capture), "-o", str(out), "-q"])
    assert assessed.exit_code == 0, assessed.output
    with mariadb.connect(database) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE track_copy_marker (x INT)")  # a table of the user's that the load leaves alone
    copied = data(*copy_args(chinook, mariadb, database, out, "--create-tables", "--table", "genre",
                             "--table", "mediatype"))
    assert copied.exit_code == 0, copied.output
    with mariadb.connect(database) as conn, conn.cursor() as cur:
        cur.execute("UPDATE genre SET name = 'planted' WHERE genreid = 3")
    verified = data("verify", "-o", str(out), "--connection", chinook.connection, "--target", mariadb.url(database),
                    "--table", "genre", "--table", "mediatype", str(chinook.capture))
    assert verified.exit_code == 0, verified.output
    rendered = CliRunner().invoke(app, ["report", str(out), "-q"])
    assert rendered.exit_code == 0, rendered.output
    page = (out / "report.html").read_text(encoding="utf-8")
    section = page.split('<section id="data"', 1)[1].split("</section>", 1)[0]
    assert 'href="#data"' in page and "Verified against SQL Server" in section
    assert "dbo.genre" in section and "values differ" in section and "genreid=3" in section
    assert "Data in the target" in page.split('<section id="summary"', 1)[1].split("</section>", 1)[0]
    shared = CliRunner().invoke(app, ["report", str(out), "--anonymize", "-q"])
    assert shared.exit_code == 0, shared.output
    copy = json.loads((out / "anonymized" / "data.json").read_text(encoding="utf-8"))
    assert "genre" not in json.dumps(copy).lower() and copy["summary"]["different"] == 1
