"""A write run on each side inside a transaction that is rolled back, and its rows read before the rollback.

SQL Server (`SqlServerWrites`): the session is in implicit-transaction mode (autocommit off), and a
BEGIN TRAN is sent first, so @@TRANCOUNT is 2 when the class starts: the class's own COMMIT never
reaches 0, its ROLLBACK undoes everything and the next statement opens another implicit transaction,
and the tool's rollback at the end undoes whatever is left. Nothing is ever committed; a session that
ends (a kill, a lost connection, a server restart) rolls back with it. The class's text runs as one
batch, as the application sent it, with its parameters declared in front, and SET NOCOUNT OFF so each
statement's rows affected come back.

The target (`TargetWrites`): the procedure runner runs the class (a plain statement, a batch, a
procedure call) with `rolled_back=True`, which begins the transaction and stops a call before
anything that would commit (`procedures.transactions`), reading what each statement changes
(`procedures.affected`).

Both sides then read the rows the call touched, by key (`read`), and the IDENTITY values taken by it
(above the value each side had before it: `identity_marks`), before `rollback`: at most `ROW_LIMIT` rows of
each table, so memory stays bounded whatever a write touches (the end state then says it compared a part).
https://learn.microsoft.com/sql/t-sql/statements/set-implicit-transactions-transact-sql
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model import Parameter
from ..procedures.affected import KEY_CHUNK, ROW_LIMIT, ChangePlan, TableKey, read_keys
from ..procedures.calls import Limits, Runner
from ..procedures.results import CallResult
from ..procedures.workload import CallPlan
from ..replay.procedure_session import DriverSession
from .error_kinds import WriteError, sql_server_error
from .sides import SQL_SERVER, TARGET, Answered, SideError, SqlServerSide, TargetSide, declared_batch


@dataclass(frozen=True)
class Mark:
    """A table's IDENTITY before a call: `floor`, at or below every value the call takes (its rows are those above
    it), and `base`, the last value the table gave out (the call's values are offsets from it)."""

    floor: int
    base: int


@dataclass
class SqlServerRun:
    """What the class answered on SQL Server: its result sets, each statement's rows affected, its errors."""

    result_sets: list[Answered] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)
    errors: list[WriteError] = field(default_factory=list)
    trancount: int | None = None
    """@@TRANCOUNT after the class (0: a ROLLBACK of its own ended the transaction)."""


def _bracket(name: str) -> str:
    return "[" + name.replace("]", "]]") + "]"


def _sql_server_table(table: TableKey) -> str:
    return f"{_bracket(table.schema)}.{_bracket(table.name)}"


class SqlServerWrites:
    """The SQL Server side of compare's writes, on the compare session (`SqlServerSide`)."""

    def __init__(self, side: SqlServerSide) -> None:
        self.side = side

    def _cursor(self) -> Any:
        if not self.side.connected:
            raise SideError(SQL_SERVER, f"no session to {self.side.display}", lost=True)
        try:
            return self.side.session.handle.cursor()
        except Exception as exc:  # noqa: BLE001 - a session that cannot give a cursor is gone
            raise SideError(SQL_SERVER, f"the session is unusable: {self.side.session.failure(exc)}", lost=True) from None

    def _fetch(self, sql: str, values: Sequence[Any] = (), limit: int | None = None) -> list[tuple[Any, ...]]:
        """The rows of one read (at most `limit` of them: the statement is cancelled past it)."""
        cursor = self._cursor()
        try:
            cursor.execute(sql, list(values))
            while cursor.description is None:
                if not cursor.nextset():
                    return []
            if limit is not None:
                rows = cursor.fetchmany(limit)
                if len(rows) == limit:
                    _cancel(cursor)  # the rest is not read
                return [tuple(r) for r in rows]
            return [tuple(r) for r in cursor.fetchall()]
        except Exception as exc:  # noqa: BLE001 - every driver error is this side's answer
            raise self.side._error(exc) from None
        finally:
            _close(cursor)

    def begin(self) -> None:
        """The transaction the class runs in (implicit-transaction mode opens one, BEGIN TRAN a second level)."""
        self._fetch("SET IMPLICIT_TRANSACTIONS ON; BEGIN TRAN")
        self._in_transaction()

    def _in_transaction(self) -> None:
        """Make sure the class is about to run in a transaction, or refuse to run it. An error may end the
        transaction: the test endpoint rolls it back on a statement naming a table that does not exist (a read of the
        rows a statement of a batch will change, before the batch made its temporary table) and leaves the session
        in autocommit, where SQL Server keeps it open (docs/babelfish.md). A write sent then would be committed."""
        if int(self._fetch("SELECT @@TRANCOUNT")[0][0]) > 0:
            return
        self._fetch("SET IMPLICIT_TRANSACTIONS ON; BEGIN TRAN")
        if int(self._fetch("SELECT @@TRANCOUNT")[0][0]) == 0:
            raise SideError(SQL_SERVER, "no transaction could be opened on SQL Server: the write is not sent", lost=True)

    def identity_marks(self, tables: Sequence[TableKey]) -> dict[str, Mark]:
        """Where each table's IDENTITY stands before the call: the highest value its rows hold (the rows above it are
        the call's) and the last value it gave out (IDENT_CURRENT; its seed less one increment when it gave none)."""
        marks: dict[str, Mark] = {}
        for table in tables:
            if table.identity is None:
                continue
            name = _sql_server_table(table)
            rows = self._fetch(f"SELECT CAST(IDENT_CURRENT(?) AS bigint), CAST(ic.last_value AS bigint), "
                               f"CAST(ic.seed_value AS bigint), CAST(ic.increment_value AS bigint), "
                               f"(SELECT CAST(MAX({_bracket(table.identity)}) AS bigint) FROM {name}) "
                               "FROM sys.identity_columns AS ic WHERE ic.object_id = OBJECT_ID(?)", [name, name])
            if not rows or rows[0][0] is None:
                continue
            current, last, seed, increment, highest = rows[0]
            base = int(current) if last is not None or seed is None else int(seed) - int(increment or 1)
            floor = int(highest) if highest is not None else int(seed or 1) - int(increment or 1)
            marks[table.qualified_name] = Mark(min(floor, base), base)
        return marks

    def keys(self, plans: Sequence[ChangePlan], parameters: Sequence[Parameter],
             values: Sequence[Any]) -> dict[str, list[tuple[Any, ...]]]:
        """The keys the class's own statements will change or add, read before it runs (a read that fails is left
        out: the statement it belongs to will answer for itself)."""
        found: dict[str, list[tuple[Any, ...]]] = {}
        for plan in plans:
            width = len(plan.table.key)
            for text in (plan.before_tsql, plan.new_keys_tsql):
                if not text:
                    continue
                try:
                    rows = self._fetch(declared_batch(text, parameters), values, ROW_LIMIT)
                except SideError as exc:
                    if exc.lost:
                        raise
                    continue
                keys = found.setdefault(plan.table.qualified_name, [])
                for row in rows:
                    keys.append(tuple(row[:width]))
                    if text == plan.before_tsql and len(row) > width:
                        new = list(row[:width])
                        for name, value in zip(plan.new_key_columns, row[width:], strict=False):
                            new[plan.table.key.index(name)] = value
                        keys.append(tuple(new))
        return found

    def run(self, text: str, parameters: Sequence[Parameter], values: Sequence[Any]) -> SqlServerRun:
        """The class's batch, every result it sends read in order: result sets, rows affected, errors."""
        ran = SqlServerRun()
        self._in_transaction()
        cursor = self._cursor()
        batch = declared_batch(text, parameters)
        batch = batch.replace(";\n", "; SET NOCOUNT OFF;\n", 1) if parameters else "SET NOCOUNT OFF;\n" + text
        try:
            try:
                cursor.execute(batch, list(values))
            except Exception as exc:  # noqa: BLE001 - the first statement's error: read what follows it
                self._failed(ran, exc)
            for _ in range(100_000):
                try:
                    if cursor.description is not None:
                        names = tuple(str(d[0] or "") for d in cursor.description)
                        ran.result_sets.append(Answered(names, [tuple(r) for r in cursor.fetchall()]))
                    elif cursor.rowcount is not None and cursor.rowcount >= 0:
                        ran.counts.append(cursor.rowcount)
                    if not cursor.nextset():
                        break
                except Exception as exc:  # noqa: BLE001 - a later statement's error: the batch may go on
                    self._failed(ran, exc)
        finally:
            _close(cursor)
        ran.trancount = int(self._fetch("SELECT @@TRANCOUNT")[0][0])
        return ran

    def _failed(self, ran: SqlServerRun, exc: Exception) -> None:
        error = self.side._error(exc)
        if error.lost or error.timed_out:
            raise error
        text = str(exc.args[1]) if len(getattr(exc, "args", ())) > 1 else str(exc)
        ran.errors.append(sql_server_error(text))

    def read(self, table: TableKey, keys: Sequence[tuple[Any, ...]], above: int | None,
             by: Sequence[str] = ()) -> list[tuple[Any, ...]]:
        """The rows of these keys (values of the columns `by`, else of the key) as SQL Server now holds them, and those
        whose IDENTITY is above `above`."""
        columns = ", ".join(_bracket(c) for c in table.columns)
        source = f"SELECT {columns} FROM {_sql_server_table(table)} WHERE "
        rows: list[tuple[Any, ...]] = []
        distinct = list(dict.fromkeys(k for k in keys if all(v is not None for v in k)))[:ROW_LIMIT]
        named = tuple(by) or table.key
        for start in range(0, len(distinct), KEY_CHUNK):
            chunk = distinct[start:start + KEY_CHUNK]
            if len(named) == 1:  # one column: an IN list, which the server answers by the index at once
                where = f"{_bracket(named[0])} IN ({', '.join('?' * len(chunk))})"
            else:
                one = "(" + " AND ".join(f"{_bracket(k)} = ?" for k in named) + ")"
                where = " OR ".join([one] * len(chunk))
            rows += self._fetch(source + where, [v for k in chunk for v in k])
        if above is not None and table.identity is not None:
            rows += self._fetch(f"SELECT TOP ({ROW_LIMIT}) {columns} FROM {_sql_server_table(table)} WHERE "
                                f"{_bracket(table.identity)} > ? ORDER BY {_bracket(table.identity)}", [above])
        return rows

    def rollback(self) -> None:
        """Undo everything the class did (the tool's transaction and any the class left open)."""
        if int(self._fetch("SELECT @@TRANCOUNT")[0][0]) == 0:
            return  # an error of the class ended the transaction already (the test endpoint's way, above)
        try:
            self.side.session.handle.rollback()
        except Exception as exc:  # noqa: BLE001 - a lost session rolled back on the server as it ended
            raise self.side._error(exc) from None


class TargetWrites:
    """The target side of compare's writes: the class through the procedure runner, in a transaction rolled back."""

    def __init__(self, side: TargetSide) -> None:
        self.side = side
        self.session = DriverSession(side.conn, "pymysql")

    def _fetch(self, sql: str, values: Sequence[Any] = ()) -> tuple[list[tuple[Any, ...]], Any]:
        try:
            outcome = self.session.execute(sql, values)
        except self.side.errors as exc:
            raise self.side._error(exc) from None
        return [tuple(r) for r in outcome.rows], outcome.description

    def identity_marks(self, tables: Sequence[TableKey]) -> dict[str, Mark]:
        """Where each table's AUTO_INCREMENT stands before the call: the highest value its rows hold and the last value
        it gave out (the next one less one)."""
        marks: dict[str, Mark] = {}
        if self.side.kind == "mysql":
            self._fetch("SET SESSION information_schema_stats_expiry = 0")  # else MySQL caches the counter
        for table in tables:
            if table.identity is None:
                continue
            if self.side.kind == "tidb":  # information_schema's AUTO_INCREMENT lags TiDB's allocator; this does not
                rows, _ = self._fetch(f"SHOW TABLE {table.target} NEXT_ROW_ID")
                found = [r[3] for r in rows if str(r[4]).upper() == "AUTO_INCREMENT"] or [r[3] for r in rows]
                rows = [(max(found),)] if found else []
            else:
                rows, _ = self._fetch("SELECT AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = "
                                      "COALESCE(?, DATABASE()) AND TABLE_NAME = ?",
                                      [table.target_database, table.target_name])
            if not rows or rows[0][0] is None:
                continue
            base = int(rows[0][0]) - 1
            highest, _ = self._fetch(f"SELECT MAX(`{table.identity}`) FROM {table.target}")
            floor = int(highest[0][0]) if highest and highest[0][0] is not None else base
            marks[table.qualified_name] = Mark(min(floor, base), base)
        return marks

    def run(self, plan: CallPlan, arguments: Sequence[tuple[str | None, Any]]) -> CallResult:
        """The class through the runner; a procedure call with its return status and OUTPUT parameters selected after
        it (`CallPlan.checked`), as SQL Server's side runs `checked_text`."""
        runner = Runner(self.session, plan.resolve, case_insensitive=plan.case_insensitive, changes=True,
                        triggers=plan.triggers, dynamic=plan.dynamic, limits=Limits(seconds=self.side.timeout))
        return runner.call(plan.checked if plan.checked is not None else plan.batch, list(arguments), rolled_back=True)

    def read(self, table: TableKey, keys: Sequence[tuple[Any, ...]], above: int | None,
             by: Sequence[str] = ()) -> tuple[list[tuple[Any, ...]], Any]:
        """The rows of these keys (values of the columns `by`, else of the key) as the target now holds them, and those
        whose AUTO_INCREMENT is above `above`."""
        plan = ChangePlan("read", table)
        rows, description = read_keys(plan, list(dict.fromkeys(keys))[:ROW_LIMIT], self._fetch, by)
        if above is not None and table.identity is not None:
            columns = ", ".join("`" + c.replace("`", "``") + "`" for c in table.columns)
            more, description = self._fetch(f"SELECT {columns} FROM {table.target} WHERE `{table.identity}` > ? "
                                            f"ORDER BY `{table.identity}` LIMIT {ROW_LIMIT}", [above])
            rows += more
        return rows, description

    def describe(self, table: TableKey) -> Any:
        """The driver's description of the table's columns (a read of no rows)."""
        columns = ", ".join("`" + c.replace("`", "``") + "`" for c in table.columns)
        return self._fetch(f"SELECT {columns} FROM {table.target} WHERE 1 = 0")[1]

    def rollback(self) -> None:
        try:
            self.session.execute("ROLLBACK", ())
        except self.side.errors as exc:
            raise self.side._error(exc) from None


def _cancel(cursor: Any) -> None:
    try:
        cursor.cancel()
    except Exception:  # noqa: BLE001 - a statement that ended already has nothing to cancel
        pass


def _close(cursor: Any) -> None:
    try:
        cursor.close()
    except Exception:  # noqa: BLE001 - a cursor on a lost connection cannot close cleanly
        pass


__all__ = ["SqlServerRun", "SqlServerWrites", "TargetWrites", "SQL_SERVER", "TARGET"]
