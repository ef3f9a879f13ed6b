"""The models round-trip through JSON exactly, so every stage can be run alone from its files."""

from __future__ import annotations

import json

import pytest

from sqlsrv2tidb.model import (
    Capture,
    Column,
    Computed,
    Database,
    DataType,
    Event,
    Finding,
    ForeignKey,
    Generator,
    Identity,
    Index,
    IndexColumn,
    IntervalStat,
    Key,
    Module,
    Parameter,
    QueryClass,
    Sequence,
    Severity,
    SourceRef,
    Table,
    Window,
    Workload,
    from_dict,
    load_capture,
    save_capture,
    to_dict,
)
from sqlsrv2tidb.model.schema import MAX


def _capture() -> Capture:
    keywords = Table(
        "dbo", "keywords",
        columns=(
            Column("e_type", DataType("smallint"), nullable=False, source=SourceRef("schema.sql", 12)),
            Column("body", DataType("nvarchar", length=MAX), default="(N'')", default_name="DF_b"),
            Column("id", DataType("bigint"), identity=Identity(1, 1, not_for_replication=True)),
            Column("total", DataType("money"), computed=Computed("([a]*[b])", persisted=True)),
        ),
        primary_key=Key("PK_k", (IndexColumn("e_type"), IndexColumn("id", descending=True)), clustered=True),
        indexes=(Index("ix", (IndexColumn("body"),), include=("total",), filter="([id]>(0))"),),
        foreign_keys=(ForeignKey("FK", ("id",), "dbo", "other", ("id",), on_delete="cascade"),),
        row_count=10,
    )
    database = Database(
        name="poc", schemas=("dbo",), tables=(keywords,),
        sequences=(Sequence("Sequences", "OrderID", DataType("int"), start=1, cached=False),),
        modules=(Module("dbo", "v", "view", "CREATE VIEW v AS SELECT 1", source=SourceRef("v.sql", 1)),),
    )
    workload = Workload(
        queries=(QueryClass("q1", "INSERT INTO keywords VALUES (?)", "INSERT INTO keywords VALUES (@P1)",
                            kind="insert", parameters=(Parameter("@P1", "smallint"),), samples=((1,), (None,)),
                            generators={"@P1": Generator("random_int", min=1, max=8)}),),
        intervals=(IntervalStat("q1", "2024-12-01T00:00:00Z", "2024-12-01T01:00:00Z", 3600, total_duration_us=1.5e6),),
        windows=(Window("nightly", "2024-12-01T00:00:00Z", "2024-12-01T01:00:00Z", kind="batch"),),
        events=(Event("2024-12-01T00:00:01.5Z", "q1", (3,), session_id=55),),
    )
    finding = Finding("IN01", Severity.MEDIUM, "schema.sql", "could not read", "schema.sql", 3, {"text": "x"})
    return Capture(database, workload, (finding,), ("schema.sql",))


def test_capture_round_trips_through_json(tmp_path):
    capture = _capture()
    assert from_dict(Capture, json.loads(json.dumps(to_dict(capture)))) == capture
    path = tmp_path / "capture.json"
    save_capture(capture, path)
    assert load_capture(path) == capture


def test_wrong_shapes_are_rejected_with_the_path_named():
    data = to_dict(_capture())
    data["database"]["tables"][0]["columns"][0]["nullable"] = "yes"
    with pytest.raises(ValueError, match=r"tables\[0\]\.columns\[0\]\.nullable"):
        from_dict(Capture, data)


def test_severities_order_from_info_to_blocker():
    assert Severity.BLOCKER > Severity.HIGH > Severity.MEDIUM > Severity.LOW > Severity.INFO
    assert Severity("high") >= Severity.MEDIUM


def test_lookups_are_case_insensitive_like_sql_server():
    db = _capture().database
    assert db.table("DBO", "KeyWords").name == "keywords"
    assert db.table(None, "keywords").schema == "dbo"
    assert db.sequence("sequences", "orderid").cached is False
    assert str(db.tables[0].columns[1].type) == "nvarchar(max)"


def test_interval_rates():
    stat = _capture().workload.intervals[0]
    assert stat.seconds == 3600
    assert stat.avg_duration_us == pytest.approx(1.5e6 / 3600)
