"""Capture folders and saved capture-script output, read through the CLI like any other source."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

from typer.testing import CliRunner

from sqlsrv2tidb import api
from sqlsrv2tidb.cli import app
from sqlsrv2tidb.model import load_capture
from sqlsrv2tidb.outdir import write_json

sys.path.insert(0, str(Path(__file__).parent / "data"))
from test_catalog_mapping import live_document, script_document  # noqa: E402


def _schema(*args: str):
    return CliRunner().invoke(app, ["schema", "-q", *args])


def test_a_capture_folder_reads_through_the_schema_command(tmp_path):
    folder = tmp_path / "sales-capture"
    write_json(folder / "catalog.json", live_document())  # what `capture -o` writes
    result = _schema(str(folder))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "database: Sales"
    total = next(line for line in lines if line.startswith("total")).split()
    assert total[1] == "6"  # tables
    assert "workload: 4 query classes" in result.stdout
    assert "findings while reading: 1 medium" in result.stdout  # the encrypted procedure


def test_the_model_written_by_schema_json_reads_back_equal(tmp_path):
    folder = tmp_path / "cap"
    write_json(folder / "catalog.json", live_document())
    result = _schema(str(folder), "--json", str(tmp_path / "model.json"))
    assert result.exit_code == 0, result.output
    assert load_capture(tmp_path / "model.json") == api.read([folder])


def test_sqlcmd_output_with_header_messages_and_wrapped_rows_reads_like_the_live_capture(tmp_path):
    document = json.dumps(script_document(), separators=(",", ":"), ensure_ascii=False)
    wrapped = "\r\n".join(document[i : i + 2033] for i in range(0, len(document), 2033))
    saved = ("Warning: Null value is eliminated by an aggregate or other SET operation.\r\n"
             "sqlsrv2tidb_catalog\r\n" + "-" * 40 + "\r\n" + wrapped + "\r\n\r\n")
    path = tmp_path / "catalog-output.txt.json"
    path.write_bytes(b"\xff\xfe" + saved.encode("utf-16-le"))  # sqlcmd -u writes UTF-16
    offline = api.read([path])
    folder = tmp_path / "cap"
    write_json(folder / "catalog.json", live_document())
    live = api.read([folder])
    assert offline.database == live.database and offline.workload.intervals == live.workload.intervals
    assert [replace(q, source=None) for q in offline.workload.queries] == \
        [replace(q, source=None) for q in live.workload.queries]  # each names its own file
    assert offline.workload.queries[0].source.file == str(path)
    assert [f.rule for f in offline.findings] == [f.rule for f in live.findings]


def test_output_cut_short_is_one_clear_error(tmp_path):
    document = json.dumps(script_document(), separators=(",", ":"))
    path = tmp_path / "catalog.json"
    path.write_text("sqlsrv2tidb_catalog\n" + document[: len(document) // 2] + "}\n", encoding="utf-8")
    result = _schema(str(path))
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"Error: {path}:2: capture JSON is cut off or damaged")
    assert "sqlcmd -y 0" in result.stderr


def test_a_workload_beside_a_capture_without_query_store_answers_in31(tmp_path):
    """IN31 asks for the workload from a source beside a capture whose server has no Query Store: given one
    (as `assess --connection ... workload.sql` gives it), the capture has a workload and IN31 is not raised."""
    import yaml

    rule = Path(__file__).resolve().parents[2] / "rules" / "input" / "IN31.yaml"
    folder = tmp_path / "capture"
    folder.mkdir()
    (folder / "catalog.json").write_text(yaml.safe_load(rule.read_text())["examples"]["fires"], encoding="utf-8")
    workload = tmp_path / "workload.sql"
    workload.write_text("SELECT name FROM sys.tables WHERE name LIKE 'a%'\nGO\n", encoding="utf-8")
    alone, beside = api.read([folder]), api.read([folder, workload])
    assert "IN31" in {f.rule for f in alone.findings} and not alone.workload.queries
    assert "IN31" not in {f.rule for f in beside.findings} and len(beside.workload.queries) == 1
