"""Rendering from OUT: what is read, what is written, what fails and how, and user template overrides."""

from __future__ import annotations

import json
import re

import pytest
import sample
import yaml
from typer.testing import CliRunner

from sqlsrv2tidb.cli import app
from sqlsrv2tidb.errors import InputError
from sqlsrv2tidb.model import Capture, Database, Finding, Severity
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.report.build import build_report
from sqlsrv2tidb.report.inputs import load_inputs
from sqlsrv2tidb.report.labels import record_facts
from sqlsrv2tidb.report.render import render_html, render_report
from sqlsrv2tidb.report.viewmodel import Fact


def _sections(page: str) -> list[str]:
    return re.findall(r'<section id="([a-z]+)"', page)


def test_full_report_has_every_section_and_writes_topology(keywords_dir):
    path = render_report(keywords_dir)
    page = path.read_text()
    assert _sections(page) == ["summary", "schema", "workload", "replay", "deployment", "plan"]
    advice = sample.read_json(keywords_dir / "assessment.json")["deployment"]
    assert (keywords_dir / "topology.yaml").read_text() == advice["topology_yaml"]
    assert yaml.safe_load((keywords_dir / "topology.yaml").read_text())["tikv_servers"]
    assert 'download="topology.yaml" href="data:application/yaml;charset=utf-8;base64,' in page
    labels = re.findall(r'<svg role="img" aria-label="([^"]+)"', page)
    assert labels == ["Captured queries per second over the capture period, named windows shaded",
                      "Target and achieved queries per second during the replay", "Achieved rate per table design"]
    assert "Not ready" in page and "the replay did not sustain its target" in page
    assert "time (UTC)" in page  # the capture chart's axis says which clock
    assert re.search(r"Effort estimate: [\d.]+ person-days", page)


def test_minimal_assessment_renders_without_the_missing_parts(tmp_path):
    out = tmp_path / "ddl-only"
    sample.write_out(out, Capture(database=Database(name="empty")), None, None,
                     [Finding("IN40", Severity.LOW, "statement 3", "could not parse", "a.sql", 3)], Options())
    doc = sample.read_json(out / "assessment.json")
    del doc["deployment"]
    (out / "assessment.json").write_text(json.dumps(doc))
    page = render_report(out).read_text()
    assert _sections(page) == ["summary", "schema", "plan"]
    assert 'href="#workload"' not in page and 'href="#replay"' not in page
    assert "No tables were planned." in page and "No DDL files were written." in page
    assert not (out / "topology.yaml").exists()


def test_ramp_and_experiment_only_outputs_render(tmp_path):
    capture, translation, plan, findings, options = sample.keywords_parts()
    out = sample.write_out(tmp_path / "ramp", capture, translation, plan, findings, options, sample.keywords_ramp(capture))
    page = render_report(out).read_text()
    assert "ceiling" in page and "20,000 queries per second" in page and 'id="ramp-steps"' in page
    assert "the ramp&#39;s ceiling, 20,000 queries per second, is below the captured 50,850" in page
    only = sample.write_out(tmp_path / "exp", capture, translation, plan, findings, options, None, sample.keywords_experiment())
    page = render_report(only).read_text()
    assert "replay" in _sections(page) and 'id="experiment-designs"' in page and "Achieved rate per table design" in page


@pytest.mark.parametrize(("setup", "message"), [
    (lambda out: None, "{out}/assessment.json: missing; run `sqlsrv2tidb assess SOURCES -o {out}` first"),
    (lambda out: (out / "assessment.json").write_text('{"format": "sqlsrv2tidb.assessment/1",\n "x": }'),
     "{out}/assessment.json:2: not valid JSON (Expecting value)"),
    (lambda out: (out / "assessment.json").write_text('{"format": "other/2"}'),
     "{out}/assessment.json: not a sqlsrv2tidb.assessment/1 file (format 'other/2')"),
    (lambda out: ((out / "assessment.json").write_text('{"format": "sqlsrv2tidb.assessment/1"}'),
                  (out / "replay.json").write_text("[]")), "{out}/replay.json: expected a JSON object at the top level"),
])
def test_unreadable_inputs_are_one_line_naming_the_file(tmp_path, setup, message):
    out = tmp_path / "out"
    out.mkdir()
    setup(out)
    with pytest.raises(InputError) as err:
        load_inputs(out)
    assert str(err.value) == message.format(out=out)
    result = CliRunner().invoke(app, ["report", str(out), "--quiet"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines()[-1] == f"Error: {message.format(out=out)}"


def test_user_template_overrides_one_file_and_a_broken_one_names_its_line(keywords_dir, tmp_path, rules):
    mine = tmp_path / "templates" / "report"
    mine.mkdir(parents=True)
    (mine / "plan.html").write_text('<section id="plan" class="section"><h2>Our own plan: {{ r.plan.files | length }} files</h2></section>\n')
    view = build_report(load_inputs(keywords_dir), rules, anonymized=False, generated="now")
    page = render_html(view, tmp_path / "templates")
    assert "Our own plan: 3 files" in page and "Apply the files of" not in page
    assert 'id="summary"' in page  # every other template is still ours
    (mine / "plan.html").write_text("line one\n{% for x in %}\n")
    with pytest.raises(InputError) as err:
        render_html(view, tmp_path / "templates")
    assert re.fullmatch(r".*templates/report/plan\.html:2: template error: .+", str(err.value))
    (mine / "plan.html").write_text("{{ r.no_such_thing }}")
    with pytest.raises(InputError, match="a report template uses something the report does not have"):
        render_html(view, tmp_path / "templates")


def test_cli_report_rerenders_and_names_the_file(keywords_dir):
    result = CliRunner().invoke(app, ["report", str(keywords_dir), "--quiet"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"Wrote {keywords_dir / 'report.html'}"
    assert "Migration report: poc" in (keywords_dir / "report.html").read_text()


def test_links_only_to_web_and_file_urls(keywords_dir, rules):
    view = build_report(load_inputs(keywords_dir), rules, anonymized=False, generated="now")
    page = render_html(view)
    assert "javascript:" not in page  # QY09's second reference in the fixture catalogue
    hrefs = re.findall(r'href="([^"#][^"]*)"', page)
    assert hrefs and all(h.startswith(("https://", "http://", "file:", "data:application/yaml")) for h in hrefs)
    merge = next(g for g in view.schema.finding_groups if g.severity == "high").rows
    assert [d.href for r in merge if r.rule == "QY09" for d in r.docs] == ["https://docs.pingcap.com/tidb/stable/sql-statement-insert"]


def test_source_paths_link_from_where_the_page_is_written(tmp_path, rules, monkeypatch):
    """Absolute paths become file: URLs; a relative one (as the README's command gives) is linked
    relative to the report's folder while it still names a file from the current folder."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rel").mkdir()
    (tmp_path / "rel" / "my schema.sql").write_text("CREATE TABLE t (a int)\n")
    capture, translation, plan, findings, options = sample.keywords_parts(file="/srv/ssdt/schema.sql")
    findings.append(Finding("TY02", Severity.LOW, "dbo.users", "relative", "rel/my schema.sql", 9))
    findings.append(Finding("TY02", Severity.LOW, "dbo.users", "gone", "rel/moved.sql", 3))
    out = sample.write_out(tmp_path / "o", capture, translation, plan, findings, options)

    def locations(view):
        rows = {r.message: r.location for g in view.schema.finding_groups for r in g.rows}
        return rows[next(m for m in rows if m.startswith("Composite"))], rows["relative"], rows["gone"]

    absolute, relative, gone = locations(build_report(load_inputs(out), rules, anonymized=False, generated="now",
                                                      report_dir=out))
    assert (absolute.text, absolute.href) == ("/srv/ssdt/schema.sql:66", "file:///srv/ssdt/schema.sql")
    assert (relative.text, relative.href) == ("rel/my schema.sql:9", "../rel/my%20schema.sql")
    assert (out / "../rel/my schema.sql").resolve() == (tmp_path / "rel" / "my schema.sql").resolve()
    assert (gone.text, gone.href) == ("rel/moved.sql:3", None)  # not there any more: text only
    page = render_report(out).read_text()
    assert '<a href="../rel/my%20schema.sql">rel/my schema.sql:9</a>' in page
    _, unplaced, _ = locations(build_report(load_inputs(out), rules, anonymized=False, generated="now"))
    assert unplaced.href is None  # no page folder known (gold files): nothing to link from


def test_long_statements_are_cut_in_the_page_but_kept_in_the_json(tmp_path, rules):
    out = sample.keywords_out(tmp_path / "o", replay=False, experiment=False)
    doc = sample.read_json(out / "assessment.json")
    doc["queries"][0]["source_sql"] = "SELECT " + ", ".join(f"c{i}" for i in range(3000)) + " FROM t"
    (out / "assessment.json").write_text(json.dumps(doc))
    view = build_report(load_inputs(out), rules, anonymized=False, generated="now")
    q = next(v for v in view.workload.queries if v.id == doc["queries"][0]["id"])
    assert q.truncated and len(q.source_sql) < 4100 and q.source_sql.endswith("\n…")


def test_the_answers_show_each_querys_text_linked_to_its_class(tmp_path, rules):
    out = sample.keywords_out(tmp_path / "o", replay=False, experiment=False, compare=True)
    view = build_report(load_inputs(out), rules, anonymized=False, generated="now")
    workload = {q.id: q for q in view.workload.queries}
    for row in view.compare.rows:
        assert row.anchor == workload[row.query_id].anchor, row  # linked to the class's entry on the page
        assert row.sql_server_sql == workload[row.query_id].source_sql and row.target_sql, row
        assert row.label.startswith(row.sql_server_sql[:40]), row
    page = render_html(view)
    same = next(r for r in view.compare.rows if r.verdict == "same")
    assert f'<a href="#{same.anchor}"><code class="qid">{same.query_id}</code></a>' in page
    assert f"<code>{same.sql_server_sql}</code>" in page and "the first run lost its session" in page
    # Without the class in assessment.json (compare run into a folder of its own), the text comes from compare.json.
    bare = sample.write_out(tmp_path / "bare", Capture(database=Database(name="empty")), None, None, [], Options(),
                            compare=sample.read_json(out / "compare.json"))
    rows = build_report(load_inputs(bare), rules, anonymized=False, generated="now").compare.rows
    assert [r.label for r in rows] == [r.label for r in view.compare.rows] and not any(r.anchor for r in rows), rows


def test_findings_link_to_their_table_and_query(keywords_dir, rules):
    view = build_report(load_inputs(keywords_dir), rules, anonymized=False, generated="now")
    rows = {r.object: r for g in view.schema.finding_groups for r in g.rows}
    keywords = next(t for t in view.schema.tables if t.name == "dbo.keywords")
    assert rows["dbo.keywords"].object_anchor == keywords.anchor == "t-dbo-keywords"
    assert rows["dbo.reviews.created_at"].object_anchor == "t-dbo-reviews"
    merge = next(o for o in rows if o.startswith("query "))
    assert rows[merge].object_anchor == f"q-{merge[6:]}"
    assert view.schema.tables[0].name == "dbo.keywords"  # redesigned tables first
    assert [(c.name, c.count) for c in view.summary.severity_counts] == [("blocker", 0), ("high", 2), ("medium", 4), ("low", 1), ("info", 1)]


def test_rules_catalogue_is_read_for_names_and_buckets(keywords_dir):
    from sqlsrv2tidb.report.rulesinfo import load_rule_info

    catalogue = load_rule_info()
    assert catalogue, "the built-in rules/ folder is empty"
    rule = next(iter(catalogue.values()))
    assert rule.known and rule.name and rule.effort in ("simple", "medium", "significant")
    page = render_report(keywords_dir).read_text()
    shown = set(re.findall(r"<code>([A-Z]{2}\d{2})</code></button>", page)) & set(catalogue)
    assert shown, "no finding of a catalogued rule on the page"
    for code in sorted(shown):  # every catalogued code on the page is named from the catalogue
        assert f"<code>{code}</code></button> {catalogue[code].name}</td>" in page, code


def test_a_database_wide_loss_names_its_columns_not_a_table(tmp_path, rules):
    capture, translation, plan, findings, options = sample.keywords_parts()
    findings.append(Finding("TY12", Severity.LOW, "SQL_Latin1_General_CP1_CI_AS", "case-insensitive collation ...", None, None,
                            {"examples": ["dbo.users.email", "dbo.photos.url"]}))
    out = sample.write_out(tmp_path / "o", capture, translation, plan, findings, options)
    view = build_report(load_inputs(out), rules, anonymized=False, generated="now")
    row = next(r for r in view.schema.losses if r.source_type == "SQL_Latin1_General_CP1_CI_AS")
    assert (row.table, row.column, row.table_anchor) == ("(several tables)", "dbo.users.email, dbo.photos.url", "")


def test_odd_values_inside_valid_files_render_instead_of_crashing(keywords_dir):
    """Files edited by hand or written by a newer version: wrong types inside the known shapes still render."""
    doc = sample.read_json(keywords_dir / "assessment.json")
    doc["tables"][0]["distribution"] = "key_partition"
    doc["tables"][0]["columns"] = "e_type, e_id"
    doc["tables"][1]["row_count"] = "many"
    doc["tables"][1]["source"] = None
    doc["queries"][0]["notes"] = "see the DBA"
    doc["queries"][0]["executions"] = "1e6"
    doc["queries"][1]["avg_duration_us"] = [1, 2]
    doc["findings"][0]["details"] = "effort_days: 3"
    doc["findings"][1]["severity"] = "catastrophic"
    doc["workload"]["timeline"][0]["qps"] = "n/a"
    doc["workload"]["windows"][0]["start"] = "yesterday"
    doc["summary"]["queries_by_status"] = ["x"]
    doc["deployment"]["nodes"] = {"tidb": "four"}
    doc["deployment"]["colocation"] = []
    (keywords_dir / "assessment.json").write_text(json.dumps(doc))
    replay = sample.read_json(keywords_dir / "replay.json")
    replay["per_query"][0]["latency_ms"] = 5
    replay["timeline"][3] = {"second": "x", "completed": None}
    replay["error_codes"] = [{"code": None, "count": "3", "samples": "oops"}]
    replay["evidence"] = {"tables": "keywords", "before": [], "after": {"keywords": "hot"}}
    replay["ramp"] = {"steps": "none", "ceiling_qps": "high"}
    (keywords_dir / "replay.json").write_text(json.dumps(replay))
    page = render_report(keywords_dir).read_text()
    assert _sections(page) == ["summary", "schema", "workload", "replay", "deployment", "plan"]
    assert "see the DBA" not in page and "many" in page  # notes must be a list; a row count is shown as written
    assert _sections(render_report(keywords_dir, anonymize=True).read_text())[:2] == ["summary", "schema"]
    doc["tables"] = {"not": "a list"}
    (keywords_dir / "assessment.json").write_text(json.dumps(doc))
    with pytest.raises(InputError, match=r"assessment\.json: tables must be a list, got dict"):
        render_report(keywords_dir)


def test_ddl_planned_for_fewer_tikv_nodes_than_suggested_says_so_with_the_command(tmp_path):
    capture, translation, plan, findings, _ = sample.keywords_parts()
    out = sample.write_out(tmp_path / "o", capture, translation, plan, findings, Options(tikv_nodes=3))
    page = render_report(out).read_text()
    command = f"sqlsrv2tidb assess examples/keywords/schema.sql capture/query_store.json -o {out} --tidb-version 8.5.0 --tikv-nodes 8"
    for section in ("summary", "deployment", "plan"):
        body = page.split(f'<section id="{section}"', 1)[1].split("</section>", 1)[0]
        assert "Re-plan the DDL for 8 TiKV nodes." in body and f"<code>{command}</code>" in body, section
    assert "4 TiDB, 8 TiKV, 3 PD (the DDL was planned for 3 TiKV)" in page
    assert "re-plan with --tikv-nodes 8 for one per node of the suggested cluster" in page  # the hot-table row agrees
    agreed = sample.write_out(tmp_path / "ok", capture, translation, plan, findings, Options(tikv_nodes=8))
    assert "Re-plan" not in render_report(agreed).read_text()


def test_blockers_list_what_makes_the_verdict_not_ready(keywords_dir, rules):
    view = build_report(load_inputs(keywords_dir), rules, anonymized=False, generated="now")
    assert view.summary.verdict.label == "Not ready" and view.summary.blockers == ()
    assert [b[:39] for b in view.summary.blocking] == ["the replay did not sustain its target: "]
    page = render_html(view)
    blockers = page.split("<h3>Blockers</h3>", 1)[1].split("</section>", 1)[0]
    assert "the replay did not sustain its target" in blockers and "None." not in blockers


def test_generic_tables_and_facts_read_as_words_with_units(keywords_dir):
    page = render_report(keywords_dir).read_text()
    headers = re.findall(r"<th[^>]*>([^<]*)</th>", page)
    assert not [h for h in headers if re.search(r"[a-z]_[a-z]", h)], "snake_case heading"
    labels = re.findall(r"<dt>([^<]*)</dt>", page)
    assert not [t for t in labels if re.fullmatch(r"[a-z0-9]+(?:[ _][a-z0-9]+)+", t)], "raw key as a fact label"
    assert "Share of one Region&#39;s insert ceiling" in page and ">200%</td>" in page
    assert "Region leaders per TiKV store" in page and "store 4: 2" in page
    assert "Index build workers (tidb_ddl_reorg_worker_cnt)" in page
    shown = record_facts({"low_insert_qps": 50.0, "unmatched_write_classes": [], "rates_known": True, "note": None})
    assert shown == (Fact("Largest insert rate for a NOCACHE sequence (per second)", "50"),
                     Fact("Write rates known from the workload", "yes"))
    deployment = page.split('<section id="deployment"', 1)[1].split("</section>", 1)[0]
    assert ">key_partition<" not in deployment and ">PARTITION BY KEY<" in deployment


def test_a_cluster_replay_shows_each_worker_and_the_lost_share_and_anonymizes_the_machines(keywords_dir):
    replay = sample.read_json(keywords_dir / "replay.json")

    def row(share: int, worker: str, host: str, state: str, **extra) -> dict:
        return {"share": share, "worker": worker, "host": host, "state": state, "connections": 8,
                "target_qps": 25000.0, "sent": 1_500_000, "statements": 1_500_000, "achieved_qps": 25000.0,
                "errors": 0, "late_sends": 12, "missed": 0, "client_cpu_s": 81.2, "cpu_us_per_statement": 54.1,
                "clock_offset_ms": 1.25, "clock_rtt_ms": 0.4, "lost_after_s": None, "note": None, **extra}

    replay["workers"] = 2
    replay["cluster"] = {"scheduler": "tcp://10.1.2.3:8786", "lost": [1], "scheduler_cpu_s": 0.5, "workers": [
        row(0, "tcp://10.1.2.4:40211", "loadgen-a", "done"),
        row(1, "tcp://10.1.2.5:40999", "loadgen-b", "lost", statements=780_000, lost_after_s=31.5,
            note="its worker left the cluster")]}
    replay["stopped_by"] = ("share 1 of 2 (worker tcp://10.1.2.5:40999 on loadgen-b, 8 connections) was lost 31.5s "
                            "after the start: its worker left the cluster")
    replay["config"]["cluster"] = "tcp://10.1.2.3:8786"
    (keywords_dir / "replay.json").write_text(json.dumps(replay))
    page = render_report(keywords_dir).read_text()
    assert "<h3>Sending workers</h3>" in page and 'id="replay-workers"' in page
    assert "Lost: share 1 (tcp://10.1.2.5:40999): its worker left the cluster" in page
    assert "Client CPU per statement (µs)" in page and "Sent over 10 ms late" in page and "loadgen-b" in page
    shared = render_report(keywords_dir, anonymize=True).read_text()
    assert "<h3>Sending workers</h3>" in shared and "tcp://host_003:40999" in shared
    for machine in ("loadgen-a", "loadgen-b", "10.1.2.3", "10.1.2.4", "10.1.2.5"):
        assert machine not in shared


def test_a_large_workload_lists_the_busiest_classes_of_each_status_and_counts_the_rest(tmp_path, rules, monkeypatch):
    from sqlsrv2tidb.report import build_workload

    monkeypatch.setattr(build_workload, "LISTED_PER_STATUS", 2)
    out = sample.keywords_out(tmp_path / "o", replay=False, experiment=False)
    doc = sample.read_json(out / "assessment.json")
    extra = [{"id": f"qx{i}", "status": status, "kind": "select", "executions": 10**9 * i, "source_sql": f"SELECT {i}",
              "target_sql": f"SELECT {i}", "notes": []}
             for i, status in enumerate(["review", "review", "review", "translated", "translated", "translated"], start=1)]
    slow = {"id": "qslow", "status": "translated", "kind": "select", "executions": 0, "total_duration_us": 9e12,
            "source_sql": "SELECT 0", "target_sql": "SELECT 0", "notes": []}
    doc["queries"] = [*doc["queries"], *extra, slow]
    doc["findings"] = [*doc["findings"], *({"rule": "QY59", "severity": "medium", "object": f"query qx{i}",
                                            "message": "m"} for i in (1, 2, 3))]
    (out / "assessment.json").write_text(json.dumps(doc))
    view = build_report(load_inputs(out), rules, anonymized=False, generated="now")
    listed = {v.id for v in view.workload.queries}
    # per status the two busiest; the slowest class too, since the page links to it from its top table
    assert {"qx2", "qx3", "qx5", "qx6", "qslow"} <= listed and not listed & {"qx1", "qx4"}
    assert view.workload.queries_total == len(doc["queries"]) > len(listed)
    reviews = sum(q["status"] == "review" for q in doc["queries"])
    assert dict((c.name, c.count) for c in view.workload.statuses)["review"] == reviews > 2  # counted, listed or not
    objects = {r.object: r.object_anchor for g in view.schema.finding_groups for r in g.rows}
    assert "query qx1" not in objects and objects["query qx3"] == "q-qx3"  # no link to a class not in the page
    assert view.schema.findings_unlisted == 1 and view.schema.findings_total == len(doc["findings"])
    page = render_html(view)
    assert "classes are left out of this page" in page and 'id="q-qx1"' not in page and 'href="#q-qx1"' not in page
