"""The golden T-SQL -> TiDB pairs: each translates as recorded, parses with TiDB's parser, runs on MariaDB.

The schema the pairs refer to (golden/schema.sql) is applied to MariaDB through the project's own DDL
generator (api.plan), and golden/rows.sql is translated and inserted like any workload, so a pair
"runs" against tables shaped as the migration would create them.
"""

from __future__ import annotations

import os
import re

import pymysql
import pytest
from translate_golden import (
    GOLDEN,
    Case,
    actual_case,
    ddl_statements,
    golden_capture,
    read_cases,
    split_statements,
    write_cases,
)

from sqlsrv2tidb.options import Options
from sqlsrv2tidb.translate.naming import NameMap
from sqlsrv2tidb.translate.queries import translate_sql
from sqlsrv2tidb.tsql.fingerprint import parse_declarations, strip_parameter_prefix

CASES = read_cases()
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


def test_the_golden_file_is_big_enough_and_numbered():
    assert len(CASES) >= 150
    assert [c.number for c in CASES] == list(range(1, len(CASES) + 1))
    statuses = {c.status for c in CASES}
    assert statuses == {"translated", "rewritten", "review", "unsupported"}


def test_translations_match_the_golden_file():
    actual = [actual_case(c) for c in CASES]
    if UPDATE:
        write_cases(actual)
    differences = [
        f"{c.id} {c.title}\n  expected [{c.status} {' '.join(c.codes)}] {c.expected}\n  actual   [{a.status} {' '.join(a.codes)}] {a.expected}"
        for c, a in zip(CASES, actual, strict=True)
        if (c.status, c.codes, c.expected, c.parameters) != (a.status, a.codes, a.expected, a.parameters)
    ]
    assert not differences, f"{len(differences)} golden pairs differ:\n" + "\n".join(differences[:20])


@pytest.mark.tidb_parser
def test_every_expected_statement_parses_with_tidb(tidb_parser):
    failures = []
    for case in CASES:
        if case.expected:
            result = tidb_parser.check(case.expected)
            if not result.ok:
                failures.append(f"{case.id}: {result.error}\n    {case.expected}")
    assert not failures, "\n".join(failures)


def _value(type_text: str, position: int) -> str:
    """A value of the declared type; integers differ per position so inserted keys do not collide."""
    kind = type_text.lower()
    if "char" in kind or "text" in kind:
        return "'a'"
    if "date" in kind or "time" in kind:
        return "'2024-03-01 00:00:00'"
    if "dec" in kind or "money" in kind or "float" in kind or "real" in kind or "numeric" in kind:
        return "1.5"
    return str(100 + position)


def _bind(sql: str, case: Case) -> str:
    """Put literal values where the `?` markers are (outside string literals), by declared type."""
    declarations = {p.name.lower(): p.type for p in parse_declarations(strip_parameter_prefix(case.source)[0])}
    values = iter(_value(declarations.get(name.lower(), "int"), i) for i, name in enumerate(case.parameters))
    return re.sub(r"'(?:[^'\\]|\\.|'')*'|\?", lambda m: next(values) if m.group(0) == "?" else m.group(0), sql)


@pytest.fixture(scope="module")
def golden_db(mariadb):
    name = mariadb.create_database("t_translate_golden")
    capture = golden_capture()
    rows = translate_sql((GOLDEN / "rows.sql").read_text(encoding="utf-8"), database=capture.database,
                         names=NameMap.for_database(capture.database), options=Options())
    assert rows.status in ("translated", "rewritten"), rows.notes
    with mariadb.connect(name) as conn, conn.cursor() as cur:
        for statement in ddl_statements():
            cur.execute(statement)
        for statement in split_statements(rows.target_sql or ""):
            cur.execute(statement)
    return name


@pytest.mark.mariadb
def test_every_expected_statement_runs_on_mariadb(mariadb, golden_db):
    failures = []
    for case in CASES:
        if not case.expected or case.parse_only:
            continue
        conn = mariadb.connect(golden_db)
        conn.autocommit(False)
        try:
            with conn.cursor() as cur:
                for statement in split_statements(case.expected):
                    cur.execute(_bind(statement, case))
                    cur.fetchall()
        except pymysql.MySQLError as exc:
            failures.append(f"{case.id}: {exc.args}\n    {case.expected}")
        finally:
            conn.rollback()
            conn.close()
    assert not failures, f"{len(failures)} golden statements fail on MariaDB:\n" + "\n".join(failures)


def test_parse_only_pairs_say_why():
    for case in CASES:
        if case.parse_only is not None:
            assert case.parse_only and case.expected, case.id
