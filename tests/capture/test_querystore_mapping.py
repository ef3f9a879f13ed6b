"""Query Store rows, as SQL Server returns them, become query classes with the right per-window QPS."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sqlsrv2tidb.capture.catalog import read_catalog
from sqlsrv2tidb.capture.querystore import assess_options, compiled_literal, compiled_values
from sqlsrv2tidb.model import Parameter, Window
from sqlsrv2tidb.tsql.fingerprint import fingerprint, query_id
from sqlsrv2tidb.workload_rates import class_rates, executions_in, total_rate

sys.path.insert(0, str(Path(__file__).parent / "data"))
import sqlserver_rows as fx  # noqa: E402
from test_catalog_mapping import PATH, live_document, script_document  # noqa: E402

PLAN = Path(__file__).parent / "data" / "querystore" / "test2_raw.xml"
DAY = Window("day", "2024-12-02T09:00:00Z", "2024-12-02T10:00:00Z")
NIGHT = Window("nightly", "2024-12-03T01:00:00Z", "2024-12-03T02:00:00Z")
BY_CUSTOMER = query_id(fingerprint(fx.ORDERS_BY_CUSTOMER))
BY_STATUS = query_id(fingerprint(fx.ORDERS_BY_STATUS))
IN_PROCEDURE = query_id(fingerprint(fx.PROCEDURE_STATEMENT))
INSERT = query_id(fingerprint(fx.INSERT_LINE))


@pytest.fixture(scope="module")
def workload():
    return read_catalog(live_document(), PATH).workload


def test_one_class_per_fingerprint_and_the_capture_s_own_queries_left_out(workload):
    assert {q.id for q in workload.queries} == {BY_CUSTOMER, BY_STATUS, IN_PROCEDURE, INSERT}
    by_customer = workload.query(BY_CUSTOMER)  # query_ids 101 and 102 differ only in SET options
    assert by_customer.text == "SELECT o.OrderID, o.Total FROM Sales.Orders AS o WHERE o.CustomerID = @P1"
    assert by_customer.parameters == (Parameter("@P1", "int"),) and by_customer.kind == "select"
    assert by_customer.origin == "query_store" and by_customer.database == "Sales"
    assert workload.query(IN_PROCEDURE).procedure == "Sales.usp_GetOrder"
    assert workload.query(IN_PROCEDURE).parameters == ()
    insert = workload.query(INSERT)
    assert insert.kind == "insert" and [p.type for p in insert.parameters] == [
        "bigint", "date", "smallint", "int", "int", "money"]
    assert "Query Store: READ_WRITE, 60-minute intervals, capture mode AUTO" in workload.notes


def test_per_window_qps_is_the_sum_of_executions_over_the_interval_seconds(workload):
    day = class_rates(workload, DAY)
    # 3000 regular + 12 aborted (query_id 101) + 600 (query_id 102, the same statement) in one hour.
    assert day[BY_CUSTOMER] == pytest.approx((3000 + 12 + 600) / 3600)
    assert day[IN_PROCEDURE] == pytest.approx((7200 + 3) / 3600)
    assert day[BY_STATUS] == pytest.approx(360 / 3600)
    assert INSERT not in day
    night = class_rates(workload, NIGHT)
    assert night[INSERT] == pytest.approx((180_000_000 + 250) / 3600)  # the nightly 50,000 QPS batch
    assert total_rate(workload, NIGHT) == pytest.approx(night[INSERT])
    assert executions_in(workload, None)[BY_CUSTOMER] == 3000 + 12 + 600 + 1800


def test_interval_stats_sum_plans_and_execution_types(workload):
    stat = next(i for i in workload.intervals if i.query_id == BY_CUSTOMER and i.start == DAY.start)
    assert (stat.start, stat.end, stat.seconds) == ("2024-12-02T09:00:00Z", "2024-12-02T10:00:00Z", 3600)
    assert stat.executions == 3612 and stat.errors == 12
    assert stat.total_duration_us == pytest.approx(850.5 * 3000 + 30_000_000 * 12 + 900 * 600)
    assert (stat.min_duration_us, stat.max_duration_us) == (120, 31_000_000)
    assert stat.total_cpu_us == pytest.approx(400 * 3000 + 100 * 12 + 410 * 600)
    assert stat.total_rows == pytest.approx(3 * 3000 + 3 * 600)
    errors = next(i for i in workload.intervals if i.query_id == INSERT)
    assert errors.errors == 250  # execution_type 4 (exception)
    assert len(workload.intervals) == 6


def test_compiled_values_become_samples_in_parameter_order(workload):
    assert set(workload.query(BY_CUSTOMER).samples) == {(54321,), (42,)}
    assert workload.query(BY_STATUS).samples == ((3,),)
    assert workload.query(INSERT).samples == ((1000000001, "2024-12-03", 1, 77, 5, 19.99),)
    assert workload.query(IN_PROCEDURE).samples == ()  # a module's statement declares no parameters


def test_the_capture_script_document_gives_the_same_workload(workload):
    assert read_catalog(script_document(), PATH).workload == workload


def test_compiled_values_from_a_real_plan_and_from_the_cut_the_capture_makes():
    plan = PLAN.read_text(encoding="utf-8")
    assert compiled_values(plan) == {"@2": "foobar", "@1": 54321}
    # The server-side cut in QUERY_STORE_PLANS: SUBSTRING(p, CHARINDEX(open), CHARINDEX(close) - CHARINDEX(open) + LEN(close)).
    opening, closing = "<ParameterList>", "</ParameterList>"
    start = plan.find(opening) + 1
    length = plan.find(closing) + 1 - start + len(closing)
    fragment = plan[start - 1 : start - 1 + length]
    assert fragment.startswith(opening) and fragment.endswith(closing)
    assert compiled_values(fragment) == compiled_values(plan)


@pytest.mark.parametrize(("text", "value"), [
    ("(54321)", 54321), ("(-7)", -7), ("(1.5000)", 1.5), ("(1.000000000000000e+000)", 1.0), ("'foobar'", "foobar"),
    ("N'O''Brien'", "O'Brien"), ("NULL", None), ("0x0a1B", "0x0A1B"),
    ("{guid'8d4e0b43-5a2c-4d3e-9f1a-0b1c2d3e4f50'}", "8D4E0B43-5A2C-4D3E-9F1A-0B1C2D3E4F50"),
    ("'2024-12-03 00:00:00.000'", "2024-12-03 00:00:00.000"),
])
def test_parameter_compiled_value_literals(text, value):
    assert compiled_literal(text) == value


def test_an_unreadable_plan_is_a_finding_and_the_class_keeps_its_rates():
    rows = {**fx.catalog_rows(), **fx.query_store_rows()}
    rows["QUERY_STORE_PLANS"][0] = {**rows["QUERY_STORE_PLANS"][0], "parameter_list": "<ParameterList><ColumnRef"}
    capture = read_catalog(live_document(rows), PATH)
    assert [f.rule for f in capture.findings if f.rule == "IN28"] == ["IN28"]
    assert capture.workload.query(BY_CUSTOMER).samples == ((42,),)
    assert class_rates(capture.workload, DAY)[BY_CUSTOMER] == pytest.approx(3612 / 3600)


def test_query_store_permission_denied_keeps_the_schema():
    names = {"QUERY_STORE_OPTIONS", "QUERY_STORE_QUERIES", "QUERY_STORE_RUNTIME_STATS", "QUERY_STORE_PLANS"}
    doc = live_document(fail=names)
    assert list(doc["errors"]) == ["QUERY_STORE_OPTIONS"]  # the rest is not even tried
    capture = read_catalog(doc, PATH)
    denied = [f for f in capture.findings if f.rule == "IN21"]
    assert len(denied) == 1 and "VIEW DATABASE STATE" in denied[0].message and "permission" in denied[0].message
    assert len(capture.database.tables) == 6 and capture.workload.is_empty


def test_no_runtime_statistics_in_the_window_is_noted():
    rows = {**fx.catalog_rows(), "QUERY_STORE_QUERIES": [], "QUERY_STORE_RUNTIME_STATS": [], "QUERY_STORE_PLANS": []}
    capture = read_catalog(live_document(rows), PATH)
    assert [f.rule for f in capture.findings if f.rule.startswith("IN2") and f.rule != "IN23"] == ["IN29"]


@pytest.mark.parametrize(("options", "words"), [
    ({"actual_state": 0, "actual_state_desc": "OFF"}, "is OFF"),
    ({"actual_state": 1, "actual_state_desc": "READ_ONLY", "readonly_reason": 65536}, "MAX_STORAGE_SIZE_MB was reached"),
    ({"actual_state": 1, "readonly_reason": 8 | 524288}, "secondary replica; the disk is full"),
    ({"actual_state": 3, "actual_state_desc": "ERROR"}, "is in ERROR"),
    ({"actual_state": 2, "actual_state_desc": "READ_WRITE", "query_capture_mode_desc": "NONE"}, "QUERY_CAPTURE_MODE = NONE"),
])
def test_query_store_not_recording_is_a_finding(options, words):
    notes, findings = assess_options(options, "catalog.json")
    assert len(findings) == 1 and findings[0].rule == "IN20" and words in findings[0].message
    assert notes[0].startswith("Query Store: ")


def test_query_store_recording_is_only_a_note():
    notes, findings = assess_options(fx.QUERY_STORE_OPTIONS, "catalog.json")
    assert findings == [] and notes == ["Query Store: READ_WRITE, 60-minute intervals, capture mode AUTO"]
