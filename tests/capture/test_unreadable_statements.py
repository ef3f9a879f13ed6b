"""Damaged or empty input always leaves a finding with its file and line; nothing reads as silently fine."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sqlsrv2tidb.capture.sqlfile import split_go
from sqlsrv2tidb.cli import app
from sqlsrv2tidb.model import load_capture

runner = CliRunner()


def _read(tmp_path: Path, *files: tuple[str, str]):
    paths = []
    for name, text in files:
        (tmp_path / name).write_text(text, encoding="utf-8")
        paths.append(str(tmp_path / name))
    out = tmp_path / "model.json"
    result = runner.invoke(app, ["schema", "--quiet", *paths, "--json", str(out)])
    assert result.exit_code == 0, result.output
    return result, load_capture(out)


def _findings(capture) -> list[tuple[str, str, str | None, int | None, str]]:
    return [(f.rule, f.severity.value, Path(f.file).name if f.file else None, f.line, f.message) for f in capture.findings]


# -- statements of a workload file that are neither DDL nor readable SQL --------------------------------
@pytest.mark.parametrize(("text", "reason"), [
    ("CREATE TABLE\n", "CREATE TABLE names no object"),
    ("IF NOT EXISTS (SELECT 1)\n", "IF has no statement after its condition"),
    (("qz~x!%w &^ " * 20)[:200] + "\n", "Invalid expression / Unexpected token near '~' (line 1, column 3)"),
    ("SELECT id FROM dbo.t WHERE\n", "Required keyword: 'this' missing for <class 'sqlglot.expressions.query.Where'> "
                                     "near 'WHERE' (line 1, column 26)"),
    ("BEGIN\n  SELECT 1\n", "a BEGIN (or CASE) has no END"),
], ids=["create-table-alone", "if-alone", "gibberish", "cut-where", "begin-alone"])
def test_unreadable_statement_is_a_finding(tmp_path: Path, text: str, reason: str):
    result, capture = _read(tmp_path, ("work.sql", text))
    assert len(capture.workload.queries) == 1  # kept, nothing lost
    assert _findings(capture) == [("IN48", "medium", "work.sql", 1, f"statement at line 1 is not readable T-SQL "
                                   f"({reason}); it is kept as a query class, but cannot be translated or replayed")]
    assert capture.findings[0].object == f"{tmp_path / 'work.sql'}:1"
    assert "findings while reading: 1 medium" in result.stdout


def test_only_the_unreadable_statement_is_reported_at_its_file_line(tmp_path: Path):
    text = "SELECT 1;\nGO\nSELECT name\nFROM dbo.t\nWHERE\nGO\nUPDATE dbo.t SET a = 1 WHERE id = 2;\n"
    _, capture = _read(tmp_path, ("work.sql", text))
    assert len(capture.workload.queries) == 3
    assert [(rule, line) for rule, _, _, line, _ in _findings(capture)] == [("IN48", 3)]
    assert "(line 5, column 5)" in capture.findings[0].message  # the parser's position, as a line of the file


def test_readable_workload_has_no_finding(tmp_path: Path):
    text = ("DECLARE @id int = 5\nSELECT * FROM dbo.t WHERE id = @id\nGO\nIF @@TRANCOUNT > 0 COMMIT\nGO\n"
            "BEGIN TRY\n  SELECT CASE WHEN 1 = 1 THEN 'a' END\nEND TRY\nBEGIN CATCH\n  THROW;\nEND CATCH\nGO 3\n")
    _, capture = _read(tmp_path, ("work.sql", text))
    assert capture.workload.queries and not capture.findings


def test_go_inside_a_block_comment_does_not_split():
    text = "SELECT 1\nGO\n/* clean up\nDROP TABLE dbo.t;\nGO\n*/\nSELECT 'a\nGO\nb'\nGO\nSELECT 3\n"
    assert [(b.line, b.text.strip()) for b in split_go(text)] == [
        (1, "SELECT 1"), (2, "/* clean up\nDROP TABLE dbo.t;\nGO\n*/\nSELECT 'a\nGO\nb'"), (10, "SELECT 3")]


# -- empty sources -----------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["", "\n  \n", "-- exported by the job\nGO\n/* nothing */\n"], ids=["empty", "blank", "comments"])
def test_empty_file_is_named(tmp_path: Path, text: str):
    result, capture = _read(tmp_path, ("empty.sql", text), ("schema.sql", "CREATE TABLE dbo.t (id int)\n"))
    assert [t.name for t in capture.database.tables] == ["t"]
    assert _findings(capture) == [("IN17", "low", "empty.sql", None, "no statements: the file is empty or holds only "
                                   "comments and GO lines, so nothing was read from it")]
    assert capture.findings[0].object == str(tmp_path / "empty.sql")
    assert "findings while reading: 1 low" in result.stdout


def test_declarations_alone_are_not_an_empty_file(tmp_path: Path):
    _, capture = _read(tmp_path, ("work.sql", "DECLARE @n int = 5\n"))
    assert not capture.findings


# -- modules and names ---------------------------------------------------------------------------------
def test_module_without_end_is_kept_and_flagged(tmp_path: Path):
    _, capture = _read(tmp_path, ("schema.sql", "CREATE TABLE dbo.t (id int)\nGO\nCREATE PROCEDURE p AS BEGIN SELECT 1\n"))
    assert [m.qualified_name for m in capture.database.modules] == ["dbo.p"]
    assert _findings(capture) == [("IN03", "high", "schema.sql", 3, "procedure dbo.p: BEGIN at line 3 has no END before "
                                   "the end of the module, so its text was probably cut off; it is kept as written")]
    assert capture.findings[0].object == "dbo.p"


def test_module_with_an_end_too_many(tmp_path: Path):
    text = "CREATE PROCEDURE dbo.p AS\nBEGIN\n  SELECT CASE WHEN 1 = 1 THEN 1 END\n  END\nEND\n"
    _, capture = _read(tmp_path, ("schema.sql", text))
    assert [m.qualified_name for m in capture.database.modules] == ["dbo.p"]
    assert _findings(capture) == [("IN02", "high", "schema.sql", 5, "procedure dbo.p: END at line 5 closes no BEGIN or "
                                   "CASE, so SQL Server would reject the module; it is kept as written")]


def test_balanced_modules_have_no_finding(tmp_path: Path):
    text = ("CREATE TABLE dbo.t (id int)\nGO\n"
            "CREATE PROC dbo.q AS\nBEGIN TRY\n  BEGIN TRAN;\n  SELECT CASE WHEN 1 = 1 THEN 1 END;\n  COMMIT\n"
            "END TRY\nBEGIN CATCH\n  ROLLBACK\nEND CATCH\nGO\n"
            "CREATE PROCEDURE dbo.n WITH NATIVE_COMPILATION, SCHEMABINDING AS\n"
            "BEGIN ATOMIC WITH (TRANSACTION ISOLATION LEVEL = SNAPSHOT, LANGUAGE = N'English')\n"
            "  SELECT id FROM dbo.t;\nEND\nGO\n"
            "CREATE FUNCTION dbo.f (@a int) RETURNS int AS BEGIN RETURN CASE WHEN @a > 0 THEN 1 ELSE 0 END END\n")
    _, capture = _read(tmp_path, ("schema.sql", text))
    assert sorted(m.name for m in capture.database.modules) == ["f", "n", "q"]
    assert not capture.findings


def test_name_with_more_than_four_parts(tmp_path: Path):
    text = "CREATE TABLE [a].[a].[a].[a].t (id int)\nGO\nCREATE TABLE srv.db.dbo.u (id int)\n"
    _, capture = _read(tmp_path, ("schema.sql", text))
    assert [t.qualified_name for t in capture.database.tables] == ["dbo.u"]  # not a.t
    assert _findings(capture) == [("IN02", "high", "schema.sql", 1, "could not read this statement (the name a.a.a.a.t "
                                   "has 5 parts; SQL Server names have at most 4: server.database.schema.object at line "
                                   "1); the object is missing or incomplete in the schema model")]


def test_module_swallowing_the_next_one_for_want_of_go(tmp_path: Path):
    text = ("CREATE PROCEDURE dbo.a AS\nBEGIN\n  EXEC ('CREATE VIEW v AS SELECT 1')\nEND\n\n"
            "CREATE OR ALTER PROCEDURE dbo.b AS SELECT 1\n")
    _, capture = _read(tmp_path, ("schema.sql", text))
    assert [m.qualified_name for m in capture.database.modules] == ["dbo.a"]
    assert "CREATE OR ALTER PROCEDURE dbo.b" in capture.database.modules[0].definition
    assert _findings(capture) == [("IN02", "high", "schema.sql", 6, "procedure dbo.a: CREATE OR ALTER PROCEDURE at line 6 "
                                   "is inside its text (a module must be alone in its batch: is a GO missing before "
                                   "line 6?), so the module it defines is not read; the text is kept as written")]
