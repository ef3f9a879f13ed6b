"""Broken input through the real CLI: one `Error:` line and exit code 2, or findings and a model; never a traceback."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from sqlsrv2tidb.cli import app
from sqlsrv2tidb.model import load_capture

runner = CliRunner()


def _schema(*args: str):
    return runner.invoke(app, ["schema", "--quiet", *args])


def _one_error_line(result, *names: str) -> str:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.output
    for name in names:
        assert name in result.stderr
    return result.stderr


def test_missing_file(tmp_path: Path):
    _one_error_line(_schema(str(tmp_path / "nowhere.sql")), "nowhere.sql", "no such file")


def test_binary_file(tmp_path: Path):
    path = tmp_path / "schema.sql"
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8)
    _one_error_line(_schema(str(path)), str(path), "binary")


def test_undecodable_file(tmp_path: Path):
    path = tmp_path / "schema.sql"
    path.write_bytes(b"CREATE TABLE t (a int) -- caf\x81\x8d\n")  # neither UTF-8 nor Windows-1252
    message = _one_error_line(_schema(str(path)), str(path))
    assert message == (f"Error: {path}: unreadable encoding: not UTF-8 (byte 29 at line 1, 0x81: invalid start byte) "
                       "nor Windows-1252 (byte 29 at line 1, 0x81, has no character in it); save it as UTF-8 or UTF-16\n")


def test_utf16_ending_in_half_a_surrogate_pair_is_read_up_to_it(tmp_path: Path):
    path = tmp_path / "schema.sql"
    path.write_bytes(b"\xff\xfe" + "CREATE TABLE t (a int)".encode("utf-16-le") + b"\x00\xd8")
    result = _schema(str(path), "--json", str(tmp_path / "model.json"))
    assert result.exit_code == 0, result.output
    capture = load_capture(tmp_path / "model.json")
    assert [t.name for t in capture.database.tables] == ["t"]
    assert [(f.rule, f.line) for f in capture.findings] == [("IN03", 1)]


def test_folder_without_sql(tmp_path: Path):
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "README.md").write_text("# nothing here\n")
    _one_error_line(_schema(str(tmp_path / "project")), "project", "no SQL")


def _read_with_findings(tmp_path: Path, text: str, encoding: str = "utf-8"):
    path = tmp_path / "schema.sql"
    path.write_bytes(text.encode(encoding))
    out = tmp_path / "model.json"
    result = _schema(str(path), "--json", str(out))
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    capture = load_capture(out)
    return result, capture, [(f.rule, f.line) for f in capture.findings]


def test_truncated_script_keeps_what_came_before(tmp_path: Path):
    text = "CREATE TABLE a (id int PRIMARY KEY)\nGO\nCREATE TABLE b (id int)\nGO\nINSERT a VALUES (1)\nPRINT 'cut off he"
    result, capture, findings = _read_with_findings(tmp_path, text)
    assert [t.name for t in capture.database.tables] == ["a", "b"]
    assert capture.database.table(None, "a").scripted_rows == 1
    assert findings == [("IN03", 6)]
    assert "findings while reading: 1 high" in result.stdout


def test_truncated_block_and_comment(tmp_path: Path):
    text = "CREATE TABLE a (id int)\nGO\nIF 1 = 1\nBEGIN\n  CREATE TABLE b (id int)\nGO\n/* unfinished /* nested */\n"
    _, capture, findings = _read_with_findings(tmp_path, text)
    assert [t.name for t in capture.database.tables] == ["a", "b"]
    assert findings == [("IN03", 4), ("IN03", 7)]


def test_unknown_statement_is_a_finding_and_reading_goes_on(tmp_path: Path):
    text = "CREATE TABLE a (id int)\nGO\nMAKE IT SO NUMBER ONE\nGO\nCREATE TABLE b (id int)\n"
    _, capture, findings = _read_with_findings(tmp_path, text)
    assert [t.name for t in capture.database.tables] == ["a", "b"]
    assert findings == [("IN01", 3)]
    assert capture.findings[0].details["statement"] == "MAKE IT SO NUMBER ONE"
    assert capture.findings[0].file.endswith("schema.sql")


def test_undefined_sqlcmd_variable(tmp_path: Path):
    text = ":setvar Known Sales\nCREATE TABLE [$(Known)].a (id int)\nGO\nCREATE TABLE [$(Unknown)].b (id int)\n"
    _, capture, findings = _read_with_findings(tmp_path, text)
    assert [t.qualified_name for t in capture.database.tables] == ["Sales.a", "$(Unknown).b"]
    assert findings == [("IN04", 4)]


def test_utf16_crlf_script_keeps_line_numbers(tmp_path: Path):
    text = "\ufeff/* header */\r\nSET NOCOUNT ON\r\nGO\r\n\r\nCREATE TABLE [dbo].[T] (\r\n  [ID] int NOT NULL\r\n)\r\nGO\r\n"
    _, capture, findings = _read_with_findings(tmp_path, text, encoding="utf-16-le")
    table = capture.database.tables[0]
    assert (table.source.line, table.columns[0].source.line) == (5, 6) and not findings
