"""The planted meaning changes (tests/compare/planted) are real: on the SQL Server endpoint and on the
target, each planted query's translation gives SQL Server's answer with its rewrite and another answer
without it (`Options.skip_rewrites`), so a comparison that misses one of them is caught.

The fixture is loaded as T-SQL into the TDS endpoint and through the tool's DDL and translated rows
into each target (MariaDB, TiDB); the case-insensitive comparison gets a second target database whose
DDL was planned without the collation mapping. Babelfish does not run TOP ... WITH TIES (nor PERCENT):
that case asserts the refusal and holds the target to the rows SQL Server's documented rule picks,
computed from the rows the endpoint holds.
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "translate"))
from compare_helpers import PLANTED, load_planted  # noqa: E402
from meaning import Answer, TdsSide, answer_tidb, normalize  # noqa: E402
from translate_golden import ddl_statements, split_statements  # noqa: E402

from sqlsrv2tidb import api  # noqa: E402
from sqlsrv2tidb.compare.shape import shape_of  # noqa: E402
from sqlsrv2tidb.model import Capture  # noqa: E402
from sqlsrv2tidb.options import Options  # noqa: E402
from sqlsrv2tidb.translate.naming import NameMap  # noqa: E402
from sqlsrv2tidb.translate.queries import translate_sql  # noqa: E402
from sqlsrv2tidb.translate.transforms import SKIPPABLE  # noqa: E402
from sqlsrv2tidb.translate.types import CASE_INSENSITIVE_COLLATION  # noqa: E402

QUERIES = sorted((PLANTED / "queries").glob("*.sql"))
TIES = "top_percent_or_ties"


@cache
def planted_capture() -> Capture:
    return api.read([PLANTED / "schema.sql"])


def translation(tsql: str, options: Options):
    database = planted_capture().database
    return translate_sql(tsql, database=database, names=NameMap.for_database(database), options=options)


@pytest.fixture(scope="module")
def tds(mssql):
    side = TdsSide(mssql, load_planted(mssql, "t_planted"))
    yield side
    side.close()


_LOADED: dict[tuple[int, bool], str] = {}


def planted_on(target, keep_collation: bool) -> str:
    """The planted schema by the tool's DDL (planned with or without the collation mapping) and the rows
    translated, in a database of `target`; loaded once per server and variant."""
    key = (id(target), keep_collation)
    if key not in _LOADED:
        options = Options() if keep_collation else Options(skip_rewrites={CASE_INSENSITIVE_COLLATION})
        name = target.create_database("t_planted" + ("" if keep_collation else "_bin"))
        rows = translation((PLANTED / "rows.sql").read_text(encoding="utf-8"), Options())
        assert rows.target_sql, rows.notes
        with target.connect(name) as conn, conn.cursor() as cursor:
            for statement in [*ddl_statements(planted_capture(), options), *split_statements(rows.target_sql)]:
                cursor.execute(statement)
            conn.commit()
        _LOADED[key] = name
    return _LOADED[key]


def on_target(target, keep_collation: bool, sql: str) -> Answer:
    conn = target.connect(planted_on(target, keep_collation))
    try:
        return answer_tidb(conn, sql)
    finally:
        conn.close()


def documented_top_with_ties(tds: TdsSide, tsql: str) -> Answer:
    """SQL Server's rule for `TOP (n) WITH TIES ... ORDER BY score DESC`: the first n rows in that order
    and every further row whose ORDER BY value equals the n-th row's; over the rows the endpoint holds."""
    rows = tds.answer("SELECT id, score FROM dbo.visits")
    assert rows.rows is not None, rows
    assert "TOP 2 WITH TIES id, score" in tsql and "ORDER BY score DESC" in tsql
    ordered = sorted(rows.rows, key=lambda row: row[1], reverse=True)
    last = ordered[1][1]
    kept = [row for row in ordered if row[1] >= last]
    return Answer(tuple(sorted(kept, key=repr)))


@pytest.mark.parametrize("query", QUERIES, ids=[q.stem for q in QUERIES])
def test_a_planted_change_is_kept_with_its_rewrite_and_lost_without_it(tds, target, query):
    name = query.stem
    tsql = query.read_text(encoding="utf-8")
    assert name in SKIPPABLE, f"{query.name} names no switch of Options.skip_rewrites"
    shape = shape_of(tsql, planted_capture().database)
    assert shape.not_comparable is None, shape  # the comparison judges it

    kept = translation(tsql, Options())
    naive = translation(tsql, Options(skip_rewrites={name}))
    assert kept.target_sql and naive.target_sql, (kept.notes, naive.notes)
    collation = name == CASE_INSENSITIVE_COLLATION
    if not collation:
        assert kept.target_sql != naive.target_sql, f"skipping {name} leaves the query as it was"
    with_rewrite = on_target(target, True, kept.target_sql)
    without = on_target(target, not collation, naive.target_sql)

    on_sql_server = tds.answer(tsql)
    if name == TIES:
        # Babelfish reads no TOP ... WITH TIES (in any spelling, nor TOP ... PERCENT): its parser stops at WITH.
        # The same TOP without WITH TIES runs, so the refusal is of the ties alone; SQL Server's documented
        # answer stands in for its own.
        refused = getattr(tds.server, "babelfish", False)
        if refused:
            assert on_sql_server.error is not None and "Target list missing from TOP clause" in on_sql_server.error, on_sql_server
            plain = tds.answer(tsql.replace(" WITH TIES", ""))
            assert plain.rows is not None and len(plain.rows) == 2, plain
            on_sql_server = documented_top_with_ties(tds, tsql)
        else:
            assert on_sql_server == documented_top_with_ties(tds, tsql), on_sql_server
    print(f"\n{target.kind} {name}\n  SQL Server:     {on_sql_server}\n  with rewrite:   {with_rewrite}"
          f"\n  without it:     {without}")
    assert on_sql_server.rows, on_sql_server
    assert with_rewrite == on_sql_server, f"{name}: with the rewrite\n  {with_rewrite}\n  SQL Server {on_sql_server}"
    assert without != on_sql_server, f"{name}: without the rewrite the answer is still SQL Server's: {without}"


def test_every_switch_of_a_planted_change_has_its_query():
    assert {q.stem for q in QUERIES} == {"datediff_boundaries", "string_plus", "integer_division", "len_trailing_spaces",
                                         CASE_INSENSITIVE_COLLATION, TIES}


def test_the_endpoint_compares_case_insensitively_like_sql_servers_default(tds):
    """Babelfish's default collation is SQL Server's CI_AS one: the planted comparison means there what it means on SQL Server."""
    collation = tds.answer("SELECT CAST(DATABASEPROPERTYEX(DB_NAME(), 'Collation') AS varchar(128))")
    assert collation.rows and "_CI_" in collation.rows[0][0].upper(), collation
    same_word = tds.answer("SELECT CASE WHEN N'paris' = N'PARIS' THEN 1 ELSE 0 END, "
                           "CASE WHEN city = N'PARIS' THEN 1 ELSE 0 END FROM dbo.visits WHERE id = 1")
    assert same_word == Answer(((normalize(1), normalize(1)),)), same_word
