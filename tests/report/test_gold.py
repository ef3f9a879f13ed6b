"""Gold files: fixed OUT folders rendered and compared with the stored pages.

The generation time is fixed, the tool version is the fixture's, and chart SVGs are blanked (their
bytes belong to the installed matplotlib; `test_render` checks which charts are there). After an
intended change to the page, regenerate with `SQLSRV2TIDB_UPDATE_GOLD=1 pytest tests/report/test_gold.py`
and review the diff.
"""

from __future__ import annotations

import difflib
import os
import re
from pathlib import Path

import pytest
import sample

from sqlsrv2tidb.model import Capture, Database, Finding, Severity
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.report.anonymize import Anonymizer
from sqlsrv2tidb.report.build import build_report
from sqlsrv2tidb.report.inputs import load_inputs
from sqlsrv2tidb.report.render import render_html

GOLD = Path(__file__).resolve().parent / "gold"
UPDATE = os.environ.get("SQLSRV2TIDB_UPDATE_GOLD") == "1"


def blank(page: str) -> str:
    page = re.sub(r"<svg .*?</svg>", "<svg><!-- chart --></svg>", page, flags=re.S)
    return page.replace(sample.FIXED_VERSION, "VERSION")


def _compare(name: str, page: str) -> None:
    path = GOLD / name
    page = blank(page)
    if UPDATE:
        path.write_text(page, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    if page != expected:
        diff = "".join(list(difflib.unified_diff(expected.splitlines(True), page.splitlines(True), str(path), "rendered"))[:80])
        pytest.fail(f"{name} differs from the gold file (SQLSRV2TIDB_UPDATE_GOLD=1 regenerates it):\n{diff}")


def _render(out: Path, rules, anonymize: bool = False) -> str:
    inputs = load_inputs(out)
    if anonymize:
        inputs = Anonymizer().inputs(inputs)
    return render_html(build_report(inputs, rules, anonymized=anonymize, generated="GENERATED"))


def test_keywords_report_matches_gold(tmp_path, rules):
    _compare("keywords.html", _render(sample.keywords_out(tmp_path / "out", compare=True), rules))


def test_anonymized_keywords_report_matches_gold(tmp_path, rules):
    _compare("keywords-anonymized.html", _render(sample.keywords_out(tmp_path / "out", compare=True), rules,
                                                 anonymize=True))


def test_minimal_report_matches_gold(tmp_path, rules):
    out = sample.write_out(tmp_path / "min", Capture(database=Database(name="empty")), None, None,
                           [Finding("IN40", Severity.LOW, "statement 3", "could not parse <this>", "a.sql", 3)], Options())
    _compare("minimal.html", _render(out, rules))


def test_blanking_keeps_everything_but_chart_bytes():
    page = '<p>VERSION 0.0.0-test</p><svg role="img" aria-label="x"><path d="M 0 0"/></svg><p>after</p>'
    assert blank(page) == "<p>VERSION VERSION</p><svg><!-- chart --></svg><p>after</p>"
