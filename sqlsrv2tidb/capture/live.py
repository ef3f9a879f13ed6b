"""The live capture: a SQL Server's catalog and Query Store, read through pyodbc into a capture folder.

This is the only module that imports pyodbc, and it imports it only when a capture runs, so the
rest of the tool works without an ODBC stack. It runs the constants of catalog_sql.py and writes
their rows, untouched but for JSON value forms, to OUT/catalog.json; capture/catalog.py maps them
to the model whenever the folder is read, exactly as it maps the capture-script's JSON.

The password comes from the connection string (PWD=), a prompt, or the environment variable
named by --password-env, in that order. It is only ever placed in the string handed to the
driver: catalog.json, `instance`, error messages and logs never see it, and driver messages are
scrubbed of `PWD=...` and of the password itself before they are shown.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .. import __version__
from ..errors import ConnectionFailed, UsageError
from ..model import hierarchy_path
from ..model.workload import format_time, jsonable
from ..outdir import prepare_output, write_json
from ..progress import NullProgress, Progress
from .catalog import CATALOG_FORMAT, query_store_absent
from .catalog_sql import QUERY_STORE_OPTIONS, QUERY_STORE_ROWSETS, SCHEMA_QUERIES, SERVER_PROPERTIES
from .statistics_sql import BATCHES as STATISTICS
from .statistics_sql import standalone

_SERVER_KEYS = ("server", "address", "addr", "data source")
_DATABASE_KEYS = ("database", "initial catalog")
_USER_KEYS = ("uid", "user id", "user")
_PASSWORD_KEYS = ("pwd", "password")
# SQLSTATEs: https://learn.microsoft.com/sql/odbc/reference/appendixes/appendix-a-odbc-error-codes
_UNREACHABLE = {"08001", "08S01", "HYT00", "HYT01"}
_CONNECTION_LOST = {"08S01", "08003", "08007", "HYT00", "HYT01"}
_CUT = re.compile(r"Unexpected EOF from the server|Read from the server failed|Write to the server failed|"
                  r"DBPROCESS is dead|Communication link failure", re.I)
"""What the ODBC driver says, whatever SQLSTATE it gives, when the server ends the connection under a statement."""
_UNAVAILABLE = re.compile(
    r"\((?:922|4060|40197|40501|40613|49918|49919|49920)\)|in recovery mode|is starting up|is shutting down|"
    r"is being recovered|not currently available|terminating connection", re.I)
"""A server that answers but cannot serve now: SQL Server's 922 (the database is being recovered), 4060
(it cannot be opened), 40613/40197/40501/4991x (Azure SQL: not available, reconfiguring, busy)
(https://learn.microsoft.com/sql/relational-databases/errors-events/database-engine-events-and-errors,
https://learn.microsoft.com/azure/azure-sql/database/troubleshoot-common-errors-issues), and the words a
PostgreSQL-based endpoint uses while it starts, recovers after a crash or stops (SQLSTATE 57P01, 57P03)."""


class RowsetError(Exception):
    """One catalog query failed (no permission, a view this edition lacks); the capture goes on."""


@dataclass(frozen=True)
class Connection:
    """A parsed ODBC connection string, with the password held apart from everything printable."""

    parts: tuple[tuple[str, str], ...]
    password: str | None = field(default=None, repr=False)

    def get(self, *keys: str) -> str | None:
        return next((v for k, v in self.parts if k.lower() in keys), None)

    @property
    def host(self) -> str:
        """`host[,port]` as the DBA wrote it (a DSN when there is no SERVER), never credentials."""
        server = self.get(*_SERVER_KEYS)
        if server is None:
            dsn = self.get("dsn")
            return f"DSN {dsn}" if dsn else "the default server"
        server = re.sub(r"^(tcp|np|lpc):", "", server.strip(), flags=re.I)
        port = self.get("port")
        return f"{server},{port}" if port and "," not in server else server

    def odbc(self) -> str:
        """The string for the driver, with the password braced in (`}` doubled, as ODBC escapes it)."""
        parts = [(k, v) for k, v in self.parts if k.lower() not in _PASSWORD_KEYS]
        if self.password is not None:
            parts.append(("PWD", self.password))
        return ";".join(f"{k}={_braced(v, k.lower() == 'driver')}" for k, v in parts)


def _braced(value: str, always: bool = False) -> str:
    if always or re.search(r"[;{}]|^\s|\s$", value) or value == "":
        return "{" + value.replace("}", "}}") + "}"
    return value


def parse_connection(text: str) -> Connection:
    """Split `KEY=value;KEY={va;lue}` into pairs; a PWD/Password value is taken out as the password."""
    parts: list[tuple[str, str]] = []
    i, n = 0, len(text)
    while i < n:
        eq = text.find("=", i)
        if eq < 0:
            if text[i:].strip(" ;"):
                raise UsageError("--connection: every part must be KEY=value (e.g. DRIVER={FreeTDS};SERVER=host,1433)")
            break
        key = text[i:eq].strip(" ;")
        j = eq + 1
        while j < n and text[j] == " ":
            j += 1
        if j < n and text[j] == "{":
            chunks, k = [], j + 1
            while True:
                close = text.find("}", k)
                if close < 0:
                    raise UsageError(f"--connection: the value of {key} opens '{{' and never closes it")
                if text.startswith("}}", close):
                    chunks.append(text[k : close + 1])
                    k = close + 2
                    continue
                chunks.append(text[k:close])
                break
            value = "".join(chunks)
            semi = text.find(";", close)
        else:
            semi = text.find(";", j)
            value = text[j : semi if semi >= 0 else n].strip()
        i = n if semi < 0 else semi + 1
        if key:
            parts.append((key, value))
    password = next((v for k, v in parts if k.lower() in _PASSWORD_KEYS), None)
    return Connection(tuple((k, v) for k, v in parts if k.lower() not in _PASSWORD_KEYS), password)


def resolve_password(conn: Connection, *, password_env: str, prompt: bool) -> Connection:
    if conn.password is not None:
        return conn
    if prompt:
        import typer

        who = conn.get(*_USER_KEYS) or "the login"
        return Connection(conn.parts, typer.prompt(f"Password for {who} on {conn.host}", hide_input=True, err=True))
    if password_env and os.environ.get(password_env):
        return Connection(conn.parts, os.environ[password_env])
    return conn


def scrub(text: str, password: str | None) -> str:
    """Remove `PWD=...`/`Password=...` and the password itself from a driver message."""
    text = re.sub(r"(?i)\b(pwd|password)\s*=\s*(\{(?:[^}]|\}\})*\}|[^;\s]*)", r"\1=***", text)
    if password and len(password) >= 3:
        text = text.replace(password, "***")
    return text


def _state_and_text(exc: Exception, password: str | None) -> tuple[str, str]:
    args = getattr(exc, "args", ())
    state = str(args[0]) if len(args) > 1 else ""
    return state, scrub(str(args[1] if len(args) > 1 else exc), password)


def connect_error(exc: Exception, conn: Connection, drivers: list[str]) -> ConnectionFailed:
    """One line saying what went wrong connecting, naming the driver, host or login, never the password."""
    state, text = _state_and_text(exc, conn.password)
    driver = conn.get("driver")
    if state == "IM002" or "can't open lib" in text.lower():
        if driver is None and conn.get("dsn"):
            return ConnectionFailed(f"ODBC data source {conn.get('dsn')!r} is not defined ({text})")
        listed = ", ".join(drivers) or "none"
        return ConnectionFailed(f"ODBC driver {(driver or '(none given)')!r} is not installed (installed drivers: {listed}); "
                                "install an ODBC driver for SQL Server or name an installed one in DRIVER={...}")
    if state in _UNREACHABLE:
        return ConnectionFailed(f"cannot reach SQL Server at {conn.host}: {text}")
    if state == "28000":
        user = conn.get(*_USER_KEYS)
        return ConnectionFailed(f"login failed{f' for {user}' if user else ''} on SQL Server at {conn.host}: {text}")
    return ConnectionFailed(f"cannot connect to SQL Server at {conn.host}: [{state or type(exc).__name__}] {text}")


def _import_pyodbc() -> Any:
    try:
        import pyodbc
    except ImportError as exc:
        raise ConnectionFailed(
            f"pyodbc cannot be loaded ({exc}); install it with: pip install 'sqlsrv2tidb[sqlserver]', "
            "plus unixODBC (Debian: apt install unixodbc) and an ODBC driver for SQL Server") from None
    return pyodbc


class Session:
    """An open pyodbc connection that turns each query's rows into JSON-ready dicts.

    `data copy` and `data verify` read rows through `handle.cursor()` themselves and hand any
    driver error to `failure`, so every SQL Server error is classified here, password scrubbed: a
    lost connection, or a server that cannot serve for now (starting, recovering, stopping), is a
    `ConnectionFailed`, which callers answer with a new session; anything else is this query's error.
    """

    def __init__(self, handle: Any, conn: Connection, timeout: int = 15) -> None:
        self.handle, self.conn, self.timeout = handle, conn, timeout

    def reopen(self) -> Session:
        """A new connection with the same string (after the old one was lost); the old one is closed."""
        self.close()
        return open_session(self.conn, timeout=self.timeout)

    def close(self) -> None:
        try:
            self.handle.close()
        except Exception:  # noqa: BLE001 - closing a dead connection must not fail the run
            pass

    def fetch(self, sql: str) -> list[dict[str, Any]]:
        try:
            cursor = self.handle.cursor()
            cursor.execute(sql)
            names = [d[0] for d in cursor.description]
            rows = []
            while batch := cursor.fetchmany(1000):
                rows.extend(row_to_json(names, row) for row in batch)
            cursor.close()
            return rows
        except Exception as exc:  # noqa: BLE001 - every driver error is classified right here
            raise self.failure(exc) from None

    def failure(self, exc: Exception) -> Exception:
        state, text = _state_and_text(exc, self.conn.password)
        if state in _CONNECTION_LOST or _CUT.search(text):
            return ConnectionFailed(f"lost the connection to SQL Server at {self.conn.host}: {text}")
        if _UNAVAILABLE.search(text):
            return ConnectionFailed(f"SQL Server at {self.conn.host} is not available: {text}")
        # The server's own words: no native error number and ODBC call, no driver and vendor tags.
        text = re.sub(r"\s*\(\d+\) \(SQL\w+\)$", "", text)
        text = re.sub(r"^(\[\w+\]\s*)?(\[[^\]]+\])+\s*", "", text) if "][" in text[:120] else text
        return RowsetError(f"[{state}] {text}" if state and not text.startswith(f"[{state}]") else text)


def row_to_json(names: list[str], row: Any) -> dict[str, Any]:
    """A driver row as catalog.json stores it: Decimal as a number, datetime as ISO text, bytes as 0x hex."""
    return {name: jsonable(value) for name, value in zip(names, row, strict=True)}


def _statistics(fetch: Callable[[str], list[dict[str, Any]]], name: str, major: int, version: str,
                doc: dict[str, Any]) -> None:
    """One statistics rowset, read by the same batch the capture-script runs (it returns its rows as JSON)."""
    babelfish = (doc.get("server") or {}).get("babelfish_version")  # version 12, but it has FOR JSON: ask it
    if major and major < 13 and not babelfish:
        doc["errors"][name] = f"statistics are read with FOR JSON, which needs SQL Server 2016 or later; this is {version}"
        return
    try:
        rows = fetch(standalone(name))
        text = rows[0].get("rowset_json") if rows else None
        doc["rowsets"][name] = json.loads(text) if text else []
    except RowsetError as exc:
        doc["errors"][name] = str(exc)
    except ValueError as exc:
        doc["errors"][name] = f"unreadable JSON from the server ({exc})"


def collect(
    fetch: Callable[[str], list[dict[str, Any]]], host: str, *, query_store: bool, days: float,
    progress: Progress | None = None, statistics: bool = True,
) -> dict[str, Any]:
    """Run every catalog (and Query Store) query and assemble the catalog document.

    `fetch` runs one query and returns its rows, raising RowsetError for a query that failed on
    its own; that rowset is recorded under `errors` and the capture goes on.
    """
    progress = progress or NullProgress()
    try:
        server_rows = fetch(SERVER_PROPERTIES.sql(0))
    except RowsetError as exc:
        raise ConnectionFailed(f"SQL Server at {host} did not answer the server-properties query: {exc}") from None
    server = dict(server_rows[0]) if server_rows else {}
    version = str(server.get("product_version") or "0")
    major = int(version.split(".")[0]) if version.split(".")[0].isdigit() else 0
    server["instance"] = f"{host}/{server.get('database') or ''}"
    doc: dict[str, Any] = {
        "format": CATALOG_FORMAT, "generator": "capture", "tool_version": __version__,
        "captured_at": format_time(datetime.now(UTC)), "days": days if query_store else None,
        "server": server, "query_store": None, "rowsets": {}, "errors": {},
    }

    def run(query: Any) -> list[dict[str, Any]] | None:
        if major and major < query.min_major:
            return []
        try:
            return fetch(query.sql(major or 13, days=days))
        except RowsetError as exc:
            doc["errors"][query.name] = str(exc)
            return None

    total = len(SCHEMA_QUERIES) + len(STATISTICS) + (1 + len(QUERY_STORE_ROWSETS) if query_store else 0)
    with progress.task(f"Reading the catalog of {server['instance']}", total=total) as task:
        for query in SCHEMA_QUERIES:
            rows = run(query)
            if rows is not None:
                doc["rowsets"][query.name] = rows
            task.advance()
        for name in STATISTICS if statistics else ():
            _statistics(fetch, name, major, version, doc)
            task.advance()
        if query_store:
            absent = query_store_absent(server)
            if absent:
                doc["errors"][QUERY_STORE_OPTIONS.name] = absent
            else:
                options = run(QUERY_STORE_OPTIONS)
                if options is not None:
                    doc["query_store"] = options[0] if options else {}
                    for query in QUERY_STORE_ROWSETS:
                        rows = run(query)
                        if rows is not None:
                            doc["rowsets"][query.name] = rows
                        task.advance()
            task.advance()
    return doc


def capture_notes(doc: dict[str, Any]) -> list[str]:
    """One line for each part of the capture the server could not give, to show after the capture."""
    errors: dict[str, str] = doc.get("errors") or {}
    absent = query_store_absent(doc.get("server") or {})
    lines = []
    if absent and QUERY_STORE_OPTIONS.name in errors:
        lines.append(f"No workload captured: {absent}; the schema was captured. Give the workload as an Extended "
                     "Events XML export, a Query Store export or a workload spec.")
    elif any(name.startswith("QUERY_STORE") for name in errors):
        first = next(name for name in sorted(errors) if name.startswith("QUERY_STORE"))
        lines.append(f"No workload captured: Query Store could not be read ({errors[first]}).")
    for name, message in sorted(errors.items()):
        if name == "PARTITION_STATS" and "TABLE_ROWS" in (doc.get("rowsets") or {}):
            lines.append(f"Table sizes not read ({message}); row counts come from sys.partitions.")
        elif not name.startswith("QUERY_STORE") and name not in STATISTICS:
            lines.append(f"Not read: {name} ({message})")
    unread_statistics = sorted(name for name in errors if name in STATISTICS)
    if unread_statistics:
        first = unread_statistics[0]
        lines.append(f"Column statistics not read ({errors[first]}); `data synthesize` will take every column's "
                     "values from its type.")
    return lines


@dataclass(frozen=True)
class LiveCapture:
    path: Path
    """The catalog.json written."""
    notes: tuple[str, ...]
    """What the server could not give (capture_notes), one line each."""


_CLR_TYPE = -151


def clr_value(data: bytes | None) -> str | bytes | None:
    """A CLR-typed value as the target holds it: a hierarchyid's path in its stored form (model/hierarchy_path.py),
    which is what the translated query reads on the target; bytes that are no hierarchyid (a spatial value) as they are."""
    if data is None:
        return None
    try:
        return hierarchy_path.encode(hierarchy_path.from_sql_server(bytes(data)))
    except hierarchy_path.NotAPath:
        return bytes(data)


def open_session(conn: Connection, *, timeout: int) -> Session:
    """Connect (autocommit) to the SQL Server `conn` names; a failure is one ConnectionFailed line."""
    pyodbc = _import_pyodbc()
    try:
        handle = pyodbc.connect(conn.odbc(), timeout=max(1, timeout), autocommit=True)
    except pyodbc.Error as exc:
        raise connect_error(exc, conn, list(pyodbc.drivers())) from None
    # ODBC type -151 is a CLR type (hierarchyid, geometry, geography), which pyodbc refuses to read (reference
    # sqlserver-capture.md): a hierarchyid arrives in the form the target's column holds, anything else as its bytes.
    handle.add_output_converter(_CLR_TYPE, clr_value)
    try:
        # The client's default cap on a text value (FreeTDS: 64,512 bytes) would cut long values short;
        # the data stage quotes names with double quotes.
        handle.cursor().execute("SET TEXTSIZE 2147483647; SET QUOTED_IDENTIFIER ON").close()
    except pyodbc.Error:
        pass
    return Session(handle, conn, timeout)


def capture_to_folder(
    connection: str, out: Path, *, password_env: str, prompt: bool, query_store: bool, days: float,
    timeout: int, progress: Progress | None = None, statistics: bool = True,
) -> LiveCapture:
    """Capture a live SQL Server into OUT/catalog.json; returns its path and what could not be read."""
    if days <= 0:
        raise UsageError(f"--days must be more than 0, got {days:g}")
    conn = resolve_password(parse_connection(connection), password_env=password_env, prompt=prompt)
    existed = Path(out).exists()
    out = prepare_output(out)
    try:
        session = open_session(conn, timeout=timeout)
        try:
            doc = collect(session.fetch, conn.host, query_store=query_store, days=days, progress=progress,
                          statistics=statistics)
        finally:
            session.close()
    except BaseException:
        if not existed and not any(out.iterdir()):
            out.rmdir()  # leave nothing behind for a capture that did not finish
        raise
    return LiveCapture(write_json(out / "catalog.json", doc), tuple(capture_notes(doc)))
