"""What SQL Server (the TDS endpoint) and TiDB answer to the same query over the same rows, made comparable.

The golden schema (golden/schema.sql) is created on both servers, the SQL Server one by running the
script itself, TiDB by the tool's DDL; golden/rows.sql is run as T-SQL on one and translated for
the other, so both hold the same rows. A query's T-SQL then runs on the TDS endpoint and its
translation on TiDB, and the two answers are compared as multisets of rows with values normalised
(numbers by value, a bit as 0/1, a date as midnight, a time as its clock).

The TDS endpoint of the suite is Babelfish, which is not SQL Server: where it answers differently
from SQL Server's documented behaviour, the test pins that (`PINS` in test_meaning) and holds TiDB
to SQL Server's documented answer instead.
"""

from __future__ import annotations

import datetime
import decimal
import re
from dataclasses import dataclass
from pathlib import Path

from engines import options_for
from translate_golden import GOLDEN, Case, ddl_statements, golden_capture, split_statements

from sqlsrv2tidb.translate.naming import NameMap
from sqlsrv2tidb.translate.queries import translate_sql
from sqlsrv2tidb.translate.statements import split_batches

_NONDETERMINISTIC = re.compile(
    r"GETDATE|SYSDATETIME|CURRENT_TIMESTAMP|GETUTCDATE|SYSUTCDATETIME|NEWID|RAND\s*\(|@@|SCOPE_IDENTITY|DB_NAME|"
    r"USER_NAME|HOST_NAME|SUSER|\bsys\.|INFORMATION_SCHEMA", re.I)
_FIXED = "UPDATE customers SET ref = NULL"
"""rows.sql fills customers.ref with NEWID(); a value of the moment on either side, so it is cleared on both."""
_WRITES = re.compile(r"\b(INSERT|UPDATE|DELETE|MERGE|INTO|DECLARE|EXEC|EXECUTE|CREATE|DROP|ALTER|TRUNCATE)\b", re.I)


@dataclass(frozen=True)
class Answer:
    rows: tuple[tuple, ...] | None
    error: str | None = None

    def __str__(self) -> str:
        return f"error: {self.error}" if self.error else repr(list(self.rows or ())[:6])


def skipped(case: Case) -> str | None:
    """Why a golden case is not compared, or None: only single queries with a TiDB text and a fixed answer are."""
    source = case.source.strip().rstrip(";")
    if not case.expected or case.status == "unsupported":
        return "no TiDB statement"
    if source.startswith("(") or re.search(r"@\w", source):
        return "parameters or variables"
    if ";" in case.expected or re.search(r"^\s*GO\b", source, re.I | re.M) or ";" in source:
        return "a batch"
    if not re.match(r"(SELECT|WITH)\b", source, re.I) or _WRITES.search(source):
        return "writes"
    if _NONDETERMINISTIC.search(source):
        return "a value of the moment, the server or the catalog"
    return None


def normalize(value):
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, float):
        return round(decimal.Decimal(value), 9).normalize()
    if isinstance(value, (int, decimal.Decimal)):
        return decimal.Decimal(value).normalize()
    if isinstance(value, datetime.datetime):
        return value
    if isinstance(value, datetime.date):
        return datetime.datetime(value.year, value.month, value.day)
    if isinstance(value, datetime.timedelta):
        return (datetime.datetime(1900, 1, 1) + value).time()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    return value


def rows_of(cursor) -> tuple[tuple, ...]:
    return tuple(sorted((tuple(normalize(v) for v in row) for row in cursor.fetchall()), key=repr))


class TdsSide:
    """The golden database on the TDS endpoint; a connection that the server dropped is opened again."""

    def __init__(self, server, database: str) -> None:
        self.server, self.database = server, database
        self.conn = self._connect()

    def _connect(self):
        conn = self.server.connect(self.database)
        conn.timeout = 20
        return conn

    def answer(self, sql: str) -> Answer:
        try:
            cursor = self.conn.cursor()
            cursor.execute(sql)
            return Answer(rows_of(cursor))
        except Exception as exc:  # noqa: BLE001 - an error is an answer too
            message = " ".join(str(exc).split())
            if "08S01" in message or "HYT00" in message or "closed" in message.lower():
                self.conn = self._connect()
            return Answer(None, message[:300])

    def close(self) -> None:
        self.conn.close()


def load_on_tds(server, name: str, folder: Path, *extra: str) -> str:
    """A new database on the TDS endpoint holding `folder`'s schema.sql (batch by batch) and rows.sql,
    then each of `extra`."""
    database = server.create_database(name)
    conn = server.connect(database)
    schema, rows = _for_endpoint((folder / "schema.sql").read_text(encoding="utf-8"),
                                 (folder / "rows.sql").read_text(encoding="utf-8"))
    try:
        cursor = conn.cursor()
        for batch in split_batches(schema):
            cursor.execute(batch)
        for sql in (rows, *extra):
            cursor.execute(sql)
    finally:
        conn.close()
    return database


def _for_endpoint(schema: str, rows: str) -> tuple[str, str]:
    """The schema and rows as the endpoint takes them: it has no hierarchyid (docs/babelfish.md), so such a column is
    varbinary there and its table's rows are left out (the pairs that read it are pinned to SQL Server's answers)."""
    tables = re.findall(r"CREATE\s+TABLE\s+([\w.]+)\s*\((?:(?!\bGO\b).)*?\bhierarchyid\b", schema, re.I | re.S)
    schema = re.sub(r"\bhierarchyid\b", "varbinary(892)", schema, flags=re.I)
    kept = [line for line in rows.splitlines()
            if not any(re.search(rf"\bINTO\s+{re.escape(t)}\b", line, re.I) for t in tables)]
    return schema, "\n".join(kept) + "\n"


def create_on_tds(server, name: str) -> str:
    """The golden schema and rows, as T-SQL, on the TDS endpoint."""
    return load_on_tds(server, name, GOLDEN, _FIXED)


def create_on_tidb(tidb, name: str) -> str:
    """The golden schema by the tool's DDL and the rows translated, on TiDB (or on MariaDB or MySQL, each with
    the DDL and translation written for it, as `data` and `compare` write for the server they reach)."""
    database = tidb.create_database(name)
    capture = golden_capture()
    options = options_for(tidb)
    rows = translate_sql((GOLDEN / "rows.sql").read_text(encoding="utf-8"), database=capture.database,
                         names=NameMap.for_database(capture.database), options=options)
    with tidb.connect(database) as conn, conn.cursor() as cursor:
        for statement in [*ddl_statements(options=options), *split_statements(rows.target_sql or ""), _FIXED]:
            cursor.execute(statement)
    return database


def answer_tidb(conn, sql: str) -> Answer:
    try:
        with conn.cursor() as cursor:
            cursor.execute(sql)
            return Answer(rows_of(cursor))
    except Exception as exc:  # noqa: BLE001 - an error is an answer too
        return Answer(None, " ".join(str(exc).split())[:300])


def same(a: Answer, b: Answer) -> bool:
    """Both fail, or both return the same rows."""
    if a.error is not None or b.error is not None:
        return a.error is not None and b.error is not None
    return a.rows == b.rows
