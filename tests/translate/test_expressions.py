"""`translate_expression`, the DDL generator's entry: catalog expressions (defaults, computed columns,
CHECKs, filters) typed against their own table, in TiDB SQL, or None with a note."""

from __future__ import annotations

import pytest

from sqlsrv2tidb.model import Column, Database, DataType, Table
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.translate.expression_types import Types
from sqlsrv2tidb.translate.expressions import translate_expression
from sqlsrv2tidb.translate.naming import NameMap

TABLE = Table("dbo", "people", (
    Column("first", DataType("nvarchar", length=20)), Column("last", DataType("nvarchar", length=20)),
    Column("qty", DataType("int")), Column("price", DataType("money")), Column("born", DataType("date")),
    Column("code", DataType("char", length=4)),
))
DB = Database(tables=(TABLE,))


def translate(text: str, table: Table | None = TABLE):
    return translate_expression(text, database=DB, table=table, names=NameMap.for_database(DB), options=Options())


@pytest.mark.parametrize(("tsql", "tidb", "codes"), [
    ("(getdate())", "(CURRENT_TIMESTAMP(3))", []),
    ("(sysutcdatetime())", "(UTC_TIMESTAMP(6))", []),
    ("((0))", "((0))", []),
    ("(N'')", "(N'')", []),
    ("(newid())", "(UUID())", []),
    ("([first]+' '+[last])", "(CONCAT(`first`, ' ', `last`))", ["QY03"]),
    ("([qty]*[price])", "(`qty` * `price`)", []),
    ("([qty]/(2))", "(`qty` DIV (2))", ["QY37"]),
    ("([qty]>(0) AND [qty]<=(100))", "(`qty` > (0) AND `qty` <= (100))", []),
    ("(len([code])=(4))", "(CHAR_LENGTH(RTRIM(`code`)) = (4))", ["QY35"]),
    ("([code] like '[A-Z][0-9]%')", "(`code` REGEXP '^[A-Z][0-9](.|\\n)*$')", ["QY06"]),
    # The same CHECK as each endpoint's catalog spells it: Babelfish's case-insensitive LIKE (~~*, an ILIKE), its
    # negation, and a LIKE with both sides folded to lower case; each converts as the script's form does.
    ("((code ~~* '[0-9][0-9]-[A-Z]'))", "((code REGEXP '(?i)^[0-9][0-9]\\\\-[A-Z]$'))", ["QY06"]),
    ("((code !~~* '99[0-9]%'))", "((NOT code REGEXP '(?i)^99[0-9](.|\\n)*$'))", ["QY06"]),
    ("((code ~~* 'a[_]%'))", "((LOWER(code) LIKE LOWER('a\\\\_%')))", ["QY06"]),
    ("(lower([code]) like lower('[A-Z][0-9]'))", "(LOWER(`code`) REGEXP '^[a-z][0-9]$')", ["QY06"]),
    ("((code ~~* 'ab%'))", "((LOWER(code) LIKE LOWER('ab%')))", []),
    ("(datediff(year,[born],getdate()))", "((YEAR(CURRENT_TIMESTAMP(3)) - YEAR(`born`)))", ["QY02"]),
    ("(CONVERT([varchar](10),[born],(103)))", "(DATE_FORMAT(`born`, '%d/%m/%Y'))", ["QY20"]),
    ("(NEXT VALUE FOR [dbo].[ticket_seq])", "(NEXTVAL(ticket_seq))", []),
    ("([qty] IS NOT NULL)", "(NOT `qty` IS NULL)", []),
])
def test_catalog_expressions(tsql, tidb, codes):
    sql, notes = translate(tsql)
    assert sql == tidb
    assert sorted(n.code for n in notes) == codes


@pytest.mark.parametrize(("tsql", "code"), [
    ("([dbo].[fn_tax]([price]))", "QY36"),
    ("(garbage(((", "QY01"),
    ("(CONVERT([varchar](30),[born],(131)))", "QY20"),
])
def test_expressions_that_cannot_be_kept(tsql, code):
    sql, notes = translate(tsql)
    assert sql is None
    assert code in {n.code for n in notes}
    assert all(n.message for n in notes)


def test_without_a_table_the_types_are_unknown():
    sql, notes = translate("([first]+[last])", table=None)
    assert sql == "(`first` + `last`)"
    assert [n.code for n in notes] == ["QY04"]


def test_the_table_types_the_columns():
    types = Types(DB, default_table=TABLE)
    import sqlglot

    tree = sqlglot.parse_one("SELECT first, qty, price, unknown", read="sqlserver")
    assert [types.category(p) for p in tree.selects] == ["string", "integer", "decimal", None]
