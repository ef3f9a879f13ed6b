"""The output folder: never a user's own folder, files replaced whole, readable by the team."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from sqlsrv2tidb.errors import UsageError
from sqlsrv2tidb.outdir import WrittenDocument, prepare_output, write_json, write_text


def test_written_files_get_the_mode_a_new_file_would_not_the_temporary_files_private_one(tmp_path: Path):
    old = os.umask(0o022)
    try:
        report = write_text(tmp_path / "out" / "report.html", "<html></html>")
    finally:
        os.umask(old)
    assert stat.S_IMODE(report.stat().st_mode) == 0o644
    assert [p.name for p in report.parent.iterdir()] == ["report.html"]  # no temporary file left


def test_a_file_is_replaced_whole(tmp_path: Path):
    path = write_json(tmp_path / "assessment.json", {"format": "x", "n": 1})
    write_json(path, {"format": "x", "n": 2})
    assert path.read_text(encoding="utf-8") == '{\n "format": "x",\n "n": 2\n}\n'


def test_a_folder_of_the_users_own_files_is_refused(tmp_path: Path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(UsageError, match="already holds files this tool did not write"):
        prepare_output(tmp_path)
    assert (tmp_path / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize("ours", ["compare.json", "experiment.json", "capture/catalog.json"])
def test_a_folder_a_single_stage_wrote_is_written_into_again(tmp_path: Path, ours: str):
    """`compare -o OUT` run twice, or `assess --connection` stopped after its capture: OUT holds only that file."""
    write_json(tmp_path / ours, {"format": "x"})
    assert prepare_output(tmp_path) == tmp_path


def test_an_output_folder_inside_a_source_is_refused(tmp_path: Path):
    (tmp_path / "schema.sql").write_text("CREATE TABLE t (id int);")
    with pytest.raises(UsageError, match="overlaps the source"):
        prepare_output(tmp_path / "out", [tmp_path])


def test_assess_gives_the_document_it_wrote_without_holding_it_while_the_page_is_made(tmp_path: Path):
    """`assess` lets its document go before the page reads OUT's files back; the caller still gets the document,
    read from assessment.json when first asked for."""
    import json

    from sqlsrv2tidb import api
    from sqlsrv2tidb.options import Options

    example = Path(__file__).resolve().parents[1] / "examples" / "keywords"
    outcome = api.run_assess([example / "schema.sql", example / "workload.yaml"], tmp_path / "out", Options())
    assert isinstance(outcome.assessment, WrittenDocument)
    written = json.loads((tmp_path / "out" / "assessment.json").read_text(encoding="utf-8"))
    assert dict(outcome.assessment) == written and outcome.assessment["summary"] == written["summary"]
    assert len(written["queries"]) > 0
