"""The target as the data stage sees it: its tables' columns, their rows, and the session it loads in.

Connections come from replay's driver layer (`replay.drivers`, the one module that imports MySQL
drivers), opened with LOCAL INFILE allowed. The session is set up for loading: an explicit 0 stays 0 in an AUTO_INCREMENT column
(NO_AUTO_VALUE_ON_ZERO), explicit values go into AUTO_RANDOM columns (TiDB refuses them otherwise,
https://docs.pingcap.com/tidb/stable/auto-random#insert-values-explicitly), and foreign-key checks
are switched off only on the sessions that load tables whose keys form a cycle or point at
themselves (the load order cannot satisfy those); the switch is per session, so it is restored
when the session ends.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import ConnectionFailed
from ..replay import drivers
from ..target import Target
from .tables import TableSpec, TargetColumn, backtick, target_order

LOCAL_INFILE_REFUSED = frozenset({1148, 2068, 3948, 3950, 4166})
"""The server or client will not take LOAD DATA LOCAL: the used command is not allowed, the client
refused the file, local data is disabled (MySQL), the local infile capability is disabled (MariaDB 10.x) (https://dev.mysql.com/doc/mysql-errors/8.0/en/server-error-reference.html)."""


_GENERATED = re.compile(r"\b(?:VIRTUAL|STORED|PERSISTENT)\s+GENERATED\b", re.IGNORECASE)
"""A generated column's `extra` (its value is computed: not copied). `DEFAULT_GENERATED` is a column whose
DEFAULT is an expression (`DEFAULT (UUID())`): a plain column, copied like any other."""


class TargetLost(ConnectionFailed):
    """The connection to the target went away; the chunk in flight is loaded again on a new one."""


@dataclass(frozen=True)
class TargetForeignKey:
    table: str
    referenced: str


class TargetDb:
    """One connection to the target, for one thread."""

    def __init__(self, target: Target, driver: str, *, fk_checks: bool = True, timeout: float = 10.0) -> None:
        self.target, self.driver, self.fk_checks, self.timeout = target, driver, fk_checks, timeout
        self.errors = drivers.driver_errors(driver)
        self.conn = self._connect()
        self.kind = "tidb" if "tidb" in str(self.fetch("SELECT VERSION()")[0][0]).lower() else "mysql"
        self._session()

    def _connect(self) -> drivers.Connection:
        try:
            return drivers.connect(self.target, self.driver, timeout=self.timeout, local_infile=True)
        except self.errors as exc:
            code, message, kind = drivers.classify(exc)
            error = TargetLost if kind == "lost" else ConnectionFailed
            raise error(f"{self.target.display}: {message}" + (f" (MySQL error {code})" if code else "")) from None

    def _session(self) -> None:
        self.connection_id = int(self.conn.fetch("SELECT CONNECTION_ID()")[0][0])
        # An explicit 0 in an AUTO_INCREMENT column would otherwise draw a new value; SQL Server
        # identities may hold 0 (IDENTITY(0,1)) and negative values, which must arrive as they are.
        self.execute("SET SESSION sql_mode = CONCAT(@@sql_mode, ',NO_AUTO_VALUE_ON_ZERO')")
        if self.kind == "tidb":
            self.execute("SET SESSION allow_auto_random_explicit_insert = ON")
        if not self.fk_checks:
            self.execute("SET SESSION foreign_key_checks = 0")

    def reconnect(self) -> None:
        self.close()
        self.conn = self._connect()
        self._session()

    def close(self) -> None:
        self.conn.close()

    def cancel(self) -> None:
        """Stop the statement this connection is running, from a connection of its own: Ctrl-C reaches a load that
        waits (on a lock another session holds, say) without waiting for the server to give up on it."""
        try:
            other = drivers.connect(self.target, self.driver, timeout=self.timeout)
        except self.errors:
            return
        try:
            other.fetch(f"KILL QUERY {self.connection_id}")
        except self.errors:
            pass  # it has ended already
        finally:
            other.close()

    def failure(self, exc: BaseException, what: str) -> Exception:
        """A driver error as a TargetLost (retry on a new connection) or a one-line ConnectionFailed."""
        code, message, kind = drivers.classify(exc)
        text = f"{self.target.display}: {what}: {message}" + (f" (MySQL error {code})" if code else "")
        return TargetLost(text) if kind == "lost" else ConnectionFailed(text)

    def execute(self, sql: str, params: Sequence[Any] | None = None, *, again: bool = True) -> int:
        """Run one statement; on a lost connection it runs once more on a new one, unless `again` is False
        (an INSERT whose answer was lost may have been applied: the chunk's own retry handles that)."""
        args = tuple(params) if params is not None else None
        try:
            return self.conn.cursor.execute(sql, args)
        except self.errors as exc:
            failure = self.failure(exc, _verb(sql))
        if not again or not isinstance(failure, TargetLost):
            raise failure
        self.reconnect()
        try:
            return self.conn.cursor.execute(sql, args)
        except self.errors as exc:
            raise self.failure(exc, _verb(sql)) from None

    def fetch(self, sql: str, params: Sequence[Any] = (), *, again: bool = True) -> list[tuple[Any, ...]]:
        """Rows of one query; on a lost connection it runs once more on a new one, unless `again` is
        False (the answer belongs to this connection's session)."""
        for attempt in (1, 2):
            try:
                return self.conn.fetch(sql, tuple(params))
            except self.errors as exc:
                failure = self.failure(exc, _verb(sql))
                if attempt == 2 or not again or not isinstance(failure, TargetLost):
                    raise failure from None
            self.reconnect()
        raise AssertionError("unreachable")

    def stream(self, sql: str, params: Sequence[Any] = (), size: int = 2000) -> Iterator[list[tuple[Any, ...]]]:
        try:
            yield from self.conn.stream(sql, tuple(params), size)
        except self.errors as exc:
            raise self.failure(exc, "reading rows") from None

    # What the target holds --------------------------------------------------------------------

    def tables(self) -> set[str]:
        return {str(r[0]).casefold() for r in self.fetch(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()")}

    def views(self) -> set[str]:
        """The views among `tables()`."""
        return {str(r[0]).casefold() for r in self.fetch(
            "SELECT table_name FROM information_schema.views WHERE table_schema = DATABASE()")}

    def columns(self, table: str) -> list[TargetColumn]:
        rows = self.fetch(
            "SELECT column_name, column_type, collation_name, extra FROM information_schema.columns "
            "WHERE table_schema = DATABASE() AND table_name = %s ORDER BY ordinal_position", (table,))
        return [TargetColumn(str(name), str(ctype), str(coll) if coll else None, bool(_GENERATED.search(str(extra or ""))))
                for name, ctype, coll, extra in rows]

    def foreign_keys(self) -> list[TargetForeignKey]:
        rows = self.fetch(
            "SELECT table_name, referenced_table_name FROM information_schema.referential_constraints "
            "WHERE constraint_schema = DATABASE()")
        return [TargetForeignKey(str(t).casefold(), str(r).casefold()) for t, r in rows]

    def count(self, table: str, limit: int | None = None) -> int:
        name = backtick(table)
        if limit is None:
            return int(self.fetch(f"SELECT COUNT(*) FROM {name}")[0][0])
        return int(self.fetch(f"SELECT COUNT(*) FROM (SELECT 1 FROM {name} LIMIT {int(limit)}) AS x")[0][0])

    def is_empty(self, table: str) -> bool:
        return not self.fetch(f"SELECT 1 FROM {backtick(table)} LIMIT 1")

    def truncate(self, table: str) -> None:
        """Empty a table; one that foreign keys reference cannot be truncated, so it is deleted from instead."""
        try:
            self.execute(f"TRUNCATE TABLE {backtick(table)}")
        except ConnectionFailed as exc:
            if "1701" not in str(exc):
                raise
            self.execute("SET SESSION foreign_key_checks = 0")
            try:
                self.execute(f"DELETE FROM {backtick(table)}")
            finally:
                if self.fk_checks:
                    self.execute("SET SESSION foreign_key_checks = 1")

    def delete_after(self, spec: TableSpec, key: Sequence[Any] | None) -> int:
        """Delete the rows after `key` in the load's key order (all rows for None): an unfinished chunk's."""
        if key is None or not spec.key:
            return self.execute(f"DELETE FROM {backtick(spec.target_name)}")
        where, params = after_predicate(spec, key)
        return self.execute(f"DELETE FROM {backtick(spec.target_name)} WHERE {where}", params)

    def delete_range(self, spec: TableSpec, after: Sequence[Any] | None, upto: Sequence[Any] | None) -> int:
        """Delete the rows after `after` up to and including `upto` in the load's key order (target key
        values; None: no bound on that side): what an unfinished chunk of one key range left."""
        if not spec.key:
            raise ValueError("a key range needs a key")
        terms, params = [], []
        if after is not None:
            where, more = after_predicate(spec, after)
            terms.append(where)
            params += more
        if upto is not None:
            where, more = after_predicate(spec, upto)
            terms.append(f"NOT {where}")
            params += more
        sql = f"DELETE FROM {backtick(spec.target_name)}" + (" WHERE " + " AND ".join(terms) if terms else "")
        return self.execute(sql, params)

    def warnings(self) -> list[str]:
        """The last statement's warnings. Read on its own connection only: a new one has none, so a
        connection lost before they were read is a TargetLost, and the chunk is loaded again."""
        if not int(self.fetch("SELECT @@warning_count", again=False)[0][0]):
            return []
        return [f"{level} {code}: {message}" for level, code, message in self.fetch("SHOW WARNINGS", again=False)[:20]]


def _verb(sql: str) -> str:
    """The statement's first word, for messages (comments before it skipped)."""
    code = re.sub(r"--[^\n]*|/\*(?!T!).*?\*/", " ", sql, flags=re.S).split()
    return code[0] if code else "statement"


def after_predicate(spec: TableSpec, key: Sequence[Any]) -> tuple[str, list[Any]]:
    """`(k1, k2) > (%s, %s)` over the target's key order expressions."""
    order = target_order(spec)
    return f"({', '.join(order)}) > ({', '.join(['%s'] * len(order))})", list(key)
