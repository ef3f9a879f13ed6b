"""Hotspot evidence from TiDB: Region counts and leader placement of the hottest tables, before and after.

A write hotspot is visible in TiDB's own tables: a freshly created table is one Region, so every
insert lands on one TiKV store, and `SHOW TABLE ... REGIONS` shows it (few Regions, their leaders
on one store, the written bytes all there). `information_schema.tidb_hot_regions` lists the Regions
PD currently considers hot. Replay records both for the most-written tables before and after the
run, and turns a concentrated result into a finding that names the distribution rule (DIxx) which
would have spread the writes. MySQL and MariaDB have no Regions: there the evidence is skipped
with a note.

What a TiDB can show depends on its cluster, which `information_schema.cluster_info` lists: without
PD (a single `tidb-server` on unistore) there are no hot Regions to read, and with one TiKV store
every leader is on that store, so a concentration of writes says nothing about a hotspot. Replay
then records the Region counts it can read, says in the result what it could not measure and why
(`not_measured`), and raises no hotspot finding it could not back.
(https://docs.pingcap.com/tidb/stable/sql-statement-show-table-regions,
 https://docs.pingcap.com/tidb/stable/information-schema-tidb-hot-regions,
 https://docs.pingcap.com/tidb/stable/troubleshoot-hot-spot-issues)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from ..model import Capture, Finding, Severity
from .drivers import Connection

HOTTEST_TABLES = 3
CONCENTRATED = 0.8
"""Share of a table's written bytes (or Region leaders) on one store that counts as a hotspot."""
FALLBACK_RULE = "DI01"


@dataclass(frozen=True)
class Server:
    kind: str
    """`tidb`, `mariadb` or `mysql`."""
    version: str


def detect_server(conn: Connection) -> Server:
    """Ask the target what it is: TiDB says so in VERSION() (and answers tidb_version())."""
    version = str(conn.fetch("SELECT VERSION()")[0][0])
    if "tidb" in version.lower():
        return Server("tidb", version)
    if "mariadb" in version.lower():
        return Server("mariadb", version)
    try:
        conn.fetch("SELECT tidb_version()")
        return Server("tidb", version)
    except Exception:  # noqa: BLE001 - any error means the function does not exist: not TiDB
        return Server("mysql", version)


HOT_REGIONS_SQL = (
    "SELECT REGION_ID, TYPE, MAX_HOT_DEGREE, FLOW_BYTES FROM information_schema.tidb_hot_regions "
    "WHERE TABLE_NAME = %s AND (DB_NAME = %s OR %s = '') ORDER BY FLOW_BYTES DESC LIMIT 10"
)
"""PD's current hot Regions of one table (parameters: table, schema, schema)."""


def regions_sql(table: str) -> str:
    """`SHOW TABLE ... REGIONS`: one row per Region with its leader's store and written bytes."""
    return f"SHOW TABLE {quote_table(table)} REGIONS"


def quote_table(name: str) -> str:
    return ".".join("`" + part.replace("`", "``") + "`" for part in name.split("."))


def written_table(sql: str) -> str | None:
    """The table an INSERT/UPDATE/DELETE/REPLACE statement (MySQL text, `?` markers) writes, as it names it."""
    import sqlglot
    from sqlglot import exp

    from .sqltext import to_named_markers

    try:
        tree = sqlglot.parse_one(to_named_markers(sql)[0], read="mysql")
    except Exception:  # noqa: BLE001 - a statement sqlglot cannot parse names no table here
        return None
    table = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
    if not isinstance(tree, (exp.Insert, exp.Update, exp.Delete)) or not isinstance(table, exp.Table):
        return None
    return f"{table.db}.{table.name}" if table.db else table.name


def written_tables(statements: list[tuple[str, str, float]]) -> list[tuple[str, float]]:
    """The tables written by (kind, target_sql, rate) statements, hottest first (by write rate)."""
    rates: Counter[str] = Counter()
    for kind, sql, rate in statements:
        if kind in ("insert", "update", "delete", "merge") and (table := written_table(sql)):
            rates[table] += rate
    return rates.most_common(HOTTEST_TABLES)


def summarize_regions(columns: list[str], rows: Any) -> dict[str, Any]:
    """Region count, leaders per TiKV store and bytes written per store from `SHOW TABLE ... REGIONS` rows."""
    names = [c.upper() for c in columns]
    records = [dict(zip(names, r, strict=False)) for r in rows]
    leaders = Counter(str(r.get("LEADER_STORE_ID")) for r in records)
    written: Counter[str] = Counter()
    for r in records:
        written[str(r.get("LEADER_STORE_ID"))] += int(r.get("WRITTEN_BYTES") or 0)
    return {"regions": len(records), "leaders_by_store": dict(leaders), "written_bytes_by_store": dict(written)}


CLUSTER_SQL = "SELECT TYPE, COUNT(*) FROM information_schema.cluster_info GROUP BY TYPE"
"""The cluster's components by kind (tidb, tikv, pd, tiflash, ...), as TiDB itself lists them."""


def cluster_shape(conn: Connection) -> dict[str, int] | None:
    """How many servers of each kind the TiDB cluster has (None when TiDB cannot say)."""
    try:
        rows = conn.fetch(CLUSTER_SQL)
    except Exception:  # noqa: BLE001 - an older TiDB without the table: nothing is assumed
        return None
    shape = {"tidb": 0, "tikv": 0, "pd": 0, "tiflash": 0}
    for kind, count in rows:
        shape[str(kind).lower()] = int(count)
    return shape


def snapshot(conn: Connection, tables: list[str], shape: dict[str, int] | None = None) -> dict[str, Any]:
    """Regions, leader stores and written bytes per table, plus the hot write Regions PD reports (not asked
    of a cluster without PD)."""
    out: dict[str, Any] = {}
    for table in tables:
        try:
            conn.cursor.execute(regions_sql(table))
            names = [d[0] for d in conn.cursor.description]
            out[table] = summarize_regions(names, conn.cursor.fetchall())
        except Exception as exc:  # noqa: BLE001 - evidence is best effort; a failed query is recorded, not fatal
            out[table] = {"error": " ".join(str(exc).split())[:200]}
            continue
        if shape is not None and not shape.get("pd"):
            continue
        schema, _, name = table.rpartition(".")
        try:
            hot = conn.fetch(HOT_REGIONS_SQL, (name, schema, schema))
            out[table]["hot_regions"] = [
                {"region_id": r[0], "type": r[1], "max_hot_degree": r[2], "flow_bytes": r[3]} for r in hot
            ]
        except Exception as exc:  # noqa: BLE001 - best effort, as above
            out[table]["hot_regions_error"] = " ".join(str(exc).split())[:200]
    return out


def not_measured(shape: dict[str, int] | None) -> list[str]:
    """What this TiDB cannot show about hotspots, and why, in plain sentences (empty on a full cluster)."""
    out = []
    if shape is not None and not shape.get("pd"):
        out.append("hot Regions and bytes written per Region: both come from PD, and this TiDB has no PD (a single "
                   "tidb-server, e.g. on unistore), so information_schema.tidb_hot_regions was not read and "
                   "WRITTEN_BYTES reads 0")
    if shape is not None and shape.get("tikv", 0) <= 1:
        out.append(f"write placement: the cluster has {shape.get('tikv', 0)} TiKV store, so every Region's leader "
                   "is on it and a hotspot on one store cannot show (no RP01 finding is made); the Region counts "
                   "are TiDB's own and were recorded")
    return out


def hotspot_findings(before: dict[str, Any], after: dict[str, Any], capture: Capture,
                     rules: dict[str, str] | None = None, shape: dict[str, int] | None = None) -> list[Finding]:
    """An RP01 finding for each table whose writes during the replay sat on one store (none on a cluster of
    one TiKV store, where every write does)."""
    if shape is not None and shape.get("tikv", 0) <= 1:
        return []
    findings = []
    for table, data in after.items():
        if "regions" not in data:
            continue
        written = data["written_bytes_by_store"]
        total = sum(written.values())
        store, top = max(written.items(), key=lambda kv: kv[1]) if written else (None, 0)
        leaders = data["leaders_by_store"]
        share = top / total if total else (max(leaders.values()) / data["regions"] if data["regions"] else 0.0)
        hot_writes = [h for h in data.get("hot_regions", []) if str(h.get("type", "")).lower() == "write"]
        if share < CONCENTRATED and not (data["regions"] <= 1 and hot_writes):
            continue
        rule = _prevention_rule(rules or {})
        grew = data["regions"] - before.get(table, {}).get("regions", data["regions"])
        findings.append(Finding(
            rule="RP01", severity=Severity.HIGH, object=table,
            message=(f"{table}: during the replay {share:.0%} of the writes went to TiKV store {store} "
                     f"({data['regions']} Region(s), {grew:+d} during the run); a write hotspot. "
                     f"Rule {rule} ({rules.get(rule, 'distribution') if rules else 'distribution'}) "
                     "would have spread these writes (KEY partitioning or SHARD_ROW_ID_BITS/PRE_SPLIT_REGIONS)."),
            details={"store": store, "share": round(share, 3), "regions_before": before.get(table, {}).get("regions"),
                     "regions_after": data["regions"], "hot_write_regions": hot_writes, "prevented_by": rule,
                     "known_table": _known(capture, table)},
        ))
    return findings


def _prevention_rule(rules: dict[str, str]) -> str:
    """The distribution rule about write hotspots, from the catalogue when it has one."""
    for code, name in sorted(rules.items()):
        if "hotspot" in name or "hot-spot" in name:
            return code
    return FALLBACK_RULE


def distribution_rules() -> dict[str, str]:
    """{code: name} of rules/distribution/*.yaml (empty when the catalogue has none yet)."""
    import yaml

    from ..resources import iter_files

    found = {}
    try:
        for _, path in iter_files("rules", "DI*.yaml"):
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            if isinstance(data, dict) and data.get("code"):
                found[str(data["code"])] = str(data.get("name", ""))
    except (OSError, yaml.YAMLError):
        return {}
    return found


def _known(capture: Capture, table: str) -> bool:
    schema, _, name = table.rpartition(".")
    return capture.database.table(schema or None, name) is not None or capture.database.table(None, name) is not None


def limited_note(server: Server, missing: list[str]) -> Finding:
    """What a TiDB target could not show, said as such (not as an error)."""
    return Finding(
        rule="RP06", severity=Severity.INFO, object="replay target",
        message=(f"hotspot evidence on {server.kind} {server.version} is partial: Region counts were recorded; "
                 f"not measured: {'; '.join(missing)}. A cluster with PD and several TiKV stores (tiup playground "
                 "or a real cluster) shows where the writes go"),
        details={"not_measured": missing},
    )


def skipped_note(server: Server) -> Finding:
    return Finding(
        rule="RP06", severity=Severity.INFO, object="replay target",
        message=(f"hotspot evidence needs TiDB (Regions, TiKV stores); the target is {server.kind} {server.version}, "
                 "so Region counts and leader placement were not recorded"),
    )
