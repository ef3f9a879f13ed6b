"""Checks on CHECK and FOREIGN KEY constraints, whose meaning in TiDB depends on its version.

CHECK: parsed and ignored before v7.2.0; from v7.2.0 enforced only with
`tidb_enable_check_constraint = ON`, and then only for deterministic expressions
(https://docs.pingcap.com/tidb/stable/constraints#check).
FOREIGN KEY: parsed and ignored before v6.6.0, enforced but experimental from v6.6.0, generally
available from v8.5.0, and `SET DEFAULT` acts as `RESTRICT` (https://docs.pingcap.com/tidb/stable/foreign-key).
That no foreign key may touch a partitioned table is the planner's guard on partitioning, and
TB07 names the foreign keys of tables SQL Server partitions.
Each rule's `applies_to` carries its version gate, so the engine runs only the one that matches.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..model import Table
from .context import RuleContext
from .expressions import expression_problems
from .registry import Hit, rule


def _database_label(ctx: RuleContext) -> str:
    return ctx.database.name or "database"


def _listing(names: list[str], limit: int = 6) -> str:
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


@rule("TB10")
def check_constraints_ignored(ctx: RuleContext) -> Iterator[Hit]:
    for table in ctx.database.tables:
        checks = [c for c in table.checks if not c.disabled]
        if not checks:
            continue
        names = [c.name or c.expression for c in checks]
        yield Hit(
            object=table.qualified_name,
            message=f"{table.qualified_name} has {len(checks)} CHECK constraint(s) ({_listing(names)}): TiDB "
                    f"{ctx.options.tidb_version} parses and ignores them, so nothing stops bad rows",
            source=checks[0].source if checks[0].source.file else table.source,
            details={"constraints": names, "expressions": [c.expression for c in checks]},
        )


@rule("TB11")
def check_constraints_switch(ctx: RuleContext) -> Iterator[Hit]:
    checks = [(t, c) for t in ctx.database.tables for c in t.checks]
    if not checks:
        return
    unenforced = [f"{t.qualified_name}.{c.name}" for t, c in checks if c.disabled or c.not_trusted]
    note = (f"; {len(unenforced)} of them are disabled or not trusted in SQL Server, so existing rows may "
            "violate them: create those NOT ENFORCED") if unenforced else ""
    first = checks[0][1].source if checks[0][1].source.file else checks[0][0].source
    yield Hit(
        object=_database_label(ctx),
        message=f"{len(checks)} CHECK constraint(s) on {len({t.qualified_name for t, _ in checks})} table(s) are "
                "kept by TiDB only if their tables are created while SET GLOBAL tidb_enable_check_constraint = ON "
                "(default OFF; created while OFF, a table keeps none): ddl/02-tables.sql turns it on first, which "
                "needs SUPER or SYSTEM_VARIABLES_ADMIN, and it need not stay ON for them" + note,
        source=first,
        details={"constraints": [f"{t.qualified_name}.{c.name or '?'}" for t, c in checks], "not_enforced": unenforced},
    )


# What translates to TiDB SQL yet is refused in a CHECK; what does not translate at all (user
# functions, subqueries) the planner leaves out of the DDL and reports itself.
_REFUSED_AFTER_TRANSLATION = {"nondeterministic", "variable"}


@rule("TB12")
def inexpressible_check_constraints(ctx: RuleContext) -> Iterator[Hit]:
    for table in ctx.database.tables:
        names = frozenset(c.name.casefold() for c in table.columns)
        planned = ctx.plan_for(table) is not None
        for check in table.checks:
            problems = expression_problems(check.expression, names)
            if planned:
                problems = [p for p in problems if p.reason in _REFUSED_AFTER_TRANSLATION]
            if not problems:
                continue
            label = check.name or f"CHECK {check.expression}"
            yield Hit(
                object=f"{table.qualified_name}.{check.name}" if check.name else table.qualified_name,
                message=f"CHECK {label} on {table.qualified_name} {'; '.join(p.describe() for p in problems)}: "
                        "TiDB refuses such a CHECK, so the rule must move to the application",
                source=check.source if check.source.file else table.source,
                details={"expression": check.expression, "reasons": [p.reason for p in problems],
                         "calls": [p.detail for p in problems]},
            )


def _foreign_keys(ctx: RuleContext) -> Iterator[tuple[Table, list]]:
    for table in ctx.database.tables:
        fks = [fk for fk in table.foreign_keys if not fk.disabled]
        if fks:
            yield table, fks


def _fk_label(fk) -> str:
    return fk.name or f"({', '.join(fk.columns)}) -> {fk.ref_schema}.{fk.ref_table}"


@rule("TB13")
def foreign_keys_not_enforced(ctx: RuleContext) -> Iterator[Hit]:
    for table, fks in _foreign_keys(ctx):
        names = [_fk_label(fk) for fk in fks]
        cascades = [_fk_label(fk) for fk in fks if "cascade" in (fk.on_delete, fk.on_update)
                    or "set_null" in (fk.on_delete, fk.on_update)]
        note = f"; cascading actions of {', '.join(cascades)} will not happen" if cascades else ""
        yield Hit(
            object=table.qualified_name,
            message=f"{table.qualified_name} has {len(fks)} foreign key(s) ({_listing(names)}): TiDB "
                    f"{ctx.options.tidb_version} parses and ignores foreign keys{note}",
            source=fks[0].source if fks[0].source.file else table.source,
            details={"foreign_keys": names, "cascading": cascades},
        )


@rule("TB14")
def foreign_keys_experimental(ctx: RuleContext) -> Iterator[Hit]:
    tables = list(_foreign_keys(ctx))
    if not tables:
        return
    count = sum(len(fks) for _, fks in tables)
    first_table, first_fks = tables[0]
    yield Hit(
        object=_database_label(ctx),
        message=f"{count} foreign key(s) on {len(tables)} table(s): TiDB {ctx.options.tidb_version} enforces them "
                "as an experimental feature (generally available from v8.5.0); test cascades and their cost on "
                "writes",
        source=first_fks[0].source if first_fks[0].source.file else first_table.source,
        details={"foreign_keys": [f"{t.qualified_name}.{_fk_label(fk)}" for t, fks in tables for fk in fks]},
    )


@rule("TB16")
def foreign_keys_set_default(ctx: RuleContext) -> Iterator[Hit]:
    for table, fks in _foreign_keys(ctx):
        for fk in fks:
            actions = [f"ON {event} SET DEFAULT" for event, action in (("DELETE", fk.on_delete), ("UPDATE", fk.on_update))
                       if action == "set_default"]
            if not actions:
                continue
            yield Hit(
                object=f"{table.qualified_name}.{fk.name}" if fk.name else table.qualified_name,
                message=f"foreign key {_fk_label(fk)} on {table.qualified_name} uses {' and '.join(actions)}: TiDB "
                        "treats SET DEFAULT as RESTRICT, so the parent change is refused instead",
                source=fk.source if fk.source.file else table.source,
                details={"foreign_key": _fk_label(fk), "actions": actions},
            )

