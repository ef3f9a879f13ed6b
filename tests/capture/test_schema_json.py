"""`schema --json FILE`: the file's place is checked before any source is read, and it is written whole."""

from __future__ import annotations

import os
from pathlib import Path

from typer.testing import CliRunner

from sqlsrv2tidb.cli import app
from sqlsrv2tidb.model import load_capture

runner = CliRunner()
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "keywords"


def _fails(*args: str) -> str:
    result = runner.invoke(app, ["schema", "--quiet", *args])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""  # no summary before the error
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output, result.stderr
    return result.stderr


def test_missing_folder(tmp_path: Path):
    target = tmp_path / "nowhere" / "x.json"
    assert _fails(str(EXAMPLE), "--json", str(target)) == (
        f"Error: --json {target}: folder {tmp_path / 'nowhere'} does not exist\n")
    assert not (tmp_path / "nowhere").exists()


def test_folder_given_as_file(tmp_path: Path):
    assert _fails(str(EXAMPLE), "--json", str(tmp_path)) == (
        f"Error: --json {tmp_path} is a folder; give a file name, e.g. {tmp_path / 'capture.json'}\n")


def test_checked_before_the_sources_are_read(tmp_path: Path):
    target = tmp_path / "nowhere" / "x.json"
    message = _fails(str(tmp_path / "missing.sql"), "--json", str(target))
    assert message == f"Error: --json {target}: folder {tmp_path / 'nowhere'} does not exist\n"


def test_source_is_never_overwritten(tmp_path: Path):
    script = tmp_path / "schema.sql"
    script.write_text("CREATE TABLE t (id int)\n", encoding="utf-8")
    assert _fails(str(script), "--json", str(script)) == f"Error: --json {script} would overwrite a source\n"
    assert script.read_text(encoding="utf-8") == "CREATE TABLE t (id int)\n"


def test_written_whole_through_a_temporary_file(tmp_path: Path):
    target = tmp_path / "model.json"
    target.write_text("old", encoding="utf-8")
    result = runner.invoke(app, ["schema", "--quiet", str(EXAMPLE), "--json", str(target)])
    assert result.exit_code == 0, result.output
    assert result.stderr == f"Wrote {target}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.json"]  # no temporary file left
    assert oct(target.stat().st_mode & 0o777) == oct(0o666 & ~_umask())
    assert load_capture(target).database.tables


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
