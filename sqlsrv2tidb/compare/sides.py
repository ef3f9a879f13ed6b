"""Running one statement on either side: SQL Server through pyodbc, the target through replay's drivers.

Each side has its own statement timeout, set on its session so that a class that runs too long is
stopped by the server and reported, never waited on: pyodbc's query timeout on SQL Server
(`Connection.timeout`), `max_execution_time` on TiDB, `max_statement_time` on MariaDB.

The SQL Server session runs with autocommit off and every statement's transaction is rolled back:
only reads are sent (`classes`), and a read that writes anyway (a function with side effects) leaves
nothing behind. A class's parameters are declared in front of its text with the captured T-SQL
types (`DECLARE @P1 int = ?`), so SQL Server reads the values as the application's did.

Rows are read in batches as they are fetched (pyodbc's fetchmany; an unbuffered cursor on the
target), so an answer of any size streams through. Every driver error, when the statement starts
or mid-stream, becomes a `SideError` naming its side, and saying whether the session was lost (the
connection cut, or a server that cannot serve for now) or the statement timed out.

Each side can say whether its session still answers (`probe`, one `SELECT 1`), drop it, and open
it again (`connect_again`, one attempt: `reopen` waits between attempts); a side without a session
answers every statement with a lost-session error until it has one again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..capture.live import Session, open_session
from ..errors import ConnectionFailed
from ..model import Parameter
from ..replay import drivers
from ..target import Target
from .values import BINARY_CHARSET, ResultColumn

FETCH_ROWS = 2000
SQL_SERVER, TARGET, BOTH = "sql_server", "target", "both"
TIMEOUT_CODES = frozenset({3024, 1969, 1317})
"""Interrupted by max_execution_time (TiDB, MySQL), by max_statement_time (MariaDB), or killed."""


class SideError(Exception):
    """One side could not answer: its error, one line, and whether the timeout stopped it."""

    def __init__(self, side: str, message: str, timed_out: bool = False, lost: bool = False) -> None:
        super().__init__(message)
        self.side, self.message, self.timed_out, self.lost = side, message, timed_out, lost


@dataclass
class Answer:
    """An answer being read: its column names and (target) types, and its rows in batches."""

    names: tuple[str, ...]
    batches: Iterator[Sequence[Sequence[Any]]]
    columns: tuple[ResultColumn, ...] = ()
    release: Callable[[], None] | None = None
    """Ends the statement (closes its cursor), whether or not its rows were read."""

    def close(self) -> None:
        """Stop reading: the statement's cursor is closed even if no batch was asked for."""
        close = getattr(self.batches, "close", None)
        if close is not None:
            close()
        if self.release is not None:
            self.release()


@dataclass
class Answered:
    """A result set read whole: its column names and rows."""

    names: tuple[str, ...]
    rows: Sequence[Sequence[Any]]


def declared_batch(text: str, parameters: Sequence[Parameter]) -> str:
    """The class's T-SQL with its parameters declared in front, each bound to a `?` in order."""
    if not parameters:
        return text
    declared = ", ".join(f"{p.name if p.name.startswith('@') else '@' + p.name} {p.type or 'sql_variant'} = ?"
                         for p in parameters)
    return f"SET NOCOUNT ON; DECLARE {declared};\n{text}"


class SqlServerSide:
    """A pyodbc session to the SQL Server the capture came from, opened again when it is lost."""

    name = SQL_SERVER

    def __init__(self, session: Session, timeout: float) -> None:
        self.session, self.timeout = session, timeout
        self.connected = True
        self._prepare()

    @property
    def display(self) -> str:
        return f"SQL Server at {self.session.conn.host}"

    def _prepare(self) -> None:
        handle = self.session.handle
        handle.timeout = max(1, round(self.timeout))
        handle.autocommit = False

    def _error(self, exc: Exception) -> SideError:
        state = str(exc.args[0]) if len(getattr(exc, "args", ())) > 1 else ""
        failure = self.session.failure(exc)
        timed_out = state in ("HYT00", "HYT01") or "timeout expired" in str(exc).lower()
        lost = isinstance(failure, ConnectionFailed) and not timed_out
        message = f"no answer within {self.timeout:g} s (the statement timeout)" if timed_out else str(failure)
        return SideError(SQL_SERVER, message, timed_out, lost)

    def probe(self) -> bool:
        """Whether the session still answers a statement (after an error, before the next class)."""
        if not self.connected:
            return False
        try:
            cursor = self.session.handle.cursor()
            cursor.execute("SELECT 1").fetchall()
            cursor.close()
            self.session.handle.rollback()
            return True
        except Exception:  # noqa: BLE001 - any failure here means the session is no longer usable
            return False

    def drop(self) -> None:
        """Give up the session (lost, or busy with a statement past its timeout)."""
        self.connected = False
        self.session.close()

    def connect_again(self) -> None:
        """One attempt at a new session with the same connection string; ConnectionFailed when it fails."""
        self.drop()
        self.session = open_session(self.session.conn, timeout=self.session.timeout)
        self._prepare()
        self.connected = True

    def open(self, text: str, parameters: Sequence[Parameter], values: Sequence[Any]) -> Answer:
        if not self.connected:
            raise SideError(SQL_SERVER, f"no session to {self.display}", lost=True)
        try:
            cursor = self.session.handle.cursor()
        except Exception as exc:  # noqa: BLE001 - a session that cannot give a cursor is gone
            raise SideError(SQL_SERVER, f"the session is unusable: {self.session.failure(exc)}", lost=True) from None
        try:
            cursor.execute(declared_batch(text, parameters), list(values))
            while cursor.description is None:
                if not cursor.nextset():
                    raise SideError(SQL_SERVER, "the statement returned no result set")
        except SideError:
            self._end(cursor)
            raise
        except Exception as exc:  # noqa: BLE001 - every driver error is this side's answer
            error = self._error(exc)
            self._end(cursor, cancel=error.timed_out)
            raise error from None
        names = tuple(str(d[0] or "") for d in cursor.description)
        return Answer(names, self._batches(cursor), release=lambda: self._end(cursor))

    def all_sets(self, text: str, parameters: Sequence[Parameter], values: Sequence[Any]) -> list[Answered]:
        """Every result set a batch returns (a procedure's call: its result sets in order), read whole, then rolled back."""
        if not self.connected:
            raise SideError(SQL_SERVER, f"no session to {self.display}", lost=True)
        try:
            cursor = self.session.handle.cursor()
        except Exception as exc:  # noqa: BLE001 - a session that cannot give a cursor is gone
            raise SideError(SQL_SERVER, f"the session is unusable: {self.session.failure(exc)}", lost=True) from None
        found: list[Answered] = []
        try:
            cursor.execute(declared_batch(text, parameters), list(values))
            while True:
                if cursor.description is not None:
                    found.append(Answered(tuple(str(d[0] or "") for d in cursor.description), cursor.fetchall()))
                if not cursor.nextset():
                    break
        except Exception as exc:  # noqa: BLE001 - every driver error is this side's answer
            error = self._error(exc)
            self._end(cursor, cancel=error.timed_out)
            raise error from None
        self._end(cursor)
        return found

    def _batches(self, cursor: Any) -> Iterator[Sequence[Sequence[Any]]]:
        cancel = False
        try:
            while True:
                try:
                    rows = cursor.fetchmany(FETCH_ROWS)
                except Exception as exc:  # noqa: BLE001 - an error mid-stream is this side's answer
                    error = self._error(exc)
                    cancel = error.timed_out
                    raise error from None
                if not rows:
                    return
                yield rows
        except GeneratorExit:
            cancel = True  # closed before its last row (a whole tie group read only so far): stop the statement
            raise
        finally:
            self._end(cursor, cancel=cancel)

    def _end(self, cursor: Any, cancel: bool = False) -> None:
        """Close the cursor and roll back; after a timeout, first ask the server to stop the statement
        (an attention, which SQL Server honours; Babelfish runs the statement to its end regardless)."""
        steps = (cursor.cancel, cursor.close, self.session.handle.rollback) if cancel else \
            (cursor.close, self.session.handle.rollback)
        for close in steps:
            try:
                close()
            except Exception:  # noqa: BLE001 - a cursor on a lost connection cannot close cleanly
                pass

    def close(self) -> None:
        self.session.close()


class TargetSide:
    """One connection to the target (TiDB, MySQL or MariaDB), with its statement timeout set."""

    name = TARGET

    def __init__(self, target: Target, timeout: float) -> None:
        self.target, self.timeout = target, timeout
        self.errors = drivers.driver_errors("pymysql")
        self.conn = self._connect()
        self.connected = True

    @property
    def display(self) -> str:
        return f"the target at {self.target.display}"

    def _connect(self) -> drivers.Connection:
        try:
            conn = drivers.connect(self.target, "pymysql", timeout=10, found_rows=True)  # rows matched, as SQL Server counts
        except self.errors as exc:
            _, message, _ = drivers.classify(exc)
            raise ConnectionFailed(f"{self.target.display}: {message}") from None
        try:
            version = str(conn.fetch("SELECT VERSION()")[0][0])
            self.kind = "tidb" if "tidb" in version.lower() else "mariadb" if "mariadb" in version.lower() else "mysql"
            if self.kind == "tidb" or self.kind == "mysql":
                conn.fetch(f"SET SESSION max_execution_time = {max(1, round(self.timeout * 1000))}")
            else:
                conn.fetch(f"SET SESSION max_statement_time = {self.timeout:g}")
            self.collations = {int(i): str(n) for i, n in conn.fetch(
                "SELECT ID, COLLATION_NAME FROM information_schema.COLLATIONS") if i is not None}
            if self.kind == "tidb":
                self._read_column_collations(conn)
        except self.errors as exc:  # a server still starting may take the login and fail the first statements
            conn.close()
            _, message, _ = drivers.classify(exc)
            raise ConnectionFailed(f"{self.target.display}: {message}") from None
        return conn

    def _read_column_collations(self, conn: drivers.Connection) -> None:
        """TiDB describes every text result column as utf8mb4_bin, whatever its collation; the tables' own
        collations stand in: a column's by its table and name (which TiDB does send), a computed column the
        collation most of the database's text columns have."""
        rows = conn.fetch("SELECT LOWER(TABLE_NAME), LOWER(COLUMN_NAME), COLLATION_NAME FROM information_schema.COLUMNS "
                          "WHERE TABLE_SCHEMA = DATABASE() AND COLLATION_NAME IS NOT NULL")
        self.column_collations = {(str(t), str(c)): str(n) for t, c, n in rows}
        counts: dict[str, int] = {}
        for name in self.column_collations.values():
            counts[name] = counts.get(name, 0) + 1
        self.text_collation = max(counts, key=counts.__getitem__) if counts else None

    def _collation(self, field: Any, charset: int | None) -> str | None:
        named = self.collations.get(charset) if charset is not None else None
        if self.kind != "tidb" or charset == BINARY_CHARSET or named is None:
            return named
        table, column = getattr(field, "org_table", "") or "", getattr(field, "org_name", "") or ""
        found = self.column_collations.get((table.lower(), column.lower())) if table and column else None
        return found or self.text_collation or named

    def probe(self) -> bool:
        """Whether the connection still answers a statement (after an error, before the next class)."""
        if not self.connected:
            return False
        try:
            self.conn.fetch("SELECT 1")
            return True
        except self.errors:
            return False

    def drop(self) -> None:
        self.connected = False
        self.conn.close()

    def connect_again(self) -> None:
        """One attempt at a new connection, its timeout set again; ConnectionFailed when it fails."""
        self.drop()
        self.conn = self._connect()
        self.connected = True

    def _error(self, exc: BaseException) -> SideError:
        code, message, kind = drivers.classify(exc)
        if code in TIMEOUT_CODES:
            return SideError(TARGET, f"no answer within {self.timeout:g} s (the statement timeout): {message}", True)
        return SideError(TARGET, message + (f" (MySQL error {code})" if code else ""), lost=kind == "lost")

    def open(self, sql: str, values: Sequence[Any], setup: Sequence[tuple[str, int]] = (),
             temporary: Sequence[str] = ()) -> Answer:
        """The answer of `sql`; a batch's statements before it (`setup`, each with its number of values, which
        come first in `values`) run first, on this connection, its temporary tables dropped before and after."""
        if not self.connected:
            raise SideError(TARGET, f"no connection to {self.display}", lost=True)
        values = self._run_setup(setup, temporary, values)
        cursor = self.conn.unbuffered()
        try:
            cursor.execute(sql, tuple(values) if values else None)
            if cursor.description is None:
                raise SideError(TARGET, "the statement returned no result set")
        except SideError:
            _close(cursor)
            raise
        except self.errors as exc:
            _close(cursor)
            raise self._error(exc) from None
        fields = getattr(getattr(cursor, "_result", None), "fields", None) or ()  # PyMySQL keeps each field's charset
        columns = self.result_columns(cursor.description, fields)

        def release() -> None:
            _close(cursor)
            self._drop(temporary)

        return Answer(tuple(c.name for c in columns), self._batches(cursor), columns, release)

    def result_columns(self, description: Sequence[Sequence[Any]], fields: Sequence[Any] = ()) -> tuple[ResultColumn, ...]:
        """The result columns of an answer, from the driver's description and PyMySQL's fields (each one's charset)."""
        described = list(fields) or [None] * len(description)
        return tuple(ResultColumn(str(d[0]), int(d[1]), d[5], self._collation(f, getattr(f, "charsetnr", None)),
                                  getattr(f, "charsetnr", None) == BINARY_CHARSET)
                     for d, f in zip(description, described, strict=False))

    def _run_setup(self, setup: Sequence[tuple[str, int]], temporary: Sequence[str],
                   values: Sequence[Any]) -> Sequence[Any]:
        """Run a batch's statements before its query; returns the values left for the query."""
        self._drop(temporary, quiet=False)
        at = 0
        for statement, count in setup:
            try:
                self.conn.cursor.execute(statement, tuple(values[at:at + count]) if count else None)
                self.conn.cursor.fetchall()
            except self.errors as exc:
                error = self._error(exc)
                raise SideError(TARGET, f"{error.message} (in its batch, before the query: {_clip(statement)})",
                                error.timed_out, error.lost) from None
            at += count
        return values[at:]

    def _drop(self, temporary: Sequence[str], quiet: bool = True) -> None:
        """Drop the temporary tables a batch makes (a session keeps them, and one would hide a table of its name)."""
        for name in temporary:
            try:
                self.conn.cursor.execute(f"DROP TEMPORARY TABLE IF EXISTS `{name}`")
            except self.errors as exc:
                if not quiet:
                    raise self._error(exc) from None

    def _batches(self, cursor: Any) -> Iterator[Sequence[Sequence[Any]]]:
        try:
            while True:
                try:
                    rows = cursor.fetchmany(FETCH_ROWS)
                except self.errors as exc:
                    raise self._error(exc) from None
                if not rows:
                    return
                yield rows
        finally:
            _close(cursor)

    def close(self) -> None:
        self.conn.close()


def _clip(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def _close(cursor: Any) -> None:
    try:
        cursor.close()
    except Exception:  # noqa: BLE001 - a cursor on a lost connection cannot close cleanly
        pass
