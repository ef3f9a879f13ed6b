"""Window detection: the busiest hour and sustained batch periods, named predictably; user windows kept."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sqlsrv2tidb.capture.sources import read_sources
from sqlsrv2tidb.capture.windows import detect_windows, with_detected_windows
from sqlsrv2tidb.model import IntervalStat, QueryClass, Window, Workload
from sqlsrv2tidb.model.workload import format_time
from sqlsrv2tidb.workload_rates import class_rates

XE = Path(__file__).resolve().parent / "data" / "xe"
T0 = datetime(2024, 12, 2, tzinfo=UTC)
READ = QueryClass("qread", "SELECT ? FROM t", "SELECT 1 FROM t", kind="select")
INSERT = QueryClass("qins", "INSERT INTO k VALUES (?)", "INSERT INTO k VALUES (1)", kind="insert")


def _interval(qid: str, start: datetime, seconds: float, qps: float) -> IntervalStat:
    return IntervalStat(qid, format_time(start), format_time(start + timedelta(seconds=seconds)), round(qps * seconds))


def _seed_000_day() -> Workload:
    """Hourly Query Store-like intervals: daytime reads, light writes, and the 01:00 keywords batch."""
    intervals = []
    for hour in range(24):
        start = T0 + timedelta(hours=hour)
        intervals.append(_interval("qread", start, 3600, 2000 if 8 <= hour < 20 else 200))
        intervals.append(_interval("qins", start, 3600, 50000 if hour == 1 else 20))
    return Workload(queries=(READ, INSERT), intervals=tuple(intervals))


def test_seed_000_day_has_a_peak_hour_the_daytime_hour_and_the_nightly_batch():
    windows = detect_windows(_seed_000_day())
    assert [(w.name, w.kind, w.start, w.end) for w in windows] == [
        ("peak", "busiest_hour", "2024-12-02T01:00:00Z", "2024-12-02T02:00:00Z"),
        ("peak-outside-batches", "busiest_hour", "2024-12-02T08:00:00Z", "2024-12-02T09:00:00Z"),
        ("batch-1", "batch", "2024-12-02T01:00:00Z", "2024-12-02T02:00:00Z"),
    ]
    assert windows[1].description == "the busiest hour outside the batch windows: 2,020.0 qps"
    assert windows[2].description == "sustained writes: 100% of 50,200.0 qps, against a median of 2,020.0 qps"


def test_the_hour_outside_batches_overlaps_none_even_when_the_reads_peak_beside_one():
    # Minute intervals: 10 qps of reads, 50 qps of reads 10:00-11:00 and an insert batch 10:40-11:20.
    intervals = []
    for minute in range(8 * 60, 14 * 60):
        start = T0 + timedelta(minutes=minute)
        intervals.append(_interval("qread", start, 60, 50 if 10 * 60 <= minute < 11 * 60 else 10))
        intervals.append(_interval("qins", start, 60, 5000 if 10 * 60 + 40 <= minute < 11 * 60 + 20 else 1))
    windows = detect_windows(Workload(queries=(READ, INSERT), intervals=tuple(intervals)))
    assert [(w.name, w.start[11:16], w.end[11:16]) for w in windows] == [
        ("peak", "10:20", "11:20"),
        ("peak-outside-batches", "09:40", "10:40"),  # ends where the batch begins: 40 busy minutes
        ("batch-1", "10:40", "11:20"),
    ]
    assert windows[1].description == "the busiest hour outside the batch windows: 37.7 qps"  # (20×10 + 40×50 reads + 60×1 insert)/60


def test_no_hour_outside_batches_when_the_batch_leaves_none():
    intervals = []
    for minute in range(0, 100):
        start = T0 + timedelta(minutes=minute)
        intervals.append(_interval("qread", start, 60, 10))
        intervals.append(_interval("qins", start, 60, 5000 if 30 <= minute < 60 else 1))
    windows = detect_windows(Workload(queries=(READ, INSERT), intervals=tuple(intervals)))
    assert [w.name for w in windows] == ["peak", "batch-1"]  # 30 and 40 quiet minutes: no whole hour


def test_the_busiest_hour_can_straddle_interval_boundaries():
    # Minute intervals: steady 10 qps, and 100 qps from 10:30 to 11:30.
    intervals = []
    for minute in range(8 * 60, 14 * 60):
        start = T0 + timedelta(minutes=minute)
        qps = 100 if 10 * 60 + 30 <= minute < 11 * 60 + 30 else 10
        intervals.append(_interval("qread", start, 60, qps))
    (peak,) = detect_windows(Workload(queries=(READ,), intervals=tuple(intervals)))
    assert (peak.start, peak.end) == ("2024-12-02T10:30:00Z", "2024-12-02T11:30:00Z")
    assert peak.description == "the busiest hour: 100.0 qps"


def test_batches_must_be_write_heavy_and_sustained():
    intervals = []
    for minute in range(0, 180):
        start = T0 + timedelta(minutes=minute)
        intervals.append(_interval("qread", start, 60, 50))
        inserts = 0
        if 20 <= minute < 32:  # 12 minutes of heavy inserts: a batch
            inserts = 400
        elif 100 <= minute < 102:  # a two-minute burst: too short
            inserts = 400
        elif 140 <= minute < 150:  # ten minutes of many reads: busy, but not writes
            intervals.append(_interval("qread", start, 60, 600))
        intervals.append(_interval("qins", start, 60, inserts or 2))
    workload = Workload(queries=(READ, INSERT), intervals=tuple(intervals))
    batches = [w for w in detect_windows(workload) if w.kind == "batch"]
    assert [(w.name, w.start, w.end) for w in batches] == [("batch-1", "2024-12-02T00:20:00Z", "2024-12-02T00:32:00Z")]


def test_two_batches_are_numbered_in_time_order():
    intervals = []
    for minute in range(0, 240):
        start = T0 + timedelta(minutes=minute)
        intervals.append(_interval("qread", start, 60, 50))
        hot = 10 <= minute < 20 or 200 <= minute < 230
        intervals.append(_interval("qins", start, 60, 500 if hot else 1))
    workload = Workload(queries=(READ, INSERT), intervals=tuple(intervals))
    names = [(w.name, w.start[11:16], w.end[11:16]) for w in detect_windows(workload) if w.kind == "batch"]
    assert names == [("batch-1", "00:10", "00:20"), ("batch-2", "03:20", "03:50")]


def test_a_short_capture_is_its_own_peak_and_a_flat_one_has_no_batch():
    intervals = tuple(_interval("qins", T0 + timedelta(minutes=m), 60, 30) for m in range(20))
    windows = detect_windows(Workload(queries=(INSERT,), intervals=intervals))
    assert [(w.name, w.start, w.end) for w in windows] == [("peak", "2024-12-02T00:00:00Z", "2024-12-02T00:20:00Z")]
    assert windows[0].description == "the whole capture (under an hour): 30.0 qps"


def test_user_windows_are_kept_and_nothing_is_detected():
    mine = Window("nightly", "2024-12-02T01:00:00Z", "2024-12-02T02:00:00Z", kind="spec")
    workload = Workload(queries=(READ, INSERT), intervals=_seed_000_day().intervals, windows=(mine,))
    assert with_detected_windows(workload) is workload
    empty = Workload(queries=(READ,))
    assert with_detected_windows(empty) is empty


def test_read_sources_names_windows_of_an_xe_capture():
    capture = read_sources([XE / "event_rows.xml", XE / "prepared.xml"])
    workload = capture.workload
    assert [w.name for w in workload.windows] == ["peak"]
    (peak,) = workload.windows
    # The files are eight and a half hours apart: 3 inserts at 01:00, 6 calls from 09:30:00.0 to
    # 09:30:00.7. The busiest hour ends with the capture, rounded up to the second.
    assert (peak.start, peak.end, peak.kind) == ("2024-12-02T08:30:01Z", "2024-12-02T09:30:01Z", "busiest_hour")
    photos = next(q for q in workload.queries if "dbo.photos" in q.text)
    inserts = next(q for q in workload.queries if q.kind == "insert")
    rates = class_rates(workload, peak)
    assert rates[photos.id] == pytest.approx(3 / 3600) and inserts.id not in rates
