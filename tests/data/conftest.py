"""Source databases on the SQL Server endpoint for the data tests, each built once per run.

`chinook` and `northwind` are the corpus databases with their own rows (corpus_load.py);
`adventureworks` is the corpus schema with rows the tests generate (adventureworks.py);
`every_type` is a table per kind of column the endpoint supports, filled with edge values
(types_db.py). Each comes with a capture folder read once from the live catalog, so a test can
give it as SOURCES instead of paying for the catalog read again.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from corpus_load import load_chinook, load_northwind
from typer.testing import CliRunner
from types_db import create_every_type

from sqlsrv2tidb.cli import app

ROOT = Path(__file__).resolve().parents[2]


class SourceDb:
    """A database on the endpoint, with its connection string and a capture folder of its catalog."""

    def __init__(self, mssql, name: str, capture: Path) -> None:
        self.mssql, self.name, self.capture = mssql, name, capture

    @property
    def connection(self) -> str:
        return self.mssql.connection_string(self.name)

    def rows(self, sql: str) -> list[tuple]:
        conn = self.mssql.connect(self.name)
        try:
            return [tuple(r) for r in conn.cursor().execute(sql).fetchall()]
        finally:
            conn.close()


def _captured(mssql, name: str, folder: Path) -> SourceDb:
    result = CliRunner().invoke(app, ["capture", "--connection", mssql.connection_string(name), "-o", str(folder),
                                      "--no-query-store", "-q"])
    assert result.exit_code == 0, result.output
    return SourceDb(mssql, name, folder)


@pytest.fixture(scope="session")
def chinook(mssql, tmp_path_factory) -> SourceDb:
    return _captured(mssql, load_chinook(mssql), tmp_path_factory.mktemp("chinook") / "capture")


@pytest.fixture(scope="session")
def northwind(mssql, tmp_path_factory) -> SourceDb:
    return _captured(mssql, load_northwind(mssql), tmp_path_factory.mktemp("northwind") / "capture")


@pytest.fixture(scope="session")
def adventureworks(mssql, tmp_path_factory) -> SourceDb:
    """AdventureWorks's schema with rows the tests generate (adventureworks.py)."""
    from adventureworks import create_adventureworks

    return _captured(mssql, create_adventureworks(mssql), tmp_path_factory.mktemp("adventureworks") / "capture")


@pytest.fixture(scope="session")
def every_type(mssql, tmp_path_factory) -> SourceDb:
    return _captured(mssql, create_every_type(mssql), tmp_path_factory.mktemp("every_type") / "capture")


def data(*args: str, env: dict[str, str] | None = None):
    """Run `sqlsrv2tidb data ...` in this process (CliRunner), quietly."""
    return CliRunner().invoke(app, ["data", *args, "-q"], env=env)


def data_process(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    """Run `sqlsrv2tidb data ...` as its own process (for tests that kill it)."""
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    return subprocess.Popen([sys.executable, "-m", "sqlsrv2tidb", "data", *args, "-q"], env=environment,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def document(out: Path) -> dict:
    return json.loads((out / "data.json").read_text(encoding="utf-8"))


def by_table(doc: dict) -> dict[str, dict]:
    return {f"{t['schema']}.{t['name']}".casefold(): t for t in doc["tables"]}


def copy_args(source: SourceDb, target, database: str, out: Path, *extra: str, schema_from_capture: bool = True) -> list[str]:
    args = ["copy", "-o", str(out), "--connection", source.connection, "--target", target.url(database),
            "--confirm-database", database, *extra]
    return [*args, str(source.capture)] if schema_from_capture else args


def target_rows(target, database: str, sql: str) -> list[tuple]:
    with target.connect(database) as conn, conn.cursor() as cur:
        cur.execute(sql)
        return list(cur.fetchall())


def safe_name(text: str) -> str:
    return re.sub(r"\W+", "_", text).lower()
