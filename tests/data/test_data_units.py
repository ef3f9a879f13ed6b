"""The data stage's pure parts: value normalization, encodings, keys, load order, checkpoints, options."""

from __future__ import annotations

import uuid
from datetime import date, datetime, time, timedelta
from decimal import Decimal

import pytest

from sqlsrv2tidb.data import checkpoint as cp
from sqlsrv2tidb.data.copy import Chunk, chunks, encoded_body
from sqlsrv2tidb.data.encode import literal_writer, text_writer, time_text
from sqlsrv2tidb.data.normalize import TargetType, Unconvertible, converter, normalize, row_digest, token
from sqlsrv2tidb.data.order import load_order
from sqlsrv2tidb.data.settings import DataSettings, Sample, check_confirmed
from sqlsrv2tidb.data.source import keyset_predicate
from sqlsrv2tidb.data.tables import (
    TargetColumn,
    build_spec,
    select_expression,
    sort_key,
    source_order,
    target_order,
    unquote_target,
)
from sqlsrv2tidb.errors import Refused, UsageError
from sqlsrv2tidb.model import Column, DataType, IndexColumn, Key, Table
from sqlsrv2tidb.target import parse_target


def T(text: str, collation: str | None = None) -> TargetType:
    return TargetType.parse(text, collation)


@pytest.mark.parametrize("value, target, expected", [
    ("2020-01-01 10:00:00.1234567", "DATETIME(6)", datetime(2020, 1, 1, 10, 0, 0, 123457)),
    ("2020-01-01 10:00:00.1234565", "DATETIME(6)", datetime(2020, 1, 1, 10, 0, 0, 123457)),  # half away from zero
    ("2020-01-01 10:00:00.1234564", "DATETIME(6)", datetime(2020, 1, 1, 10, 0, 0, 123456)),
    ("2020-12-31 23:59:59.9999996", "DATETIME(6)", datetime(2021, 1, 1)),
    ("9999-12-31 23:59:59.9999999", "DATETIME(6)", datetime(9999, 12, 31, 23, 59, 59, 999999)),  # no overflow
    (datetime(2020, 1, 1, 0, 0, 0, 3333), "DATETIME(3)", datetime(2020, 1, 1, 0, 0, 0, 3000)),
    ("2020-06-01 12:00:00.5 -08:00", "DATETIME(6)", datetime(2020, 6, 1, 20, 0, 0, 500000)),  # offset: to UTC
    ("0001-01-01 00:00:00", "DATETIME", datetime(1, 1, 1)),
    (date(999, 12, 31), "DATE", date(999, 12, 31)),
    ("23:59:59.9999999", "TIME(6)", timedelta(days=1)),
    ("24:00:00", "TIME(6)", timedelta(days=1)),
    (time(12, 30, 1, 500), "TIME(3)", timedelta(hours=12, minutes=30, seconds=1, microseconds=1000)),
    (Decimal("1.23456"), "DECIMAL(10,4)", Decimal("1.2346")),
    (Decimal("-0.00"), "DECIMAL(10,2)", Decimal("0.00")),
    (Decimal("-9999999999999999999999999999.9999999999"), "DECIMAL(38,10)",
     Decimal("-9999999999999999999999999999.9999999999")),
    (True, "TINYINT(1)", 1),
    (255, "TINYINT UNSIGNED", 255),
    (-0.0, "DOUBLE", 0.0),
    (0.1, "FLOAT", 0.10000000149011612),
    ("ab   ", "CHAR(5)", "ab"),
    ("ab   ", "VARCHAR(5)", "ab   "),
    (b"ab", "BINARY(4)", b"ab\0\0"),
    (bytearray(b"\x01"), "LONGBLOB", b"\x01"),
])
def test_values_normalize_to_what_the_target_column_holds(value, target, expected):
    got = normalize(value, T(target))
    assert got == expected and type(got) is type(expected)


def test_a_uniqueidentifier_follows_its_target_type():
    text = "6F9619FF-8B86-D011-B42D-00C04FC964FF"
    assert normalize(text.lower(), T("CHAR(36)"), "uniqueidentifier") == text
    assert normalize(text, T("BINARY(16)"), "uniqueidentifier") == uuid.UUID(text).bytes
    # The text order of the upper-case form is the byte order of BINARY(16): the verify walk relies on it.
    ids = sorted(str(uuid.uuid4()).upper() for _ in range(50))
    assert sorted(ids, key=lambda t: uuid.UUID(t).bytes) == ids


@pytest.mark.parametrize("value, target, reason", [
    (float("nan"), "DOUBLE", "NaN"), (float("inf"), "DOUBLE", "infinity"), (1e39, "FLOAT", "range"),
    (Decimal("123456"), "DECIMAL(5,2)", "does not fit"), (300, "TINYINT UNSIGNED", "range"),
    (1.5, "INT", "whole number"), ("not a date", "DATETIME", "date and time"), (b"\xff", "VARCHAR(5)", "UTF-8"),
])
def test_values_a_column_cannot_hold_say_why(value, target, reason):
    with pytest.raises(Unconvertible) as err:
        normalize(value, T(target))
    assert reason.lower() in str(err.value).lower()


def test_tokens_fold_case_only_for_case_insensitive_columns():
    ci, cs = T("VARCHAR(10)", "utf8mb4_general_ci"), T("VARCHAR(10)", "utf8mb4_bin")
    assert ci.case_insensitive and not cs.case_insensitive
    assert token("Abc", True) == token("aBC", True) and token("Abc", False) != token("aBC", False)
    assert token(1) != token("1") and token(None) != token("")
    assert row_digest([1, "a"], [False, False]) != row_digest(["a", 1], [False, False])


def test_load_data_text_and_insert_literals_escape_what_they_must():
    text, lit = text_writer(T("VARCHAR(10)")), literal_writer(T("VARCHAR(10)"))
    assert text("a\tb\nc\\d\0") == "a\\tb\\nc\\\\d\\0"
    assert lit("it's \\") == "'it\\'s \\\\'"
    assert text_writer(T("VARBINARY(4)"))(b"\x00\xff") == "00ff" and literal_writer(T("BLOB"))(b"\x01") == "X'01'"
    assert text_writer(T("DATETIME(6)"))(datetime(1, 1, 1, 0, 0, 0, 5)) == "0001-01-01 00:00:00.000005"
    assert literal_writer(T("DATE"))(date(999, 1, 2)) == "'0999-01-02'"
    assert time_text(timedelta(days=1)) == "24:00:00" and time_text(-timedelta(seconds=1.5)) == "-0:00:01.500000"


def _table(*columns: Column, key: tuple[str, ...] = ("id",)) -> Table:
    return Table("dbo", "t", columns, primary_key=Key("PK_t", tuple(IndexColumn(k) for k in key)) if key else None)


def _spec(table: Table, types: dict[str, str], collation: str | None = None):
    cols = [TargetColumn(c.name, types.get(c.name, "INT"), collation) for c in table.columns]
    return build_spec(table, "t", cols)


def test_a_spec_reads_each_type_in_a_form_pyodbc_takes_whole():
    table = _table(Column("id", DataType("int"), False), Column("dto", DataType("datetimeoffset", scale=7)),
                   Column("d2", DataType("datetime2", scale=7)), Column("d3", DataType("datetime2", scale=3)),
                   Column("tm", DataType("time", scale=7)), Column("sv", DataType("sql_variant")),
                   Column("x", DataType("xml")), Column("c", DataType("int"), computed=None))
    spec = _spec(table, {"dto": "DATETIME(6)", "d2": "DATETIME(6)", "d3": "DATETIME(3)", "tm": "TIME(6)",
                         "sv": "TEXT", "x": "LONGTEXT"})
    selects = {c.source.name: c.select for c in spec.columns}
    assert selects["dto"] == """CONVERT(varchar(27), CONVERT(datetime2(7), SWITCHOFFSET("dto", '+00:00')), 121)"""
    assert selects["d2"] == 'CONVERT(varchar(27), "d2", 121)' and selects["d3"] == '"d3"'
    assert selects["tm"] == 'CAST("tm" AS varchar(16))' and "SQL_VARIANT_PROPERTY" in selects["sv"]
    assert selects["x"] == 'CAST("x" AS nvarchar(max))'


def test_spatial_and_hierarchyid_columns_are_read_in_the_planned_form():
    """DA03: what TiDB has no type for arrives as its binary (WKB) or, for a text column, its text."""
    geo, hid = Column("g", DataType("geography")), Column("h", DataType("hierarchyid"))
    assert select_expression(geo, T("LONGBLOB")) == '"g".STAsBinary()'
    assert select_expression(geo, T("LONGTEXT")) == '"g".STAsText()'
    assert select_expression(hid, T("VARBINARY(892)")) == 'CAST("h" AS varbinary(892))'
    assert select_expression(hid, T("VARCHAR(4000)")) == '"h".ToString()'
    spec = _spec(_table(Column("id", DataType("int"), False), geo, hid), {"g": "LONGBLOB", "h": "VARBINARY(892)"})
    assert "g: geography loaded as its binary form (WKB)" in spec.notes
    assert "h: hierarchyid loaded as its binary form (binary)" in spec.notes
    path = _spec(_table(Column("id", DataType("int"), False), hid), {"h": "VARCHAR(1024) CHARACTER SET ascii COLLATE ascii_bin"})
    assert "h: hierarchyid loaded as its path (ToString()), written so that it sorts as SQL Server sorts the nodes" in path.notes
    assert path.columns[1].convert("/1/10/-2/") == "/a1/b10/Ow/"
    with pytest.raises(Unconvertible, match="not a hierarchyid path"):
        path.columns[1].convert("1/2")
    from sqlsrv2tidb.data.copy import TableResult
    from sqlsrv2tidb.data.result import findings

    assert {f.rule for f in findings([(TableResult(spec, status="done", rows=1), None)])} == {"DA03"}


def test_keys_order_text_by_code_point_on_both_sides():
    table = _table(Column("code", DataType("nvarchar", 20), False), Column("g", DataType("uniqueidentifier"), False),
                   key=("code", "g"))
    spec = _spec(table, {"code": "VARCHAR(20)", "g": "CHAR(36)"}, "utf8mb4_general_ci")
    assert source_order(spec) == ['"code" COLLATE Latin1_General_BIN2', 'CAST("g" AS char(36)) COLLATE Latin1_General_BIN2']
    assert target_order(spec) == ["`code` COLLATE utf8mb4_bin", "`g` COLLATE utf8mb4_bin"]
    assert sort_key(["ab  ", 1]) == ("ab", 1)  # trailing spaces do not count, as on both servers
    where, params = keyset_predicate(["a", "b"], [1, "x"])
    assert where == "(a > ?) OR (a = ? AND b > ?)" and params == [1, 1, "x"]


def test_a_table_without_a_usable_key_is_read_in_physical_order():
    table = Table("dbo", "heap", (Column("a", DataType("int")), Column("b", DataType("int"))))
    assert _spec(table, {}).key == ()
    unique = Table("dbo", "u", (Column("a", DataType("int"), False),), unique_keys=(Key("UQ", (IndexColumn("a"),)),))
    assert _spec(unique, {}).key_kind == "unique key"
    nullable = Table("dbo", "u", (Column("a", DataType("int")),), unique_keys=(Key("UQ", (IndexColumn("a"),)),))
    assert _spec(nullable, {}).key == ()


def test_computed_and_missing_columns_are_left_out_with_a_note():
    from sqlsrv2tidb.model import Computed

    table = _table(Column("id", DataType("int"), False), Column("total", DataType("int"), computed=Computed("a+b")),
                   Column("gone", DataType("int")))
    spec = build_spec(table, "t", [TargetColumn("id", "INT")])
    assert [c.name for c in spec.columns] == ["id"]
    assert any("computed" in n for n in spec.notes) and any("no column gone" in n for n in spec.notes)


def test_chunks_reject_rows_that_do_not_convert_and_go_on():
    spec = _spec(_table(Column("id", DataType("int"), False), Column("f", DataType("float"))), {"f": "DOUBLE"})
    out = list(chunks(spec, iter([[(1, 1.5), (2, float("nan")), (3, -0.0)]]), literal=False, chunk_rows=2,
                      chunk_bytes=1 << 20))
    assert [c.lines for c in out] == [["1\t1.5", "3\t0.0"]]
    assert out[0].rejects[0]["key"] == {"id": 2} and "NaN" in out[0].rejects[0]["reason"]
    assert out[0].last_key == (3,) and out[0].last_target_key == (3,)
    lone = Chunk(["1\tok", "2\t\ud800"], rows=2)
    assert encoded_body(lone, spec) == b"1\tok\n" and lone.rows == 1 and "UTF-8" in lone.rejects[0]["reason"]


def test_foreign_keys_order_the_load_and_circles_turn_checks_off():
    order = load_order(["orders", "customers", "lines", "employees", "a", "b"],
                       [("orders", "customers"), ("lines", "orders"), ("employees", "employees"), ("a", "b"),
                        ("b", "a"), ("lines", "elsewhere")])
    assert order.waits_for["lines"] == {"orders"} and order.waits_for["orders"] == {"customers"}
    assert order.checks_off == {"employees", "a", "b"}
    assert order.ready("orders", {"customers"}) and not order.ready("lines", {"customers"})
    assert order.ready("a", set())  # a circle waits for nothing outside itself


def test_checkpoint_keys_keep_their_kinds(tmp_path):
    key = (1, "x", Decimal("1.50"), datetime(1, 1, 1, 0, 0, 0, 7), date(999, 1, 1), b"\x00\xff", 0.5,
           timedelta(days=1, microseconds=3), None)
    assert cp.decode_key(cp.encode_key(key)) == key
    run = {"mode": "copy", "seed": 1}
    point = cp.Checkpoint.open(tmp_path, run)
    point.update("dbo.t", status="partial", rows=10, last_key=cp.encode_key((5,)))
    again = cp.Checkpoint.open(tmp_path, run)
    assert again.resumed and again.state("dbo.t").rows == 10 and cp.decode_key(again.state("dbo.t").last_key) == (5,)
    with pytest.raises(UsageError) as err:
        cp.Checkpoint.open(tmp_path, {"mode": "copy", "seed": 2})
    assert "seed" in str(err.value) and "--restart" in str(err.value)
    assert not cp.Checkpoint.open(tmp_path, {"mode": "copy", "seed": 2}, restart=True).resumed


def test_options_are_checked_before_anything_connects():
    assert Sample.parse("10%").percent == 10 and Sample.parse("500").rows == 500
    for bad in ("0%", "101%", "ten", "1.5"):
        with pytest.raises(UsageError):
            Sample.parse(bad)
    with pytest.raises(UsageError):
        DataSettings(jobs=0)
    target = parse_target("mysql://root@h:4000/shop")
    with pytest.raises(Refused) as err:
        check_confirmed(target, DataSettings())
    assert "--confirm-database shop" in str(err.value)
    with pytest.raises(Refused):
        check_confirmed(target, DataSettings(confirm_database="other"))
    check_confirmed(target, DataSettings(confirm_database="shop"))
    assert DataSettings(tables=("dbo.ord*",)).wants("dbo", "Orders") and not DataSettings(tables=("x",)).wants("dbo", "y")
    assert unquote_target("`Order Details`") == "Order Details" and unquote_target("`db`.`t``x`") == "t`x"


def test_converters_skip_work_only_where_nothing_changes():
    assert converter(T("INT")) is not None  # range checks
    assert converter(T("VARCHAR(5)"))("x") == "x"


def test_progress_shows_rows_per_second_and_time_left_per_table(monkeypatch):
    from sqlsrv2tidb.data import meter

    class Task:
        def __init__(self):
            self.advanced, self.text = 0, ""

        def advance(self, n=1):
            self.advanced += n

        def update(self, text):
            self.text = text

    now = [100.0]
    monkeypatch.setattr(meter.time, "perf_counter", lambda: now[0])
    task = Task()
    m = meter.Meter(task, "Loading")
    m.start("dbo.Orders", 100_000)
    m.start("dbo.Lines", None)
    now[0] += 10
    m.add("dbo.Orders", 25_000)
    m.add("dbo.Lines", 5_000)
    assert task.advanced == 30_000
    assert m.line("dbo.Orders") == "dbo.Orders 25,000/100,000 rows 2,500 rows/s ETA 0:30"
    assert task.text == "Loading: dbo.Orders 25,000/100,000 rows 2,500 rows/s ETA 0:30; dbo.Lines 5,000 rows 500 rows/s"
    m.finish("dbo.Orders")
    m.finish("dbo.Lines")
    assert task.text == "Loading: finishing" and meter.clock(3725) == "1:02:05"


def test_a_table_splits_into_one_range_per_job_of_at_least_split_rows():
    from sqlsrv2tidb.data.ranges import parts_for

    assert parts_for(1_000_000, 4, 200_000) == 4 and parts_for(1_000_000, 8, 200_000) == 5
    assert parts_for(399_999, 4, 200_000) == 1 and parts_for(400_000, 4, 200_000) == 2
    assert parts_for(1_000_000, 1, 200_000) == 1 and parts_for(1_000_000, 4, 0) == 1 and parts_for(None, 4, 10) == 1


def test_key_ranges_run_between_the_cuts_with_their_target_keys():
    """Each range is (lower, upper]: the first from the start, the last to the end; the bounds are kept
    both as SQL Server reads them and as the target stores them (a uniqueidentifier as its text)."""
    from sqlsrv2tidb.data.ranges import plan, totals

    table = _table(Column("id", DataType("uniqueidentifier"), False), Column("n", DataType("int"), False),
                   key=("id", "n"))
    spec = _spec(table, {"id": "CHAR(36)"})
    cuts = [(uuid.UUID(int=1), 5), (uuid.UUID(int=2), 0)]
    ranges = plan(spec, cuts)
    assert [(r["lower"] is None, r["upper"] is None) for r in ranges] == [(True, False), (False, False), (False, True)]
    assert cp.decode_key(ranges[1]["lower_target"]) == ("00000000-0000-0000-0000-000000000001", 5)
    assert cp.decode_key(ranges[1]["upper_target"]) == ("00000000-0000-0000-0000-000000000002", 0)
    assert ranges[0]["upper"] == ranges[1]["lower"] and all(r["status"] == "new" for r in ranges)
    assert plan(spec, []) is None
    ranges[0]["rows"], ranges[2]["rows"], ranges[2]["rejects"] = 10, 5, 1
    assert totals(ranges) == {"rows": 15, "bytes": 0, "chunks": 0, "rejects": 1, "refused": 0}


def test_a_checkpoint_keeps_the_ranges_of_a_split_table(tmp_path):
    run = {"mode": "copy"}
    first = cp.Checkpoint.open(tmp_path, run)
    first.update("dbo.t", status="partial", ranges=[{"lower": None, "upper": [10], "status": "partial", "rows": 3}])
    again = cp.Checkpoint.open(tmp_path, run)
    assert again.state("dbo.t").ranges == [{"lower": None, "upper": [10], "status": "partial", "rows": 3}]
    assert again.state("dbo.u").ranges is None


def test_the_assess_data_line_says_how_many_rows_the_target_refused():
    from sqlsrv2tidb.stages import said_copied

    doc = {"summary": {"rows": 15, "tables": 1, "equal": 0, "different": 1, "refused_by_target": 8},
           "tables": [{"status": "done"}]}
    assert said_copied(doc) == ("15 row(s) in 1 table(s): 0 verified equal, 1 different, 0 failed; 8 row(s) refused "
                                "by the target, named in data-rejects.jsonl")
    assert "refused" not in said_copied({**doc, "summary": {**doc["summary"], "refused_by_target": 0}})


def test_hierarchyid_without_statistics_is_a_tree_each_node_after_its_parent():
    from sqlsrv2tidb.data.synth_values import from_type
    from sqlsrv2tidb.model.hierarchy_path import encode

    column, how = from_type(DataType("hierarchyid"), 40, None, 5, unique=True, max_length=1024)
    values = [column.value(p) for p in range(40)]
    assert values[:5] == ["/", "/1/", "/2/", "/3/", "/1/1/"] and len(set(values)) == 40 and "tree" in how
    for i, path in enumerate(values[1:], start=1):
        parent = path[:path.rstrip("/").rfind("/") + 1]
        assert values.index(parent) < i
        encode(path)
