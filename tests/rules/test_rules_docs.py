"""docs/rules.md is generated from the catalogue and must match it."""

from __future__ import annotations

from sqlsrv2tidb.rules.catalogue import load_catalogue
from sqlsrv2tidb.rules.docs import COMMAND, DOC_PATH, main, render_markdown


def test_docs_rules_md_is_current():
    expected = render_markdown(load_catalogue(None))
    current = DOC_PATH.read_text(encoding="utf-8") if DOC_PATH.is_file() else ""
    assert current == expected, f"docs/rules.md is out of date: run `{COMMAND}`"


def test_every_rule_has_a_row_and_a_section():
    text = render_markdown(load_catalogue(None))
    for rule in load_catalogue(None):
        assert f"| [{rule.code}](#" in text and f"### {rule.code} {rule.name}" in text


def test_check_mode_reports_a_stale_file(tmp_path, capsys):
    stale = tmp_path / "rules.md"
    stale.write_text("# Rules\n", encoding="utf-8")
    assert main(["--check", str(stale)]) == 1
    assert COMMAND in capsys.readouterr().err
    assert main([str(stale)]) == 0
    assert main(["--check", str(stale)]) == 0
