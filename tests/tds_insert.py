"""Rows into a table of the SQL Server endpoint, as multi-row INSERTs of literals.

The generated databases (tests/data/corpus_rows.py, tests/answers/sede) load their rows through
here. Each statement carries up to `BATCH` rows written as T-SQL literals: SQL Server takes at most
1,000 rows in one VALUES list, and a statement of literals costs one round trip where pyodbc's
`executemany` through FreeTDS costs one per row (tests/answers/README.md has the measurements).
Literals are written so that any SQL Server reads them the same way: text as N'...' (quotes
doubled), date-times in ISO 8601 with a `T` (independent of SET DATEFORMAT and the login's
language), binary as 0x hex, bit as 0 or 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import date, datetime, time
from decimal import Decimal

BATCH = 1000
"""Rows per INSERT: SQL Server's limit for one VALUES list (error 10738 above it)."""


def q(name: str) -> str:
    """A double-quoted identifier: Babelfish refuses some bracketed names SQL Server takes ([Primary])."""
    return '"' + name.replace('"', '""') + '"'


def literal(value: object, sql_type: str = "") -> str:
    """`value` as a T-SQL literal for a column of `sql_type` (its base type name, lower case)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, (bytes, bytearray)):
        return "0x" + bytes(value).hex()
    if isinstance(value, datetime):
        if sql_type == "smalldatetime":
            return f"'{value.replace(second=0, microsecond=0).isoformat(timespec='seconds')}'"
        digits = "milliseconds" if sql_type == "datetime" else "microseconds"
        return f"'{value.isoformat(timespec=digits)}'"
    if isinstance(value, (date, time)):
        return f"'{value.isoformat()}'"
    return "N'" + str(value).replace("'", "''") + "'"


def insert_statements(table: str, columns: Sequence[tuple[str, str]], rows: Iterable[Sequence[object]],
                      batch: int = BATCH) -> Iterator[tuple[str, int]]:
    """(INSERT statement, rows in it) that load `rows` into `table` (already quoted), `batch` rows each.

    `columns` are (name, base type name) in the rows' order.
    """
    head = f"INSERT INTO {table} ({', '.join(q(name) for name, _ in columns)}) VALUES "
    types = [kind.casefold() for _, kind in columns]
    values: list[str] = []
    for row in rows:
        values.append("(" + ", ".join(literal(v, t) for v, t in zip(row, types, strict=True)) + ")")
        if len(values) >= batch:
            yield head + ", ".join(values), len(values)
            values = []
    if values:
        yield head + ", ".join(values), len(values)


def insert_rows(cursor, table: str, columns: Sequence[tuple[str, str]], rows: Iterable[Sequence[object]], *,
                identity: bool = False, batch: int = BATCH) -> int:
    """Run the INSERTs of `rows` on `cursor`; `identity` sets IDENTITY_INSERT around each. Returns the rows sent."""
    sent = 0
    for sql, count in insert_statements(table, columns, rows, batch):
        if identity:
            sql = f"SET IDENTITY_INSERT {table} ON; {sql}; SET IDENTITY_INSERT {table} OFF;"
        try:
            cursor.execute(sql)
        except Exception as exc:
            raise RuntimeError(f"{table}, rows {sent + 1} to {sent + count}: {exc}") from exc
        sent += count
    return sent
