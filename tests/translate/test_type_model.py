"""The one type model sees through every query shape: each column of each shape gets SQL Server's documented type.

Every rewrite that depends on a type (a decimal quotient's scale, AVG's, money, integer division, string
concatenation and length, datetime arithmetic, values written into a column) asks `Types`. These tests pin the
type SQL Server documents for a column reached through a UNION, INTERSECT or EXCEPT (precedence, precision and
scale, length), a CTE (a recursive one by its anchor), a derived table, APPLY, a VALUES list, a view, a scalar
subquery, a temp table made by SELECT ... INTO, a declared variable, CASE, COALESCE, IIF, ISNULL and NULLIF,
and then check them on the SQL Server endpoint (`sp_describe_first_result_set`) and by answers on data.

Rules: "Precision, scale, and length" (UNION, `+ - * /`), "Data type precedence", "UNION", "CASE", "COALESCE",
"ISNULL", "NULLIF", "WITH common_table_expression" (a recursive member's types are the anchor's), "AVG" and
"SUM" on learn.microsoft.com. Babelfish describes a computed numeric as numeric(38, 38) and a computed string
as varchar(max); there the documented type is pinned (docs/babelfish.md names the departure).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sqlsrv2tidb import api
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.translate.context import Context
from sqlsrv2tidb.translate.expression_types import Types, type_of_declaration
from sqlsrv2tidb.translate.naming import NameMap
from sqlsrv2tidb.translate.queries import translate_sql
from sqlsrv2tidb.translate.statements import parse_statements
from sqlsrv2tidb.translate.transforms_dml import select_into

SCHEMA = Path(__file__).resolve().parent / "types" / "schema.sql"
CAPTURE = api.read([SCHEMA])

SHAPES: list[tuple[str, str, tuple[str, ...]]] = [
    ("union-of-literals", "SELECT 1 AS a, 15 AS r UNION SELECT 2, 10 UNION SELECT 3, -2", ("int", "int")),
    ("union-int-decimal", "SELECT 1 AS x UNION ALL SELECT 2.5", ("numeric(11,1)",)),
    ("union-lengths", "SELECT 'ab' AS s UNION SELECT 'abcd'", ("varchar(4)",)),
    ("union-national", "SELECT N'x' AS s UNION SELECT 'abc'", ("nvarchar(3)",)),
    ("union-decimals", "SELECT CAST(1 AS decimal(5,2)) AS x UNION SELECT CAST(1 AS decimal(10,4))", ("numeric(10,4)",)),
    ("union-decimal-money", "SELECT amount FROM dbo.t_orders UNION SELECT price FROM dbo.t_orders", ("numeric(19,4)",)),
    ("union-smallint-decimal", "SELECT qty FROM dbo.t_orders UNION SELECT 1.5", ("numeric(6,1)",)),
    ("union-datetimes", "SELECT at FROM dbo.t_orders UNION SELECT d2 FROM dbo.t_orders", ("datetime2(3)",)),
    ("intersect-strings", "SELECT name FROM dbo.t_orders INTERSECT SELECT note FROM dbo.t_orders", ("nvarchar(20)",)),
    ("except-null", "SELECT id FROM dbo.t_orders EXCEPT SELECT NULL", ("int",)),
    ("ctes-and-union",
     "WITH VoteRep AS (SELECT 1 AS VoteTypeId, 15 AS Rep UNION SELECT 2, 10 UNION SELECT 3, -2), "
     "Raw AS (SELECT id AS PostId, SUM(VoteRep.Rep) AS Rep FROM dbo.t_orders JOIN VoteRep ON dbo.t_orders.qty = "
     "VoteRep.VoteTypeId GROUP BY id) SELECT Rep, AVG(1.0 * Rep) AS a FROM Raw GROUP BY Rep", ("int", "numeric(38,6)")),
    ("recursive-cte", "WITH c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 5) SELECT n FROM c", ("int",)),
    ("recursive-cte-decimal",
     "WITH c (n) AS (SELECT CAST(1 AS decimal(5,2)) UNION ALL SELECT CAST(n * 2 AS decimal(5,2)) FROM c WHERE n < 5) "
     "SELECT n, n / 3 AS third FROM c", ("numeric(5,2)", "numeric(9,6)")),
    ("derived-table", "SELECT x, x * 2 AS y FROM (SELECT amount * qty AS x FROM dbo.t_orders) AS d",
     ("numeric(16,2)", "numeric(18,2)")),
    ("cross-apply", "SELECT a.m FROM dbo.t_orders AS t CROSS APPLY (SELECT MAX(amount) AS m FROM dbo.t_orders AS s "
     "WHERE s.id = t.id) AS a", ("numeric(10,2)",)),
    ("values", "SELECT v.x, v.s FROM (VALUES (1, 'a'), (2.5, 'abc')) AS v(x, s)", ("numeric(11,1)", "varchar(3)")),
    ("view", "SELECT double_amount, shout FROM dbo.v_orders", ("numeric(12,2)", "varchar(11)")),
    ("scalar-subqueries", "SELECT (SELECT MAX(amount) FROM dbo.t_orders) AS m, (SELECT 1 UNION SELECT 2.5) AS u",
     ("numeric(10,2)", "numeric(11,1)")),
    ("case-coalesce-iif", "SELECT CASE WHEN id = 1 THEN 1 ELSE 2.5 END AS c, COALESCE(NULL, 1, 2.5) AS co, "
     "IIF(id = 1, 'ab', 'abc') AS i FROM dbo.t_orders", ("numeric(11,1)", "numeric(11,1)", "varchar(3)")),
    ("isnull-nullif", "SELECT ISNULL(CAST(NULL AS varchar(2)), 'abcd') AS isn, NULLIF(1.5, 2) AS nf, "
     "NULLIF(qty, 1.5) AS nq FROM dbo.t_orders", ("varchar(2)", "numeric(2,1)", "smallint")),
    ("concatenation", "SELECT 'ab' + 'cde' AS c, name + note AS n, name + 'x' AS p FROM dbo.t_orders",
     ("varchar(5)", "nvarchar(30)", "varchar(11)")),
    ("case-precedence", "SELECT CASE WHEN id = 1 THEN price ELSE amount END AS pm, CASE WHEN id = 1 THEN ratio "
     "ELSE 1 END AS r FROM dbo.t_orders", ("numeric(19,4)", "real")),
    ("aggregates", "SELECT AVG(amount) AS a, SUM(qty) AS s, AVG(price) AS p FROM dbo.t_orders",
     ("numeric(38,6)", "int", "money")),
    ("scalar-function", "SELECT dbo.f_rate(id) AS r FROM dbo.t_orders", ("numeric(6,3)",)),
]

VARIABLES = {"d": "decimal(5,2)", "s": "varchar(7)"}
VARIABLE_SHAPES = [
    ("variables", "SELECT @d * 2 AS x, @s + 'ab' AS y", ("numeric(7,2)", "varchar(9)")),
]


def spelled(datatype) -> str:
    """A type as SQL Server names it, lower case without spaces: `numeric(11,1)`, `varchar(4)`, `real`."""
    if datatype is None:
        return "unknown"
    text = datatype.sql("tsql").lower().replace(" ", "")
    text = re.sub(r"^decimal", "numeric", text)
    return {"float": "real", "float(24)": "real", "integer": "int"}.get(text, text)


def model_types(sql: str, variables: dict[str, str] | None = None) -> tuple[str, ...]:
    statements = parse_statements(sql)
    tree = statements[-1].tree
    types = Types(CAPTURE.database)
    for name, text in (variables or {}).items():
        types.variables[name] = type_of_declaration(text)
    for statement in statements[:-1]:  # a batch's SELECT ... INTO makes a temp table the last statement reads
        select_into(statement.tree, Context(CAPTURE.database, NameMap.for_database(CAPTURE.database), Options(), types))
    return tuple(spelled(types.query_column(tree, k)) for k in range(len(tree.selects)))


@pytest.mark.parametrize(("shape", "sql", "documented"), SHAPES + VARIABLE_SHAPES,
                         ids=[s[0] for s in SHAPES + VARIABLE_SHAPES])
def test_the_model_gives_sql_servers_documented_type(shape, sql, documented):
    variables = VARIABLES if shape == "variables" else None
    assert model_types(sql, variables) == documented


def test_a_temp_table_made_by_select_into_has_the_projected_types():
    batch = ("SELECT id, amount * 2 AS twice, name + 'x' AS label INTO #t FROM dbo.t_orders; "
             "SELECT twice / 3 AS third, label FROM #t")
    assert model_types(batch) == ("numeric(16,6)", "varchar(11)")


def test_a_cte_that_reads_itself_outside_a_union_is_unknown_not_a_loop():
    assert model_types("WITH c AS (SELECT n FROM c) SELECT n FROM c") == ("unknown",)


def test_a_branch_of_unknown_type_makes_the_column_unknown():
    """One branch the model cannot type (a table outside the schema) is not guessed from the others."""
    assert model_types("SELECT 1 AS x UNION SELECT y FROM dbo.elsewhere") == ("unknown",)
    assert model_types("SELECT CASE WHEN id = 1 THEN 1 ELSE @unknown END AS c FROM dbo.t_orders") == ("unknown",)


# On the SQL Server endpoint -------------------------------------------------------------------

DEPARTURES = {
    "numeric(38,38)": "a computed numeric is described as numeric(38, 38)",
    "varchar(max)": "a computed string is described as varchar(max)",
    "nvarchar(max)": "a computed string is described as varchar(max)",
    "text": "IIF of strings is described as text",
    "datetime2(6)": "datetime2 is described with 6 fractional digits",
}
"""What `sp_describe_first_result_set` on Babelfish says instead of SQL Server's type, and why (docs/babelfish.md,
"Types the endpoint describes otherwise")."""


def described(cursor, sql: str) -> tuple[str, ...]:
    """The types `sp_describe_first_result_set` gives a query's columns, spelled as `spelled` spells them."""
    cursor.execute("EXEC sp_describe_first_result_set @tsql = ?", sql)
    out = []
    for row in cursor.fetchall():
        name, length, precision, scale = row[5].lower(), row[6], row[7], row[8]
        if name in ("decimal", "numeric"):
            out.append(f"numeric({precision},{scale})")
        elif name in ("varchar", "char", "varbinary", "binary"):
            out.append(f"{name}({'max' if length == -1 else length})")
        elif name in ("nvarchar", "nchar"):
            out.append(f"{name}({'max' if length == -1 else length // 2})")
        elif name == "datetime2":
            out.append(f"datetime2({scale})")
        else:
            out.append(name)
    return tuple(out)


@pytest.fixture(scope="module")
def endpoint(mssql):
    database = mssql.create_database("t_type_model")
    conn = mssql.connect(database)
    cursor = conn.cursor()
    for batch in SCHEMA.read_text(encoding="utf-8").split("GO"):
        if batch.strip():
            cursor.execute(batch)
    yield conn
    conn.close()


@pytest.mark.parametrize(("shape", "sql", "documented"), SHAPES, ids=[s[0] for s in SHAPES])
def test_the_endpoint_describes_the_documented_type(endpoint, shape, sql, documented):
    """Each column as Babelfish describes it: SQL Server's documented type, or one of its listed departures (it
    describes a query with a CTE as no columns at all)."""
    found = described(endpoint.cursor(), sql)
    if not found:
        assert sql.lstrip().upper().startswith("WITH"), f"{shape}: the endpoint describes no column"
        return
    assert len(found) == len(documented)
    for theirs, ours in zip(found, documented, strict=True):
        assert theirs == ours or theirs in DEPARTURES and _same_kind(theirs, ours), (shape, theirs, ours)


def _same_kind(theirs: str, ours: str) -> bool:
    return theirs.split("(")[0] == ours.split("(")[0] or theirs == "text" and ours.startswith("varchar")


def test_every_described_departure_is_in_the_docs():
    docs = (Path(__file__).resolve().parents[2] / "docs" / "babelfish.md").read_text(encoding="utf-8")
    for why in set(DEPARTURES.values()):
        assert why in docs, why


# Answers on data ------------------------------------------------------------------------------

ANSWERS = [
    ("integer-division-through-a-union-cte",
     "WITH r AS (SELECT 1 AS k, 15 AS v UNION SELECT 2, 10 UNION SELECT 3, -2) SELECT k, v / 4 FROM r"),
    ("integer-division-through-a-recursive-cte",
     "WITH c (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 5) SELECT n, n / 2 FROM c"),
    ("integer-division-through-values", "SELECT v.a, v.a / 2 FROM (VALUES (1), (3), (5)) AS v(a)"),
    ("integer-division-through-a-view", "SELECT id, qty2 / 4 FROM dbo.v_orders"),
    ("integer-division-through-apply", "SELECT t.id, a.m / 2 FROM dbo.t_orders AS t CROSS APPLY "
     "(SELECT TOP 1 qty AS m FROM dbo.t_orders AS s WHERE s.id = t.id ORDER BY qty DESC) AS a"),
    ("integer-division-through-a-derived-table", "SELECT d.id, d.q / 2 FROM (SELECT id, qty + 2 AS q FROM dbo.t_orders) AS d"),
    ("integer-division-of-a-scalar-subquery",
     "SELECT (SELECT MAX(q) FROM (SELECT qty AS q FROM dbo.t_orders UNION SELECT 9) AS u) / 2"),
    ("integer-division-of-case", "SELECT id, CASE WHEN id > 2 THEN qty ELSE id END / 2 FROM dbo.t_orders"),
    ("char-padding-through-a-cte", "WITH c AS (SELECT id, code FROM dbo.t_orders) SELECT id, code + '|' FROM c"),
    ("the-motivating-query",
     "WITH VoteRep AS (SELECT 1 AS VoteTypeId, 15 AS Rep UNION SELECT 2, 10 UNION SELECT 3, -2), "
     "Raw AS (SELECT id AS PostId, SUM(VoteRep.Rep) AS Rep FROM dbo.t_orders JOIN VoteRep ON dbo.t_orders.qty = "
     "VoteRep.VoteTypeId GROUP BY id) SELECT Rep / 10 AS N, COUNT(*) AS c, AVG(1.0 * Rep) AS a FROM Raw GROUP BY Rep / 10"),
]
BATCHES = [
    ("integer-division-of-a-variable", "DECLARE @n int = 7; SELECT @n / 2"),
    ("integer-division-through-select-into", "SELECT id, qty INTO #q FROM dbo.t_orders; SELECT id, qty / 2 FROM #q"),
    ("integer-division-through-a-table-variable",
     "DECLARE @t TABLE (n int); INSERT INTO @t (n) VALUES (7), (9); SELECT n / 2 FROM @t"),
]


@pytest.fixture(scope="module")
def tidb_side(tidb):
    from meaning import answer_tidb
    from translate_golden import ddl_statements

    database = tidb.create_database("t_type_model")
    conn = tidb.connect(database)
    with conn.cursor() as cursor:
        for statement in ddl_statements(CAPTURE):
            cursor.execute(statement)
    rows = SCHEMA.read_text(encoding="utf-8").split("GO")[-2]
    assert answer_tidb(conn, _translated(rows)).error is None
    yield conn
    conn.close()


def _translated(sql: str) -> str:
    result = translate_sql(sql, database=CAPTURE.database, names=NameMap.for_database(CAPTURE.database), options=Options())
    assert result.target_sql is not None and result.status in ("translated", "rewritten"), result.notes
    return result.target_sql


@pytest.mark.parametrize(("shape", "sql"), ANSWERS + BATCHES, ids=[a[0] for a in ANSWERS + BATCHES])
def test_an_answer_through_the_shape_is_sql_servers(endpoint, tidb_side, shape, sql):
    from meaning import answer_tidb, rows_of

    from sqlsrv2tidb.translate.emit import split_target_sql

    cursor = endpoint.cursor()
    cursor.execute(sql)
    while cursor.description is None and cursor.nextset():
        pass
    on_sql_server = rows_of(cursor)
    *before, last = split_target_sql(_translated(sql))
    with tidb_side.cursor() as tidb_cursor:
        for statement in before:
            tidb_cursor.execute(statement)
    on_tidb = answer_tidb(tidb_side, last)
    assert on_tidb.error is None and on_tidb.rows == on_sql_server, f"{shape}\n  SQL Server: {on_sql_server}\n  TiDB: {on_tidb}"


def test_an_insert_without_a_column_list_into_a_temp_table_skips_its_identity():
    batch = "CREATE TABLE #t (id int IDENTITY(1, 1) PRIMARY KEY, n int); INSERT INTO #t VALUES (2.5)"
    result = translate_sql(batch, database=CAPTURE.database, names=NameMap.for_database(CAPTURE.database), options=Options())
    assert "VALUES (TRUNCATE(2.5, 0))" in result.target_sql and "QY78" in {n.code for n in result.notes}
