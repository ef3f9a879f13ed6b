"""The parts of comparing writes that need no server: the kind of an error on either side, SQL Server's datetime
ticks and smalldatetime minutes, a value converted to a declared type, and the pairing of IDENTITY values."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest

from sqlsrv2tidb.compare.end_state import Renumbering, TableRead, compare_table
from sqlsrv2tidb.compare.error_kinds import (
    CHECK,
    FOREIGN_KEY,
    JSON,
    MISSING,
    NOT_NULL,
    RAISED,
    SYNTAX,
    TRUNCATION,
    UNIQUE,
    sql_server_error,
    target_error,
)
from sqlsrv2tidb.compare.values import ResultColumn
from sqlsrv2tidb.compare.write_sides import Mark
from sqlsrv2tidb.model import Column, Database, DataType, ForeignKey, Identity, Key, Table
from sqlsrv2tidb.procedures.affected import TableKey
from sqlsrv2tidb.procedures.values import assign
from sqlsrv2tidb.replay.params import as_declared
from sqlsrv2tidb.tsql.datetimes import stored_as_datetime, stored_as_smalldatetime


@pytest.mark.parametrize("text, number, kind", [
    ("[23000] [FreeTDS][SQL Server]The UPDATE statement conflicted with the CHECK constraint \"ck_t\". The conflict "
     "occurred in database \"d\", table \"dbo.t\", column 'a'. (547) (SQLExecDirectW)", 547, CHECK),
    ("[23000] [FreeTDS][SQL Server]new row for relation \"t\" violates check constraint \"t_v_check\" (547) "
     "(SQLExecDirectW)", 547, CHECK),
    ("[23000] [FreeTDS][SQL Server]The INSERT statement conflicted with the FOREIGN KEY constraint \"fk\". (547) "
     "(SQLExecDirectW)", 547, FOREIGN_KEY),
    ("[23000] [FreeTDS][SQL Server]Violation of PRIMARY KEY constraint 'pk'. (2627) (SQLMoreResults)", 2627, UNIQUE),
    ("[22001] [FreeTDS][SQL Server]String or binary data would be truncated. (8152) (SQLExecDirectW)", 8152, TRUNCATION),
    ("[42000] [FreeTDS][SQL Server]a forbidden note (50000) (SQLExecDirectW)", 50000, RAISED),
    ("[42S02] [FreeTDS][SQL Server]Invalid object name 'dbo.hiyn'. (208) (SQLExecDirectW)", 208, MISSING),
    ("[42000] [FreeTDS][SQL Server]JSON text is not properly formatted. (13609) (SQLExecDirectW)", 13609, JSON),
    # The test endpoint's one number for what it has no SQL Server number for: the kind is in its message
    ("[42000] [FreeTDS][SQL Server]relation \"d.hiyn\" does not exist (33557097) (SQLExecDirectW)", 33557097, MISSING),
    ("[42000] [FreeTDS][SQL Server]invalid input syntax for type json (33557097) (SQLExecDirectW)", 33557097, JSON),
    ("[42000] [FreeTDS][SQL Server]syntax error at or near \"N\" (33557097) (SQLExecDirectW)", 33557097, SYNTAX),
    ("[23000] [FreeTDS][SQL Server]duplicate key value violates unique constraint \"pk\" (33557097) (SQLExecDirectW)",
     33557097, UNIQUE),
])
def test_sql_server_errors_are_read_for_their_number_and_kind(text, number, kind):
    error = sql_server_error(text)
    assert (error.number, error.kind) == (number, kind)
    assert not error.message.startswith("[") and "(SQL" not in error.message


def test_the_targets_errors_have_the_same_kinds():
    assert target_error(547, "Check constraint 'ck_titles_royalty' is violated.", 3819).kind == CHECK
    assert target_error(547, "Cannot add or update a child row: a foreign key constraint fails", 1452).kind == FOREIGN_KEY
    assert target_error(547, "CONSTRAINT `ck` failed for `d`.`t`", 4025).kind == CHECK
    assert target_error(515, "Field 'x' doesn't have a default value", 1364).kind == NOT_NULL
    assert target_error(2628, "Data too long for column 'city' at row 1", 1406).kind == TRUNCATION
    assert target_error(208, "Table 'd.hiyn' doesn't exist", 1146).kind == MISSING
    assert target_error(13609, "JSON text is not properly formatted. Unexpected character 'e' is found", None).kind == JSON


@pytest.mark.parametrize("given, stored", [
    ("000", "00.000"), ("001", "00.000"), ("002", "00.003"), ("005", "00.007"), ("008", "00.007"), ("009", "00.010"),
    ("990", "00.990"), ("991", "00.990"), ("992", "00.993"), ("994", "00.993"), ("995", "00.997"), ("998", "00.997")])
def test_datetime_keeps_sql_servers_ticks(given, stored):
    """The table of MS:t-sql/data-types/datetime-transact-sql, and .005 to .007 by the same rule."""
    value = stored_as_datetime(datetime(2024, 1, 2, 10, 30, 0, int(given) * 1000))
    assert value.strftime("%S.%f")[:6] == stored


def test_the_last_tick_of_a_day_is_the_next_midnight_and_smalldatetime_rounds_at_29_999():
    assert stored_as_datetime(datetime(2024, 1, 2, 23, 59, 59, 999000)) == datetime(2024, 1, 3)
    assert stored_as_smalldatetime(datetime(2024, 1, 1, 10, 0, 29, 998000)) == datetime(2024, 1, 1, 10, 0)
    assert stored_as_smalldatetime(datetime(2024, 1, 1, 10, 0, 29, 999000)) == datetime(2024, 1, 1, 10, 1)


def test_a_value_takes_its_declared_type_as_sql_server_converts_it():
    assert assign(6.75, "decimal(4,1)") == Decimal("6.8") and assign(-6.75, "decimal(4,1)") == Decimal("-6.8")
    assert assign(6.749, "decimal(4,1)") == Decimal("6.7")
    assert assign(Decimal("14.70"), "int") == 14  # numeric to int truncates
    assert assign("2024-01-02 10:30:00.005", "datetime") == datetime(2024, 1, 2, 10, 30, 0, 7000)
    assert assign("abcdefghijklmnopqrstuvwxyz", "varchar(20)") == "abcdefghijklmnopqrst"
    assert as_declared("abc", "int") == "abc"  # SQL Server refuses it: sent as captured, to fail on both servers


def test_identity_values_are_paired_in_order_between_the_sides():
    orders = Table("dbo", "orders", (Column("id", DataType("int"), identity=Identity()), Column("qty", DataType("int"))),
                   primary_key=Key(None, (), clustered=True))
    lines = Table("dbo", "lines", (Column("order_id", DataType("int")), Column("line", DataType("int"))),
                  foreign_keys=(ForeignKey(None, ("order_id",), "dbo", "orders", ("id",)),))
    database = Database(tables=(orders, lines))
    renumber = Renumbering(database, {"dbo.orders": Mark(10, 12)}, {"dbo.orders": Mark(10, 10)})
    key = TableKey("dbo", "orders", "`orders`", ("id", "qty"), ("id",), "id")
    columns = (ResultColumn("id", 3), ResultColumn("qty", 3))
    # SQL Server burned 11 and 12 before the call (rolled back earlier): its rows are 13, 14; the target's 11, 12.
    read = TableRead(key, [(5, 1), (13, 2), (14, 3)], [(5, 1), (11, 2), (12, 3)], columns, 1)
    renumber.learn(read)
    assert renumber.mapping["dbo.orders"] == {11: 13, 12: 14}
    assert renumber.offsets["dbo.orders"] == {"sql_server": [1, 2], "target": [1, 2]}
    assert compare_table(read, database, renumber).equal
    child = TableKey("dbo", "lines", "`lines`", ("order_id", "line"), ("order_id", "line"))
    assert renumber.to_sql_server(child, [(11, 1), (5, 1)]) == [(13, 1), (5, 1)]
    assert renumber.in_answer(12) == 14 and renumber.in_answer(5) == 5
    moved = TableRead(key, [(13, 2)], [(11, 9)], columns, 1)
    end = compare_table(moved, database, renumber)
    assert not end.equal and end.differing_columns == ["qty"]
