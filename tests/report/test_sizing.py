"""Deployment advice: cluster size from the peak window, hot tables, seed 001's co-location tuning, TiUP topology."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
import sample
import yaml

from sqlsrv2tidb.errors import UsageError
from sqlsrv2tidb.model import (
    Capture,
    Column,
    Database,
    DataType,
    IntervalStat,
    QueryClass,
    Table,
    Window,
    Workload,
)
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.plan.sizing import SEED_001, advise


def _small_capture(rate: float = 500.0) -> Capture:
    queries = (QueryClass("qsel", "SELECT a FROM dbo.t WHERE id = ?", "SELECT a FROM dbo.t WHERE id = @P1", kind="select"),
               QueryClass("qupd", "UPDATE dbo.t SET a = ? WHERE id = ?", "UPDATE dbo.t SET a = @P1 WHERE id = @P2", kind="update"))
    intervals = (IntervalStat("qsel", "2024-05-01T09:00:00Z", "2024-05-01T10:00:00Z", int(rate * 3600)),
                 IntervalStat("qupd", "2024-05-01T09:00:00Z", "2024-05-01T10:00:00Z", int(rate * 360)))
    return Capture(workload=Workload(queries, intervals, (Window("day", "2024-05-01T09:00:00Z", "2024-05-01T10:00:00Z"),)))


def _settings(advice: dict) -> dict[str, object]:
    return {s["key"]: s["value"] for s in advice["colocation"]["settings"]}


def test_keywords_peak_sizes_a_dedicated_cluster_and_lists_the_hot_table():
    capture, _, plan, _, options = sample.keywords_parts()
    advice = advise(capture, plan, options)
    json.dumps(advice)  # it goes into assessment.json as is
    assert advice["peak"]["window"] == "nightly"
    assert advice["peak"]["qps"] == pytest.approx(50_850, abs=1)
    assert advice["peak"]["writes_qps"] == pytest.approx(50_040, abs=1)
    nodes = advice["nodes"]
    assert (nodes["tidb_sized"], nodes["tikv_sized"]) == (4, 8)  # 50,850/(22,000×0.7); (5.0 node-loads)/0.7
    assert (nodes["tidb"], nodes["tikv"], nodes["pd"]) == (4, 12, 3)  # --tikv-nodes 12 is more than the sizing
    assert advice["layout"] == "dedicated" and advice["machines"] == 20
    assert not advice["colocation"]["applies"] and advice["colocation"]["settings"] == []
    hot = advice["hot_tables"]
    assert [h["table"] for h in hot] == ["dbo.keywords"]
    assert hot[0]["insert_qps"] == 50_000.0 and hot[0]["share_of_one_region"] == 2.0
    assert hot[0]["strategy"] == "key_partition" and hot[0]["advice"] == "spread by the plan"


def test_plan_that_assumed_too_few_tikv_nodes_is_told_to_rerun():
    capture, _, plan, _, _ = sample.keywords_parts()
    advice = advise(capture, None, Options(tikv_nodes=3))
    assert advice["nodes"]["tikv"] == 8
    assert advice["replan"] == {"planned_tikv_nodes": 3, "suggested_tikv_nodes": 8, "option": "--tikv-nodes 8"}
    assert advice["hot_tables"][0]["strategy"] == "unknown"
    assert advice["hot_tables"][0]["recommended_partitions"] == 8
    assert "PARTITION BY KEY into 8 partitions" in advice["hot_tables"][0]["advice"]
    planned = advise(capture, plan, Options(tikv_nodes=3))  # the sample's plan KEY-partitioned keywords into 12
    assert planned["hot_tables"][0]["advice"] == ("spread by the plan into 12 partitions, one per TiKV node of the 3 the DDL "
                                                  "was planned for; re-plan with --tikv-nodes 8 for one per node of the "
                                                  "suggested cluster")
    assert advise(capture, plan, Options(tikv_nodes=12))["replan"] is None


def test_small_peak_fits_three_shared_machines_with_seed_001_values_at_16_cores():
    advice = advise(_small_capture(), None, Options())
    assert advice["layout"] == "co-located" and advice["machines"] == 3
    assert (advice["nodes"]["tidb"], advice["nodes"]["tikv"], advice["nodes"]["pd"]) == (3, 3, 3)
    settings = {(s["component"], s["key"]): s["value"] for s in advice["colocation"]["settings"]}
    for key, seed_value in SEED_001.items():
        assert settings[key] == seed_value, key  # 16 cores / 32 GB reproduce the guide exactly
    assert settings[("tikv", "storage.block-cache.capacity")] == "8GB"
    assert any("dedicated layout would need" in n for n in advice["notes"])


@pytest.mark.parametrize(("cores", "memory", "expected"), [
    (8, 16, {"readpool.unified.max-thread-count": 3, "server.grpc-concurrency": 1, "storage.scheduler-worker-pool-size": 1,
             "rocksdb.max-background-jobs": 2, "performance.max-procs": 4, "storage.block-cache.capacity": "4GB"}),
    (32, 64, {"readpool.unified.max-thread-count": 13, "server.grpc-concurrency": 4, "storage.scheduler-worker-pool-size": 4,
              "rocksdb.max-background-jobs": 6, "performance.max-procs": 16, "storage.block-cache.capacity": "16GB"}),
])
def test_colocation_tuning_scales_with_the_machines_given(cores, memory, expected):
    options = Options(config={"deployment": {"machines": 3, "cores": cores, "memory_gb": memory}}, config_file="c.yaml")
    settings = _settings(advise(_small_capture(), None, options))
    for key, value in expected.items():
        assert settings[key] == value, key
    assert settings["gc.max-write-bytes-per-sec"] == "300K" and settings["rocksdb.max-sub-compactions"] == 1


def test_topology_is_valid_tiup_yaml_matching_the_advice():
    advice = advise(_small_capture(), None, Options())
    topology = yaml.safe_load(advice["topology_yaml"])
    assert set(topology) >= {"global", "server_configs", "pd_servers", "tidb_servers", "tikv_servers", "monitoring_servers"}
    hosts = {s["host"] for s in topology["tikv_servers"]}
    assert len(topology["tikv_servers"]) == 3 and len(hosts) == 3
    assert {s["host"] for s in topology["tidb_servers"]} == hosts == {s["host"] for s in topology["pd_servers"]}
    assert topology["server_configs"]["tikv"]["readpool.unified.max-thread-count"] == 6
    assert topology["server_configs"]["tidb"]["performance.max-procs"] == 8
    assert advice["topology_yaml"].startswith("# TiUP topology")
    dedicated = yaml.safe_load(advise(*sample.keywords_parts()[0:1], None, Options(tikv_nodes=12))["topology_yaml"])
    assert len(dedicated["tikv_servers"]) == 12 and len(dedicated["tidb_servers"]) == 4 and len(dedicated["pd_servers"]) == 3
    all_hosts = [s["host"] for k in ("pd_servers", "tidb_servers", "tikv_servers") for s in dedicated[k]]
    assert len(all_hosts) == len(set(all_hosts)) == 19  # dedicated: one machine per instance
    assert "tikv" not in dedicated["server_configs"]  # no co-location tuning on dedicated machines


def test_one_machine_puts_three_tikv_instances_on_distinct_ports_and_warns():
    options = Options(config={"deployment": {"machines": 1}})
    advice = advise(_small_capture(), None, options)
    topology = yaml.safe_load(advice["topology_yaml"])
    ports = [s.get("port", 20160) for s in topology["tikv_servers"]]
    assert ports == [20160, 20161, 20162]
    assert {s["host"] for s in topology["tikv_servers"]} == {"10.0.1.1"}
    assert advice["colocation"]["tikv_per_machine"] == 3
    assert _settings(advice)["readpool.unified.max-thread-count"] == 2  # 16 cores shared by three TiKV
    assert any("tests only" in n for n in advice["notes"])


def test_peak_beyond_three_shared_machines_says_add_machines():
    options = Options(config={"deployment": {"machines": 3, "cores": 4}})
    advice = advise(_small_capture(rate=20_000), None, options)
    assert advice["layout"] == "co-located"
    assert any("add machines" in n for n in advice["notes"])


def test_no_workload_gives_the_minimum_cluster():
    advice = advise(Capture(), None, Options())
    assert advice["peak"]["qps"] == 0 and advice["nodes"]["tikv"] == 3
    assert any("No workload rate" in n for n in advice["notes"])


@pytest.mark.parametrize(("section", "message"), [
    ({"cores": "many"}, "c.yaml: deployment.cores must be a number of at least 2, got 'many'"),
    ({"machines": 0}, "c.yaml: deployment.machines must be a number of at least 1, got 0"),
    ({"gpus": 2}, "c.yaml: deployment has unknown keys gpus (expected machines, cores, memory_gb)"),
    ([1, 2], "c.yaml: deployment must be a mapping with machines, cores and memory_gb"),
])
def test_bad_deployment_config_is_one_line_naming_the_file(section, message):
    with pytest.raises(UsageError) as err:
        advise(Capture(), None, Options(config={"deployment": section}, config_file="c.yaml"))
    assert str(err.value) == message


def test_hot_tables_come_from_the_planners_table_rates_with_update_and_merge():
    capture = _small_capture(rate=30_000)
    table = Table("dbo", "t", (Column("id", DataType("int"), nullable=False), Column("a", DataType("int"))))
    merge = QueryClass("qmrg", "MERGE dbo.t ...", "MERGE dbo.t AS x USING (SELECT @P1 AS id) AS s ON x.id = s.id "
                       "WHEN NOT MATCHED THEN INSERT (id) VALUES (s.id);", kind="merge")
    workload = capture.workload
    capture = replace(capture, database=Database(tables=(table,)), workload=replace(
        workload, queries=(*workload.queries, merge),
        intervals=(*workload.intervals, IntervalStat("qmrg", "2024-05-01T09:00:00Z", "2024-05-01T10:00:00Z", 3600 * 3000))))
    hot = advise(capture, None, Options())["hot_tables"]
    assert [h["table"] for h in hot] == ["dbo.t"]
    assert hot[0]["write_qps"] == pytest.approx(6000.0)  # 3,000 updates + 3,000 merges
    assert hot[0]["insert_qps"] == pytest.approx(3000.0)  # a MERGE may insert
    assert hot[0]["window"] == "day" and hot[0]["advice"].startswith("watch it")
