"""`sqlsrv2tidb experiment`: seed 000's table-design experiment as one command.

For one write-hot table it creates each design side by side on the target (`<table>__as_captured`,
`__key_partition`, `__pre_split`, `__auto_random` where TiDB allows it), replays the same captured
insert workload against each with the same seed, and compares the sustained rate and p99. Each
variant's DDL comes from the planner (`build_plan` with a per-table `distribution` override), so the
experiment measures exactly what `sqlsrv2tidb ddl` would create. Variant tables are dropped and
recreated by name; nothing else on the target is touched, and nothing is created without
`--confirm-database` naming the target's database.

On MySQL and MariaDB TiDB's options are comments (`/*T! ... */`), so there every design would be
the same table: the experiment measures the table once, as captured, lists the other designs as
skipped for that reason and says so in its note and finding (run it against TiDB to compare). On
TiDB each design is its own table with its own Region layout, read with `SHOW TABLE ... REGIONS`
when the replay starts and ends (`regions`); what the cluster cannot show (hot Regions without PD,
placement over one TiKV store) is listed under `not_measured`, as the replay says it.

`experiment.json` (format `sqlsrv2tidb.experiment/1`) holds `table`, `target`, `server`, `seed`,
`variants` [{`name`, `strategy`, `table`, `ddl`, `achieved_qps`, `target_qps`, `p99_ms`, `errors`,
`ceiling_qps`, `sustained`, `regions` {`at_start`, `at_end`} (TiDB only), `replay` (its
replay.json, relative)}], `skipped` [{`strategy`, `reason`}], `best`, `notes` and `not_measured`;
each variant's full replay.json is in `variants/<name>/`. Every design is replayed with the same
seed, so each table gets the same rows.
"""

from __future__ import annotations

import re
import sys
from dataclasses import replace
from pathlib import Path

from ..errors import ConnectionFailed, InputError, Refused, UsageError
from ..model import Capture, Finding, Severity, Table
from ..model.translation import Translation
from ..options import Options
from ..outdir import write_json
from ..plan.migration import build_plan
from ..progress import NullProgress, Progress
from ..target import Target
from . import drivers, evidence
from .config import ReplayConfig
from .runner import ReplayOutcome, run_replay
from .safety import check_not_source, check_writes_confirmed

FORMAT = "sqlsrv2tidb.experiment/1"
STRATEGIES = ("none", "key_partition", "pre_split", "auto_random")
VARIANT_NAMES = {"none": "as_captured", "key_partition": "key_partition", "pre_split": "pre_split",
                 "auto_random": "auto_random"}


def check_confirmed(target: Target, config: ReplayConfig) -> None:
    """The experiment creates tables: refuse unless --confirm-database names the target's database."""
    if not config.allow_writes:
        raise Refused("experiment creates tables and inserts rows: give --confirm-database NAME naming the "
                      f"target's database ({target.database})")
    check_writes_confirmed(target, config)


def run_experiment(capture: Capture, translation: Translation, target: Target, table: str, config: ReplayConfig,
                   options: Options, *, out: Path, progress: Progress | None = None) -> ReplayOutcome:
    """Create each design of TABLE on TARGET, replay the table's inserts on each, write OUT/experiment.json."""
    check_confirmed(target, config)
    check_not_source(target, capture.server)
    config = config.with_seed()  # one seed for every design: each table gets the same rows
    found = _find_table(capture, table)
    inserts = [q for q in translation.queries if q.kind == "insert" and q.target_sql and q.status != "unsupported"
               and _names_table(q.target_sql, found.name)]
    if not inserts:
        raise UsageError(f"--table {table}: the workload has no translated INSERT into {found.qualified_name}")
    server = _server(target, config)
    variants, skipped = [], []
    for strategy in STRATEGIES:
        ddl, reason = _variant_ddl(capture, options, found, strategy)
        if ddl is None:
            skipped.append({"strategy": strategy, "reason": reason})
        elif server.kind != "tidb" and strategy != "none":
            skipped.append({"strategy": strategy, "reason": f"the same table as as_captured on {server.kind}: "
                                                            "TiDB's distribution options are comments there"})
        else:
            variants.append((strategy, f"{found.name}__{VARIANT_NAMES[strategy]}", ddl))
    _create_variants(target, config, variants, server)
    results = []
    not_measured: list[str] = []
    for strategy, name, ddl in variants:
        renamed = Translation(tuple(replace(q, target_sql=rename_table(q.target_sql or "", found.name, name))
                                    for q in inserts))
        folder = out / "variants" / name
        if progress is not None and not isinstance(progress, NullProgress):
            sys.stderr.write(f"Design {strategy}: table {name}\n")
        outcome = run_replay(capture, renamed, target, config, out=folder, progress=progress)
        doc = outcome.result
        result = {
            "name": name, "strategy": strategy, "table": name, "ddl": ddl,
            "achieved_qps": doc["achieved_qps"], "target_qps": doc["target_qps"], "p99_ms": doc["latency_ms"]["p99"],
            "errors": doc["errors"], "sustained": doc["sustained"],
            "ceiling_qps": (doc["ramp"] or {}).get("ceiling_qps"), "replay": f"variants/{name}/replay.json",
        }
        proof = doc.get("evidence") or {}
        if server.kind == "tidb":
            result["regions"] = {"at_start": (proof.get("before") or {}).get(name, {}).get("regions"),
                                 "at_end": (proof.get("after") or {}).get(name, {}).get("regions")}
            not_measured = proof.get("not_measured") or []
        results.append(result)
    best = max(results, key=lambda r: (r["ceiling_qps"] or 0, r["achieved_qps"], -(r["p99_ms"] or 1e9)))
    if server.kind == "tidb":
        notes = []
        layouts = ", ".join(f"{r['strategy']} {r['regions']['at_start']}" for r in results
                            if r["regions"]["at_start"] is not None)
        if layouts:
            notes.append(f"Regions per design when its replay started (SHOW TABLE ... REGIONS): {layouts}")
    else:
        notes = [f"the target is {server.kind} {server.version}: TiDB's distribution options are comments there, so "
                 "every design would be the same table; it was measured once, as captured. Run the experiment "
                 "against TiDB to compare the designs"]
    held = results and _held(out, results[0]["replay"])
    notes.append("each design's table is created empty, so its inserts ran against an empty table"
                 + (f"; {held['said']}" if held else ""))
    doc = {"format": FORMAT, "table": found.qualified_name, "target": target.display,
           "server": {"kind": server.kind, "version": server.version}, "seed": config.seed, "variants": results,
           "skipped": skipped, "best": best["name"], "target_data": held or None, "notes": notes,
           "not_measured": not_measured}
    path = write_json(out / "experiment.json", doc)
    if server.kind == "tidb":
        message = (f"{found.qualified_name}: of {len(results)} designs, {best['strategy']} sustained the most "
                   f"({best['ceiling_qps'] or best['achieved_qps']:g} q/s, p99 {best['p99_ms']} ms)")
        if not_measured:
            message += f"; not measured on this cluster: {'; '.join(not_measured)}"
    else:
        message = (f"{found.qualified_name}: {notes[0]} ({best['achieved_qps']:g} q/s, p99 {best['p99_ms']} ms)")
    finding = Finding(
        rule="RP07", severity=Severity.INFO, object=found.qualified_name, message=message,
        details={"variants": [{k: r.get(k) for k in ("strategy", "achieved_qps", "p99_ms", "ceiling_qps", "regions")}
                              for r in results]})
    return ReplayOutcome([finding], doc, path)


def _held(out: Path, replay_file: str) -> dict | None:
    """What the target held, as the first design's replay counted it (its replay.json)."""
    import json

    try:
        return json.loads((out / replay_file).read_text(encoding="utf-8")).get("target_data")
    except (OSError, ValueError):
        return None


def _find_table(capture: Capture, name: str) -> Table:
    schema, _, table = name.rpartition(".")
    found = capture.database.table(schema or None, table)
    if found is None:
        known = ", ".join(t.qualified_name for t in capture.database.tables[:10]) or "none"
        raise UsageError(f"--table {name}: no such table in the sources (tables: {known})")
    return found


def _variant_ddl(capture: Capture, options: Options, table: Table, strategy: str) -> tuple[str | None, str]:
    """(the planner's CREATE TABLE and post-data indexes for one design, "") or (None, why it is skipped)."""
    tables = dict(options.config.get("tables") or {})
    tables[table.qualified_name] = {**(tables.get(table.qualified_name) or {}), "distribution": strategy}
    try:
        settings = replace(options, config={**options.config, "tables": tables})
        plan = build_plan(capture, settings, progress=NullProgress())
    except InputError as exc:
        # The user's own settings for the table may not fit this design (pre_split_regions beyond
        # AUTO_RANDOM's shard bits, say): skip the design, keep the others.
        return None, f"the configuration does not allow it ({exc})"
    planned = plan.table(table.schema, table.name)
    if planned is None or not planned.ddl:
        return None, "the planner produced no CREATE TABLE for it"
    if planned.distribution.strategy != strategy:
        why = planned.distribution.rationale or f"the planner chose {planned.distribution.strategy}"
        return None, f"not legal for this table ({why})"
    statements = [planned.ddl, *planned.post_data_ddl]
    new = f"`{table.name}__{VARIANT_NAMES[strategy]}`"
    return ";\n".join(_rename_in_ddl(s.strip().rstrip(";"), planned.target, new) for s in statements) + ";", ""


def _rename_in_ddl(statement: str, old: str, new: str) -> str:
    """Point a CREATE TABLE / CREATE INDEX ... ON / ALTER TABLE at the variant table."""
    names = "|".join(re.escape(form) for form in dict.fromkeys((old, f"`{old.strip('`')}`", old.replace("`", ""))))
    pattern = rf"(?i)(\b(?:CREATE\s+TABLE(?:\s+IF\s+NOT\s+EXISTS)?|ALTER\s+TABLE|ON)\s+)(?:{names})(?=[\s(;]|$)"
    renamed, count = re.subn(pattern, lambda m: m[1] + new, statement, count=1)
    if not count:
        raise UsageError(f"cannot find table {old} in the planned DDL: {' '.join(statement.split())[:80]}")
    return renamed


def _names_table(sql: str, name: str) -> bool:
    written = evidence.written_table(sql)
    return written is not None and written.rpartition(".")[2].casefold() == name.casefold()


def rename_table(sql: str, old: str, new: str) -> str:
    """`INSERT INTO [db.]old ...` → `INSERT INTO new ...` (the variant lives in the target's database)."""
    return re.sub(rf"(?i)(\binto\s+)(?:`?\w+`?\.)?`?{re.escape(old)}`?(?=[\s(])", lambda m: f"{m[1]}`{new}`", sql,
                  count=1)


def _connect(target: Target, config: ReplayConfig) -> tuple[drivers.Connection, str]:
    driver = drivers.resolve(config.driver).name
    blocking = "pymysql" if driver == "asyncmy" else driver
    try:
        return drivers.connect(target, blocking), blocking
    except drivers.driver_errors(blocking) as exc:
        code, message, _ = drivers.classify(exc)
        raise ConnectionFailed(f"{target.display}: {message}" + (f" (MySQL error {code})" if code else "")) from None


def _server(target: Target, config: ReplayConfig) -> evidence.Server:
    """What the target is: the designs differ only on TiDB."""
    conn, _ = _connect(target, config)
    try:
        return evidence.detect_server(conn)
    finally:
        conn.close()


def _create_variants(target: Target, config: ReplayConfig, variants: list[tuple[str, str, str]],
                     server: evidence.Server) -> None:
    conn, driver = _connect(target, config)
    try:
        if server.kind == "tidb":
            _try(conn, SCATTER_SQL)
        for strategy, name, ddl in variants:
            conn.run(f"DROP TABLE IF EXISTS `{name}`", ())
            for statement in _split(ddl):
                conn.run(statement.replace("%", "%%"), ())
            if server.kind == "tidb" and strategy == "pre_split":
                _try(conn, keep_regions_sql(name))
    except drivers.driver_errors(driver) as exc:
        code, message, _ = drivers.classify(exc)
        raise UsageError(f"{target.display}: creating the design variants failed: {message} (MySQL error {code})") \
            from None
    finally:
        conn.close()


SCATTER_SQL = "SET SESSION tidb_scatter_region = 'TABLE'"


def keep_regions_sql(table: str) -> str:
    return f"ALTER TABLE `{table}` ATTRIBUTES 'merge_option=deny'"


def _try(conn: drivers.Connection, statement: str) -> None:
    """A TiDB setting that helps pre-split tables but is missing from older versions: best effort.

    `tidb_scatter_region` makes CREATE TABLE wait until the pre-split Regions are spread over the
    TiKV nodes, and `merge_option=deny` keeps PD from merging the empty Regions back (seed 000).
    (https://docs.pingcap.com/tidb/stable/sql-statement-split-region,
     https://docs.pingcap.com/tidb/stable/table-attributes)
    """
    try:
        conn.run(statement, ())
    except Exception:  # noqa: BLE001 - an older TiDB without the setting still runs the experiment
        pass


def _split(ddl: str) -> list[str]:
    """Statements of planner DDL (our own text: `;` ends a statement only at the end of a line)."""
    return [s.strip() for s in re.split(r";\s*(?:\n|$)", ddl) if s.strip()]
