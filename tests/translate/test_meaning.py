"""The meaning check: a query's T-SQL on the SQL Server endpoint and its translation on TiDB, over the
same rows, give the same answer (`meaning`).

Every golden pair that is one query with a fixed answer is compared, which covers the classes the
execution check found (FULL OUTER JOIN, a bare `*`, GROUP BY expressions, TOP in IN, a table name's
case, ORDER BY after a union, date strings, AVG of an int, decimal division) and those the golden
pairs always covered. A pair whose answers differ must be pinned with why (`PINS`): Babelfish, the
suite's TDS endpoint, answering differently from SQL Server (then TiDB must give SQL Server's
documented answer) or not running it at all; a difference the translation flags for review; the
padding of a char(n) column (a type difference no query rewrite removes). A pin that no longer
differs fails too, so the list stays true. A division by zero, which no pair can show (SQL Server
fails), is checked on its own.
"""

from __future__ import annotations

import decimal

import pytest
from meaning import Answer, TdsSide, answer_tidb, create_on_tds, create_on_tidb, normalize, same, skipped
from translate_golden import golden_capture, read_cases

from sqlsrv2tidb.options import Options
from sqlsrv2tidb.translate.naming import NameMap
from sqlsrv2tidb.translate.queries import translate_sql

CASES = [c for c in read_cases() if skipped(c) is None]

def _rows(*rows: tuple) -> tuple[tuple, ...]:
    """Rows as `meaning` normalises them, in its order."""
    return tuple(sorted((tuple(normalize(v) for v in row) for row in rows), key=repr))


D = decimal.Decimal
REFUSES = "babelfish-refuses"
_HIERARCHYID = ("the endpoint has no hierarchyid (its dbo.org is varbinary and empty); SQL Server's documented answer: "
                "nodes depth-first with each level's labels as numbers, GetLevel, GetAncestor, IsDescendantOf, ToString")
PINS: dict[str, tuple[str, str, tuple[tuple, ...] | None]] = {
    "052": ("babelfish", "DATEDIFF(quarter) counts the quarter boundaries crossed, one from 2024-03-31 to 2024-04-01; "
            "Babelfish counts none", _rows((0,), (0,), (1,), (None,))),
    "092": ("babelfish", "style 121 always writes milliseconds (yyyy-mm-dd hh:mi:ss.mmm); Babelfish drops a .000",
            _rows(("2024-05-01 09:00:00.123",), ("2024-05-01 17:30:00.000",))),
    "094": ("flagged", "CONVERT(int, code) fails in SQL Server on 'A1'; TiDB converts it to 0", None),
    "100": (REFUSES, "a datetimeoffset result cannot be read through FreeTDS (ODBC type -155)", None),
    "107": (REFUSES, "FORMAT() fails in Babelfish (lc_numeric)", None),
    "129": (REFUSES, "TOP ... PERCENT", None),
    "130": (REFUSES, "TOP ... WITH TIES", None),
    "131": (REFUSES, "TOP ... PERCENT", None),
    "155": (REFUSES, "UNPIVOT", None),
    "157": ("flagged", "Babelfish writes element tags around an unnamed column that SQL Server does not write, and SQL "
            "Server's CI_AS collation sorts '[Special]' before the letters where TiDB's sorts it after", None),
    "158": ("babelfish", "Babelfish writes element tags around an unnamed column that SQL Server does not write",
            _rows((1, "new, paid"), (2, "paid"), (3, "void"))),
    "259": ("babelfish", "money converted to an integer rounds in SQL Server (0.50 is 1, 100.50 is 101); Babelfish "
            "truncates", _rows(*[(p, b) for p in (1, 1, 0, 10) for b in (101, 0, None)])),
    "272": (REFUSES, "GROUP BY ... WITH ROLLUP", None),
    "288": ("flagged", "nvarchar + int fails in SQL Server on 'Ann'; TiDB adds 0", None),
    "290": ("flagged", "datetime + '00:10' adds ten minutes in SQL Server; TiDB adds to the number YYYYMMDDhhmmss", None),
    "292": (REFUSES, "Babelfish drops the connection when ISNULL over a char(5) column returns a longer replacement", None),
    "295": (REFUSES, "(... FOR XML PATH(''), TYPE).value()", None),
    "308": ("char", "code is char(5): SQL Server returns 'A1   ', TiDB 'A1' (its CHAR drops trailing spaces on read); "
            "a difference of the column type, not of the query", None),
    "309": ("char", "code is char(5): SQL Server returns 'A1   ', TiDB 'A1' (its CHAR drops trailing spaces on read); "
            "a difference of the column type, not of the query", None),
    "320": (REFUSES, "Babelfish does not ignore trailing spaces in names, which SQL Server's name comparison does", None),
    "329": ("lenient", "SQL Server has no schema other: the pair shows that the translator types a table whose schema "
            "prefix is wrong; TiDB merges schemas, so the query runs there", None),
    "330": ("babelfish", "decimal without a precision is decimal(18, 0) in SQL Server (25.50 becomes 26) and a quotient "
            "of two of them decimal(37, 19); Babelfish keeps the fraction and PostgreSQL's scale",
            _rows((1, D("3.3333333333333333333")), (2, D("3.7142857142857142857")), (3, D("2.5")), (4, 0))),
    "337": ("babelfish", "ROUND of an int is an int (ROUND(35, -1) is 40); Babelfish fails with a numeric overflow",
            _rows((1, 15, 20), (2, 35, 40), (3, 10, 10), (4, 5, 10))),
    "340": ("babelfish", "POWER has its first argument's type: POWER(2.0, 0.5) is decimal(38, 1), 1.4; Babelfish returns "
            "a float's digits", _rows((1, 0, D("1.4")))),
    "349": ("babelfish", "a real converted to money is rounded from its single-precision value: 1.63625 is "
            "1.6362500190734863 as real, so 1.6363, and 9.21375 is 9.213749885559082, so 9.2137; Babelfish rounds the "
            "real's shortest decimal form half to even (1.6362, 9.2138)", _rows((D("1.6363"), D("9.2137")))),
    "352": ("babelfish", "DATEDIFF(week) counts the Sundays crossed whatever DATEFIRST says: 6125 from 1900-01-01 to "
            "2017-05-27 (a Saturday), 1 from a Saturday to the Sunday after, 0 from a Sunday to the Saturday after; "
            "Babelfish counts Mondays (6126, 0, 1)", _rows((6125, 1, 0))),
    "354": ("babelfish", "a datetime converted to text without a style is written in style 0, as CONVERT(..., 100) "
            "writes it ('Mar  1 2024 10:59AM'); Babelfish writes an ISO date for the CAST (and style 100 for the CONVERT)",
            _rows(*[(i, t, t) for i, t in ((1, "Mar  1 2024 10:59AM"), (2, "Mar 31 2024 11:00PM"),
                                          (3, "Dec 31 2024 12:00PM"), (4, "Jun 15 2023  8:00AM"))])),
    "355": ("babelfish", "money converted to text without a style has two decimals (style 0: 1.25); Babelfish writes four",
            _rows((1, "1.25"), (2, "0.50"), (3, "0.30"), (4, "9.99"))),
    "357": ("babelfish", "HASHBYTES of an nvarchar hashes its UTF-16LE bytes in SQL Server (HASHBYTES('MD5', N'e') differs "
            "from HASHBYTES('MD5', 'e') for that reason); Babelfish hashes the text's UTF-8 bytes",
            _rows((1, b'\xd6\x94k\x9a\x84\x9b\x11Aa|\x89\xa6\x81\x8eI\xe9W\xaa\x03\xca\x8ev\xb3\xc0\xc4\xff\xe3C\x04\x98\x02\xdb'), (2, b'\xca\xc2\xf6\x88F\xcbs\xef\xa8\x85v\x0fP#Y7\x1dH\xcc\\\xdc\xbeoIf\xd1E\xe2\xbf\x16\xe0P'), (3, b'\xfa="\xef\xe8\xe9\x07\xad>72\x14\x9b\xf89v>\xc7> \xa1\xa1\x93\xe6\x96>\xc9\xae\xd3+\x0f\xa9'))),
    "360": ("flagged", "CHECKSUM's values are SQL Server's own hash; TiDB's CRC32 gives others, for the same uses", None),
    "364": (REFUSES, "SERVERPROPERTY returns sql_variant, which FreeTDS cannot read (ODBC descriptor type 0)", None),
    "367": ("babelfish", _HIERARCHYID, _rows((1, "/", 0, None), (2, "/1/", 1, 1), (3, "/1/1/", 2, 2), (6, "/1/2/", 2, 2),
                                              (4, "/1/10/", 2, 2), (5, "/2/", 1, 1))),
    "368": ("babelfish", _HIERARCHYID, _rows((2,), (3,), (4,), (6,))),
    "369": ("babelfish", _HIERARCHYID, _rows((6, "/1/2/"), (4, "/1/10/"), (5, "/2/"))),
    "370": ("babelfish", _HIERARCHYID, _rows((4,))),
    "348": ("babelfish", "2.0 / 3 is decimal(7, 6), truncated: 0.666666; Babelfish keeps PostgreSQL's 20 places, rounded",
            _rows((D("0.666666"),))),
}
"""Golden case -> (kind, why, SQL Server's documented rows for a `babelfish` pin, else None). Kinds: `babelfish` (Babelfish
answers differently from SQL Server, whose documented answer TiDB must give), `babelfish-refuses` (Babelfish cannot run
it), `flagged` (SQL Server and TiDB differ and the translation says review), `char` (a char(n) column's padding, a type
difference), `lenient` (SQL Server refuses the name; the pair tests the translator's typing)."""


@pytest.fixture(scope="module")
def tds(mssql):
    side = TdsSide(mssql, create_on_tds(mssql, "t_meaning_golden"))
    yield side
    side.close()


@pytest.fixture(scope="module")
def tidb_conn(tidb):
    conn = tidb.connect(create_on_tidb(tidb, "t_meaning_golden"))
    yield conn
    conn.close()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_golden_pair_means_the_same_on_tidb(tds, tidb_conn, case):
    on_sql_server = tds.answer(case.source)
    on_tidb = answer_tidb(tidb_conn, case.expected)
    pin = PINS.get(case.id)
    if pin is None:
        assert same(on_sql_server, on_tidb), f"{case.id} {case.title}\n  SQL Server: {on_sql_server}\n  TiDB:       {on_tidb}"
        return
    kind, why, documented = pin
    assert not same(on_sql_server, on_tidb), f"{case.id} is pinned ({why}) but both now answer {on_tidb}: remove the pin"
    if kind == "babelfish":
        assert documented is not None and on_tidb == Answer(documented), f"{case.id}: {why}\n  TiDB: {on_tidb}"
    elif kind == "flagged":
        assert case.status == "review", f"{case.id}: the answers differ ({why}) but the translation is {case.status}"
    elif kind in (REFUSES, "lenient"):
        assert on_sql_server.error is not None and on_tidb.error is None, (case.id, on_sql_server, on_tidb)
    else:
        assert kind == "char" and on_tidb.rows is not None, (case.id, kind)


def test_every_pin_is_a_compared_pair():
    assert set(PINS) <= {c.id for c in CASES}, sorted(set(PINS) - {c.id for c in CASES})


def test_a_division_by_zero_fails_on_sql_server_and_is_null_on_tidb_with_a_note(tds, tidb_conn):
    """SQL Server stops the query (error 8134); TiDB returns NULL for the row, so the translation says review."""
    tsql = "SELECT id, amount / (qty - 1) FROM dbo.orders"
    capture = golden_capture()
    translation = translate_sql(tsql, database=capture.database, names=NameMap.for_database(capture.database),
                                options=Options())
    assert translation.status == "review" and "QY61" in {n.code for n in translation.notes}
    on_sql_server = tds.answer(tsql)
    assert on_sql_server.error is not None and "8134" in on_sql_server.error
    on_tidb = answer_tidb(tidb_conn, translation.target_sql)
    assert on_tidb.rows is not None and any(row[1] is None for row in on_tidb.rows)


def test_every_babelfish_departure_is_in_the_docs():
    """docs/babelfish.md lists each pair whose answer Babelfish gives differently from SQL Server."""
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "babelfish.md").read_text(encoding="utf-8")
    listed = {line.split("|")[1].strip() for line in docs.splitlines() if line.startswith("| ") and line[2:5].isdigit()}
    assert {case for case, (kind, _, _) in PINS.items() if kind == "babelfish"} == listed
