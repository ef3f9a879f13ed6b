"""Usage errors keep the one-line contract: `Error: ...` on stderr, exit code 2, no usage box; help is unchanged."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sqlsrv2tidb.cli import app

runner = CliRunner()


@pytest.mark.parametrize(("args", "message"), [
    (["schema"], "Error: Missing argument 'sources'; see 'sqlsrv2tidb schema --help'"),
    (["schema", "--bogus", "x.sql"], "Error: No such option: --bogus; see 'sqlsrv2tidb schema --help'"),
    (["bogus"], "Error: No such command 'bogus'; see 'sqlsrv2tidb --help'"),
    (["ddl", "x.sql"], "Error: Missing option '--output' / '-o'; see 'sqlsrv2tidb ddl --help'"),
    (["rules", "show"], "Error: Missing argument 'code'; see 'sqlsrv2tidb rules show --help'"),
    (["capture-script", "--days", "x"], "Error: Invalid value for '--days': Input should be a valid number, unable to "
                                        "parse string as a number; see 'sqlsrv2tidb capture-script --help'"),
], ids=["missing-argument", "unknown-option", "unknown-command", "missing-option", "subcommand-group", "bad-value"])
def test_usage_error_is_one_line(args: list[str], message: str):
    result = runner.invoke(app, args, prog_name="sqlsrv2tidb")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == message + "\n"


def test_help_is_unchanged():
    result = runner.invoke(app, ["schema", "--help"], prog_name="sqlsrv2tidb")
    assert result.exit_code == 0
    assert "Usage: sqlsrv2tidb schema [OPTIONS]" in result.stdout and "--json" in result.stdout
    assert result.stderr == ""


def test_no_arguments_prints_help():
    result = runner.invoke(app, [], prog_name="sqlsrv2tidb")
    assert result.exit_code == 2
    assert "Usage: sqlsrv2tidb [OPTIONS] COMMAND" in result.stdout and "schema" in result.stdout
    assert result.stderr == ""


def test_version_and_command_exit_codes_pass_through(tmp_path: Path):
    assert runner.invoke(app, ["--version"]).exit_code == 0
    missing = runner.invoke(app, ["schema", "--quiet", str(tmp_path / "x.sql")])
    assert (missing.exit_code, missing.stderr) == (2, f"Error: {tmp_path / 'x.sql'}: no such file or folder\n")


def _console_script() -> str:
    beside = Path(sys.executable).parent / "sqlsrv2tidb"
    found = str(beside) if beside.exists() else shutil.which("sqlsrv2tidb")
    if found is None:
        pytest.skip("the sqlsrv2tidb console script is not installed")
    return found


def test_console_script_usage_error():
    done = subprocess.run([_console_script(), "schema", "--bogus"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == "Error: No such option: --bogus; see 'sqlsrv2tidb schema --help'\n"


def test_console_script_help():
    done = subprocess.run([_console_script(), "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Usage: sqlsrv2tidb" in done.stdout and done.stderr == ""
