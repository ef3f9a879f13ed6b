"""The planner's part of the `--config` YAML: type, column, collation and per-table overrides.

`Options.config` holds the whole file as loaded; other stages may own other top-level keys, so
only the sections below are read here, and they are checked strictly: a misspelt key or a value
of the wrong kind stops the command with one line naming the file and the key. docs/config.md
documents every key.

    types:       {datetimeoffset: "DATETIME(6)", uniqueidentifier: "BINARY(16)"}
    columns:     {"dbo.t.c": "VARCHAR(40)"}
    collations:  {case_insensitive: utf8mb4_unicode_ci}
    tables:      {"dbo.keywords": {distribution: key_partition, partitions: 12}}
    thresholds:  {write_hot_qps: 5000, low_insert_qps: 50, innodb_write_qps: 1000}
    ddl:         {reorg_worker_cnt: 16, tiflash_replicas: 1}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from ..errors import InputError
from ..options import Options

Distribution = Literal["none", "key_partition", "pre_split", "auto_random"]
IdentityChoice = Literal["auto_increment", "auto_random", "sequence"]

DISTRIBUTIONS: tuple[str, ...] = ("none", "key_partition", "pre_split", "auto_random")
IDENTITIES: tuple[str, ...] = ("auto_increment", "auto_random", "sequence")

WRITE_HOT_QPS = 5000.0
"""Writes per second above which a table is write-hot. Seed 000 measured one Region on one TiKV
node topping out near 25,000 single-row inserts/s; a new table is one Region, so a table that
needs a fifth of that ceiling already queues behind one node before it grows and splits, and
smaller TiKV nodes than the seed's 16 vCPU reach the ceiling sooner."""

LOW_INSERT_QPS = 50.0
"""Inserts per second up to which a SEQUENCE may be NOCACHE. Seed 002: a NOCACHE sequence stays
flat near 55,000 rows per measured period from 8 threads up, while AUTO_ID_CACHE 1 scales; its
authors keep NOCACHE for tables written at tens of rows per second."""

INNODB_WRITE_QPS = 1000.0
"""On a MySQL target: writes per second (a table's, or the whole workload's at its peak) from which InnoDB's
write path is worth tuning: each write is a redo record, a doublewrite copy of every flushed page, and an
update of every index of the table (findings MY13, MY15)."""

AUTO_RANDOM_BITS = 5
"""TiDB's default shard bits for AUTO_RANDOM (32 shards), which the DDL writes as AUTO_RANDOM(5). An
AUTO_RANDOM table's PRE_SPLIT_REGIONS must not exceed them: TiDB silently splits at most 2^5
Regions (https://docs.pingcap.com/tidb/stable/auto-random)."""

REORG_WORKER_CNT = 16
"""`tidb_ddl_reorg_worker_cnt` for the post-load index build (TiDB's default is 4; seed 004: the
index backfill runs in parallel, and nothing else runs during a migration's load window)."""


@dataclass(frozen=True)
class TableOverride:
    key: str
    distribution: Distribution | None = None
    partitions: int | None = None
    shard_row_id_bits: int | None = None
    pre_split_regions: int | None = None
    identity: IdentityChoice | None = None


@dataclass(frozen=True)
class PlanConfig:
    types: dict[str, str] = field(default_factory=dict)
    columns: dict[str, str] = field(default_factory=dict)
    """Folded `schema.table.column` -> TiDB type."""
    collations: dict[str, str] = field(default_factory=dict)
    tables: dict[str, TableOverride] = field(default_factory=dict)
    """Folded `schema.table` -> override."""
    write_hot_qps: float = WRITE_HOT_QPS
    low_insert_qps: float = LOW_INSERT_QPS
    innodb_write_qps: float = INNODB_WRITE_QPS
    reorg_worker_cnt: int = REORG_WORKER_CNT
    tiflash_replicas: int = 1
    source: str = "--config"

    def table(self, schema: str, name: str) -> TableOverride | None:
        return self.tables.get(f"{schema}.{name}".casefold())


_TABLE_KEYS = ("distribution", "partitions", "shard_row_id_bits", "pre_split_regions", "identity")


def load_plan_config(options: Options) -> PlanConfig:
    """Read and check the planner's sections of `options.config`."""
    from ..translate.types import validate_tidb_type

    data = options.config or {}
    where = options.config_file or "--config"
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected a mapping at the top level")

    def section(name: str) -> dict[str, Any]:
        value = data.get(name) or {}
        if not isinstance(value, dict):
            raise InputError(f"{where}: `{name}` must be a mapping, got {type(value).__name__}")
        return value

    types = {}
    for key, value in section("types").items():
        types[str(key).casefold()] = _type_text(where, f"types.{key}", value, validate_tidb_type)
    columns = {}
    for key, value in section("columns").items():
        parts = str(key).split(".")
        if len(parts) == 2:
            parts = ["dbo", *parts]
        if len(parts) != 3 or not all(parts):
            raise InputError(f"{where}: columns key {key!r} must be schema.table.column")
        columns[".".join(parts).casefold()] = _type_text(where, f"columns.{key}", value, validate_tidb_type)
    collations = {str(k).casefold(): str(v) for k, v in section("collations").items()}
    tables = {}
    for key, value in section("tables").items():
        override = _table_override(where, str(key), value)
        tables[override.key] = override
    thresholds = section("thresholds")
    _known(where, "thresholds", thresholds, ("write_hot_qps", "low_insert_qps", "innodb_write_qps"))
    ddl = section("ddl")
    _known(where, "ddl", ddl, ("reorg_worker_cnt", "tiflash_replicas"))
    return PlanConfig(
        types=types,
        columns=columns,
        collations=collations,
        tables=tables,
        write_hot_qps=_number(where, "thresholds.write_hot_qps", thresholds.get("write_hot_qps", WRITE_HOT_QPS)),
        low_insert_qps=_number(where, "thresholds.low_insert_qps", thresholds.get("low_insert_qps", LOW_INSERT_QPS)),
        innodb_write_qps=_number(where, "thresholds.innodb_write_qps",
                                 thresholds.get("innodb_write_qps", INNODB_WRITE_QPS)),
        reorg_worker_cnt=_int(where, "ddl.reorg_worker_cnt", ddl.get("reorg_worker_cnt", REORG_WORKER_CNT), 1, 256),
        tiflash_replicas=_int(where, "ddl.tiflash_replicas", ddl.get("tiflash_replicas", 1), 0, 16),
        source=where,
    )


def _known(where: str, name: str, value: dict[str, Any], keys: tuple[str, ...]) -> None:
    for key in value:
        if key not in keys:
            raise InputError(f"{where}: unknown key `{name}.{key}` (expected one of {', '.join(keys)})")


def _type_text(where: str, key: str, value: Any, validate) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: `{key}` must be a TiDB type such as \"VARCHAR(40)\"")
    problem = validate(value)
    if problem:
        raise InputError(f"{where}: `{key}`: {value!r} is not a TiDB column type ({problem})")
    return value.strip()


def _number(where: str, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise InputError(f"{where}: `{key}` must be a non-negative number, got {value!r}")
    return float(value)


def _int(where: str, key: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InputError(f"{where}: `{key}` must be a whole number from {low} to {high}, got {value!r}")
    return value


def _table_override(where: str, key: str, value: Any) -> TableOverride:
    parts = key.split(".")
    if len(parts) == 1:
        parts = ["dbo", *parts]
    if len(parts) != 2 or not all(parts):
        raise InputError(f"{where}: tables key {key!r} must be schema.table")
    if not isinstance(value, dict):
        raise InputError(f"{where}: `tables.{key}` must be a mapping")
    _known(where, f"tables.{key}", value, _TABLE_KEYS)
    distribution = value.get("distribution")
    if distribution is not None and distribution not in DISTRIBUTIONS:
        raise InputError(f"{where}: `tables.{key}.distribution` must be one of {', '.join(DISTRIBUTIONS)}, got {distribution!r}")
    identity = value.get("identity")
    if identity is not None and identity not in IDENTITIES:
        raise InputError(f"{where}: `tables.{key}.identity` must be one of {', '.join(IDENTITIES)}, got {identity!r}")
    partitions = value.get("partitions")
    if partitions is not None:
        # https://docs.pingcap.com/tidb/stable/tidb-limitations: at most 8192 partitions per table
        partitions = _int(where, f"tables.{key}.partitions", partitions, 1, 8192)
    bits = value.get("shard_row_id_bits")
    if bits is not None:
        # https://docs.pingcap.com/tidb/stable/shard-row-id-bits (1..15 shard bits)
        bits = _int(where, f"tables.{key}.shard_row_id_bits", bits, 1, 15)
    split = value.get("pre_split_regions")
    if split is not None:
        split = _int(where, f"tables.{key}.pre_split_regions", split, 1, 15)
        # https://docs.pingcap.com/tidb/stable/sql-statement-split-region#pre_split_regions
        if bits is not None and split > bits:
            raise InputError(f"{where}: `tables.{key}.pre_split_regions` ({split}) must not exceed shard_row_id_bits ({bits})")
        if "auto_random" in (distribution, identity) and split > AUTO_RANDOM_BITS:
            raise InputError(f"{where}: `tables.{key}.pre_split_regions` ({split}) must not exceed the AUTO_RANDOM "
                             f"shard bits ({AUTO_RANDOM_BITS})")
    return TableOverride(".".join(parts).casefold(), distribution, partitions, bits, split, identity)
