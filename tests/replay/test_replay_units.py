"""The pure parts of replay: schedule, histograms, marker conversion, parameters, pacing, safety."""

from __future__ import annotations

import random

import pytest

from sqlsrv2tidb.errors import Refused, UsageError
from sqlsrv2tidb.model import Event, Generator, Parameter, QueryClass, ServerInfo
from sqlsrv2tidb.model.translation import TranslatedQuery
from sqlsrv2tidb.replay.config import ReplayConfig
from sqlsrv2tidb.replay.params import ParameterMaker, marker_columns, plan_parameters, value_of_type
from sqlsrv2tidb.replay.safety import check_not_source, check_writes_confirmed, may_send
from sqlsrv2tidb.replay.schedule import RateSchedule, TimedSchedule
from sqlsrv2tidb.replay.sqltext import to_format_style
from sqlsrv2tidb.replay.stats import Histogram, Recorder, bucket_bounds, bucket_of
from sqlsrv2tidb.replay.workers import Pacer
from sqlsrv2tidb.target import parse_target

# --- schedule -----------------------------------------------------------------------------------


def test_uniform_schedule_is_evenly_spaced_and_split_by_captured_rates():
    s = RateSchedule(("a", "b", "c"), (700.0, 200.0, 100.0), total_qps=1000.0, duration=10.0, shards=7)
    merged = sorted(t for shard in range(7) for t, _, _ in s.stream(shard))
    assert len(merged) == 10_000
    gaps = {round(b - a, 9) for a, b in zip(merged, merged[1:], strict=False)}
    assert gaps == {0.001}
    assert s.sends_per_class() == {"a": 7000, "b": 2000, "c": 1000}


def test_a_rare_class_gets_its_share_within_one_send():
    for seconds in (3, 30, 90):
        s = RateSchedule(("hot", "rare"), (999.0, 1.0), total_qps=1000.0, duration=seconds, shards=4)
        assert abs(s.sends_per_class()["rare"] - seconds) <= 1


@pytest.mark.parametrize(("qps", "duration", "shards"), [
    (1000.0, 10.0, 7), (333.0, 2.0, 5), (3.0, 1 / 3, 2), (0.7, 10.0, 3), (48_000.0, 6.0, 16), (10.0, 0.05, 4),
])
def test_the_sends_left_are_counted_as_walking_the_stream_would(qps, duration, shards):
    s = RateSchedule(("a",), (1.0,), total_qps=qps, duration=duration, shards=shards)
    for shard in range(shards):
        times = [t for t, _, _ in s.stream(shard)]
        assert [s.sends_from(shard, t) for t in times] == list(range(len(times), 0, -1))
    poisson = RateSchedule(("a",), (1.0,), total_qps=qps, duration=duration, shards=shards, arrival="poisson")
    assert poisson.sends_from(0, 0.0) is None  # drawn times: the sender walks them


def test_each_shard_is_in_time_order_and_ends_before_the_duration():
    s = RateSchedule(("a",), (1.0,), total_qps=333.0, duration=2.0, shards=5, arrival="poisson", seed=3)
    for shard in range(5):
        times = [t for t, _, _ in s.stream(shard)]
        assert times == sorted(times) and times[-1] < 2.0


def test_poisson_schedule_has_the_rate_and_is_reproducible_from_the_seed():
    def sends(seed):
        s = RateSchedule(("a", "b"), (1.0, 1.0), total_qps=2000.0, duration=5.0, shards=4, arrival="poisson", seed=seed)
        return [list(s.stream(i)) for i in range(4)]

    first = sends(1)
    total = sum(len(x) for x in first)
    assert total == pytest.approx(10_000, rel=0.05)
    assert first == sends(1)
    assert first != sends(2)
    gaps = [b[0] - a[0] for a, b in zip(first[0], first[0][1:], strict=False)]
    mean = sum(gaps) / len(gaps)
    # Exponential gaps: the standard deviation equals the mean (uniform gaps would have none).
    sd = (sum((g - mean) ** 2 for g in gaps) / len(gaps)) ** 0.5
    assert sd == pytest.approx(mean, rel=0.1)


def test_timed_schedule_keeps_the_captured_spacing_divided_by_speed_and_sessions_on_one_shard():
    events = tuple(Event(f"2024-01-01T00:00:0{i}Z", "q1" if i % 2 else "q2", (i,), session_id=50 + i % 2)
                   for i in range(6))
    s = TimedSchedule(("q1", "q2"), events, duration=100.0, shards=2, speed=2.0)
    assert [(t, c, v) for t, c, v in s.stream(0)] == [(0.0, 1, (0,)), (1.0, 1, (2,)), (2.0, 1, (4,))]
    assert [t for t, _, _ in s.stream(1)] == [0.5, 1.5, 2.5]
    assert s.expected_sends == 6
    assert len(list(TimedSchedule(("q1", "q2"), events, duration=1.2, shards=1, speed=2.0).stream(0))) == 3


# --- histograms ---------------------------------------------------------------------------------


def test_buckets_are_exact_when_small_and_within_two_percent_when_large():
    for us in [0, 1, 127, 128, 129, 1000, 65_432, 10**7, 3_600_000_000]:
        low, high = bucket_bounds(bucket_of(us))
        assert low <= us < high
        assert (high - low) / max(low, 1) <= 1 / 64 or high - low == 1
    assert bucket_of(3_600_000_000) < 2048


def test_merged_histograms_equal_one_histogram_of_all_values():
    rng = random.Random(5)
    values = [int(rng.lognormvariate(7, 1.5)) for _ in range(20_000)]
    whole, parts = Histogram(), [Histogram() for _ in range(3)]
    for i, v in enumerate(values):
        whole.record(v)
        parts[i % 3].record(v)
    merged = Histogram()
    for p in parts:
        merged.merge(Histogram.from_json(p.to_json()))
    assert merged.to_json() == whole.to_json()
    exact = sorted(values)
    for p in (50, 95, 99):
        assert whole.percentile(p) == pytest.approx(exact[int(len(exact) * p / 100) - 1], rel=0.02)
    assert whole.max_us == max(values)


def test_recorder_counts_latency_from_the_intended_time_and_service_from_the_send():
    r = Recorder()
    r.done(0, intended=1.0, sent_at=1.5, finished=1.502, ok=True)
    r.done(0, intended=1.1, sent_at=1.6, finished=2.1, ok=False)
    cells = r.take()
    assert cells[1][0].sent == 2 and cells[1][0].ok == 1 and cells[2][0].errors == 1
    assert cells[1][0].latency.max_us == 502_000 and cells[1][0].service.max_us == 2000
    assert cells[1][0].max_lag_us == 500_000
    assert r.take() == {}


# --- markers ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("sql", "expected", "markers"), [
    ("SELECT a FROM t WHERE b = ?", "SELECT a FROM t WHERE b = %s", 1),
    ("SELECT '?', \"?\", `?` FROM t WHERE x = ?", "SELECT '?', \"?\", `?` FROM t WHERE x = %s", 1),
    ("SELECT 'it''s ?', 'a\\'?' , ? -- ?\n, ? /* ? */", "SELECT 'it''s ?', 'a\\'?' , %s -- ?\n, %s /* ? */", 2),
    ("SELECT a % 2, 'x%' FROM t WHERE y LIKE ?", "SELECT a %% 2, 'x%%' FROM t WHERE y LIKE %s", 1),
    ("SELECT 1 # ?\n", "SELECT 1 # ?\n", 0),
])
def test_question_marks_become_driver_markers_only_outside_literals(sql, expected, markers):
    assert to_format_style(sql) == (expected, markers)
    assert (expected % tuple(["v"] * markers)).count("%") == sql.count("%")


def test_marker_columns_follow_the_statement():
    assert [(m.table, m.column, m.role) for m in marker_columns(
        "SELECT a FROM t x JOIN u ON u.id = x.id WHERE x.b = ? AND u.c IN (?) LIMIT ?")] == [
        ("t", "b", "where"), ("u", "c", "where"), (None, None, "other")]
    assert [(m.column, m.role) for m in marker_columns("UPDATE t SET a = ? WHERE id = ?")] == [
        ("a", "set"), ("id", "where")]
    assert [m.column for m in marker_columns("INSERT INTO db.k (x, y) VALUES (?, ?)")] == ["x", "y"]


# --- parameters ---------------------------------------------------------------------------------


def _query(samples=(), generators=None):
    return QueryClass("q1", "f", "t", "select", (Parameter("@a", "int"), Parameter("@b", "nvarchar(10)")),
                      samples=samples, generators=generators or {})


def _translated(params=("@b", "@a")):
    return TranslatedQuery("q1", "f", "s", "SELECT * FROM t WHERE b = ? AND a = ?", "translated", kind="select",
                           parameters=params)


def test_captured_rows_feed_the_markers_in_the_translated_order():
    from sqlsrv2tidb.model import Database

    plan = plan_parameters(_query(samples=((1, "x"), (2, "y"))), _translated(), 2, Database())
    maker = ParameterMaker(plan, seed=1, shard=0, shards=1, class_id="q1")
    assert {maker.next() for _ in range(50)} == {("x", 1), ("y", 2)}
    assert plan.description == "captured values"


def test_a_captured_string_meeting_a_date_column_is_sent_as_sql_server_reads_it():
    from sqlsrv2tidb.model import Column, Database, DataType, Table

    database = Database(tables=(Table("dbo", "orders", (Column("id", DataType("int")), Column("ordered_at", DataType("datetime")),
                                                        Column("day", DataType("date")))),))
    query = QueryClass("q1", "f", "t", "select", (Parameter("@1", "varchar(8000)"), Parameter("@2", "varchar(8000)"),
                                                  Parameter("@3", "int")),
                       samples=(("1/5/2016", "Jan 5 2016 10:30PM", 7),))
    tq = TranslatedQuery("q1", "f", "s", "SELECT id FROM orders WHERE ordered_at > ? AND day = ? AND id = ?",
                         "translated", kind="select", parameters=("@1", "@2", "@3"))
    plan = plan_parameters(query, tq, 3, database)
    assert [m.read_as for m in plan.markers] == ["datetime", "date", None]
    maker = ParameterMaker(plan, seed=1, shard=0, shards=1, class_id="q1")
    assert maker.next() == ("2016-01-05T00:00:00", "2016-01-05", 7)
    assert maker.next(("2/29/2024", "2024-02-29 23:00", 8)) == ("2024-02-29T00:00:00", "2024-02-29", 8)


def test_generators_then_target_values_then_types():
    from sqlsrv2tidb.model import Database

    query = _query(generators={"a": Generator("random_int", min=1, max=8)})
    plan = plan_parameters(query, _translated(), 2, Database(), pools={0: ("p", "q")})
    maker = ParameterMaker(plan, seed=1, shard=0, shards=1, class_id="q1")
    values = [maker.next() for _ in range(200)]
    assert {b for b, _ in values} == {"p", "q"}
    assert {a for _, a in values} == set(range(1, 9))
    plan = plan_parameters(query, _translated(), 2, Database())
    b, _ = ParameterMaker(plan, 1, 0, 1, "q1").next()
    assert isinstance(b, str) and 1 <= len(b) <= 10


def test_the_same_seed_gives_the_same_parameters():
    from sqlsrv2tidb.model import Database

    query = _query(generators={"@a": Generator("random_int", min=1, max=2_100_000_000)})
    plan = plan_parameters(query, _translated(), 2, Database())

    def run(seed, shard=0):
        maker = ParameterMaker(plan, seed=seed, shard=shard, shards=4, class_id="q1")
        return [maker.next() for _ in range(100)]

    assert run(42) == run(42)
    assert run(42) != run(43)
    assert run(42, shard=1) != run(42, shard=0)


def test_sequence_generators_never_repeat_across_shards():
    from sqlsrv2tidb.model import Database

    query = QueryClass("q", "f", "t", "insert", (Parameter("@id", "int"),),
                       generators={"id": Generator("sequence", start=100, step=1)})
    tq = TranslatedQuery("q", "f", "s", "INSERT INTO t (id) VALUES (?)", "translated", kind="insert",
                         parameters=("@id",))
    plan = plan_parameters(query, tq, 1, Database())
    seen = [ParameterMaker(plan, 1, shard, 3, "q").next()[0] for shard in range(3) for _ in range(1)]
    makers = [ParameterMaker(plan, 1, shard, 3, "q") for shard in range(3)]
    values = [m.next()[0] for _ in range(10) for m in makers]
    assert sorted(values) == list(range(100, 130)) and seen == [100, 101, 102]


def test_each_ramp_step_draws_new_values_and_numbers_its_sends_after_the_last():
    from sqlsrv2tidb.model import Database
    from sqlsrv2tidb.replay.params import serial_span

    query = _query(generators={"@a": Generator("random_int", min=1, max=2_100_000_000)})
    plan = plan_parameters(query, _translated(), 2, Database())

    def run(step):
        maker = ParameterMaker(plan, seed=7, shard=0, shards=4, class_id="q1", step=step)
        return [maker.next()[1] for _ in range(200)]

    legacy = ParameterMaker(plan, seed=7, shard=0, shards=4, class_id="q1")
    assert run(0) == [legacy.next()[1] for _ in range(200)], "the first step keeps the values a seed always gave"
    assert not set(run(0)) & set(run(1)) and not set(run(1)) & set(run(2))

    # A sequence generator: the steps of a ramp take consecutive, disjoint ranges of send numbers.
    seq_query = QueryClass("q", "f", "t", "insert", (Parameter("@id", "int"),),
                           generators={"id": Generator("sequence", start=1, step=1)})
    tq = TranslatedQuery("q", "f", "s", "INSERT INTO t (id) VALUES (?)", "translated", kind="insert",
                         parameters=("@id",))
    seq_plan = plan_parameters(seq_query, tq, 1, Database())
    base, seen = 0, []
    for step, arrival in enumerate(("uniform", "poisson", "uniform")):
        schedule = RateSchedule(("q",), (1.0,), total_qps=300.0 * (step + 1), duration=1.0, shards=3, arrival=arrival,
                                seed=7)
        values = []
        for shard in range(3):
            maker = ParameterMaker(seq_plan, 7, shard, 3, "q", step, base)
            values += [maker.next()[0] for _ in schedule.stream(shard)]
        assert len(set(values)) == len(values) and not set(values) & set(seen)
        assert max(values) <= base + serial_span(schedule.total_qps, schedule.duration, 3, arrival)
        seen += values
        base += serial_span(schedule.total_qps, schedule.duration, 3, arrival)


def test_a_run_without_a_seed_draws_its_own_and_says_so():
    drawn = ReplayConfig().with_seed()
    assert isinstance(drawn.seed, int) and drawn.seed_drawn
    assert ReplayConfig().with_seed().seed != drawn.seed  # one in 2^31 to collide
    given = ReplayConfig(seed=5).with_seed()
    assert (given.seed, given.seed_drawn) == (5, False) and given.with_seed() is given


@pytest.mark.parametrize(("type_text", "check"), [
    ("smallint", lambda v: 1 <= v <= 32767),
    ("tinyint", lambda v: 0 <= v <= 255),
    ("decimal(5,2)", lambda v: 0 <= v <= 999.99 and round(v, 2) == v),
    ("nchar(4)", lambda v: len(v) == 4),
    ("varbinary(3)", lambda v: isinstance(v, bytes) and len(v) == 3),
    ("uniqueidentifier", lambda v: len(v) == 36),
    ("datetime2(7)", lambda v: v.startswith("2024-") or v.startswith("2025-")),
    ("bit", lambda v: v in (0, 1)),
])
def test_values_fit_their_declared_type(type_text, check):
    rng = random.Random(1)
    assert all(check(value_of_type(type_text, rng)) for _ in range(50))


# --- pacing -------------------------------------------------------------------------------------


def test_pacer_sleeps_until_the_intended_time_on_an_injected_clock():
    now = [10.0]
    slept = []

    def sleep(d):
        slept.append(round(d, 6))
        now[0] += d

    pacer = Pacer(start=10.0, clock=lambda: now[0], sleep=sleep)
    assert pacer.wait(0.5) and pacer.now() == pytest.approx(0.5)
    assert slept == [0.2, 0.2, 0.1], "long waits are sliced so that a stop is seen quickly"
    now[0] += 0.7  # the target was slow: the next send is already late and leaves at once
    assert pacer.wait(1.0) and len(slept) == 3
    assert pacer.wait(1.2 + 0.00002) and len(slept) == 3, "a wait shorter than a timer tick is not slept"
    assert pacer.wait(2.0) and slept[3:] == [0.2, 0.2, 0.2, 0.2]
    pacer.stopped = True
    assert pacer.wait(5.0) is False and slept[-1] == 0.2


# --- safety -------------------------------------------------------------------------------------


def test_writes_need_both_options_and_schema_changes_never_run():
    assert not may_send("insert", ReplayConfig()).send
    assert may_send("select", ReplayConfig()).send
    assert may_send("update", ReplayConfig(allow_writes=True, confirm_database="db")).send
    assert not may_send("ddl", ReplayConfig(allow_writes=True, confirm_database="db")).send
    with pytest.raises(UsageError, match="--confirm-database"):
        ReplayConfig(allow_writes=True)
    target = parse_target("mysql://u@h:4000/db")
    check_writes_confirmed(target, ReplayConfig(allow_writes=True, confirm_database="db"))
    with pytest.raises(Refused):
        check_writes_confirmed(target, ReplayConfig(allow_writes=True, confirm_database="DB2"))


@pytest.mark.parametrize(("instance", "url", "refused"), [
    ("sql01,1433/poc", "mysql://u@sql01:1433/poc", True),
    ("SQL01/poc", "mysql://u@sql01:1433/poc", True),
    ("sql01\\INST,1433/poc", "mysql://u@sql01:1433/poc", True),
    ("127.0.0.1,4000/poc", "mysql://u@localhost:4000/poc", True),
    ("sql01,1433/poc", "mysql://u@tidb01:4000/poc", False),
    ("sql01,1433/poc", "mysql://u@sql01:1433/other", False),
])
def test_the_capture_source_is_refused(instance, url, refused):
    target = parse_target(url)
    if refused:
        with pytest.raises(Refused):
            check_not_source(target, ServerInfo(instance=instance))
    else:
        check_not_source(target, ServerInfo(instance=instance))


def test_live_progress_shows_the_newest_complete_second():
    import io

    from sqlsrv2tidb.replay.engine import StepData, live_printer

    data = StepData()
    for second, (ok, errors) in enumerate([(90, 0), (120, 3)]):
        r = Recorder()
        for i in range(ok):
            r.done(0, second + i / 1000, second + i / 1000, second + i / 1000 + 0.004, True)
        for _ in range(errors):
            r.done(0, second + 0.5, second + 0.5, second + 0.6, False)
        data.seconds.update(r.take())
    out = io.StringIO()
    live_printer(out, every=5)(data, 4)
    assert out.getvalue() == ""
    live_printer(out, every=5)(data, 5)
    assert out.getvalue().split() == ["replay", "5s", "120", "q/s", "p99", "4.00", "ms", "errors", "3/s", "(3",
                                      "total)"]
