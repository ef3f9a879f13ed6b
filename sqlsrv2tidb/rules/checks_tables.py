"""Checks on table features TiDB lacks: in-memory and temporal tables, computed columns it cannot
evaluate, shared sequences, masking and client-side encryption, partition schemes, long names.

Constraint checks (CHECK, FOREIGN KEY), whose support depends on the TiDB version, are in
`checks_constraints.py`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..model import Table
from .engine import RuleContext
from .expressions import expression_problems
from .registry import Hit, rule

MAX_IDENTIFIER = 64
"""TiDB's limit for database, table, column, index, view and sequence names (SQL Server allows 128):
https://docs.pingcap.com/tidb/stable/tidb-limitations#limitations-on-identifier-length"""


@rule("TB01")
def memory_optimized_tables(ctx: RuleContext) -> Iterator[Hit]:
    for table in ctx.database.tables:
        if not table.memory_optimized:
            continue
        volatile = table.durability == "schema_only"
        note = ("; DURABILITY = SCHEMA_ONLY, so SQL Server loses its rows on restart and the application "
                "may treat it as a cache") if volatile else ""
        yield Hit(
            object=table.qualified_name,
            message=f"memory-optimized table {table.qualified_name}{note}: TiDB has no In-Memory OLTP; it becomes "
                    "an ordinary table",
            source=table.source,
            details={"durability": table.durability,
                     "hash_indexes": [i.name for i in table.indexes if i.kind == "hash"]},
        )


@rule("TB02")
def temporal_tables(ctx: RuleContext) -> Iterator[Hit]:
    for table in ctx.database.tables:
        temporal = table.temporal
        if temporal is None:
            continue
        history = (f"{temporal.history_schema}.{temporal.history_table}" if temporal.history_table
                   else "an anonymous history table")
        period = f"{temporal.period_start}, {temporal.period_end}" if temporal.period_start else "its period columns"
        yield Hit(
            object=table.qualified_name,
            message=f"system-versioned temporal table {table.qualified_name} (PERIOD FOR SYSTEM_TIME ({period}), "
                    f"history in {history}): TiDB keeps no row history, so FOR SYSTEM_TIME queries and the history "
                    "table must be maintained another way",
            source=table.source,
            details={"history_table": history if temporal.history_table else None,
                     "period_start": temporal.period_start, "period_end": temporal.period_end},
        )


def _column_names(table: Table) -> frozenset[str]:
    return frozenset(c.name.casefold() for c in table.columns)


@rule("TB03")
def inexpressible_computed_columns(ctx: RuleContext) -> Iterator[Hit]:
    for table in ctx.database.tables:
        names = _column_names(table)
        for column in table.columns:
            if column.computed is None:
                continue
            problems = expression_problems(column.computed.expression, names)
            if not problems:
                continue
            yield Hit(
                object=f"{table.qualified_name}.{column.name}",
                message=f"computed column {table.qualified_name}.{column.name} AS {column.computed.expression} "
                        f"{'; '.join(p.describe() for p in problems)}: a TiDB generated column allows only "
                        "deterministic built-in functions",
                source=column.source if column.source.file else table.source,
                details={"expression": column.computed.expression, "persisted": column.computed.persisted,
                         "reasons": [p.reason for p in problems], "calls": [p.detail for p in problems]},
            )


_NEXT_VALUE = re.compile(r"NEXT\s+VALUE\s+FOR\s+((?:\[[^\]]+\]|\w+)(?:\s*\.\s*(?:\[[^\]]+\]|\w+))*)", re.I)


def _sequence_key(reference: str) -> tuple[str | None, str]:
    parts = [p.strip().strip("[]") for p in reference.split(".")]
    return (parts[-2] if len(parts) > 1 else None), parts[-1]


@rule("TB04")
def shared_sequences(ctx: RuleContext) -> Iterator[Hit]:
    db = ctx.database
    tables: dict[str, set[str]] = {}
    modules: dict[str, set[str]] = {}
    for table in db.tables:
        for column in table.columns:
            for m in _NEXT_VALUE.finditer(column.default or ""):
                seq = db.sequence(*_sequence_key(m[1]))
                if seq is not None:
                    tables.setdefault(seq.qualified_name, set()).add(f"{table.qualified_name}.{column.name}")
    for module in db.modules:
        for m in _NEXT_VALUE.finditer(module.definition or ""):
            seq = db.sequence(*_sequence_key(m[1]))
            if seq is not None:
                modules.setdefault(seq.qualified_name, set()).add(module.qualified_name)
    for seq in db.sequences:
        users = sorted(tables.get(seq.qualified_name, ()), key=str.casefold)
        if len({u.rsplit(".", 1)[0] for u in users}) < 2:
            continue
        callers = sorted(modules.get(seq.qualified_name, ()), key=str.casefold)
        also = f"; also drawn in {', '.join(callers[:5])}{', ...' if len(callers) > 5 else ''}" if callers else ""
        yield Hit(
            object=seq.qualified_name,
            message=f"sequence {seq.qualified_name} numbers {len(users)} columns ({', '.join(users)}){also}: it must "
                    "stay one TiDB SEQUENCE (no table's AUTO_INCREMENT can replace it), and its insert rate is the "
                    "sum over those tables",
            source=seq.source,
            details={"columns": users, "modules": callers},
        )


@rule("TB05")
def masked_columns(ctx: RuleContext) -> Iterator[Hit]:
    for table in ctx.database.tables:
        masked = [c for c in table.columns if c.masked]
        if not masked:
            continue
        yield Hit(
            object=table.qualified_name,
            message=f"{table.qualified_name} masks {', '.join(c.name for c in masked)} (dynamic data masking): the "
                    "TiDB table shows every user the real values unless access goes through views or the application",
            source=masked[0].source if masked[0].source.file else table.source,
            details={"columns": [c.name for c in masked]},
        )


@rule("TB06")
def always_encrypted_columns(ctx: RuleContext) -> Iterator[Hit]:
    for table in ctx.database.tables:
        encrypted = [c for c in table.columns if c.encrypted]
        if not encrypted:
            continue
        yield Hit(
            object=table.qualified_name,
            message=f"{table.qualified_name} has Always Encrypted columns ({', '.join(c.name for c in encrypted)}): "
                    "their stored values are ciphertext only the SQL Server client driver can read; decrypt during "
                    "the move or encrypt in the application",
            source=encrypted[0].source if encrypted[0].source.file else table.source,
            details={"columns": [c.name for c in encrypted]},
        )


@rule("TB07")
def partition_schemes(ctx: RuleContext) -> Iterator[Hit]:
    db = ctx.database
    for table in db.tables:
        part = table.partitioning
        if part is None:
            continue
        scheme = next((s for s in db.partition_schemes if s.name.casefold() == part.scheme.casefold()), None)
        function = next((f for f in db.partition_functions
                         if scheme is not None and f.name.casefold() == scheme.function.casefold()), None)
        bounds = f", RANGE {'RIGHT' if function.range_right else 'LEFT'} with {len(function.boundaries)} " \
                 f"boundaries" if function else ""
        yield Hit(
            object=table.qualified_name,
            message=f"{table.qualified_name} is partitioned by scheme {part.scheme} on {part.column}"
                    f"{f' (function {function.name}{bounds})' if function else ''}: TiDB partitions by RANGE "
                    "without filegroups, and every unique key must include the partitioning column",
            source=table.source,
            details={"scheme": part.scheme, "column": part.column,
                     "function": function.name if function else None,
                     "boundaries": list(function.boundaries) if function else [],
                     "range_right": function.range_right if function else None},
        )


@rule("TB08")
def long_identifiers(ctx: RuleContext) -> Iterator[Hit]:
    db = ctx.database

    def over(kind: str, name: str | None, owner: str, source) -> Iterator[Hit]:
        if name and len(name) > MAX_IDENTIFIER:
            yield Hit(
                object=f"{owner}.{name}" if owner else name,
                message=f"{kind} name {name!r} has {len(name)} characters; TiDB allows {MAX_IDENTIFIER}",
                source=source,
                details={"kind": kind, "length": len(name)},
            )

    for table in db.tables:
        yield from over("table", table.name, table.schema, table.source)
        for column in table.columns:
            yield from over("column", column.name, table.qualified_name, column.source)
        for key in [*([table.primary_key] if table.primary_key else []), *table.unique_keys, *table.indexes]:
            yield from over("index", key.name, table.qualified_name, key.source)
        for fk in table.foreign_keys:
            yield from over("foreign key", fk.name, table.qualified_name, fk.source)
        for check in table.checks:
            yield from over("constraint", check.name, table.qualified_name, check.source)
    for view in db.modules_of("view"):
        yield from over("view", view.name, view.schema or "", view.source)
    for seq in db.sequences:
        yield from over("sequence", seq.name, seq.schema, seq.source)
