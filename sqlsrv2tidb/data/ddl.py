"""`--create-tables`: the plan's own DDL applied around the load, as a migration applies ddl/.

Before the load: the sequences, the settings at the top of 02-tables.sql, each loaded table's
CREATE TABLE and (on TiDB) its placement statements; after it: the settings of 04-indexes.sql and
each loaded table's secondary indexes and foreign keys. That is the order TiDB loads fastest in
(indexes built once, in ingest mode, over the loaded rows) and in which foreign keys never
constrain the load. With `--table`, a foreign key to a table not loaded is left out (noted): its
rows would not be there to satisfy it. A placement statement TiDB cannot run here (TiFlash
replicas on a cluster without TiFlash) is noted and skipped; any other failure stops the run.
"""

from __future__ import annotations

import re

from ..errors import ConnectionFailed
from ..model.plan import MigrationPlan
from ..translate.ddl import is_comment_only, split_statements
from .tables import unquote_target
from .targetdb import TargetDb

_SETTING = re.compile(r"^\s*(?:/\*T!\s*)?SET\s", re.I)
_REFERENCES = re.compile(r"\bREFERENCES\s+((?:`(?:[^`]|``)*`|[\w$]+)(?:\.(?:`(?:[^`]|``)*`|[\w$]+))?)", re.I)
_ALTERED = re.compile(r"^\s*ALTER\s+TABLE\s+((?:`(?:[^`]|``)*`|[\w$]+)(?:\.(?:`(?:[^`]|``)*`|[\w$]+))?)", re.I)


def _statements(plan: MigrationPlan, name: str) -> list[str]:
    found = next((f for f in plan.files if f.name == name), None)
    return [s for s in split_statements(found.content) if not is_comment_only(s)] if found else []


def before(db: TargetDb, plan: MigrationPlan, tables: set[str]) -> list[str]:
    """Sequences and the tables (folded target names) the target does not have yet, before any row arrives."""
    notes: list[str] = []
    if not tables:
        return notes
    statements = _statements(plan, "01-sequences.sql")
    statements += [s for s in _statements(plan, "02-tables.sql") if _SETTING.match(_code(s))]
    statements += [t.ddl for t in plan.tables if unquote_target(t.target).casefold() in tables]
    _run(db, statements, "02-tables.sql")
    if db.kind == "tidb":
        for statement in _statements(plan, "03-tidb-placement.sql"):
            altered = _ALTERED.match(_code(statement))
            if altered and unquote_target(altered[1]).casefold() not in tables:
                continue
            try:
                db.execute(statement)
            except ConnectionFailed as exc:
                notes.append(f"03-tidb-placement.sql: skipped ({exc})")
    return notes


def after(db: TargetDb, plan: MigrationPlan, tables: set[str], loaded: set[str]) -> list[str]:
    """Indexes and foreign keys of `tables` (those `before` created); a key to a table not in `loaded` is left out."""
    notes: list[str] = []
    if not tables:
        return notes
    statements = [s for s in _statements(plan, "04-indexes.sql") if _SETTING.match(_code(s))]
    for table in plan.tables:
        if unquote_target(table.target).casefold() not in tables:
            continue
        for statement in table.post_data_ddl:
            referenced = _REFERENCES.search(statement)
            if referenced and unquote_target(referenced[1]).casefold() not in loaded:
                notes.append(f"{table.schema}.{table.name}: foreign key to {unquote_target(referenced[1])} left out "
                             "(that table was not loaded)")
                continue
            statements.append(statement)
    _run(db, statements, "04-indexes.sql / 05-foreign-keys.sql")
    return notes


def _code(statement: str) -> str:
    return re.sub(r"--[^\n]*", "", statement).strip()


def _run(db: TargetDb, statements: list[str], where: str) -> None:
    for statement in statements:
        try:
            db.execute(statement)
        except ConnectionFailed as exc:
            raise ConnectionFailed(f"{where}: {exc}") from None
