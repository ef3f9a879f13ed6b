"""Server-side latency per replayed class, from the target's own statement statistics, before and after the run.

SQL Server's captured durations are measured inside the server; the replay's latency is measured at
the client, network and driver included. Comparing the two calls a class degraded that is not, so
the server's own figure is read where the target keeps one:

- TiDB: `information_schema.cluster_statements_summary` and its `_history` (which also holds the
  current window), per statement digest; TiDB computes a text's digest with `TIDB_ENCODE_SQL_DIGEST`,
  the same for `id = 5` and a prepared `id = ?`. Latencies there are nanoseconds; `PLAN_CACHE_HITS`
  and `PREPARED` say whether the plan cache served the executions and whether they were prepared.
  (https://docs.pingcap.com/tidb/stable/statement-summary-tables)
- MySQL and MariaDB: `performance_schema.events_statements_summary_by_digest` (picoseconds) where
  the performance schema is on, matched by digest text; else none, and the result says so.
  (https://mariadb.com/kb/en/performance-schema-events_statements_summary_by_digest-table/)

Both are counters since their window began: the run's share is the difference between a snapshot
taken before it and one after. A maximum cannot be differenced: when a digest already had
executions before the run, its maximum may be older, and the class says so. The figures include
the warm-up and any other session's executions of the same statements in the same database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from . import drivers

TIDB_SOURCE = "TiDB statements summary (information_schema.cluster_statements_summary and its history)"
PFS_SOURCE = "performance_schema.events_statements_summary_by_digest"
_TIDB_COLUMNS = ("INSTANCE, DIGEST, SUMMARY_BEGIN_TIME, PLAN_DIGEST, RESOURCE_GROUP, EXEC_COUNT, SUM_LATENCY, "
                 "MAX_LATENCY, PLAN_CACHE_HITS, PREPARED, PLAN_CACHE_UNQUALIFIED_LAST_REASON")


@dataclass
class ServerTime:
    """Where a target keeps its statement statistics, and which digests each replayed class sends."""

    kind: str
    source: str | None
    note: str | None = None
    digests: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """class id → the digest (TiDB) or normalised digest text (performance_schema) of each of its statements."""
    tables: tuple[str, ...] = ()


def locate(probe: drivers.Connection, server_kind: str, texts: dict[str, tuple[str, ...]]) -> ServerTime:
    """Find the target's statement statistics and each class's digests (`texts`: each class's statements, with
    `?` markers); the note says why there are none."""
    if server_kind == "tidb":
        return _locate_tidb(probe, texts)
    try:
        on = probe.fetch("SELECT @@performance_schema")[0][0]
    except Exception:  # noqa: BLE001 - a server without the variable has no performance schema
        on = 0
    if str(on) not in ("1", "ON"):
        return ServerTime(server_kind, None, "the target's performance_schema is off, so it keeps no server-side "
                          "statement times: the comparison with SQL Server uses the latency measured at the client")
    return ServerTime(server_kind, PFS_SOURCE, digests={qid: tuple(normal(t) for t in ts) for qid, ts in texts.items()})


def _locate_tidb(probe: drivers.Connection, texts: dict[str, tuple[str, ...]]) -> ServerTime:
    try:
        enabled = probe.fetch("SELECT @@tidb_enable_stmt_summary")[0][0]
        digests = {qid: tuple(str(probe.fetch("SELECT TIDB_ENCODE_SQL_DIGEST(%s)", (t,))[0][0]) for t in ts)
                   for qid, ts in texts.items()}
    except Exception as exc:  # noqa: BLE001 - an older TiDB: no digest function, no server-side figures
        code, message, _ = drivers.classify(exc)
        return ServerTime("tidb", None, f"the target computes no statement digests ({message}): the comparison "
                          "uses the latency measured at the client")
    if str(enabled) not in ("1", "ON"):
        return ServerTime("tidb", None, "tidb_enable_stmt_summary is off on the target, so it keeps no statement "
                          "summary: the comparison uses the latency measured at the client")
    for tables in (("CLUSTER_STATEMENTS_SUMMARY", "CLUSTER_STATEMENTS_SUMMARY_HISTORY"),
                   ("STATEMENTS_SUMMARY", "STATEMENTS_SUMMARY_HISTORY")):
        try:
            probe.fetch(f"SELECT 1 FROM information_schema.{tables[0]} LIMIT 1")
        except Exception:  # noqa: BLE001 - no cluster tables (no PD to find the servers): this server's own
            continue
        return ServerTime("tidb", TIDB_SOURCE, digests=digests, tables=tables)
    return ServerTime("tidb", None, "the target's statements summary could not be read: the comparison uses the "
                      "latency measured at the client")


def snapshot(probe: drivers.Connection, where: ServerTime) -> dict[tuple[Any, ...], dict[str, Any]]:
    """The counters of the replayed digests now, one entry per summary row."""
    if where.source is None:
        return {}
    try:
        return _snapshot_tidb(probe, where) if where.kind == "tidb" else _snapshot_pfs(probe, where)
    except Exception:  # noqa: BLE001 - statistics are evidence: their absence must not fail the replay
        return {}


def _snapshot_tidb(probe: drivers.Connection, where: ServerTime) -> dict[tuple[Any, ...], dict[str, Any]]:
    wanted = sorted({d for ds in where.digests.values() for d in ds})
    if not wanted:
        return {}
    marks = ", ".join(["%s"] * len(wanted))
    columns = _TIDB_COLUMNS if where.tables[0].startswith("CLUSTER") else _TIDB_COLUMNS.replace("INSTANCE", "''")
    out: dict[tuple[Any, ...], dict[str, Any]] = {}
    for table in where.tables:
        rows = probe.fetch(f"SELECT {columns} FROM information_schema.{table} "
                           f"WHERE SCHEMA_NAME = DATABASE() AND DIGEST IN ({marks})", tuple(wanted))
        for inst, digest, begin, plan, group, count, total, high, hits, prepared, reason in rows:
            key = (inst, digest, str(begin), plan, group)
            if key in out and out[key]["count"] >= int(count or 0):
                continue  # the current window is in both tables
            out[key] = {"digest": digest, "count": int(count or 0), "sum_ms": float(total or 0) / 1e6,
                        "max_ms": float(high or 0) / 1e6, "hits": int(hits or 0), "prepared": bool(prepared),
                        "unqualified": reason or None}
    return out


def _snapshot_pfs(probe: drivers.Connection, where: ServerTime) -> dict[tuple[Any, ...], dict[str, Any]]:
    rows = probe.fetch("SELECT DIGEST, DIGEST_TEXT, COUNT_STAR, SUM_TIMER_WAIT, MAX_TIMER_WAIT FROM "
                       "performance_schema.events_statements_summary_by_digest WHERE SCHEMA_NAME = DATABASE()")
    wanted = {d for ds in where.digests.values() for d in ds}
    out: dict[tuple[Any, ...], dict[str, Any]] = {}
    for digest, text, count, total, high in rows:
        shape = _matching(normal(str(text or "")), wanted)
        if shape is not None:
            out[(digest, shape)] = {"digest": shape, "count": int(count or 0), "sum_ms": float(total or 0) / 1e9,
                                    "max_ms": float(high or 0) / 1e9, "hits": 0, "prepared": False, "unqualified": None}
    return out


def _matching(text: str, wanted: set[str]) -> str | None:
    if text in wanted:
        return text
    if text.endswith("..."):  # a digest text cut at performance_schema_max_digest_length
        return next((w for w in wanted if w.startswith(text[:-3])), None)
    return None


def normal(sql: str) -> str:
    """A statement's shape as digest texts spell it: no quotes, case or spaces, values and lists as `?`."""
    text = re.sub(r"'(?:[^'\\]|\\.|'')*'|\b\d+(?:\.\d+)?(?:e[-+]?\d+)?\b", "?", sql, flags=re.I)
    text = re.sub(r"[`\s]+", "", text).lower()
    text = re.sub(r"\(\.\.\.\)|\(\?(?:,\?)*\)", "(?)", text)
    return re.sub(r"(\(\?\))(?:,\(\?\)|/\*,\.\.\.\*/)+", r"\1", text)


def per_class(where: ServerTime, before: dict[tuple[Any, ...], dict[str, Any]],
              after: dict[tuple[Any, ...], dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """class id → {`server_ms`: {mean, max, executions, ...}, `plan_cache_hits`, `prepared_executions`}."""
    if where.source is None:
        return {}
    runs: dict[str, dict[str, Any]] = {}
    for key, row in after.items():
        old = before.get(key, {"count": 0, "sum_ms": 0.0, "hits": 0})
        count = row["count"] - old["count"]
        if count <= 0:
            continue
        acc = runs.setdefault(row["digest"], {"count": 0, "sum_ms": 0.0, "max_ms": 0.0, "hits": 0, "prepared": 0,
                                              "older_max": False, "unqualified": None})
        acc["count"] += count
        acc["sum_ms"] += row["sum_ms"] - old["sum_ms"]
        acc["max_ms"] = max(acc["max_ms"], row["max_ms"])
        acc["hits"] += row["hits"] - old["hits"]
        acc["prepared"] += count if row["prepared"] else 0
        acc["older_max"] = acc["older_max"] or old["count"] > 0
        acc["unqualified"] = acc["unqualified"] or row["unqualified"]
    owners: dict[str, list[str]] = {}
    for qid, digests in where.digests.items():
        for d in set(digests):
            owners.setdefault(d, []).append(qid)
    out: dict[str, dict[str, Any]] = {}
    for qid, digests in where.digests.items():
        parts = [runs[d] for d in digests if d in runs]
        if not parts or len(parts) < len(digests):
            continue
        shared = sorted({other for d in digests for other in owners[d] if other != qid})
        figure = {"mean": round(sum(p["sum_ms"] / p["count"] for p in parts), 4),
                  "max": round(max(p["max_ms"] for p in parts), 4), "executions": parts[0]["count"],
                  "source": where.source, "max_may_predate_run": any(p["older_max"] for p in parts)}
        if shared:
            figure["shared_with"] = shared  # one digest, several classes: the figure is theirs together
        entry: dict[str, Any] = {"server_ms": figure}
        if where.kind == "tidb":
            entry["plan_cache_hits"] = sum(p["hits"] for p in parts)
            entry["prepared_executions"] = sum(p["prepared"] for p in parts)
            reason = next((p["unqualified"] for p in parts if p["unqualified"]), None)
            if reason:
                entry["plan_cache_unqualified"] = reason
        out[qid] = entry
    return out


def summary(where: ServerTime, classes: dict[str, dict[str, Any]], replayed: int) -> dict[str, Any]:
    """replay.json's top-level `server_time`: where the figures came from, or why there are none."""
    note = where.note
    if where.source is not None and len(classes) < replayed:
        why = "" if where.kind == "tidb" else "; MySQL and MariaDB keep no digest for prepared statements"
        note = (f"{replayed - len(classes)} of {replayed} replayed class(es) have no server-side figure (their "
                f"statements were not found in the target's statistics{why}): they are compared by client latency")
    return {"source": where.source, "classes": len(classes), "note": note}
