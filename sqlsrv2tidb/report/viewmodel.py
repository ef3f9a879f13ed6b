"""The report's view-model: everything a template shows, already sorted, formatted and escaped-ready.

Templates only loop over these, branch on them and call filters; no arithmetic, sorting or
formatting happens in Jinja. Every text here is plain text (autoescaping makes it safe in HTML);
only `svg` fields hold markup, produced by `charts` from numbers and escaped labels.
"""

from __future__ import annotations

from dataclasses import dataclass

from .compare import ClassResult
from .verdict import Effort, Verdict


@dataclass(frozen=True)
class Link:
    text: str
    href: str | None = None
    """None: show the text without a link (a relative path, a pseudonymised file)."""


@dataclass(frozen=True)
class Fact:
    """A labelled figure: `Peak window` → `nightly (50,000 QPS)`."""

    label: str
    value: str


@dataclass(frozen=True)
class Cell:
    text: str
    sort: str = ""
    numeric: bool = False


@dataclass(frozen=True)
class GenericTable:
    """Rows of a JSON list whose shape another stage owns (replay evidence, experiment designs)."""

    id: str
    columns: tuple[str, ...]
    numeric: tuple[bool, ...]
    rows: tuple[tuple[Cell, ...], ...]


@dataclass(frozen=True)
class Count:
    name: str
    count: int
    css: str = ""
    share: str = ""


# -- findings ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class FindingRow:
    rule: str
    rule_name: str
    severity: str
    object: str
    object_anchor: str | None
    message: str
    location: Link | None
    docs: tuple[Link, ...]
    remediation: str
    effort: str


@dataclass(frozen=True)
class FindingGroup:
    severity: str
    label: str
    rows: tuple[FindingRow, ...]


# -- summary ----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Replan:
    """The DDL was planned for another TiKV count than the cluster the sizing suggests: say so, with the command."""

    planned: int
    suggested: int
    text: str
    command: str


@dataclass(frozen=True)
class Summary:
    verdict: Verdict
    blockers: tuple[FindingRow, ...]
    blocking: tuple[str, ...]
    """What else makes the verdict "not ready" (a replay that did not keep up, failing statements)."""
    severity_counts: tuple[Count, ...]
    effort: Effort
    facts: tuple[Fact, ...]


# -- schema -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ColumnRow:
    name: str
    source_type: str
    target_type: str
    nullable: str
    identity: str
    default: str
    notes: str


@dataclass(frozen=True)
class TableView:
    anchor: str
    name: str
    target: str
    strategy: str
    strategy_label: str
    partitions: Cell
    rows: Cell
    size: Cell
    primary_key: str
    clustered: str
    rationale: str
    evidence: tuple[Fact, ...]
    alternatives: tuple[str, ...]
    would_change_if: str
    ddl: str
    post_ddl: str
    columns: tuple[ColumnRow, ...]
    source: Link | None
    findings: int


@dataclass(frozen=True)
class LossRow:
    table: str
    table_anchor: str
    column: str
    source_type: str
    target_type: str
    note: str


@dataclass(frozen=True)
class SchemaSection:
    tables: tuple[TableView, ...]
    strategies: tuple[Count, ...]
    losses: tuple[LossRow, ...]
    finding_groups: tuple[FindingGroup, ...]
    findings_total: int
    findings_unlisted: int = 0
    """Findings about query classes the page does not list (in assessment.json only)."""


# -- workload ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Note:
    code: str
    message: str
    docs: Link | None = None


@dataclass(frozen=True)
class QueryView:
    id: str
    label: str
    """The user's name for the class (workload spec), else the start of its SQL."""
    description: str
    anchor: str
    kind: str
    status: str
    executions: Cell
    share: str
    qps: Cell
    window_qps: tuple[Cell, ...]
    """Queries per second in each window of `WorkloadSection.window_names`, in that order."""
    avg_ms: Cell
    total_s: Cell
    source_sql: str
    target_sql: str
    truncated: bool
    notes: tuple[Note, ...]
    location: Link | None


@dataclass(frozen=True)
class WindowRow:
    name: str
    kind: str
    start: str
    end: str
    duration: str
    qps: Cell
    peak: bool
    description: str


@dataclass(frozen=True)
class WorkloadSection:
    chart: str | None
    facts: tuple[Fact, ...]
    windows: tuple[WindowRow, ...]
    top_by_executions: tuple[QueryView, ...]
    top_by_time: tuple[QueryView, ...]
    statuses: tuple[Count, ...]
    queries: tuple[QueryView, ...]
    """The classes the page lists (`build_workload.LISTED_PER_STATUS`), the busiest first."""
    notes: tuple[str, ...]
    queries_total: int = 0
    """Every class of the workload, listed or not (assessment.json has them all)."""
    listed_per_status: int = 0
    window_names: tuple[str, ...] = ()
    """The windows with a QPS column in the query tables, peak first (none for a file without per-window rates)."""
    window_headers: tuple[str, ...] = ()
    """Their column headings (`QPS, nightly (peak)`)."""


# -- replay -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class CompareRow:
    result: ClassResult
    label: str
    anchor: str | None
    target_ms: Cell
    captured_ms: Cell
    ratio: Cell
    statements: Cell


@dataclass(frozen=True)
class Evidence:
    title: str
    facts: tuple[Fact, ...] = ()
    table: GenericTable | None = None
    note: str = ""


@dataclass(frozen=True)
class ReplaySection:
    facts: tuple[Fact, ...]
    latency: tuple[Fact, ...]
    chart: str | None
    comparison: tuple[CompareRow, ...]
    categories: tuple[Count, ...]
    comparison_method: str
    errors: tuple[Fact, ...]
    ramp_facts: tuple[Fact, ...]
    ramp_table: GenericTable | None
    ramp_chart: str | None
    hotspots: tuple[Evidence, ...]
    notes: tuple[str, ...]
    skipped: GenericTable | None
    experiment: Evidence | None
    experiment_chart: str | None
    workers: GenericTable | None = None
    """A cluster run's workers, one row each: what its share sent, achieved, failed and cost."""
    workers_note: str = ""


# -- deployment -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Assumption:
    name: str
    value: str
    source: Link | None


@dataclass(frozen=True)
class NodeRow:
    component: str
    count: str
    machine: str
    why: str


@dataclass(frozen=True)
class SettingRow:
    component: str
    key: str
    value: str
    reference: str
    why: str


@dataclass(frozen=True)
class DeploymentSection:
    method: str
    layout: str
    facts: tuple[Fact, ...]
    nodes: tuple[NodeRow, ...]
    assumptions: tuple[Assumption, ...]
    hot_tables: GenericTable | None
    colocation: tuple[SettingRow, ...]
    colocation_note: str
    topology_yaml: str
    topology_href: str
    notes: tuple[str, ...]
    docs: tuple[Link, ...]


# -- migration plan ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class DdlFileView:
    anchor: str
    name: str
    title: str
    statements: str
    content: str


@dataclass(frozen=True)
class PlanSection:
    files: tuple[DdlFileView, ...]
    fast_ddl: tuple[Fact, ...]
    fast_ddl_docs: tuple[Link, ...]
    settings: tuple[Fact, ...]


# -- the page ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class DataSection:
    facts: tuple[Fact, ...]
    tables: GenericTable
    differences: GenericTable | None
    notes: tuple[str, ...]


@dataclass(frozen=True)
class ProceduresSection:
    """Each stored procedure as the procedure runner sees it, with what a replay measured of its calls."""

    facts: tuple[Fact, ...]
    table: GenericTable | None
    triggers: GenericTable | None = None
    """Each DML trigger with what it does: the application runs it after the statements that fire it."""


@dataclass(frozen=True)
class AnswerRow:
    """One compared query class: its text, its verdict and why, linked to the query's entry on the page; the
    statements each side ran, shown on demand."""

    query_id: str
    anchor: str | None
    label: str
    """The user's name for the class, else the start of its T-SQL on one line."""
    verdict: str
    reason: str
    rows: str
    sql_server_sql: str = ""
    target_sql: str = ""
    truncated: bool = False
    how: tuple[str, ...] = ()
    """How it ran, when not plainly: with its batch, once more after a lost session; what a write did."""
    kind: str = "read"
    """read, or the kind of write (insert, update, delete, merge, call)."""


@dataclass(frozen=True)
class AnswersSection:
    facts: tuple[Fact, ...]
    rows: tuple[AnswerRow, ...]
    differences: GenericTable | None
    left_out: GenericTable | None


@dataclass(frozen=True)
class Report:
    title: str
    database: str
    tool_version: str
    generated: str
    anonymized: bool
    sources: tuple[str, ...]
    target_version: str
    nav: tuple[Link, ...]
    summary: Summary
    schema: SchemaSection
    workload: WorkloadSection | None
    replay: ReplaySection | None
    deployment: DeploymentSection | None
    plan: PlanSection
    replan: Replan | None = None
    data: DataSection | None = None
    compare: AnswersSection | None = None
    procedures: ProceduresSection | None = None
    page_size: int = 25
    """Rows per page of every long table; the HTML itself hides the rest until the page's script pages them."""
    engine: str = "TiDB"
    """The target engine the page's DDL, types and translations are for: `TiDB`, or `MySQL`."""
