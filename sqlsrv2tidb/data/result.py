"""`data.json` (format `sqlsrv2tidb.data/1`): what a data run moved, how fast, and whether it verified.

Top level: `format`, `tool_version`, `mode` (copy, synthesize or verify), `started_at` (UTC ISO),
`seconds`, `source` {`kind`: sqlserver or statistics, `name`: the SQL Server `host,port/database`,
or the captures the statistics came from; never a password}, `target` (`mysql://user@host:port/database`, never a password), `server`
{`kind`}, `settings` (`jobs`, `chunk_rows`, `sample`, `scale`, `seed`, `method`: load data or
insert), `interrupted`, `rejects_file` (null when nothing was rejected), `summary` {`tables`,
`rows`, `bytes`, `seconds`, `rows_per_s`, `mb_per_s`, `rejects`, `refused_by_target`, `equal`, `different`,
`not_verified`, `views_created`, `views_not_created`}, `notes` (DDL statements `--create-tables`
left out, and why: a foreign key to a table not loaded, a view the target refused), `views` (null
without `--create-tables`, or when a table failed so the DDL after the load did not run; else
`created` and `already_there`, the target names, and `not_created` (the target refused the CREATE)
and `not_translated` (kept as a comment in ddl/06-views.sql), each [{`view`, `source`, `reason`}]),
`check_constraints` (null unless `--create-tables` created tables with CHECKs: `planned`, `present`, `missing`
[`table.constraint`], `setting` {`name`: tidb_enable_check_constraint, `found`: ON or OFF, `turned_on`: this
load turned it on, `refused`: why it could not} on TiDB, else null, and `notes`), `findings`, and `tables`, one
entry per table:

- `schema`, `name` (SQL Server), `target` (the TiDB table), `key` (its columns) and `chunking`
  (primary key, unique key, or physical order when it has neither);
- `status`: done, already done (by an earlier run this one resumed), interrupted, failed (with
  `message`: the load's error, or the target's refusal of its CREATE TABLE); `resumed`;
  `foreign_key_checks` (on, or off for tables in a circle of references);
- `rows` (the rows the target kept), `bytes` (of the values as sent), `seconds`, `rows_per_s`, `mb_per_s`,
  `chunks`, `rejects` (rows not loaded: a value with no target form, or a row the target refused),
  `refused_by_target` (of those, the rows the target refused: each is named in the rejects file with
  the server's reason), `warnings` (the target's warnings about rows it kept but changed), `retries`
  (chunks read or loaded again after a lost connection), `method`, `notes`
  (with `refused: ...` for each index or foreign key of `--create-tables` the target refused, DA10);
- `columns` (synthesize only): per column, where its values came from;
- `verify`: null when not verified, else `status` (equal or different), `method` (key ranges,
  or hash buckets), `source_rows`, `target_rows`, `rejected`, `chunks`, `chunks_different`,
  `differences`, `first_differences` [{`kind`, `key`, `columns`}], `notes`.

`replay` and `experiment` read `summary` to say how much data the target held.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from .. import __version__
from ..model import Finding, Severity, to_dict
from .copy import TableResult
from .ddl import ViewResult
from .verify import TableVerify

FORMAT = "sqlsrv2tidb.data/1"
FILE = "data.json"


def table_entry(result: TableResult, verify: TableVerify | None) -> dict[str, Any]:
    spec = result.spec
    seconds = round(result.seconds, 3)
    entry = {
        "schema": spec.table.schema, "name": spec.table.name, "target": spec.target_name,
        "key": [c.source.name for c in spec.key_columns],
        "chunking": spec.key_kind if spec.key else "physical order (no key)",
        "status": result.status, "message": result.message, "resumed": result.resumed,
        "foreign_key_checks": "off" if result.checks_off else "on",
        "rows": result.rows, "bytes": result.bytes, "seconds": seconds,
        "rows_per_s": round(result.rows / result.seconds, 1) if result.seconds > 0 else None,
        "mb_per_s": round(result.bytes / result.seconds / 1e6, 3) if result.seconds > 0 else None,
        "chunks": result.chunks, "ranges": result.extra.get("ranges", 1), "rejects": result.rejects,
        "refused_by_target": result.refused, "warnings": result.extra.get("warnings", 0),
        "retries": result.extra.get("retries", 0),
        "method": result.method,
        "notes": list(spec.notes) + list(result.extra.get("notes", []))
        + [f"refused: {r}" for r in result.extra.get("refused", [])],
        "verify": verify.to_json() if verify is not None else None,
    }
    if "columns" in result.extra:
        entry["columns"] = result.extra["columns"]
    return entry


def document(*, mode: str, source: str, target: str, server: str, settings: dict[str, Any],
             tables: list[dict[str, Any]], findings: list[Finding], started: float, seconds: float,
             interrupted: bool, rejects_file: str | None, notes: list[str] | None = None,
             views: list[ViewResult] | None = None, check_constraints: dict[str, Any] | None = None) -> dict[str, Any]:
    rows = sum(t["rows"] for t in tables)
    made = views_entry(views)
    size = sum(t["bytes"] for t in tables)
    statuses = [(t.get("verify") or {}).get("status") for t in tables]
    return {
        "format": FORMAT, "tool_version": __version__, "mode": mode,
        "started_at": datetime.fromtimestamp(started, UTC).isoformat().replace("+00:00", "Z"),
        "seconds": round(seconds, 3),
        "source": {"kind": "statistics" if mode == "synthesize" else "sqlserver", "name": source},
        "target": target, "server": {"kind": server},
        "settings": settings, "interrupted": interrupted, "rejects_file": rejects_file,
        "summary": {
            "tables": len(tables), "rows": rows, "bytes": size, "seconds": round(seconds, 3),
            "rows_per_s": round(rows / seconds, 1) if seconds > 0 else None,
            "mb_per_s": round(size / seconds / 1e6, 3) if seconds > 0 else None,
            "rejects": sum(t["rejects"] for t in tables),
            "refused_by_target": sum(t.get("refused_by_target", 0) for t in tables),
            "equal": statuses.count("equal"), "different": statuses.count("different"),
            "not_verified": sum(1 for s in statuses if s not in ("equal", "different")),
            "views_created": len(made["created"]) if made else 0,
            "views_not_created": len(made["not_created"]) if made else 0,
        },
        "notes": list(notes or []),
        "views": made,
        "check_constraints": check_constraints,
        "findings": [to_dict(f) for f in findings],
        "tables": tables,
    }


def views_entry(views: list[ViewResult] | None) -> dict[str, Any] | None:
    """The views `--create-tables` created, found, or could not create, and why."""
    if views is None:
        return None

    def listed(status: str) -> list[dict[str, str]]:
        return [{"view": v.target, "source": v.source, "reason": v.reason} for v in views if v.status == status]

    return {"created": [v.target for v in views if v.status == "created"],
            "already_there": [v.target for v in views if v.status == "already there"],
            "not_created": listed("not created"), "not_translated": listed("not translated")}


def view_notes(views: list[ViewResult]) -> list[str]:
    """One line per view the target refused; one for the views kept as comments."""
    notes = [f"view {v.target} ({v.source}) not created: {v.reason}" for v in views if v.status == "not created"]
    kept = [v.target for v in views if v.status == "not translated"]
    if kept:
        notes.append(f"{len(kept)} view(s) not translated, kept as comments in ddl/06-views.sql: {', '.join(kept)}")
    return notes


def view_findings(views: list[ViewResult] | None) -> list[Finding]:
    """DA09: a translated view the target refused, so queries reading it fail there."""
    return [Finding("DA09", Severity.MEDIUM, v.source, f"view {v.target} was not created on the target: {v.reason}")
            for v in views or () if v.status == "not created"]


def check_findings(checks: dict[str, Any] | None) -> list[Finding]:
    """DA12: CHECK constraints of the tables `--create-tables` created that the target does not have (or keeps but
    cannot have kept: TiDB's setting was OFF and stayed so), so rows SQL Server refuses go in."""
    if not checks:
        return []
    setting = checks.get("setting") or {}
    missing = list(checks.get("missing") or ())
    if not missing:
        return []
    why = (f"{setting.get('name')} is OFF and this login may not turn it on ({setting.get('refused')})"
           if setting.get("refused") else "the target did not keep them")
    return [Finding("DA12", Severity.MEDIUM, "check constraints",
                    f"{len(missing)} of {checks.get('planned')} CHECK constraint(s) of the tables created are not on the "
                    f"target, so it takes rows SQL Server refuses: {why}; " + ", ".join(missing[:10])
                    + (f" and {len(missing) - 10} more" if len(missing) > 10 else ""),
                    details={"constraints": missing})]


def findings(tables: list[tuple[TableResult, TableVerify | None]]) -> list[Finding]:
    """What a DBA must look at: rejected values, target warnings, differences, keyless tables, binary forms."""
    out: list[Finding] = []
    for result, verify in tables:
        spec, name = result.spec, result.spec.label
        unconverted = result.rejects - result.refused
        if unconverted:
            out.append(Finding("DA01", Severity.MEDIUM, name, f"{unconverted} row(s) have a value the target "
                               "column cannot hold; they are in the rejects file and not in the target"))
        if result.refused:
            out.append(Finding("DA11", Severity.HIGH, name, f"the target refused {result.refused} row(s) while loading; "
                               "they are not in the target, and the rejects file names each with the server's reason"))
        warned = result.extra.get("warnings", 0)
        if warned:
            out.append(Finding("DA06", Severity.MEDIUM, name, f"the target raised {warned} warning(s) while loading "
                               "(values it changed on the way in); the rejects file lists the first of each chunk "
                               "with the key of its row"))
        if verify is not None and verify.status == "different":
            first = "; ".join(str(d) for d in verify.first[:3])
            out.append(Finding("DA02", Severity.HIGH, name, f"verify found {verify.differences} row(s) that differ "
                               f"in {verify.chunks_different} chunk(s): {first}",
                               details={"differences": [d.to_json() for d in verify.first]}))
        if result.status == "failed":
            out.append(Finding("DA08", Severity.HIGH, name, f"not loaded: {result.message}"))
        for refused in result.extra.get("refused", []):
            out.append(Finding("DA10", Severity.MEDIUM, name, f"its rows are loaded, but the target refused {refused}"))
        if not spec.key and result.rows:
            out.append(Finding("DA04", Severity.LOW, name, "no primary or unique key: read in physical order, "
                               "verified by hashes of whole rows, and loaded again whole if a run is resumed"))
        for note in spec.notes:
            if " loaded as its " in note:
                out.append(Finding("DA03", Severity.LOW, f"{name}.{note.split(':')[0]}", note.split(": ", 1)[1] +
                                   "; TiDB has no such type, so the application must read that form"))
        plain = [c["name"] for c in result.extra.get("columns", []) if c["values"].startswith("no statistics")]
        if plain and result.rows:
            out.append(Finding("DA05", Severity.INFO, name, f"{len(plain)} column(s) had no statistics, so their values "
                               f"come from their type and CHECK constraints: {', '.join(plain)}",
                               details={"columns": plain}))
        if result.checks_off:
            out.append(Finding("DA07", Severity.INFO, name, "its foreign keys reference itself or form a circle, "
                               "so it was loaded with foreign_key_checks off on its own session"))
    return out


def now() -> float:
    return datetime.now(UTC).timestamp()
