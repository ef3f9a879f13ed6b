"""The streaming script reader reads what cutting every statement into tokens reads, data passed over or not.

`read_scripts(..., pass_over=False)` sends every statement to the tokenizer, as the reader did
when it held the whole text; the default passes INSERT rows, SET, PRINT, UPDATE and the other
skipped statements over (capture/ddl/stream.py). Both must give the same model and findings for
real scripts with their data, for those scripts damaged at random (quotes, comments, GO lines,
BEGIN/END, SQLCMD commands pasted in), and read from disk in blocks of a few bytes, so that
every statement, string and comment is cut somewhere by a block's end.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from paths import CORPUS

from sqlsrv2tidb.capture.scripts import looks_like_schema, read_scripts
from sqlsrv2tidb.capture.textfile import TextFile, open_text, read_text


class _Ticks:
    def advance(self, n: int = 1) -> None:
        pass

    def update(self, description: str) -> None:
        pass


def _read(files: list[TextFile], pass_over: bool):
    database, findings = read_scripts(files, _Ticks(), pass_over=pass_over)
    rows_elsewhere = {(f.object, f.file) for f in findings if f.rule == "IN07" and f.message.startswith("rows for")}
    return database, findings, rows_elsewhere


def _same(files: list[TextFile]) -> None:
    slow = _read(files, pass_over=False)
    fast = _read(files, pass_over=True)
    assert fast[0] == slow[0]
    assert fast[1] == slow[1]  # findings too: rows into a table never defined are reported statement by statement


@pytest.fixture(scope="module")
def data_scripts() -> dict[str, str]:
    """Scripts with their data: SSMS-style rows (Northwind, UTF-16), multi-row VALUES (Chinook), UPDATE and DECLARE."""
    names = {
        "northwind": CORPUS / "northwind" / "instnwnd.sql",
        "chinook": CORPUS / "chinook" / "Chinook_SqlServer_AutoIncrementPKs.sql",
        "borders": CORPUS / "wwi-oltp-ssdt" / "PostDeploymentScripts" / "pds142-upd-app-stateprovinces-borders.sql",
        "cities": CORPUS / "wwi-oltp-ssdt" / "PostDeploymentScripts" / "pds150-ins-app-cities-k.sql",
    }
    return {name: read_text(path).text for name, path in names.items()}


@pytest.mark.parametrize("name", ["northwind", "chinook", "borders", "cities"])
def test_a_data_script_reads_the_same_passed_over(data_scripts: dict[str, str], name: str):
    text = data_scripts[name]
    if name in ("borders", "cities"):  # data files alone: give them the tables they write to
        text = "CREATE TABLE Application.StateProvinces (a int)\nCREATE TABLE Application.Cities (a int)\nGO\n" + text
    _same([TextFile(Path(f"{name}.sql"), text)])


_JUNK = ["(", ")", "'", "N'", "[", "]", '"', "/*", "*/", "--", "\nGO\n", "\nGO 3\n", ";", ",", "BEGIN ", "END ",
         "CASE ", "IF 1 = 1 ", "ELSE ", "MERGE t USING s ON 1 = 1 ", "CREATE PROCEDURE p AS ", "CREATE TABLE ",
         "INSERT ", "INSERT x VALUES (1)\n", "UPDATE ", "SET ", "PRINT ", "\n:setvar v 1\n", "\n:r none.sql\n",
         "$(v)", "'$(v)'", "GRANT ", "INTO ", "VALUES ", ":", "\n"]


def _damage(text: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 6)):
        how = rng.choice(["cut", "hole", "junk", "junk", "junk"])
        at = rng.randrange(len(text))
        if how == "cut":
            text = text[: max(at, len(text) * 9 // 10)]
        elif how == "hole":
            text = text[:at] + text[at + rng.randrange(1, 400):]
        else:
            text = text[:at] + rng.choice(_JUNK) + text[at:]
    return text


@pytest.mark.parametrize("seed", range(40))
def test_a_damaged_data_script_reads_the_same_passed_over(data_scripts: dict[str, str], seed: int):
    rng = random.Random(seed)
    name = ["northwind", "chinook", "cities", "borders"][seed % 4]
    text = data_scripts[name]
    if name == "northwind":  # the part with tables, views, procedures and the first rows
        text = text[:160_000]
    _same([TextFile(Path("damaged.sql"), _damage(text, rng))])


@pytest.mark.parametrize("block_size", [7, 64, 1000])
def test_blocks_of_a_few_bytes_read_the_same(tmp_path: Path, data_scripts: dict[str, str], block_size: int):
    """Every statement, string and comment is cut by a block's end somewhere; UTF-16 and CRLF as SSMS saves."""
    text = data_scripts["northwind"][:120_000] + "\n" + data_scripts["chinook"][-30_000:]
    path = tmp_path / "blocks.sql"
    path.write_bytes("\ufeff".encode("utf-16-le") + text.replace("\n", "\r\n").encode("utf-16-le"))
    whole = _read([TextFile(path, text)], pass_over=False)
    streamed = _read([open_text(path, block_size=block_size)], pass_over=True)
    assert streamed == whole


def test_looks_like_schema_agrees_on_blocks(data_scripts: dict[str, str]):
    """Telling a schema script from a file of statements gives the same answer on blocks as on the whole text."""
    rng = random.Random(5)
    texts = [data_scripts["cities"], data_scripts["borders"], "SELECT 'CREATE TABLE x (a int)'\n-- CREATE TABLE y\n",
             "/* a comment\nCREATE TABLE z (a int)\n*/ SELECT 1\n", "SELECT 1 /* not closed\nCREATE TABLE q (a int)\n"]
    texts += [_damage(data_scripts["northwind"][:50_000], rng) for _ in range(6)]
    for text in texts:
        lines = text.splitlines(keepends=True)
        blocks = ["".join(lines[i:i + 3]) for i in range(0, len(lines), 3)]
        assert looks_like_schema(iter(blocks)) == looks_like_schema(text), text[:80]


_TRICKY = """\
CREATE TABLE t (a int, b nvarchar(20));
CREATE TABLE [dbo].[Order Details] (a int)
INSERT t VALUES (1, N'after a CREATE TABLE, no semicolon')
GO
SET IDENTITY_INSERT t ON
INSERT t (a, b) VALUES (2, N'x'), (3, N'it''s (not) a paren')
INSERT INTO [dbo].[Order Details] VALUES (CAST(N'2020-01-01T00:00:00.000' AS DateTime))
SET IDENTITY_INSERT t OFF
GO 3
CREATE PROCEDURE p AS
BEGIN
    SET NOCOUNT ON;
    INSERT t VALUES (4, N'inside a procedure');
    UPDATE t SET b = N'u' WHERE a = 4;
END
GO
CREATE PROCEDURE q AS
SET NOCOUNT ON;
INSERT t VALUES (4, N'in a procedure with no BEGIN');
GO
CREATE TRIGGER tr ON t AFTER INSERT AS
    INSERT t VALUES (5, N'inside a trigger');
GO
IF NOT EXISTS (SELECT 1 FROM t WHERE a = 6)
    INSERT t VALUES (6, N'under an IF')
ELSE
    INSERT t VALUES (7, N'under its ELSE');
INSERT t VALUES (8, N'after the IF');
BEGIN TRY
    INSERT t VALUES (9, N'in a TRY block');
END TRY
BEGIN CATCH
    PRINT 'caught';
END CATCH;
BEGIN TRANSACTION
DECLARE @n int = 10; DECLARE @t TABLE (a int)
INSERT @t VALUES (1)
INSERT #tmp VALUES (1)
INSERT t VALUES (@n, N'after DECLARE')
MERGE t USING (SELECT 11 AS a) s ON t.a = s.a WHEN NOT MATCHED THEN INSERT (a) VALUES (s.a);
INSERT t VALUES (12, N'after MERGE')
GRANT INSERT ON t TO someone;
INSERT t VALUES (13, N'after GRANT') -- a comment
/* a block comment */ INSERT t VALUES (14, N'after a comment'), -- between rows
    (15, N'x')
INSERT TOP (1) INTO t SELECT 16, N'top'
INSERT t WITH (TABLOCK) VALUES (17, N'hint')
INSERT t OUTPUT inserted.a VALUES (18, N'output')
INSERT t DEFAULT VALUES
INSERT t EXEC p
INSERT t SELECT a, b FROM t
INSERT missing VALUES (19)
INSERT missing VALUES (20)
INSERT pubs..t VALUES (21, N'two dots')
INSERT srv.pubs.dbo.t VALUES (22, N'four parts')
INSERT t VALUES (23, N'$(v) is a SQLCMD variable')
INSERT t VALUES (24, N'no end'), ;
here: INSERT t VALUES (25, N'after a label')
UPDATE t SET b = CASE WHEN a > 1 THEN N'big' ELSE N'small' END WHERE a IN (SELECT a FROM t)
DELETE FROM t WHERE a = 1; PRINT 'deleted'
INSERT t VALUES (26,
GO
INSERT t VALUES (27, N'cut off')
"""


def test_tricky_statements_read_the_same_passed_over():
    """Procedures and triggers keep their INSERTs as text; IF/ELSE, TRY, MERGE, GRANT, labels, hints, `$(var)`,
    comments, temporary tables and odd shapes read as the tokenizer reads them."""
    _same([TextFile(Path("tricky.sql"), _TRICKY)])
    database, findings, rows_elsewhere = _read([TextFile(Path("tricky.sql"), _TRICKY)], pass_over=True)
    procedures = {m.name: m.definition for m in database.modules}
    assert "INSERT t VALUES (4, N'inside a procedure');" in procedures["p"]
    assert "INSERT t VALUES (4, N'in a procedure with no BEGIN');" in procedures["q"]
    # 1, then 2 and 3 three times (GO 3); none in the procedure and the trigger; 6 to 25 and 27 but 10, 11, 16,
    # 19, 20 and 26 (a variable's and a MERGE's, the SELECT's, the missing table's, the cut-off one), and 17 once
    # for each of DEFAULT VALUES and DECLARE's @n; `pubs..t` and `srv.pubs.dbo.t` are dbo.t.
    assert database.table(None, "t").scripted_rows == 1 + 3 * 2 + 18
    assert rows_elsewhere == {("dbo.missing", "tricky.sql")}


def test_go_between_rows_keeps_each_batch_and_its_repeat():
    """`GO 5` repeats its own batch only, not the rows of the batches before it that were passed over."""
    text = ("CREATE TABLE t (a int)\nCREATE TABLE u (a int)\nGO\nINSERT t VALUES (1)\nGO\nINSERT t VALUES (2)\n"
            "  go  -- the second\nINSERT t VALUES (3)\n\n-- a comment line\nGO 5\nINSERT t VALUES (4)\nGO\n"
            "INSERT u WITH (TABLOCK) VALUES (1);\nINSERT u VALUES (2)\nGO\nINSERT u VALUES (3)\nGO 3\n"
            "INSERT t VALUES (5)\nINSERT u VALUES (4)\nGO\nINSERT u VALUES (5)\nGO\nINSERT t VALUES (6)\nGO 2\n"
            "INSERT v VALUES (1)\nGO\nINSERT v VALUES (2)\nGO 4\n")
    _same([TextFile(Path("go.sql"), text)])
    database, findings, _ = _read([TextFile(Path("go.sql"), text)], pass_over=True)
    assert database.table(None, "t").scripted_rows == 1 + 1 + 5 + 1 + 1 + 2
    assert database.table(None, "u").scripted_rows == 2 + 3 + 1 + 1
    assert [f.line for f in findings if f.rule == "IN07"] == [26, 28]  # v is never defined: each INSERT is named
