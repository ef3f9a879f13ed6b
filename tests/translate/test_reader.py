"""The T-SQL reader's corrections, made around sqlglot's own parser (marked tokens, restored tree),
read exactly what they read as a subclass of that parser: the same trees, the same errors."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError

from sqlsrv2tidb.translate.dialect import SqlServer


def _one(sql: str) -> exp.Expr:
    return sqlglot.parse_one(sql, read=SqlServer)


@pytest.mark.parametrize(("sql", "kind"), [
    ("SELECT LEN(x)", exp.Length), ("SELECT [LEN](x)", exp.Length), ("SELECT [left](y, 2)", exp.Left),
    ("SELECT RIGHT(b, 1)", exp.Right), ("SELECT DATEDIFF(day, a, b)", exp.DateDiff),
    ("SELECT DATEADD(ms, 5, d)", exp.DateAdd), ("SELECT SYSDATETIME()", exp.CurrentTimestamp),
    ("SELECT GETUTCDATE()", exp.UtcTimestamp), ("SELECT x FROM t WHERE LEFT /* c */ (a, 2) = 'ab'", exp.Left),
])
def test_the_translator_s_functions_are_read_its_way(sql, kind):
    tree = _one(sql)
    assert tree.find(kind) is not None
    assert not [a for a in tree.find_all(exp.Anonymous) if "sqlsrv2tidb" in a.name], tree.sql("sqlserver")


def test_a_name_after_a_dot_stays_a_user_function_and_a_name_stays_a_name():
    dotted = _one("SELECT dbo.Len(x)").find(exp.Anonymous)
    assert dotted is not None and dotted.name == "Len"
    assert _one("SELECT GETDATE").find(exp.Column).name == "GETDATE"
    assert _one("SELECT SYSDATETIME()").selects[0].this == exp.Literal.number(6)


def test_every_hint_keeps_its_text_in_order():
    tree = _one("SELECT a FROM t UNION SELECT b FROM u OPTION (RECOMPILE, USE HINT('X'), HASH JOIN, USE PLAN N'<x/>')")
    options = next(n for n in tree.walk() if n.args.get("options")).args["options"]
    assert [o.this.name for o in options] == ["RECOMPILE", "USE HINT('X')", "HASH JOIN", "USE PLAN"]


@pytest.mark.parametrize(("sql", "error"), [
    ("SELECT a FROM t OPTION ()", "Expected a query hint"),
    ("SELECT a FROM t OPTION (RECOMPILE,, MAXDOP 1)", "Expected a query hint"),
    ("SELECT DATEDIFF(day, a)", "Required keyword: 'this' missing for"),
])
def test_what_the_parser_refused_it_still_refuses(sql, error):
    with pytest.raises(ParseError) as caught:
        _one(sql)
    assert caught.value.errors[0]["description"].startswith(error)


@pytest.mark.parametrize(("sql", "hints", "columns"), [
    ("INSERT Fact.Sale WITH (TABLOCK) ([City Key], Quantity) SELECT 1, 2", ["TABLOCK"], ["City Key", "Quantity"]),
    ("INSERT INTO [Fact].[Sale] WITH (TABLOCKX, HOLDLOCK) (Quantity) VALUES (1)", ["TABLOCKX", "HOLDLOCK"], ["Quantity"]),
    ("INSERT dbo.Sale WITH (IGNORE_TRIGGERS) SELECT 1, 2", ["IGNORE_TRIGGERS"], []),
    ("INSERT INTO s.t WITH (INDEX(ix_a), TABLOCK) (a) SELECT 1", ["INDEX", "TABLOCK"], ["a"]),
])
def test_table_hints_between_an_insert_s_table_and_its_rows_are_hints(sql, hints, columns):
    """T-SQL allows table hints right after an INSERT's table (`INSERT t WITH (TABLOCK) (cols) SELECT`); sqlglot's
    reader takes the WITH for a common table expression and fails (QY01). They are read as the table's hints."""
    tree = _one(sql)
    table = tree.find(exp.Table)
    assert table is not None and "sqlsrv2tidb" not in table.name
    found = [h.name.upper() for hint in table.args.get("hints") or [] for h in hint.expressions]
    assert found == hints
    schema = tree.this if isinstance(tree.this, exp.Schema) else None
    assert ([c.name for c in schema.expressions] if schema is not None else []) == columns


def test_a_common_table_expression_before_insert_is_still_one():
    tree = _one("WITH c AS (SELECT 1 AS a) INSERT INTO t (a) SELECT a FROM c")
    assert isinstance(tree, exp.Insert) and tree.find(exp.CTE) is not None
