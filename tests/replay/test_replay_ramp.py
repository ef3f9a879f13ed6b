"""The ramp finds the ceiling of a throttled target: SLEEP(0.02) on 4 connections serves ≤ 200 q/s."""

from __future__ import annotations

import pytest
from replay_helpers import keywords_case

from sqlsrv2tidb.replay.config import Ramp, ReplayConfig
from sqlsrv2tidb.replay.runner import run_replay
from sqlsrv2tidb.target import parse_target

pytestmark = pytest.mark.mariadb


def test_ramp_finds_the_ceiling_of_a_throttled_server(mariadb, database, tmp_path):
    capture, translation = keywords_case(insert_rate=0, select_rate=0,
                                         extra_sql={"qsleep": ("select", "SELECT SLEEP(0.02)", 10.0)})
    connections = 4
    capacity = connections / 0.02  # each connection answers at most 50 statements a second
    # Steps 100 and 250: well under and well over the capacity (a step at exactly 200 is a coin toss).
    config = ReplayConfig(ramp=Ramp.parse("100:150:400"), duration=1.5, warmup=0, workers=2,
                          connections=connections, p99_limit_ms=100)
    outcome = run_replay(capture, translation, parse_target(mariadb.url(database)), config, out=tmp_path)
    ramp = outcome.result["ramp"]
    steps = ramp["steps"]
    assert steps[0]["sustained"] and steps[0]["achieved_qps"] == pytest.approx(100, rel=0.05)
    assert not steps[-1]["sustained"]
    assert steps[-1]["target_qps"] > capacity
    # Past the ceiling the target answers at its capacity, not at the rate asked for.
    assert steps[-1]["achieved_qps"] == pytest.approx(capacity, rel=0.12)
    assert ramp["ceiling_qps"] == 100
    assert outcome.result["target_qps"] == ramp["ceiling_qps"]
    assert len({row["step"] for row in outcome.result["timeline"]}) == len(steps)
    # The workload needs 10 q/s, far under the ceiling: no finding that the target is too slow.
    assert not [f for f in outcome.findings if f.rule == "RP04"]


def test_a_rate_above_the_ceiling_is_not_sustained(mariadb, database, tmp_path):
    capture, translation = keywords_case(insert_rate=0, select_rate=0,
                                         extra_sql={"qsleep": ("select", "SELECT SLEEP(0.02)", 10.0)})
    config = ReplayConfig(qps=300, duration=1.5, warmup=0, workers=1, connections=2, p99_limit_ms=100)
    outcome = run_replay(capture, translation, parse_target(mariadb.url(database)), config, out=tmp_path)
    doc = outcome.result
    assert doc["achieved_qps"] == pytest.approx(2 / 0.02, rel=0.1)
    assert doc["sustained"] is False
    assert doc["missed"] > 0, "sends still due when the time ran out are counted"
    assert sum(row["sent"] for row in doc["timeline"]) + doc["missed"] == 300 * 1.5, "every planned send is sent or missed"
    assert doc["latency_ms"]["p99"] > 10 * doc["service_ms"]["p99"], "latency includes the wait behind the target"
    (finding,) = [f for f in outcome.findings if f.rule == "RP04"]
    assert "did not sustain 300.0 q/s" in finding.message
