"""The two text scanners the checks rely on: names of other databases/servers, and expressions TiDB refuses."""

from __future__ import annotations

import doctest

import pytest

from sqlsrv2tidb.rules import expressions, references
from sqlsrv2tidb.rules.expressions import expression_problems
from sqlsrv2tidb.rules.references import find_external_references


@pytest.mark.parametrize("module", [expressions, references])
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize(("sql", "expected"), [
    ("SELECT * FROM Archive.dbo.Orders", [("cross_database", "Archive.dbo.Orders", 1)]),
    ("SELECT *\nFROM [Archive]..[Orders]", [("cross_database", "Archive..Orders", 2)]),
    ("EXEC msdb.dbo.sp_send_dbmail @recipients = 'x'", [("cross_database", "msdb.dbo.sp_send_dbmail", 1)]),
    ("SELECT Other.dbo.fn(1)", [("cross_database", "Other.dbo.fn", 1)]),
    ("UPDATE [SRV].[Db].[dbo].[T] SET a = 1", [("linked_server", "SRV.Db.dbo.T", 1)]),
    ("SELECT * FROM OPENQUERY(SRV, 'SELECT 1')", [("remote_query", "OPENQUERY(SRV)", 1)]),
    ("SELECT * FROM OPENROWSET('SQLNCLI', 'Server=x;', 'SELECT 1')", [("remote_query", "OPENROWSET", 1)]),
    # Not references to other databases:
    ("SELECT Sales.Orders.OrderID FROM Sales.Orders", []),                     # schema.table.column
    ("SELECT e.Resume.value('(/a)[1]', 'int') FROM HumanResources.JobCandidate e", []),  # XML method
    ("SELECT e.OrganizationNode.GetAncestor(1) FROM HumanResources.Employee e", []),   # hierarchyid method
    ("SELECT s.Loc.STDistance(@p) FROM dbo.Store s", []),                      # spatial method
    ("SELECT @x.value('a', 'int')", []),                                       # method on a variable
    ("SELECT * FROM $(DatabaseName).dbo.Orders", []),                          # SQLCMD variable: this database
    ("SELECT * FROM Sales.dbo.Orders", []),                                    # the current database by name
    ("-- SELECT * FROM Archive.dbo.Orders\nSELECT 'FROM Archive.dbo.Orders'", []),  # comment and string
])
def test_external_references(sql, expected):
    got = [(r.kind, r.text, r.line) for r in find_external_references(sql, "Sales")]
    assert got == expected


def test_untokenizable_text_falls_back_to_object_positions():
    sql = "SELECT * FROM Archive.dbo.Orders\nWHERE note = 'unterminated"
    got = find_external_references(sql, "Sales")
    assert [(r.kind, r.text, r.line) for r in got] == [("cross_database", "Archive.dbo.Orders", 1)]
    assert got[0].system_database is False
    assert find_external_references("SELECT * FROM msdb.dbo.sysjobs", "x")[0].system_database


@pytest.mark.parametrize(("expression", "reasons"), [
    ("isnull('AW'+[dbo].[ufnLeadingZeros]([CustomerID]),'')", ["user_function"]),
    ("[OrganizationNode].[GetLevel]()", ["type_method"]),
    ("([BirthDate]<=dateadd(year,(-18),getdate()))", ["nondeterministic"]),
    ("(newid())", ["nondeterministic"]),
    ("CONVERT(date, getutcdate())", ["nondeterministic"]),
    ("suser_sname()", ["nondeterministic"]),
    ("([x]>(select max([y]) from [t]))", ["subquery"]),
    ("(@@spid)", ["variable"]),
    ("isnumeric([a])", ["unknown_function"]),
    ("isnull([UnitPrice]*((1.0)-[UnitPriceDiscount])*[OrderQty],(0.0))", []),
    ("(json_value([CustomFields],N'$.Tags'))", []),
    ("upper([Gender])='F' OR upper([Gender])='M'", []),
    ("checksum([a],[b])", []),
])
def test_expression_problems(expression, reasons):
    got = expression_problems(expression, frozenset({"organizationnode"}))
    assert [p.reason for p in got] == reasons
    assert all(p.describe() for p in got)


def test_unparsable_expression_still_shows_the_clock():
    got = expression_problems("getdate() +* (", frozenset())
    assert [p.reason for p in got] == ["nondeterministic"]
