"""`experiment`: each design of the seed-000 table is created from the planner's DDL and measured."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from replay_helpers import cluster_shape

from sqlsrv2tidb import api
from sqlsrv2tidb.errors import Refused, UsageError
from sqlsrv2tidb.model.translation import TranslatedQuery, Translation
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.replay.config import ReplayConfig
from sqlsrv2tidb.replay.experiment import _variant_ddl, run_experiment
from sqlsrv2tidb.target import parse_target

pytestmark = pytest.mark.mariadb
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "keywords"


def _case():
    capture = api.read([EXAMPLE])
    insert = next(q for q in capture.workload.queries if q.kind == "insert" and "keywords" in q.text)
    # The query translator's output for this statement (the translator is another stage).
    translated = TranslatedQuery(
        insert.id, insert.fingerprint, insert.text,
        "INSERT INTO keywords (e_type, e_id, s_type, r_id, d_order, p_count, p_display_order) "
        "VALUES (?, ?, ?, ?, 1, 1, 1)", "translated", kind="insert",
        parameters=("@e_type", "@e_id", "@s_type", "@r_id"))
    return capture, Translation((translated,))


def test_each_design_is_created_and_measured(target, target_database, tmp_path):
    """On TiDB each design is its own table with its own Region layout; on MariaDB TiDB's options are comments,
    so the designs would be one table: it is measured once, as captured, and the result says why."""
    database = target_database
    capture, translation = _case()
    config = ReplayConfig(window="nightly", qps=150, duration=1.0, warmup=0, workers=1, connections=2,
                          allow_writes=True, confirm_database=database)
    api.run_ddl([EXAMPLE], tmp_path, Options(tikv_nodes=3))  # assessment.json, for the report below
    outcome = run_experiment(capture, translation, parse_target(target.url(database)), "dbo.keywords", config,
                             Options(tikv_nodes=3), out=tmp_path)
    doc = json.loads((tmp_path / "experiment.json").read_text())
    assert doc["format"] == "sqlsrv2tidb.experiment/1" and doc["table"] == "dbo.keywords"
    assert doc["server"]["kind"] == target.kind and isinstance(doc["seed"], int)
    by = {v["strategy"]: v for v in doc["variants"]}
    skipped = {s["strategy"]: s["reason"] for s in doc["skipped"]}
    # AUTO_RANDOM generates an IDENTITY key: the planner refuses it where the inserts supply e_type.
    assert "e_type is not an IDENTITY" in skipped["auto_random"]
    (finding,) = outcome.findings
    assert finding.rule == "RP07"
    if target.kind == "tidb":
        assert [v["name"] for v in doc["variants"]] == ["keywords__as_captured", "keywords__key_partition",
                                                         "keywords__pre_split"]
        assert list(skipped) == ["auto_random"]
        assert "PARTITION BY KEY(e_type, e_id, s_type, r_id)" in by["key_partition"]["ddl"]
        assert "SHARD_ROW_ID_BITS" in by["pre_split"]["ddl"] and "NONCLUSTERED" in by["pre_split"]["ddl"]
        assert "PARTITION" not in by["none"]["ddl"]
        # Three tables, three Region layouts: one Region, one per partition (3 TiKV nodes), 2^2 pre-split.
        assert {k: v["regions"]["at_start"] for k, v in by.items()} == {"none": 1, "key_partition": 3, "pre_split": 4}
        assert "Regions per design" in doc["notes"][0]
        # One tidb-server on unistore: no PD, one store. Said as such, in the result and the finding.
        if cluster_shape(target)["pd"] == 0:
            assert any("no PD" in m for m in doc["not_measured"]) and any("1 TiKV store" in m for m in doc["not_measured"])
            assert "not measured on this cluster" in finding.message
        # The report shows the designs side by side with their Region counts.
        page = api.render_report(tmp_path).read_text(encoding="utf-8")
        assert "Regions at the start" in page and "keywords__pre_split" in page
    else:
        assert [v["name"] for v in doc["variants"]] == ["keywords__as_captured"]
        assert set(skipped) == {"key_partition", "pre_split", "auto_random"}
        assert skipped["pre_split"].startswith(f"the same table as as_captured on {target.kind}")
        assert "measured once, as captured" in doc["notes"][0] and "against TiDB" in doc["notes"][0]
        assert "measured once, as captured" in finding.message and doc["not_measured"] == []
    with target.connect(database) as conn, conn.cursor() as cur:
        for variant in doc["variants"]:
            replay = json.loads((tmp_path / variant["replay"]).read_text())
            assert replay["config"]["seed"] == doc["seed"], "every design gets the same rows"
            assert variant["errors"] == 0 and variant["achieved_qps"] == pytest.approx(150, rel=0.1)
            cur.execute(f"SELECT COUNT(*) FROM `{variant['table']}`")
            assert cur.fetchone()[0] == replay["statements"] == replay["per_query"][0]["statements"]
            cur.execute(f"SHOW INDEX FROM `{variant['table']}`")
            assert len({row[2] for row in cur.fetchall()}) == 3, "primary key and both secondary indexes"


def test_experiment_needs_the_database_confirmed_and_a_known_table(mariadb, database, tmp_path):
    capture, translation = _case()
    target = parse_target(mariadb.url(database))
    with pytest.raises(Refused, match="--confirm-database"):
        run_experiment(capture, translation, target, "dbo.keywords", ReplayConfig(qps=10), Options(), out=tmp_path)
    confirmed = ReplayConfig(qps=10, allow_writes=True, confirm_database=database)
    with pytest.raises(UsageError, match="no such table"):
        run_experiment(capture, translation, target, "dbo.nope", confirmed, Options(), out=tmp_path)
    with pytest.raises(UsageError, match="no translated INSERT into dbo.users"):
        run_experiment(capture, translation, target, "dbo.users", confirmed, Options(), out=tmp_path)


def test_a_design_the_users_table_settings_rule_out_is_skipped_not_fatal():
    capture, _ = _case()
    photos = capture.database.table("dbo", "photos")
    settings = {"tables": {"dbo.photos": {"distribution": "pre_split", "shard_row_id_bits": 8, "pre_split_regions": 8}}}
    options = Options(tikv_nodes=3, config=settings)
    ddl, why = _variant_ddl(capture, options, photos, "pre_split")
    assert "PRE_SPLIT_REGIONS=8" in ddl and why == ""
    ddl, why = _variant_ddl(capture, options, photos, "auto_random")
    assert ddl is None
    assert why.startswith("the configuration does not allow it") and "AUTO_RANDOM shard bits (5)" in why
