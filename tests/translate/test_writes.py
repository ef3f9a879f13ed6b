"""Values written into a column keep SQL Server's meaning: each write runs on the SQL Server endpoint as T-SQL and,
translated, on TiDB and on MySQL, from the same rows, and the stored rows are compared.

SQL Server truncates a decimal or float stored into an integer column (14.70 is 14; TiDB and MySQL round to 15),
refuses a string that is no whole number there ('1.5': Msg 245), rounds a datetime to 1/300 second and a
smalldatetime to the minute, counts a number stored into a datetime as days from 1900-01-01, and rounds decimals
and money half away from zero (as TiDB and MySQL do: those are checked, not rewritten). tsql-writes.md, §4, §5
and §11, has the documented rules and what was measured here.

The endpoint is Babelfish, which is not SQL Server: where it stores otherwise than SQL Server's documented
conversion, the case pins SQL Server's documented rows (`documented`) and docs/babelfish.md names the departure.
`naive` is the statement as TiDB would take it without the rewrite: its rows must differ from SQL Server's, so
each case shows a difference the translation removes.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass, field
from decimal import Decimal as D
from pathlib import Path

import pytest
from engines import options_for
from meaning import normalize
from translate_golden import ddl_statements

from sqlsrv2tidb import api
from sqlsrv2tidb.translate.emit import split_target_sql
from sqlsrv2tidb.translate.naming import NameMap
from sqlsrv2tidb.translate.queries import translate_sql
from sqlsrv2tidb.translate.session import StatementSession

SCHEMA = Path(__file__).resolve().parent / "writes" / "schema.sql"
CAPTURE = api.read([SCHEMA])
T = datetime.datetime


@dataclass(frozen=True)
class WriteCase:
    id: str
    statement: str
    read: str
    rows: str = "INSERT INTO dbo.w (id, i) VALUES (1, 14)"
    """T-SQL that puts the rows the statement starts from (run on both sides, translated for the target)."""
    naive: str | None = None
    documented: tuple[tuple, ...] | None = None
    """SQL Server's documented rows where Babelfish stores otherwise (its departure is in docs/babelfish.md)."""
    why: str = ""
    refused: bool = False
    """SQL Server refuses the statement: the target must refuse it too, and store nothing."""
    notes: tuple[str, ...] = field(default=("QY78",))
    review: bool = False
    """The translation says review: what it cannot keep is named in its note."""
    naive_on: tuple[str, ...] = ("tidb", "mysql")
    """The targets on which `naive` stores otherwise than SQL Server."""


SOURCE = ("INSERT INTO dbo.src (id, amount, ratio, moment, label) VALUES "
          "(1, 14.70, 2.99, '2024-01-01 10:30:00.005', '15'), (2, -14.70, -2.99, '2024-12-31 23:59:59.999', ' 7 '), "
          "(3, 1.50, 0.5, '2024-01-01 10:30:29.998', 'x'), (4, 2.49, 1e1, '2024-01-01 10:30:29.999', '1.5')")
MOMENTS = ("INSERT INTO dbo.src (id, moment) VALUES (1, '2024-01-01 10:30:00.995'), (2, '2024-01-01 10:30:00.998'), "
           "(3, '2024-01-01 10:30:00.992'), (4, '2024-01-01 10:30:00.994'), (5, '2024-01-01 10:30:00.991'), "
           "(6, '2024-01-01 10:30:00.005'), (7, '2024-01-01 10:30:00.008'), (8, '2024-01-01 10:30:00.009'), "
           "(9, '2024-01-01 10:30:00.001'), (10, '2024-01-01 10:30:00.002'), (11, '2024-12-31 23:59:59.999'), "
           "(12, '2024-01-01 10:30:29.998'), (13, '2024-01-01 10:30:29.999'), (14, '2024-01-01 23:59:30')")
"""The datetime table of tsql-writes.md §4 (SQL Server's documentation) and the smalldatetime boundary."""

CASES = [
    WriteCase("int-update-product", "UPDATE dbo.w SET i = i * 1.05", "SELECT id, i FROM dbo.w",
              naive="UPDATE w SET i = i * 1.05"),
    WriteCase("int-insert-values",
              "INSERT INTO dbo.w (id, i, b, s, t) VALUES (2, 14.70, -14.70, CAST(2.9 AS float), 2.99)",
              "SELECT id, i, b, s, t FROM dbo.w",
              naive="INSERT INTO w (id, i, b, s, t) VALUES (2, 14.70, -14.70, CAST(2.9 AS DOUBLE), 2.99)"),
    WriteCase("int-insert-select", "INSERT INTO dbo.w (id, i, b) SELECT id + 10, amount, ratio FROM dbo.src",
              "SELECT id, i, b FROM dbo.w", rows=SOURCE,
              naive="INSERT INTO w (id, i, b) SELECT id + 10, amount, ratio FROM src"),
    WriteCase("int-insert-star", "INSERT INTO dbo.w (id, i) SELECT * FROM (SELECT id + 10 AS id, amount FROM dbo.src) AS s",
              "SELECT id, i FROM dbo.w", rows=SOURCE),
    WriteCase("int-update-from", "UPDATE dbo.w SET i = s.amount, b = s.ratio FROM dbo.w JOIN dbo.src AS s ON s.id = dbo.w.id",
              "SELECT id, i, b FROM dbo.w", rows=SOURCE + "; INSERT INTO dbo.w (id) VALUES (1), (2), (3), (4)",
              naive="UPDATE w JOIN src AS s ON s.id = w.id SET w.i = s.amount, w.b = s.ratio"),
    WriteCase("int-union-all", "INSERT INTO dbo.w (id, i) SELECT 20, 1.5 UNION ALL SELECT 21, 2 UNION ALL SELECT 22, -2.5",
              "SELECT id, i FROM dbo.w", rows="SELECT 1",
              naive="INSERT INTO w (id, i) SELECT 20, 1.5 UNION ALL SELECT 21, 2 UNION ALL SELECT 22, -2.5"),
    WriteCase("int-union", "INSERT INTO dbo.w (id, i) SELECT id + 30, amount FROM dbo.src UNION SELECT 40, 1.5",
              "SELECT id, i FROM dbo.w", rows=SOURCE,
              naive="INSERT INTO w (id, i) SELECT id + 30, amount FROM src UNION SELECT 40, 1.5"),
    WriteCase("int-variable", "DECLARE @r decimal(5, 2) = 14.70; UPDATE dbo.w SET i = @r", "SELECT id, i FROM dbo.w",
              naive="UPDATE w SET i = 14.70"),
    WriteCase("int-through-cte", "WITH c AS (SELECT id, i FROM dbo.w) UPDATE c SET i = i * 1.05", "SELECT id, i FROM dbo.w",
              documented=((1, 14),), why="UPDATE through a CTE is refused ('relation \"c\" does not exist'); SQL Server "
              "updates the base table's row, 14.70 truncated to 14"),
    WriteCase("int-text-literal", "UPDATE dbo.w SET i = '1.5'", "SELECT id, i FROM dbo.w", refused=True,
              naive="UPDATE w SET i = '1.5'"),
    WriteCase("int-empty-text", "UPDATE dbo.w SET i = ''", "SELECT id, i FROM dbo.w", naive="UPDATE w SET i = ''"),
    WriteCase("int-text-column", "UPDATE dbo.w SET i = s.label FROM dbo.w JOIN dbo.src AS s ON s.id = dbo.w.id WHERE s.id < 3",
              "SELECT id, i FROM dbo.w", rows=SOURCE + "; INSERT INTO dbo.w (id) VALUES (1), (2)", review=True),
    WriteCase("int-text-column-refused",
              "UPDATE dbo.w SET i = s.label FROM dbo.w JOIN dbo.src AS s ON s.id = dbo.w.id",
              "SELECT id, i FROM dbo.w", rows=SOURCE + "; INSERT INTO dbo.w (id) VALUES (1), (4)", refused=True, review=True,
              naive="UPDATE w JOIN src AS s ON s.id = w.id SET w.i = s.label"),
    WriteCase("int-money", "UPDATE dbo.w SET i = m", "SELECT id, i FROM dbo.w",
              rows="INSERT INTO dbo.w (id, m) VALUES (1, 2.5), (2, -2.5), (3, 2.4999)", notes=(),
              documented=((1, 3), (2, -3), (3, 2)),
              why="money stored into an integer column is rounded (CAST table: money to int, Round); Babelfish truncates"),
    WriteCase("datetime-literal",
              "INSERT INTO dbo.w (id, d, sd) VALUES (5, '2024-01-01 10:30:00.005', '2024-01-01 10:30:29.999'), "
              "(6, '2024-12-31 23:59:59.999', '2024-01-01 10:30:29.998')",
              "SELECT id, d, sd FROM dbo.w", rows="SELECT 1",
              naive="INSERT INTO w (id, d, sd) VALUES (5, '2024-01-01 10:30:00.005', '2024-01-01 10:30:29.999'), "
                    "(6, '2024-12-31 23:59:59.999', '2024-01-01 10:30:29.998')"),
    WriteCase("datetime-from-datetime2", "INSERT INTO dbo.w (id, d, sd) SELECT id, moment, moment FROM dbo.src",
              "SELECT id, d, sd FROM dbo.w", rows=MOMENTS,
              naive="INSERT INTO w (id, d, sd) SELECT id, moment, moment FROM src"),
    WriteCase("datetime-update", "UPDATE dbo.w SET sd = d, d = d2", "SELECT id, d, sd FROM dbo.w",
              rows="INSERT INTO dbo.w (id, d, d2) VALUES (1, '2024-01-01 10:30:29.997', '2024-01-01 10:30:00.005'), "
                   "(2, '2024-01-01 10:30:30', '2024-12-31 23:59:59.999')",
              naive="UPDATE w SET sd = d, d = d2"),
    WriteCase("datetime-variable", "DECLARE @when datetime2(3) = '2024-01-01 10:30:00.005'; UPDATE dbo.w SET d = @when",
              "SELECT id, d FROM dbo.w", naive="UPDATE w SET d = '2024-01-01 10:30:00.005'"),
    WriteCase("datetime-text-column", "UPDATE dbo.w SET d = v", "SELECT id, d FROM dbo.w",
              rows="INSERT INTO dbo.w (id, v) VALUES (1, '2024-01-01 10:30:00.005'), (2, '2024-03-05 23:59:59.999')",
              naive="UPDATE w SET d = v"),
    WriteCase("datetime-from-time", "UPDATE dbo.w SET d = tm", "SELECT id, d FROM dbo.w",
              rows="INSERT INTO dbo.w (id, tm) VALUES (1, '10:30:00.005'), (2, '23:59:59.999')", naive="UPDATE w SET d = tm"),
    WriteCase("datetime-from-number", "UPDATE dbo.w SET d = i", "SELECT id, d FROM dbo.w",
              rows="INSERT INTO dbo.w (id, i) VALUES (1, 2), (2, 45000)"),
    WriteCase("update-reads-the-old-row", "UPDATE dbo.w SET i = i * 2, b = i", "SELECT id, i, b FROM dbo.w", notes=(),
              naive="UPDATE w SET i = i * 2, b = i", naive_on=("mysql",)),
    WriteCase("decimal-and-money", "INSERT INTO dbo.w (id, n, m) VALUES (7, 6.75, 1.23456), (8, -6.75, -0.00005), "
              "(9, 6.749, CAST(2.99 AS money) / 3), (10, 2.675E0, 0.00005)",
              "SELECT id, n, m FROM dbo.w", rows="SELECT 1", notes=()),
    WriteCase("decimal-arithmetic", "UPDATE dbo.w SET n = n * 1.05, m = m / 3", "SELECT id, n, m FROM dbo.w",
              rows="INSERT INTO dbo.w (id, n, m) VALUES (1, 6.5, 2.99), (2, -6.5, 1)", notes=()),
]

MERGE_CASES = [
    WriteCase("merge-update-insert",
              "MERGE dbo.w AS t USING (SELECT id, amount, moment FROM dbo.src) AS s ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET i = s.amount, d = s.moment "
              "WHEN NOT MATCHED THEN INSERT (id, i, d) VALUES (s.id, s.amount, s.moment);",
              "SELECT id, i, d FROM dbo.w", rows=SOURCE + "; INSERT INTO dbo.w (id, i) VALUES (1, 0), (2, 0)",
              documented=((1, 14, T(2024, 1, 1, 10, 30, 0, 7000)), (2, -14, T(2025, 1, 1)),
                          (3, 1, T(2024, 1, 1, 10, 30, 29, 997000)), (4, 2, T(2024, 1, 1, 10, 30, 30))),
              why="MERGE is refused ('MERGE' is not currently supported in Babelfish); SQL Server's rows follow its "
                  "conversions: decimals truncated into the integer column, datetime2 rounded to 1/300 second"),
    WriteCase("merge-values",
              "MERGE dbo.w AS t USING (VALUES (1, 2.5), (3, -2.5)) AS s (id, r) ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET i = s.r WHEN NOT MATCHED THEN INSERT (id, i) VALUES (s.id, s.r);",
              "SELECT id, i FROM dbo.w",
              documented=((1, 2), (3, -2)),
              why="MERGE is refused by Babelfish; SQL Server truncates 2.5 and -2.5 stored into an integer column"),
]


def _rounded(row: tuple) -> tuple:
    """A row as compared: numbers by value, a datetime to the millisecond (SQL Server's datetime holds 1/300 s,
    which a driver may give as .00667 or .007)."""
    out = []
    for value in row:
        if isinstance(value, datetime.datetime):
            value = value.replace(microsecond=round(value.microsecond, -3) if value.microsecond < 999500 else 999000)
        out.append(normalize(value))
    return tuple(out)


def _rows(rows) -> tuple[tuple, ...]:
    return tuple(sorted((_rounded(tuple(r)) for r in rows), key=repr))


class TdsWrites:
    """The write tables on the SQL Server endpoint."""

    def __init__(self, server) -> None:
        self.database = server.create_database("t_writes")
        self.conn = server.connect(self.database)
        cursor = self.conn.cursor()
        for batch in SCHEMA.read_text(encoding="utf-8").split("GO"):
            if batch.strip():
                cursor.execute(batch)

    def reset(self, rows: str) -> None:
        cursor = self.conn.cursor()
        cursor.execute("DELETE FROM dbo.w; DELETE FROM dbo.src")
        cursor.execute(rows)

    def run(self, sql: str) -> str | None:
        try:
            self.conn.cursor().execute(sql)
        except Exception as exc:  # noqa: BLE001 - a refusal is an outcome
            return " ".join(str(exc).split())[:200]
        return None

    def read(self, sql: str) -> tuple[tuple, ...]:
        return _rows(self.conn.cursor().execute(sql).fetchall())


class TargetWrites:
    """The write tables on TiDB or MySQL, by the tool's DDL, each statement by the translator."""

    def __init__(self, server) -> None:
        self.options = options_for(server)
        self.kind = server.kind
        database = server.create_database("t_writes")
        self.conn = server.connect(database)
        with self.conn.cursor() as cursor:
            for statement in ddl_statements(CAPTURE, self.options):
                cursor.execute(statement)

    def translated(self, sql: str):
        return translate_sql(sql, database=CAPTURE.database, names=NameMap.for_database(CAPTURE.database),
                             options=self.options)

    def reset(self, rows: str) -> None:
        with self.conn.cursor() as cursor:
            cursor.execute("DELETE FROM w")
            cursor.execute("DELETE FROM src")
        assert self.run(rows) is None

    def run(self, tsql: str) -> str | None:
        translation = self.translated(tsql)
        assert translation.target_sql is not None, translation.notes
        return self.run_target(translation.target_sql)

    def run_target(self, sql: str) -> str | None:
        try:
            with self.conn.cursor() as cursor:
                for statement in split_target_sql(sql):
                    cursor.execute(statement)
        except Exception as exc:  # noqa: BLE001 - a refusal is an outcome
            return " ".join(str(exc).split())[:200]
        return None

    def read(self, tsql: str) -> tuple[tuple, ...]:
        with self.conn.cursor() as cursor:
            cursor.execute(self.translated(tsql).target_sql)
            return _rows(cursor.fetchall())


@pytest.fixture(scope="module")
def tds(mssql):
    side = TdsWrites(mssql)
    yield side
    side.conn.close()


@pytest.fixture(scope="module", params=["tidb", "mysql"])
def target(request):
    side = TargetWrites(request.getfixturevalue(request.param))
    yield side
    side.conn.close()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_write_stores_what_sql_server_stores(tds, target, case):
    translation = target.translated(case.statement)
    assert {n.code for n in translation.notes} >= set(case.notes), translation.notes
    assert translation.status == ("review" if case.review else "rewritten" if case.notes else "translated") \
        or (not case.notes and translation.status == "rewritten"), translation.notes
    tds.reset(case.rows)
    target.reset(case.rows)
    refused_there, refused_here = tds.run(case.statement), target.run(case.statement)
    on_sql_server, on_target = tds.read(case.read), target.read(case.read)
    assert (refused_here is not None) == case.refused, (refused_here, on_target)
    if case.documented is not None:
        assert refused_there is not None or on_sql_server != _rows(case.documented), \
            f"{case.id} is pinned ({case.why}) but Babelfish now stores it"
        on_sql_server = _rows(case.documented)
    else:
        assert (refused_there is not None) == case.refused, refused_there
    assert on_target == on_sql_server, f"{case.id}\n  SQL Server: {on_sql_server}\n  target:     {on_target}"
    if case.naive is not None and target.kind in case.naive_on:
        target.reset(case.rows)
        target.run_target(case.naive)
        assert target.read(case.read) != on_sql_server, f"{case.id}: the target stores the same without the rewrite"


@pytest.mark.parametrize("case", MERGE_CASES, ids=[c.id for c in MERGE_CASES])
def test_a_merge_stores_what_sql_server_documents(tds, target, case):
    """Babelfish has no MERGE: its refusal is pinned, and the target must store SQL Server's documented rows."""
    tds.reset(case.rows)
    assert tds.run(case.statement) is not None, f"{case.id}: Babelfish runs MERGE now: compare it with the target"
    target.reset(case.rows)
    translation = target.translated(case.statement)
    assert translation.status in ("rewritten",) and "QY78" in {n.code for n in translation.notes}, translation.notes
    assert target.run(case.statement) is None
    assert target.read(case.read) == _rows(case.documented)


def test_a_swap_of_two_columns(tds, target):
    """`SET i = b, b = i` swaps in SQL Server and TiDB; MySQL assigns left to right and no order helps: flagged."""
    rows = "INSERT INTO dbo.w (id, i, b) VALUES (1, 1, 2)"
    tds.reset(rows)
    target.reset(rows)
    assert tds.run("UPDATE dbo.w SET i = b, b = i") is None
    translation = target.translated("UPDATE dbo.w SET i = b, b = i")
    assert target.run("UPDATE dbo.w SET i = b, b = i") is None
    swapped = tds.read("SELECT id, i, b FROM dbo.w")
    assert swapped == _rows([(1, 2, 1)])
    if target.kind == "mysql":
        assert translation.status == "review" and "MY24" in {n.code for n in translation.notes}
        assert target.read("SELECT id, i, b FROM dbo.w") != swapped
    else:
        assert translation.status == "translated" and target.read("SELECT id, i, b FROM dbo.w") == swapped


def test_the_procedure_runner_types_its_variables(target):
    """A statement of a procedure reads its variables' declared types from the session: a decimal(5, 2) variable
    stored into an integer column is truncated, a datetime2 one rounded to 1/300 second."""
    session = StatementSession(CAPTURE.database, NameMap.for_database(CAPTURE.database), target.options)
    session.declare("@r", "decimal(5,2)")
    session.declare("@when", "datetime2(3)")
    translation = session.statement(*_parsed("UPDATE dbo.w SET i = @r, d = @when WHERE id = @r - 13.70"))
    assert "QY78" in {n.code for n in translation.notes}
    target.reset("INSERT INTO dbo.w (id, i) VALUES (1, 0)")
    values = {"@r": D("14.70"), "@when": T(2024, 1, 1, 10, 30, 0, 5000)}
    with target.conn.cursor() as cursor:
        for sent in translation.statements:
            cursor.execute(sent.sql.replace("?", "%s"), [values[name.lower()] for name in sent.parameters])
    assert target.read("SELECT id, i, d FROM dbo.w") == _rows([(1, 14, T(2024, 1, 1, 10, 30, 0, 7000))])


def _parsed(sql: str):
    from sqlsrv2tidb.translate.statements import parse_statements

    return parse_statements(sql)[0].tree, sql


def test_every_pinned_write_is_in_the_docs():
    """docs/babelfish.md lists each write Babelfish stores otherwise than SQL Server, or refuses."""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "babelfish.md").read_text(encoding="utf-8")
    listed = {line.split("|")[1].strip() for line in docs.splitlines() if line.startswith("| w:")}
    assert {f"w:{c.id}" for c in [*CASES, *MERGE_CASES] if c.documented is not None} == listed
