"""Reading a table's rows from SQL Server in key order, as one stream that can resume after a key.

The connection is the live capture's (`capture.live.open_session`: the same connection string,
password handling and one-line errors); this module only writes the SELECTs and walks the
results. One statement reads a whole table (or the rest of it after a checkpoint's key), fetched
in batches, so a table of any size streams through a fixed amount of memory, and the server
orders by the clustered key without sorting when the key is the clustered primary key. A
connection lost mid-stream raises `SourceLost`; the caller reopens and resumes after the last key
it has safely loaded.

The session sets `TEXTSIZE` to the maximum when it opens, lifting the client's cap on text, ntext
and image values (FreeTDS cuts them at 64,512 bytes otherwise;
https://learn.microsoft.com/sql/t-sql/statements/set-textsize-transact-sql).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..capture.live import Session
from ..errors import ConnectionFailed, InputError
from .tables import TableSpec, source_order, source_parameter

FETCH_ROWS = 2000


class SourceLost(ConnectionFailed):
    """The connection to SQL Server went away mid-read; the read can be resumed after its last key."""


class Source:
    """A SQL Server session that reads tables for the data stage."""

    def __init__(self, session: Session, pool: SourcePool | None = None) -> None:
        self.session, self.pool = session, pool
        self.broken = False

    @property
    def host(self) -> str:
        return self.session.conn.host

    def reconnect(self) -> None:
        self.session = self.session.reopen()
        self.broken = False

    def close(self) -> None:
        """Back to its pool for the next table (a login costs a round trip or more), else closed."""
        if self.pool is not None and not self.broken:
            self.pool.put(self)
        else:
            self.session.close()

    def _error(self, exc: Exception, spec: TableSpec) -> Exception:
        failure = self.session.failure(exc)
        if isinstance(failure, ConnectionFailed) or not self.alive():
            self.broken = True
            return SourceLost(f"lost the connection to SQL Server at {self.host} reading {spec.label}: {failure}")
        return InputError(f"{spec.label}: SQL Server refused the read: {failure}")

    def alive(self) -> bool:
        """Whether the session still answers (a pooled one may have been cut while it waited)."""
        try:
            cursor = self.session.handle.cursor()
            cursor.execute("SELECT 1").fetchall()
            cursor.close()
            return True
        except Exception:  # noqa: BLE001 - any failure here means the session is gone
            return False

    def count(self, spec: TableSpec) -> int:
        sql = f"SELECT COUNT_BIG(*) FROM {spec.source_name}"
        try:
            cursor = self.session.handle.cursor()
            value = cursor.execute(sql).fetchone()[0]
            cursor.close()
            return int(value)
        except Exception as exc:  # noqa: BLE001 - classified by the capture's session
            raise self._error(exc, spec) from None

    def boundaries(self, spec: TableSpec, parts: int, total: int | None = None) -> list[tuple[Any, ...]]:
        """The keys that cut the table into `parts` ranges of (nearly) equal row counts, in key order.

        Each is the key of the row at a multiple of `total`/parts in key order (OFFSET ... FETCH), so
        the ranges hold equal rows however unevenly the key values are spread (gaps, a skewed
        leading column of a composite key); the server walks the key's index to each cut, reading
        keys only. Fewer come back when the table holds fewer distinct cuts than asked.
        """
        order = source_order(spec)
        if not order or parts < 2:
            return []
        total = self.count(spec) if total is None else total
        select = ", ".join(c.select for c in spec.key_columns)
        cuts: list[tuple[Any, ...]] = []
        for i in range(1, parts):
            offset = total * i // parts - 1
            if offset < 0:
                continue
            sql = (f"SELECT {select} FROM {spec.source_name} ORDER BY {', '.join(order)} "
                   f"OFFSET {offset} ROWS FETCH NEXT 1 ROWS ONLY")
            try:
                cursor = self.session.handle.cursor()
                row = cursor.execute(sql).fetchone()
                cursor.close()
            except Exception as exc:  # noqa: BLE001 - classified by the capture's session
                raise self._error(exc, spec) from None
            if row is not None and (not cuts or tuple(row) != cuts[-1]):
                cuts.append(tuple(row))
        return cuts

    def rows(self, spec: TableSpec, after: Sequence[Any] | None = None, *, upto: Sequence[Any] | None = None,
             columns: Sequence[str] | None = None, batch: int = FETCH_ROWS) -> Iterator[list[Any]]:
        """Batches of rows (`spec.columns` order, or the `columns` expressions) in key order, after `after`
        and up to `upto` (the key of the last row wanted; None: to the end)."""
        select = ", ".join(columns if columns is not None else [c.select for c in spec.columns])
        sql, params = f"SELECT {select} FROM {spec.source_name}", []
        order = source_order(spec)
        conditions = []
        if after is not None and order:
            where, params = keyset_predicate(order, [source_parameter(c, v) for c, v in
                                                     zip(spec.key_columns, after, strict=True)])
            conditions.append(f"({where})")
        if upto is not None and order:
            where, more = keyset_predicate(order, [source_parameter(c, v) for c, v in
                                                   zip(spec.key_columns, upto, strict=True)])
            conditions.append(f"NOT ({where})")
            params = params + more
        if conditions:
            sql += " WHERE " + " AND ".join(conditions)
        if order:
            sql += " ORDER BY " + ", ".join(order)
        try:
            cursor = self.session.handle.cursor()
            cursor.execute(sql, params)
        except Exception as exc:  # noqa: BLE001 - classified by the capture's session
            raise self._error(exc, spec) from None
        try:
            while True:
                try:
                    got = cursor.fetchmany(batch)
                except Exception as exc:  # noqa: BLE001 - classified by the capture's session
                    raise self._error(exc, spec) from None
                if not got:
                    return
                yield got
        finally:
            try:
                cursor.close()
            except Exception:  # noqa: BLE001 - a cursor on a lost connection cannot close cleanly
                pass


class SourcePool:
    """Idle SQL Server sessions shared by the threads: each table borrows one and gives it back."""

    def __init__(self, opener: Callable[[], Session]) -> None:
        self.opener = opener
        self._idle: list[Source] = []
        self._lock = threading.Lock()

    def get(self) -> Source:
        with self._lock:
            if self._idle:
                return self._idle.pop()
        return Source(self.opener(), self)

    def put(self, source: Source) -> None:
        with self._lock:
            self._idle.append(source)

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for source in idle:
            source.session.close()


def keyset_predicate(order: Sequence[str], values: Sequence[Any]) -> tuple[str, list[Any]]:
    """`(a, b) > (x, y)` spelled for T-SQL, which has no row comparison: a > x OR (a = x AND b > y)."""
    terms, params = [], []
    for i, expr in enumerate(order):
        parts = [f"{order[j]} = ?" for j in range(i)] + [f"{expr} > ?"]
        terms.append("(" + " AND ".join(parts) + ")")
        params.extend(list(values[:i]) + [values[i]])
    return " OR ".join(terms), params
