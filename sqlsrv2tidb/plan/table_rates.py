"""Each table's write rate in the captured workload: the evidence behind every distribution decision.

A write-hot table is found by adding up the INSERT, UPDATE and MERGE query classes that target it.
The target is read from the statement itself (sqlglot's T-SQL parser, with a token scan for text
it cannot parse), rates come from `workload_rates.class_rates`, and the window with the highest
write rate is the one that counts: a table written hard only by the nightly batch is still hot.

    >>> target_table("INSERT INTO dbo.keywords (e_type) VALUES (@P1)")
    ('dbo', 'keywords')
    >>> target_table("UPDATE k SET n = 1 FROM [dbo].[keywords] AS k WHERE k.id = @P1")
    ('dbo', 'keywords')
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from ..model import Database, Window, Workload
from ..tsql.fingerprint import strip_parameter_prefix
from ..workload_rates import class_rates, whole_capture

WRITE_KINDS = ("insert", "update", "merge")


@dataclass(frozen=True)
class TableRate:
    """Writes per second to one table in its busiest window."""

    schema: str
    name: str
    insert_qps: float = 0.0
    update_qps: float = 0.0
    merge_qps: float = 0.0
    rows_per_second: float | None = None
    """Rows written per second, when the capture counted rows (multi-row INSERTs write more than one)."""
    window: str | None = None
    window_start: str | None = None
    window_end: str | None = None
    query_ids: tuple[str, ...] = ()

    @property
    def write_qps(self) -> float:
        return self.insert_qps + self.update_qps + self.merge_qps

    @property
    def insert_rate(self) -> float:
        """Rows inserted per second as best known: MERGE may insert, and rows beat statements."""
        statements = self.insert_qps + self.merge_qps
        if self.rows_per_second is not None:
            return max(statements, self.rows_per_second)
        return statements

    @property
    def load(self) -> float:
        """The number the write-hot threshold is compared with."""
        return max(self.write_qps, self.rows_per_second or 0.0)

    def evidence(self) -> dict[str, object]:
        return {
            "write_qps": round(self.write_qps, 3),
            "insert_qps": round(self.insert_qps, 3),
            "update_qps": round(self.update_qps, 3),
            "merge_qps": round(self.merge_qps, 3),
            "rows_per_second": None if self.rows_per_second is None else round(self.rows_per_second, 3),
            "window": self.window,
            "window_start": self.window_start,
            "window_end": self.window_end,
            "query_classes": list(self.query_ids),
        }


@dataclass(frozen=True)
class WorkloadRates:
    """All tables' write rates, and whether the workload could say anything at all."""

    known: bool
    """False when the capture holds no per-interval counts (no Query Store, XE or spec rates)."""
    tables: dict[tuple[str, str], TableRate] = field(default_factory=dict)
    unmatched: tuple[str, ...] = ()
    """Write query classes whose target table is not in the schema (or could not be read)."""

    def rate(self, schema: str, name: str) -> TableRate | None:
        return self.tables.get((schema.casefold(), name.casefold()))


def table_write_rates(workload: Workload, database: Database) -> WorkloadRates:
    """Each table's write rate in the window where it is highest."""
    if not workload.intervals:
        return WorkloadRates(known=False)
    targets: dict[str, tuple[str, str, str]] = {}
    unmatched = []
    for q in workload.queries:
        if q.kind not in WRITE_KINDS:
            continue
        found = target_table(q.text)
        table = database.table(found[0], found[1]) if found else None
        if table is None:
            unmatched.append(q.id)
            continue
        targets[q.id] = (table.schema, table.name, q.kind)
    rows_per_exec = _rows_per_execution(workload)
    windows: list[Window] = list(workload.windows) or [w for w in (whole_capture(workload),) if w]
    best: dict[tuple[str, str], TableRate] = {}
    for window in windows:
        rates = class_rates(workload, window)
        per_table: dict[tuple[str, str], dict[str, object]] = defaultdict(
            lambda: {"insert": 0.0, "update": 0.0, "merge": 0.0, "rows": 0.0, "rows_known": True, "ids": []}
        )
        for qid, (schema, name, kind) in targets.items():
            qps = rates.get(qid, 0.0)
            if qps <= 0:
                continue
            acc = per_table[(schema, name)]
            acc[kind] += qps  # type: ignore[operator]
            acc["ids"].append(qid)  # type: ignore[union-attr]
            if qid in rows_per_exec:
                acc["rows"] += qps * rows_per_exec[qid]  # type: ignore[operator]
            else:
                acc["rows_known"] = False
        for (schema, name), acc in per_table.items():
            rate = TableRate(
                schema, name, acc["insert"], acc["update"], acc["merge"],  # type: ignore[arg-type]
                acc["rows"] if acc["rows_known"] else None,  # type: ignore[arg-type]
                window.name, window.start, window.end, tuple(sorted(acc["ids"])),  # type: ignore[arg-type]
            )
            key = (schema.casefold(), name.casefold())
            if key not in best or rate.load > best[key].load:
                best[key] = rate
    return WorkloadRates(known=True, tables=best, unmatched=tuple(sorted(unmatched)))


def _rows_per_execution(workload: Workload) -> dict[str, float]:
    rows: dict[str, float] = defaultdict(float)
    executions: dict[str, int] = defaultdict(int)
    missing = set()
    for i in workload.intervals:
        if i.total_rows is None:
            missing.add(i.query_id)
            continue
        rows[i.query_id] += i.total_rows
        executions[i.query_id] += i.executions
    return {qid: rows[qid] / n for qid, n in executions.items() if n and qid not in missing}


def target_table(sql: str) -> tuple[str | None, str] | None:
    """(schema, table) an INSERT, UPDATE, MERGE or DELETE writes to, or None when it cannot be told."""
    _, body = strip_parameter_prefix(sql)
    found = _target_from_ast(body)
    return found if found is not None else _target_from_tokens(body)


def _target_from_ast(sql: str) -> tuple[str | None, str] | None:
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        tree = sqlglot.parse_one(sql, read="tsql")
    except (SqlglotError, ValueError, RecursionError):
        return None
    node = tree
    if isinstance(node, exp.With) and node.this is not None:  # pragma: no cover - sqlglot attaches CTEs to the DML
        node = node.this
    if not isinstance(node, (exp.Insert, exp.Update, exp.Merge, exp.Delete)):
        return None
    target = node.this
    table = target if isinstance(target, exp.Table) else target.find(exp.Table) if target is not None else None
    if table is None or not table.name or not isinstance(table.this, exp.Identifier) or table.this.args.get("temporary"):
        return None  # no table, a table variable (@t) or a temporary table (#t)
    if isinstance(node, (exp.Update, exp.Delete)) and not table.db:
        # `UPDATE k SET ... FROM dbo.keywords AS k`: the target is an alias of a FROM table.
        alias = table.name.casefold()
        for candidate in node.find_all(exp.Table):
            if candidate is not table and candidate.alias and candidate.alias.casefold() == alias:
                table = candidate
                break
    return (table.db or None, table.name)


_DML = re.compile(
    r"^\s*(?:WITH\b.*?\)\s*)?(INSERT\s+(?:INTO\s+)?|UPDATE\s+(?:TOP\s*\([^)]*\)\s*)?|MERGE\s+(?:INTO\s+)?|DELETE\s+(?:FROM\s+)?)"
    r"((?:\[[^\]]+\]|\"[^\"]+\"|[\w@#$]+)(?:\s*\.\s*(?:\[[^\]]+\]|\"[^\"]+\"|[\w@#$]+)){0,3})",
    re.I | re.S,
)


def _target_from_tokens(sql: str) -> tuple[str | None, str] | None:
    text = re.sub(r"--[^\n]*|/\*.*?\*/", " ", sql, flags=re.S)
    m = _DML.search(text)
    if not m:
        return None
    parts = [p.strip().strip("[]\"") for p in re.split(r"\s*\.\s*(?![^\[]*\])", m[2])]
    parts = [p for p in parts if p]
    if not parts or parts[-1].startswith(("@", "#")):
        return None
    schema = parts[-2] if len(parts) >= 2 else None
    return (schema, parts[-1])
