"""`sqlsrv2tidb rules list` and `rules show CODE`, driven through the real Typer app."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from sqlsrv2tidb.cli import app
from sqlsrv2tidb.rules.catalogue import load_catalogue

runner = CliRunner()


def test_rules_list_is_a_table_of_code_severity_name_and_summary():
    result = runner.invoke(app, ["rules", "list"])
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["CODE", "SEVERITY", "NAME", "SUMMARY"]
    row = next(line for line in lines if line.startswith("IX01 "))
    assert row.split()[:3] == ["IX01", "high", "fulltext-index"]
    assert row.endswith(load_catalogue(None)["IX01"].summary)
    assert len([line for line in lines if line[:4].isalnum() and line[:2].isupper()]) >= len(load_catalogue(None))


def test_rules_list_json():
    result = runner.invoke(app, ["rules", "list", "--json"])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    codes = [r["code"] for r in data]
    assert codes == sorted(codes) and "MO01" in codes
    mo01 = next(r for r in data if r["code"] == "MO01")
    assert mo01["severity"] == "high" and mo01["name"] == "stored-procedure" and mo01["applies_to"] == "all"
    assert mo01["references"][0].startswith("https://")


def test_rules_show_prints_the_whole_rule():
    result = runner.invoke(app, ["rules", "show", "tb11"])
    assert result.exit_code == 0
    out = result.stdout
    assert out.startswith("TB11  check-constraint-switch\n")
    for text in ("Applies to:  TiDB >=7.2", "Why it matters", "What to do on TiDB", "tidb_enable_check_constraint",
                 "Raises the rule", "Does not raise it", "https://docs.pingcap.com/tidb/stable/constraints#check"):
        assert text in out


def test_unknown_code_exits_2_with_one_line():
    result = runner.invoke(app, ["rules", "show", "XX99"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == "Error: no rule 'XX99' in the catalogue; `sqlsrv2tidb rules list` shows them all\n"


def test_rules_folder_overrides_what_list_and_show_print(tmp_path: Path):
    (tmp_path / "IX06.yaml").write_text("code: IX06\nseverity: info\n", encoding="utf-8")
    listed = runner.invoke(app, ["rules", "list", "--rules", str(tmp_path)])
    assert next(line for line in listed.stdout.splitlines() if line.startswith("IX06")).split()[1] == "info"
    shown = runner.invoke(app, ["rules", "show", "IX06", "--rules", str(tmp_path)])
    assert f"Defined in {tmp_path / 'IX06.yaml'}" in shown.stdout


def test_broken_rules_folder_exits_2_naming_the_file(tmp_path: Path):
    (tmp_path / "IX06.yaml").write_text("code: IX06\nseverity: urgent\n", encoding="utf-8")
    result = runner.invoke(app, ["rules", "list", "--rules", str(tmp_path)])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"Error: {tmp_path / 'IX06.yaml'}: severity 'urgent'")
    assert result.stderr.count("\n") == 1
    missing = runner.invoke(app, ["rules", "list", "--rules", str(tmp_path / "nope")])
    assert missing.exit_code == 2 and "no such folder" in missing.stderr


def test_config_rules_section_applies_to_the_ddl_command(tmp_path: Path):
    schema = tmp_path / "schema.sql"
    schema.write_text(
        "CREATE TABLE dbo.T (id int NOT NULL PRIMARY KEY, a int NOT NULL CONSTRAINT CK_a CHECK (a > 0),\n"
        "  b int NOT NULL);\nGO\nCREATE INDEX IX_T_a ON dbo.T (a) INCLUDE (b);\nGO\n", encoding="utf-8")
    config = tmp_path / "overrides.yaml"
    config.write_text("rules:\n  disable: [check-constraint-switch]\n  severity: {IX05: high}\n", encoding="utf-8")

    def findings(*extra: str) -> dict[str, str]:
        out = tmp_path / f"out{len(extra)}"
        result = runner.invoke(app, ["ddl", str(schema), "-o", str(out), "-q", *extra])
        assert result.exit_code == 0, result.stderr
        doc = json.loads((out / "assessment.json").read_text(encoding="utf-8"))
        return {f["rule"]: f["severity"] for f in doc["findings"]}

    plain = findings()
    assert plain["TB11"] == "low" and plain["IX05"] == "low"
    configured = findings("--config", str(config))
    assert "TB11" not in configured and configured["IX05"] == "high"
