"""The migration plan: every table's TiDB design with its reasons, and the ordered ddl/ files.

`build_plan` is the planner's one entry point (api.plan calls it). For each table it takes the
distribution decision (distribution.py) from the captured write rates (table_rates.py), the
identity decision (identity.py), maps columns (columns.py) and keys (indexes.py), and renders the
statements through translate/ddl.py. files.py then lays them out in apply order: sequences,
tables, TiDB-only placement, indexes after the load, foreign keys, views, and modules kept as source.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, replace
from typing import Any

from ..errors import InputError
from ..model import Capture, Database, Finding, ForeignKey, Severity, Table
from ..model.plan import MigrationPlan, TablePlan, ViewPlan
from ..options import Options, Version
from ..progress import NullProgress, Progress
from ..translate.ddl import DdlRenderer, ForeignKeyDdl, TableDdl
from ..translate.identifiers import NameScope, object_name, sql_name
from ..translate.naming import NameMap
from ..translate.transforms import check_skip_rewrites
from ..translate.types import CASE_INSENSITIVE_COLLATION, TypeMapper
from .columns import BuiltColumn, ColumnBuilder, shrink_row, unparen
from .config import PlanConfig, load_plan_config
from .distribution import DistributionPlanner, TableDesign, single_server
from .expressions import translate_ddl_expression
from .files import TIFLASH_FILE, PlannedTable, assemble_files, tiflash_tables
from .identity import IdentityPlanner, SequencePlan
from .indexes import KeyPlanner, TableKeys
from .innodb_advice import innodb_findings
from .mysql_collations import CollationUses, mysql_collation_findings
from .mysql_files import CHECK_ENFORCED_SINCE, assemble_mysql_files, mysql_check_refusals
from .mysql_identity import MySQLIdentityPlanner
from .table_rates import table_write_rates
from .views import kept_modules, plan_views

_NONDETERMINISTIC = re.compile(
    r"\b(CURRENT_TIMESTAMP|CURRENT_DATE|CURRENT_TIME|CURDATE|CURTIME|NOW|SYSDATE|UTC_TIMESTAMP|UTC_DATE|UUID|RAND|"
    r"CONNECTION_ID|CURRENT_USER|USER|LAST_INSERT_ID)\b", re.I)
_ACTIONS = {"cascade": "CASCADE", "set_null": "SET NULL", "no_action": None, "set_default": None}


def _without_empty_keys(db: Database, findings: list[Finding]) -> Database:
    """The schema with every PRIMARY KEY or UNIQUE constraint that has no columns left out, each named
    in a finding: `PRIMARY KEY ()` is no DDL, and a key dropped without a word would hide it."""
    tables = []
    for table in db.tables:
        keys = [("primary key", table.primary_key)] if table.primary_key is not None else []
        keys += [("unique constraint", k) for k in table.unique_keys]
        empty = [(kind, key) for kind, key in keys if not key.columns]
        for kind, key in empty:
            findings.append(Finding(
                rule="IN30", severity=Severity.HIGH, object=table.qualified_name,
                message=f"{kind} {key.name or '(unnamed)'} of {table.qualified_name} has no columns (they could not be "
                        f"resolved where the schema was read); the table is planned without it",
                file=key.source.file or table.source.file, line=key.source.line or table.source.line))
        if empty:
            table = replace(table, primary_key=table.primary_key if table.primary_key and table.primary_key.columns else None,
                            unique_keys=tuple(k for k in table.unique_keys if k.columns))
        tables.append(table)
    return replace(db, tables=tuple(tables)) if any(a is not b for a, b in zip(tables, db.tables, strict=True)) else db


@dataclass
class _TableWork:
    table: Table
    target: str
    design: TableDesign
    columns: list[BuiltColumn]
    keys: TableKeys
    collation: str


def build_plan(capture: Capture, options: Options, progress: Progress | None = None) -> MigrationPlan:
    progress = progress or NullProgress()
    findings: list[Finding] = []
    db = _without_empty_keys(capture.database, findings)
    config = load_plan_config(options)
    mapper = TypeMapper(options.rules_dir, type_overrides=config.types, column_overrides=config.columns,
                        collation_overrides=config.collations, skip_rewrites=check_skip_rewrites(options.skip_rewrites),
                        engine=options.target_engine)
    for key, value in config.collations.items():
        if value not in mapper.allowed_collations:
            raise InputError(f"{config.source}: `collations.{key}`: {value!r} is not one of {', '.join(mapper.allowed_collations)}")
    names = NameMap.for_database(db)
    renderer = DdlRenderer(options.templates_dir)
    rates = table_write_rates(capture.workload, db)

    identity = IdentityPlanner(db, names, config, rates, options.tidb_version, mapper)
    on_mysql = MySQLIdentityPlanner(db, names) if options.mysql else None
    sequences, seq_findings = (on_mysql or identity).plan_sequences()
    findings += seq_findings
    db_collation = mapper.map_collation(db.collation)
    distribution = DistributionPlanner(db, options, config, rates_known=rates.known)
    builder = ColumnBuilder(db, names, options, mapper, {(s.schema.casefold(), s.name.casefold()): s for s in sequences})
    check_scope = NameScope()
    work: list[_TableWork] = []
    extra_sequences: list[SequencePlan] = []
    planned: list[PlannedTable] = []

    with progress.task(f"Planning {options.engine_name} tables", total=len(db.tables)) as task:
        for table in db.tables:
            target = object_name(names, table.schema, table.name)  # cut to 64: the rules engine's TB08
            if on_mysql is not None:
                design = single_server(table, config)
                ident = on_mysql.plan_identity(table)
            else:
                design = distribution.decide(table, rates.rate(table.schema, table.name))
                ident = identity.plan_identity(table, auto_random=design.auto_random)
            findings += design.findings
            if ident is not None:
                findings += ident.findings
                if ident.sequence is not None:
                    extra_sequences.append(ident.sequence)
            columns = builder.build(table, ident, db_collation.target)
            lookup = {b.column.name.casefold(): (b.name, b.info) for b in columns}
            keys = KeyPlanner(table, target, lookup, options.engine_name).plan(
                clustered=design.clustered, global_unique=design.global_unique,
                identity_column=ident.column if ident and ident.kind == "auto_increment" else None,
            )
            findings += keys.findings
            keep = keys.key_columns | {c.casefold() for fk in table.foreign_keys for c in fk.columns}
            keep |= {c.casefold() for _, fk in db.referencing_foreign_keys(table) for c in fk.ref_columns}
            shrink_row(columns, keep, table, findings)
            dropped = {c.name for c in table.columns} - {b.column.name for b in columns}
            refusing = (mysql_check_refusals(table, ident.column if ident else None)
                        if options.mysql and options.mysql_version >= CHECK_ENFORCED_SINCE else {})
            checks = _checks(table, db, names, options, check_scope, findings, dropped, refusing)
            ddl = renderer.create_table(TableDdl(
                name=target,
                columns=tuple(c.ddl for c in columns),
                keys=tuple(keys.create_keys),
                checks=tuple(f"CONSTRAINT {sql_name(name)} CHECK ({text})" for name, text in checks),
                options=tuple(_table_options(table, design, ident, db_collation.target, mapper.charset, options)),
                partition=None if options.mysql else _partition(design, lookup),
                notes=_table_notes(table, design),
            ))
            work.append(_TableWork(table, target, design, columns, keys, db_collation.target))
            planned.append(PlannedTable(table, target, design, ddl, [renderer.create_index(ix) for ix in keys.indexes],
                                        keys.columnstore, tuple(name for name, _ in checks)))
            task.advance()
    findings += builder.findings

    fk_statements = _foreign_keys(work, db, renderer, findings)
    plans = []
    for item, pt in zip(work, planned, strict=True):
        post = tuple(pt.index_statements) + tuple(fk_statements.get(id(item.table), ()))
        pk = item.table.primary_key
        lookup = {b.column.name.casefold(): b.name for b in item.columns}
        plans.append(TablePlan(
            schema=item.table.schema, name=item.table.name, target=item.target,
            columns=tuple(b.plan for b in item.columns),
            primary_key=tuple(lookup.get(c.name.casefold(), c.name) for c in pk.columns) if pk else (),
            clustered=item.design.clustered if pk else False,
            distribution=item.design.distribution, ddl=pt.create_statement, post_data_ddl=post, checks=pt.checks,
            size_bytes=item.table.size_bytes, source=item.table.source, **_row_count(item.table),
        ))
    findings += (mysql_collation_findings(_collation_uses(db, work), mapper) if options.mysql
                 else _collation_findings(_collation_uses(db, work), mapper, options.tidb_version))
    findings += _alias_findings(db, work, config.source, options.engine_name)
    if options.mysql:
        findings += innodb_findings(capture, [(w.table, w.keys.indexes) for w in work], rates, config, options)
    dropped = {w.table.name.casefold(): {c.name for c in w.table.columns} - {b.column.name for b in w.columns}
               for w in work}
    views = plan_views(db, names, options, {k: v for k, v in dropped.items() if v})
    findings += views.findings
    if not rates.known and db.tables and not options.mysql:
        findings.append(Finding(
            rule="DI05", severity=Severity.INFO, object=db.name or "database",
            message=f"no captured write rates: no table's distribution was changed. A Query Store export, an Extended "
                    f"Events capture or a workload spec showing {config.write_hot_qps:g}+ writes/s to a table would make "
                    f"it write-hot (KEY partitioning or pre-split)",
        ))
    findings += _unused_overrides(config, mapper, db)
    settings = {
        "target_engine": options.target_engine, "target": options.target_label,
        "tidb_version": str(options.tidb_version), "tikv_nodes": options.tikv_nodes,
        "write_hot_qps": config.write_hot_qps, "low_insert_qps": config.low_insert_qps,
        "reorg_worker_cnt": config.reorg_worker_cnt, "table_collation": db_collation.target,
        "source_collation": db_collation.source, "rates_known": rates.known,
        "unmatched_write_classes": list(rates.unmatched),
        "views": "query translator" if views.translator else "kept as source (query translator not installed)",
    }
    if options.mysql:
        settings["sequence_tables"] = [s.target for s in sequences if s.form == "table"]
    replicas = [] if options.mysql else tiflash_tables(planned, config)
    if replicas:
        # What the sizing reads to put TiFlash servers in the topology (the DDL file needs them).
        settings["tiflash_replicas"] = config.tiflash_replicas
        settings["tiflash_tables"] = [t.table.qualified_name for t in replicas]
        settings["tiflash_file"] = TIFLASH_FILE
    if options.mysql:
        files = assemble_mysql_files(planned, sequences, fk_statements, views, kept_modules(db, "mysql"), renderer,
                                     options)
    else:
        files = assemble_files(planned, [*sequences, *extra_sequences], fk_statements, views, kept_modules(db),
                               renderer, options, config)
    return MigrationPlan(tables=tuple(plans), files=tuple(files), views=_view_plans(views.plans, views.views, renderer),
                         findings=tuple(findings), settings=settings)


def _view_plans(plans: list[ViewPlan], translated: list, renderer: DdlRenderer) -> tuple[ViewPlan, ...]:
    """Each view's plan with its CREATE statement as 06-views.sql writes it (the translated ones come in the same order)."""
    statements = iter(renderer.create_view(v) for v in translated)
    return tuple(p if p.kept else replace(p, ddl=next(statements)) for p in plans)


def _table_options(table: Table, design: TableDesign, ident, collation: str, charset: str, options: Options) -> list[str]:
    opts = [f"DEFAULT CHARSET={charset}", f"COLLATE={collation}"]
    dist = design.distribution
    if ident is not None and ident.kind == "auto_increment":
        if ident.start:
            opts.append(f"AUTO_INCREMENT={ident.start}")
        if ident.centralized and not options.mysql:
            # https://docs.pingcap.com/tidb/stable/auto-increment#mysql-compatibility-mode
            opts.append("/*T![auto_id_cache] AUTO_ID_CACHE=1 */")
    if dist.strategy == "pre_split":
        # https://docs.pingcap.com/tidb/stable/shard-row-id-bits
        opts.append(f"/*T! SHARD_ROW_ID_BITS={dist.shard_row_id_bits} PRE_SPLIT_REGIONS={dist.pre_split_regions} */")
    elif dist.strategy == "auto_random" and dist.pre_split_regions:
        opts.append(f"/*T! PRE_SPLIT_REGIONS={dist.pre_split_regions} */")
    if table.description:
        opts.append("COMMENT='" + table.description[:2048].replace("\\", "\\\\").replace("'", "''") + "'")
    return opts


def _partition(design: TableDesign, lookup: dict) -> str | None:
    if design.distribution.strategy != "key_partition":
        return None
    cols = ", ".join(sql_name(lookup[c.casefold()][0]) for c in design.partition_columns)
    # In a TiDB comment: MySQL and MariaDB create a plain table (they cannot partition a table with
    # foreign keys or global indexes), TiDB partitions it.
    return f"/*T! PARTITION BY KEY({cols}) PARTITIONS {design.distribution.partitions} */"


def _table_notes(table: Table, design: TableDesign) -> tuple[str, ...]:
    where = f"{table.source}" if table.source.file else "catalog"
    notes = [f"{table.qualified_name} from {where}"]
    dist = design.distribution
    if dist.strategy != "none":
        code = {"key_partition": "DI01", "pre_split": "DI02"}.get(dist.strategy, "ID05")
        notes.append(f"distribution: {dist.strategy} (the plan's rationale and finding {code} give the evidence)")
    return tuple(notes)


def _checks(table: Table, db, names: NameMap, options: Options, scope: NameScope, findings: list[Finding],
            dropped: set[str], refusing: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """The CHECK constraints as the target takes them, (name, expression); `refusing` maps a column to why MySQL
    refuses a CHECK on it."""
    out = []
    for i, check in enumerate(table.checks):
        if check.disabled:
            continue
        text, notes = translate_ddl_expression(check.expression, database=db, table=table, names=names, options=options)
        label = check.name or f"check {i + 1}"
        uses = sorted(c for c in dropped if _names_column(check.expression, c))
        if uses:
            text, notes = None, (f"it uses {', '.join(uses)}, which is left out of the DDL",)
        refused = sorted((c, why) for c, why in (refusing or {}).items() if _names_column(check.expression, c))
        if text is not None and refused:
            src = check.source if check.source.file else table.source
            findings.append(Finding(
                rule="MY07", severity=Severity.MEDIUM, object=f"{table.qualified_name}.{label}",
                message=f"CHECK {check.expression} is left out: MySQL refuses a CHECK on "
                        + "; ".join(f"{c}, {why}" for c, why in refused) + "; enforce it in the application",
                file=src.file, line=src.line))
            continue
        if text is None:
            why = "; ".join(notes) or f"no {options.engine_name} equivalent"
            src = check.source if check.source.file else table.source
            findings.append(Finding(rule="TY24", severity=Severity.MEDIUM, object=f"{table.qualified_name}.{label}",
                                    message=f"CHECK {check.expression} cannot be translated ({why}); it is left out: "
                                            f"enforce it in the application", file=src.file, line=src.line))
            continue
        if _NONDETERMINISTIC.search(text):
            continue  # TiDB refuses the clock or random values in CHECK; the rules engine's TB12 reports it
        out.append((scope.claim(check.name or f"ck_{table.name}_{i + 1}"), unparen(text)))
    return out


def _names_column(expression: str, column: str) -> bool:
    return re.search(r"(?<![\w$#@])\[?" + re.escape(column) + r"\]?(?![\w$#@])", expression, re.I) is not None


def _row_count(table: Table) -> dict[str, Any]:
    """The table's rows on the server; where the catalog has none, the rows its script inserts."""
    if table.row_count is not None:
        return {"row_count": table.row_count, "row_count_from": "catalog"}
    if table.scripted_rows:
        return {"row_count": table.scripted_rows, "row_count_from": "script"}
    return {}


def _foreign_keys(work: list[_TableWork], db, renderer: DdlRenderer, findings: list[Finding]) -> dict[int, list[str]]:
    by_table = {(w.table.schema.casefold(), w.table.name.casefold()): w for w in work}
    scope = NameScope()
    out: dict[int, list[str]] = defaultdict(list)
    for w in work:
        for fk in w.table.foreign_keys:
            if fk.disabled:
                continue
            statement = _foreign_key(w, fk, by_table, scope, renderer, findings)
            if statement:
                out[id(w.table)].append(statement)
    return out


def _foreign_key(w: _TableWork, fk: ForeignKey, by_table, scope: NameScope, renderer: DdlRenderer,
                 findings: list[Finding]) -> str | None:
    label = fk.name or f"FK to {fk.ref_schema}.{fk.ref_table}"
    src = fk.source if fk.source.file else w.table.source

    def skip(why: str) -> None:
        findings.append(Finding(rule="TY25", severity=Severity.MEDIUM, object=f"{w.table.qualified_name}.{label}",
                                message=f"foreign key {label} is left out: {why}", file=src.file, line=src.line))

    parent = by_table.get((fk.ref_schema.casefold(), fk.ref_table.casefold()))
    if parent is None:
        skip(f"{fk.ref_schema}.{fk.ref_table} is not in the schema")
        return None
    child_cols = {b.column.name.casefold(): b for b in w.columns}
    parent_cols = {b.column.name.casefold(): b for b in parent.columns}
    pairs = []
    for c, r in zip(fk.columns, fk.ref_columns, strict=False):
        child, ref = child_cols.get(c.casefold()), parent_cols.get(r.casefold())
        if child is None or ref is None:
            skip(f"column {c if child is None else r} is left out of the DDL")
            return None
        if not _compatible(child, ref, w.collation, parent.collation):
            skip(f"{c} ({child.ddl.type}) and {fk.ref_table}.{r} ({ref.ddl.type}) no longer have compatible types")
            return None
        pairs.append((child.name, ref.name))
    notes = []
    for action, value in (("ON DELETE", fk.on_delete), ("ON UPDATE", fk.on_update)):
        if value == "set_default":
            # InnoDB rejects SET DEFAULT and TiDB treats it as RESTRICT (the rules engine's TB16).
            notes.append(f"{action} SET DEFAULT written as NO ACTION, which is how TiDB and InnoDB behave")
    name = scope.claim(fk.name or f"fk_{w.table.name}_{fk.ref_table}")
    return renderer.add_foreign_key(ForeignKeyDdl(
        w.target, sql_name(name), tuple(sql_name(c) for c, _ in pairs), parent.target,
        tuple(sql_name(r) for _, r in pairs), _ACTIONS[fk.on_delete], _ACTIONS[fk.on_update], tuple(notes),
    ))


def _compatible(child: BuiltColumn, ref: BuiltColumn, child_coll: str, parent_coll: str) -> bool:
    a, b = child.info, ref.info
    if a.family != b.family:
        return False
    if a.family == "string":
        return (child.ddl.collate or child_coll) == (ref.ddl.collate or parent_coll)
    if a.family in ("binary", "text", "blob"):
        return True
    return child.ddl.type.upper().replace(" ", "") == ref.ddl.type.upper().replace(" ", "")


NEW_COLLATIONS_DEFAULT_SINCE = Version(6, 0)
"""`new_collations_enabled_on_first_bootstrap` defaults to true for clusters first bootstrapped on v6.0+
(https://docs.pingcap.com/tidb/stable/character-set-and-collation#new-framework-for-collations)."""


def _new_framework_note(target: str, version: Version) -> str:
    """Why a case-insensitive TiDB collation may still compare like utf8mb4_bin on a given cluster."""
    default = ("on by default for clusters first bootstrapped on v6.0 or later" if version >= NEW_COLLATIONS_DEFAULT_SINCE
               else f"off by default before v6.0, as for TiDB {version}: set it to true before the cluster's first start")
    return (f"; {target} compares case-insensitively only under TiDB's new collation framework "
            f"(new_collations_enabled_on_first_bootstrap, fixed when the cluster is first bootstrapped; {default}), and "
            f"without it TiDB compares as utf8mb4_bin: check an existing cluster with SELECT VARIABLE_VALUE FROM mysql.tidb "
            f"WHERE VARIABLE_NAME = 'new_collation_enabled'")


def _collation_uses(db, work: list[_TableWork]) -> CollationUses:
    """Each SQL Server collation of a string column, with the columns that have it and where it is first seen."""
    uses: dict[str, list[str]] = defaultdict(list)
    first: dict[str, tuple[str | None, int | None]] = {}
    for w in work:
        for b in w.columns:
            if not b.info.is_string:
                continue
            source = b.column.collation or db.collation
            key = source or ""
            uses[key].append(f"{w.table.qualified_name}.{b.column.name}")
            src = b.column.source if b.column.source.file else w.table.source
            first.setdefault(key, (src.file, src.line))
    return uses, first


def _collation_findings(uses: CollationUses, mapper: TypeMapper, version: Version) -> list[Finding]:
    uses, first = uses
    out = []
    for key, columns in sorted(uses.items()):
        m = mapper.map_collation(key or None)
        assumed = " (assumed: the scripts name no collation)" if m.assumed else ""
        file, line = first[key]
        details = {"columns": len(columns), "examples": columns[:10], "target": m.target}
        if m.switched_off:
            out.append(Finding(rule="TY12", severity=Severity.MEDIUM, object=m.source,
                               message=f"case-insensitive collation {m.source}{assumed} becomes {m.target} on "
                                       f"{len(columns)} column(s) because the mapping is switched off (skip_rewrites: "
                                       f"{CASE_INSENSITIVE_COLLATION}): comparisons become case-sensitive",
                               file=file, line=line, details=details))
        elif m.kind == "case_insensitive":
            out.append(Finding(rule="TY12", severity=Severity.LOW, object=m.source,
                               message=f"case-insensitive collation {m.source}{assumed} becomes {m.target} on "
                                       f"{len(columns)} column(s): comparisons stay case-insensitive (TiDB's default, "
                                       f"utf8mb4_bin, would be case-sensitive); accent and width rules may differ"
                                       + ("" if m.target.endswith("_bin") else _new_framework_note(m.target, version)),
                               file=file, line=line, details=details))
        else:
            out.append(Finding(rule="TY13", severity=Severity.INFO, object=m.source,
                               message=f"{m.kind.replace('_', '-')} collation {m.source}{assumed} becomes {m.target} on "
                                       f"{len(columns)} column(s): byte-wise comparison and ordering",
                               file=file, line=line, details=details))
    return out


def _alias_findings(db, work: list[_TableWork], source: str, engine: str = "TiDB") -> list[Finding]:
    uses: dict[str, int] = defaultdict(int)
    for t in db.tables:
        for c in t.columns:
            if c.type.alias:
                uses[c.type.alias.casefold()] += 1
    # The types --config gave the alias's columns instead of its base type, per override section.
    overridden: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    for w in work:
        for b in w.columns:
            if b.column.type.alias and b.mapped.override:
                label = b.mapped.override if b.mapped.override.startswith("types:") else "columns:"
                overridden[b.column.type.alias.casefold()][label].append(b.ddl.type)
    out = []
    for ut in db.user_types:
        if ut.is_table_type or ut.base is None:
            continue
        n = uses.get(ut.qualified_name.casefold(), 0)
        over = overridden.get(ut.qualified_name.casefold(), {})
        if over:
            parts = [f"{len(types)} get {types[0] if len(set(types)) == 1 else 'their own types'} from `{label}` in {source}"
                     for label, types in sorted(over.items())]
            rest = n - sum(len(types) for types in over.values())
            how = f"of its {n} column(s), {', '.join(parts)}" + (f", and {rest} use the base type directly" if rest > 0 else "")
        else:
            how = f"its {n} column(s) use the base type directly"
        out.append(Finding(rule="TY11", severity=Severity.INFO, object=ut.qualified_name,
                           message=f"alias type {ut.qualified_name} ({ut.base}) does not exist in {engine}; {how}",
                           file=ut.source.file, line=ut.source.line))
    return out


def _unused_overrides(config: PlanConfig, mapper: TypeMapper, db) -> list[Finding]:
    out = []
    for key in config.types:
        if f"types:{key}" not in mapper.used_overrides:
            out.append(Finding(rule="TY26", severity=Severity.LOW, object=f"types: {key}",
                               message=f"{config.source}: no column has type {key}; the override is not used"))
    for key in config.columns:
        if f"columns:{key}" not in mapper.used_overrides:
            out.append(Finding(rule="TY26", severity=Severity.LOW, object=f"columns: {key}",
                               message=f"{config.source}: column {key} is not in the schema; the override is not used"))
    for key in config.tables:
        schema, _, name = key.partition(".")
        if db.table(schema, name) is None:
            out.append(Finding(rule="DI04", severity=Severity.MEDIUM, object=f"tables: {key}",
                               message=f"{config.source}: table {key} is not in the schema; its override is not used"))
    return out
