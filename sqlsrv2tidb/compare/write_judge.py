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

import time
from collections.abc import Sequence
from typing import Any

from ..model import Database
from ..procedures.affected import TableKey
from ..procedures.results import CallResult
from ..procedures.workload import CapturedCall, change_plans, own_change_plans
from .calls import judge_result_sets, noted
from .classes import Compared
from .end_state import Renumbering, TableEnd, TableRead, compare_table
from .error_kinds import WriteError, target_error
from .runner import DIFFERS, ERROR, LEFT_OUT, NOT_COMPARABLE, SAME, SAME_UP_TO_TIES, ClassResult
from .sides import SQL_SERVER, TARGET, Answered, SideError, SqlServerSide, TargetSide
from .write_sides import SqlServerRun, SqlServerWrites, TargetWrites


def compare_write(compared: Compared, database: Database, sql_server: SqlServerSide, target: TargetSide) -> ClassResult:
    started = time.perf_counter()
    result = ClassResult(compared, method="effect on the rows")
    call: CapturedCall = compared.call
    result.extra["statement_kind"] = compared.query.kind
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
        if verdict != SAME:
            result.verdict, result.reason = verdict, reason
            if verdict == DIFFERS:
                result.reason += noted(call) or _translated(compared)
            if verdict != SAME_UP_TO_TIES:
                break
    result.seconds = time.perf_counter() - started
    return result


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
        if answered.left_out is not None:
            return LEFT_OUT, f"it cannot run in a transaction that is rolled back: {answered.left_out}"
        s_side.begin()
        began = True
        s_marks = s_side.identity_marks(tables)
        keys = s_side.keys(own_change_plans(call.plan), compared.parameters, values)
        ran = s_side.run(compared.tsql, compared.parameters, values)
        touched = _touched(answered, keys, tables, s_marks, t_marks)
        reads = [_read(table, found, s_side, t_side, target, s_marks, t_marks) for table, found in touched]
    finally:
        _rollback(t_side, s_side if began else None)
    renumber = Renumbering(database, s_marks, t_marks)
    ends = [compare_table(read, database, renumber) for read in reads]
    result.extra["end_state"] = [end.to_json() for end in ends]
    t_errors = [target_error(e.number, e.message, e.target_code) for e in answered.errors]
    result.extra["refused"] = {SQL_SERVER: [e.said() for e in ran.errors], TARGET: [e.said() for e in t_errors]}
    counts = _counts(call, ran, answered)
    if counts is not None:
        result.extra["rows_affected"] = {SQL_SERVER: counts[0], TARGET: counts[1]}
    result.rows = {SQL_SERVER: sum(e.sql_server_rows for e in ends), TARGET: sum(e.target_rows for e in ends)}
    refused = _refused(ran.errors, t_errors)
    if refused is not None:
        return DIFFERS, refused
    if counts is not None and counts[0] != counts[1]:
        return DIFFERS, (f"rows affected differ: SQL Server reports {_listed(counts[0])}, the target "
                         f"{_listed(counts[1])}")
    verdict, reason, comparison = _result_sets(ran, answered, database, target, renumber)
    result.comparison = comparison if comparison is not None and not comparison.equal else None
    if verdict not in (SAME, SAME_UP_TO_TIES):
        return verdict, reason
    differing = [end for end in ends if not end.equal]
    if differing:
        return DIFFERS, "the rows it leaves differ: " + "; ".join(_told(end) for end in differing[:3])
    both = [e.kind for e in ran.errors]
    if both:
        return SAME, f"both refuse it ({', '.join(dict.fromkeys(both))})"
    return verdict, reason


def _unique(tables: Any) -> list[TableKey]:
    return list({t.qualified_name: t for t in tables}.values())


def _touched(answered: CallResult, keys: dict[str, list[tuple[Any, ...]]], tables: list[TableKey],
             s_marks: dict[str, int], t_marks: dict[str, int]) -> list[tuple[TableKey, list[tuple[Any, ...]]]]:
    """Every table the call touched on either side (or may have added IDENTITY rows to), with the keys to read."""
    found: dict[str, tuple[TableKey, list[tuple[Any, ...]]]] = {}
    for change in answered.changes:
        if change.plan.unknown is None:
            found.setdefault(change.table.qualified_name, (change.table, []))[1].extend(change.keys)
    for table in tables:
        if table.qualified_name in keys:
            found.setdefault(table.qualified_name, (table, []))[1].extend(keys[table.qualified_name])
        elif table.identity is not None and (table.qualified_name in s_marks or table.qualified_name in t_marks):
            found.setdefault(table.qualified_name, (table, []))
    return list(found.values())


def _read(table: TableKey, keys: list[tuple[Any, ...]], s_side: SqlServerWrites, t_side: TargetWrites,
          target: TargetSide, s_marks: dict[str, int], t_marks: dict[str, int]) -> TableRead:
    name = table.qualified_name
    left = s_side.read(table, keys, s_marks.get(name) if name in t_marks else None)
    right, description = t_side.read(table, keys, t_marks.get(name) if name in s_marks else None)
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
                 renumber: Renumbering) -> tuple[str, str, Any]:
    if not ran.result_sets and not answered.result_sets:
        return SAME, "", None
    for result_set in answered.result_sets:
        result_set.rows = [tuple(renumber.in_answer(v) for v in row) for row in result_set.rows]
    left = [Answered(a.names, a.rows) for a in ran.result_sets]
    verdict, reason, comparison = judge_result_sets(left, answered, database, target)
    if verdict == NOT_COMPARABLE:
        return NOT_COMPARABLE, reason, comparison
    return verdict, reason, comparison


def _told(end: TableEnd) -> str:
    rows = (f"SQL Server holds {end.sql_server_rows:,} row(s) of it, the target {end.target_rows:,}"
            if end.sql_server_rows != end.target_rows else f"{end.differing:,} row(s) differ")
    return f"{end.table.qualified_name}: {rows}"
