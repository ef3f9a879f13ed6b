"""The planner's --config sections: accepted shapes, and one-line errors that name the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from sqlsrv2tidb.cli import app
from sqlsrv2tidb.errors import InputError
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.plan.config import LOW_INSERT_QPS, WRITE_HOT_QPS, load_plan_config

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "keywords"


def _options(config: dict) -> Options:
    return Options(config=config, config_file="overrides.yaml")


def test_defaults_without_a_config():
    cfg = load_plan_config(Options())
    assert (cfg.write_hot_qps, cfg.low_insert_qps, cfg.reorg_worker_cnt) == (WRITE_HOT_QPS, LOW_INSERT_QPS, 16)
    assert cfg.tables == {} and cfg.types == {} and cfg.columns == {}


def test_every_section_is_read():
    cfg = load_plan_config(_options({
        "types": {"datetimeoffset": "DATETIME(6)", "uniqueidentifier": "BINARY(16)"},
        "columns": {"dbo.t.c": "VARCHAR(40)", "t.d": "TEXT"},
        "collations": {"case_insensitive": "utf8mb4_unicode_ci"},
        "tables": {"dbo.keywords": {"distribution": "key_partition", "partitions": 12},
                   "events": {"identity": "auto_random"},
                   "Sales.Log": {"distribution": "pre_split", "shard_row_id_bits": 4, "pre_split_regions": 3}},
        "thresholds": {"write_hot_qps": 1000, "low_insert_qps": 10},
        "ddl": {"reorg_worker_cnt": 8, "tiflash_replicas": 2},
        "rules": {"disable": ["TB11"]},  # another stage's section: not ours to check
    }))
    assert cfg.types == {"datetimeoffset": "DATETIME(6)", "uniqueidentifier": "BINARY(16)"}
    assert cfg.columns == {"dbo.t.c": "VARCHAR(40)", "dbo.t.d": "TEXT"}
    assert cfg.table("DBO", "Keywords").partitions == 12
    assert cfg.table("dbo", "events").identity == "auto_random"
    log = cfg.table("sales", "log")
    assert (log.distribution, log.shard_row_id_bits, log.pre_split_regions) == ("pre_split", 4, 3)
    assert (cfg.write_hot_qps, cfg.low_insert_qps, cfg.reorg_worker_cnt, cfg.tiflash_replicas) == (1000, 10, 8, 2)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"types": {"uniqueidentifier": "UUID"}}, "overrides.yaml: `types.uniqueidentifier`: 'UUID' is not a TiDB column type"),
        ({"types": {"money": 5}}, "overrides.yaml: `types.money` must be a TiDB type"),
        ({"columns": {"c": "INT"}}, "overrides.yaml: columns key 'c' must be schema.table.column"),
        ({"tables": {"dbo.k": {"distribution": "hash"}}}, "overrides.yaml: `tables.dbo.k.distribution` must be one of none, key_partition, pre_split, auto_random, got 'hash'"),
        ({"tables": {"dbo.k": {"partition": 12}}}, "overrides.yaml: unknown key `tables.dbo.k.partition`"),
        ({"tables": {"dbo.k": {"partitions": 0}}}, "overrides.yaml: `tables.dbo.k.partitions` must be a whole number from 1 to 8192, got 0"),
        ({"tables": {"dbo.k": {"shard_row_id_bits": 2, "pre_split_regions": 4}}}, "must not exceed shard_row_id_bits"),
        # AUTO_RANDOM(5): TiDB would split 2^5 Regions, not the 2^8 the DDL claims.
        ({"tables": {"dbo.events": {"identity": "auto_random", "pre_split_regions": 8}}},
         "overrides.yaml: `tables.dbo.events.pre_split_regions` (8) must not exceed the AUTO_RANDOM shard bits (5)"),
        ({"tables": {"dbo.events": {"distribution": "auto_random", "pre_split_regions": 6}}},
         "overrides.yaml: `tables.dbo.events.pre_split_regions` (6) must not exceed the AUTO_RANDOM shard bits (5)"),
        ({"tables": {"dbo.k": {"identity": "uuid"}}}, "`tables.dbo.k.identity` must be one of auto_increment, auto_random, sequence"),
        ({"thresholds": {"write_hot": 1}}, "unknown key `thresholds.write_hot`"),
        ({"thresholds": {"write_hot_qps": -1}}, "`thresholds.write_hot_qps` must be a non-negative number"),
        ({"ddl": {"reorg_worker_cnt": 1000}}, "`ddl.reorg_worker_cnt` must be a whole number from 1 to 256"),
        ({"tables": ["dbo.k"]}, "`tables` must be a mapping"),
    ],
)
def test_bad_config_is_one_line_naming_file_and_key(config, message):
    with pytest.raises(InputError) as err:
        load_plan_config(_options(config))
    text = str(err.value)
    assert message in text and "\n" not in text


def test_auto_random_takes_pre_split_regions_up_to_its_shard_bits():
    cfg = load_plan_config(_options({"tables": {"dbo.events": {"identity": "auto_random", "pre_split_regions": 5}}}))
    assert cfg.table("dbo", "events").pre_split_regions == 5


def test_cli_reports_a_bad_config_in_one_line(tmp_path):
    config = tmp_path / "overrides.yaml"
    config.write_text("tables:\n  dbo.keywords: {distribution: hash}\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["ddl", str(EXAMPLE), "-o", str(tmp_path / "out"), "--config", str(config), "-q"])
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"Error: {config}: `tables.dbo.keywords.distribution` must be one of none, key_partition, pre_split, "
        "auto_random, got 'hash'"
    )


def test_cli_refuses_an_unknown_collation(tmp_path):
    config = tmp_path / "overrides.yaml"
    config.write_text("collations: {case_insensitive: latin1_swedish_ci}\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["ddl", str(EXAMPLE), "-o", str(tmp_path / "out"), "--config", str(config), "-q"])
    assert result.exit_code == 2
    assert "latin1_swedish_ci' is not one of utf8mb4_bin" in result.stderr
