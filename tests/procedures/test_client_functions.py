"""The functions the runner works out on values it holds, pinned to SQL Server's documented answers: its JSON functions
on text (json_text) and the string functions a procedure builds dynamic SQL and messages with (client_functions).

https://learn.microsoft.com/sql/t-sql/functions/json-modify-transact-sql (the name/surname/skills example),
https://learn.microsoft.com/sql/t-sql/functions/json-value-transact-sql, .../json-query-transact-sql,
https://learn.microsoft.com/sql/t-sql/functions/openjson-transact-sql, .../isjson-transact-sql,
https://learn.microsoft.com/sql/t-sql/functions/quotename-transact-sql, .../string-escape-transact-sql.
"""

from __future__ import annotations

import pytest
import sqlglot

from sqlsrv2tidb.procedures import json_text
from sqlsrv2tidb.procedures.expressions import NotLocal, Scope, evaluate, local_form
from sqlsrv2tidb.procedures.failures import TsqlError
from sqlsrv2tidb.translate.dialect import SqlServer


def test_json_modify_keeps_the_text_and_changes_only_the_value_at_its_path():
    info = '{"name":"John","skills":["C#","SQL"]}'
    info = json_text.json_modify(info, "$.name", "Mike")
    assert info == '{"name":"Mike","skills":["C#","SQL"]}'
    info = json_text.json_modify(info, "$.surname", "Smith")
    assert info == '{"name":"Mike","skills":["C#","SQL"],"surname":"Smith"}'
    info = json_text.json_modify(info, "$.name", None)  # lax: NULL deletes the property
    assert info == '{"skills":["C#","SQL"],"surname":"Smith"}'
    info = json_text.json_modify(info, "append $.skills", "Azure")
    assert info == '{"skills":["C#","SQL","Azure"],"surname":"Smith"}'
    assert json_text.json_modify(info, "strict $.skills", None) == '{"skills":null,"surname":"Smith"}'
    with pytest.raises(TsqlError) as raised:
        json_text.json_modify(info, "strict $.missing", "x")
    assert raised.value.number == 13608


def test_json_modify_inserts_json_as_it_is_and_escapes_a_string():
    event = json_text.json_modify('{"a":1}', "$.path", "c:/x \"y\"")
    assert event == '{"a":1,"path":"c:\\/x \\"y\\""}'
    nested = json_text.json_modify('{"Events": []}', "append $.Events", json_text.Fragment('{"e":1}'))
    assert nested == '{"Events": [{"e":1}]}'
    assert json_text.json_modify('{"n":1}', "$.n", 5) == '{"n":5}'


def test_json_value_and_json_query_answer_with_the_text_as_written():
    doc = '{"a": {"b": 1.50, "c": [1,2], "d": "x\\u0041"}}'
    assert json_text.json_value(doc, "$.a.b") == "1.50"
    assert json_text.json_value(doc, "$.a.d") == "xA"
    assert json_text.json_value(doc, "$.a.c") is None  # lax: not a scalar
    assert json_text.json_query(doc, "$.a.c") == "[1,2]"
    assert json_text.json_query(doc, "$.a.b") is None
    for path, number in (("strict $.a.c", 13623), ("strict $.a.zz", 13608)):
        with pytest.raises(TsqlError) as raised:
            json_text.json_value(doc, path)
        assert raised.value.number == number
    with pytest.raises(TsqlError) as raised:
        json_text.json_value('{"a":', "$.a")
    assert raised.value.number == 13609


def test_isjson_without_a_type_is_an_object_or_an_array():
    assert [json_text.is_json(t) for t in ('{"a":1}', "[1]", "1", '"x"', "{a:1}", None)] == [1, 1, 0, 0, 0, None]


def test_openjson_rows_with_the_default_schema_and_with_a_with_clause():
    doc = '{"n":1,"s":"x\\/y","t":true,"z":null,"arr":[1, 2],"obj":{"k":"v"}}'
    assert json_text.open_json(doc) == [("n", "1", 2), ("s", "x/y", 1), ("t", "true", 3), ("z", None, 0),
                                        ("arr", "[1, 2]", 4), ("obj", '{"k":"v"}', 5)]
    assert json_text.open_json("[10, \"a\"]") == [("0", "10", 2), ("1", "a", 1)]
    columns = (json_text.Column("Rego", "nvarchar(40)", "$.properties.rego"), json_text.Column("Sensor", "int"),
               json_text.Column("Doc", "nvarchar(max)", "$", as_json=True))
    doc = '{"Recordings":[{"properties":{"rego":"A"},"Sensor":2},{"Sensor":3}]}'
    assert json_text.open_json_with(doc, "$.Recordings", columns) == [
        ("A", "2", '{"properties":{"rego":"A"},"Sensor":2}'), (None, "3", '{"Sensor":3}')]
    assert json_text.open_json_with('{"Sensor":9}', None, columns[1:2]) == [("9",)]  # an object is one row
    assert json_text.open_json_with(doc, "$.Nothing", columns) == []  # lax: no rows


def _value(text: str, **variables):
    node = sqlglot.parse_one(f"SELECT {text}", read=SqlServer).expressions[0]
    local = local_form(node)
    assert local is not None, text
    return evaluate(local, Scope({k.lower(): v for k, v in variables.items()}, lambda name: None))


@pytest.mark.parametrize(("text", "variables", "expected"), [
    ("N'SELECT * FROM ' + QUOTENAME(@s) + N'.' + QUOTENAME(@t)", {"s": "Sales", "t": "Order]s"},
     "SELECT * FROM [Sales].[Order]]s]"),
    ("QUOTENAME(@t, '''')", {"t": "it's"}, "'it''s'"),
    ("QUOTENAME(REPLICATE(N'x', 129))", {}, None),
    ("REPLACE(@t, 'ab', 'Z')", {"t": "xABxab"}, "xZxZ"),  # the database's case-insensitive collation
    ("CONCAT(@t, NULL, 5, N'!')", {"t": "a"}, "a5!"),
    ("STRING_ESCAPE(@t, 'json')", {"t": 'a"b/c\n'}, 'a\\"b\\/c\\n'),
    ("JSON_MODIFY(@j, N'$.Event', N'Ready')", {"j": "{ }"}, '{ "Event":"Ready"}'),
    ("ISJSON(@j)", {"j": "[]"}, 1),
    ("CASE @n WHEN 1 THEN 'one' WHEN 2 THEN 'two' END", {"n": 2}, "two"),
    ("RIGHT('0000' + CAST(@n AS nvarchar(10)), 4)", {"n": 42}, "0042"),
])
def test_string_functions_are_worked_out_on_the_client(text, variables, expected):
    assert _value(text, **variables) == expected


def test_what_only_the_server_says_is_asked_of_it():
    with pytest.raises(NotLocal):
        _value("CONCAT(@f, 'x')", f=1.5)  # a float's text follows the server's style
