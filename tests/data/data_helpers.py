"""What the data tests share: the source databases' handle, and running `sqlsrv2tidb data` in or out of process.

A module of its own name (not conftest) so that a test file can import it whatever other
folders' conftest modules are loaded first.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

from typer.testing import CliRunner

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


def captured(mssql, name: str, folder: Path) -> SourceDb:
    """The database with a capture folder of its catalog, read once through the live capture."""
    result = CliRunner().invoke(app, ["capture", "--connection", mssql.connection_string(name), "-o", str(folder),
                                      "--no-query-store", "-q"])
    assert result.exit_code == 0, result.output
    return SourceDb(mssql, name, folder)


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


def loaded(*args: str, env: dict[str, str] | None = None) -> dict:
    """Run `sqlsrv2tidb data ...`, which must succeed, and return the data.json it wrote (in its -o folder)."""
    result = data(*args, env=env)
    assert result.exit_code == 0, result.output
    return document(Path(args[args.index("-o") + 1]))


@contextmanager
def check_constraints_created(target):
    """On TiDB, CHECK constraints are kept only by a CREATE run while the GLOBAL `tidb_enable_check_constraint` is
    ON (it is OFF by default); a table created so enforces them whatever the variable says later (measured,
    tests/data/test_data_checks.py). The suite's TiDB is shared, so the variable is put back as it was."""
    if target.kind != "tidb":
        yield
        return
    with target.connect() as conn, conn.cursor() as cur:
        cur.execute("SELECT @@GLOBAL.tidb_enable_check_constraint")
        before = int(cur.fetchone()[0])
        cur.execute("SET GLOBAL tidb_enable_check_constraint = ON")
    try:
        yield
    finally:
        with target.connect() as conn, conn.cursor() as cur:
            cur.execute(f"SET GLOBAL tidb_enable_check_constraint = {'ON' if before else 'OFF'}")
