"""Builds the report's view-model from the documents of one OUT folder.

Sections with their own logic live beside this module (`build_schema`, `build_workload`,
`build_replay`, `build_deployment`); here are the summary, the findings, the migration plan and
the helpers they share (anchors, links). Everything is sorted here, never in a template.
"""

from __future__ import annotations

import os
import re
import shlex
from collections import Counter
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any
from urllib.parse import quote

from . import formatting as fmt
from .inputs import ReportInputs
from .labels import record_facts
from .rulesinfo import RuleInfo, unknown_rule
from .shape import obj, objs, seq
from .verdict import NOT_READY, SEVERITIES, decide, estimate
from .viewmodel import (
    Count,
    DdlFileView,
    Fact,
    FindingGroup,
    FindingRow,
    Link,
    PlanSection,
    Replan,
    Report,
    Summary,
)

SAFE_SCHEMES = ("https://", "http://", "file:")
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


class Anchors:
    """Unique, URL-safe element ids for tables, query classes and files, so findings can link to them.

    `report_dir` is the folder the page is written to: a source file named by a relative path is
    linked relative to it (see `location`).
    """

    def __init__(self, report_dir: Path | None = None) -> None:
        self.report_dir = report_dir
        self._used: set[str] = set()
        self.tables: dict[str, str] = {}
        self.queries: dict[str, str] = {}
        self.labels: dict[str, str] = {}
        """Query id -> what the page calls the class (`query_label`)."""

    def make(self, prefix: str, text: str) -> str:
        slug = re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-").lower()[:60] or "x"
        anchor, n = f"{prefix}-{slug}", 1
        while anchor in self._used:
            n += 1
            anchor = f"{prefix}-{slug}-{n}"
        self._used.add(anchor)
        return anchor

    def table(self, schema: str, name: str) -> str:
        key = f"{schema}.{name}".casefold()
        if key not in self.tables:
            self.tables[key] = self.make("t", f"{schema}-{name}")
        return self.tables[key]

    def query(self, query_id: str) -> str:
        if query_id not in self.queries:
            self.queries[query_id] = self.make("q", query_id)
        return self.queries[query_id]

    def for_object(self, obj: str) -> str | None:
        """The anchor of the table or query class a finding names (`dbo.T`, `dbo.T.col`, `query q1…`)."""
        if obj.startswith("query "):
            return self.queries.get(obj[6:].strip())
        parts = obj.split(".")
        for n in (2, 1):
            if len(parts) >= n:
                key = ".".join(parts[:2]).casefold() if n == 2 else f"dbo.{parts[0]}".casefold()
                if key in self.tables:
                    return self.tables[key]
        return None

    def source(self, file: Any, line: Any) -> Link | None:
        """`file:line` of a statement the tool read, linked from where this page is written."""
        return location(file, line, self.report_dir)


LABEL_CHARS = 60


def query_label(q: dict[str, Any]) -> str:
    """The user's name for a query class (a workload spec's `name:`), else the start of its SQL on one line."""
    name = q.get("name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    sql = " ".join(str(q.get("source_sql") or q.get("fingerprint") or "").split())
    if not sql:
        return str(q.get("id", ""))
    return sql if len(sql) <= LABEL_CHARS else sql[:LABEL_CHARS].rstrip() + "…"


def safe_href(url: str) -> str | None:
    """Only web and file links: a rule file from a user's --rules folder must not smuggle `javascript:`."""
    return url if url.lower().startswith(SAFE_SCHEMES) else None


def location(file: Any, line: Any, report_dir: Path | None = None) -> Link | None:
    """`file:line`, linked to the file.

    An absolute path becomes a `file:` URL. A relative path was relative to the folder the tool ran
    in; it is linked relative to `report_dir` (so the link survives moving both folders together)
    only while it still names a file from here, since `report OUT` may run from anywhere.
    """
    if not isinstance(file, str) or not file:
        return None
    text = f"{file}:{line}" if isinstance(line, int) and line > 0 else file
    if PurePosixPath(file).is_absolute():
        return Link(text, PurePosixPath(file).as_uri())
    windows = PureWindowsPath(file)
    if windows.is_absolute() and windows.drive:
        return Link(text, windows.as_uri())
    if report_dir is not None and not windows.drive and Path(file).is_file():
        relative = os.path.relpath(Path(file).resolve(), Path(report_dir).resolve())
        return Link(text, quote(Path(relative).as_posix()))
    return Link(text)


def docs_links(rule: RuleInfo) -> tuple[Link, ...]:
    links = []
    for url in rule.references:
        href = safe_href(url)
        if href:
            links.append(Link(_link_text(url), href))
    return tuple(links)


def _link_text(url: str) -> str:
    tail = url.rstrip("/").rsplit("/", 1)[-1]
    return tail.split("#", 1)[-1] if "#" in tail else (tail or url)


def finding_row(f: dict[str, Any], rules: dict[str, RuleInfo], anchors: Anchors) -> FindingRow:
    code = str(f.get("rule", "?"))
    rule = rules.get(code) or unknown_rule(code)
    obj = str(f.get("object") or "")
    return FindingRow(
        rule=code,
        rule_name=rule.name,
        severity=str(f.get("severity", "info")),
        object=obj,
        object_anchor=anchors.for_object(obj),
        message=str(f.get("message") or ""),
        location=anchors.source(f.get("file"), f.get("line")),
        docs=docs_links(rule),
        remediation=rule.remediation,
        effort=rule.effort if rule.known else "medium (rule not in the catalogue)",
    )


def finding_groups(findings: list[dict[str, Any]], rules: dict[str, RuleInfo], anchors: Anchors) -> tuple[FindingGroup, ...]:
    by_sev: dict[str, list[FindingRow]] = {s: [] for s in SEVERITIES}
    for f in findings:
        row = finding_row(f, rules, anchors)
        by_sev.setdefault(row.severity, []).append(row)
    groups = []
    for sev, rows in by_sev.items():
        if rows:
            rows.sort(key=lambda r: (r.rule, r.object.casefold(), r.location.text if r.location else "", r.message))
            groups.append(FindingGroup(sev, sev.capitalize(), tuple(rows)))
    return tuple(groups)


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


def build_summary(inputs: ReportInputs, rules: dict[str, RuleInfo], anchors: Anchors, comparison: dict[str, int] | None,
                  replan: Replan | None = None) -> Summary:
    doc = inputs.assessment
    findings = list(seq(doc.get("findings")))
    queries = list(seq(doc.get("queries")))
    verdict = decide(findings, queries, inputs.replay, comparison)
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
        from .build_replay import without_password

        where = without_password(str(r.get("target") or "the target"))
        facts.append(Fact("Replay", f"{fmt.qps(r.get('achieved_qps'))} of {fmt.qps(r.get('target_qps'))} queries per second on {where}"))
    deployment = obj(doc.get("deployment"))
    nodes = obj(deployment.get("nodes"))
    if nodes:
        cluster = f"{nodes.get('tidb', '?')} TiDB, {nodes.get('tikv', '?')} TiKV, {nodes.get('pd', '?')} PD"
        if nodes.get("tiflash"):
            cluster += f", {nodes['tiflash']} TiFlash"
        facts.append(Fact("Suggested cluster", cluster + (f" (the DDL was planned for {replan.planned} TiKV)" if replan else "")))
    facts.append(Fact("Target TiDB version", str(obj(doc.get("options")).get("tidb_version") or "—")))
    blocking = tuple(r.text for r in verdict.reasons if r.level == NOT_READY and not r.findings)
    return Summary(verdict, blockers, blocking, severity_counts(findings), estimate(findings, queries, rules), tuple(facts))


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
    from .build_deployment import build_deployment
    from .build_replay import build_replay
    from .build_schema import build_schema
    from .build_workload import build_workload

    doc = inputs.assessment
    anchors = Anchors(report_dir)
    for t in seq(doc.get("tables")):
        anchors.table(str(t.get("schema", "")), str(t.get("name", "")))
    for q in seq(doc.get("queries")):
        anchors.query(str(q.get("id", "")))
        if isinstance(q, dict):
            anchors.labels[str(q.get("id", ""))] = query_label(q)
    schema = build_schema(doc, rules, anchors)
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
        target_version=str(obj(doc.get("options")).get("tidb_version") or ""),
        nav=tuple(nav),
        summary=summary,
        schema=schema,
        workload=workload,
        replay=replay,
        deployment=deployment,
        plan=plan,
        replan=replan,
    )
