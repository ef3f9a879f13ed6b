"""What the target kept of a chunk: each row it refused, named by its key with the server's reason, and
each warning about a row it changed on the way in.

LOAD DATA LOCAL cannot stop the client's stream, so the server runs it as LOAD DATA IGNORE, and the
INSERT fallback sends INSERT IGNORE to behave the same (load.py): a row the server refuses is
skipped, a value a column cannot hold is changed to fit, and the statement goes on. Measured on
MySQL 9.7, MariaDB 10.11 and TiDB 8.5 (tests/data/test_data_landing.py pins the CHECK, length and NOT NULL
rows on each, through LOAD DATA and INSERT):

| a row that                 | MySQL                    | MariaDB                   | TiDB                        |
|----------------------------|--------------------------|---------------------------|-----------------------------|
| fails a CHECK              | skipped, warning 3819    | skipped, warning 4025     | skipped, **no warning**     |
| repeats a key              | skipped, 1062            | skipped, 1062             | skipped, 1062               |
| lacks its parent row       | skipped, 1452            | skipped, 1452             | LOAD DATA: **kept**, silent |
| has a value too long       | kept cut, 1265 at row N  | kept cut, 1265 at row N   | kept cut, 1265 (1406) row N |
| has NULL for a NOT NULL    | kept as '' or 0, 1263    | kept as '' or 0, 1263     | kept as '' or 0, 1263/1048  |

The refusal warnings carry no row number, TiDB gives none at all for a CHECK, and the row numbers
the others give skip the rows a CHECK refused (MySQL on both paths, MariaDB under LOAD DATA). So
the warnings can neither count nor name the rows that did not land; the affected-rows count can
count them. A chunk whose count falls short of the rows it sent has refused rows: they are found by
key (a query per `_PROBE_ROWS` rows asks which of the chunk's keys the target does not hold), and
each is sent again alone, as the load sent it, whose refusal (an error, or the one warning of its
statement) is the server's reason for that row (nothing is written: the row is refused again; one the
target takes this time counts as loaded).
At most `EXPLAINED` rows of a table are sent again: past that, a refused row is still named by its
key, with the reasons the chunk's warnings gave. A table without a key cannot name its refused rows:
the chunk says how many there were and why.

A warning about a row the target kept (a value it changed) is written with the key of the row its
row number points at, counted as the server counts; the rejects file lists up to `LISTED_WARNINGS`
of each chunk, and every one is counted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .encode import literal_from_text, shown_value
from .tables import TableSpec, backtick
from .targetdb import Statement, TargetDb

REFUSALS = frozenset({1062, 1216, 1452, 3819, 4025})
"""Warnings about a row the server did not keep: duplicate key, no parent row (1452, and 1216, the older code of
the same), CHECK failed (MySQL and TiDB 3819, MariaDB 4025)."""
CHECK_REFUSALS = frozenset({3819, 4025})
EXPLAINED = 1000
"""Refused rows of one table (or key range) sent again alone, each for the server's own reason."""
LISTED_WARNINGS = 20
"""Warnings of one chunk about rows the target changed that go into the rejects file (all are counted)."""
_PROBE_ROWS = 200
_ROW = re.compile(r"\bat row (\d+)\b")


@dataclass
class Landing:
    """What one chunk did on the target."""

    kept: int = 0
    refused: int = 0
    """Rows the target did not keep."""
    warned: int = 0
    """Warnings about rows it kept but changed."""
    entries: list[dict[str, Any]] = field(default_factory=list)
    """Rejects-file lines: each refused row, then the listed warnings."""


@dataclass
class Budget:
    """How many more refused rows of one table may be sent again alone for their reason."""

    left: int = EXPLAINED


class ChunkRows:
    """The rows of one chunk as SQL literals, from its LOAD DATA lines or its INSERT tuples, made only when asked:
    a chunk the target took whole never pays for it."""

    def __init__(self, spec: TableSpec, lines: Sequence[Any], literal: bool) -> None:
        self.spec, self.lines, self.literal = spec, lines, literal
        self._cache: dict[int, list[str]] = {}

    def __len__(self) -> int:
        return len(self.lines)

    def fields(self, position: int) -> list[str]:
        if position not in self._cache:
            line = self.lines[position]
            self._cache[position] = list(line) if self.literal else [
                literal_from_text(f, c.target) for f, c in zip(line.split("\t"), self.spec.columns, strict=True)]
        return self._cache[position]

    def key_literals(self, position: int) -> list[str]:
        return [self.fields(position)[i] for i in self.spec.key]

    def key(self, position: int) -> dict[str, Any]:
        """The row's key as the rejects file names it (source column names)."""
        return {c.source.name: shown_value(literal, c.target)
                for c, literal in zip(self.spec.key_columns, self.key_literals(position), strict=True)}


def landed(db: TargetDb, spec: TableSpec, rows: ChunkRows, statements: Sequence[Statement], *, method: str,
           budget: Budget, chunk_end: Callable[[], Any]) -> Landing:
    """Account for one chunk loaded by `statements` on `db` (the connection that loaded it, before anything else
    ran on it): which rows the target refused and why, and which warnings are about which kept rows."""
    label = spec.label
    landing = Landing(kept=sum(s.kept for s in statements))
    short = sum(s.rows for s in statements) - landing.kept
    refused: dict[int, int | None] = {}
    """Position of each refused row -> the server's error code for it (None: not sent again)."""
    unnamed = short
    said = _refusal_reasons(statements)
    if short > 0 and spec.key:
        past = said or f"the server gave no reason, and refused rows past the first {EXPLAINED} are not sent again to ask"
        for position in missing(db, spec, rows):
            answer = _again(db, spec, rows, position, budget)
            unnamed -= 1
            if answer is False:
                landing.kept += 1  # the target took it alone
                continue
            code, reason = answer if answer is not None else (None, past)
            refused[position] = code
            landing.entries.append({"table": label, "key": rows.key(position), "reason": f"refused by the target: {reason}"})
        unnamed = max(0, unnamed)
    if unnamed:
        why = ("the table has no key to name them by" if not spec.key
               else "each of their keys is in the target: its collation takes them for keys it already holds")
        landing.entries.append({"table": label, "key": None, "key_range_end": chunk_end(), "rows": unnamed,
                                "reason": f"refused by the target: {unnamed} row(s) of this chunk are not in the target "
                                          f"({why}): {said or 'the server gave no reason'}"})
    landing.refused = len(refused) + unnamed
    _changed(db, spec, rows, statements, refused, unnamed == 0 and None not in refused.values(), method, landing,
             chunk_end)
    return landing


def missing(db: TargetDb, spec: TableSpec, rows: ChunkRows) -> list[int]:
    """Positions of the rows whose keys the target does not hold, asked `_PROBE_ROWS` rows at a time: the keys
    as a derived table of literals, each compared in its column's collation, as the server's own key check
    compares them."""
    table = backtick(spec.target_name)
    tests = []
    for i, c in enumerate(spec.key_columns):
        collate = f" COLLATE {c.target.collation}" if c.target.is_text and c.target.collation else ""
        tests.append(f"t.{backtick(c.name)} = s.k{i}{collate}")
    found: list[int] = []
    for start in range(0, len(rows), _PROBE_ROWS):
        selects = []
        for position in range(start, min(len(rows), start + _PROBE_ROWS)):
            values = rows.key_literals(position)
            named = ", ".join(f"{v} AS k{i}" for i, v in enumerate(values)) if position == start else ", ".join(values)
            selects.append(f"SELECT {position}{' AS n' if position == start else ''}, {named}")
        found += [int(r[0]) for r in db.fetch(
            f"SELECT s.n FROM ({' UNION ALL '.join(selects)}) AS s "
            f"WHERE NOT EXISTS (SELECT 1 FROM {table} AS t WHERE {' AND '.join(tests)})", again=False)]
    return sorted(found)


def _again(db: TargetDb, spec: TableSpec, rows: ChunkRows, position: int, budget: Budget) -> tuple[int, str] | bool | None:
    """Send a refused row again alone, as the load sent it (INSERT IGNORE): its (code, reason) when refused, False
    when the target took it this time, None when the table's budget of such rows is spent. The reason is the
    server's refusal of that one row (a CHECK is evaluated after a value was cut to fit, as in the load), whether
    it comes as an error (MariaDB refuses a single row outright) or as the statement's warning."""
    if budget.left <= 0:
        return None
    budget.left -= 1
    columns = ", ".join(backtick(c.name) for c in spec.columns)
    kept, error = db.attempt(f"INSERT IGNORE INTO {backtick(spec.target_name)} ({columns}) "
                             f"VALUES ({', '.join(rows.fields(position))})")
    if error is None and kept:
        return False
    if error is None:
        said = db.warnings().listed
        refusals = [w for w in said if w[1] in REFUSALS] or list(said)
        if not refusals:
            return 0, "the server gave no reason"
        error = refusals[0][1], refusals[0][2]
    code, message = error
    return code, f"{message} (MySQL error {code})" if code else message


def _refusal_reasons(statements: Sequence[Statement]) -> str | None:
    """What the chunk's warnings said about the rows it did not keep, each reason once (None: nothing)."""
    said = dict.fromkeys(f"{message} (MySQL error {code})" for s in statements
                         for _, code, message in s.warnings.listed if code in REFUSALS)
    if not said:
        return None
    return "; ".join(list(said)[:5]) + ("; ..." if len(said) > 5 else "")


def _numbers(statement: Statement, refused: dict[int, int | None], skips_checks: bool) -> list[tuple[int, int]]:
    """(position, the row number the server's warnings give it) for each row of a statement. MySQL (and MariaDB
    under LOAD DATA) do not count a row a CHECK refused: its own warnings carry the number of the next row
    counted. TiDB, and MariaDB's INSERT, number every row."""
    out, counted = [], 0
    for position in range(statement.first, statement.first + statement.rows):
        if skips_checks and refused.get(position) in CHECK_REFUSALS:
            out.append((position, counted + 1))
        else:
            counted += 1
            out.append((position, counted))
    return out


def _changed(db: TargetDb, spec: TableSpec, rows: ChunkRows, statements: Sequence[Statement], refused: dict[int, int | None],
             known: bool, method: str, landing: Landing, chunk_end: Callable[[], Any]) -> None:
    """Count the warnings about rows the target kept, and list the first of them with the key of their row.

    The warnings come in row order, a refused row's own just before its refusal warning (where it has one), so
    they are walked alongside the rows: a warning "at row N" is about the next row (from the one the last
    warning was about) that the server numbers N, and a refusal warning moves past the next refused row. A
    warning about a refused row is that row's, already named with its reason; it is neither listed nor
    counted. Where a refused row's reason is unknown (`known` False), the numbering cannot be followed and a
    warning keeps the chunk's last key instead.
    """
    skips_checks = db.kind != "tidb" and (not db.mariadb or method != "insert")
    listed = 0
    for statement in statements:
        numbers = _numbers(statement, refused, skips_checks) if known and spec.key else []
        at = 0  # index into numbers: the row the walk has reached
        unlisted = max(0, statement.warnings.count - len(statement.warnings.listed))
        landing.warned += unlisted
        for level, code, message in statement.warnings.listed:
            if code in REFUSALS:
                while at < len(numbers) and numbers[at][0] not in refused:
                    at += 1
                at = min(at + 1, len(numbers))
                continue
            row = _ROW.search(message)
            position = None
            if row and numbers:
                wanted = int(row[1])
                found = next((i for i in range(at, len(numbers)) if numbers[i][1] == wanted), None)
                if found is not None:
                    at, position = found, numbers[found][0]
                    if position in refused:
                        continue  # about a row the target refused
            landing.warned += 1
            if listed >= LISTED_WARNINGS:
                continue
            listed += 1
            entry: dict[str, Any] = {"table": spec.label}
            if position is not None:
                entry["key"] = rows.key(position)
            else:
                entry["key_range_end"] = chunk_end()
            entry["reason"] = f"target warning: {level} {code}: {message}"
            landing.entries.append(entry)
