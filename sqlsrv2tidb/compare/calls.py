"""Procedure calls compared: EXEC on SQL Server, the procedure runner on the target, each result set judged.

A captured class that calls a procedure the runner runs, and that changes nothing outside the
session (`procedures.catalog`: no INSERT, UPDATE, DELETE, MERGE or DDL on a table, its callees'
included), is compared like a read: SQL Server runs the class's text (`EXEC dbo.P @a = @1`, its
parameters declared in front with one value set) in a transaction it rolls back, the target gets the
same call through the runner, which sends the procedure's statements one by one. The result sets
are paired in order and each is compared as compare compares a query's answer (`answers`): ordered
by the ORDER BY of the statement that returned it, else as a multiset. A tie group a limit cuts
cannot be read whole inside a procedure: such an answer is `not comparable`, saying so. What the
procedure gives back besides its rows, its return status and OUTPUT parameters, is compared too: both
sides run the call with them selected after it (`CallPlan.checked_text`), one more result set.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from ..model import Capture, Database, QueryClass
from ..model.translation import TranslatedQuery
from ..procedures.calls import Limits, Runner, ran_too_long
from ..procedures.results import CallResult
from ..procedures.workload import CapturedCall, tsql_of
from ..replay.params import MarkerColumn
from ..replay.procedure_calls import plan_values
from ..replay.procedure_session import DriverSession
from ..replay.selection import Chosen as ReplayChosen
from .answers import compare_multiset, compare_ordered
from .classes import Compared, Left, ValueSet, value_sets
from .comparison import Comparison
from .json_answers import is_json_answer, same_document
from .runner import DIFFERS, ERROR, NOT_COMPARABLE, SAME, SAME_UP_TO_TIES, ClassResult
from .shape import moment_in, shape_of
from .sides import SQL_SERVER, TARGET, SideError, SqlServerSide, TargetSide
from .tie_groups import WholeUnread
from .values import RowShape


def choose_calls(capture: Capture, translation: Any, calls: dict[str, CapturedCall], left: Sequence[Left],
                 writes: bool = False) -> tuple[list[tuple[TranslatedQuery, QueryClass, CapturedCall]], list[Left]]:
    """Of the classes left out, those that call procedures: compared when the runner runs them and they only read,
    else left out saying why (`writes`: a call that writes stays with the others, for `writes.choose_writes`)."""
    chosen, still = [], []
    for item in left:
        call = calls.get(item.id)
        tq = translation.query(item.id)
        source = capture.workload.query(item.id)
        if call is None or tq is None or source is None or not call.procedures:
            still.append(item)  # not a procedure call (a statement sent through the runner for its table's triggers)
        elif not call.runs:
            still.append(Left(item.id, f"a procedure call the runner cannot run: {call.stops}"))
        elif not call.reads_only:
            still.append(item if writes else Left(
                item.id, f"a procedure call that changes data ({', '.join(call.writes[:3])}): compared only with "
                         "--allow-writes --confirm-database NAME"))
        else:
            chosen.append((tq, source, call))
    return chosen, still


def prepare_call(tq: TranslatedQuery, source: QueryClass, capture: Capture, call: CapturedCall, sets: int, seed: int,
                 pools: Callable[[MarkerColumn], tuple[Any, ...]]) -> Compared:
    """The call with `sets` value sets for the class's parameters (the same values on both sides)."""
    plan = plan_values(capture, ReplayChosen(tq, source, 0.0, call), pools)
    found = value_sets(plan, source, sets, seed, tq.id) if source.parameters else ()
    return Compared(tq, source.text, tuple(source.parameters), "", found or (ValueSet((), ()),),
                    plan.summary()["description"] if source.parameters else "no parameters",
                    batch=f"a call of {', '.join(call.procedures)}, run on the target by the procedure runner",
                    call=call)


def compare_call(compared: Compared, database: Database, sql_server: SqlServerSide, target: TargetSide) -> ClassResult:
    """Each value set: EXEC on SQL Server, the runner on the target, the result sets compared pair by pair."""
    started = time.perf_counter()
    result = ClassResult(compared, method="result sets")
    call: CapturedCall = compared.call
    result.extra["target_sql"] = call.plan.target_sql()
    names = [p.name for p in call.plan.batch.parameters]
    batch, tsql = (call.plan.checked, call.plan.checked_text) if call.plan.checked is not None else (call.plan.batch,
                                                                                                      compared.tsql)
    for values in compared.value_sets:
        result.sets_run += 1
        result.values = values.sql_server
        try:
            left = sql_server.all_sets(tsql, compared.parameters, values.sql_server)
        except SideError as exc:
            result.errors.append(exc)
            result.verdict, result.side, result.timed_out = ERROR, exc.side, exc.timed_out
            result.reason = f"SQL Server failed: {exc.message}"
            break
        # The whole call gets the statement timeout, as SQL Server's query timeout bounds its EXEC
        answered = Runner(DriverSession(target.conn, "pymysql"), call.plan.resolve, limits=Limits(seconds=target.timeout),
                          case_insensitive=call.plan.case_insensitive, dynamic=call.plan.dynamic).call(
            batch, list(zip(names, values.target, strict=False)))
        if answered.lost is not None or answered.errors:
            message = answered.lost.message if answered.lost else answered.errors[0].text()
            error = SideError(TARGET, message, lost=answered.lost is not None, timed_out=ran_too_long(answered))
            result.errors.append(error)
            result.verdict, result.side = ERROR, TARGET
            result.reason = f"the target failed: {message}"
            break
        result.extra["procedure_call"] = {"procedures": list(call.procedures), "statements": answered.statements,
                                          "round_trips": answered.round_trips,
                                          "result_sets": {SQL_SERVER: len(left), TARGET: len(answered.result_sets)}}
        verdict, reason, comparison = judge_result_sets(left, answered, database, target, call.plan.checked is not None)
        if verdict == DIFFERS and (moment := moment_of(call)) is not None:
            # NEWID(), RAND(), GETDATE() in the procedure (a random row, a time stamp): each server picks its own
            verdict, reason = NOT_COMPARABLE, f"{moment} gives another value on each server and each run: {reason}"
        elif verdict == DIFFERS:
            reason += noted(call)
        result.comparison = comparison
        if comparison is not None:
            result.rows = {SQL_SERVER: comparison.sql_server_rows, TARGET: comparison.target_rows}
        if verdict != SAME:
            result.verdict, result.reason = verdict, reason
            if verdict == SAME_UP_TO_TIES and comparison is not None:
                continue
            break
    if result.verdict == SAME and result.comparison is not None and result.comparison.ties:
        result.verdict, result.reason = SAME_UP_TO_TIES, "; ".join(result.comparison.ties)
    if result.verdict in (SAME, NOT_COMPARABLE, ERROR):
        result.comparison = result.comparison if result.comparison and not result.comparison.equal else None
    result.seconds = time.perf_counter() - started
    return result


def moment_of(call: CapturedCall) -> str | None:
    """A value the call (its procedures, their triggers) takes from the clock or at random, in words, or None."""
    return next((found for text in tsql_of(call.plan) if (found := moment_in(text)) is not None), None)


def noted(call: CapturedCall) -> str:
    """What the translation of the procedures the call ran said may change an answer (their `review` notes)."""
    notes = {f"{n.code} {n.message}" for program in call.plan.programs.values() for n in program.notes
             if n.status == "review"}
    return ("; the procedure's translation noted: " + "; ".join(sorted(notes)[:3])) if notes else ""


def judge_result_sets(left: list[Any], answered: CallResult, database: Database, target: TargetSide,
                      checked: bool = False) -> tuple[str, str, Comparison | None]:
    """SQL Server's result sets (`Answered`) against those the runner's call returned, pair by pair (`checked`: the
    last pair is the call's return status and OUTPUT parameters)."""
    right = answered.result_sets
    if len(left) != len(right):
        return DIFFERS, f"SQL Server returns {len(left)} result set(s), the target {len(right)}", None
    tied: Comparison | None = None
    last: Comparison | None = None
    for number, (mine, theirs) in enumerate(zip(left, right, strict=True), start=1):
        where = f"result set {number} of {len(left)} (line {theirs.line} of {theirs.procedure})"
        if checked and number == len(left):
            where = "the return status and OUTPUT parameters"
        if len(mine.names) != len(theirs.columns):
            return DIFFERS, f"{where}: SQL Server returns {len(mine.names)} column(s), the target {len(theirs.columns)}", None
        if is_json_answer(theirs.columns):
            same = same_document(mine.rows, theirs.rows)
            if same is False:
                return DIFFERS, f"{where}: the FOR JSON documents differ", None
            if same:
                continue
        description, fields = theirs.description
        shape = shape_of(theirs.tsql, database)
        rows = RowShape(target.result_columns(description, fields), database.collation, shape.numbered)
        if shape.order_positions or shape.cut:
            cut = shape.cut

            def whole() -> Any:
                raise WholeUnread("the rows of the tie group a limit cuts cannot be read whole inside a procedure")

            comparison = compare_ordered(iter([mine.rows]), iter([theirs.rows]), rows, shape.order_positions or (), cut,
                                         whole if cut else None)
        else:
            comparison = compare_multiset(iter([mine.rows]), iter([theirs.rows]), rows,
                                          lambda mine=mine, theirs=theirs: (iter([mine.rows]), iter([theirs.rows])))
        last = comparison
        if comparison.undetermined is not None:
            return NOT_COMPARABLE, f"{where}: {comparison.undetermined}", comparison
        if shape.not_comparable is not None:
            return NOT_COMPARABLE, f"{where}: {shape.not_comparable}", comparison
        if not comparison.equal:
            detail = (f"SQL Server returns {comparison.sql_server_rows:,} row(s), the target {comparison.target_rows:,}"
                      if comparison.sql_server_rows != comparison.target_rows else
                      f"{comparison.differing_rows:,} row(s) differ")
            return DIFFERS, f"{where}: {detail}", comparison
        tied = tied or (comparison if comparison.ties else None)
    if tied is not None:
        return SAME_UP_TO_TIES, "; ".join(tied.ties), tied
    return SAME, "", last
