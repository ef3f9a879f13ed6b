"""The rest of an application's logic through the procedure runner on TiDB (application_schema.sql, written for these
tests): JSON, FOR JSON, OUTPUT, temporal tables, user-defined functions, table-valued parameters, dynamic SQL,
hashing and server properties, the catalog, MERGE on columns that are no key, a natively compiled procedure, an
administration procedure. Each answer is SQL Server's documented one; the reading procedures the SQL Server endpoint
can create are also called there with EXEC and give the same answers, OUTPUT parameters and return status included.

https://learn.microsoft.com/sql/t-sql/functions/openjson-transact-sql,
https://learn.microsoft.com/sql/t-sql/queries/output-clause-transact-sql,
https://learn.microsoft.com/sql/relational-databases/tables/querying-data-in-a-system-versioned-temporal-table,
https://learn.microsoft.com/sql/relational-databases/user-defined-functions/scalar-udf-inlining,
https://learn.microsoft.com/sql/relational-databases/tables/use-table-valued-parameters-database-engine,
https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-executesql-transact-sql,
https://learn.microsoft.com/sql/t-sql/functions/hashbytes-transact-sql,
https://learn.microsoft.com/sql/t-sql/statements/merge-transact-sql.
"""

from __future__ import annotations

import hashlib
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

SCRIPT = (Path(__file__).resolve().parent / "application_schema.sql").read_text(encoding="utf-8")
ROWS = [
    "INSERT INTO shop.Items (ItemID, Name, Price, GroupID, Attributes, AddedBy) VALUES "
    "(1, N'Kite', 10.00, 1, N'{\"color\":\"red\",\"tags\":[\"sky\"]}', 1), "
    "(2, N'Yo-yo', 20.00, 2, N'{\"color\":\"blue\"}', 1), (3, N'Ball', 30.00, NULL, N'[1,2]', 1), "
    "(4, N'Top', 5.50, 1, NULL, 1)",
    "INSERT INTO shop.Deals (DealID, ItemID, GroupID, Discount, StartsOn, EndsOn) VALUES "
    "(1, NULL, 1, 10.000, '2024-01-01', '2024-12-31'), (2, 3, NULL, 25.000, '2024-06-01', '2024-06-30')",
    "INSERT INTO shop.Lines (OrderID, ItemID, Qty, Note) VALUES (5, 1, 2, N'a'), (5, 2, 3, NULL), (6, 4, 1, N'b')",
    "INSERT INTO shop.Stock (Code, Bin, Qty) VALUES (N'a', N'1', 5), (N'b', N'1', 6), (N'z', N'9', 1)",
    "INSERT INTO shop.Counted (Code, Bin, Qty) VALUES (N'a', N'1', 7), (N'b', N'1', 6), (N'c', N'2', 3)",
]


@pytest.fixture
def shop(tidb, tmp_path_factory):
    """The schema and rows on TiDB, made afresh for each test (the tests write)."""
    folder = tmp_path_factory.mktemp("application")
    capture = read_script(SCRIPT, folder, "application_schema.sql")
    database = tidb.create_database("t_runner_application")
    here = OnTarget(tidb, database, capture)
    conn = tidb.connect(database)
    with conn.cursor() as cur:
        for row in ROWS:
            cur.execute(re.sub(r"shop\.(\w+)", r"`\1`", row).replace("N'", "'"))
    conn.close()
    yield here
    here.close()


@pytest.fixture(scope="module")
def endpoint(mssql):
    """The schema and rows on the SQL Server endpoint; what Babelfish refuses is left out (its list below)."""
    database = mssql.create_database("t_runner_application")
    conn = mssql.connect(database)
    refused = {}
    cursor = conn.cursor()
    for batch in re.split(r"(?im)^\s*GO\s*$", SCRIPT):
        if not batch.strip() or batch.strip().startswith("--") and "CREATE" not in batch:
            continue
        # Babelfish refuses WITH EXECUTE AS OWNER (docs/babelfish.md); the function means the same to this login.
        batch = re.sub(r"\bWITH\s+EXECUTE\s+AS\s+OWNER\s*(?=\bAS\b)", "", batch, flags=re.IGNORECASE)
        try:
            cursor.execute(batch)
        except Exception as exc:  # noqa: BLE001 - the endpoint's refusals are checked below
            refused[re.search(r"CREATE\s+\w+\s+([\w.]+)", batch, re.IGNORECASE)[1]] = str(exc)
    for row in ROWS:
        cursor.execute(row)
    conn.close()
    # Babelfish 4.3 takes neither system versioning, native compilation nor MERGE (docs/babelfish.md).
    assert set(refused) <= {"shop.Rates", "shop.RateAt", "shop.RateHistory", "shop.RecordCounts", "shop.ApplyCounts",
                            "shop.SetRate"}, refused
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


def _call(shop: OnTarget, tsql: str, parameters: tuple[Parameter, ...] = (), values: tuple = ()):
    """A captured call (`EXEC shop.P @a = @1`) with its return status and OUTPUT parameters selected after it, as
    compare runs it, on TiDB through the runner."""
    program = compile_batch(tsql, parameters, shop.procedures.database, shop.procedures.names, shop.procedures.options,
                            wrapper=True)
    assert not program.blockers, program.blockers
    return shop.runner.call(program, [(p.name, v) for p, v in zip(parameters, values, strict=True)], enclosing=True)


def _rolled_back(shop: OnTarget) -> None:
    shop.session.execute("ROLLBACK", ())


# -- JSON ---------------------------------------------------------------------------------------------------


def test_openjson_over_a_parameter_inserts_its_rows_and_output_returns_the_keys_the_sequence_gave(shop):
    doc = json.dumps({"items": [{"name": "Drum", "price": 12.5, "group": 2, "attributes": {"color": "green"}},
                                {"name": "Flute", "price": "7.25"}]})
    result = shop.call("shop.ImportItems", doc, 9)
    assert result.ok, errors(result)
    (rows,) = sets(result)
    assert [name for _, name in rows] == ["Drum", "Flute"] and rows[1][0] == rows[0][0] + 1  # one sequence, in order
    stored = shop.rows(f"SELECT Name, Price, GroupID, Attributes, AddedBy FROM Items WHERE ItemID IN ({rows[0][0]}, {rows[1][0]}) "
                       "ORDER BY ItemID")
    # AS JSON keeps the fragment as written; a JSON number and a JSON string both convert to decimal(18,2).
    assert stored == [("Drum", Decimal("12.50"), 2, '{"color": "green"}', 9), ("Flute", Decimal("7.25"), None, None, 9)]
    refused = shop.call("shop.ImportItems", "not json", 9)
    assert [e.number for e in refused.errors] == [51000]


def test_openjson_with_a_strict_path_updates_from_a_document(shop):
    assert shop.call("shop.RenameItem", 4, '{"name": "Spinning top", "Price": 6}').ok
    assert shop.rows("SELECT Name, Price FROM Items WHERE ItemID = 4") == [("Spinning top", Decimal("6.00"))]
    missing = shop.call("shop.RenameItem", 4, '{"Price": 6}')
    assert [e.number for e in missing.errors] == [13608]  # strict: the property must be there
    shop.call("shop.RenameItem", 4, '{"name": "Top", "Price": 5.5}')


def test_openjson_reads_as_exec_does_on_the_endpoint(shop, endpoint):
    doc = '{"b":"x\\/y","a":1.50,"c":null,"d":true}'
    mine = sets(shop.call("shop.KeysOf", doc))
    assert mine == [[("a", "1.50", 2), ("b", "x/y", 1), ("c", None, 0), ("d", "true", 3)]]
    assert _exec(endpoint, "EXEC shop.KeysOf @Doc = ?", (doc,)) == mine
    names = '["Kite", "Ball", "nothing"]'
    assert sets(shop.call("shop.ItemsNamed", names)) == _exec(endpoint, "EXEC shop.ItemsNamed @Names = ?", (names,)) \
        == [[(1, "Kite"), (3, "Ball")]]


def test_json_functions_over_a_column_answer_as_sql_server(shop, endpoint):
    for item, expected in ((1, ("red", 1)), (3, (None, 1)), (4, (None, None))):
        assert sets(shop.call("shop.ColorOf", item)) == [[expected]]
        assert _exec(endpoint, "EXEC shop.ColorOf @ItemID = ?", (item,)) == [[expected]]


def test_json_modify_on_a_variable_keeps_sql_server_s_text(shop):
    result = shop.call("shop.AddEvent", '{"events": []}', "picked")
    assert sets(result) == [[("picked", 1)]]
    # The document as SQL Server writes it: the text kept, the new object inserted as JSON, `/` escaped.
    assert result.output == {"@Events": '{"events": [{ "event":"picked","path":"a\\/b"}]}'}


def test_for_json_path_writes_the_document_sql_server_writes(shop, endpoint):
    (rows,) = sets(shop.call("shop.ItemsJson", Decimal("10")))
    text = "".join(r[0] for r in rows)
    assert text == ('{"items":[{"id":1,"item":{"name":"Kite","price":10.00}},'
                    '{"id":4,"item":{"name":"Top","price":5.50}}]}')
    # The endpoint writes the same document with its own spacing (docs/babelfish.md): the same JSON.
    (theirs,) = _exec(endpoint, "EXEC shop.ItemsJson @MaxPrice = ?", (Decimal("10"),))
    assert json.loads("".join(r[0] for r in theirs)) == json.loads(text)


# -- functions ------------------------------------------------------------------------------------------------


def test_functions_are_inlined_or_run_and_answer_as_exec(shop, endpoint):
    quoted = sets(shop.call("shop.Quote", 1, date(2024, 3, 1)))
    # 10% off group 1 (Kite 10.00 -> 9.00, Top 5.50 -> 4.95); Yo-yo has no deal on that day.
    assert quoted == [[(Decimal("9.00"), 2)], [(1, Decimal("9.00")), (2, Decimal("20.00")), (4, Decimal("4.95"))]]
    assert _exec(endpoint, "EXEC shop.Quote @ItemID = ?, @On = ?", (1, date(2024, 3, 1))) == quoted
    assert sets(shop.call("shop.Expensive", Decimal("15"))) == [[(2, "Yo-yo"), (3, "Ball")]]
    assert sets(shop.call("shop.CountDigits", 120034)) == [[(6,)]]
    for name, args in (("shop.Expensive @Min = ?", (Decimal("15"),)), ("shop.CountDigits @n = ?", (120034,))):
        assert _exec(endpoint, f"EXEC {name}", args) == sets(shop.call(name.split()[0], *args))


def test_a_function_the_runner_runs_cannot_be_read_in_a_set_based_statement(shop):
    summary = shop.procedures.summary("shop.DigitsOfItems")
    assert not summary.runs and summary.blockers[0].construct == "user-defined function"
    assert "shop.Digits cannot be inlined (a WHILE loop" in summary.blockers[0].message
    assert summary.program.where(summary.blockers[0].line).endswith(f":{_line_of('SELECT ItemID, shop.Digits(ItemID)')}")


# -- table-valued parameters ----------------------------------------------------------------------------------


def test_a_table_valued_parameter_arrives_as_a_table_the_runner_fills(shop):
    added = shop.call("shop.AddLines", 8, [(1, 2, "x"), (2, 5, None)])
    assert sets(added) == [[(2, 7)]]
    assert shop.call("shop.AddLines", OrderID=9).ok  # no rows given: SQL Server's empty table
    copied = shop.call("shop.CopyLines", 8, 12)  # a table variable of the type passed on
    assert sets(copied) == [[(2, 7)]]
    assert shop.rows("SELECT ItemID, Qty, Note FROM `Lines` WHERE OrderID = 12 ORDER BY LineID") == [
        (1, 2, "copied"), (2, 5, "copied")]


# -- dynamic SQL, return status and OUTPUT parameters ---------------------------------------------------------


def test_dynamic_sql_runs_and_its_output_parameter_and_return_status_come_back_as_exec_s(shop, endpoint):
    call = "DECLARE @rows int; EXEC shop.CountRows @Table = @1, @Rows = @rows OUTPUT"
    checked = with_outputs(call)
    assert checked is not None and checked.endswith("SELECT @call_return_status AS [return status], @rows AS [@rows]")
    mine = _call(shop, checked, (Parameter("@1", "sysname"),), ("Deals",))
    _rolled_back(shop)
    assert sets(mine) == [[(2, 2)]]
    assert _exec(endpoint, checked.replace("@1", "?"), ("Deals",)) == [[(2, 2)]]
    cheapest = sets(shop.call("shop.CheapestOf", "Items", 2))
    assert cheapest == [[(4, Decimal("5.50")), (1, Decimal("10.00"))]]
    assert _exec(endpoint, "EXEC shop.CheapestOf @Table = ?, @N = ?", ("Items", 2)) == cheapest
    summary = shop.procedures.summary("shop.CheapestOf")
    assert summary.runs and not summary.reads_only  # what SQL built at run time changes is known only when it runs


# -- built-ins, catalog ---------------------------------------------------------------------------------------


def test_hashbytes_string_escape_and_server_properties(shop):
    (((sha, md5, escaped, xtp, bucket),),) = sets(shop.call("shop.Fingerprints", 'aé"/x', "plain text"))
    assert sha == hashlib.sha256('aé"/x'.encode("utf-16-le")).digest()  # an nvarchar's UTF-16LE bytes
    assert md5 == hashlib.md5(b"plain text").digest()  # a varchar's own bytes (ASCII: the same in code page 1252)
    assert escaped == 'aé\\"\\/x' and xtp == 0 and 0 <= bucket < 8


def test_catalog_views_and_functions_are_answered_for_the_migrated_names(shop):
    assert sets(shop.call("shop.Catalog")) == [[("items;no such table;name is 100 bytes;not memory optimized;"
                                                  "sequence in shop;",)]]


# -- MERGE, OUTPUT, temporal tables ---------------------------------------------------------------------------


def test_merge_on_columns_that_are_no_key_does_what_sql_server_does(shop):
    result = shop.call("shop.ApplyCounts")
    assert result.ok, errors(result)
    assert sets(result) == [[("a", "1", 7), ("b", "1", 6), ("c", "2", 3)]]


def test_output_into_a_table_and_output_of_an_update(shop):
    archived = shop.call("shop.ArchiveOrder", 6, date(2024, 7, 1))
    assert sets(archived) == [[(1,)]]
    assert shop.rows("SELECT OrderID, Qty, ArchivedOn FROM Archive") == [(6, 1, date(2024, 7, 1))]
    raised = shop.call("shop.Raise", 2)
    assert sets(raised) == [[(2, Decimal("20.00"), Decimal("21.00"))]]
    shop.call("shop.RenameItem", 2, '{"name": "Yo-yo", "Price": 20}')


def test_a_system_versioned_table_keeps_its_history_and_answers_for_system_time(shop):
    assert shop.call("shop.SetRate", 1, Decimal("1.5")).ok
    (start,) = shop.rows("SELECT ValidFrom FROM Rates WHERE RateID = 1")[0]
    assert shop.call("shop.SetRate", 1, Decimal("1.75")).ok
    assert shop.call("shop.SetRate", 1, Decimal("2")).ok
    history = shop.rows("SELECT Rate, ValidFrom, ValidTo FROM RatesHistory ORDER BY ValidFrom")
    assert [h[0] for h in history] == [Decimal("1.5000"), Decimal("1.7500")]
    assert history[0][1] == start and history[0][2] == history[1][1]  # each period ends where the next starts
    assert sets(shop.call("shop.RateHistory", 1)) == [[(Decimal("1.5000"),), (Decimal("1.7500"),), (Decimal("2.0000"),)]]
    assert sets(shop.call("shop.RateAt", 1, history[1][1])) == [[(Decimal("1.7500"),)]]
    assert sets(shop.call("shop.RateAt", 1, datetime(2000, 1, 1))) == [[]]


# -- the rest ------------------------------------------------------------------------------------------------


def test_an_index_on_a_temporary_table_is_left_out_unless_it_is_unique(shop):
    result = shop.call("shop.LineSpans")
    assert result.ok, errors(result)
    assert sets(result) == [[(5, 1, 2), (5, 2, None), (6, 3, None)]]
    stops = shop.procedures.summary("shop.UniqueSpans").stops()
    assert "UNIQUE index IX_Spans ON #Spans" in stops, stops


def test_a_table_hint_before_the_column_list_is_read_as_a_hint(shop):
    assert shop.call("shop.LoadWithHint").ok
    assert shop.rows("SELECT ItemID FROM `Lines` WHERE OrderID = 90 ORDER BY ItemID") == [(1,), (4,)]


def test_a_natively_compiled_body_is_all_or_nothing(shop):
    assert shop.call("shop.RecordCounts", [(1, 3, None)]).ok
    failed = shop.call("shop.RecordCounts", [(2, 4, None), (3, -1, None)])
    assert [e.number for e in failed.errors] == [51001]
    assert shop.rows("SELECT ItemID, Qty FROM `Lines` WHERE OrderID = 70") == [(1, 3)]  # the second block rolled back


def test_an_administration_procedure_is_classed_apart_and_takes_tidbs_path(shop):
    summary = shop.procedures.summary("shop.ConfigureAuditing")
    assert summary.administration is not None and summary.administration.kind == "auditing"
    result = shop.call("shop.ConfigureAuditing")
    assert result.ok and result.messages == ["This edition cannot audit here."] and result.return_status == 0
    assert shop.procedures.summary("shop.ImportItems").administration is None


def _line_of(text: str) -> int:
    return next(n for n, line in enumerate(SCRIPT.splitlines(), start=1) if text in line)
