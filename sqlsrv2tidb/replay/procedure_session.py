"""The procedure runner's connection: a replay driver connection behind `procedures.session.TargetSession`.

The runner sends a procedure's statements one by one and needs each one's whole answer (its rows
go into variables, cursors and result sets), so this reads through the driver's cursor, not
replay's lean sender. Markers come as `?` and are turned into the drivers' `%s` once per text.
Replay's workers and compare's target side both hand the runner one of these.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..procedures.session import Failure, Outcome
from ..target import Target
from . import drivers
from .sqltext import to_format_style


class DriverSession:
    """`TargetSession` over one blocking driver connection (autocommit on, matched rows counted)."""

    def __init__(self, conn: drivers.Connection, driver: str) -> None:
        self.conn = conn
        self.errors = drivers.driver_errors(driver)
        self._texts: dict[str, str] = {}

    @classmethod
    def open(cls, target: Target, driver: str = "pymysql", timeout: float = 5.0) -> DriverSession:
        return cls(drivers.connect(target, driver, timeout=timeout, found_rows=True), driver)

    def execute(self, sql: str, values: Sequence[Any]) -> Outcome:
        """The statement's answer; its `description` is (the driver's description, PyMySQL's fields or ())."""
        cursor = self.conn.cursor
        if values:
            text = self._texts.get(sql)
            if text is None:
                text = self._texts[sql] = to_format_style(sql)[0]
            cursor.execute(text, tuple(values))
        else:
            cursor.execute(sql)
        description = cursor.description
        if description is None:
            return Outcome(None, [], max(cursor.rowcount, 0))
        fields = getattr(getattr(cursor, "_result", None), "fields", None) or ()  # PyMySQL's, with each charset
        rows = list(cursor.fetchall())
        columns = tuple(str(d[0]) for d in description)
        return Outcome(columns, rows, len(rows), (tuple(description), tuple(fields)))

    def failure(self, error: BaseException) -> Failure | None:
        if not isinstance(error, self.errors):
            return None
        code, message, kind = drivers.classify(error)
        return Failure(code, message, lost=kind != "statement")

    def close(self) -> None:
        self.conn.close()
