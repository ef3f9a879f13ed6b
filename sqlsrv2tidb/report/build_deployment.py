"""The deployment section: the sizing advice of `plan.sizing`, as it was stored in assessment.json."""

from __future__ import annotations

import base64
from typing import Any

from . import formatting as fmt
from .build_replay import records_table
from .links import safe_href
from .shape import obj, seq
from .viewmodel import Assumption, DeploymentSection, Fact, Link, NodeRow, SettingRow


def _link(url: Any) -> Link | None:
    if not isinstance(url, str):
        return None
    href = safe_href(url)
    return Link(url.rsplit("/", 1)[-1] or url, href) if href else None


def topology_href(text: str) -> str:
    """A data: URI, so the download works from the single offline file."""
    return "data:application/yaml;charset=utf-8;base64," + base64.b64encode(text.encode("utf-8")).decode("ascii")


def build_deployment(advice: Any) -> DeploymentSection | None:
    if not isinstance(advice, dict) or not advice:
        return None
    nodes = obj(advice.get("nodes"))
    machine = obj(advice.get("machine"))
    peak = obj(advice.get("peak"))
    layout = str(advice.get("layout") or "dedicated")
    spec = f"{machine.get('cores', '?')} cores, {machine.get('memory_gb', '?')} GB"
    shared = layout == "co-located"
    rows = (
        NodeRow("TiDB", fmt.scalar(nodes.get("tidb")), "shared" if shared else spec,
                f"sized for {fmt.qps(peak.get('qps'))} QPS at the peak: {fmt.scalar(nodes.get('tidb_sized'))} node(s)"),
        NodeRow("TiKV", fmt.scalar(nodes.get("tikv")), "shared" if shared else spec,
                f"{fmt.qps(peak.get('writes_qps'))} writes and {fmt.qps(peak.get('reads_qps'))} reads per second need "
                f"{fmt.scalar(nodes.get('tikv_load_nodes'))} node(s) of work; sized {fmt.scalar(nodes.get('tikv_sized'))}; "
                f"the DDL was planned for {fmt.scalar(nodes.get('tikv_option'))}"),
        NodeRow("PD", fmt.scalar(nodes.get("pd")), "shared" if shared else "small (4 cores, 8 GB)", "three for a Raft quorum"),
    )
    tiflash = obj(advice.get("tiflash"))
    if nodes.get("tiflash"):
        tables = [str(t) for t in seq(tiflash.get("tables"))]
        rows += (NodeRow("TiFlash", fmt.scalar(nodes.get("tiflash")), "own machine",
                         f"{tiflash.get('file') or 'the TiFlash DDL file'} gives {len(tables)} table(s) "
                         f"{fmt.scalar(tiflash.get('replicas'))} TiFlash replica(s) each (they had a columnstore index: "
                         f"{', '.join(tables[:5])}{', …' if len(tables) > 5 else ''}); TiDB refuses it with fewer "
                         "TiFlash servers"),)
    facts = [
        Fact("Layout", f"{layout}, {fmt.scalar(advice.get('machines'))} machines" + (f" of {spec}" if shared else "")),
        Fact("Peak window", f"{peak.get('window') or 'whole capture'}: {fmt.qps(peak.get('qps'))} queries per second"),
    ]
    colocation = obj(advice.get("colocation"))
    settings = tuple(
        SettingRow(str(s.get("component")), str(s.get("key")), fmt.scalar(s.get("value")),
                   fmt.scalar(s.get("seed_value")) if s.get("seed_value") is not None else "—", str(s.get("why") or ""))
        for s in seq(colocation.get("settings")) if isinstance(s, dict)
    )
    note = ""
    if settings:
        note = (f"TiDB, TiKV and PD share each machine. Values are scaled from the three-node hybrid deployment guide "
                f"(16 cores, 32 GB per machine) to {spec}; start there, then watch the thread-pool CPU panels. "
                "Put PD and TiKV on separate disks.")
    yaml_text = str(advice.get("topology_yaml") or "")
    return DeploymentSection(
        method=str(advice.get("method") or ""),
        layout=layout,
        facts=tuple(facts),
        nodes=rows,
        assumptions=tuple(
            Assumption(str(a.get("name")), str(a.get("value")), _link(a.get("source")))
            for a in seq(advice.get("assumptions")) if isinstance(a, dict)
        ),
        hot_tables=records_table("hot-tables", list(seq(advice.get("hot_tables"))),
                                 ("table", "window", "insert_qps", "write_qps", "share_of_one_region", "strategy", "partitions")),
        colocation=settings,
        colocation_note=note,
        topology_yaml=yaml_text,
        topology_href=topology_href(yaml_text) if yaml_text else "",
        notes=tuple(str(n) for n in seq(advice.get("notes"))),
        docs=tuple(link for link in (_link(u) for u in seq(advice.get("docs"))) if link),
    )
