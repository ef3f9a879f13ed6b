"""A capture.json of another version, damaged or cut off: one `Error:` line naming the file and field, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sqlsrv2tidb.cli import app
from sqlsrv2tidb.errors import InputError
from sqlsrv2tidb.model import load_capture

runner = CliRunner()
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "keywords"


@pytest.fixture(scope="module")
def capture_json(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("capture") / "capture.json"
    result = runner.invoke(app, ["schema", "--quiet", str(EXAMPLE), "--json", str(out)])
    assert result.exit_code == 0, result.output
    return out.read_text(encoding="utf-8")


def _error(path: Path) -> str:
    result = runner.invoke(app, ["schema", "--quiet", str(path)])
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and "Traceback" not in result.output
    assert result.stderr.startswith("Error: ") and result.stderr.count("\n") == 1, result.stderr
    return result.stderr.removeprefix("Error: ").rstrip("\n")


def _edited(tmp_path: Path, text: str, edit) -> Path:
    data = json.loads(text)
    edit(data)
    path = tmp_path / "capture.json"
    path.write_text(json.dumps(data, indent=1), encoding="utf-8")
    return path


def test_other_format_version(tmp_path: Path, capture_json: str):
    path = _edited(tmp_path, capture_json, lambda d: d.update(format="sqlsrv2tidb.capture/3"))
    assert _error(path) == (f"{path}: field format is 'sqlsrv2tidb.capture/3', and this version of sqlsrv2tidb reads "
                            "sqlsrv2tidb.capture/1 and sqlsrv2tidb.capture/2; write the capture again with this "
                            "version (schema SOURCES --json FILE)")


def test_older_format_still_reads(tmp_path: Path, capture_json: str):
    """A /1 capture has neither `samples_from` nor `call`: its classes read with those unknown."""
    def edit(d):
        d["format"] = "sqlsrv2tidb.capture/1"
        for q in d["workload"]["queries"]:
            q.pop("samples_from", None)
            q.pop("call", None)
    capture = load_capture(_edited(tmp_path, capture_json, edit))
    assert capture.format == "sqlsrv2tidb.capture/2"
    assert all(q.samples_from == 0 and q.call is None for q in capture.workload.queries)


def test_field_of_the_wrong_type(tmp_path: Path, capture_json: str):
    path = _edited(tmp_path, capture_json, lambda d: d["database"]["tables"][0].update(name=5))
    assert _error(path) == f"{path}: damaged capture: field database.tables[0].name: expected str, got int"


def test_missing_field(tmp_path: Path, capture_json: str):
    path = _edited(tmp_path, capture_json, lambda d: d["database"]["tables"][1].pop("name"))
    assert _error(path) == f"{path}: damaged capture: field database.tables[1]: missing name"


def test_unknown_enum_value(tmp_path: Path, capture_json: str):
    def edit(d):
        d["findings"] = [{"rule": "IN01", "severity": "bogus", "object": "x", "message": "m"}]
    path = _edited(tmp_path, capture_json, edit)
    assert _error(path) == (f"{path}: damaged capture: field findings[0].severity: 'bogus' is not one of 'info', "
                            "'low', 'medium', 'high', 'blocker'")


def test_cut_off_capture_says_so(tmp_path: Path, capture_json: str):
    path = tmp_path / "capture.json"
    cut = capture_json[: len(capture_json) // 2]
    path.write_text(cut, encoding="utf-8")
    lines = cut.rstrip().count("\n") + 1
    assert _error(path) == (f"{path}: capture JSON is cut off: the file ends at line {lines} inside the document "
                            "(its last field, format, is missing); copy or write it again")


def test_cut_off_inside_a_string(tmp_path: Path, capture_json: str):
    path = tmp_path / "capture.json"
    cut = capture_json[: capture_json.index('"name"') + 3]
    path.write_text(cut, encoding="utf-8")
    assert "capture JSON is cut off: the file ends at line" in _error(path)


def test_other_cut_off_json(tmp_path: Path):
    path = tmp_path / "export.json"
    path.write_text('[\n {"a": 1},\n {"a": ', encoding="utf-8")
    assert _error(path) == (f"{path}: not a kind of file sqlsrv2tidb reads (JSON cut off at line 3: the file ends "
                            "before the document does)")


def test_load_capture_raises_input_error(tmp_path: Path):
    path = tmp_path / "capture.json"
    path.write_text('{"format": "sqlsrv2tidb.capture/1", "database": []}', encoding="utf-8")
    with pytest.raises(InputError, match=r"capture.json: damaged capture: field database: expected an object"):
        load_capture(path)
    with pytest.raises(InputError, match=r"nowhere.json: no such file"):
        load_capture(tmp_path / "nowhere.json")


@pytest.mark.parametrize("cut", ['{"a": fal', '{"a": nu', '{"a": -12.', '{"a": 1.5e', '{"a": 1,\n  ', '{"a": "ab'])
def test_a_cut_inside_a_value_is_a_cut(cut):
    from sqlsrv2tidb.model.capture import is_cut_off

    with pytest.raises(json.JSONDecodeError) as caught:
        json.loads(cut)
    assert is_cut_off(cut, caught.value)


@pytest.mark.parametrize("damaged", ['{"a": x}', '{"a": 1} x', '{"a": tru e}'])
def test_damage_is_not_a_cut(damaged):
    from sqlsrv2tidb.model.capture import is_cut_off

    with pytest.raises(json.JSONDecodeError) as caught:
        json.loads(damaged)
    assert not is_cut_off(damaged, caught.value)
