"""The pure parts of a cluster replay: shares, their rates, clock offsets, a share's row, what a task prints."""

from __future__ import annotations

import pytest

from sqlsrv2tidb.errors import UsageError
from sqlsrv2tidb.model import Event
from sqlsrv2tidb.replay.clock import ClockOffset, best_offset, local_start, measure
from sqlsrv2tidb.replay.cluster import Cluster
from sqlsrv2tidb.replay.cluster_task import ShareTask
from sqlsrv2tidb.replay.config import ReplayConfig
from sqlsrv2tidb.replay.schedule import RateSchedule, TimedSchedule
from sqlsrv2tidb.replay.shares import ClusterStep, ShareData, share_rate, share_shards
from sqlsrv2tidb.replay.stats import LATE_US, Recorder
from sqlsrv2tidb.replay.workers import Job, WorkerTotals
from sqlsrv2tidb.target import parse_target


def test_every_connection_is_in_exactly_one_share():
    assert share_shards(16, 3) == [(0, 3, 6, 9, 12, 15), (1, 4, 7, 10, 13), (2, 5, 8, 11, 14)]
    assert share_shards(2, 5) == [(0,), (1,)], "never more shares than connections"
    for shards, shares in ((16, 3), (7, 7), (100, 9)):
        groups = share_shards(shards, shares)
        assert sorted(s for g in groups for s in g) == list(range(shards))


def test_the_shares_rates_add_up_and_each_keeps_every_class_part_of_it():
    schedule = RateSchedule(("a", "b", "c"), (700.0, 200.0, 100.0), total_qps=3000.0, duration=20.0, shards=12)
    groups = share_shards(schedule.shards, 5)
    assert sum(share_rate(schedule, g) for g in groups) == pytest.approx(3000.0)
    for group in groups:
        sends = schedule.sends_per_class(group)
        total = sum(sends.values())
        assert total == pytest.approx(share_rate(schedule, group) * 20.0, abs=len(group))
        for cls, weight in (("a", 0.7), ("b", 0.2), ("c", 0.1)):
            assert sends[cls] / total == pytest.approx(weight, abs=0.005), (group, sends)


def test_a_timed_schedule_splits_by_session():
    events = tuple(Event("q", f"2024-01-01T00:00:{i // 10:02d}.{i % 10}00Z", session_id=i % 4) for i in range(200))
    schedule = TimedSchedule(("q",), events, duration=30.0, shards=4)
    groups = share_shards(4, 2)
    rates = [share_rate(schedule, g) for g in groups]
    assert sum(rates) == pytest.approx(schedule.total_qps) and rates[0] == pytest.approx(rates[1])


def test_the_clock_offset_comes_from_the_quickest_round_trip():
    # The worker's clock is 5 s ahead; the slow sample (one leg delayed by 30 ms) would say 5.015 s.
    assert best_offset([(100.0, 105.035, 100.040), (200.0, 205.001, 200.002)]) == ClockOffset(5.0, 0.002)
    ticks = iter([0.0, 0.004, 1.0, 1.002])
    answers = iter([3.5, 4.001])
    offset = measure(lambda: next(answers), lambda: next(ticks), samples=2)
    assert offset == ClockOffset(3.0, 0.002)
    assert local_start(1000.0, offset) == 1003.0, "the start instant read on the worker's clock"
    with pytest.raises(ValueError):
        best_offset([])


def test_a_late_send_is_counted_once_late_beyond_ten_milliseconds():
    recorder = Recorder()
    recorder.done(0, 0.25, 0.25 + LATE_US / 2e6, 0.5, True)
    recorder.done(0, 0.5, 0.5 + 2 * LATE_US / 1e6, 0.75, True)
    cell = recorder.take()[0][0]
    assert (cell.sent, cell.late) == (2, 1) and cell.max_lag_us == pytest.approx(2 * LATE_US, abs=1)


def test_a_share_row_counts_the_measured_seconds_only():
    recorder = Recorder()
    for second in range(4):
        for i in range(10):
            recorder.done(0, second + i / 10, second + i / 10, second + i / 10 + 0.001, ok=i != 0)
    share = ShareData(1, "tcp://10.0.0.2:4000", (1, 3), 20.0, "host-b", seconds=recorder.take(),
                      totals=WorkerTotals(missed=2, cpu_s=0.04), clock_offset_s=0.0123, status="done")
    row = share.row(warmup=1.0, measured=3.0)
    assert (row["sent"], row["statements"], row["errors"], row["missed"]) == (30, 30, 3, 2)
    assert row["achieved_qps"] == 9.0 and row["connections"] == 2 and row["clock_offset_ms"] == 12.3
    assert row["cpu_us_per_statement"] == 1000.0, "CPU over every answered statement, warm-up included"
    step = ClusterStep("tcp://s:8786", [share, ShareData(0, "tcp://10.0.0.1:4000", (0, 2), 20.0, status="done")])
    assert step.lost_text() is None
    share.status, share.lost_at_s, share.note = "lost", 2.04, "its worker left the cluster"
    assert step.lost_text() == ("share 1 of 2 (worker tcp://10.0.0.2:4000 on host-b, 2 connections) was lost 2.0s after "
                                "the start: its worker left the cluster")


def test_a_share_task_prints_no_password():
    target = parse_target("mysql://app:s3cret-pw@db.example:4000/shop")
    schedule = RateSchedule(("a",), (1.0,), total_qps=10.0, duration=1.0, shards=2)
    task = ShareTask("run1", 1, (1,), Job(target, "pymysql", (), schedule, 7))
    for text in (repr(task), str(task), repr(task.job), repr(task.job.target)):
        assert "s3cret-pw" not in text
    assert repr(task) == "ShareTask(run='run1', share=1, connections=1, target='mysql://app@db.example:4000/shop')"
    assert task.job.target.password.reveal() == "s3cret-pw", "the password travels with the task, in memory"


def _cluster_of(about: dict[str, list[str]]) -> Cluster:
    cluster = Cluster.__new__(Cluster)
    cluster.address = "tcp://s:8786"
    cluster.about = {w: {"version": "x", "drivers": d, "host": "h"} for w, d in about.items()}
    return cluster


def test_the_driver_is_one_every_worker_has():
    both = _cluster_of({"tcp://a:1": ["mysqlclient", "pymysql"], "tcp://b:1": ["mysqlclient", "pymysql", "asyncmy"]})
    assert both.driver("auto") == "mysqlclient"
    mixed = _cluster_of({"tcp://a:1": ["mysqlclient", "pymysql"], "tcp://b:1": ["pymysql"]})
    assert mixed.driver("auto") == "pymysql", "auto falls back to the driver every worker has"
    assert mixed.driver("pymysql") == "pymysql"
    with pytest.raises(UsageError, match=r"--driver mysqlclient: not installed on worker\(s\) tcp://b:1"):
        mixed.driver("mysqlclient")
    with pytest.raises(UsageError, match="--driver must be"):
        mixed.driver("odbc")


def test_the_cluster_option_takes_a_scheduler_address():
    assert ReplayConfig(cluster="tcp://10.0.0.5:8786").cluster == "tcp://10.0.0.5:8786"
    assert ReplayConfig(cluster="tls://scheduler.example:8786").cluster == "tls://scheduler.example:8786"
    for wrong in ("10.0.0.5", "http://10.0.0.5:8787", "tcp://"):
        with pytest.raises(UsageError, match="--cluster must be a Dask scheduler's address"):
            ReplayConfig(cluster=wrong)


@pytest.mark.parametrize("command", ["replay", "assess", "experiment"])
def test_every_replaying_command_takes_the_cluster_option(command, tmp_path):
    from pathlib import Path

    from typer.testing import CliRunner

    from sqlsrv2tidb.cli import app

    example = Path(__file__).resolve().parents[2] / "examples" / "keywords"
    table = ["--table", "dbo.keywords"] if command == "experiment" else []
    result = CliRunner().invoke(app, [command, str(example), "-o", str(tmp_path / "out"), "--target",
                                      "mysql://app@127.0.0.1:1/shop", *table, "--cluster", "10.0.0.5:8786"])
    assert result.exit_code == 2
    assert result.output.strip() == ("Error: --cluster must be a Dask scheduler's address, e.g. tcp://host:8786; "
                                     "got '10.0.0.5:8786'")


def test_a_scheduler_nobody_answers_is_one_line(monkeypatch):
    from sqlsrv2tidb.errors import ConnectionFailed
    from sqlsrv2tidb.replay import cluster

    monkeypatch.setattr(cluster, "CONNECT_TIMEOUT", 1.0)
    with pytest.raises(ConnectionFailed, match=r"^--cluster tcp://127\.0\.0\.1:1: cannot reach the Dask scheduler \("):
        cluster.Cluster("tcp://127.0.0.1:1")
