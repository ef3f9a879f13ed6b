"""What the keys of other stages' JSON records read as on the page: a label with its unit, and a value.

Several parts of the report show records whose shape another stage owns (replay evidence, ramp
steps, experiment designs, the planner's settings and evidence, the write-hot tables of the sizing).
They go through `label` and `value` here, so a key reads the same in every table and fact list
("Inserts per second", "Share of one Region's insert ceiling"), units sit in the label, dictionaries
read as words, and a key nobody has described yet still reads as words rather than snake_case.
Empty values (None, "", [], {}) are left out by the callers (`is_empty`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import formatting as fmt
from .viewmodel import Fact

STRATEGY_LABELS = {
    "none": "left as is",
    "key_partition": "PARTITION BY KEY",
    "pre_split": "pre-split Regions",
    "auto_random": "AUTO_RANDOM key",
    "as_captured": "as captured",
    "unknown": "not planned",
}


@dataclass(frozen=True)
class Field:
    label: str
    kind: str = ""
    """How the value reads: `share` (a fraction, as a percentage), `strategy`, `stores` (store -> count),
    `bytes_by_store`, `bytes`; anything else through `formatting.scalar`."""


FIELDS: dict[str, Field] = {
    # tables and windows
    "table": Field("Table"),
    "name": Field("Name"),
    "window": Field("Busiest window"),
    "window_start": Field("Window start (UTC)"),
    "window_end": Field("Window end (UTC)"),
    "strategy": Field("Design", "strategy"),
    "partitions": Field("Partitions in the DDL"),
    "recommended_partitions": Field("Partitions for the suggested cluster"),
    "advice": Field("Advice"),
    # rates
    "insert_qps": Field("Inserts per second"),
    "insert_qps_peak": Field("Peak inserts per second"),
    "write_qps": Field("Writes per second"),
    "update_qps": Field("Updates per second"),
    "merge_qps": Field("MERGEs per second"),
    "rows_per_second": Field("Rows per second"),
    "share_of_one_region": Field("Share of one Region's insert ceiling", "share"),
    "region_ceiling_qps": Field("One Region's insert ceiling (per second)"),
    "threshold_write_qps": Field("Write-hot threshold (writes per second)"),
    "target_qps": Field("Target (queries per second)"),
    "achieved_qps": Field("Achieved (queries per second)"),
    "ceiling_qps": Field("Ceiling (queries per second)"),
    "captured_qps": Field("Captured (queries per second)"),
    "p99_ms": Field("p99 (ms)"),
    "errors": Field("Errors"),
    "sustained": Field("Sustained"),
    # a cluster replay's workers
    "share": Field("Share"),
    "worker": Field("Dask worker"),
    "host": Field("Host"),
    "state": Field("State"),
    "sent": Field("Sent"),
    "late_sends": Field("Sent over 10 ms late"),
    "missed": Field("Never sent (time ran out)"),
    "client_cpu_s": Field("Client CPU (s)"),
    "cpu_us_per_statement": Field("Client CPU per statement (µs)"),
    "clock_offset_ms": Field("Clock offset (ms)"),
    # replay evidence
    "regions_before": Field("Regions before"),
    "regions_after": Field("Regions after"),
    "busiest_store": Field("Busiest TiKV store"),
    "share_on_busiest_store": Field("Share of writes on the busiest store"),
    "leaders_by_store": Field("Region leaders per TiKV store", "stores"),
    "written_bytes_by_store": Field("Bytes written per TiKV store", "bytes_by_store"),
    "hot_regions": Field("Hot Regions"),
    "error": Field("Error"),
    "region_id": Field("Region"),
    "store_id": Field("TiKV store"),
    "flow_bytes": Field("Bytes written", "bytes"),
    "max_hot_degree": Field("Hot degree"),
    # experiment
    "design": Field("Design", "strategy"),
    "regions_at_start": Field("Regions at the start"),
    "regions_at_end": Field("Regions at the end"),
    "not_measured": Field("Not measured on this target"),
    "shortfall": Field("Short because of"),
    "ddl": Field("DDL"),
    "replay": Field("Replay file"),
    "best": Field("Best design"),
    "server": Field("Server"),
    "target": Field("Target"),
    "format": Field("File format"),
    # replay: classes not sent
    "id": Field("Query class"),
    "fingerprint": Field("Statement"),
    "kind": Field("Kind"),
    "status": Field("Translation"),
    "reason": Field("Why it was not sent"),
    # the planner's settings and evidence
    "tidb_version": Field("Target TiDB version"),
    "tikv_nodes": Field("TiKV nodes the DDL was planned for"),
    "write_hot_qps": Field("Write-hot threshold (writes per second)"),
    "low_insert_qps": Field("Largest insert rate for a NOCACHE sequence (per second)"),
    "reorg_worker_cnt": Field("Index build workers (tidb_ddl_reorg_worker_cnt)"),
    "tidb_ddl_reorg_worker_cnt": Field("Index build workers (tidb_ddl_reorg_worker_cnt)"),
    "tidb_ddl_enable_fast_reorg": Field("Fast index build (tidb_ddl_enable_fast_reorg)"),
    "table_collation": Field("Target collation of case-insensitive columns"),
    "source_collation": Field("SQL Server collation"),
    "rates_known": Field("Write rates known from the workload"),
    "unmatched_write_classes": Field("Write query classes matched to no table"),
    "views": Field("Views"),
    "primary_key": Field("Primary key"),
    "primary_key_clustered": Field("Primary key clustered"),
    "primary_key_monotonic": Field("Primary key always increasing"),
    "foreign_keys": Field("Foreign keys"),
    "referenced_by": Field("Referenced by"),
    "unique_keys": Field("Unique keys"),
    "query_classes": Field("Query classes writing it"),
    "peak_window": Field("Peak window"),
    "identity": Field("Identity"),
}

_SUFFIXES = (("_qps", " (queries per second)"), ("_ms", " (ms)"), ("_s", " (s)"), ("_bytes", " (bytes)"))


def label(key: str) -> str:
    """`share_of_one_region` -> "Share of one Region's insert ceiling"; an unknown key reads as words."""
    field = FIELDS.get(key)
    if field is not None:
        return field.label
    text, unit = key, ""
    for suffix, words in _SUFFIXES:
        if text.endswith(suffix) and len(text) > len(suffix):
            text, unit = text[: -len(suffix)], words
            break
    text = text.replace("_", " ").strip()
    return (text[:1].upper() + text[1:] + unit) if text else key


def value(key: str, raw: Any) -> str:
    kind = FIELDS[key].kind if key in FIELDS else ""
    if kind == "share" and isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return fmt.percent(raw, 1, 0)
    if kind == "strategy" and isinstance(raw, str):
        return STRATEGY_LABELS.get(raw, raw)
    if kind == "bytes" and isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return fmt.size(raw)
    if kind in ("stores", "bytes_by_store") and isinstance(raw, dict):
        show = fmt.size if kind == "bytes_by_store" else fmt.scalar
        return ", ".join(f"store {k}: {show(v) if isinstance(v, (int, float)) else fmt.scalar(v)}" for k, v in raw.items())
    return fmt.scalar(raw)


def is_empty(raw: Any) -> bool:
    return raw is None or raw == "" or (isinstance(raw, (list, tuple, dict)) and not raw)


HIDDEN_KEYS = {"password", "passwd", "secret", "token"}
"""Keys whose values never reach the page."""


def record_facts(data: dict[str, Any], skip: set[str] | frozenset[str] = frozenset()) -> tuple[Fact, ...]:
    """A record as labelled facts; empty values, secrets and lists of records (shown as tables) left out."""
    return tuple(
        Fact(label(str(k)), value(str(k), v)) for k, v in data.items()
        if k not in skip and str(k).casefold() not in HIDDEN_KEYS and not is_empty(v)
        and not (isinstance(v, list) and v and isinstance(v[0], dict))
    )
