"""Builds the report's view-model from the documents of one OUT folder.

Sections with their own logic live beside this module (`build_schema`, `build_workload`,
`build_data`, `build_replay`, `build_deployment`); here are the summary, the migration plan and the page that
holds them all. What the sections share is in `links` (anchors, links, query labels) and
`findings` (the rows of the findings tables). Everything is sorted here, never in a template.
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from pathlib import Path
from typing import Any

from . import formatting as fmt
from .build_compare import build_compare, compare_fact
from .build_data import build_data, data_fact
from .build_deployment import build_deployment
from .build_procedures import build_procedures, procedures_fact
from .build_replay import build_replay, without_password
from .build_schema import build_schema
from .build_workload import build_workload, listed_query_ids
from .findings import finding_row
from .inputs import ReportInputs
from .labels import record_facts
from .links import Anchors, query_label
from .rulesinfo import RuleInfo
from .shape import obj, objs, seq
from .verdict import NOT_READY, SEVERITIES, decide, estimate
from .viewmodel import (
    Count,
    DdlFileView,
    Fact,
    Link,
    PlanSection,
    Replan,
    Report,
    Summary,
)

FAST_DDL_DOCS = (
    Link("tidb_ddl_enable_fast_reorg", "https://docs.pingcap.com/tidb/stable/system-variables#tidb_ddl_enable_fast_reorg-new-in-v630"),
    Link("tidb_ddl_reorg_worker_cnt", "https://docs.pingcap.com/tidb/stable/system-variables#tidb_ddl_reorg_worker_cnt"),
)
_SET_TIDB = re.compile(r"\bSET\s+(?:GLOBAL\s+|SESSION\s+|@@global\.|@@session\.)?(tidb_\w+)\s*=\s*([^;*\n]+)", re.I)
"""The TiDB variables the ddl/ files set (fast index build, scatter), as the plan will apply them."""
FAST_DDL_DEFAULTS = {
    "tidb_ddl_enable_fast_reorg": "ON",
    "tidb_ddl_reorg_worker_cnt": "raise from the default 4 while no application load runs",
    "note": "the ddl/ files set no TiDB variable; these are the settings to use when adding the indexes",
}


def severity_counts(findings: list[dict[str, Any]]) -> tuple[Count, ...]:
    found = Counter(str(f.get("severity", "info")) for f in findings)
    return tuple(Count(s, found.get(s, 0), css=f"sev-{s}") for s in SEVERITIES)


def build_replan(doc: dict[str, Any], out_dir: str, anonymized: bool, replayed: bool = False) -> Replan | None:
    """The DDL's TiKV count against the sizing's, and the `assess` command that plans for the suggested cluster."""
    advice = obj(doc.get("deployment"))
    nodes, replan = obj(advice.get("nodes")), obj(advice.get("replan"))
    planned = replan.get("planned_tikv_nodes", nodes.get("tikv_option"))
    suggested = replan.get("suggested_tikv_nodes", nodes.get("tikv"))
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in (planned, suggested)) or planned == suggested:
        return None
    options = obj(doc.get("options"))
    sources = ["SOURCES"] if anonymized else [str(s) for s in seq(obj(doc.get("source")).get("sources"))] or ["SOURCES"]
    words = ["sqlsrv2tidb", "assess", *sources, "-o", "OUT" if anonymized else out_dir]
    for key, option in (("tidb_version", "--tidb-version"), ("tidb_nodes", "--tidb-nodes"), ("config_file", "--config")):
        if options.get(key) and not (anonymized and key == "config_file"):
            words += [option, str(options[key])]
    words += ["--tikv-nodes", str(suggested)]
    text = (f"The DDL in ddl/ was planned for {planned} TiKV nodes: write-hot tables get one KEY partition per node, "
            f"{planned} in all. The suggested cluster below has {suggested} TiKV nodes. Plan the DDL for the cluster "
            "you will deploy before applying it" + (" (add the replay's --target options to measure again)" if replayed else "")
            + ":")
    return Replan(planned, suggested, text, " ".join(shlex.quote(w) for w in words))


def later_findings(inputs: ReportInputs) -> list[dict[str, Any]]:
    """The findings of compare.json (a class whose answers differ, RP09, counts as the high finding it is) and of
    data.json (a table not loaded or not equal, a key the target refused), beside assessment.json's own."""
    return [f for document in (inputs.compare, inputs.data) for f in seq(obj(document).get("findings"))
            if isinstance(f, dict)]


def build_summary(inputs: ReportInputs, rules: dict[str, RuleInfo], anchors: Anchors, comparison: dict[str, int] | None,
                  replan: Replan | None = None) -> Summary:
    doc = inputs.assessment
    findings = [*seq(doc.get("findings")), *later_findings(inputs)]
    queries = list(seq(doc.get("queries")))
    engine = "MySQL" if obj(doc.get("options")).get("target_engine") == "mysql" else "TiDB"
    verdict = decide(findings, queries, inputs.replay, comparison, engine, data=inputs.data, answers=inputs.compare)
    blockers = tuple(finding_row(f, rules, anchors) for f in findings if f.get("severity") == "blocker")
    facts = [Fact("Database", str(obj(doc.get("source")).get("database") or "—"))]
    summary = obj(doc.get("summary"))
    facts.append(Fact("Tables", fmt.number(summary.get("tables", len(seq(doc.get("tables")))))))
    for key, label in (("views", "Views"), ("procedures", "Procedures"), ("functions", "Functions"), ("triggers", "Triggers")):
        if summary.get(key):
            facts.append(Fact(label, fmt.number(summary[key])))
    if queries or summary.get("query_classes"):
        statuses = obj(summary.get("queries_by_status")) or Counter(q.get("status") for q in queries)
        parts = ", ".join(f"{fmt.number(n)} {s}" for s, n in statuses.items() if n)
        facts.append(Fact("Query classes", f"{fmt.number(summary.get('query_classes', len(queries)))}" + (f" ({parts})" if parts else "")))
    workload = obj(doc.get("workload"))
    peak = workload.get("peak_window")
    if peak:
        qps = next((w.get("qps") for w in objs(workload.get("windows")) if w.get("name") == peak), None)
        facts.append(Fact("Peak window", f"{peak} ({fmt.qps(qps)} queries per second)" if qps is not None else str(peak)))
    if inputs.replay is not None:
        r = inputs.replay
        where = without_password(str(r.get("target") or "the target"))
        facts.append(Fact("Replay", f"{fmt.qps(r.get('achieved_qps'))} of {fmt.qps(r.get('target_qps'))} queries per second on {where}"))
    procedures = procedures_fact(doc)
    if procedures is not None:
        facts.append(procedures)
    compared = compare_fact(inputs.compare)
    if compared is not None:
        facts.append(compared)
    held = data_fact(inputs.data)
    if held is not None:
        facts.append(held)
    deployment = obj(doc.get("deployment"))
    nodes = obj(deployment.get("nodes"))
    if nodes:
        cluster = f"{nodes.get('tidb', '?')} TiDB, {nodes.get('tikv', '?')} TiKV, {nodes.get('pd', '?')} PD"
        if nodes.get("tiflash"):
            cluster += f", {nodes['tiflash']} TiFlash"
        facts.append(Fact("Suggested cluster", cluster + (f" (the DDL was planned for {replan.planned} TiKV)" if replan else "")))
    options = obj(doc.get("options"))
    if options.get("target_engine") == "mysql":
        facts.append(Fact("Target MySQL version", str(options.get("mysql_version") or "—")))
    else:
        facts.append(Fact("Target TiDB version", str(options.get("tidb_version") or "—")))
    stages = stages_fact(obj(doc.get("run")))
    if stages is not None:
        facts.append(stages)
    blocking = tuple(r.text for r in verdict.reasons if r.level == NOT_READY and not r.findings)
    return Summary(verdict, blockers, blocking, severity_counts(findings), estimate(findings, queries, rules), tuple(facts))


def _target(options: dict[str, Any]) -> str:
    """The engine and version the document assessed: `MySQL 8.4.0`, or `TiDB 8.5.0` (TiDB's documents name only its version)."""
    if options.get("assessed_for"):
        return str(options["assessed_for"])
    return f"TiDB {options['tidb_version']}" if options.get("tidb_version") else ""


def stages_fact(run: dict[str, Any]) -> Fact | None:
    """`assess --connection`: what became of each stage (assessment.json's `run`), the failed and left out with why."""
    parts = []
    for stage in objs(run.get("stages")):
        status = str(stage.get("status") or "")
        text = f"{stage.get('name')} {status}"
        if status != "done" and stage.get("said"):
            text += f" ({stage['said']})"
        elif stage.get("resumed"):
            text += " (resumed from the earlier run)"
        parts.append(text)
    return Fact("Stages", "; ".join(parts)) if parts else None


def build_plan(inputs: ReportInputs, anchors: Anchors) -> PlanSection:
    doc = inputs.assessment
    listed = {str(f.get("name")): f for f in seq(doc.get("ddl_files")) if isinstance(f, dict)}
    files = []
    contents = dict(inputs.ddl)
    for name in sorted(set(contents) | set(listed)):
        meta = listed.get(name, {})
        statements = meta.get("statements")
        files.append(DdlFileView(
            anchor=anchors.make("ddl", name),
            name=name,
            title=str(meta.get("title") or ""),
            statements=fmt.number(statements) if isinstance(statements, int) else "—",
            content=contents.get(name, "(file not found in OUT/ddl)"),
        ))
    settings = doc.get("plan_settings") if isinstance(doc.get("plan_settings"), dict) else {}
    applied = [(name, m[1], m[2].strip().strip("'\"")) for name, text in inputs.ddl for m in _SET_TIDB.finditer(text)]
    # `SET GLOBAL x = @saved` at the end of a file puts back the value the file found.
    restored = {(name, var) for name, var, value in applied if value.startswith("@")}
    fast = tuple(Fact(f"{var} = {value}", f"set by {name}" + (", which puts back the value it found at its end"
                                                                if (name, var) in restored else ""))
                 for name, var, value in applied if not value.startswith("@"))
    if not fast:
        fast = tuple(Fact(k, v) for k, v in FAST_DDL_DEFAULTS.items())
    return PlanSection(tuple(files), fast, FAST_DDL_DOCS, record_facts(dict(sorted(settings.items()))))


def build_report(inputs: ReportInputs, rules: dict[str, RuleInfo], *, anonymized: bool, generated: str,
                 out_dir: str = "OUT", report_dir: Path | None = None) -> Report:
    """The page's view-model.

    `out_dir` is the folder the re-plan command writes to (as the user named it); `report_dir`, the
    folder the page goes to, lets it link source files named by relative paths.
    """
    doc = inputs.assessment
    anchors = Anchors(report_dir)
    for t in seq(doc.get("tables")):
        anchors.table(str(t.get("schema", "")), str(t.get("name", "")))
    listed = listed_query_ids(doc)
    for q in seq(doc.get("queries")):
        qid = str(q.get("id", ""))
        if qid in listed:
            anchors.query(qid)
        else:
            anchors.unlisted_queries.add(qid)  # nothing links to a class the page leaves out
        if isinstance(q, dict):
            anchors.labels[qid] = query_label(q)
    # The later stages' findings (a class whose answers differ, a table not loaded) are listed with the others.
    schema = build_schema({**doc, "findings": [*seq(doc.get("findings")), *later_findings(inputs)]}, rules, anchors)
    workload = build_workload(doc, rules, anchors)
    replay = build_replay(inputs, anchors)
    comparison = {c.name: c.count for c in replay.categories} if replay else None
    replan = build_replan(doc, out_dir, anonymized, inputs.replay is not None)
    summary = build_summary(inputs, rules, anchors, comparison, replan)
    deployment = build_deployment(doc.get("deployment"))
    plan = build_plan(inputs, anchors)
    nav = [Link("Summary", "#summary"), Link("Schema", "#schema")]
    if workload:
        nav.append(Link("Workload", "#workload"))
    procedures = build_procedures(doc, inputs.replay, inputs.compare)
    if procedures:
        nav.append(Link("Procedures", "#procedures"))
    data = build_data(inputs.data)
    if data:
        nav.append(Link("Data", "#data"))
    compare = build_compare(inputs.compare, anchors)
    if compare:
        nav.append(Link("Answers", "#compare"))
    if replay:
        nav.append(Link("Replay", "#replay"))
    if deployment:
        nav.append(Link("Deployment", "#deployment"))
    nav.append(Link("Migration plan", "#plan"))
    source = obj(doc.get("source"))
    database = str(source.get("database") or "")
    return Report(
        title=f"Migration report{': ' + database if database else ''}",
        database=database,
        tool_version=str(doc.get("tool_version") or ""),
        generated=generated,
        anonymized=anonymized,
        sources=tuple(str(s) for s in seq(source.get("sources"))),
        target_version=_target(obj(doc.get("options"))),
        engine="MySQL" if obj(doc.get("options")).get("target_engine") == "mysql" else "TiDB",
        nav=tuple(nav),
        summary=summary,
        schema=schema,
        workload=workload,
        replay=replay,
        deployment=deployment,
        plan=plan,
        replan=replan,
        data=data,
        compare=compare,
        procedures=procedures,
    )
