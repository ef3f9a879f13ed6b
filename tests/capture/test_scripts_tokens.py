"""The T-SQL tokenizer and the batch splitter: strings, names, comments, GO, SQLCMD, line numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from sqlsrv2tidb.capture.ddl.batches import BatchSplitter, SqlcmdState
from sqlsrv2tidb.capture.ddl.problems import Findings, snippet
from sqlsrv2tidb.capture.ddl.tokens import (
    BINARY,
    COMMAND,
    GO,
    NUMBER,
    QUOTED,
    ROWS,
    STRING,
    UNTERMINATED,
    VARIABLE,
    WORD,
    Problem,
    Source,
    tokenize,
)


def _tokens(text: str, sqlcmd: bool = True):
    problems: list[Problem] = []
    return [(t.kind, t.value) for t in tokenize(Source("t.sql", text), problems, sqlcmd)], problems


def test_strings_and_delimited_names_unescape():
    tokens, problems = _tokens("N'it''s' 'x' [a]]b] \"Order \"\"Details\"\"\" [Order Details]")
    assert tokens == [
        (STRING, "it's"), (STRING, "x"), (QUOTED, "a]b"), (QUOTED, 'Order "Details"'), (QUOTED, "Order Details"),
    ]
    assert not problems


def test_numbers_binary_variables_and_words():
    tokens, _ = _tokens("SELECT 1.5e3, 0x1F, @x, @@ROWCOUNT, #tmp, $12.50 FROM dbo.t")
    kinds = [k for k, _ in tokens if k != "op"]
    assert kinds == [WORD, NUMBER, BINARY, VARIABLE, VARIABLE, WORD, NUMBER, WORD, WORD, WORD]
    assert tokens[0] == (WORD, "SELECT")


def test_comments_nest_and_disappear():
    tokens, problems = _tokens("a /* one /* two */ still comment */ b -- tail\nc")
    assert [v for _, v in tokens] == ["A", "B", "C"]
    assert not problems


@pytest.mark.parametrize(("text", "what"), [
    ("SELECT 'open", "string"),
    ("SELECT [open", "identifier ["),
    ('SELECT "open', 'identifier "'),
    ("SELECT 1 /* open /* nested */", "comment"),
])
def test_unterminated_text_is_one_token_and_a_problem(text, what):
    tokens, problems = _tokens(text)
    assert tokens[-1][0] == UNTERMINATED
    assert len(problems) == 1 and what in problems[0].message


def test_go_only_alone_on_its_line_with_an_optional_count():
    tokens, _ = _tokens("SELECT 1\nGO\nSELECT go_col FROM t\n  go 5 -- repeat\nGO;\n")
    gos = [(k, v) for k, v in tokens if k == GO]
    assert gos == [(GO, "1"), (GO, "5")]
    assert (WORD, "GO_COL") in tokens and (WORD, "GO") in tokens  # `GO;` is not a batch separator


def test_sqlcmd_commands_only_at_a_line_start_and_not_inside_strings():
    tokens, _ = _tokens(":setvar X 1\nSELECT ':setvar Y 2'\n  :r other.sql\nSELECT a::b")
    assert [(k, v) for k, v in tokens if k == COMMAND] == [(COMMAND, "setvar X 1"), (COMMAND, "r other.sql")]
    assert (STRING, ":setvar Y 2") in tokens


def test_line_numbers_match_the_file():
    source = Source("t.sql", "SELECT 1\n/* two\nthree */\nCREATE TABLE t (\n a int)\n")
    tokens = list(tokenize(source, []))
    assert [(t.value, t.line) for t in tokens if t.kind == WORD] == [
        ("SELECT", 1), ("CREATE", 4), ("TABLE", 4), ("T", 4), ("A", 5), ("INT", 5)]


def test_snippet_is_one_line_stops_at_the_statement_end_and_masks_passwords():
    text = "CREATE LOGIN app WITH PASSWORD = 'S3cret!''x', CHECK_POLICY = OFF;\nGO\nSELECT 1"
    assert snippet(Source("t.sql", text), 0) == "CREATE LOGIN app WITH PASSWORD = '***', CHECK_POLICY = OFF;"
    long = "INSERT t VALUES (" + ", ".join(str(i) for i in range(100)) + ")"
    assert len(snippet(Source("t.sql", long), 0)) == 80


def _batches(text: str, path: Path | None = None, state: SqlcmdState | None = None, defined=lambda table: False):
    findings = Findings()
    splitter = BatchSplitter(findings, state or SqlcmdState(), defined=defined)
    batches = list(splitter.batches(Source(str(path or "t.sql"), text), path))
    return batches, findings.items


def test_go_splits_batches_and_go_n_repeats():
    batches, findings = _batches("CREATE TABLE a (x int)\nGO\nINSERT a VALUES (1)\nGO 3\nEXEC sp_end")
    assert [(b.tokens[0].value, b.repeat) for b in batches] == [("CREATE", 1), ("INSERT", 3), ("EXEC", 1)]
    assert not findings


def test_data_statements_leave_one_token_per_table_and_none_for_what_is_skipped():
    """INSERT ... VALUES rows into a table already defined are passed over as one token per run of rows into it;
    into a table not defined (yet), one token per statement, so each can be reported at its line. PRINT and SET
    leave none."""
    text = ("SET IDENTITY_INSERT a ON\nINSERT a VALUES (1)\nINSERT [a] (x) VALUES (2), (3);\n"
            "PRINT 'b'\nINSERT b VALUES (CAST(N'x)' AS nvarchar(9)))\nGO\nPRINT 'only'\nGO")
    batches, _ = _batches(text, defined=lambda table: True)
    assert len(batches) == 1
    assert [(t.kind, t.target, t.rows, t.line) for t in batches[0].tokens] == [(ROWS, ("a",), 3, 2), (ROWS, ("b",), 1, 5)]
    batches, _ = _batches(text)
    assert [(t.target, t.rows, t.line) for t in batches[0].tokens] == [(("a",), 1, 2), (("a",), 2, 3), (("b",), 1, 5)]


def test_setvar_substitutes_everywhere_and_glues_to_adjacent_words():
    text = (':setvar Db "Adventure Works"\n:setvar Suffix 2024\n'
            "USE [$(Db)]\nCREATE DATABASE Sales$(Suffix)\nPRINT N'$(Db) ready'")
    batches, findings = _batches(text)
    values = [(t.kind, t.value) for t in batches[0].tokens]
    assert (QUOTED, "Adventure Works") in values
    assert (WORD, "SALES2024") in values
    assert (STRING, "Adventure Works ready") in values
    assert not findings


def test_undefined_variable_is_a_finding_once_per_file_and_kept_as_written():
    batches, findings = _batches("CREATE TABLE [$(Schema)].a (x int)\nCREATE TABLE $(Schema).b (x int)\n")
    assert [f.rule for f in findings] == ["IN04"]
    assert findings[0].line == 1 and "$(Schema)" in findings[0].message
    assert any(t.value == "$(Schema)" for t in batches[0].tokens)


def test_setvar_without_value_removes_and_variables_ignore_case():
    state = SqlcmdState()
    _batches(":setvar Name x\n:setvar NAME\n", state=state)
    assert state.lookup("name") is None
    _batches(":setvar Name x\n", state=state)
    assert state.lookup("NAME") == "x"


def test_include_is_read_relative_to_the_script_with_windows_separators_and_case(tmp_path: Path):
    (tmp_path / "Data").mkdir()
    (tmp_path / "Data" / "Seed.sql").write_text("INSERT t VALUES (1)\nGO\n", encoding="utf-8")
    main = tmp_path / "deploy.sql"
    main.write_text(":setvar Folder data\nCREATE TABLE t (x int)\nGO\n:r .\\$(Folder)\\seed.SQL\nPRINT 'done'\n")
    batches, findings = _batches(main.read_text(), main)
    assert not findings
    first_words = [b.tokens[0].value for b in batches]
    assert first_words == ["CREATE", "INSERT", "PRINT"]
    seed_token = batches[1].tokens[0]
    assert seed_token.source.path.endswith("Seed.sql") and seed_token.line == 1


def test_missing_include_and_self_include_are_findings(tmp_path: Path):
    main = tmp_path / "deploy.sql"
    main.write_text(":r missing.sql\n:r deploy.sql\nCREATE TABLE t (x int)\n")
    batches, findings = _batches(main.read_text(), main)
    assert [f.rule for f in findings] == ["IN05", "IN05"]
    assert "missing.sql" in findings[0].message and "itself" in findings[1].message
    assert batches[0].tokens[0].value == "CREATE"


def test_other_sqlcmd_commands_are_skipped_with_a_finding():
    batches, findings = _batches(":connect server2\n:on error exit\n!!dir\nCREATE TABLE t (x int)\n")
    assert [(f.rule, f.line) for f in findings] == [("IN06", 1), ("IN06", 3)]
    assert batches[0].tokens[0].value == "CREATE"
