"""Checks on table features TiDB lacks: in-memory and temporal tables, computed columns it cannot
evaluate, shared sequences, masking and client-side encryption, partition schemes, long names.

Constraint checks (CHECK, FOREIGN KEY), whose support depends on the TiDB version, are in
`checks_constraints.py`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..model import Table
from ..translate.identifiers import fit
from ..translate.naming import NameMap
from .context import RuleContext
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
    """Computed columns TiDB cannot evaluate.

    With a plan, a column the planner already left out of the DDL is its finding, not ours; what is
    left is a column the DDL keeps as a generated column that TiDB would refuse.
    """
    for table in ctx.database.tables:
        names = _column_names(table)
        plan = ctx.plan_for(table)
        planned = {c.name.casefold() for c in plan.columns} if plan is not None else None
        for column in table.columns:
            if column.computed is None:
                continue
            if planned is not None and fit(column.name).casefold() not in planned:
                continue
            problems = expression_problems(column.computed.expression, names)
            if not problems:
                continue
            consequence = ("the generated DDL keeps it as a generated column, which TiDB refuses" if planned is not None
                           else "a TiDB generated column allows only deterministic built-in functions")
            yield Hit(
                object=f"{table.qualified_name}.{column.name}",
                message=f"computed column {table.qualified_name}.{column.name} AS {column.computed.expression} "
                        f"{'; '.join(p.describe() for p in problems)}: {consequence}",
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
        # TiDB refuses a foreign key whose parent or child is partitioned:
        # https://docs.pingcap.com/tidb/stable/foreign-key#restrictions
        fks = [fk.name or f"({', '.join(fk.columns)})" for fk in table.foreign_keys]
        fks += [f"{t.qualified_name}.{fk.name or '?'}" for t, fk in db.referencing_foreign_keys(table) if t is not table]
        fk_note = f"; keeping it partitioned rules out its foreign keys ({', '.join(fks)})" if fks else ""
        yield Hit(
            object=table.qualified_name,
            message=f"{table.qualified_name} is partitioned by scheme {part.scheme} on {part.column}"
                    f"{f' (function {function.name}{bounds})' if function else ''}: TiDB partitions by RANGE "
                    f"without filegroups, and every unique key must include the partitioning column{fk_note}",
            source=table.source,
            details={"scheme": part.scheme, "column": part.column,
                     "function": function.name if function else None,
                     "boundaries": list(function.boundaries) if function else [],
                     "range_right": function.range_right if function else None,
                     "foreign_keys": fks},
        )


@rule("TB08")
def long_identifiers(ctx: RuleContext) -> Iterator[Hit]:
    """Names of tables, views and sequences as TiDB will see them (after schema merging).

    Column names are the planner's (it shortens them and says so); index and constraint names are
    shortened silently because code rarely names them.
    """
    db = ctx.database
    names = NameMap.for_database(db)
    objects = [("table", t.schema, t.name, t.source) for t in db.tables]
    objects += [("view", v.schema, v.name, v.source) for v in db.modules_of("view")]
    objects += [("sequence", s.schema, s.name, s.source) for s in db.sequences]
    for kind, schema, name, source in objects:
        tidb = names.object(schema, name).name
        if len(tidb) <= MAX_IDENTIFIER:
            continue
        renamed = f" (its TiDB name {tidb} includes the schema)" if tidb != name else ""
        short = fit(tidb)
        yield Hit(
            object=f"{schema}.{name}" if schema else name,
            message=f"{kind} name {tidb!r} has {len(tidb)} characters{renamed}; TiDB allows {MAX_IDENTIFIER}, so the "
                    f"generated DDL names it {short}: every query and application mapping that names it must change",
            source=source,
            details={"kind": kind, "tidb_name": tidb, "length": len(tidb), "ddl_name": short},
        )
