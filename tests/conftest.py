"""Shared fixtures: the MariaDB server and the TiDB parser, each started once per test session."""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from servers import MariaDB, TiDBParser


@pytest.fixture(scope="session")
def mariadb() -> Iterator[MariaDB]:
    """A real MariaDB on 127.0.0.1, in a temp datadir that is removed afterwards."""
    base = Path(tempfile.mkdtemp(prefix="sqlsrv2tidb-mariadb-"))
    server = MariaDB(base)
    server.initialize()
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def database(mariadb: MariaDB, request: pytest.FixtureRequest) -> str:
    """A fresh, empty database named after the test."""
    name = "t_" + re.sub(r"\W+", "_", request.node.name)[:56].lower()
    return mariadb.create_database(name)


@pytest.fixture(scope="session")
def tidb_parser() -> Iterator[TiDBParser]:
    parser = TiDBParser()
    try:
        yield parser
    finally:
        parser.close()
