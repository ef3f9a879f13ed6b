"""How a file's bytes become text: damage is repaired and reported, a guessed code page is said, never silent."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sqlsrv2tidb.capture.textfile import decode, open_text
from sqlsrv2tidb.cli import app
from sqlsrv2tidb.model import load_capture

runner = CliRunner()


def _read(tmp_path: Path, data: bytes):
    path = tmp_path / "schema.sql"
    path.write_bytes(data)
    out = tmp_path / "model.json"
    result = runner.invoke(app, ["schema", "--quiet", str(path), "--json", str(out)])
    assert result.exit_code == 0, result.output
    capture = load_capture(out)
    return path, capture, [(f.rule, f.severity.value, f.line, f.message) for f in capture.findings]


def test_utf8_cut_inside_its_last_character_keeps_the_text_before(tmp_path: Path):
    data = "CREATE TABLE [Café] (id int)\nGO\n-- 日本".encode()[:-1]
    path, capture, findings = _read(tmp_path, data)
    assert [t.name for t in capture.database.tables] == ["Café"]  # not CafÃ©
    assert findings == [("IN03", "high", 3, "truncated file: its last 2 byte(s) (0xE6 0x9C, line 3) start a UTF-8 "
                         "character that the file never finishes, so it was probably cut off; the text before them "
                         "is read")]
    assert capture.findings[0].file == str(path)


def test_japanese_utf8_cut_is_read_as_utf8_not_an_encoding_error(tmp_path: Path):
    data = "-- 日本語のコメント\nCREATE TABLE [注文] (id int)\n-- 終わり".encode()[:-2]
    _, capture, findings = _read(tmp_path, data)
    assert [t.name for t in capture.database.tables] == ["注文"]
    assert [(rule, line) for rule, _, line, _ in findings] == [("IN03", 3)]


def test_a_few_bad_bytes_in_utf8_become_replacement_characters(tmp_path: Path):
    good = "-- 日本語のコメント\nCREATE TABLE [注文] (id int)\nCREATE TABLE [顧客] (id int)\n".encode()
    data = good.replace("顧".encode(), b"\xe9")  # one Windows-1252 é among UTF-8 characters
    _, capture, findings = _read(tmp_path, data)
    assert [t.name for t in capture.database.tables] == ["注文", "\ufffd客"]
    assert findings == [("IN15", "medium", 3, "1 byte(s) are not valid UTF-8 (the first, 0xE9, at line 3, byte 73); "
                         "each bad sequence is read as U+FFFD")]


def test_legacy_windows_1252_is_read_and_said(tmp_path: Path):
    data = "-- plain header\nCREATE TABLE [Café] (id int) -- déjà\r\n".encode("cp1252")
    _, capture, findings = _read(tmp_path, data)
    assert [t.name for t in capture.database.tables] == ["Café"]
    assert findings == [("IN16", "low", 2, "no BOM and not UTF-8 (byte 33 at line 2, 0xE9, is not valid UTF-8), so "
                         "it is read as Windows-1252 (\"ANSI\"); if it was saved in another code page, names and "
                         "strings with accented letters are wrong")]


def test_neither_utf8_nor_windows_1252_names_each_attempts_own_position(tmp_path: Path):
    path = tmp_path / "schema.sql"
    path.write_bytes("-- 日本語\nCREATE TABLE [注文] (id int)\n".encode("shift_jis"))
    result = runner.invoke(app, ["schema", "--quiet", str(path)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        f"Error: {path}: unreadable encoding: not UTF-8 (byte 3 at line 1, 0x93: invalid start byte) nor "
        "Windows-1252 (byte 25 at line 2, 0x8D, has no character in it); save it as UTF-8 or UTF-16\n")


def test_utf16_cut_mid_character_keeps_the_text_before(tmp_path: Path):
    data = "\ufeffCREATE TABLE t (a int)\r\nGO\r\n".encode("utf-16-le") + b"A"  # an odd last byte
    _, capture, findings = _read(tmp_path, data)
    assert [t.name for t in capture.database.tables] == ["t"]
    assert [(rule, line) for rule, _, line, _ in findings] == [("IN03", 3)]
    assert findings[0][3].startswith("truncated file: its last 1 byte(s) (0x41, line 3) start a UTF-16LE character")


def test_utf16_lone_surrogate_inside_is_replaced_with_its_line(tmp_path: Path):
    data = b"\xff\xfe" + "CREATE TABLE t (a int)\n-- ".encode("utf-16-le") + b"\x00\xd8" + "x\n".encode("utf-16-le")
    _, capture, findings = _read(tmp_path, data)
    assert [t.name for t in capture.database.tables] == ["t"]
    assert findings == [("IN15", "medium", 2, "2 byte(s) are not valid UTF-16LE (the first, 0x00 0xD8, at line 2, "
                         "byte 54); each bad sequence is read as U+FFFD")]


@pytest.mark.parametrize(("data", "encoding", "rules"), [
    (b"CREATE TABLE t (a int)\n", "utf-8", []),
    ("\ufeffCREATE TABLE [Café] (a int)\n".encode(), "utf-8", []),
    ("CREATE TABLE t (a int) -- café".encode("cp1252"), "cp1252", ["IN16"]),  # one high byte at the end: ANSI
    ("CREATE TABLE [Caf\u00e9".encode()[:-1], "cp1252", ["IN16"]),  # ambiguous, so not dropped
], ids=["ascii", "utf8-bom", "cp1252-last-byte", "lone-lead-byte"])
def test_encoding_choice(data: bytes, encoding: str, rules: list[str]):
    text_file = decode(data, Path("x.sql"))
    assert (text_file.encoding, [f.rule for f in text_file.findings]) == (encoding, rules)


def test_lone_lead_byte_says_it_may_be_cut_utf8():
    text_file = decode("CREATE TABLE [Caf\u00e9".encode()[:-1], Path("x.sql"))
    assert text_file.text == "CREATE TABLE [CafÃ"
    assert "(or UTF-8 cut off in its last character)" in text_file.findings[0].message


def test_included_file_reports_how_it_was_read(tmp_path: Path):
    (tmp_path / "tables.sql").write_bytes("CREATE TABLE [Café] (id int)\n".encode("cp1252"))
    main = tmp_path / "deploy.sql"
    main.write_text(":r tables.sql\n", encoding="utf-8")
    out = tmp_path / "model.json"
    result = runner.invoke(app, ["schema", "--quiet", str(main), "--json", str(out)])
    assert result.exit_code == 0, result.output
    capture = load_capture(out)
    assert [t.name for t in capture.database.tables] == ["Café"]
    assert [(f.rule, f.file, f.line) for f in capture.findings] == [("IN16", str(tmp_path / "tables.sql"), 1)]


@pytest.mark.parametrize("data", [
    "CREATE TABLE [Café] (a int)\r\n-- 日本語\rGO\r\n".encode() * 3,
    b"\xff\xfe" + "CREATE TABLE [注文] (a int)\r\nGO\r\n".encode("utf-16-le") * 3 + b"\x00\xd8" + "x\n".encode("utf-16-le"),
    "-- déjà\r\nCREATE TABLE t (a int)\r\n".encode("cp1252") * 3,
    "CREATE TABLE [Café] (a int)\n-- 日本".encode()[:-1],  # cut inside its last character
    "-- 日本語\nCREATE TABLE [顧客] (a int)\n".encode().replace("顧".encode(), b"\xe9"),  # one bad byte
], ids=["utf8-crlf-cr", "utf16-lone-surrogate", "cp1252", "utf8-cut", "utf8-bad-byte"])
@pytest.mark.parametrize("block_size", [1, 2, 3, 5, 4096])
def test_text_read_in_blocks_is_the_text_read_whole(tmp_path: Path, data: bytes, block_size: int):
    """A character, a CRLF or a bad sequence cut by a block's end reads as in the whole file, findings included."""
    path = tmp_path / "s.sql"
    path.write_bytes(data)
    whole = decode(data, path)
    streamed = open_text(path, block_size=block_size)
    assert "".join(streamed.chunks()) == whole.text
    assert all(chunk.endswith("\n") for chunk in list(streamed.chunks())[:-1])
    assert (streamed.encoding, streamed.findings) == (whole.encoding, whole.findings)
