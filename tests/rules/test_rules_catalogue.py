"""The YAML catalogue: every built-in file is valid, and a user's folder overrides single rules."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from sqlsrv2tidb.errors import InputError, UsageError
from sqlsrv2tidb.model import Severity
from sqlsrv2tidb.options import Version
from sqlsrv2tidb.resources import builtin_dir
from sqlsrv2tidb.rules.catalogue import EFFORT_DAYS, REQUIRED, load_catalogue
from sqlsrv2tidb.rules.codes import PREFIXES
from sqlsrv2tidb.rules.versions import VersionRange

RULES = builtin_dir("rules")
FILES = sorted(p for p in RULES.rglob("*.yaml") if p.relative_to(RULES).parts[0] != "mappings")
CATALOGUE = load_catalogue(None)


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_rule_file_is_complete_and_valid(path: Path):
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    missing = [f for f in REQUIRED if not data.get(f)]
    assert not missing, f"{path}: missing {missing}"
    assert data["code"] == path.stem, f"{path}: code {data['code']} does not match the file name"
    assert data["code"][:2] in PREFIXES
    assert data["severity"] in {s.value for s in Severity}
    assert data["effort"] in EFFORT_DAYS
    VersionRange.parse(data["applies_to"])  # raises on a malformed range
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", data["name"]), data["name"]
    assert data["references"] and all(re.match(r"https://[^\s]+$", r) for r in data["references"]), path
    examples = data.get("examples")
    assert isinstance(examples, dict), f"{path}: every rule needs examples that fire and pass"
    if examples.get("kind") == "replay":
        assert examples.get("tested_by"), f"{path}: a replay example names the test that proves it"
    else:
        assert str(examples.get("fires", "")).strip() and str(examples.get("passes", "")).strip(), path


def test_rule_names_are_unique():
    names = [r.name for r in CATALOGUE]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_replay_examples_name_an_existing_test():
    root = RULES.parent
    for rule in CATALOGUE:
        ex = rule.examples
        if ex is None or ex.kind != "replay":
            continue
        file, _, test = (ex.tested_by or "").partition("::")
        source = root / file
        assert source.is_file(), f"{rule.code}: {ex.tested_by} does not exist"
        assert f"def {test.split('[')[0]}(" in source.read_text(encoding="utf-8"), f"{rule.code}: {ex.tested_by}"


def test_lookup_is_case_insensitive_and_unknown_codes_are_usage_errors():
    assert CATALOGUE["ix04"].name == "filtered-index"
    assert CATALOGUE.by_name("filtered-index").code == "IX04"
    with pytest.raises(UsageError, match="no rule 'ZZ99'"):
        CATALOGUE["ZZ99"]


def test_version_ranges():
    r = VersionRange.parse(">=6.6,<8.5")
    assert [r.contains(Version.parse(v)) for v in ("6.5", "6.6", "8.4.9", "8.5")] == [False, True, True, False]
    assert VersionRange.parse("all").contains(Version(3))
    for bad in ("6.6", ">= six", ">=6.6;<7", None):
        with pytest.raises(ValueError):
            VersionRange.parse(bad)


def test_a_user_file_overrides_single_fields_of_one_rule(tmp_path: Path):
    (tmp_path / "IX06.yaml").write_text("code: IX06\nseverity: info\n", encoding="utf-8")
    (tmp_path / "mappings").mkdir()
    (tmp_path / "mappings" / "types.yaml").write_text("not: a rule\n", encoding="utf-8")
    (tmp_path / "README.md").write_text("notes", encoding="utf-8")
    catalogue = load_catalogue(tmp_path)
    rule = catalogue["IX06"]
    assert rule.severity is Severity.INFO
    assert rule.name == "descending-index-key" and rule.overridden_by == tmp_path / "IX06.yaml"
    assert catalogue["IX05"].overridden_by is None
    assert len(catalogue) == len(CATALOGUE)


@pytest.mark.parametrize(("name", "text", "message"), [
    ("IX06.yaml", "code: IX06\nseverity: urgent\n", "severity 'urgent' is not one of"),
    ("IX06.yaml", "code: IX07\n", "code 'IX07' does not match the file name"),
    ("IX06.yaml", "code: IX06\napplies_to: '>= soon'\n", "applies_to"),
    ("IX06.yaml", "code: IX06\nseverty: low\n", "unknown field(s) severty"),
    ("IX06.yaml", "code: IX06\nseverity: [low\n", "IX06.yaml:3: not valid YAML"),
    ("IX99.yaml", "code: IX99\nname: new-rule\n", "IX99.yaml: missing severity"),
    ("filtered.yaml", "code: IX04\n", "named after its code"),
    ("ZZ01.yaml", "code: ZZ01\n", "unknown code prefix"),
])
def test_broken_rule_files_are_one_line_errors_naming_the_file(tmp_path: Path, name: str, text: str, message: str):
    (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_catalogue(tmp_path)
    assert str(tmp_path / name) in str(err.value) and message in str(err.value)
    assert "\n" not in str(err.value)


def test_missing_override_folder_is_an_input_error(tmp_path: Path):
    with pytest.raises(InputError, match="no such folder"):
        load_catalogue(tmp_path / "nope")
