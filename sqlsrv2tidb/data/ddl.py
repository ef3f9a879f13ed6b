"""`--create-tables`: the plan's own DDL applied around the load, as a migration applies ddl/.

Before the load: the sequences, the settings at the top of 02-tables.sql (on TiDB the one CHECK
constraints need, read and turned on by constraints.py, which then looks for each CHECK the tables
were created with), each loaded table's CREATE TABLE and (on TiDB) its placement statements; after it: the settings at the top of
04-indexes.sql, each loaded table's secondary indexes and foreign keys, the settings at its end
(which put back what the top changed), then the views of 06-views.sql. That is
the order TiDB loads fastest in (indexes built once, in ingest mode, over the loaded rows) and in
which foreign keys never constrain the load. With `--table`, a foreign key to a table not loaded
is left out (noted): its rows would not be there to satisfy it. A placement statement TiDB cannot
run here (TiFlash replicas on a cluster without TiFlash) is noted and skipped.

One table's DDL the target refuses never stops the others. A refused CREATE TABLE leaves that table
out of the load (its reason, the server's own message, comes back to the caller: DA08), and a refused
index or foreign key leaves the table loaded without it (DA10): TiDB, for one, refuses a unique key
whose loaded values its collation finds equal where SQL Server's did not. The rest is created and
loaded as planned. The sequences serve every table: their refusal, like a lost connection, stops the
run. A setting the files make (`SET GLOBAL tidb_ddl_enable_fast_reorg = ON` before the indexes, and
putting it back after them) makes the DDL faster, never different: one the target refuses (a login
without SUPER) is noted and skipped. The indexes and foreign keys are applied table by
table, each table's end reported to the caller (its checkpoint), so a run stopped half-way and run
again starts at the table it stopped in, where an index or key that table already has is passed over.

Views (`views`) are created last, in the file's order (a view after the views it reads), each one
the target does not have yet; a view already there is left as it is (it may be the DBA's own
edit), and one the load created is kept in its checkpoint, so a rerun creates none twice. Views
06-views.sql keeps as comments (not translatable) are never run. A view whose CREATE the target
refuses, or whose name a table of the target has, is skipped with the reason (the server's own
message; data.json, finding DA09) and the others are still created: one broken view never loses
the rest. A lost connection stops the run, as above. With `--table`, every view is tried
rather than only those whose tables this load brought: the target alone knows what a view can read
(tables loaded by this load or an earlier one, views created a moment before, the DBA's own
tables), where a reading of the view's text would guess; a view whose table is missing is refused
with "Table '...' doesn't exist", naming what to load, and a later `--create-tables` load that
brings it creates the view, since the view is still missing then.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass

from ..errors import ConnectionFailed, one_line
from ..model.plan import MigrationPlan
from ..translate.ddl import is_comment_only, split_statements
from .constraints import SETTING, CheckConstraints, look_for, switch_on
from .tables import unquote_target
from .targetdb import TargetDb, TargetLost

_SETTING = re.compile(r"^\s*(?:/\*T!\s*)?SET\s", re.I)
_REFERENCES = re.compile(r"\bREFERENCES\s+((?:`(?:[^`]|``)*`|[\w$]+)(?:\.(?:`(?:[^`]|``)*`|[\w$]+))?)", re.I)
_MISSING = re.compile(r"Table '(?:[^'.]*\.)?([^']*)' doesn't exist")
_ALREADY_THERE = re.compile(r"\(MySQL error (?:1061|1826)\)")
"""The index or foreign key name is taken (ER_DUP_KEYNAME, ER_FK_DUP_NAME): a run stopped half-way made it."""
_ALTERED = re.compile(r"^\s*ALTER\s+TABLE\s+((?:`(?:[^`]|``)*`|[\w$]+)(?:\.(?:`(?:[^`]|``)*`|[\w$]+))?)", re.I)


def _statements(plan: MigrationPlan, name: str) -> list[str]:
    found = next((f for f in plan.files if f.name == name), None)
    return [s for s in split_statements(found.content) if not is_comment_only(s)] if found else []


def before(db: TargetDb, plan: MigrationPlan, tables: set[str]) -> tuple[list[str], dict[str, str], CheckConstraints]:
    """Sequences and the tables (folded target names) the target does not have yet, before any row arrives.

    Returns the notes, by folded target name the tables whose CREATE the target refused, with why, and what became
    of the CHECK constraints of those it created (constraints.py: on TiDB, the server's setting they need is turned
    on first where the login may).
    """
    notes: list[str] = []
    refused: dict[str, str] = {}
    if not tables:
        return notes, refused, CheckConstraints()
    _run(db, _statements(plan, "01-sequences.sql"), "01-sequences.sql")
    planned = {unquote_target(t.target): t.checks for t in plan.tables
               if t.checks and unquote_target(t.target).casefold() in tables}
    checks = switch_on(db, sum(len(names) for names in planned.values()))
    first, last = _settings(plan, "02-tables.sql")
    notes += _set(db, [s for s in first + last if SETTING not in s], "02-tables.sql")  # switch_on has done that one
    for table in plan.tables:
        key = unquote_target(table.target).casefold()
        if key in tables:
            said = refusal(db, table.ddl)
            if said is not None:
                refused[key] = f"the target refused its CREATE TABLE: {said}"
    checks = look_for(db, {t: names for t, names in planned.items() if t.casefold() not in refused}, checks)
    if db.kind == "tidb":
        for statement in _statements(plan, "03-tidb-placement.sql"):
            altered = _ALTERED.match(_code(statement))
            if altered and (unquote_target(altered[1]).casefold() not in tables
                            or unquote_target(altered[1]).casefold() in refused):
                continue
            try:
                db.execute(statement)
            except ConnectionFailed as exc:
                notes.append(f"03-tidb-placement.sql: skipped ({exc})")
    return notes, refused, checks


def after(db: TargetDb, plan: MigrationPlan, tables: set[str], loaded: set[str],
          finished: Callable[[str, list[str]], None]) -> list[str]:
    """Indexes and foreign keys of `tables` (those `before` created), table by table; a key to a table not in
    `loaded` is left out (noted). `finished(table, refusals)` is called once a table's statements have run,
    with what the target refused of them (each `statement: the server's message`)."""
    notes: list[str] = []
    if not tables:
        return notes
    first, last = _settings(plan, "04-indexes.sql")
    notes += _set(db, first, "04-indexes.sql")
    for table in plan.tables:
        key = unquote_target(table.target).casefold()
        if key not in tables:
            continue
        refusals: list[str] = []
        for statement in table.post_data_ddl:
            referenced = _REFERENCES.search(statement)
            if referenced and unquote_target(referenced[1]).casefold() not in loaded:
                notes.append(f"{table.schema}.{table.name}: foreign key to {unquote_target(referenced[1])} left out "
                             "(that table was not loaded)")
                continue
            said = refusal(db, statement)
            if said is not None and not _ALREADY_THERE.search(said):
                refusals.append(f"{one_line(_code(statement), 200).rstrip(';')}: {said}")
        finished(key, refusals)
    return notes + _set(db, last, "04-indexes.sql")


def _settings(plan: MigrationPlan, name: str) -> tuple[list[str], list[str]]:
    """A file's settings before its first statement of DDL, and those after its last (what puts a setting back)."""
    statements = _statements(plan, name)
    ddl = [i for i, s in enumerate(statements) if not _SETTING.match(_code(s))]
    if not ddl:
        return [s for s in statements if _SETTING.match(_code(s))], []
    return ([s for s in statements[:ddl[0]] if _SETTING.match(_code(s))],
            [s for s in statements[ddl[-1] + 1:] if _SETTING.match(_code(s))])


def _set(db: TargetDb, statements: list[str], where: str) -> list[str]:
    """Run a file's settings; one the target refuses (a login without SUPER may not SET GLOBAL) is noted and
    skipped: a setting makes the DDL faster, never different (a lost connection stops the run)."""
    notes = []
    for statement in statements:
        said = refusal(db, statement)
        if said is not None:
            notes.append(f"{where}: {one_line(_code(statement), 120).rstrip(';')} skipped: {said}")
    return notes


@dataclass(frozen=True)
class ViewResult:
    """What became of one view of the plan on the target."""

    source: str
    """`schema.name` on SQL Server."""
    target: str
    """The view's name on the target."""
    status: str
    """created (by this load, or the run of it this one resumed), already there, not created (the target refused
    it), or not translated (kept as a comment in 06-views.sql)."""
    reason: str = ""


def views(db: TargetDb, plan: MigrationPlan, created: Collection[str],
          on_created: Callable[[str], None]) -> Iterator[ViewResult]:
    """Create the plan's translated views the target does not have yet, in order, yielding what became of each;
    `created` are those this load created before (never created again), `on_created` records each new one before
    the next is tried."""
    done = {name.casefold() for name in created}
    present, present_views = db.tables(), db.views()
    refused: set[str] = set()
    for view in plan.views:
        name = unquote_target(view.target)
        key = name.casefold()
        if view.kept:
            yield ViewResult(view.source, name, "not translated", view.kept)
        elif key in done:
            yield ViewResult(view.source, name, "created")
        elif key in present_views:
            yield ViewResult(view.source, name, "already there")
        elif key in present:
            yield ViewResult(view.source, name, "not created", "the target has a table of that name")
        else:
            said = refusal(db, view.ddl)
            if said is None:
                on_created(name)
                present.add(key)
                yield ViewResult(view.source, name, "created")
                continue
            missing = _MISSING.search(said)
            if missing and missing[1].casefold() in refused:
                said += f" ({missing[1]} is a view of the plan the target refused before this one)"
            refused.add(key)
            yield ViewResult(view.source, name, "not created", said)


def refusal(db: TargetDb, ddl: str) -> str | None:
    """Run DDL (one or more statements); the server's message when it refuses (a lost connection stops the run)."""
    try:
        for statement in split_statements(ddl):
            if not is_comment_only(statement):
                db.execute(statement)
    except TargetLost:
        raise
    except ConnectionFailed as exc:
        return re.sub(r"^\w+: ", "", str(exc).removeprefix(f"{db.target.display}: "), count=1)
    return None


def _code(statement: str) -> str:
    return re.sub(r"--[^\n]*", "", statement).strip()


def _run(db: TargetDb, statements: list[str], where: str) -> None:
    for statement in statements:
        try:
            db.execute(statement)
        except ConnectionFailed as exc:
            raise ConnectionFailed(f"{where}: {exc}") from None
