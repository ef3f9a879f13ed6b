"""What the procedure runner's tests share: a T-SQL script read as the tool reads one, its tables on a real
target (the tool's own DDL), and calls run there through the runner on a replay driver connection."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS / "translate") not in sys.path:
    sys.path.insert(0, str(TESTS / "translate"))

from execution import create_schema  # noqa: E402

from sqlsrv2tidb import api  # noqa: E402
from sqlsrv2tidb.model import Capture  # noqa: E402
from sqlsrv2tidb.options import Options  # noqa: E402
from sqlsrv2tidb.procedures.calls import Limits, Runner  # noqa: E402
from sqlsrv2tidb.procedures.catalog import Procedures  # noqa: E402
from sqlsrv2tidb.procedures.results import CallResult  # noqa: E402
from sqlsrv2tidb.replay.procedure_session import DriverSession  # noqa: E402
from sqlsrv2tidb.target import parse_target  # noqa: E402
from sqlsrv2tidb.translate.ddl import is_comment_only, split_statements  # noqa: E402


def unique_keys(conn: Any, capture: Capture) -> list[str]:
    """The DDL's unique indexes (04-indexes.sql, which create_schema leaves out): a MERGE on a unique key becomes
    INSERT ... ON DUPLICATE KEY UPDATE, which finds the matching row by them. The statements refused, as create_schema."""
    refused = []
    for ddl in api.plan(capture, Options()).files:
        if ddl.name != "04-indexes.sql":
            continue
        for statement in split_statements(ddl.content):
            if is_comment_only(statement) or "CREATE UNIQUE INDEX" not in statement.upper():
                continue
            try:
                with conn.cursor() as cur:
                    cur.execute(statement)
            except Exception as exc:  # noqa: BLE001 - listed as create_schema lists its refusals
                refused.append(f"{exc}: {statement[:200]}")
    return refused


def read_script(sql: str, folder: Path, name: str = "schema.sql") -> Capture:
    """The capture of a T-SQL script (tables and procedures), read from a file as the tool reads one."""
    path = folder / name
    path.write_text(sql, encoding="utf-8")
    return api.read([path])


class OnTarget:
    """A script's procedures and one runner session on a target database holding its tables."""

    def __init__(self, server: Any, database: str, capture: Capture, limits: Limits | None = None) -> None:
        conn = server.connect(database)
        try:
            refused = create_schema(conn, capture) + unique_keys(conn, capture)
        finally:
            conn.close()
        assert not refused, refused
        self.server, self.database = server, database
        self.procedures = Procedures(capture.database)
        self.session = DriverSession.open(parse_target(server.url(database)))
        self.runner = Runner(self.session, self.procedures.resolve, limits, dynamic=self.procedures.dynamic)

    def call(self, name: str, *positional: Any, **named: Any) -> CallResult:
        program = self.procedures.program(name)
        assert program is not None, name
        arguments = [(None, v) for v in positional] + [("@" + k, v) for k, v in named.items()]
        return self.runner.call(program, arguments)

    def rows(self, sql: str) -> list[tuple[Any, ...]]:
        """Rows as another connection sees them (what a call committed)."""
        conn = self.server.connect(self.database)
        try:
            with conn.cursor() as cur:
                cur.execute(sql)
                return list(cur.fetchall())
        finally:
            conn.close()

    def close(self) -> None:
        self.session.close()


def sets(result: CallResult) -> list[list[tuple[Any, ...]]]:
    """The result sets' rows, as lists of tuples."""
    return [[tuple(row) for row in rs.rows] for rs in result.result_sets]


def errors(result: CallResult) -> list[tuple[int, str]]:
    return [(e.number, e.message) for e in result.errors]
