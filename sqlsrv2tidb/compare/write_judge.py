"""A write class judged by its effect: run on both sides from the same rows, read, compared, rolled back.

For each value set, the target runs the class first (the procedure runner, `rolled_back`): a class
that would commit there or on SQL Server (DDL, a COMMIT past the transaction it began) stops before
anything is sent that commits, and is left out saying so, without SQL Server being asked anything.
Then SQL Server runs it, and both sides read the rows it touched (`write_sides`) before each rolls back,
so the next value set and the next class meet the rows as they were.

What is compared, in the order a difference is told:
1. whether it was refused, and by what kind of error (`error_kinds`): both refusing for the same kind
   is the same answer;
2. the rows affected by each statement, where the class is the application's own statements (a
   procedure's statements send no count once SET NOCOUNT is ON, as most do);
3. the result sets it returns, in order (OUTPUT, SELECTs in a batch, a procedure's), as a procedure
   call's are (`calls`);
4. the end state, table by table (`end_state`): the rows the write inserted, changed or removed, by key.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import Any

from ..model import Database
from ..procedures.affected import TableKey, table_key
from ..procedures.calls import ran_too_long
from ..procedures.results import CallResult
from ..procedures.workload import CapturedCall, change_plans, own_change_plans, tsql_of
from ..translate.naming import NameMap
from .calls import judge_result_sets, moment_of, noted
from .classes import Compared
from .end_state import Renumbering, TableEnd, TableRead, compare_table
from .error_kinds import SYNTAX, WriteError, target_error
from .runner import DIFFERS, ERROR, LEFT_OUT, NOT_COMPARABLE, SAME, SAME_UP_TO_TIES, ClassResult
from .sides import SQL_SERVER, TARGET, Answered, SideError, SqlServerSide, TargetSide
from .write_sides import Mark, SqlServerRun, SqlServerWrites, TargetWrites


def compare_write(compared: Compared, database: Database, sql_server: SqlServerSide, target: TargetSide) -> ClassResult:
    started = time.perf_counter()
    result = ClassResult(compared, method="effect on the rows")
    call: CapturedCall = compared.call
    result.extra["write"] = True
    result.extra["statement_kind"] = "call" if call.procedures else compared.query.kind
    drawn = _sequences(call, database)
    if drawn:
        result.extra["sequences"] = drawn
    result.extra["target_sql"] = call.plan.target_sql()
    for values in compared.value_sets:
        result.sets_run += 1
        result.values = values.sql_server
        try:
            verdict, reason = _one_set(result, compared, values.sql_server, database, sql_server, target)
        except SideError as exc:
            result.errors.append(exc)
            result.verdict, result.side, result.timed_out = ERROR, exc.side, exc.timed_out
            result.reason = f"{'SQL Server' if exc.side == SQL_SERVER else 'the target'} failed: {exc.message}"
            break
        if verdict == DIFFERS:
            moment = moment_of(call)
            if moment is not None:  # GETDATE(), NEWID()...: each server writes its own value
                verdict, reason = NOT_COMPARABLE, f"{moment} gives another value on each server and each run: {reason}"
        if verdict == SAME and reason and not result.reason:
            result.reason = reason  # both refused it alike, or its rows were read in part: said
        if verdict != SAME:
            result.verdict, result.reason = verdict, reason
            if verdict == DIFFERS:
                unread = result.extra.get("not_read") or []
                # A write the schema's rules name the cause of (MO10: through a view TiDB keeps read-only) is explained.
                rules = sorted({code for said in unread for code in _RULE.findall(said)})
                if rules:
                    result.extra["explained_by"] = rules
                result.reason += (f"; {unread[0]}" if unread else "") + (
                    noted(call) or ("" if rules else _translated(compared)))
            if verdict != SAME_UP_TO_TIES:
                break
    result.seconds = time.perf_counter() - started
    return result


_RULE = re.compile(r"\b(?:DA|DI|ID|IN|IX|MO|MY|RP|ST|TB|TY)\d\d\b")
"""A rule of the tool's (rules/) named in a reason: what explains a difference the translation does not."""

_NEXT_VALUE = re.compile(r"NEXT\s+VALUE\s+FOR\s+((?:\[[^\]]+\]|[\w$#@]+)(?:\s*\.\s*(?:\[[^\]]+\]|[\w$#@]+))?)",
                         re.IGNORECASE)


def _sequences(call: CapturedCall, database: Database) -> list[str]:
    """The sequences the class draws from (NEXT VALUE FOR in its statements, or the default of a column of a table
    it inserts into): SQL Server gives their values out for good, though the write is rolled back."""
    texts = list(tsql_of(call.plan))
    for plan in change_plans(call.plan):
        table = database.table(plan.table.schema, plan.table.name)
        if plan.kind in ("insert", "merge") and table is not None:
            texts += [c.default for c in table.columns if c.default]
    found = {" ".join(m[1].replace("[", "").replace("]", "").split()) for text in texts for m in _NEXT_VALUE.finditer(text)}
    return sorted(found, key=str.casefold)


def _translated(compared: Compared) -> str:
    notes = compared.query.notes
    if notes:
        return "; the translation noted: " + "; ".join(f"{n.code} {n.message}" for n in notes[:3])
    return "; the translation noted nothing: a difference the translator does not know"


def _one_set(result: ClassResult, compared: Compared, values: Sequence[Any], database: Database,
             sql_server: SqlServerSide, target: TargetSide) -> tuple[str, str]:
    call: CapturedCall = compared.call
    plans = change_plans(call.plan)
    tables = _unique(p.table for p in plans)
    s_side, t_side = SqlServerWrites(sql_server), TargetWrites(target)
    names = [p.name for p in call.plan.batch.parameters]
    began = False
    try:
        t_marks = t_side.identity_marks(tables)
        answered = t_side.run(call.plan, list(zip(names, values, strict=False)))
        if answered.lost is not None:
            raise SideError(TARGET, answered.lost.message, lost=True)
        if ran_too_long(answered):  # past the statement timeout: SQL Server is not asked to run it as long
            raise SideError(TARGET, next(e.message for e in answered.errors), timed_out=True)
        if answered.left_out is not None:
            return LEFT_OUT, f"it cannot run in a transaction that is rolled back: {answered.left_out}"
        s_side.begin()
        began = True
        s_marks = s_side.identity_marks(tables)
        keys = s_side.keys(own_change_plans(call.plan), compared.parameters, values)
        ran = s_side.run(call.plan.checked_text if call.plan.checked is not None else compared.tsql,
                         compared.parameters, values)
        touched = _touched(answered, keys, tables, s_marks, t_marks)
        renumber = Renumbering(database, s_marks, t_marks)
        # Tables that numbered rows for the call first: their values pair the two sides' keys everywhere else.
        touched.sort(key=lambda found: found[0].qualified_name not in s_marks)
        reads = []
        for table, mine, theirs in touched:
            read = _read(table, [*mine, *renumber.to_target(table, theirs)],
                         [*renumber.to_sql_server(table, mine), *theirs], s_side, t_side, target, s_marks, t_marks)
            renumber.learn(read)
            reads.append(read)
        for table, by, found in _cascaded(answered, database):
            reads.append(_read(table, found, found, s_side, t_side, target, {}, {}, by))
    finally:
        _rollback(t_side, s_side if began else None)
    ends = [compare_table(read, database, renumber) for read in reads]
    result.extra["end_state"] = [end.to_json() for end in ends]
    t_errors = [target_error(e.number, e.message, e.target_code) for e in answered.errors]
    result.extra["refused"] = {SQL_SERVER: [e.said() for e in ran.errors], TARGET: [e.said() for e in t_errors]}
    if ran.result_sets or answered.result_sets:  # OUTPUT rows, a SELECT of the batch, a call's return status...
        result.extra["result_sets"] = {SQL_SERVER: len(ran.result_sets), TARGET: len(answered.result_sets)}
    counts = _counts(call, ran, answered)
    if counts is not None:
        result.extra["rows_affected"] = {SQL_SERVER: counts[0], TARGET: counts[1]}
    result.rows = {SQL_SERVER: sum(e.sql_server_rows for e in ends), TARGET: sum(e.target_rows for e in ends)}
    unread = sorted({f"{c.table.qualified_name}: {c.plan.unknown}" for c in answered.changes if c.plan.unknown}
                    | {f"{p.table.qualified_name}: {p.unknown}" for p in plans if p.unknown})
    if unread:
        result.extra["not_read"] = unread
    unread_text = next((e for e in ran.errors if e.kind == SYNTAX), None)
    if unread_text is not None and not any(e.kind == SYNTAX for e in t_errors):
        # SQL Server could not read what it was sent (the test endpoint's grammar lacks a construct; docs/babelfish.md):
        # no answer to compare with.
        raise SideError(SQL_SERVER, unread_text.message)
    refused = _refused(ran.errors, t_errors)
    if refused is not None:
        return DIFFERS, refused
    if counts is not None and counts[0] != counts[1]:
        return DIFFERS, (f"rows affected differ: SQL Server reports {_listed(counts[0])}, the target "
                         f"{_listed(counts[1])}")
    verdict, reason, comparison = _result_sets(ran, answered, database, target, renumber, call.plan.checked is not None)
    result.comparison = comparison if comparison is not None and not comparison.equal else None
    if verdict not in (SAME, SAME_UP_TO_TIES):
        return verdict, reason
    differing = [end for end in ends if not end.equal]
    if differing:
        return DIFFERS, "the rows it leaves differ: " + "; ".join(_told(end) for end in differing[:3])
    both = [e.kind for e in ran.errors]
    if both:
        return SAME, f"both refuse it ({', '.join(dict.fromkeys(both))})"
    if unread and verdict == SAME:
        return SAME, "the same as far as its rows could be read; not read: " + "; ".join(unread[:2])
    return verdict, reason


def _unique(tables: Any) -> list[TableKey]:
    return list({t.qualified_name: t for t in tables}.values())


def _touched(answered: CallResult, keys: dict[str, list[tuple[Any, ...]]], tables: list[TableKey],
             s_marks: dict[str, Mark], t_marks: dict[str, Mark]) -> list[tuple[TableKey, list[Any], list[Any]]]:
    """Every table the call touched on either side (or may have added IDENTITY rows to), with the keys to read: those
    the target's statements touched (in its numbering) and those SQL Server's reads found (in SQL Server's)."""
    found: dict[str, tuple[TableKey, list[Any], list[Any]]] = {}
    for change in answered.changes:
        if change.plan.unknown is None:
            found.setdefault(change.table.qualified_name, (change.table, [], []))[1].extend(change.keys)
    for table in tables:
        if table.qualified_name in keys:
            found.setdefault(table.qualified_name, (table, [], []))[2].extend(keys[table.qualified_name])
        elif table.identity is not None and (table.qualified_name in s_marks or table.qualified_name in t_marks):
            found.setdefault(table.qualified_name, (table, [], []))
    return list(found.values())


def _cascaded(answered: CallResult, database: Database) -> list[tuple[TableKey, tuple[str, ...], list[tuple[Any, ...]]]]:
    """The rows a foreign key's ON DELETE / ON UPDATE action reaches from the rows a statement removed or re-keyed:
    read by their foreign key's values, which both sides must have acted on alike (none left, on both, after a
    cascaded delete)."""
    found: list[tuple[TableKey, tuple[str, ...], list[tuple[Any, ...]]]] = []
    names: NameMap | None = None
    for change in answered.changes:
        if change.plan.kind not in ("delete", "update") or not change.deleted:
            continue
        parent = database.table(change.table.schema, change.table.name)
        if parent is None:
            continue
        for child, fk in database.referencing_foreign_keys(parent):
            action = fk.on_delete if change.plan.kind == "delete" else fk.on_update
            if action == "no_action":
                continue
            positions = [change.table.columns.index(c) for c in fk.ref_columns if c in change.table.columns]
            if len(positions) != len(fk.ref_columns):
                continue
            values = [tuple(row[i] for i in positions) for row in change.deleted]
            names = names or NameMap.for_database(database)
            key = table_key(database, names, child)
            if key.key:
                found.append((key, tuple(fk.columns), values))
    return found


def _read(table: TableKey, keys: list[tuple[Any, ...]], sql_server_keys: list[tuple[Any, ...]], s_side: SqlServerWrites,
          t_side: TargetWrites, target: TargetSide, s_marks: dict[str, Mark], t_marks: dict[str, Mark],
          by: tuple[str, ...] = ()) -> TableRead:
    """A table's rows on both sides: by key (each side's own numbering) and, where the call may have numbered rows,
    every row above the table's IDENTITY floor."""
    name = table.qualified_name
    both = name in s_marks and name in t_marks
    left = s_side.read(table, sql_server_keys, s_marks[name].floor if both else None, by)
    right, description = t_side.read(table, keys, t_marks[name].floor if both else None, by)
    if not description:  # nothing was read on the target: the types come from a read of no rows
        description = t_side.describe(table)
    described, fields = description
    return TableRead(table, left, right, target.result_columns(described, fields), len(dict.fromkeys(keys)))


def _rollback(target: TargetWrites, sql_server: SqlServerWrites | None) -> None:
    """Both transactions rolled back; a failure here is a lost session, which the server rolls back itself."""
    for side in (target, sql_server):
        if side is None:
            continue
        try:
            side.rollback()
        except SideError:
            pass


def _counts(call: CapturedCall, ran: SqlServerRun, answered: CallResult) -> tuple[list[int], list[int]] | None:
    """Rows affected by each of the class's own statements on each side, where the two lists can be paired: the
    class calls no procedure and SQL Server sent one count per statement that changes a table."""
    if call.procedures:
        return None
    target = [count for procedure, _, count in answered.counts if procedure == call.plan.batch.name]
    if len(ran.counts) != len(target):
        return None
    return list(ran.counts), target


def _listed(counts: list[int]) -> str:
    return f"{counts[0]:,}" if len(counts) == 1 else ", ".join(f"{c:,}" for c in counts)


def _refused(sql_server: list[WriteError], target: list[WriteError]) -> str | None:
    """Why the refusals differ, or None when both refused for the same kinds (or neither refused)."""
    mine, theirs = [e.kind for e in sql_server], [e.kind for e in target]
    if mine == theirs:
        return None
    if not theirs:
        return f"SQL Server refuses it, the target runs it: {sql_server[0].said()}"
    if not mine:
        return f"the target refuses it, SQL Server runs it: {target[0].said()}"
    return f"both refuse it, for other reasons: SQL Server {sql_server[0].said()}; the target {target[0].said()}"


def _result_sets(ran: SqlServerRun, answered: CallResult, database: Database, target: TargetSide,
                 renumber: Renumbering, checked: bool) -> tuple[str, str, Any]:
    """The result sets both sides returned, pair by pair (`checked`: the last pair is a procedure call's return status
    and OUTPUT parameters)."""
    if not ran.result_sets and not answered.result_sets:
        return SAME, "", None
    for result_set in answered.result_sets:
        result_set.rows = [tuple(renumber.in_answer(v) for v in row) for row in result_set.rows]
    left = [Answered(a.names, a.rows) for a in ran.result_sets]
    unsent = ""
    if ran.errors and len(left) < len(answered.result_sets):
        # Both refused alike (the refusals are compared first), and SQL Server sent nothing after its error: the test
        # endpoint runs nothing of a batch after one (docs/babelfish.md), where SQL Server goes on after an error
        # that ends its statement only. The sets it did send are compared; the target's later ones cannot be.
        later = len(answered.result_sets) - len(left)
        answered.result_sets = answered.result_sets[:len(left)]
        checked = False
        unsent = f"SQL Server sent no result after its error: the target's {later} later result set(s) not compared"
    verdict, reason, comparison = judge_result_sets(left, answered, database, target, checked)
    if verdict in (SAME, SAME_UP_TO_TIES) and unsent:
        reason = "; ".join(r for r in (reason, unsent) if r)
    return verdict, reason, comparison


def _told(end: TableEnd) -> str:
    rows = (f"SQL Server holds {end.sql_server_rows:,} row(s) of it, the target {end.target_rows:,}"
            if end.sql_server_rows != end.target_rows else f"{end.differing:,} row(s) differ")
    where = f" in {', '.join(end.differing_columns[:4])}" if end.differing_columns else ""
    return f"{end.table.qualified_name}: {rows}{where}"
