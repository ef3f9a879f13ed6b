"""A DBA's own export of the Query Store query (reference §2.7), as CSV or JSON, reads like a capture."""

from __future__ import annotations

import csv
import io
import json
import sys
from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sqlsrv2tidb.capture.catalog import read_catalog
from sqlsrv2tidb.capture.querystore import (
    EXPORT_COLUMNS,
    looks_like_query_store_export,
    read_query_store_export,
)
from sqlsrv2tidb.capture.sources import detect_kind, read_sources
from sqlsrv2tidb.capture.textfile import read_text
from sqlsrv2tidb.cli import app
from sqlsrv2tidb.workload_rates import class_rates

sys.path.insert(0, str(Path(__file__).parent / "data"))
import sqlserver_rows as fx  # noqa: E402
from test_catalog_mapping import PATH, for_json_value, live_document  # noqa: E402
from test_querystore_mapping import BY_CUSTOMER, DAY, INSERT, NIGHT  # noqa: E402

PLAN = Path(__file__).parent / "data" / "querystore" / "test2_raw.xml"


def export_rows() -> list[dict]:
    """The §2.7 query's rows for the fixture's Query Store: one plan per query, the query text on every row."""
    qs = fx.query_store_rows()
    queries = {r["query_id"]: r for r in qs["QUERY_STORE_QUERIES"]}
    rows = []
    for stat in qs["QUERY_STORE_RUNTIME_STATS"]:
        merged = {**queries[stat["query_id"]], **stat, "plan_id": stat["query_id"] + 100,
                  "query_plan_hash": bytes.fromhex("1013D8712B73894E")}
        rows.append({name: merged.get(name) for name in EXPORT_COLUMNS})
    return rows


def ssms_text(value) -> str:
    """A value as the results grid shows it and "Save Results As" writes it."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S.%f") + "0"
    if isinstance(value, bytes):
        return "0x" + value.hex().upper()
    return str(value)


def write_csv(path: Path, rows: list[dict], header: bool = True) -> Path:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    if header:
        writer.writerow(EXPORT_COLUMNS)
    for row in rows:
        writer.writerow([ssms_text(row[c]) for c in EXPORT_COLUMNS])
    path.write_text(buffer.getvalue(), encoding="utf-8-sig")
    return path


@pytest.fixture(scope="module")
def catalog_workload():
    return read_catalog(live_document(), PATH).workload


def _same_rates(workload, expected) -> None:
    assert {q.id for q in workload.queries} == {q.id for q in expected.queries}
    for window in (DAY, NIGHT):
        assert class_rates(workload, window) == pytest.approx(class_rates(expected, window))
    assert workload.intervals == expected.intervals
    for q in expected.queries:
        got = workload.query(q.id)
        assert (got.text, got.parameters, got.kind, got.procedure) == (q.text, q.parameters, q.kind, q.procedure)


def test_csv_export_with_headers(tmp_path, catalog_workload):
    path = write_csv(tmp_path / "qs.csv", export_rows())
    tf = read_text(path)
    assert detect_kind(tf) == "query_store" and looks_like_query_store_export(tf)
    workload, findings = read_query_store_export(tf)
    assert findings == []
    _same_rates(workload, catalog_workload)
    assert class_rates(workload, NIGHT)[INSERT] == pytest.approx((180_000_000 + 250) / 3600)
    line = workload.query(BY_CUSTOMER).source
    assert line.file == str(path) and line.line == 2  # the first data row, after the header


def test_csv_saved_without_headers_is_read_in_the_query_s_column_order(tmp_path, catalog_workload):
    path = write_csv(tmp_path / "qs.csv", export_rows(), header=False)
    assert detect_kind(read_text(path)) == "query_store"
    workload, findings = read_query_store_export(read_text(path))
    assert findings == []
    _same_rates(workload, catalog_workload)


def test_json_export_with_plans_gives_samples(tmp_path, catalog_workload):
    rows = [{k: for_json_value(v) for k, v in r.items() if v is not None} for r in export_rows()]
    for row in rows:
        if row["query_id"] == 101:
            row["query_plan"] = PLAN.read_text(encoding="utf-8").replace("@1 int,@2 varchar(8000)", "@P1 int")
            row["query_plan"] = row["query_plan"].replace('Column="@1" ParameterDataType="int"',
                                                          'Column="@P1" ParameterDataType="int"')
    path = tmp_path / "qs.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    assert detect_kind(read_text(path)) == "query_store"
    workload, findings = read_query_store_export(read_text(path))
    assert findings == []
    _same_rates(workload, catalog_workload)
    assert workload.query(BY_CUSTOMER).samples == ((54321,),)


def test_bad_rows_are_findings_with_their_line_and_the_rest_is_read(tmp_path):
    rows = export_rows()
    rows[1] = {**rows[1], "count_executions": "lots"}
    rows[2] = {**rows[2], "interval_end_utc": rows[2]["interval_start_utc"]}
    path = write_csv(tmp_path / "qs.csv", rows)
    workload, findings = read_query_store_export(read_text(path))
    assert [(f.rule, f.line) for f in findings] == [("IN27", 3), ("IN27", 4)]
    assert "lots" in findings[0].message and "before it starts" in findings[1].message
    assert len(workload.queries) == 4


def test_an_export_without_interval_times_is_one_clear_error(tmp_path):
    path = tmp_path / "qs.csv"
    path.write_text("query_id,query_sql_text,count_executions\r\n1,SELECT 1,5\r\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["schema", "-q", str(path)])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: ") and str(path) in result.stderr
    assert "interval_start_utc and interval_end_utc" in result.stderr and "Traceback" not in result.stderr


def test_the_schema_command_reads_an_export(tmp_path):
    path = write_csv(tmp_path / "qs.csv", export_rows())
    result = CliRunner().invoke(app, ["schema", str(path)])
    assert result.exit_code == 0, result.output
    assert "workload: 4 query classes" in result.stdout
    assert len(read_sources([path]).workload.queries) == 4


def test_other_csv_files_are_not_taken_for_exports(tmp_path):
    path = tmp_path / "orders.csv"
    path.write_text("OrderID,CustomerID,Total\n1,7,19.99\n2,9,5.00\n", encoding="utf-8")
    assert not looks_like_query_store_export(read_text(path))
