"""Per-table write rates: the statement's target table, the busiest window, rows per second."""

from __future__ import annotations

import pytest
from plan_models import capture, keywords

from sqlsrv2tidb.model import IntervalStat, QueryClass, Window, Workload
from sqlsrv2tidb.plan.table_rates import table_write_rates, target_table


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("INSERT INTO dbo.keywords (e_type) VALUES (@P1)", ("dbo", "keywords")),
        ("(@P1 int,@P2 int)INSERT [dbo].[keywords] VALUES (@P1, @P2)", ("dbo", "keywords")),
        ("insert into keywords values (1, 2)", (None, "keywords")),
        ("INSERT INTO [Sales].[Order Details] (a) SELECT a FROM x", ("Sales", "Order Details")),
        ("UPDATE dbo.users SET name = @P1 WHERE id = @P2", ("dbo", "users")),
        ("UPDATE u SET name = 'x' FROM dbo.users AS u JOIN dbo.t ON t.id = u.id", ("dbo", "users")),
        ("UPDATE TOP (10) dbo.queue SET taken = 1", ("dbo", "queue")),
        ("MERGE INTO dbo.stock AS t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET t.q = s.q;", ("dbo", "stock")),
        ("WITH c AS (SELECT 1 AS a) INSERT INTO dbo.z (a) SELECT a FROM c", ("dbo", "z")),
        ("DELETE FROM dbo.old WHERE at < @P1", ("dbo", "old")),
        ("INSERT INTO @rows VALUES (1)", None),
        ("INSERT INTO #work VALUES (1)", None),
        ("SELECT 1", None),
        ("INSERT INTO dbo.[weird name] VALUES ('unterminated", ("dbo", "weird name")),
    ],
)
def test_target_table(sql, expected):
    assert target_table(sql) == expected


def _class(qid: str, text: str, kind: str) -> QueryClass:
    return QueryClass(qid, text, text, kind=kind)  # type: ignore[arg-type]


def test_busiest_window_counts_and_kinds_add_up():
    workload = Workload(
        queries=(
            _class("qi", "INSERT INTO dbo.keywords (e_type) VALUES (@P1)", "insert"),
            _class("qu", "UPDATE dbo.keywords SET d_order = 1 WHERE e_id = @P1", "update"),
            _class("qm", "MERGE dbo.keywords AS t USING s ON 1 = 0 WHEN NOT MATCHED THEN INSERT (e_type) VALUES (1);", "merge"),
            _class("qs", "SELECT * FROM dbo.keywords", "select"),
            _class("qx", "INSERT INTO dbo.elsewhere VALUES (1)", "insert"),
        ),
        intervals=(
            IntervalStat("qi", "2024-12-02T01:00:00Z", "2024-12-02T02:00:00Z", 36_000_000),
            IntervalStat("qu", "2024-12-02T01:00:00Z", "2024-12-02T02:00:00Z", 3_600_000),
            IntervalStat("qm", "2024-12-02T01:00:00Z", "2024-12-02T02:00:00Z", 360_000),
            IntervalStat("qs", "2024-12-02T01:00:00Z", "2024-12-02T02:00:00Z", 99_000_000),
            IntervalStat("qi", "2024-12-02T09:00:00Z", "2024-12-02T10:00:00Z", 36_000),
            IntervalStat("qx", "2024-12-02T09:00:00Z", "2024-12-02T10:00:00Z", 36_000),
        ),
        windows=(Window("normal", "2024-12-02T09:00:00Z", "2024-12-02T10:00:00Z"),
                 Window("nightly", "2024-12-02T01:00:00Z", "2024-12-02T02:00:00Z")),
    )
    rates = table_write_rates(workload, capture(keywords()).database)
    assert rates.known
    rate = rates.rate("DBO", "KEYWORDS")
    assert rate is not None and rate.window == "nightly"
    assert (rate.insert_qps, rate.update_qps, rate.merge_qps) == (10_000, 1_000, 100)
    assert rate.write_qps == 11_100 and rate.query_ids == ("qi", "qm", "qu")
    assert rates.unmatched == ("qx",)  # dbo.elsewhere is not in the schema


def test_rows_per_second_when_the_capture_counts_rows():
    workload = Workload(
        queries=(_class("qi", "INSERT INTO dbo.keywords (e_type) VALUES (1), (2)", "insert"),),
        intervals=(IntervalStat("qi", "2024-12-02T01:00:00Z", "2024-12-02T01:01:00Z", 600, total_rows=60_000),),
    )
    rate = table_write_rates(workload, capture(keywords()).database).rate("dbo", "keywords")
    assert rate.insert_qps == 10 and rate.rows_per_second == 1000 and rate.load == 1000
    assert rate.window == "all"


def test_no_intervals_means_unknown_rates():
    workload = Workload(queries=(_class("qi", "INSERT INTO dbo.keywords VALUES (1)", "insert"),))
    rates = table_write_rates(workload, capture(keywords()).database)
    assert not rates.known and rates.rate("dbo", "keywords") is None
