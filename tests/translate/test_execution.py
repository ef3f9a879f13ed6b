"""Every usable translation of the development corpora runs on TiDB (and MariaDB, and MySQL) against its schema.

The parser check (`test_sede`, `test_golden`) says TiDB's grammar accepts a text; this one runs it:
each corpus's schema is created once per target by the tool's own DDL, every statement the
translator calls translated, rewritten or review runs with its parameters bound, in a transaction
that is rolled back (`execution`). On TiDB no statement may fail because of its translation; what
fails for inputs broken in SQL Server too is recorded, with every other count, in
`benchmarks/translate/EXECUTION.md` (rewrite it with UPDATE_EXECUTION=1 after reviewing a change).
MariaDB runs TiDB's text; MySQL runs the translation and the DDL written for it (`--target-engine
mysql`), and no statement may fail there because of its translation either.
"""

from __future__ import annotations

import os
from functools import cache

import pytest
from corpora import NAMES, corpus
from engines import options_for
from execution import (
    BROKEN_INPUTS,
    Run,
    create_schema,
    leftover_rows,
    run_corpus,
    sequence_tables,
    session,
    translate,
)
from execution_tally import COMMAND, RECORD, render

from sqlsrv2tidb.model.translation import TranslatedQuery

pytestmark = pytest.mark.mariadb


@cache
def translations(name: str, engine: str = "tidb") -> dict[str, TranslatedQuery]:
    """Each corpus is translated once for TiDB (run on TiDB and MariaDB), and once for MySQL."""
    c = corpus(name)
    options = _MYSQL_OPTIONS[0] if engine == "mysql" else None
    return {s.id: translate(c, s, options) for s in c.samples}


_MYSQL_OPTIONS: list = []
"""The Options of the MySQL under test (its version), set when it is first used."""


_RUNS: dict[tuple[str, str], Run] = {}


def _run(server, name: str, reference: Run | None = None) -> Run:
    key = (server.kind, name)
    if key not in _RUNS:
        database = server.create_database(f"t_execution_{name}")
        conn = server.connect(database)
        engine = "mysql" if server.kind == "mysql" else "tidb"
        if engine == "mysql" and not _MYSQL_OPTIONS:
            _MYSQL_OPTIONS.append(options_for(server))
        try:
            refused = create_schema(conn, corpus(name).capture, _MYSQL_OPTIONS[0] if engine == "mysql" else None)
            assert not refused, f"{name}: the schema's DDL fails on {server.kind}: {refused[:3]}"
            session(conn, server.kind, _collation(name) if engine == "mysql" else None)
            _RUNS[key] = run_corpus(conn, corpus(name), server.kind, translations(name, engine), reference)
            options = _MYSQL_OPTIONS[0] if engine == "mysql" else None
            assert leftover_rows(conn, sequence_tables(corpus(name).capture, options)) == {}, \
                "a statement left rows behind"
        finally:
            conn.close()
    return _RUNS[key]


def _collation(name: str) -> str:
    """The collation a MySQL plan gives the corpus's text, which the tool's connections to MySQL set (MY10)."""
    from sqlsrv2tidb.translate.types import TypeMapper

    return TypeMapper.builtin("mysql").map_collation(corpus(name).capture.database.collation).target


def _listing(run: Run, cause: str) -> str:
    return "\n".join(f"  {o.sample.id}: {o.failure.kind}: {o.failure.code} {o.failure.message[:150]}\n"
                     f"      {o.failure.statement[:300]}" for o in run.failures(cause))


@pytest.mark.parametrize("name", NAMES)
def test_no_translation_fails_on_tidb(tidb, name):
    run = _run(tidb, name)
    assert run.usable, name
    assert not run.failures("translation"), (
        f"{len(run.failures('translation'))} usable translations fail on TiDB:\n{_listing(run, 'translation')}")


@pytest.mark.parametrize("name", NAMES)
def test_no_translation_fails_on_mariadb(tidb, mariadb, name):
    """An error TiDB did not raise on the same text is MariaDB's gap, and counted as such."""
    run = _run(mariadb, name, _run(tidb, name))
    assert not run.failures("translation"), (
        f"{len(run.failures('translation'))} usable translations fail on MariaDB:\n{_listing(run, 'translation')}")


@pytest.mark.parametrize("name", NAMES)
def test_no_translation_fails_on_mysql(mysql, name):
    """The translation and the schema written for MySQL: no usable statement may fail because of either."""
    run = _run(mysql, name)
    assert run.usable, name
    assert not run.failures("translation"), (
        f"{len(run.failures('translation'))} usable translations fail on MySQL:\n{_listing(run, 'translation')}")


def test_inputs_broken_in_sql_server_are_still_broken(tidb, mariadb):
    """A statement pinned as broken in SQL Server too must still fail: once it runs, the pin goes."""
    failing = {o.sample.id for name in NAMES for o in _run(tidb, name).failures()}
    assert set(BROKEN_INPUTS) <= failing, sorted(set(BROKEN_INPUTS) - failing)


def test_the_tally_is_recorded(tidb, mariadb, mysql):
    text = render([_run(tidb, name) for name in NAMES] + [_run(mariadb, name, _run(tidb, name)) for name in NAMES]
                  + [_run(mysql, name) for name in NAMES])
    if os.environ.get("UPDATE_EXECUTION") == "1" or not RECORD.exists():
        RECORD.write_text(text, encoding="utf-8")
    assert RECORD.read_text(encoding="utf-8") == text, f"the execution tally changed: review it and run\n    {COMMAND}"
