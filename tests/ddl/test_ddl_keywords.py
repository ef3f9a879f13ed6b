"""Seed 000 end to end: `sqlsrv2tidb ddl examples/keywords -o OUT --tikv-nodes 12`, and its variations."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from ddl_apply import TIDB_ONLY
from typer.testing import CliRunner

from sqlsrv2tidb.cli import app
from sqlsrv2tidb.translate.ddl import is_comment_only, split_statements

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "keywords"
KEY_PARTITION_12 = "PARTITION BY KEY(e_type, e_id, s_type, r_id) PARTITIONS 12"


def run_ddl(sources: list[Path], out: Path, *args: str):
    result = CliRunner().invoke(app, ["ddl", *map(str, sources), "-o", str(out), "-q", *args])
    assert result.exit_code == 0, result.stderr
    return out


def keywords_table(out: Path) -> dict:
    doc = json.loads((out / "assessment.json").read_text(encoding="utf-8"))
    return next(t for t in doc["tables"] if t["name"] == "keywords")


def example_with_rate(tmp_path: Path, qps: int) -> Path:
    folder = tmp_path / "keywords"
    shutil.copytree(EXAMPLE, folder)
    workload = folder / "workload.yaml"
    text = workload.read_text(encoding="utf-8")
    assert "qps: {nightly: 50000, normal: 150}" in text
    workload.write_text(text.replace("qps: {nightly: 50000, normal: 150}", f"qps: {{nightly: {qps}, normal: 150}}"),
                        encoding="utf-8")
    return folder


def test_seed_000_with_12_tikv_nodes_is_key_partitioned(tmp_path):
    out = run_ddl([EXAMPLE], tmp_path / "out", "--tikv-nodes", "12")
    names = sorted(p.name for p in (out / "ddl").iterdir())
    assert names == ["01-sequences.sql", "02-tables.sql", "03-tidb-placement.sql", "04-indexes.sql",
                     "05-foreign-keys.sql", "06-views.sql", "07-modules-not-migrated.sql"]
    tables = (out / "ddl" / "02-tables.sql").read_text(encoding="utf-8")
    assert KEY_PARTITION_12 in tables
    table = keywords_table(out)
    dist = table["distribution"]
    assert dist["strategy"] == "key_partition" and dist["partitions"] == 12
    assert "pre-split" in dist["rationale"] and "SHARD_ROW_ID_BITS=4" in dist["rationale"]
    assert dist["evidence"]["insert_qps"] == 50000 and dist["evidence"]["window"] == "nightly"
    assert KEY_PARTITION_12 in table["ddl"]
    # Secondary indexes come after the load, with the fast-DDL settings of seed 004 first.
    indexes = (out / "ddl" / "04-indexes.sql").read_text(encoding="utf-8")
    assert indexes.index("tidb_ddl_enable_fast_reorg = ON") < indexes.index("tidb_ddl_reorg_worker_cnt = 16") < \
        indexes.index("CREATE INDEX idx_keywords_by_display_order")
    assert "CREATE INDEX" not in tables
    placement = (out / "ddl" / "03-tidb-placement.sql").read_text(encoding="utf-8")
    assert "ALTER TABLE keywords ATTRIBUTES 'merge_option=deny';" in placement
    doc = json.loads((out / "assessment.json").read_text(encoding="utf-8"))
    assert any(f["rule"] == "DI01" and f["object"] == "dbo.keywords" for f in doc["findings"])


def test_low_insert_rate_gives_no_partitioning(tmp_path):
    out = run_ddl([example_with_rate(tmp_path, 800)], tmp_path / "out", "--tikv-nodes", "12")
    assert "PARTITION BY" not in (out / "ddl" / "02-tables.sql").read_text(encoding="utf-8")
    dist = keywords_table(out)["distribution"]
    assert dist["strategy"] == "none" and dist["would_change_if"]


@pytest.mark.parametrize(("version", "strategy"), [("6.5", "pre_split"), ("7.1", "key_partition"), ("8.5", "key_partition")])
def test_version_gates(tmp_path, version, strategy):
    out = run_ddl([EXAMPLE], tmp_path / "out", "--tikv-nodes", "12", "--tidb-version", version)
    tables = (out / "ddl" / "02-tables.sql").read_text(encoding="utf-8")
    assert keywords_table(out)["distribution"]["strategy"] == strategy
    if strategy == "pre_split":
        assert "PARTITION BY" not in tables
        assert "/*T! SHARD_ROW_ID_BITS=4 PRE_SPLIT_REGIONS=4 */" in tables
        assert "PRIMARY KEY (e_type, e_id, s_type, r_id) /*T![clustered_index] NONCLUSTERED */" in tables
    else:
        assert KEY_PARTITION_12 in tables


def test_config_changes_a_type_a_column_and_a_distribution(tmp_path):
    config = tmp_path / "overrides.yaml"
    config.write_text(
        "types: {datetime2: \"DATETIME(3)\"}\n"
        "columns: {\"dbo.users.email\": \"VARCHAR(320)\"}\n"
        "tables: {\"dbo.keywords\": {distribution: pre_split, shard_row_id_bits: 5, pre_split_regions: 5}}\n",
        encoding="utf-8",
    )
    out = run_ddl([EXAMPLE], tmp_path / "out", "--tikv-nodes", "12", "--config", str(config))
    tables = (out / "ddl" / "02-tables.sql").read_text(encoding="utf-8")
    assert "created_at DATETIME(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3)" in tables
    assert "email VARCHAR(320) NOT NULL" in tables
    assert "/*T! SHARD_ROW_ID_BITS=5 PRE_SPLIT_REGIONS=5 */" in tables and "PARTITION BY" not in tables
    assert keywords_table(out)["distribution"]["strategy"] == "pre_split"


@pytest.mark.mariadb
@pytest.mark.tidb_parser
def test_keywords_ddl_runs_on_mariadb_and_parses_as_tidb(tmp_path, tidb_parser, mariadb, database):
    out = run_ddl([EXAMPLE], tmp_path / "out", "--tikv-nodes", "12")
    with mariadb.connect(database) as conn, conn.cursor() as cur:
        for path in sorted((out / "ddl").glob("*.sql")):
            pieces = [s for s in split_statements(path.read_text(encoding="utf-8")) if not is_comment_only(s)]
            for sql in pieces:
                result = tidb_parser.check(sql)
                assert result.ok, f"{path.name}: {result.error}"
                if path.name != TIDB_ONLY:  # TiDB-only statements: MariaDB has no ATTRIBUTES
                    cur.execute(sql)
        # On MariaDB the TiDB options are comments: the same DDL makes a plain table with its keys.
        cur.execute("SELECT create_options FROM information_schema.tables WHERE table_schema = %s AND table_name = 'keywords'",
                    (database,))
        assert "partitioned" not in (cur.fetchone()[0] or "")
        cur.execute("INSERT INTO keywords (e_type, e_id, s_type, r_id, d_order, p_count) VALUES (1, 2, 3, 4, 5, 6)")
        cur.execute("SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema = %s AND table_name = 'keywords'"
                    " AND index_name <> 'PRIMARY'", (database,))
        assert cur.fetchone()[0] == 11  # two secondary indexes: 5 + 6 columns
