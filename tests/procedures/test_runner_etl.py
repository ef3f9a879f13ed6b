"""An unseen ETL schema's procedures through the procedure runner on TiDB (etl_schema.sql, written for these tests,
not taken from a corpus): staging tables loaded from JSON with OUTPUT, dimensions and facts moved with MERGE on
columns that are no key (a slowly changing dimension), lineage and cut-off times passed back in OUTPUT parameters,
a date dimension filled in a loop, sequences reseeded through dynamic SQL, an INSERT with a table hint, FOR JSON,
HASHBYTES and JSON_MODIFY, a scalar function, and three configuration procedures classed as administration.

Every procedure runs; every call SQL Server would complete completes on TiDB with the rows SQL Server would leave;
the reading procedures answer as EXEC does on the SQL Server endpoint (OUTPUT parameters and return status too).
https://learn.microsoft.com/sql/t-sql/statements/merge-transact-sql,
https://learn.microsoft.com/sql/t-sql/queries/output-clause-transact-sql,
https://learn.microsoft.com/sql/t-sql/functions/openjson-transact-sql.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from procedure_helpers import OnTarget, errors, read_script, sets

from sqlsrv2tidb.model import Parameter
from sqlsrv2tidb.procedures.compiler import compile_batch
from sqlsrv2tidb.procedures.workload import with_outputs

SCRIPT = (Path(__file__).resolve().parent / "etl_schema.sql").read_text(encoding="utf-8")
END = "9999-12-31 23:59:59.9999999"
ROWS = [
    "INSERT INTO Etl.Cutoff (TableName, CutoffTime) VALUES (N'City', '2024-01-01'), (N'Customer', '2024-01-01'), "
    "(N'Sale', '2024-01-01'), (N'Movement', '2024-01-01')",
    "INSERT INTO Etl.Customer_Staging (SourceCustomerID, Customer, Category, ValidFrom, ValidTo) VALUES "
    f"(1, N'Tailspin', N'Novelty', '2024-02-01', '{END}'), (2, N'Wingtip', N'Gift', '2024-02-01', '{END}')",
    "INSERT INTO Etl.Sale_Staging (SourceCityID, SourceCustomerID, InvoiceDate, SourceInvoiceID, Description, Quantity, "
    "UnitPrice, LastModified) VALUES (10, 1, '2024-02-03', 100, N'Mug', 2, 4.50, '2024-02-03 10:00'), "
    "(10, 1, '2024-02-03', 100, N'Kite', 1, 12.00, '2024-02-03 10:05'), "
    "(20, 2, '2024-02-04', 101, N'Car', 3, 7.25, '2024-02-04 09:00')",
    "INSERT INTO Etl.Movement_Staging (DateKey, SourceTransactionID, Quantity) VALUES ('2024-02-03', 500, 5), "
    "('2024-02-04', 501, -2)",
]
# What a first load left, for the reading procedures on both servers.
LOADED = [
    "INSERT INTO Dim.City (CityKey, SourceCityID, City, Region, ValidFrom, ValidTo, LineageKey) VALUES "
    f"(1, 10, N'Bow', N'East', '2023-01-01', '{END}', 1), (2, 20, N'Kent', N'West', '2023-01-01', '{END}', 1)",
    "INSERT INTO Dim.Customer (CustomerKey, SourceCustomerID, Customer, Category, ValidFrom, ValidTo, LineageKey) VALUES "
    f"(1, 1, N'Tailspin', N'Novelty', '2023-01-01', '{END}', 1), (2, 2, N'Wingtip', N'Toys', '2023-01-01', '{END}', 1)",
    "INSERT INTO Fct.Sale (CityKey, CustomerKey, InvoiceDateKey, SourceInvoiceID, Description, Quantity, UnitPrice, "
    "TotalExcludingTax, LineageKey) VALUES (1, 1, '2023-05-01', 1, N'Mug', 2, 4.50, 9.00, 1), "
    "(2, 2, '2023-05-02', 2, N'Car', 1, 7.25, 7.25, 1), (1, 2, '2023-06-01', 3, N'Kite', 4, 12.00, 48.00, 1)",
]
ADMINISTRATION = {"Config.EnableInMemory": "in-memory tables", "Config.ApplyPartitioning": "partitioning",
                  "Config.CreateRoleIfMissing": "roles and permissions"}


def _for_tidb(row: str) -> str:
    # The tool's DDL names each table without its schema (they are unique here); TiDB's datetime(6) keeps six digits.
    return re.sub(r"\b(?:Etl|Dim|Fct)\.(\w+)", r"`\1`", row).replace("N'", "'").replace(END, END[:-1])


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    return read_script(SCRIPT, tmp_path_factory.mktemp("etl"), "etl_schema.sql")


def _on_tidb(tidb, capture, rows: list[str]) -> OnTarget:
    database = tidb.create_database("t_runner_etl")
    here = OnTarget(tidb, database, capture)
    conn = tidb.connect(database)
    with conn.cursor() as cur:
        for row in rows:
            cur.execute(_for_tidb(row))
    conn.close()
    return here


@pytest.fixture
def etl(tidb, capture):
    """The schema with staged rows on TiDB, made afresh for each test (the procedures write)."""
    here = _on_tidb(tidb, capture, ROWS)
    yield here
    here.close()


@pytest.fixture
def loaded(tidb, capture):
    here = _on_tidb(tidb, capture, ROWS + LOADED)
    yield here
    here.close()


@pytest.fixture(scope="module")
def endpoint(mssql):
    """The schema and the loaded rows on the SQL Server endpoint; what Babelfish refuses is left out (below)."""
    database = mssql.create_database("t_runner_etl")
    conn = mssql.connect(database)
    refused = {}
    cursor = conn.cursor()
    for batch in re.split(r"(?im)^\s*GO\s*$", SCRIPT):
        if "CREATE" not in batch:
            continue
        # Babelfish refuses WITH EXECUTE AS OWNER (docs/babelfish.md); the procedure means the same to this login.
        batch = re.sub(r"\bWITH\s+EXECUTE\s+AS\s+OWNER\s*(?=\bAS\b)", "", batch, flags=re.IGNORECASE)
        try:
            cursor.execute(batch)
        except Exception as exc:  # noqa: BLE001 - the endpoint's refusals are checked below
            refused[re.search(r"CREATE\s+\w+\s+([\w.]+)", batch[batch.upper().index("CREATE"):], re.IGNORECASE)[1]] = str(exc)
    for row in ROWS + LOADED:
        cursor.execute(row)
    conn.close()
    # Babelfish 4.3 has no MERGE (docs/babelfish.md).
    assert set(refused) <= {"Etl.MoveCustomers", "Etl.MoveMovements"}, refused
    return mssql, database


def _exec(endpoint, tsql: str, values: tuple = ()) -> list[list[tuple[Any, ...]]]:
    mssql, database = endpoint
    conn = mssql.connect(database, autocommit=False)
    try:
        cursor = conn.cursor()
        cursor.execute(tsql, values) if values else cursor.execute(tsql)
        found = []
        while True:
            if cursor.description:
                found.append([tuple(r) for r in cursor.fetchall()])
            if not cursor.nextset():
                break
        return found
    finally:
        conn.rollback()
        conn.close()


def _checked(here: OnTarget, call: str, parameters: tuple[Parameter, ...], values: tuple):
    """A captured call with its return status and OUTPUT parameters selected after it, as compare runs it."""
    checked = with_outputs(call)
    assert checked is not None
    program = compile_batch(checked, parameters, here.procedures.database, here.procedures.names,
                            here.procedures.options, wrapper=True)
    assert not program.blockers, program.blockers
    result = here.runner.call(program, [(p.name, v) for p, v in zip(parameters, values, strict=True)], enclosing=True)
    here.session.execute("ROLLBACK", ())
    return checked, result


def test_every_procedure_of_the_unseen_schema_runs_and_administration_is_classed_apart(capture):
    from sqlsrv2tidb.procedures.catalog import Procedures

    procedures = Procedures(capture.database)
    summaries = {s.name: s for s in procedures.summaries()}
    assert len(summaries) == 21
    stopped = {name: [b.message for b in s.blockers] for name, s in summaries.items() if not s.runs}
    assert not stopped, stopped
    classed = {name: s.administration.kind for name, s in summaries.items() if s.administration is not None}
    assert classed == ADMINISTRATION
    assert not summaries["Etl.MoveSales"].reads_only and summaries["Etl.SalesByRegion"].reads_only


def test_the_whole_load_runs_and_leaves_the_rows_sql_server_would(etl):
    cities = json.dumps([{"id": 10, "name": "Bow", "region": "East", "from": "2024-01-15T00:00:00"},
                         {"id": 20, "name": "Kent", "region": "West", "from": "2024-01-20T00:00:00"}])
    staged = etl.call("Etl.StageCities", cities)
    assert staged.ok, errors(staged)
    assert sets(staged) == [[(1,), (2,)]]  # OUTPUT inserted.StagingKey
    result = etl.call("Etl.RunAll", 2024)
    assert result.ok, errors(result)
    assert result.return_status == 0
    assert etl.rows("SELECT COUNT(*), MIN(`Date`), MAX(`Date`) FROM `Date`") == [(366, date(2024, 1, 1), date(2024, 12, 31))]
    assert etl.rows("SELECT DayNumber, `Day`, `Month`, ShortMonth, CalendarMonthNumber, CalendarYear, ISOWeekNumber "
                    "FROM `Date` WHERE `Date` = '2024-02-29'") == [(29, "Thursday", "February", "Feb", 2, 2024, 9)]
    assert etl.rows("SELECT DATE_FORMAT(`Date`, '%m-%d'), ISOWeekNumber FROM `Date` WHERE `Date` IN ('2024-01-01', "
                    "'2024-12-30', '2024-12-31') ORDER BY `Date`") == [("01-01", 1), ("12-30", 1), ("12-31", 1)]
    lineage = etl.rows("SELECT LineageKey, TableName, WasSuccessful, DataLoadCompleted IS NOT NULL FROM Lineage "
                       "ORDER BY LineageKey")
    assert lineage == [(1, "City", 1, 1), (2, "Customer", 1, 1), (3, "Sale", 1, 1), (4, "Movement", 1, 1)]
    assert etl.rows("SELECT SourceCityID, City, Region, LineageKey FROM City ORDER BY CityKey") == [
        (10, "Bow", "East", 1), (20, "Kent", "West", 1)]
    assert etl.rows("SELECT CustomerKey, SourceCustomerID, Category, LineageKey FROM Customer ORDER BY CustomerKey") == [
        (1, 1, "Novelty", 2), (2, 2, "Gift", 2)]
    # Sales looked up the city valid when each line changed, and the customer; the hinted INSERT computed the totals.
    assert etl.rows("SELECT SourceInvoiceID, CityKey, CustomerKey, Description, TotalExcludingTax, LineageKey FROM Sale "
                    "ORDER BY SaleKey") == [(100, 1, 1, "Mug", Decimal("9.00"), 3), (100, 1, 1, "Kite", Decimal("12.00"), 3),
                                            (101, 2, 2, "Car", Decimal("21.75"), 3)]
    assert etl.rows("SELECT SourceTransactionID, Quantity, LineageKey FROM Movement ORDER BY MovementKey") == [
        (500, 5, 4), (501, -2, 4)]
    cutoffs = dict(etl.rows("SELECT TableName, CutoffTime FROM Cutoff"))
    assert cutoffs["Movement"] == datetime(2030, 1, 1) and cutoffs["Sale"] == datetime(9999, 12, 31, 23, 59, 59, 999999)
    # Seq.ReseedAll restarted each sequence beyond its table's largest key (through dynamic SQL).
    assert etl.rows("SELECT NEXTVAL(CityKey), NEXTVAL(CustomerKey), NEXTVAL(LineageKey)") == [(3, 3, 5)]
    # Running the movements again updates the rows MERGE matches on SourceTransactionID (no key) and inserts none.
    etl.call("Etl.ClearStaging", "Movement")
    assert etl.rows("SELECT COUNT(*) FROM Movement_Staging") == [(0,)]


def test_a_slowly_changing_dimension_merge_closes_the_row_it_matched_and_inserts_only_unmatched_rows(loaded):
    # Customer 2 changed category (Toys -> Gift); customer 3 is new. MERGE matches on SourceCustomerID and the open
    # row's ValidTo, which its UPDATE changes: the changed customer's row is closed and, as on SQL Server, no new
    # version is inserted for it (its source row was matched), while the new customer is.
    loaded.session.execute(_for_tidb("INSERT INTO Etl.Customer_Staging (SourceCustomerID, Customer, Category, ValidFrom, "
                                      f"ValidTo) VALUES (3, 'Contoso', 'Gift', '2024-02-01', '{END}')"), ())
    assert sets(loaded.call("Etl.ChangedCustomers")) == [[(2, "Wingtip")]]
    loaded.session.execute("ALTER SEQUENCE CustomerKey RESTART WITH 10", ())
    result = loaded.call("Etl.MoveCustomers")
    assert result.ok, errors(result)
    assert loaded.rows("SELECT CustomerKey, SourceCustomerID, Category, ValidTo FROM Customer ORDER BY CustomerKey") == [
        (1, 1, "Novelty", datetime(9999, 12, 31, 23, 59, 59, 999999)), (2, 2, "Toys", datetime(2024, 2, 1)),
        (10, 3, "Gift", datetime(9999, 12, 31, 23, 59, 59, 999999))]
    # A second call sees customer 2 unmatched now (its open row is closed) and inserts it: SQL Server's answer too.
    assert loaded.call("Etl.MoveCustomers").ok
    assert loaded.rows("SELECT SourceCustomerID, Category FROM Customer WHERE ValidTo > '9000-01-01' "
                       "ORDER BY SourceCustomerID") == [(1, "Novelty"), (2, "Gift"), (3, "Gift")]


def test_calls_that_complete_on_sql_server_complete_and_the_one_that_throws_throws(etl):
    missing = etl.call("Etl.GetCutoff", "Nothing")
    assert [e.number for e in missing.errors] == [51000] and missing.messages == ["Invalid ETL table name"]
    assert sets(etl.call("Etl.GetCutoff", "Sale")) == [[(datetime(2024, 1, 1),)]]
    lineage = etl.call("Etl.NewLineage", "Sale", datetime(2024, 3, 1), None)
    assert lineage.ok and lineage.output == {"@LineageKey": 1} and lineage.return_status == 0
    assert etl.call("Etl.FinishLineage", "Sale", 1).ok
    assert etl.rows("SELECT CutoffTime FROM Cutoff WHERE TableName = 'Sale'") == [(datetime(2024, 3, 1),)]
    for name, arguments, messages in (("Config.EnableInMemory", (), ["Warning: In-memory tables cannot be created on "
                                                                     "this edition."]),
                                      ("Config.ApplyPartitioning", (), ["Partitioning is applied on Enterprise edition "
                                                                        "only."]),
                                      ("Config.CreateRoleIfMissing", ("Readers",), ["CREATE ROLE [Readers];"])):
        result = etl.call(name, *arguments)
        assert result.ok and result.messages == messages, (name, errors(result), result.messages)
    for table in ("Sale", "Customer"):
        assert etl.call("Etl.ClearStaging", table).ok
    assert etl.rows("SELECT (SELECT COUNT(*) FROM Sale_Staging) + (SELECT COUNT(*) FROM Customer_Staging)") == [(0,)]


def test_the_reading_procedures_answer_as_exec_on_the_endpoint(loaded, endpoint):
    for call, arguments in (("Etl.SalesByRegion @From = ?, @To = ?", (date(2023, 1, 1), date(2023, 12, 31))),
                            ("Etl.GetCutoff @TableName = ?", ("Customer",)),
                            ("Etl.GetSaleUpdates @LastCutoff = ?, @NewCutoff = ?",
                             (datetime(2024, 1, 1), datetime(2024, 2, 3, 23, 0))),
                            ("Etl.ChangedCustomers", ())):
        mine = sets(loaded.call(call.split()[0], *arguments))
        assert mine and mine == _exec(endpoint, f"EXEC {call}", arguments), call
    assert sets(loaded.call("Etl.SalesByRegion", date(2023, 1, 1), date(2023, 12, 31))) == [
        [("East", Decimal("57.00"), 2), ("West", Decimal("7.25"), 1)]]
    (text,) = sets(loaded.call("Etl.LoadSummary"))
    (theirs,) = _exec(endpoint, "EXEC Etl.LoadSummary")
    # The same JSON; the endpoint spaces it its own way (docs/babelfish.md).
    assert json.loads("".join(r[0] for r in text)) == json.loads("".join(r[0] for r in theirs))
    # OUTPUT parameters and the return status, as compare checks every call.
    call = "DECLARE @log nvarchar(4000) = @1; EXEC Etl.LogLoad @TableName = @2, @Rows = @3, @Log = @log OUTPUT"
    parameters = (Parameter("@1", "nvarchar(4000)"), Parameter("@2", "sysname"), Parameter("@3", "int"))
    for log in (None, '{"loads":[{"table":"City","rows":2}]}', "not json"):
        values = (log, "Sale", 3)
        checked, mine = _checked(loaded, call, parameters, values)
        assert mine.ok, errors(mine)
        theirs = _exec(endpoint, re.sub(r"@[123]\b", "?", checked), values)
        # The log is compared as JSON (the endpoint spaces JSON_MODIFY's text its own way, docs/babelfish.md).
        assert _as_json(sets(mine)) == _as_json(theirs), log
        assert sets(mine)[-1][0][0] == 0  # the return status
    # STRING_ESCAPE and JSON_VALUE: the name is escaped into the document and read back as written, SQL Server's
    # answer (the endpoint's JSON_VALUE returns the escaped text, docs/babelfish.md).
    _, escaped = _checked(loaded, call, parameters, (None, 'Sale\t"x"', 3))
    assert _as_json(sets(escaped)) == [[('Sale\t"x"',)], [(0, {"loads": [{"table": 'Sale\t"x"', "rows": 3}]})]]


def _as_json(found: list[list[tuple[Any, ...]]]) -> list[list[tuple[Any, ...]]]:
    return [[(row[0], json.loads(row[1])) if len(row) == 2 else row for row in rows] for rows in found]

