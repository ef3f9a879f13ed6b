"""STRING_SPLIT on the targets: of a parameter in FROM, of each row's column under CROSS and OUTER APPLY.

Each query runs as T-SQL on the SQL Server endpoint and translated on TiDB and MySQL, and the rows must be the
same. SQL Server's documented answers stand where Babelfish departs (docs/babelfish.md): an empty string is one
empty piece (Babelfish: no row), and enable_ordinal numbers the pieces (Babelfish: refused).
https://learn.microsoft.com/sql/t-sql/functions/string-split-transact-sql
"""

from __future__ import annotations

import pytest

from sqlsrv2tidb.model import Column, Database, DataType, IndexColumn, Key, Parameter, Table
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.replay.sqltext import to_format_style
from sqlsrv2tidb.translate.naming import NameMap
from sqlsrv2tidb.translate.queries import translate_sql

DATABASE = Database(tables=(
    Table("dbo", "orders", (Column("id", DataType("int"), False), Column("tags", DataType("nvarchar", length=200))),
          primary_key=Key("PK_orders", (IndexColumn("id"),))),
))
ROWS = [(1, "red,blue"), (2, None), (3, ""), (4, "a,,b,"), (5, "solo")]
PARAMETER = (Parameter("@list", "nvarchar(100)"),)

CASES = [
    # (T-SQL, the parameter's value, SQL Server's documented rows where the endpoint departs)
    ("SELECT value FROM STRING_SPLIT(@list, ',') ORDER BY value", "3,1,,2", None),
    ("SELECT id FROM dbo.orders WHERE CAST(id AS nvarchar(10)) IN (SELECT value FROM STRING_SPLIT(@list, ',')) ORDER BY id",
     "4,1,9", None),
    ("SELECT COUNT(*) FROM STRING_SPLIT(@list, ',')", None, None),
    ("SELECT COUNT(*) FROM STRING_SPLIT(@list, ',')", "", [(1,)]),
    ("SELECT o.id, s.value FROM dbo.orders AS o CROSS APPLY STRING_SPLIT(o.tags, ',') AS s WHERE o.id <> 3 "
     "ORDER BY o.id, s.value", None, None),
    ("SELECT o.id, s.value FROM dbo.orders AS o OUTER APPLY STRING_SPLIT(o.tags, ',') AS s WHERE o.id <> 3 "
     "ORDER BY o.id, s.value", None, None),
    ("SELECT o.id, COUNT(*) FROM dbo.orders AS o CROSS APPLY STRING_SPLIT(o.tags, ',') GROUP BY o.id ORDER BY o.id", None,
     [(1, 2), (3, 1), (4, 4), (5, 1)]),
    ("SELECT o.id, s.value, s.ordinal FROM dbo.orders AS o CROSS APPLY STRING_SPLIT(o.tags, ',', 1) AS s "
     "WHERE o.id IN (1, 4) ORDER BY o.id, s.ordinal", None,
     [(1, "red", 1), (1, "blue", 2), (4, "a", 1), (4, "", 2), (4, "b", 3), (4, "", 4)]),
]


@pytest.fixture(scope="module")
def endpoint(mssql):
    database = mssql.create_database("t_string_split")
    conn = mssql.connect(database)
    cursor = conn.cursor()
    cursor.execute("CREATE TABLE dbo.orders (id int NOT NULL PRIMARY KEY, tags nvarchar(200) NULL)")
    cursor.executemany("INSERT INTO dbo.orders VALUES (?, ?)", ROWS)
    yield conn
    conn.close()


@pytest.fixture(scope="module", params=["tidb", "mysql"])
def target(request):
    server = request.getfixturevalue(request.param)
    conn = server.connect(server.create_database("t_string_split"))
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE orders (id INT NOT NULL PRIMARY KEY, tags VARCHAR(200))")
        cur.executemany("INSERT INTO orders VALUES (%s, %s)", ROWS)
    conn.commit()
    yield request.param, conn
    conn.close()


def _on_endpoint(conn, tsql: str, value) -> list[tuple] | None:
    cursor = conn.cursor()
    try:
        cursor.execute(f"DECLARE @list nvarchar(100) = ?; {tsql}", value)
    except Exception:  # noqa: BLE001 - a refusal is checked against the documented rows
        return None
    return [tuple(r) for r in cursor.fetchall()]


@pytest.mark.parametrize("tsql, value, documented", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_string_split_answers_as_sql_server(endpoint, target, tsql, value, documented):
    engine, conn = target
    result = translate_sql(tsql, database=DATABASE, names=NameMap.for_database(DATABASE),
                           options=Options(target_engine=engine), parameters=PARAMETER)
    assert result.status == "rewritten" and "QY81" in {n.code for n in result.notes}, result.notes
    with conn.cursor() as cur:
        cur.execute(to_format_style(result.target_sql)[0], [value] * len(result.parameters))
        here = [tuple(r) for r in cur.fetchall()]
    there = _on_endpoint(endpoint, tsql, value)
    if documented is not None:
        assert there != documented, "Babelfish answers as SQL Server documents now: drop the pinned rows"
        there = documented
    assert here == there, (result.target_sql, here, there)


def test_a_split_under_apply_says_it_stops_at_1000_pieces_and_an_enable_ordinal_of_2_is_unsupported():
    names, options = NameMap.for_database(DATABASE), Options()
    applied = translate_sql("SELECT o.id, value FROM dbo.orders o CROSS APPLY STRING_SPLIT(o.tags, ',')",
                            database=DATABASE, names=names, options=options)
    assert any(n.code == "QY81" and "1000" in n.message for n in applied.notes)
    wrong = translate_sql("SELECT value FROM STRING_SPLIT(@list, ',', 2)", database=DATABASE, names=names,
                          options=options, parameters=PARAMETER)
    assert wrong.status == "unsupported" and any(n.code == "QY81" for n in wrong.notes)
