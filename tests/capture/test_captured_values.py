"""Each class keeps its executions' own values: ad-hoc literals as parameters, a uniform bounded sample, merged fairly.

And, on the replay side, the one place captured values are not sent again: a key an INSERT writes.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from sqlsrv2tidb.capture.reservoir import Reservoir, merge
from sqlsrv2tidb.replay.fresh import fresh_maker
from sqlsrv2tidb.tsql.parameterize import parameterize


@pytest.mark.parametrize(("sql", "text", "values"), [
    ("SELECT * FROM t WHERE pub_id = '0736'", "SELECT * FROM t WHERE pub_id = @1", ("0736",)),
    ("SELECT * FROM t WHERE a <> -5 AND b >= 1.25 AND c BETWEEN 1 AND 0x0A",
     "SELECT * FROM t WHERE a <> @1 AND b >= @2 AND c BETWEEN @3 AND @4", (-5, 1.25, 1, "0x0A")),
    ("SELECT x FROM t WHERE id IN (1, 2, 3)", "SELECT x FROM t WHERE id IN (@1, @2, @3)", (1, 2, 3)),
    ("INSERT INTO t (a, b) VALUES (1, N'x'), (2, GETDATE())",
     "INSERT INTO t (a, b) VALUES (@1, @2), (@3, GETDATE())", (1, "x", 2)),
    ("UPDATE t SET n = n + 1, m = 'y' WHERE k = 7", "UPDATE t SET n = n + 1, m = @1 WHERE k = @2", ("y", 7)),
    # A procedure call's whole arguments: the procedure runner replays each call with its own.
    ("EXEC dbo.usp_report @since = '2024-01-01', @top = 5, @out = @x OUTPUT",
     "EXEC dbo.usp_report @since = @1, @top = @2, @out = @x OUTPUT", ("2024-01-01", 5)),
    ("EXEC @rc = [dbo].[p] N'a', -2", "EXEC @rc = [dbo].[p] @1, @2", ("a", -2)),
])
def test_values_in_value_positions_become_parameters(sql, text, values):
    got, params, vals = parameterize(sql)
    assert (got, vals) == (text, values)
    assert [p.name for p in params] == [f"@{i}" for i in range(1, len(values) + 1)]


@pytest.mark.parametrize("sql", [
    "SELECT TOP 10 a FROM t ORDER BY 1",  # counts and positions are the statement's meaning
    "SELECT CONVERT(varchar(10), d, 112), DATEADD(day, -1, d) FROM t",
    "SELECT CASE WHEN a IS NULL THEN 'none' ELSE 'some' END FROM t",
    "SELECT a FROM t WHERE name LIKE '[a-c]%'",  # a character class translates to another operator
    "EXEC dbo.usp_report @since = DATEADD(day, -1, '2024-01-01'), @top = 5 + 1",  # only whole arguments
    "EXEC sp_executesql N'SELECT 1 WHERE a = @a', N'@a int', @a = 5",  # a driver's call: its text is a statement
    "SELECT a FROM t WHERE b = x.y",
])
def test_literals_that_carry_meaning_stay(sql):
    assert parameterize(sql) == (sql, (), ())


def test_simple_parameterization_types():
    _, params, _ = parameterize("SELECT 1 FROM t WHERE a = 'x' AND b = N'y' AND c = 5 AND d = 3000000000 "
                                "AND e = 12.50 AND f = 1e3 AND g = 0xFF")
    assert [p.type for p in params] == ["varchar(8000)", "nvarchar(4000)", "int", "bigint", "numeric(4,2)", "float",
                                        "varbinary(8000)"]


def test_reservoir_is_bounded_uniform_and_reproducible():
    def fill(n: int) -> Reservoir:
        r = Reservoir("q1", limit=1000)
        for i in range(n):
            r.add((i,))
        return r

    r = fill(100_000)
    assert (len(r.items), r.seen) == (1000, 100_000)
    kept = sorted(v for (v,) in r.items)
    quarters = Counter(v * 4 // 100_000 for v in kept)
    assert all(200 < quarters[q] < 300 for q in range(4)), quarters  # every part of the capture, not its start
    assert fill(100_000).items == r.items  # seeded by the class: the same capture keeps the same sets


def test_skew_is_kept_repeats_included():
    r = Reservoir("q2", limit=500)
    rng = random.Random(7)
    for _ in range(50_000):
        r.add(("hot",) if rng.random() < 0.8 else ("cold",))
    share = Counter(v for (v,) in r.items)["hot"] / len(r.items)
    assert 0.74 < share < 0.86


def test_merging_two_files_weighs_each_by_what_it_saw():
    a = tuple(("a",) for _ in range(1000))
    b = tuple(("b",) for _ in range(1000))
    items, seen = merge("q3", a, 90_000, b, 10_000)
    assert seen == 100_000 and len(items) == 1000
    assert 0.85 < Counter(v for (v,) in items)["a"] / 1000 < 0.95
    assert merge("q3", (("x",),), 0, (), 0) == ((("x",),), 1)  # Query Store's distinct values count as seen once


@pytest.mark.parametrize("type_text", ["int", "bigint", "smallint", "char(4)", "nvarchar(50)", "uniqueidentifier",
                                       "datetime2", "decimal(18,0)"])
def test_fresh_keys_never_repeat_within_a_run(type_text):
    make = fresh_maker(type_text, random.Random("fresh:1:q:0"))
    values = [make(serial) for serial in range(20_000)]
    assert len(set(values)) == len(values)
    if type_text == "char(4)":
        assert all(len(v) == 4 and v == v.upper() for v in values)  # equal only when equal, whatever the collation
    other_run = fresh_maker(type_text, random.Random("fresh:2:q:0"))
    assert other_run(0) != values[0]
