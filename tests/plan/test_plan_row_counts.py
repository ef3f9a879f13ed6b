"""The rows a schema script inserts are the plan's and the report's row counts where no catalog counted them."""

from __future__ import annotations

import json
from pathlib import Path

from paths import CORPUS
from typer.testing import CliRunner

from sqlsrv2tidb import api
from sqlsrv2tidb.cli import app
from sqlsrv2tidb.options import Options

NORTHWIND = CORPUS / "northwind" / "instnwnd.sql"


def test_the_plan_takes_the_script_rows_and_says_so():
    plan = api.plan(api.read([NORTHWIND]), Options())
    tables = {t.name: t for t in plan.tables}
    # The counts of the script's own INSERT rows (tests/capture/test_corpus_schemas.py).
    assert (tables["Order Details"].row_count, tables["Order Details"].row_count_from) == (2155, "script")
    assert (tables["Orders"].row_count, tables["Orders"].row_count_from) == (830, "script")


def test_a_table_the_script_inserts_nothing_into_has_no_count(tmp_path: Path):
    script = tmp_path / "schema.sql"
    script.write_text("CREATE TABLE a (id int PRIMARY KEY)\nCREATE TABLE b (id int PRIMARY KEY)\nGO\n"
                      "INSERT a VALUES (1), (2)\nGO\n", encoding="utf-8")
    plan = api.plan(api.read([script]), Options())
    counts = {t.name: (t.row_count, t.row_count_from) for t in plan.tables}
    assert counts == {"a": (2, "script"), "b": (None, None)}


def test_the_report_shows_where_a_count_comes_from(tmp_path: Path):
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["assess", "--quiet", str(NORTHWIND), "-o", str(out)])
    assert result.exit_code in (0, 1), result.output
    doc = json.loads((out / "assessment.json").read_text(encoding="utf-8"))
    orders = next(t for t in doc["tables"] if t["name"] == "Orders")
    assert (orders["row_count"], orders["row_count_from"]) == (830, "script")
    page = (out / "report.html").read_text(encoding="utf-8")
    assert "830 (script)" in page
