"""Applying a migration plan's ddl/ files to a real server, and counting what the server then holds."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from sqlsrv2tidb.model import Capture, Finding
from sqlsrv2tidb.model.plan import MigrationPlan
from sqlsrv2tidb.translate.ddl import is_comment_only, split_statements

TIDB_ONLY = "03-tidb-placement.sql"
"""ALTER TABLE ... ATTRIBUTES has no MySQL form: never applied to MariaDB."""
TIFLASH = "08-tiflash-replicas.sql"
"""SET TIFLASH REPLICA: TiDB only, and only on a cluster with TiFlash servers (the test TiDB has none)."""
TIFLASH_REFUSED = "the tiflash replica count: {n} should be less than the total tiflash server count: 0"
"""What TiDB answers to `ALTER TABLE ... SET TIFLASH REPLICA n` on a cluster without TiFlash (error 1105)."""


def statements(plan: MigrationPlan, *, tidb_only: bool = True, tiflash: bool = True,
               only: str | None = None) -> list[tuple[str, str]]:
    """(file name, statement) for every executable statement, in apply order (`only`: of one file)."""
    out = []
    for f in sorted(plan.files, key=lambda f: f.name):
        if (f.name == TIDB_ONLY and not tidb_only) or (f.name == TIFLASH and not (tidb_only and tiflash)):
            continue
        if only is not None and f.name != only:
            continue
        out += [(f.name, s) for s in split_statements(f.content) if not is_comment_only(s)]
    return out


def parse_errors(tidb_parser, plan: MigrationPlan) -> list[str]:
    """Every statement TiDB's own parser rejects, with the file it came from."""
    bad = []
    for name, sql in statements(plan):
        result = tidb_parser.check(sql)
        if not result.ok or result.statements != 1:
            bad.append(f"{name}: {result.error} in {sql[:300]}")
    return bad


def apply(conn, plan: MigrationPlan, kind: str = "mariadb") -> list[str]:
    """Run the files a server of `kind` can take, in name order, statement by statement; return the errors.

    MariaDB gets every file but the TiDB-only ones; TiDB gets every file but the TiFlash one, which
    needs TiFlash servers (`refusals(conn, plan, TIFLASH)` shows what TiDB answers to it).
    """
    errors = []
    with conn.cursor() as cur:
        for name, sql in statements(plan, tidb_only=kind == "tidb", tiflash=False):
            try:
                cur.execute(sql)
            except Exception as exc:  # noqa: BLE001 - collect them all, then fail with the list
                errors.append(f"{name}: {exc.args} in {sql[:300]}")
    return errors


def refusals(conn, plan: MigrationPlan, name: str) -> list[tuple[int, str]]:
    """(error code, message) for each statement of one file, as the server answers it."""
    out = []
    with conn.cursor() as cur:
        for _, sql in statements(plan, only=name):
            try:
                cur.execute(sql)
                out.append((0, "ok"))
            except Exception as exc:  # noqa: BLE001 - what the server says is the point
                out.append((exc.args[0], str(exc.args[1])))
    return out


@dataclass
class Counts:
    tables: int
    indexes: Counter
    """Per lower-cased table name: indexes other than those the server adds for foreign keys."""
    foreign_keys: int
    views: int


def server_counts(conn, database: str) -> Counts:
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = %s AND table_type = 'BASE TABLE'",
                    (database,))
        tables = cur.fetchone()[0]
        cur.execute("SELECT constraint_name FROM information_schema.referential_constraints WHERE constraint_schema = %s",
                    (database,))
        fk_names = {r[0] for r in cur.fetchall()}
        cur.execute("SELECT DISTINCT table_name, index_name FROM information_schema.statistics WHERE table_schema = %s",
                    (database,))
        indexes = Counter(t.lower() for t, ix in cur.fetchall() if ix not in fk_names and not ix.endswith("_auto"))
        cur.execute("SELECT COUNT(*) FROM information_schema.views WHERE table_schema = %s", (database,))
        views = cur.fetchone()[0]
    return Counts(tables, indexes, len(fk_names), views)


def _left_out(findings: list[Finding] | tuple[Finding, ...], rule: str, prefix: str, words: str) -> int:
    return sum(1 for f in findings if f.rule == rule and f.object.startswith(prefix) and words in f.message)


def model_counts(capture: Capture, plan: MigrationPlan) -> Counts:
    """What the model holds, less what the plan reports it left out (each with its finding)."""
    indexes: Counter = Counter()
    fks = 0
    for table in capture.database.tables:
        pk = table.primary_key
        pk_cols = [c.name.casefold() for c in pk.columns] if pk else None
        n = (1 if pk else 0) + len(table.unique_keys) + sum(
            1 for ix in table.indexes
            if ix.kind == "rowstore" and not ix.disabled
            and not (ix.clustered and [c.name.casefold() for c in ix.columns] == pk_cols))
        n -= _left_out(plan.findings, "TY20", f"{table.qualified_name}.", "the key is left out too")
        target = plan.table(table.schema, table.name).target.strip("`").lower()
        indexes[target] = n
        fks += sum(1 for fk in table.foreign_keys if not fk.disabled)
    fks -= _left_out(plan.findings, "TY25", "", "is left out")
    views = sum(1 for name, sql in statements(plan) if name.startswith("06-"))
    sequence_tables = len(plan.settings.get("sequence_tables", ()))  # MySQL: a sequence that is a table of its own
    return Counts(len(capture.database.tables) + sequence_tables, +indexes, fks, views)
