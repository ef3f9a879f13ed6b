"""The one module that opens MySQL connections: PyMySQL, mysqlclient and asyncmy behind one small interface.

Replay's cost per statement is mostly the driver's, so the driver is a choice (`--driver`): PyMySQL
(pure Python, always installed), mysqlclient (C, releases the GIL while it waits; `pip install
sqlsrv2tidb[fast]`) and asyncmy (asyncio). `auto` takes the fastest one installed, in the order
measured in benchmarks/replay/RESULTS.md. Each driver is imported lazily, here only (and by `binary`,
which sends prepared statements on a mysqlclient connection), so the rest of the package never
depends on which one is present.

Errors are reduced to (MySQL error code, message, kind): `lost` (the connection is gone: reopen
it), `fatal` (the target refuses us: stop the run), or `statement` (this statement failed; go on).
(https://dev.mysql.com/doc/mysql-errors/8.0/en/client-error-reference.html)
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import UsageError
from ..target import Target

LOST_CODES = frozenset({2003, 2006, 2013, 2055, 2002, 1053, 1927, 4031})
"""Can't connect, server gone away, lost connection, shutdown in progress, connection killed, idle timeout."""
FATAL_CODES = frozenset({1044, 1045, 1049, 1698, 1227, 3118})
"""Access denied, unknown database, account locked: every later statement would fail the same way."""

Kind = Literal["lost", "fatal", "statement"]

# Fastest first, as measured (benchmarks/replay/RESULTS.md).
AUTO_ORDER = ("mysqlclient", "pymysql")
_MODULES = {"pymysql": "pymysql", "mysqlclient": "MySQLdb", "asyncmy": "asyncmy"}


@dataclass(frozen=True)
class DriverInfo:
    name: str
    mode: Literal["thread", "async"]


def installed(name: str) -> bool:
    return importlib.util.find_spec(_MODULES[name]) is not None


def resolve(name: str) -> DriverInfo:
    """`auto` or a driver name → the driver to use; a missing driver is a usage error naming its extra."""
    if name == "auto":
        name = next((n for n in AUTO_ORDER if installed(n)), "pymysql")
    if name not in _MODULES:
        raise UsageError(f"--driver must be auto, {', '.join(_MODULES)}; got {name!r}")
    if not installed(name):
        raise UsageError(f"--driver {name}: the {_MODULES[name]} module is not installed (pip install {name})")
    return DriverInfo(name, "async" if name == "asyncmy" else "thread")


class Connection:
    """A blocking connection: `run(sql, params)` executes one statement and reads its whole result.

    `run` is the driver's cursor.execute unless a leaner sender is given (mysqlclient: see
    `_mysqlclient_sender`); `fetch` always goes through the cursor.
    """

    def __init__(self, raw: Any, cursor: Any, run: Callable[[str, tuple[Any, ...]], Any] | None = None,
                 prepared: Any = None, unbuffered: Callable[[], Any] | None = None) -> None:
        self.raw = raw
        self.run: Callable[[str, tuple[Any, ...]], Any] = run or cursor.execute
        self.cursor = cursor
        self.prepared = prepared
        """The connection's server-side prepared statements (`binary.PreparedStatements`), when asked for."""
        self.run_prepared: Callable[[str, tuple[Any, ...]], Any] | None = prepared.sender() if prepared else None
        self._unbuffered = unbuffered

    def fetch(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        self.cursor.execute(sql, params)
        return list(self.cursor.fetchall())

    def stream(self, sql: str, params: tuple[Any, ...] = (), size: int = 2000) -> Iterator[list[tuple[Any, ...]]]:
        """Batches of a large result, read from the server as they are fetched (an unbuffered cursor)."""
        cursor = self._unbuffered() if self._unbuffered else self.cursor
        cursor.execute(sql, params)
        try:
            while rows := cursor.fetchmany(size):
                yield list(rows)
        finally:
            if cursor is not self.cursor:
                try:
                    cursor.close()
                except Exception:  # noqa: BLE001 - a stream abandoned on a dead connection cannot close cleanly
                    pass

    def unbuffered(self) -> Any:
        """A new cursor that reads a result from the server as it is fetched (the caller closes it)."""
        return self._unbuffered() if self._unbuffered else self.raw.cursor()

    def close(self) -> None:
        try:
            if self.prepared is not None:
                self.prepared.close()
            self.raw.close()
        except Exception:  # noqa: BLE001 - closing a dead connection must not fail the run
            pass


_COLLATION = re.compile(r"^utf8mb4_[a-z0-9_]+$")


def session_setup(target: Target) -> str | None:
    """The statement each connection runs first: `SET NAMES utf8mb4 COLLATE x` when the target URL names a
    `collation` (`?collation=utf8mb4_general_ci`; the tool names its tables' for a MySQL target), so literals and
    user variables compare with the tables' text in one collation (MySQL's error 1267 otherwise)."""
    collation = target.params.get("collation")
    if not collation:
        return None
    if not _COLLATION.match(collation):
        raise UsageError(f"--target: collation={collation!r} is not a utf8mb4 collation name")
    return f"SET NAMES utf8mb4 COLLATE {collation}"


def connect(target: Target, driver: str, *, timeout: float = 5.0, prepared: bool = False,
            local_infile: bool = False, found_rows: bool = False) -> Connection:
    """Open a blocking connection (autocommit, utf8mb4) with PyMySQL or mysqlclient; `prepared` adds
    server-side prepared statements (mysqlclient only, see `binary`); `local_infile` lets the
    connection answer LOAD DATA LOCAL INFILE (the data stage's loader); `found_rows` makes an UPDATE
    count the rows it matched, not only those it changed, as SQL Server's @@ROWCOUNT does (replay's and
    compare's connections: an application ported from SQL Server branches on that count, and its
    driver must set the same flag, as `client_flag=CLIENT.FOUND_ROWS` does in PyMySQL)."""
    common = {"host": target.host, "port": target.port, "user": target.user, "charset": "utf8mb4",
              "autocommit": True, "connect_timeout": max(1, int(timeout))}
    if found_rows:
        common["client_flag"] = _FOUND_ROWS
    setup = session_setup(target)
    if setup is not None:  # mysqlclient takes no None for it
        common["init_command"] = setup
    password = target.password.reveal()
    if driver == "mysqlclient":
        import MySQLdb
        import MySQLdb.cursors

        raw = MySQLdb.connect(passwd=password, db=target.database, local_infile=int(local_infile), **common)
        statements = None
        if prepared:
            from .binary import PreparedStatements

            statements = PreparedStatements(raw)
        return Connection(raw, raw.cursor(), _mysqlclient_sender(raw), statements,
                          lambda: raw.cursor(MySQLdb.cursors.SSCursor))
    if prepared:
        raise UsageError(f"driver {driver!r} sends no server-side prepared statements")
    if driver == "pymysql":
        import pymysql
        import pymysql.cursors

        raw = pymysql.connect(password=password, database=target.database, local_infile=local_infile, **common)
        return Connection(raw, raw.cursor(), unbuffered=lambda: raw.cursor(pymysql.cursors.SSCursor))
    raise UsageError(f"driver {driver!r} has no blocking connection")


_FOUND_ROWS = 2
"""CLIENT_FOUND_ROWS of the MySQL protocol: affected rows are the rows found (matched)."""


def _mysqlclient_sender(raw: Any) -> Callable[[str, tuple[Any, ...]], None]:
    """What mysqlclient's cursor.execute does for a replayed statement, without the cursor's bookkeeping.

    The cursor's Python layer (discarding the last result, mogrifying, rowcount, lastrowid,
    description, the rows turned into Python tuples for fetchall) costs about as much CPU per
    statement as the round trip itself (benchmarks/replay/RESULTS.md). Replay needs none of it:
    this formats the values with the connection's own `literal` (the same escaping the cursor
    uses), sends the text, and reads every result set to its end (`discard_result`, mysqlclient ≥ 2.1:
    the rows are fetched in C and freed), so the answer has fully arrived
    and the connection is ready for the next statement. Errors are the driver's own exceptions,
    exactly as from the cursor. A plain `int` is written as its digits directly, which is what
    `literal` makes of it (str(int)) at a tenth of the cost: seed 000's insert has four of them.
    """
    literal, query, discard, next_result = raw.literal, raw.query, raw.discard_result, raw.next_result
    encoding = raw.encoding
    encoded: dict[str, bytes] = {}

    def run(sql: str, params: tuple[Any, ...]) -> None:
        text = encoded.get(sql)
        if text is None:
            text = encoded[sql] = sql.encode(encoding)
        # Always formatted, as the cursor does when given values: `%%` in the text becomes `%`.
        query(text % tuple([b"%d" % v if type(v) is int else literal(v) for v in params]))
        # discard_result reads every row off the wire in the client library and frees it (no Python
        # result object, no rows turned into Python values): the whole answer has arrived. Decoding
        # it would measure this process, not the target.
        discard()
        while next_result() == 0:
            discard()

    return run


class AsyncConnection:
    """An asyncio connection (asyncmy): `await run(sql, params)`."""

    def __init__(self, raw: Any, cursor: Any) -> None:
        self.raw = raw
        self.run: Callable[[str, tuple[Any, ...]], Awaitable[Any]] = cursor.execute

    def close(self) -> None:
        try:
            self.raw.close()
        except Exception:  # noqa: BLE001 - closing a dead connection must not fail the run
            pass


async def connect_async(target: Target, *, timeout: float = 5.0) -> AsyncConnection:
    import asyncmy

    raw = await asyncmy.connect(host=target.host, port=target.port, user=target.user,
                                password=target.password.reveal(), database=target.database, charset="utf8mb4",
                                autocommit=True, connect_timeout=max(1, int(timeout)), init_command=session_setup(target),
                                client_flag=_FOUND_ROWS)  # rows matched, as SQL Server's @@ROWCOUNT counts them
    return AsyncConnection(raw, raw.cursor())


def classify(exc: BaseException) -> tuple[int, str, Kind]:
    """(MySQL error code or 0, one-line message, kind) of any driver's exception."""
    args = getattr(exc, "args", ())
    code = args[0] if args and isinstance(args[0], int) else 0
    message = " ".join(str(args[1] if len(args) > 1 else exc).split())[:300] or type(exc).__name__
    if code in FATAL_CODES:
        return code, message, "fatal"
    if code in LOST_CODES or isinstance(exc, (OSError, EOFError)) or type(exc).__name__ == "InterfaceError":
        return code or 2013, message, "lost"
    if code == 0 and type(exc).__name__ not in ("ProgrammingError", "DataError", "IntegrityError", "NotSupportedError",
                                                "OperationalError", "InternalError", "DatabaseError"):
        # Not a server answer at all (a driver bug, a value it cannot encode): treat as this statement's failure.
        return 0, f"{type(exc).__name__}: {message}", "statement"
    return code, message, "statement"


def driver_errors(driver: str) -> tuple[type[BaseException], ...]:
    """The exception classes a driver raises for server and connection errors (caught per statement)."""
    if driver == "mysqlclient":
        import MySQLdb

        return (MySQLdb.MySQLError, OSError)
    if driver == "asyncmy":
        from asyncmy import errors

        return (errors.MySQLError, OSError, EOFError)
    import pymysql

    return (pymysql.MySQLError, OSError)
