"""The engine: version gates from the catalogue, user overrides, config settings, failure isolation."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_models import col, findings, index, table

from sqlsrv2tidb.errors import InputError
from sqlsrv2tidb.model import CheckConstraint, Database, Finding, Severity
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.rules import registry
from sqlsrv2tidb.rules.engine import apply_rule_settings
from sqlsrv2tidb.rules.registry import Check, rule

DB = Database(name="Shop", tables=(
    table("T", col("id"), col("a"), col("b"), indexes=(index("cover", "a", include=("b",)),),
          checks=(CheckConstraint("CK_a", "([a]>(0))"),)),
))


def test_findings_carry_code_catalogue_severity_and_source():
    (f,) = [f for f in findings(DB) if f.rule == "IX05"]
    assert f.severity is Severity.LOW and f.object == "dbo.T.cover"
    assert f.file is None  # the hand-built index has no source


def test_a_users_catalogue_can_change_severity_and_the_version_gate(tmp_path: Path):
    (tmp_path / "IX05.yaml").write_text("code: IX05\nseverity: info\n", encoding="utf-8")
    (tmp_path / "TB11.yaml").write_text("code: TB11\napplies_to: '<7.0'\n", encoding="utf-8")
    got = {f.rule: f for f in findings(DB, rules_dir=tmp_path)}
    assert got["IX05"].severity is Severity.INFO
    assert "TB11" not in got
    assert "TB11" in {f.rule for f in findings(DB)}


def test_config_disables_rules_and_sets_severity_by_name_or_code():
    config = {"rules": {"disable": ["check-constraint-switch"], "severity": {"IX05": "high"}}}
    got = {f.rule: f for f in findings(DB, config=config)}
    assert "TB11" not in got and got["IX05"].severity is Severity.HIGH


@pytest.mark.parametrize(("config", "message"), [
    ({"rules": ["IX05"]}, "must be a mapping"),
    ({"rules": {"disable": ["no-such-rule"]}}, "no rule 'no-such-rule'"),
    ({"rules": {"severity": {"IX05": "urgent"}}}, "rules.severity.IX05"),
    ({"rules": {"enable": ["IX05"]}}, "rules.enable is not a setting"),
])
def test_bad_rule_settings_name_the_config_file(config, message):
    with pytest.raises(InputError, match=message) as err:
        findings(DB, config=config, config_file="overrides.yaml")
    assert str(err.value).startswith("overrides.yaml: ")


def test_settings_apply_to_findings_of_other_stages():
    other = [Finding("IX05", Severity.LOW, "x", "m"), Finding("TB11", Severity.LOW, "y", "m")]
    options = Options(config={"rules": {"disable": ["TB11"], "severity": {"included-columns": "blocker"}}})
    got = apply_rule_settings(other, options)
    assert [(f.rule, f.severity) for f in got] == [("IX05", Severity.BLOCKER)]
    assert apply_rule_settings(other, Options()) == other


def test_a_failing_check_becomes_one_finding_and_the_others_still_run(monkeypatch):
    def boom(ctx):
        raise KeyError("surprise")

    monkeypatch.setitem(registry._CHECKS, "IX05", Check("IX05", boom))
    got = findings(DB)
    broken = [f for f in got if f.rule == "IX05"]
    assert len(broken) == 1 and "could not run (KeyError: 'surprise')" in broken[0].message
    assert broken[0].severity is Severity.INFO
    assert "TB11" in {f.rule for f in got}
    monkeypatch.setenv("SQLSRV2TIDB_DEBUG", "1")
    with pytest.raises(KeyError):
        findings(DB)


def test_codes_are_validated_when_a_check_is_registered():
    for bad in ("IX1", "ix01", "ZZ01", "IX001"):
        with pytest.raises(ValueError):
            rule(bad)
    with pytest.raises(ValueError, match="registered twice"):
        rule("IX01")(lambda ctx: [])
