"""Shared fixtures: MariaDB, TiDB, MySQL, a SQL Server-protocol endpoint and the TiDB parser, each started once per run.

TiDB, MySQL and the SQL Server endpoint come from the environment or from the shared server builds (see
`servers.py`). Without either, their tests skip with one line saying how to provide one; under CI
(`CI` set) with the shared builds present, a server that does not start fails the run instead.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from servers import SHARED_SERVERS, MariaDB, MySQL, SqlServer, TiDB, TiDBParser, Unavailable, running_mariadb


@pytest.fixture(scope="session")
def mariadb() -> Iterator[MariaDB]:
    """A real MariaDB on 127.0.0.1, in a temp datadir that is removed afterwards."""
    yield from running_mariadb("sqlsrv2tidb-mariadb-")


@pytest.fixture
def database(mariadb: MariaDB, request: pytest.FixtureRequest) -> str:
    """A fresh, empty database named after the test."""
    return mariadb.create_database(_database_name(request))


def pytest_report_header(config) -> list[str]:
    return [f"shared servers: {SHARED_SERVERS} ({'present' if SHARED_SERVERS.is_dir() else 'absent'}); "
            f"{TiDB.ENV}={'set' if os.environ.get(TiDB.ENV) else 'unset'}, "
            f"{MySQL.ENV}={'set' if os.environ.get(MySQL.ENV) else 'unset'}, "
            f"{SqlServer.ENV}={'set' if os.environ.get(SqlServer.ENV) else 'unset'}"]


_SERVERS = {"mariadb": "MariaDB", "tidb": "TiDB", "mysql": "MySQL", "mssql": "SQL Server endpoint"}
_outcomes: dict[str, dict[str, int]] = {name: {} for name in _SERVERS.values()}


def _servers_of(item) -> set[str]:
    """The servers a test used: the server objects among its fixture values once set up (fixtures it
    reached through other fixtures or `getfixturevalue` included), else the ones it names."""
    used = {_SERVERS[v.kind] for v in getattr(item, "funcargs", {}).values()
            if isinstance(v, (MariaDB, TiDB, MySQL, SqlServer))}
    if not used:
        params = getattr(getattr(item, "callspec", None), "params", {})
        names = set(getattr(item, "fixturenames", ())) - set(params)
        names |= {params["target"]} if "target" in params else set()
        used = {label for fixture, label in _SERVERS.items() if fixture in names}
    return used


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        for label in _servers_of(item):
            counts = _outcomes[label]
            counts[report.outcome] = counts.get(report.outcome, 0) + 1


def pytest_terminal_summary(terminalreporter) -> None:
    """One line per real server: how many of its tests ran, so a run that skipped them shows it."""
    for label, counts in _outcomes.items():
        if counts:
            told = ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))
            terminalreporter.write_line(f"tests on {label}: {told}")


def _unavailable(reason: str):
    if os.environ.get("CI") and SHARED_SERVERS.is_dir():
        pytest.fail(f"{reason} (CI is set and {SHARED_SERVERS} exists, so this fails the run)", pytrace=False)
    pytest.skip(reason)


def _serving(server_class, prefix: str):
    """A session fixture's body: the server started (or the test skipped, failed under CI), stopped and its
    files removed at the end of the session."""
    base, server = _started(server_class, prefix)
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(base, ignore_errors=True)


def _started(server_class, prefix: str):
    base = Path(tempfile.mkdtemp(prefix=prefix))
    server = None
    try:
        server = server_class(base)
        server.start()
    except Unavailable as exc:
        shutil.rmtree(base, ignore_errors=True)
        _unavailable(str(exc))
    except Exception as exc:  # noqa: BLE001 - a server that does not start is reported in one line
        if server is not None:
            server.stop()
        shutil.rmtree(base, ignore_errors=True)
        _unavailable(f"{server_class.__name__} did not start: {exc}")
    return base, server


@pytest.fixture(scope="session")
def tidb() -> Iterator[TiDB]:
    """A real TiDB: `SQLSRV2TIDB_TEST_TIDB`, else v8.5.3 started from the shared build."""
    yield from _serving(TiDB, "sqlsrv2tidb-tidb-")


@pytest.fixture
def tidb_database(tidb: TiDB, request: pytest.FixtureRequest) -> str:
    """A fresh, empty TiDB database named after the test."""
    return tidb.create_database(_database_name(request))


@pytest.fixture(scope="session")
def mysql() -> Iterator[MySQL]:
    """A real MySQL: `SQLSRV2TIDB_TEST_MYSQL`, else 9.7 started from the shared build (a user with a password)."""
    yield from _serving(MySQL, "sqlsrv2tidb-mysql-")


@pytest.fixture
def mysql_database(mysql: MySQL, request: pytest.FixtureRequest) -> str:
    """A fresh, empty MySQL database named after the test."""
    return mysql.create_database(_database_name(request))


@pytest.fixture(params=["mariadb", "tidb", "mysql"])
def target(request: pytest.FixtureRequest):
    """Each MySQL-protocol target in turn: MariaDB, TiDB, then MySQL."""
    return request.getfixturevalue(request.param)


@pytest.fixture
def target_database(target, request: pytest.FixtureRequest) -> str:
    """A fresh, empty database on `target`, named after the test."""
    return target.create_database(_database_name(request))


@pytest.fixture(scope="session")
def mssql() -> Iterator[SqlServer]:
    """A real SQL Server-protocol endpoint: `SQLSRV2TIDB_TEST_MSSQL`, else Babelfish from the shared build."""
    yield from _serving(SqlServer, "sqlsrv2tidb-mssql-")


def _database_name(request: pytest.FixtureRequest) -> str:
    return "t_" + re.sub(r"\W+", "_", request.node.name)[:56].lower()


@pytest.fixture(scope="session")
def tidb_parser() -> Iterator[TiDBParser]:
    parser = TiDBParser()
    try:
        yield parser
    finally:
        parser.close()


@pytest.fixture(scope="session")
def mssql_corpus(mssql: SqlServer, tmp_path_factory: pytest.TempPathFactory):
    """Northwind, Chinook and AdventureWorks loaded into the SQL Server endpoint once per run (tests/tds_load.py):
    {corpus: LoadResult}, each with its database name, what ran, what failed, and the script as executed
    written beside it (`executed_path`), for the script reader to read."""
    from tds_load import SCRIPTS, load

    folder = tmp_path_factory.mktemp("tds-corpus")
    loaded = {}
    for corpus, script in SCRIPTS.items():
        result = load(mssql, script, f"tds_{corpus}")
        result.executed_path = result.write_executed(folder / f"{corpus}.sql")
        loaded[corpus] = result
    if mssql.babelfish and mssql.started_here:
        # Babelfish's sys.partitions.rows is PostgreSQL's planner estimate, which only ANALYZE (or a
        # later autovacuum) fills in; SQL Server keeps it exact. Analyze once so the counts are the rows.
        mssql.postgres("ANALYZE")
    return loaded


@pytest.fixture(scope="session")
def compare_northwind(mssql, tmp_path_factory):
    """Northwind with its own rows on the SQL Server endpoint, captured (the compare and answers tests)."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))
    from corpus_load import load_northwind
    from data_helpers import captured

    return captured(mssql, load_northwind(mssql, "compare_northwind"), tmp_path_factory.mktemp("northwind") / "capture")


@pytest.fixture(scope="session")
def compare_adventureworks(mssql, tmp_path_factory):
    """AdventureWorks's tables with generated rows (tests/data/adventureworks.py), captured; its modules are not
    created on the endpoint (the compare and answers tests read its queries from the corpus script)."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent / "data"))
    from adventureworks import create_adventureworks
    from data_helpers import captured

    return captured(mssql, create_adventureworks(mssql, "compare_adventureworks"),
                    tmp_path_factory.mktemp("adventureworks") / "capture")


@pytest.fixture(scope="session")
def compare_sede(mssql, tmp_path_factory):
    """The Stack Exchange (SEDE) schema with its generated rows (tests/answers/sede), captured: a
    data_helpers.SourceDb, for the answers and compare tests (tests/answers/answers_db.py)."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent / "answers"))
    from answers_db import sede_source

    return sede_source(mssql, tmp_path_factory.mktemp("sede") / "capture")


@pytest.fixture(scope="session")
def compare_wwi(mssql, tmp_path_factory):
    """WideWorldImporters with its reference rows and generated transactions (tests/data/wideworldimporters.py),
    captured: a data_helpers.SourceDb (tests/answers/answers_db.py)."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent / "answers"))
    from answers_db import wwi_source

    return wwi_source(mssql, tmp_path_factory.mktemp("wwi") / "capture")
