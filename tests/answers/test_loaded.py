"""The generated databases as the SQL Server endpoint holds them (fixtures compare_sede and compare_wwi).

Checked by queries on the endpoint, not only in Python: every table has the rows generated, every
foreign id names a row of its table, the values that are easy to lose (a trailing space, a name in
another script, a datetime's milliseconds, a body past 4,000 characters, a GUID) read back as
generated, and WideWorldImporters holds its reference lists and plausible transactions.
"""

from __future__ import annotations

import pytest
from answers_db import sede_rows
from corpus_rows import create_generated
from rows import generate, main
from sede_references import REFERENCES, dangling_sql
from sede_schema import table_columns
from wideworldimporters import WIDEWORLDIMPORTERS, WWI

from sqlsrv2tidb import api


@pytest.mark.answers
def test_sede_rows_are_all_on_the_endpoint_and_every_foreign_id_resolves(compare_sede):
    rows = sede_rows()
    for table in table_columns():
        assert compare_sede.rows(f"SELECT COUNT(*) FROM dbo.{table}")[0][0] == rows.counts[table], table
    dangling = {f"{t}.{c}": n for t, c, p, pc in REFERENCES if (n := compare_sede.rows(dangling_sql(t, c, p, pc))[0][0])}
    assert not dangling, dangling
    # The check finds ids that name nothing: votes' post ids are mostly no user's id.
    assert compare_sede.rows(dangling_sql("Votes", "PostId", "Users", "Id"))[0][0] > 0


@pytest.mark.answers
def test_sede_values_easy_to_lose_read_back_as_generated(compare_sede):
    rows = sede_rows()
    users = {row[0]: row for row in rows.tables["Users"]}
    trailing = next(u for u in users.values() if u[3] and u[3].endswith(" ") and not u[3].isascii())
    got = compare_sede.rows(f"SELECT DisplayName, CreationDate FROM dbo.Users WHERE Id = {trailing[0]}")[0]
    assert got[0] == trailing[3] and got[1] == trailing[2]  # the space kept; milliseconds on datetime's ticks
    assert compare_sede.rows("SELECT COUNT(*) FROM dbo.Users WHERE DisplayName = N''")[0][0] == \
        sum(1 for u in users.values() if u[3] is not None and u[3].strip() == "")
    long_body = max((r for r in rows.tables["Posts"] if r[8]), key=lambda r: len(r[8]))
    assert len(long_body[8]) > 4000
    assert compare_sede.rows(f"SELECT Body FROM dbo.Posts WHERE Id = {long_body[0]}")[0][0] == long_body[8]
    history = rows.tables["PostHistory"][0]
    assert str(compare_sede.rows(f"SELECT RevisionGUID FROM dbo.PostHistory WHERE Id = {history[0]}")[0][0]).upper() \
        == history[3]


@pytest.mark.answers
def test_wwi_holds_its_reference_lists_and_plausible_transactions(compare_wwi):
    one = lambda sql: compare_wwi.rows(sql)[0][0]  # noqa: E731
    for table, column, value in (("Application.DeliveryMethods", "DeliveryMethodName", "Van with Chiller"),
                                 ("Application.PaymentMethods", "PaymentMethodName", "Credit Card"),
                                 ("Purchasing.Suppliers", "SupplierName", "A Datum Corporation"),
                                 ("Warehouse.PackageTypes", "PackageTypeName", "Carton"),
                                 ("Warehouse.StockGroups", "StockGroupName", "USB Novelties"),
                                 ("Sales.BuyingGroups", "BuyingGroupName", "Wingtip Toys")):
        assert one(f"SELECT COUNT(*) FROM {table} WHERE {column} = N'{value}'") == 1, value
    assert one("SELECT COUNT(*) FROM Application.People WHERE IsEmployee <> 0") > 5
    customers = dict(compare_wwi.rows("SELECT IsOnCreditHold, COUNT(*) FROM Sales.Customers GROUP BY IsOnCreditHold"))
    assert 0 < customers[True] < customers[False] / 10
    methods = dict(compare_wwi.rows("SELECT DeliveryMethodID, COUNT(*) FROM Sales.Customers GROUP BY DeliveryMethodID"))
    assert max(methods, key=methods.get) == 3 and len(methods) > 1
    low, high, days = compare_wwi.rows("SELECT MIN(OrderDate), MAX(OrderDate), COUNT(DISTINCT OrderDate) "
                                       "FROM Sales.Orders")[0]
    assert low.year == high.year == 2020 and days > 100
    assert one("SELECT COUNT(*) FROM Sales.Orders WHERE BackorderOrderID IS NULL") > \
        one("SELECT COUNT(*) FROM Sales.Orders") / 2
    assert one("SELECT COUNT(*) FROM Sales.Customers WHERE ValidTo <> '9999-12-31 23:59:59.999999'") == 0
    assert one("SELECT COUNT(*) FROM Sales.OrderLines WHERE Quantity NOT BETWEEN 1 AND 120") == 0


@pytest.mark.answers
def test_wwi_keeps_every_key_and_foreign_key_of_the_tables_it_creates(compare_wwi):
    database = api.read([compare_wwi.capture]).database
    corpus = api.read([WWI]).database
    assert len(database.tables) == len(corpus.tables) == 54
    wanted = sum(len(t.foreign_keys) for t in corpus.tables)
    assert sum(len(t.foreign_keys) for t in database.tables) == wanted > 90  # each checked as it was added
    assert {t.name.casefold() for t in database.tables if t.primary_key} == \
        {t.name.casefold() for t in corpus.tables if t.primary_key}
    assert one_row_count(compare_wwi, "Sales.OrderLines") == 4000


@pytest.mark.answers
def test_wwi_computed_columns_are_there_where_the_endpoint_takes_them(compare_wwi):
    """SQL Server takes all eight; Babelfish refuses those using concat() or TRY_CONVERT() ("generation expression
    is not immutable", docs/babelfish.md), which the loader leaves to the target. (Its capture then reads the
    five it took as plain columns, IN22, as docs/babelfish.md says, so `data copy` copies their values.)"""
    computed = {f"{t}.{c}".casefold() for t, c in
                compare_wwi.rows("SELECT OBJECT_NAME(object_id), name FROM sys.columns WHERE is_computed = 1")}
    every = {"people.searchname", "people.otherlanguages", "suppliertransactions.isfinalized",
             "customertransactions.isfinalized", "invoices.confirmeddeliverytime", "invoices.confirmedreceivedby",
             "stockitems.tags", "stockitems.searchdetails"}
    refused = {"people.searchname", "invoices.confirmeddeliverytime", "stockitems.searchdetails"}
    assert computed == (every - refused if compare_wwi.mssql.babelfish else every)


@pytest.mark.answers
def test_nvarchar_datalength_counts_two_bytes_a_character_on_sql_server(compare_sede):
    """DATALENGTH of nvarchar is its UTF-16 bytes on SQL Server (6 for N'abc', 2 for N'李'); Babelfish gives the
    UTF-8 bytes (3 and 3), a departure docs/babelfish.md names: two corpus queries use DATALENGTH."""
    got = tuple(compare_sede.rows("SELECT DATALENGTH(N'abc'), DATALENGTH(N'李')")[0])
    assert got == ((3, 3) if compare_sede.mssql.babelfish else (6, 2))


@pytest.mark.answers
def test_a_string_sql_server_cannot_read_as_a_date_fails_there(compare_sede):
    """SQL Server refuses `CreationDate > 'yesterday'` (Msg 241, "Conversion failed when converting date and/or time
    from character string"); Babelfish reads PostgreSQL's special date input, yesterday's midnight, and answers.
    MySQL refuses it as SQL Server does (error 1525), where TiDB and MariaDB compare with a warning: the answers
    run names that error of MySQL's for what it is (docs/babelfish.md)."""
    import pyodbc
    import pytest

    sql = "SELECT COUNT(*) FROM dbo.Users WHERE CreationDate > 'yesterday'"
    if compare_sede.mssql.babelfish:
        assert compare_sede.rows(sql)[0][0] >= 0
    else:
        with pytest.raises(pyodbc.Error, match="241|Conversion failed"):
            compare_sede.rows(sql)


def one_row_count(source, table: str) -> int:
    return source.rows(f"SELECT COUNT_BIG(*) FROM {table}")[0][0]


def test_the_command_line_loads_a_new_database_and_refuses_an_existing_one(mssql, capsys):
    name = "t_answers_sede_command_line"
    mssql.create_database(name)
    conn = mssql.connect()
    try:
        conn.cursor().execute(f"DROP DATABASE [{name}]")
    finally:
        conn.close()
    args = ["--connection", mssql.connection_string(), "--database", name, "--scale", "0.05", "--seed", "2"]
    assert main(args) == 0
    expected = generate(0.05, seed=2)
    said = capsys.readouterr()
    assert f"digest {expected.digest()[:16]}" in said.out and f"{sum(expected.counts.values()):,} rows" in said.out
    conn = mssql.connect(name)
    try:
        for table, count in expected.counts.items():
            assert conn.cursor().execute(f"SELECT COUNT(*) FROM dbo.{table}").fetchone()[0] == count, table
    finally:
        conn.close()
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err == f"Error: database {name} already exists; name a new one\n"


@pytest.mark.answers
def test_wwi_loads_the_same_rows_every_time(compare_wwi, mssql):
    again = create_generated(mssql, WIDEWORLDIMPORTERS, "t_answers_wwi_again")
    tables = compare_wwi.rows("SELECT s.name, t.name FROM sys.tables t JOIN sys.schemas s ON s.schema_id = t.schema_id")
    assert len(tables) == 54 and sum(again.rows.values()) > 20_000
    first, second = mssql.connect(compare_wwi.name), mssql.connect(again.database)
    try:
        for schema, table in tables:
            width = len(first.cursor().execute(f"SELECT TOP 1 * FROM {schema}.{table}").description)
            sql = f"SELECT * FROM {schema}.{table} ORDER BY {', '.join(str(n + 1) for n in range(width))}"
            rows = [tuple(r) for r in first.cursor().execute(sql).fetchall()]
            assert rows == [tuple(r) for r in second.cursor().execute(sql).fetchall()], f"{schema}.{table}"
    finally:
        first.close()
        second.close()


def test_the_catalog_lists_a_sequence_where_sql_server_does(mssql, tmp_path):
    """SQL Server's sys.sequences lists every sequence of the database; Babelfish's lists none, so a live capture
    of the endpoint has no sequence to create on the target, and a query drawing from one fails there (the
    answers run names such an error, docs/babelfish.md). On a real SQL Server the capture holds it."""
    from data_helpers import captured

    database = mssql.create_database("t_answers_sequence")
    conn = mssql.connect(database)
    try:
        conn.cursor().execute("CREATE SEQUENCE dbo.ticket_numbers AS bigint START WITH 1 INCREMENT BY 1")
        listed = conn.cursor().execute("SELECT COUNT(*) FROM sys.sequences").fetchone()[0]
    finally:
        conn.close()
    capture = api.read([captured(mssql, database, tmp_path / "capture").capture])
    held = [s.name for s in capture.database.sequences]
    if mssql.babelfish:
        assert listed == 0 and held == []
    else:
        assert listed == 1 and [n.casefold() for n in held] == ["ticket_numbers"]
