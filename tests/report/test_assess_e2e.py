"""The main job end to end: the README's first command on the bundled example, its report in Chromium,
`--anonymize` over every file it writes, and a real replay against the MariaDB the suite starts."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
import sample
from matplotlib import image as mpimg
from typer.testing import CliRunner

from sqlsrv2tidb.cli import app

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = "examples/keywords"


def _assess(out: Path, *extra: str) -> None:
    result = CliRunner().invoke(app, ["assess", EXAMPLE, "-o", str(out), "--quiet", *extra])
    assert result.exit_code == 0, result.output
    assert f"Wrote {out}/report.html" in result.output


@pytest.fixture
def in_repo(monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(ROOT)  # the README runs the command from the repository's top folder
    return ROOT


def _sections(chromium) -> list[str]:
    return chromium.evaluate("Array.from(document.querySelectorAll('main > section')).map(s => s.id)")


def test_readme_first_command_writes_a_report_chromium_shows(in_repo, tmp_path, chromium):
    out = tmp_path / "out"
    _assess(out)
    assert {p.name for p in out.iterdir()} >= {"report.html", "assessment.json", "ddl", "topology.yaml"}
    chromium.log.console.clear()
    chromium.log.exceptions.clear()
    chromium.log.log_entries.clear()
    chromium.open(out / "report.html")
    assert _sections(chromium) == ["summary", "schema", "workload", "deployment", "plan"]
    assert chromium.log.errors == []
    pixels = mpimg.imread(io.BytesIO(chromium.screenshot()), format="png")[..., :3]
    assert pixels.std() > 0.05 and (pixels.min(axis=2) < 0.9).mean() > 0.02
    text = chromium.evaluate("document.body.innerText")
    assert "Migration report: poc" in text
    assert re.search(r"Ready with changes|Not ready|Ready", text)
    # Seed 000's table: KEY-partitioned by the planner, with the nightly window as its evidence.
    row = chromium.evaluate("document.getElementById('t-dbo-keywords').querySelector('tr.head').textContent")
    assert "PARTITION BY KEY" in row
    assert chromium.evaluate("document.querySelectorAll('#queries > tbody').length") == 6
    # A type-mapping loss shows both types beside what changes.
    losses = chromium.evaluate("Array.from(document.querySelectorAll('#losses tbody tr')).map(r => r.innerText)")
    assert any("created_at\tdatetime2(7)\tDATETIME(6)\t" in row and "7th fractional digit" in row for row in losses)
    # Query classes go by the spec's names, with their ids beside, and their rate in every window.
    headers = chromium.evaluate("Array.from(document.querySelectorAll('#queries thead th')).map(th => th.textContent)")
    assert headers[5:7] == ["QPS, nightly (peak)", "QPS, normal"]
    doc = sample.read_json(out / "assessment.json")
    by_entity = next(q for q in doc["queries"] if q["name"] == "keywords-by-entity")
    assert by_entity["description"].startswith("the keyword list of one entity")
    row = chromium.evaluate(f"Array.from(document.getElementById('q-{by_entity['id']}').querySelector('tr.head').cells)"
                            ".map(c => c.textContent.trim())")
    assert row[0] == f"keywords-by-entity {by_entity['id']}" and row[5:7] == ["120", "2,400"], row


def test_assess_anonymize_leaves_no_name_or_literal_in_any_file(in_repo, tmp_path):
    plain, anon = tmp_path / "plain", tmp_path / "anon"
    _assess(plain)
    doc = sample.read_json(plain / "assessment.json")
    originals = {doc["source"]["database"], "examples/keywords/schema.sql", "examples/keywords/workload.yaml",
                 "Search keywords per entity and review", "nightly", "normal", "a weekday morning hour",
                 "review-by-id", "user-by-email", "one keyword row per statement"}
    for t in doc["tables"]:
        originals |= {t["schema"], t["name"], *(c["name"] for c in t["columns"])}
    for f in (plain / "ddl").glob("*.sql"):
        originals |= set(re.findall(r"(?:INDEX|CONSTRAINT)\s+`?(\w+)", f.read_text()))
    originals |= {q["id"] for q in doc["queries"]}
    assert {"keywords", "p_display_order", "IX_reviews_entity", "FK_photos_reviews"} <= originals
    _assess(anon, "--anonymize")
    files = sorted(p for p in anon.rglob("*") if p.is_file())
    assert {p.name for p in files} >= {"assessment.json", "report.html", "02-tables.sql", "04-indexes.sql"}
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert sample.leaks(sample.visible_text(text) if path.suffix == ".html" else text, originals) == [], path.name
    assert sample.read_json(anon / "assessment.json")["anonymized"] is True


@pytest.mark.mariadb
def test_assess_with_a_replay_on_mariadb_renders_the_measured_load(in_repo, tmp_path, mariadb, database, chromium):
    ddl = tmp_path / "ddl"
    result = CliRunner().invoke(app, ["ddl", EXAMPLE, "-o", str(ddl), "--quiet"])
    assert result.exit_code == 0, result.output
    with mariadb.connect(database) as conn, conn.cursor() as cur:  # the tables the replayed reads need
        for statement in (ddl / "ddl" / "02-tables.sql").read_text().split(";\n"):
            if any(line.strip() and not line.strip().startswith("--") for line in statement.splitlines()):
                cur.execute(statement)
    out = tmp_path / "out"
    _assess(out, "--target", mariadb.url(database), "--window", "normal", "--qps", "100", "--duration", "2",
            "--warmup", "0", "--connections", "4", "--workers", "1")
    replay = sample.read_json(out / "replay.json")
    assert replay["format"] == "sqlsrv2tidb.replay/1" and replay["statements"] > 0
    chromium.log.console.clear()
    chromium.log.exceptions.clear()
    chromium.log.log_entries.clear()
    chromium.open(out / "report.html")
    assert _sections(chromium) == ["summary", "schema", "workload", "replay", "deployment", "plan"]
    assert chromium.log.errors == []
    text = chromium.evaluate("document.getElementById('replay').textContent")
    assert "mariadb" in text and "Query classes not sent" in text  # the inserts wait for --allow-writes
    summary = chromium.evaluate("document.getElementById('summary').textContent")
    assert "it does not show that TiDB holds the captured load" in summary  # 100 QPS is a fraction of the peak
    rows = chromium.evaluate("document.querySelectorAll('#comparison > tbody').length")
    assert rows == len(replay["per_query"]) > 0
