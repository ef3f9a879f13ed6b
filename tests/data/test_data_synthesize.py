"""`data synthesize`: rows made from SQL Server's statistics keep the shape those statistics describe.

The statistics are computed by the tests from rows they hold, with SQL Server's definitions
(stats_from_rows.py): Northwind's own rows, read from the endpoint. The synthesized tables must
have exactly the captured row counts, null fractions and distinct counts within 5%, each histogram
step's rows within 10%, unique keys and foreign keys that all hold.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from data_helpers import SourceDb, by_table, data, document, loaded, target_rows
from stats_from_rows import column_statistics, order, step_counts

from sqlsrv2tidb import api
from sqlsrv2tidb.data.normalize import TargetType, normalize
from sqlsrv2tidb.data.synth_values import parse_key
from sqlsrv2tidb.data.tables import select_expression
from sqlsrv2tidb.model import Capture, TableStatistics, save_capture

NO_STATISTICS = {"ntext", "text", "image", "xml", "varbinary", "timestamp", "rowversion", "sql_variant"}


def capture_with_statistics(source: SourceDb, *, without: set[str] = frozenset()) -> tuple[Capture, dict]:
    """The source's capture with each table's row count and its columns' statistics, from its rows."""
    capture = api.read([source.capture])
    tables, held = [], {}
    for table in capture.database.tables:
        columns = [c for c in table.columns if c.computed is None]
        select = ", ".join(select_expression(c, TargetType.parse("TEXT")) for c in columns)
        rows = source.rows(f'SELECT {select} FROM "{table.schema}"."{table.name}"')
        stats = []
        for i, column in enumerate(columns):
            values = [r[i] for r in rows]
            held[(table.name.casefold(), column.name.casefold())] = values
            if column.type.name.casefold() not in NO_STATISTICS and f"{table.name}.{column.name}".casefold() not in without:
                stats.append(column_statistics(column.name, values))
        tables.append(replace(table, row_count=len(rows), statistics=TableStatistics(len(rows), tuple(stats))))
    return replace(capture, database=replace(capture.database, tables=tuple(tables))), held


def _shape_holds(target, database: str, capture: Capture) -> list[str]:
    """Each column with statistics, measured on the target: what is out of tolerance.

    A column of a foreign key of several columns can only take the pairs the (itself synthesized)
    parent holds, and SQL Server's statistics are per column: nothing says which pairs the source
    had, so both columns' counts cannot always be met at once. For those, the rows that would have
    to move to another step to match the histogram must be under 10% of the column.
    """
    problems = []
    for table in capture.database.tables:
        paired = {c.casefold() for fk in table.foreign_keys if len(fk.columns) > 1 for c in fk.columns}
        with target.connect(database) as conn, conn.cursor() as cur:
            cur.execute("SELECT column_name, column_type FROM information_schema.columns "
                        "WHERE table_schema = DATABASE() AND table_name = %s", (table.name,))
            types = {n.casefold(): TargetType.parse(t) for n, t in cur.fetchall()}
        assert target_rows(target, database, f"SELECT COUNT(*) FROM `{table.name}`")[0][0] == table.row_count
        for stats in table.statistics.columns:
            name = stats.column.casefold()
            read = f"SELECT CAST(`{stats.column}` AS DOUBLE)" if types[name].family == "float" else f"SELECT `{stats.column}`"
            values = [normalize(r[0], types[name]) for r in target_rows(target, database, f"{read} FROM `{table.name}`")]
            column = table.column(stats.column)

            def parse(text, column=column, kind=types[name]):
                return normalize(parse_key(text, column.type), kind, column.type.name.casefold())
            where = f"{table.name}.{stats.column}"
            nulls = sum(v is None for v in values) / max(len(values), 1)
            if abs(nulls - (stats.null_fraction or 0)) > 0.05:
                problems.append(f"{where}: null fraction {nulls:.3f}, statistics {stats.null_fraction:.3f}")
            distinct = len({order(v) for v in values if v is not None})
            if stats.distinct and abs(distinct - stats.distinct) > 0.05 * stats.distinct:
                problems.append(f"{where}: {distinct} distinct, statistics {stats.distinct:g}")
            steps = step_counts(stats.histogram, values, parse)
            if name in paired:
                moved = sum(abs(found - expected) for expected, found in steps) / 2
                if moved > 0.1 * sum(expected for expected, _ in steps):
                    problems.append(f"{where}: {moved:g} rows away from their histogram step")
                continue
            for number, (expected, found) in enumerate(steps):
                if abs(found - expected) > max(0.1 * expected, 1 if expected >= 10 else 0):
                    problems.append(f"{where}: step {number + 1} holds {found} rows, statistics {expected:g}")
    return problems


@pytest.mark.slow
def test_northwind_synthesized_from_its_statistics_keeps_their_shape(target, target_database, northwind, tmp_path):
    capture, _ = capture_with_statistics(northwind, without={"customers.fax", "employees.extension"})
    save_capture(capture, tmp_path / "capture.json")
    out = tmp_path / "out"
    doc = loaded("synthesize", str(tmp_path / "capture.json"), "-o", str(out), "--target", target.url(target_database),
                  "--confirm-database", target_database, "--create-tables", "--seed", "5")
    assert doc["mode"] == "synthesize" and all(t["verify"]["status"] == "equal" for t in doc["tables"]), \
        [(t["name"], t["verify"]) for t in doc["tables"]]
    problems = _shape_holds(target, target_database, capture)
    assert not problems, "\n".join(problems)
    # Every foreign key points at a parent row (--create-tables added them after the load, and they held).
    assert target_rows(target, target_database, "SELECT COUNT(*) FROM information_schema.referential_constraints "
                                                "WHERE constraint_schema = DATABASE()")[0][0] == 13
    # And, last, Northwind's sixteen views, which read the generated rows.
    assert doc["summary"]["views_created"] == 16 and not doc["views"]["not_created"]
    assert target_rows(target, target_database, "SELECT COUNT(*) FROM information_schema.views "
                                                "WHERE table_schema = DATABASE()")[0][0] == 16
    assert target_rows(target, target_database, "SELECT COUNT(*) FROM `order subtotals`")[0][0] == \
        target_rows(target, target_database, "SELECT COUNT(DISTINCT orderid) FROM `order details`")[0][0]
    columns = {c["name"].casefold(): c["values"] for c in by_table(doc)["dbo.customers"]["columns"]}
    assert columns["fax"].startswith("no statistics") and columns["city"].startswith("histogram of")
    assert any(f["rule"] == "DA05" and f["object"] == "dbo.customers" for f in doc["findings"])


@pytest.mark.slow
def test_the_same_seed_gives_the_same_rows_and_scale_multiplies_them(mariadb, database, northwind, tmp_path):
    capture, _ = capture_with_statistics(northwind)
    save_capture(capture, tmp_path / "capture.json")
    args = ["synthesize", str(tmp_path / "capture.json"), "--target", mariadb.url(database), "--confirm-database",
            database, "--seed", "9", "--table", "orders", "--table", "customers", "--table", "employees",
            "--table", "shippers"]
    first = data(*args, "-o", str(tmp_path / "a"), "--create-tables")
    assert first.exit_code == 0, first.output
    rows = target_rows(mariadb, database, "SELECT * FROM orders ORDER BY orderid")
    again = data(*args, "-o", str(tmp_path / "b"), "--truncate")
    assert again.exit_code == 0, again.output
    assert target_rows(mariadb, database, "SELECT * FROM orders ORDER BY orderid") == rows
    doubled = data(*args, "-o", str(tmp_path / "c"), "--truncate", "--scale", "2")
    assert doubled.exit_code == 0, doubled.output
    tables = by_table(document(tmp_path / "c"))
    assert tables["dbo.orders"]["rows"] == 2 * 830 and tables["dbo.orders"]["verify"]["status"] == "equal"
    assert target_rows(mariadb, database, "SELECT COUNT(DISTINCT orderid) FROM orders")[0][0] == 1660


@pytest.mark.slow
def test_columns_without_statistics_get_values_from_their_type(mariadb, database, northwind, tmp_path):
    """DA05: a capture without any statistics (Babelfish keeps none) still loads valid rows, said per column."""
    capture = api.read([northwind.capture])
    counted = replace(capture, database=replace(capture.database, tables=tuple(
        replace(t, row_count=40) for t in capture.database.tables)))
    save_capture(counted, tmp_path / "capture.json")
    out = tmp_path / "out"
    doc = loaded("synthesize", str(tmp_path / "capture.json"), "-o", str(out), "--target", mariadb.url(database),
                  "--confirm-database", database, "--create-tables")
    assert all(t["verify"]["status"] == "equal" for t in doc["tables"])
    products = by_table(doc)["dbo.products"]
    values = {c["name"].casefold(): c["values"] for c in products["columns"]}
    assert values["unitprice"].startswith("no statistics") and "CHECK" in values["unitprice"]
    assert values["categoryid"].startswith("a key of dbo.categories")
    assert target_rows(mariadb, database, "SELECT MIN(unitprice) >= 0, MIN(unitsinstock) >= 0 FROM products")[0] == (1, 1)
    assert {f["rule"] for f in doc["findings"]} == {"DA05"}


def test_a_live_capture_says_in_one_line_when_statistics_cannot_be_read(chinook):
    """Babelfish keeps no SQL Server statistics (and calls itself SQL Server 2014): one finding, and the rest is read."""
    capture = api.read([chinook.capture])
    said = [f for f in capture.findings if f.rule == "IN49"]
    if not chinook.mssql.babelfish:
        assert not said and any(t.statistics for t in capture.database.tables)
        return
    assert len(said) == 1 and "\n" not in said[0].message and len(capture.database.tables) == 11
    assert all(t.statistics is None for t in capture.database.tables)


@pytest.mark.slow
@pytest.mark.answers  # corpus-wide (every AdventureWorks table, on every target): the answers step's; Northwind's above
def test_adventureworks_synthesized_from_its_statistics_keeps_their_shape(target, target_database, adventureworks,
                                                                          tmp_path):
    """The rows the tests generated for AdventureWorks, as statistics; then AdventureWorks again, from them."""
    capture, _ = capture_with_statistics(adventureworks)
    save_capture(capture, tmp_path / "capture.json")
    out = tmp_path / "out"
    doc = loaded("synthesize", str(tmp_path / "capture.json"), "-o", str(out), "--target", target.url(target_database),
                  "--confirm-database", target_database, "--create-tables", "--seed", "3")
    assert len(doc["tables"]) == 71 and all(t["verify"]["status"] == "equal" for t in doc["tables"]), \
        [(t["name"], t["verify"]["first_differences"][:2]) for t in doc["tables"] if t["verify"]["status"] != "equal"]
    problems = _shape_holds(target, target_database, capture)
    assert not problems, "\n".join(problems)
    # --create-tables added every foreign key after the load: they all held.
    assert target_rows(target, target_database, "SELECT COUNT(*) FROM information_schema.referential_constraints "
                                                "WHERE constraint_schema = DATABASE()")[0][0] >= 80
