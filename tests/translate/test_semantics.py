"""The rewrites compute what SQL Server computes: each T-SQL expression is translated and run on a
real MariaDB, and the value is compared with SQL Server's documented result.

Expected values come from the SQL Server documentation's definitions (DATEDIFF counts boundaries,
LEN ignores trailing spaces, integer division truncates toward zero, ...), not from running the
translation, so a wrong formula fails here even when it parses and runs.
"""

from __future__ import annotations

import datetime
import decimal

import pytest

from sqlsrv2tidb.model import Column, Database, DataType, Identity, IndexColumn, Key, Table
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.translate.emit import split_target_sql
from sqlsrv2tidb.translate.naming import NameMap
from sqlsrv2tidb.translate.queries import translate_sql

pytestmark = pytest.mark.mariadb

DATABASE = Database(tables=(
    Table("dbo", "n", (Column("i", DataType("int")), Column("s", DataType("nvarchar", length=20)),
                       Column("d", DataType("datetime")), Column("g", DataType("varchar", length=5)))),
    # Two small tables for UPDATE/DELETE: each test starts from ORDERS and CUSTOMERS (the `tables` fixture).
    Table("dbo", "o", (Column("id", DataType("int")), Column("cust", DataType("int")),
                       Column("status", DataType("varchar", length=10)), Column("amount", DataType("decimal", precision=10, scale=2))),
          primary_key=Key("PK_o", (IndexColumn("id"),))),
    Table("dbo", "c", (Column("id", DataType("int")), Column("name", DataType("nvarchar", length=20))),
          primary_key=Key("PK_c", (IndexColumn("id"),))),
    Table("dbo", "people", (Column("id", DataType("int"), identity=Identity()), Column("name", DataType("nvarchar", length=20))),
          primary_key=Key("PK_people", (IndexColumn("id"),))),
))
ROWS = [
    (1, "apple", "2024-01-06 10:00:00", "a"),
    (2, "Banana", "2024-01-07 11:00:00", "a"),
    (-3, "cherry", "2024-01-08 12:00:00", "b"),
    (4, None, "2024-01-09 13:00:00", "b"),
]


@pytest.fixture(scope="module")
def db(mariadb):
    name = mariadb.create_database("t_translate_semantics")
    with mariadb.connect(name) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE n (i INT, s VARCHAR(20) COLLATE utf8mb4_general_ci, d DATETIME(3), g VARCHAR(5))")
        cur.executemany("INSERT INTO n VALUES (%s, %s, %s, %s)", ROWS)
    return name


ORDERS = [(1, 1, "new", 10), (2, 2, "new", 20), (3, 3, "new", 30), (4, 1, "new", 40)]
CUSTOMERS = [(1, "Ann"), (2, "Bob"), (3, "Cid")]


@pytest.fixture
def tables(mariadb, db):
    """`o` and `c` as ORDERS and CUSTOMERS hold them, whatever the previous test changed."""
    with mariadb.connect(db) as conn, conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS o, c, people")
        cur.execute("CREATE TABLE o (id INT PRIMARY KEY, cust INT, status VARCHAR(10), amount DECIMAL(10, 2))")
        cur.execute("CREATE TABLE c (id INT PRIMARY KEY, name VARCHAR(20) COLLATE utf8mb4_general_ci)")
        cur.execute("CREATE TABLE people (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20))")
        cur.executemany("INSERT INTO o VALUES (%s, %s, %s, %s)", ORDERS)
        cur.executemany("INSERT INTO c VALUES (%s, %s)", CUSTOMERS)
        cur.executemany("INSERT INTO people (name) VALUES (%s)", [(name,) for _, name in CUSTOMERS])
    return db


def run(mariadb, db, tsql: str) -> list[tuple]:
    result = translate_sql(tsql, database=DATABASE, names=NameMap.for_database(DATABASE), options=Options())
    assert result.target_sql is not None, result.notes
    rows: list[tuple] = []
    with mariadb.connect(db) as conn, conn.cursor() as cur:
        for statement in split_target_sql(result.target_sql):
            cur.execute(statement)
            rows = list(cur.fetchall())
    return rows


def value(mariadb, db, expression: str):
    return run(mariadb, db, f"SELECT {expression}")[0][0]


@pytest.mark.parametrize(("expression", "expected"), [
    ("DATEDIFF(hour, '2024-01-01 10:59', '2024-01-01 11:01')", 1),
    ("DATEDIFF(hour, '2024-01-01 11:01', '2024-01-01 10:59')", -1),
    ("DATEDIFF(minute, '2024-01-01 10:00:59', '2024-01-01 10:01:00')", 1),
    ("DATEDIFF(second, '2024-01-01 10:00:00.900', '2024-01-01 10:00:01.100')", 1),
    ("DATEDIFF(day, '2024-01-01 23:59', '2024-01-02 00:01')", 1),
    ("DATEDIFF(week, '2024-01-06', '2024-01-07')", 1),
    ("DATEDIFF(week, '2024-01-07', '2024-01-13')", 0),
    ("DATEDIFF(week, '1899-12-30', '1899-12-31')", 1),
    ("DATEDIFF(month, '2024-01-31', '2024-02-01')", 1),
    ("DATEDIFF(month, '2024-02-01', '2024-01-31')", -1),
    ("DATEDIFF(quarter, '2024-03-31', '2024-04-01')", 1),
    ("DATEDIFF(year, '2023-12-31 23:59:59', '2024-01-01')", 1),
    ("DATEDIFF(millisecond, '2024-01-01 10:00:00.998', '2024-01-01 10:00:01.001')", 3),
    ("DATEDIFF(dd, 0, '1900-01-03')", 2),
])
def test_datediff_counts_boundaries(mariadb, db, expression, expected):
    assert value(mariadb, db, expression) == expected


@pytest.mark.parametrize(("expression", "expected"), [
    ("DATEPART(week, '2024-01-06')", 1),
    ("DATEPART(week, '2024-01-07')", 2),
    ("DATEPART(week, '2023-01-01')", 1),
    ("DATEPART(week, '2023-01-08')", 2),
    ("DATEPART(week, '2023-12-31')", 53),
    ("DATEPART(weekday, '2024-01-07')", 1),
    ("DATEPART(millisecond, CAST('2024-01-01 10:00:00.123' AS datetime2(3)))", 123),
    ("DATEFROMPARTS(2024, 2, 29)", datetime.date(2024, 2, 29)),
])
def test_datepart_and_date_building(mariadb, db, expression, expected):
    got = value(mariadb, db, expression)
    assert (got.date() if isinstance(got, datetime.datetime) else got) == expected


@pytest.mark.parametrize(("expression", "expected"), [
    ("LEN(N'ab  ')", 2),
    ("LEN(N'  ab')", 4),
    ("7 / 2", 3),
    ("-7 / 2", -3),
    ("7 / 2.0", decimal.Decimal("3.5")),
    ("N'a' + NULL", None),
    ("N'a' + N'b' + N'c'", "abc"),
    ("CHOOSE(2, 'a', 'b', 'c')", "b"),
    ("ROUND(2.567, 1, 1)", decimal.Decimal("2.5")),
    ("STR(1.5, 5, 1)", "  1.5"),
    ("FORMAT(1234.5, 'N2')", "1,234.50"),
    ("ISNUMERIC('12.5')", 1),
    ("ISNUMERIC('abc')", 0),
    ("PATINDEX('%[0-9]%', 'ab3d')", 3),
    ("PATINDEX('%[0-9]%', 'abcd')", 0),
    ("IIF(1 > 2, 'yes', 'no')", "no"),
    ("ISNULL(NULL, 5)", 5),
    ("CONVERT(varchar(10), CAST('2024-03-05 14:07:09' AS datetime), 103)", "05/03/2024"),
    ("CONVERT(varchar(19), CAST('2024-03-05 14:07:09' AS datetime), 120)", "2024-03-05 14:07:09"),
    ("CONVERT(varchar(8), CAST('2024-03-05 14:07:09' AS datetime), 112)", "20240305"),
    ("CONVERT(varchar(23), CAST('2024-03-05 14:07:09.123' AS datetime), 121)", "2024-03-05 14:07:09.123"),
    ("CONVERT(varchar(10), CAST('2024-03-05 14:07:09' AS datetime), 120)", "2024-03-05"),
])
def test_scalar_rewrites(mariadb, db, expression, expected):
    got = value(mariadb, db, expression)
    if isinstance(got, decimal.Decimal) and isinstance(expected, decimal.Decimal):
        assert got == expected
    else:
        assert got == expected


def test_datetime_plus_days_and_day_truncation(mariadb, db):
    rows = run(mariadb, db, "SELECT d + 1, DATEADD(day, DATEDIFF(day, 0, d), 0) FROM dbo.n WHERE i = 1")
    plus, truncated = rows[0]
    assert plus == datetime.datetime(2024, 1, 7, 10, 0)
    assert str(truncated)[:10] == "2024-01-06"


def test_integer_average_truncates_like_sql_server(mariadb, db):
    assert run(mariadb, db, "SELECT AVG(i) FROM dbo.n WHERE i IN (1, 2)")[0][0] == 1
    assert run(mariadb, db, "SELECT AVG(i) FROM dbo.n WHERE i IN (-3, 1)")[0][0] == -1
    by_group = run(mariadb, db, "SELECT g, AVG(i) OVER (PARTITION BY g) FROM dbo.n ORDER BY i")
    assert [r[1] for r in by_group] == [0, 1, 1, 0]


def test_like_character_classes(mariadb, db):
    # `s` is case-insensitive, as under SQL Server's default collation, so 'Banana' matches [a-c] there too.
    assert [r[0] for r in run(mariadb, db, "SELECT i FROM dbo.n WHERE s LIKE '[a-c]%' ORDER BY i")] == [-3, 1, 2]
    assert [r[0] for r in run(mariadb, db, "SELECT i FROM dbo.n WHERE s LIKE '[^a]%' ORDER BY i")] == [-3, 2]
    assert [r[0] for r in run(mariadb, db, "SELECT i FROM dbo.n WHERE s LIKE '_a%' ORDER BY i")] == [2]
    assert value(mariadb, db, "CASE WHEN 'a_b' LIKE '%[_]%' THEN 1 ELSE 0 END") == 1
    assert value(mariadb, db, "CASE WHEN 'ab' LIKE '%[_]%' THEN 1 ELSE 0 END") == 0
    assert value(mariadb, db, "CASE WHEN 'C:\\x' LIKE 'C:\\%' THEN 1 ELSE 0 END") == 1


def test_not_like_keeps_its_negation(mariadb, db):
    # NOT LIKE is the negation of LIKE, and a NULL operand matches neither (a comparison with NULL is unknown).
    # https://learn.microsoft.com/sql/t-sql/language-elements/like-transact-sql
    assert [r[0] for r in run(mariadb, db, "SELECT i FROM dbo.n WHERE s NOT LIKE '[a-b]%' ORDER BY i")] == [-3]
    assert [r[0] for r in run(mariadb, db, "SELECT i FROM dbo.n WHERE s NOT LIKE '[^a]%' ORDER BY i")] == [1]
    assert value(mariadb, db, "CASE WHEN 'a_b' NOT LIKE '%[_]%' THEN 1 ELSE 0 END") == 0
    assert value(mariadb, db, "CASE WHEN 'ab' NOT LIKE '%[_]%' THEN 1 ELSE 0 END") == 1


def test_top_percent_and_with_ties(mariadb, db):
    assert [r[0] for r in run(mariadb, db, "SELECT TOP 50 PERCENT i FROM dbo.n ORDER BY i")] == [-3, 1]
    assert len(run(mariadb, db, "SELECT TOP 40 PERCENT i FROM dbo.n ORDER BY i")) == 2  # 1.6 rows round up
    assert sorted(r[0] for r in run(mariadb, db, "SELECT TOP 1 WITH TIES i, g FROM dbo.n ORDER BY g")) == [1, 2]


def test_apply_top_1_per_row(mariadb, db):
    rows = run(mariadb, db, "SELECT a.g, x.i FROM (SELECT DISTINCT g FROM dbo.n) a CROSS APPLY "
                            "(SELECT TOP 1 i FROM dbo.n b WHERE b.g = a.g ORDER BY i DESC) x ORDER BY a.g")
    assert rows == [("a", 2), ("b", 4)]


def test_pivot_and_unpivot(mariadb, db):
    rows = run(mariadb, db, "SELECT * FROM (SELECT g, i FROM dbo.n) s PIVOT (SUM(i) FOR g IN ([a], [b])) p")
    assert [tuple(int(v) for v in r) for r in rows] == [(3, 1)]
    rows = run(mariadb, db, "SELECT i, k, v FROM (SELECT i, s, g FROM dbo.n WHERE i = 4) t UNPIVOT (v FOR k IN (s, g)) u")
    assert rows == [(4, "g", "b")]  # UNPIVOT skips the NULL s


def test_select_assignment_keeps_the_last_row(mariadb, db):
    assert run(mariadb, db, "DECLARE @x int; SELECT @x = i FROM dbo.n ORDER BY i; SELECT @x")[0][0] == 4
    assert run(mariadb, db, "DECLARE @x int; SELECT @x = i FROM dbo.n ORDER BY i DESC; SELECT @x")[0][0] == -3


def statuses(mariadb, db) -> list[tuple]:
    with mariadb.connect(db) as conn, conn.cursor() as cur:
        cur.execute("SELECT id, status FROM o ORDER BY id")
        return list(cur.fetchall())


def test_update_from_binds_the_target_to_its_from_reference(mariadb, tables):
    # The target names a table that appears once in FROM (aliased): it is that reference, so only the
    # joined rows change, not every row of a cross join.
    # https://learn.microsoft.com/sql/t-sql/queries/update-transact-sql#from-table_source
    run(mariadb, tables, "UPDATE dbo.o SET status = 'x' FROM dbo.o AS a JOIN dbo.c AS k ON k.id = a.cust "
                         "WHERE k.name = N'Bob'")
    assert statuses(mariadb, tables) == [(1, "new"), (2, "x"), (3, "new"), (4, "new")]


def test_delete_from_binds_the_target_to_its_from_reference(mariadb, tables):
    # https://learn.microsoft.com/sql/t-sql/statements/delete-transact-sql#from-table_source
    run(mariadb, tables, "DELETE FROM dbo.o FROM dbo.o AS a JOIN dbo.c AS k ON k.id = a.cust WHERE k.name = N'Ann'")
    assert statuses(mariadb, tables) == [(2, "new"), (3, "new")]


def test_delete_whose_target_is_not_in_from_is_correlated(mariadb, tables):
    run(mariadb, tables, "DELETE dbo.o FROM dbo.c AS k WHERE k.id = o.cust AND k.name = N'Cid'")
    assert statuses(mariadb, tables) == [(1, "new"), (2, "new"), (4, "new")]


@pytest.mark.parametrize(("expression", "expected"), [
    # Converted to an integer, decimal and float values are truncated, money and datetime values rounded.
    # https://learn.microsoft.com/sql/t-sql/functions/cast-and-convert-transact-sql#truncating-and-rounding-results
    ("CAST(10.6496 AS int)", 10),
    ("CAST(-10.6496 AS int)", -10),
    ("CONVERT(bigint, 1.9E0)", 1),
    ("CAST(-1.9E0 AS smallint)", -1),
    ("CAST(CAST(4.5 AS money) AS int)", 5),
    ("CAST(10.6496 AS numeric)", 11),
])
def test_conversions_to_integers(mariadb, db, expression, expected):
    assert value(mariadb, db, expression) == expected


def test_conversion_of_a_computed_float_to_an_integer(mariadb, db):
    # SEDE 72370: cast(100 * AcceptRate as int) with a float rate truncates (0.239 -> 23, not 24).
    assert run(mariadb, db, "WITH r AS (SELECT CAST(239 AS float) / CAST(1000 AS float) AS rate) "
                            "SELECT CAST(100 * rate AS int) FROM r")[0][0] == 23


_DAY_ZERO = datetime.datetime(1900, 1, 1)


def _days(moment: datetime.datetime) -> float:
    """A datetime as SQL Server reads it as a number: days since 1900-01-01, the time as a fraction."""
    return (moment - _DAY_ZERO) / datetime.timedelta(days=1)


@pytest.mark.parametrize(("expression", "expected"), [
    # datetime - datetime is a datetime counted from 1900-01-01; as an int it is a day count, rounded.
    # https://learn.microsoft.com/sql/t-sql/language-elements/subtract-transact-sql
    ("CONVERT(int, CAST('2024-01-03 18:00' AS datetime) - CAST('2024-01-01' AS datetime))", 3),
    ("CONVERT(int, CAST('2024-01-03 11:00' AS datetime) - CAST('2024-01-01' AS datetime))", 2),
    ("CAST(CAST('2024-01-31' AS datetime) - CAST('2024-01-01' AS datetime) AS float)", 30.0),
    ("CAST(CAST('2024-01-06 12:00' AS datetime) AS float)", _days(datetime.datetime(2024, 1, 6, 12))),
    ("CAST(CAST('2024-01-06 12:00' AS datetime) AS int)", 45296),  # day 45295, and noon rounds up
    ("CAST(CAST('2024-01-06 11:59' AS datetime) AS int)", 45295),
    ("CASE WHEN CAST('2024-01-31' AS datetime) - CAST('2024-01-01' AS datetime) < 31 THEN 1 ELSE 0 END", 1),
    ("CASE WHEN CAST('2024-01-31' AS datetime) - CAST('2024-01-01' AS datetime) > 29.5 THEN 1 ELSE 0 END", 1),
])
def test_datetimes_as_day_numbers(mariadb, db, expression, expected):
    got = value(mariadb, db, expression)
    assert got == pytest.approx(expected) if isinstance(expected, float) else got == expected


@pytest.mark.parametrize(("expression", "expected"), [
    # A number converted to a datetime counts days from 1900-01-01 (0 is 1900-01-01).
    # https://learn.microsoft.com/sql/t-sql/data-types/datetime-transact-sql
    ("CAST(2 AS datetime)", datetime.datetime(1900, 1, 3)),
    ("CAST(1.5 AS datetime)", datetime.datetime(1900, 1, 2, 12)),
    ("CAST(FLOOR(CAST(CAST('2024-01-06 10:00' AS datetime) AS float)) AS datetime)", datetime.datetime(2024, 1, 6)),
    ("CAST('2024-01-06 10:00' AS datetime) + CAST('1900-01-02 06:30' AS datetime)", datetime.datetime(2024, 1, 7, 16, 30)),
    ("2 - CAST('1900-01-02' AS datetime)", datetime.datetime(1900, 1, 2)),
    # A time without a date is on 1900-01-01, so adding it adds the time of day.
    # https://learn.microsoft.com/sql/t-sql/data-types/datetime-transact-sql#supported-string-literal-formats-for-datetime
    ("CAST('2024-01-06 10:00' AS datetime) + CAST('6:30' AS datetime)", datetime.datetime(2024, 1, 6, 16, 30)),
    ("CONVERT(datetime, '2:15:07 PM')", datetime.datetime(1900, 1, 1, 14, 15, 7)),
    ("CAST('10:30:00:5' AS datetime2(3))", datetime.datetime(1900, 1, 1, 10, 30, 0, 5000)),  # :5 is 5 ms
])
def test_numbers_as_datetimes(mariadb, db, expression, expected):
    assert value(mariadb, db, expression) == expected


def test_offset_fetch_computed_from_variables(mariadb, db):
    # OFFSET skips (@page - 1) * @size rows of the ordered result, FETCH returns the next @size.
    # https://learn.microsoft.com/sql/t-sql/queries/select-order-by-clause-transact-sql#using-offset-and-fetch-to-limit-the-rows-returned
    rows = run(mariadb, db, "DECLARE @page int = 2, @size int = 2; "
                            "SELECT i FROM dbo.n ORDER BY i OFFSET (@page - 1) * @size ROWS FETCH NEXT @size ROWS ONLY")
    assert [r[0] for r in rows] == [2, 4]


def test_group_by_rollup_adds_the_super_aggregates(mariadb, db):
    # ROLLUP (g) groups by g and then by nothing: one row per g and a grand total with g NULL.
    # https://learn.microsoft.com/sql/t-sql/queries/select-group-by-transact-sql#group-by-rollup
    rows = run(mariadb, db, "SELECT g, SUM(i) FROM dbo.n GROUP BY ROLLUP (g)")
    assert sorted((g or "", int(total)) for g, total in rows) == [("", 4), ("a", 3), ("b", 1)]


def test_dateadd_whole_microseconds_in_nanoseconds(mariadb, db):
    # https://learn.microsoft.com/sql/t-sql/functions/dateadd-transact-sql
    assert value(mariadb, db, "DATEADD(ns, 3000, CAST('2024-01-01' AS datetime2))") == datetime.datetime(2024, 1, 1, 0, 0, 0, 3)


_UPSERT = ("DECLARE @id int = {id}, @name nvarchar(20) = N'{name}'; "
           "MERGE dbo.people AS t USING (SELECT @id AS id, @name AS name) AS s ON t.id = s.id "
           "WHEN MATCHED THEN UPDATE SET name = s.name WHEN NOT MATCHED THEN INSERT (name) VALUES (s.name);")


def people(mariadb, db) -> list[tuple]:
    with mariadb.connect(db) as conn, conn.cursor() as cur:
        cur.execute("SELECT id, name FROM people ORDER BY id")
        return list(cur.fetchall())


def test_merge_on_an_identity_key_updates_the_matched_row(mariadb, tables):
    # A source row that matches ON is updated, one that does not is inserted (the IDENTITY gives its key).
    # https://learn.microsoft.com/sql/t-sql/statements/merge-transact-sql
    run(mariadb, tables, _UPSERT.format(id=2, name="Bobby"))
    assert people(mariadb, tables) == [(1, "Ann"), (2, "Bobby"), (3, "Cid")]
    run(mariadb, tables, _UPSERT.format(id=99, name="Dee"))
    assert people(mariadb, tables) == [(1, "Ann"), (2, "Bobby"), (3, "Cid"), (4, "Dee")]


def test_delete_through_a_cte_deletes_the_base_rows_it_yields(mariadb, tables):
    # Deleting from a CTE over one table deletes the rows of that table the CTE yields: here every
    # customer's orders but the newest (highest id).
    # https://learn.microsoft.com/sql/t-sql/queries/with-common-table-expression-transact-sql
    run(mariadb, tables, "WITH x AS (SELECT id, ROW_NUMBER() OVER (PARTITION BY cust ORDER BY id DESC) AS rn FROM dbo.o) "
                         "DELETE FROM x WHERE rn > 1")
    assert statuses(mariadb, tables) == [(2, "new"), (3, "new"), (4, "new")]


def test_update_through_a_cte_with_top(mariadb, tables):
    run(mariadb, tables, "WITH x AS (SELECT TOP 2 * FROM dbo.o ORDER BY amount DESC) UPDATE x SET status = 'top'")
    assert statuses(mariadb, tables) == [(1, "new"), (2, "new"), (3, "top"), (4, "top")]


@pytest.mark.parametrize(("expression", "expected"), [
    # A start below 1 counts from before the string: SUBSTRING returns start + length - 1 characters
    # (at least 0), CHARINDEX searches from the first character.
    # https://learn.microsoft.com/sql/t-sql/functions/substring-transact-sql
    # https://learn.microsoft.com/sql/t-sql/functions/charindex-transact-sql
    ("SUBSTRING('abcdef', 0, 3)", "ab"),
    ("SUBSTRING('abcdef', -1, 3)", "a"),
    ("SUBSTRING('abcdef', -5, 3)", ""),
    ("SUBSTRING('abcdef', 2, 3)", "bcd"),
    ("CHARINDEX('a', 'banana', 0)", 2),
    ("CHARINDEX('a', 'banana', -5)", 2),
    ("CHARINDEX('a', 'banana', 3)", 4),
])
def test_start_positions_below_one(mariadb, db, expression, expected):
    assert value(mariadb, db, expression) == expected


def test_computed_start_positions(mariadb, db):
    assert run(mariadb, db, "DECLARE @p int = 0; SELECT CHARINDEX('a', 'banana', @p)")[0][0] == 2
    assert run(mariadb, db, "DECLARE @p int = 3; SELECT CHARINDEX('a', 'banana', @p)")[0][0] == 4
    assert run(mariadb, db, "DECLARE @n int = 3; SELECT SUBSTRING('abcdef', 0, @n)")[0][0] == "ab"


def test_order_by_newid_picks_rows_at_random(mariadb, db):
    # NEWID() values are random, so ORDER BY NEWID() shuffles the rows: TOP 1 picks any of them.
    # https://learn.microsoft.com/sql/t-sql/functions/newid-transact-sql
    picked = {run(mariadb, db, "SELECT TOP 1 i FROM dbo.n ORDER BY NEWID()")[0][0] for _ in range(20)}
    assert len(picked) > 1  # 20 draws from 4 rows all alike: chance 4 * (1/4)**20


@pytest.mark.parametrize(("tsql", "expected"), [
    # REPLICATE returns NULL for a negative count.
    # https://learn.microsoft.com/sql/t-sql/functions/replicate-transact-sql
    ("SELECT REPLICATE('a', -1)", None),
    ("SELECT REPLICATE('0', 3 - LEN('abcde')) + 'abcde'", None),
    ("SELECT REPLICATE('0', 7 - LEN('abcde')) + 'abcde'", "00abcde"),
    ("DECLARE @n int = -2; SELECT REPLICATE('x', @n)", None),
    ("DECLARE @n int = 2; SELECT REPLICATE('x', @n)", "xx"),
    # ISNULL returns the type of its first argument, so the replacement is converted to it.
    # https://learn.microsoft.com/sql/t-sql/functions/isnull-transact-sql
    ("SELECT ISNULL(CAST(NULL AS varchar(5)), 'toolong')", "toolo"),
    ("SELECT ISNULL(CAST(NULL AS int), 1.9)", 1),
    ("SELECT ISNULL(CAST(NULL AS int), -2.5)", -2),
    ("SELECT ISNULL(CAST(NULL AS int), CAST(2.5 AS money))", 3),  # money rounds (away from zero)
    ("SELECT ISNULL(CAST(NULL AS int), CAST(-2.5 AS smallmoney))", -3),
])
def test_replicate_and_isnull(mariadb, db, tsql, expected):
    assert run(mariadb, db, tsql)[0][0] == expected


def test_for_xml_type_value_aggregates_unescaped_text(mariadb, db):
    # FOR XML PATH('') concatenates the rows; TYPE and .value('.') return the text itself (an & stays &).
    # https://learn.microsoft.com/sql/relational-databases/xml/use-path-mode-with-for-xml
    got = value(mariadb, db, "STUFF((SELECT ',' + s + '&' FROM dbo.n WHERE s IS NOT NULL ORDER BY i "
                             "FOR XML PATH(''), TYPE).value('.', 'nvarchar(max)'), 1, 1, '')")
    assert got == "cherry&,apple&,Banana&"
