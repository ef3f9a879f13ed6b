"""Deployment advice: how big a TiDB cluster the captured peak needs, and a TiUP topology to start from.

Method. The busiest window's rate is split into reads (SELECT) and writes (everything else, counted
as writes because a procedure call may write). TiDB nodes are sized on all statements, TiKV nodes on
writes plus a smaller weight for reads, each against a per-node figure from TiDB's published Sysbench
run on 16-vCPU machines, scaled by the cores given, at 70% target utilisation. Tables written at the
planner's write-hot threshold or more, in their own busiest window, are listed with the planner's
distribution choice and compared with what one Region took in seed 000.
For three machines or fewer, TiDB, TiKV and PD share every machine, with the thread pools, RocksDB
background jobs and rate limits of TiDB's three-node hybrid deployment guide scaled to the cores and
memory given.

The DDL is planned before the sizing, for `--tikv-nodes` TiKV nodes (one KEY partition per node on
write-hot tables). When the sizing suggests another TiKV count, the advice says so under `replan`,
with the option that plans the DDL for the suggested cluster, and the report puts that beside the
verdict: the DDL and the suggested cluster must describe the same cluster before either is used.

The machine shape comes from the `deployment:` section of `--config` (`machines`, `cores`,
`memory_gb`); without it, machines are assumed to have 16 cores and 32 GB, like the guide's.

TiFlash: when the plan gives tables TiFlash replicas (a columnstore index in SQL Server), its
ddl/08-tiflash-replicas.sql fails on a cluster with fewer TiFlash servers than replicas, so the
topology gets that many TiFlash servers, each on a machine of its own (TiDB's TiFlash topology
keeps them apart from TiKV). Their number follows the DDL, not the analytic load, which the
capture does not measure.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import yaml

from ..errors import UsageError
from ..model import Capture
from ..model.plan import MigrationPlan
from ..options import Options
from ..workload_rates import class_rates, peak_window
from .table_rates import table_write_rates

SYSBENCH_DOC = "https://docs.pingcap.com/tidb/stable/benchmark-sysbench-v5-vs-v4"
HYBRID_DOC = "https://docs.pingcap.com/tidb/stable/three-nodes-hybrid-deployment"
MULTI_INSTANCE_DOC = "https://docs.pingcap.com/tidb/stable/hybrid-deployment-topology"
TOPOLOGY_DOC = "https://docs.pingcap.com/tidb/stable/tiup-cluster-topology-reference"
HOTSPOT_DOC = "https://docs.pingcap.com/tidb/stable/troubleshoot-hot-spot-issues"
TIFLASH_TOPOLOGY_DOC = "https://docs.pingcap.com/tidb/stable/tiflash-deployment-topology"

REFERENCE_CORES = 16
"""The per-node figures below were measured on 16-vCPU machines (c5.4xlarge TiDB, i3.4xlarge TiKV)."""
TIDB_NODE_QPS = 22_000
"""oltp_read_write, TiDB v5.0, 150 threads: 66,099 QPS over 3 TiDB nodes (SYSBENCH_DOC)."""
TIKV_NODE_WRITES = 10_000
"""oltp_update_non_index, TiDB v5.0, 150 threads: 30,866 QPS over 3 TiKV nodes (SYSBENCH_DOC)."""
TIKV_NODE_READS = 50_000
"""oltp_point_select, TiDB v5.0, 150 threads: 153,571 QPS over 3 TiKV nodes (SYSBENCH_DOC)."""
REGION_INSERTS = 25_000
"""Seed 000: single-row inserts into one new table plateaued at about 25,000/s, one Region on one TiKV."""
UTILISATION = 0.7
MIN_TIDB, MIN_TIKV, PD_NODES = 2, 3, 3
DEFAULT_CORES, DEFAULT_MEMORY_GB = 16, 32
READ_KINDS = {"select"}

# Seed 001's tuned values on 16 cores / 32 GB, the reference the scaling reproduces.
SEED_001 = {
    ("tikv", "readpool.unified.max-thread-count"): 6,
    ("tikv", "server.grpc-concurrency"): 2,
    ("tikv", "storage.scheduler-worker-pool-size"): 2,
    ("tikv", "gc.max-write-bytes-per-sec"): "300K",
    ("tikv", "rocksdb.max-background-jobs"): 3,
    ("tikv", "rocksdb.max-sub-compactions"): 1,
    ("tikv", "rocksdb.rate-bytes-per-sec"): "200M",
    ("tidb", "performance.max-procs"): 8,
}

def _machine(options: Options) -> dict[str, Any]:
    section = options.config.get("deployment") if isinstance(options.config, dict) else None
    where = options.config_file or "--config"
    if section is None:
        return {"machines": None, "cores": DEFAULT_CORES, "memory_gb": DEFAULT_MEMORY_GB, "given": False}
    if not isinstance(section, dict):
        raise UsageError(f"{where}: deployment must be a mapping with machines, cores and memory_gb")
    out: dict[str, Any] = {"given": True}
    for key, default, minimum in (("machines", None, 1), ("cores", DEFAULT_CORES, 2), ("memory_gb", DEFAULT_MEMORY_GB, 2)):
        value = section.get(key, default)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float)) or value < minimum):
            raise UsageError(f"{where}: deployment.{key} must be a number of at least {minimum}, got {value!r}")
        out[key] = int(value) if key != "memory_gb" and value is not None else value
    unknown = set(section) - {"machines", "cores", "memory_gb"}
    if unknown:
        raise UsageError(f"{where}: deployment has unknown keys {', '.join(sorted(map(str, unknown)))} "
                         "(expected machines, cores, memory_gb)")
    return out


def _peak(capture: Capture) -> dict[str, Any]:
    """The busiest window's total rate, split into reads and writes."""
    workload = capture.workload
    peak = peak_window(workload)
    rates = class_rates(workload, peak) if peak else {}
    reads = sum(rates.get(q.id, 0.0) for q in workload.queries if q.kind in READ_KINDS)
    writes = sum(rates.get(q.id, 0.0) for q in workload.queries if q.kind not in READ_KINDS)
    return {
        "window": peak.name if peak else None,
        "start": peak.start if peak else None,
        "end": peak.end if peak else None,
        "qps": round(reads + writes, 1),
        "reads_qps": round(reads, 1),
        "writes_qps": round(writes, 1),
    }


def _hot_advice(needs: bool, strategy: str, partitions: int | None, planned: int, tikv: int) -> str:
    if not needs:
        return "watch it: within one Region's ceiling at its peak"
    if strategy in ("none", "unknown"):
        return f"spread it: PARTITION BY KEY into {tikv} partitions (one per TiKV node, as in seed 000) or pre-split"
    if strategy == "key_partition" and partitions and partitions != tikv:
        return (f"spread by the plan into {partitions} partitions, one per TiKV node of the {planned} the DDL was planned "
                f"for; re-plan with --tikv-nodes {tikv} for one per node of the suggested cluster")
    return "spread by the plan"


def _hot_tables(capture: Capture, plan: MigrationPlan | None, tikv: int, planned: int) -> list[dict[str, Any]]:
    """Tables written near a Region's ceiling in their own busiest window (the planner's table rates)."""
    threshold = float((plan.settings if plan else {}).get("write_hot_qps", REGION_INSERTS * 0.2))
    out = []
    for rate in table_write_rates(capture.workload, capture.database).tables.values():
        if rate.load < threshold:
            continue
        tp = plan.table(rate.schema, rate.name) if plan else None
        strategy = tp.distribution.strategy if tp else "unknown"
        needs = rate.insert_rate > REGION_INSERTS * UTILISATION
        partitions = tp.distribution.partitions if tp else None
        out.append({
            "table": f"{rate.schema}.{rate.name}",
            "window": rate.window,
            "insert_qps": round(rate.insert_rate, 1),
            "write_qps": round(rate.write_qps, 1),
            "share_of_one_region": round(rate.insert_rate / REGION_INSERTS, 2),
            "strategy": strategy,
            "partitions": partitions,
            "recommended_partitions": tikv if needs else None,
            "advice": _hot_advice(needs, strategy, partitions, planned, tikv),
        })
    out.sort(key=lambda h: (-h["insert_qps"], -h["write_qps"], h["table"]))
    return out


def _colocation(cores: int, memory_gb: float, tikv_per_machine: int) -> list[dict[str, Any]]:
    """Seed 001's tuning, scaled from 16 cores / 32 GB; TiKV gets about half of each machine."""
    per = max(1, tikv_per_machine)
    tikv_cores = cores / 2 / per
    values = {
        ("tikv", "readpool.unified.max-thread-count"): (max(2, round(tikv_cores * 0.8)), "≈80% of the cores TiKV should use (half the machine)"),
        ("tikv", "server.grpc-concurrency"): (max(1, round(cores / 8 / per)), "keep gRPC poll CPU under 80%"),
        ("tikv", "storage.scheduler-worker-pool-size"): (max(1, round(cores / 8 / per)), "keep scheduler CPU at 50–75%"),
        ("tikv", "gc.max-write-bytes-per-sec"): ("300K", "limit MVCC garbage collection; raise if old versions pile up"),
        ("tikv", "rocksdb.max-background-jobs"): (max(2, round(cores * 3 / 16 / per)), "raise on write stalls"),
        ("tikv", "rocksdb.max-sub-compactions"): (1, "set 2–3 if write stalls persist"),
        ("tikv", "rocksdb.rate-bytes-per-sec"): ("200M", "cap compaction I/O below the disk's sequential speed"),
        ("tikv", "storage.block-cache.capacity"): (f"{max(1, math.floor(memory_gb * 0.25 / per))}GB",
                                                  "half of the guide's 50% of memory, because TiDB shares the machine"),
        ("tidb", "performance.max-procs"): (max(1, cores // 2), "leave the other half of the cores to TiKV and PD"),
    }
    return [
        {"component": comp, "key": key, "value": value, "seed_value": SEED_001.get((comp, key)), "why": why}
        for (comp, key), (value, why) in values.items()
    ]


def _host(i: int) -> str:
    return f"10.0.{1 + i // 250}.{1 + i % 250}"


def _instances(component: str, count: int, hosts: list[str], base_ports: tuple[int, int]) -> list[dict[str, Any]]:
    """Round-robin over hosts; a second instance on a host gets the next ports (TiUP derives its dirs from them)."""
    seen: dict[str, int] = defaultdict(int)
    out = []
    for i in range(count):
        host = hosts[i % len(hosts)]
        k = seen[host]
        seen[host] += 1
        item: dict[str, Any] = {"host": host}
        if k:
            item["port"], item["status_port"] = base_ports[0] + k, base_ports[1] + k
        if component == "tikv":
            item["config"] = {"server.labels": {"host": f"machine-{hosts.index(host) + 1}"}}
        out.append(item)
    return out


def _topology(layout: str, machines: int, tidb: int, tikv: int, tuning: list[dict[str, Any]], version: str,
              tiflash: int = 0) -> str:
    server_configs: dict[str, Any] = {"tidb": {}, "tikv": {}, "pd": {"replication.location-labels": ["host"]}}
    for s in tuning:
        server_configs[s["component"]][s["key"]] = s["value"]
    shared = machines - tiflash  # TiFlash machines are counted in `machines` and come last
    if layout == "co-located":
        hosts = [_host(i) for i in range(shared)]
        pd_hosts = tidb_hosts = tikv_hosts = hosts
        monitor = hosts[0]
        tiflash_hosts = [_host(shared + i) for i in range(tiflash)]
    else:
        pd_hosts = [_host(i) for i in range(PD_NODES)]
        tidb_hosts = [_host(PD_NODES + i) for i in range(tidb)]
        tikv_hosts = [_host(PD_NODES + tidb + i) for i in range(tikv)]
        monitor = _host(PD_NODES + tidb + tikv)
        tiflash_hosts = [_host(PD_NODES + tidb + tikv + 1 + i) for i in range(tiflash)]
    doc = {
        "global": {"user": "tidb", "ssh_port": 22, "deploy_dir": "/tidb-deploy", "data_dir": "/tidb-data"},
        "server_configs": {k: v for k, v in server_configs.items() if v},
        "pd_servers": _instances("pd", min(PD_NODES, len(pd_hosts)) if layout == "co-located" else PD_NODES, pd_hosts, (2379, 2380)),
        "tidb_servers": _instances("tidb", tidb, tidb_hosts, (4000, 10080)),
        "tikv_servers": _instances("tikv", tikv, tikv_hosts, (20160, 20180)),
    }
    if tiflash:
        # ddl/08-tiflash-replicas.sql needs as many TiFlash servers as replicas (TIFLASH_TOPOLOGY_DOC).
        doc["tiflash_servers"] = [{"host": h} for h in tiflash_hosts]
    doc.update({
        "monitoring_servers": [{"host": monitor}],
        "grafana_servers": [{"host": monitor}],
        "alertmanager_servers": [{"host": monitor}],
    })
    header = (
        "# TiUP topology sketched by sqlsrv2tidb from the captured peak: replace the 10.0.x.x hosts with yours.\n"
        f"# Deploy: tiup cluster deploy <cluster-name> v{version} topology.yaml --user root -p\n"
        f"# Fields: {TOPOLOGY_DOC}\n"
    )
    return header + yaml.safe_dump(doc, sort_keys=False, default_flow_style=False, width=120)


def _tiflash(plan: MigrationPlan | None) -> dict[str, Any]:
    """The TiFlash servers the plan's DDL needs: one per replica it asks for (none without a TiFlash file)."""
    settings = plan.settings if plan else {}
    tables = list(settings.get("tiflash_tables") or [])
    replicas = int(settings.get("tiflash_replicas") or 0) if tables else 0
    return {"servers": replicas, "replicas": replicas, "tables": tables, "file": settings.get("tiflash_file")}


def advise(capture: Capture, plan: MigrationPlan | None, options: Options) -> dict[str, Any]:
    """Cluster sizing, hot tables, co-location tuning and a TiUP topology, as JSON for assessment.json."""
    machine = _machine(options)
    cores, memory = machine["cores"], machine["memory_gb"]
    scale = cores / REFERENCE_CORES
    peak = _peak(capture)
    total, reads, writes = peak["qps"], peak["reads_qps"], peak["writes_qps"]
    tidb_sized = max(MIN_TIDB, math.ceil(total / (TIDB_NODE_QPS * scale * UTILISATION)))
    tikv_load = writes / (TIKV_NODE_WRITES * scale) + reads / (TIKV_NODE_READS * scale)
    tikv_sized = max(MIN_TIKV, math.ceil(tikv_load / UTILISATION))
    tidb = options.tidb_nodes or tidb_sized
    tikv = max(tikv_sized, options.tikv_nodes)
    given = machine["machines"]
    notes: list[str] = []
    tiflash = _tiflash(plan)
    if given is not None and given <= 3:
        layout, machines = "co-located", given
    elif given is None and tidb <= 3 and tikv <= 3:
        layout, machines = "co-located", 3
        notes.append(f"The peak fits on three machines running TiDB, TiKV and PD each; a dedicated layout would need "
                     f"{PD_NODES + tidb + tikv + 1 + tiflash['servers']} machines (set deployment.machines in --config to choose).")
    else:
        layout, machines = "dedicated", PD_NODES + tidb + tikv + 1 + tiflash["servers"]
        if given is not None and given < machines:
            notes.append(f"deployment.machines is {given}, but a dedicated layout of this size needs {machines} "
                         "machines (PD may share the monitoring machine; TiDB and TiKV should not share).")
    if layout == "co-located":
        # One TiDB per machine, as in the guide: more would only fight TiKV for the same cores.
        tidb = min(options.tidb_nodes, machines) if options.tidb_nodes else machines
        tikv = MIN_TIKV if machines < 3 else min(tikv, machines)
        per_machine = math.ceil(tikv / machines)
        tuning = _colocation(cores, memory, per_machine)
        capacity = machines * TIDB_NODE_QPS * scale / 2 * UTILISATION
        if total > capacity:
            notes.append(f"The peak ({total:,.0f} QPS) exceeds what {machines} shared machines of {cores} cores are "
                         f"estimated to carry (about {capacity:,.0f} QPS at {UTILISATION:.0%} utilisation): add machines.")
        if machines < 3:
            notes.append("With fewer than three machines the three TiKV replicas cannot sit on separate machines: "
                         "losing one machine loses the cluster. Use this for tests only.")
    else:
        tuning, per_machine = [], 0
    if tiflash["servers"]:
        if layout == "co-located":
            machines += tiflash["servers"]
        notes.append(f"{len(tiflash['tables'])} table(s) had a columnstore index: {tiflash['file']} gives each "
                     f"{tiflash['replicas']} TiFlash replica(s), and TiDB refuses it without at least that many TiFlash "
                     f"servers, so the topology has {tiflash['servers']} TiFlash server(s), each on a machine of its "
                     "own, apart from TiKV. Size them for the analytic queries, which the capture does not measure.")
    replan = None
    if options.tikv_nodes != tikv:
        # Not a note: the report shows it beside the verdict, with the command that re-plans.
        replan = {"planned_tikv_nodes": options.tikv_nodes, "suggested_tikv_nodes": tikv, "option": f"--tikv-nodes {tikv}"}
    if not total:
        notes.append("No workload rate was captured: the cluster is the minimum that keeps three replicas.")
    hot = _hot_tables(capture, plan, tikv, options.tikv_nodes)
    version = str(options.tidb_version)
    return {
        "method": __doc__.split("\n\n")[1].replace("\n", " ").removeprefix("Method. "),
        "peak": peak,
        "machine": {"cores": cores, "memory_gb": memory, "from_config": machine["given"]},
        "nodes": {"tidb": tidb, "tikv": tikv,
                  "pd": PD_NODES if layout == "dedicated" else min(PD_NODES, machines - tiflash["servers"]),
                  "tiflash": tiflash["servers"],
                  "tidb_sized": tidb_sized, "tikv_sized": tikv_sized, "tikv_option": options.tikv_nodes,
                  "tikv_load_nodes": round(tikv_load, 2)},
        "layout": layout,
        "machines": machines,
        "replan": replan,
        "assumptions": [
            {"name": "TiDB node, mixed statements", "value": f"{TIDB_NODE_QPS:,} QPS per {REFERENCE_CORES} cores", "source": SYSBENCH_DOC},
            {"name": "TiKV node, writes", "value": f"{TIKV_NODE_WRITES:,} QPS per {REFERENCE_CORES} cores", "source": SYSBENCH_DOC},
            {"name": "TiKV node, point reads", "value": f"{TIKV_NODE_READS:,} QPS per {REFERENCE_CORES} cores", "source": SYSBENCH_DOC},
            {"name": "One Region, single-row inserts", "value": f"{REGION_INSERTS:,} per second (seed 000)", "source": HOTSPOT_DOC},
            {"name": "Target utilisation", "value": f"{UTILISATION:.0%}", "source": None},
            {"name": "Machine", "value": f"{cores} cores, {memory:g} GB" + ("" if machine["given"] else " (default)"), "source": None},
        ],
        "hot_tables": hot,
        "colocation": {"applies": layout == "co-located", "tikv_per_machine": per_machine, "settings": tuning,
                       "source": HYBRID_DOC, "memory_source": MULTI_INSTANCE_DOC},
        "tiflash": tiflash,
        "topology_yaml": _topology(layout, machines, tidb, tikv, tuning, version, tiflash["servers"]),
        "notes": notes,
        "docs": [HYBRID_DOC, TOPOLOGY_DOC, SYSBENCH_DOC, *([TIFLASH_TOPOLOGY_DOC] if tiflash["servers"] else [])],
    }
