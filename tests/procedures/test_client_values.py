"""What the runner works out on the client, by T-SQL's rules, and what it leaves to the server; and a value given to a
variable of a declared type, as SQL Server converts it. No server is needed.

https://learn.microsoft.com/sql/t-sql/language-elements/divide-transact-sql (integer division truncates),
https://learn.microsoft.com/sql/t-sql/language-elements/modulo-transact-sql (the sign of the dividend),
https://learn.microsoft.com/sql/t-sql/language-elements/comparison-operators-transact-sql (NULL is unknown).
"""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

import pytest
import sqlglot

from sqlsrv2tidb.procedures.expressions import NotLocal, Scope, evaluate, local_form
from sqlsrv2tidb.procedures.failures import TsqlError
from sqlsrv2tidb.procedures.values import assign
from sqlsrv2tidb.translate.dialect import SqlServer

VARIABLES = {"i": 7, "j": -7, "n": None, "s": "Ab ", "t": "aB", "d": Decimal("2.50"), "when": datetime(2024, 1, 5)}


def value(text: str, case_insensitive: bool = True):
    node = local_form(sqlglot.parse_one(f"SELECT {text}", read=SqlServer).expressions[0])
    assert node is not None, text
    return evaluate(node, Scope(VARIABLES, lambda name: {"rowcount": 3, "error": 0}.get(name), case_insensitive))


def condition(text: str):
    node = local_form(sqlglot.parse_one(f"SELECT 1 WHERE {text}", read=SqlServer).args["where"].this)
    assert node is not None, text
    return evaluate(node, Scope(VARIABLES, lambda name: None))


@pytest.mark.parametrize(("text", "expected"), [
    ("@i / 2", 3), ("@j / 2", -3), ("@i % 3", 1), ("@j % 3", -1), ("@i * 2 - 1", 13), ("-@i", -7),
    ("@s + N'x'", "Ab x"), ("@n + 1", None), ("ISNULL(@n, 5)", 5), ("COALESCE(@n, @n, @i)", 7),
    ("CONVERT(nvarchar(10), @i)", "7"), ("CAST(@i AS varchar)", "7"), ("CAST('12' AS int)", 12),
    ("@@ROWCOUNT", 3), ("N'it''s'", "it's"), ("1.5", Decimal("1.5")),
])
def test_values_the_client_works_out(text, expected):
    assert value(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("@i > 5 AND @s = 'ab'", True),  # a case-insensitive collation; trailing spaces do not count
    ("@n = 1", None), ("NOT @n = 1", None), ("@n = 1 OR @i = 7", True), ("@n = 1 AND @i = 8", False),
    ("@n IS NULL", True), ("@i IN (1, 7)", True), ("@i IN (1, @n)", None), ("@i NOT IN (1, 2)", True),
    ("@i BETWEEN 1 AND 7", True), ("@when < @when", False), ("@d > 2", True),
])
def test_conditions_have_three_values(text, expected):
    assert condition(text) is expected


def test_case_matters_under_a_case_sensitive_collation():
    assert value("@s = @t", case_insensitive=True) is True
    assert value("@s = @t", case_insensitive=False) is False


@pytest.mark.parametrize("text", [
    "@s < 'b'",  # ordering text follows the collation: the server's
    "@i = '7'",  # a number and text: converted by type precedence, the server's rules
    "@d * 2",  # decimal arithmetic keeps scales by rules the server applies
    "2147483647 + 1",  # int overflows; bigint would not: the server knows the types
    "CAST(@d AS varchar(10))",  # a decimal (or money) written as text follows styles
    "CAST('x1' AS int)",
])
def test_the_server_is_asked_where_its_rules_decide(text):
    with pytest.raises(NotLocal):
        value(text)


def test_what_the_client_cannot_read_is_the_servers():
    for text in ("SOUNDEX(@s)", "DATEADD(day, 1, @when)", "(SELECT 1)", "@i + DATALENGTH(@s)", "HASHBYTES('MD5', @s)"):
        assert local_form(sqlglot.parse_one(f"SELECT {text}", read=SqlServer).expressions[0]) is None, text


def test_division_by_zero_is_sql_servers_error():
    with pytest.raises(TsqlError) as raised:
        value("@i / 0")
    assert raised.value.number == 8134


@pytest.mark.parametrize(("given", "declared", "held"), [
    (Decimal("7.9"), "int", 7), (Decimal("-7.9"), "int", -7), ("12", "int", 12), (True, "int", 1),
    ("abcdef", "varchar(3)", "abc"), ("ab", "char(4)", "ab  "), ("ab", "nvarchar", "a"), ("ab", "varchar(max)", "ab"),
    (Decimal("2.345"), "decimal(5,2)", Decimal("2.35")), (Decimal("2.5"), "numeric(5, 0)", Decimal("3")),
    (Decimal("1.23456"), "money", Decimal("1.2346")), (5, "bit", 1), (0, "bit", 0), ("TRUE", "bit", 1),
    ("2024-01-05", "date", date(2024, 1, 5)), ("20240105 10:30", "datetime", datetime(2024, 1, 5, 10, 30)),
    (date(2024, 1, 5), "datetime2(7)", datetime(2024, 1, 5)), (None, "int", None), (42, "INTEGER", 42),
])
def test_a_value_takes_the_declared_type(given, declared, held):
    assert assign(given, declared) == held


@pytest.mark.parametrize(("given", "declared", "number"), [
    ("abc", "int", 245), (300, "tinyint", 8115), (2**31, "int", 8115), ("x", "decimal(5,2)", 8114),
    ("not a date", "datetime", 241),
])
def test_a_conversion_sql_server_refuses_is_its_error(given, declared, number):
    with pytest.raises(TsqlError) as raised:
        assign(given, declared)
    assert raised.value.number == number
