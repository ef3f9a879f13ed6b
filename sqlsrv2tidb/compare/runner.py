"""Each chosen class run on both sides with each of its parameter sets, and its verdict.

Verdicts, in the order they win: **error** (a side failed or timed out: which side, its message),
**differs** (the answers differ: the reason, the first differing rows side by side, the
translation's notes that may explain it), **not comparable** (the answers may differ on any two
runs: a value of the moment, a random value, TOP inside the query over rows that are not totally
ordered; why), **same up to ties** (the answers agree as far as the query fixes them, but not row
for row: a limit kept other tied rows, ROW_NUMBER() numbered tied rows in another order; where),
**same**. A class is compared with each parameter set in turn and stops at the first set that does
not give the same answer: that set is the one shown.

Whether an answer is ordered, and whether it can be compared at all, is decided by one function,
`shape_of`, from the T-SQL alone.

A lost session is opened again and the class run once more; a session a class breaks is that
class's error; a side that stays away is an error for the classes that find it so, and stops the
run when it stays away for several classes in a row (`sessions`, docs/compare.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model import Database
from ..model.workload import jsonable
from ..progress import NullProgress, Progress
from .answers import compare_multiset, compare_ordered
from .classes import Compared
from .comparison import Comparison
from .reopen import Reconnect, Reopened, SideDown
from .sessions import Sessions, Stopped
from .shape import Shape, shape_of
from .sides import BOTH, SQL_SERVER, TARGET, Answer, SideError, SqlServerSide, TargetSide
from .tie_groups import WholeUnread
from .values import COARSE_FLOAT_DIGITS, FLOAT_DIGITS, RowShape

SAME, SAME_UP_TO_TIES, DIFFERS, ERROR, NOT_COMPARABLE = "same", "same up to ties", "differs", "error", "not comparable"
VERDICTS = (SAME, SAME_UP_TO_TIES, DIFFERS, ERROR, NOT_COMPARABLE)
LEFT_OUT = "left out"
"""A class found at run time to be one compare cannot run (a write that would commit): listed with the left out."""


@dataclass
class ClassResult:
    compared: Compared
    verdict: str = SAME
    reason: str = ""
    side: str | None = None
    timed_out: bool = False
    method: str = ""
    total_order: bool = False
    sets_run: int = 0
    values: tuple[Any, ...] | None = None
    """The parameter set (SQL Server's, by declared parameter) of the answer shown."""
    rows: dict[str, int | None] = field(default_factory=dict)
    columns: dict[str, list[str]] = field(default_factory=dict)
    comparison: Comparison | None = None
    seconds: float = 0.0
    unreachable: bool = False
    """The error is a side that could not be reached within the reconnect bound, not the class's own."""
    retried: str | None = None
    """Why the class was run a second time (the first run lost a session), or None."""
    reopened: list[Reopened] = field(default_factory=list)
    """Sessions opened again for this class: before it ran once more, or after it broke one."""
    errors: list[SideError] = field(default_factory=list)
    """Every side error of this run of the class, in order (the sessions' keeper reads them)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """More fields of its compare.json entry (a procedure call's `procedure_call`: what the call cost)."""

    def to_json(self) -> dict[str, Any]:
        q = self.compared.query
        doc: dict[str, Any] = {
            "id": q.id, "verdict": self.verdict, "reason": self.reason, "translation_status": q.status,
            "method": self.method or None, "total_order": self.total_order, "parameter_sets": len(self.compared.value_sets),
            "sets_run": self.sets_run, "values_from": self.compared.values_from,
            "values": None if self.values is None else {p.name: jsonable(v) for p, v in
                                                        zip(self.compared.parameters, self.values, strict=False)},
            "rows": self.rows, "columns": self.columns, "seconds": round(self.seconds, 3),
            "sql_server_sql": self.compared.tsql, "target_sql": q.target_sql,
            "notes": [{"code": n.code, "message": n.message} for n in q.notes],
        }
        if self.compared.batch:
            doc["batch"] = self.compared.batch
        if self.verdict == ERROR:
            doc["side"], doc["timed_out"] = self.side, self.timed_out
            if self.unreachable:
                doc["unreachable"] = True
        if self.retried:
            doc["retried"] = self.retried
        if self.reopened:
            doc["reconnected"] = [r.to_json() for r in self.reopened]
        if self.comparison is not None and not self.comparison.equal:
            doc["differing_rows"] = self.comparison.differing_rows
            doc["first_differences"] = [p.to_json() for p in self.comparison.first]
            doc["comparison_notes"] = self.comparison.notes
            if self.comparison.same_rows:
                doc["order_only"] = True
        elif self.verdict == SAME_UP_TO_TIES and self.comparison is not None:
            doc["ties"] = self.comparison.ties
        doc.update(self.extra)
        return doc


@dataclass
class Run:
    """What a run judged, and why it stopped before the end (None when it did not)."""

    results: list[ClassResult]
    not_run: list[Compared] = field(default_factory=list)
    stopped: str | None = None
    reconnects: int = 0
    interrupted: bool = False
    """Ctrl-C stopped the run: `results` are the classes judged before it, `not_run` the rest."""


CompareOne = Callable[[Compared, Database, SqlServerSide, TargetSide], "ClassResult"]
"""How one class is run and judged on both sides (`compare_class`; a procedure call's is `calls.compare_call`)."""


def run_classes(classes: Sequence[Compared], database: Database, sql_server: SqlServerSide, target: TargetSide,
                progress: Progress | None = None, reconnect: Reconnect | None = None,
                sleep: Callable[[float], None] | None = None, compare: CompareOne | None = None) -> Run:
    """Compare every class in turn (one statement on each server at a time), with progress; a side lost on
    the way is opened again (`sessions`), and a side that stays away stops the run after the classes judged, as
    Ctrl-C does (`Run.interrupted`): the classes judged are kept for the caller to write. `compare` runs and
    judges one class (`compare_class` when not given)."""
    progress = progress or NullProgress()
    sessions = Sessions(sql_server, target, reconnect, progress.note, sleep)
    run = Run([])
    with progress.task(f"Comparing {len(classes)} query class(es) on SQL Server and {target.target.display}",
                       total=len(classes)) as task:
        for n, compared in enumerate(classes):
            try:
                result = judge(compared, database, sessions, compare or compare_class)
            except KeyboardInterrupt:
                run.stopped, run.interrupted, run.not_run = "interrupted", True, list(classes[n:])
                break
            run.results.append(result)
            task.advance()
            try:
                sessions.judged(result.unreachable)
            except Stopped as stop:
                run.stopped = f"{stop}: {result.reason}"
                run.not_run = list(classes[n + 1:])
                break
    run.reconnects = len(sessions.reopened)
    return run


def judge(compared: Compared, database: Database, sessions: Sessions, compare: CompareOne | None = None) -> ClassResult:
    """One class's verdict with its sessions kept usable: run once more on a new session after it lost one,
    its own error when it breaks the new one too (see `sessions`)."""
    compare = compare or compare_class
    down = sessions.ready()
    if down is not None:
        return _unreachable(ClassResult(compared), down)
    result = compare(compared, database, sessions.sql_server, sessions.target)
    broken = sessions.broken(result.errors) if result.errors else {}
    if broken:
        reopened = []
        for name, why in broken.items():
            try:
                reopened.append(sessions.reopen(sessions.side(name), why))
            except SideDown as down:
                result.reopened = reopened
                return _unreachable(result, down)
        first = result.reason
        result = compare(compared, database, sessions.sql_server, sessions.target)
        result.retried, result.reopened = f"the first run lost its session: {first}", reopened
    if result.errors:
        count = len(sessions.reopened)
        again, said = sessions.settle(result.errors)
        result.reopened += sessions.reopened[count:]
        if again and result.verdict == ERROR:
            result.reason += ("; it lost its session again when run once more on a new one: the class breaks it"
                              if broken else "; it left its session unusable")
        if said and result.verdict == ERROR:
            result.reason += "; " + "; ".join(said)
    return result


def _unreachable(result: ClassResult, down: SideDown) -> ClassResult:
    result.verdict, result.side, result.timed_out, result.unreachable = ERROR, down.side, False, True
    result.reason = str(down)
    return result


def compare_class(compared: Compared, database: Database, sql_server: SqlServerSide, target: TargetSide) -> ClassResult:
    started = time.perf_counter()
    result = ClassResult(compared)
    shape = shape_of(compared.tsql, database)
    result.method = "ordered" if shape.order_positions or shape.cut else "multiset"
    result.total_order = bool(shape.total_order)
    tied: Comparison | None = None
    for values in compared.value_sets:
        result.sets_run += 1
        result.values = values.sql_server
        try:
            outcome = _one_set(compared, values, shape, sql_server, target, database)
        except SideError as exc:
            result.errors.append(exc)
            _failed(result, exc, compared, values, target)
            break
        names_left, names_right, comparison = outcome
        result.columns = {SQL_SERVER: list(names_left), TARGET: list(names_right)}
        if comparison is None:
            result.verdict = DIFFERS
            result.reason = (f"SQL Server returns {len(names_left)} column(s), the target {len(names_right)}: "
                             "the translation's select list differs")
            break
        result.comparison = comparison
        result.method = comparison.method
        result.rows = {SQL_SERVER: comparison.sql_server_rows, TARGET: comparison.target_rows}
        if comparison.undetermined is not None and shape.not_comparable is None:
            result.verdict, result.reason = NOT_COMPARABLE, comparison.undetermined
            break
        if not comparison.equal and shape.not_comparable is None and comparison.doubles:
            coarse = _coarse_look(compared, values, shape, sql_server, target, database)
            if coarse is not None and coarse.equal:
                coarse.notes.append(f"doubles agree to {COARSE_FLOAT_DIGITS} significant digits, not to {FLOAT_DIGITS}: "
                                    "the two engines computed them in another order")
                result.comparison = comparison = coarse
        if not comparison.equal and shape.not_comparable is None:
            result.verdict, result.reason = DIFFERS, _why_differs(comparison, compared)
            break
        tied = tied or (comparison if comparison.ties else None)
    if result.verdict == SAME and shape.not_comparable is not None:
        result.verdict, result.reason = NOT_COMPARABLE, str(shape.not_comparable)
        if result.comparison is not None and result.comparison.equal:
            result.reason += " (the answers happened to be the same this time)"
    elif result.verdict == SAME and tied is not None:
        result.verdict, result.comparison, result.reason = SAME_UP_TO_TIES, tied, "; ".join(tied.ties)
    if result.verdict in (SAME, NOT_COMPARABLE):
        result.comparison = result.comparison if result.comparison and not result.comparison.equal else None
    result.seconds = time.perf_counter() - started
    return result


def _failed(result: ClassResult, exc: SideError, compared: Compared, values: Any, target: TargetSide) -> None:
    """An error verdict; when SQL Server failed, whether the target runs the translation says which side to fix
    (not asked when SQL Server's session was lost: the class is run again on a new one)."""
    result.verdict, result.side, result.timed_out = ERROR, exc.side, exc.timed_out
    if exc.side == TARGET:
        result.reason = f"the target failed: {exc.message}"
        return
    if exc.lost:
        result.reason = f"SQL Server failed: {exc.message}"
        return
    try:
        _drop(_target(target, compared, values))
        also = "; the target runs the translation"
    except SideError as other:
        result.errors.append(other)
        result.side, result.timed_out = BOTH, exc.timed_out or other.timed_out
        also = f"; the target fails too: {other.message}"
    result.reason = f"SQL Server failed: {exc.message}{also}"


def _one_set(compared: Compared, values: Any, shape: Shape, sql_server: SqlServerSide, target: TargetSide,
             database: Database, float_digits: int = FLOAT_DIGITS) -> tuple[Sequence[str], Sequence[str], Comparison | None]:
    left = sql_server.open(compared.tsql, compared.parameters, values.sql_server)
    right: Answer | None = None
    more: list[Answer] = []
    """Statements run again for the comparison (the whole tie group, the rows of differing buckets)."""
    try:
        right = _target(target, compared, values)
        if len(left.names) != len(right.names):
            return left.names, right.names, None
        rows = RowShape(right.columns, database.collation, shape.numbered, float_digits)
        if shape.order_positions or shape.cut:
            cut = shape.cut

            def whole() -> Any:
                assert cut is not None
                try:
                    more.append(sql_server.open(cut.whole_sql, compared.parameters, values.sql_server))
                except SideError as exc:
                    raise _unread(exc, sql_server) from None
                return _read(more[-1].batches, sql_server)

            ordered = compare_ordered(left.batches, right.batches, rows, shape.order_positions or (), cut, whole)
            ordered.doubles = rows.has_doubles
            return left.names, right.names, ordered

        def again() -> tuple[Any, Any]:
            more.append(sql_server.open(compared.tsql, compared.parameters, values.sql_server))
            more.append(_target(target, compared, values))
            return more[0].batches, more[1].batches

        unordered = compare_multiset(left.batches, right.batches, rows, again)
        unordered.doubles = rows.has_doubles
        return left.names, right.names, unordered
    finally:
        for answer in more:
            answer.close()
        left.close()
        if right is not None:
            right.close()


def _coarse_look(compared: Compared, values: Any, shape: Shape, sql_server: SqlServerSide, target: TargetSide,
                 database: Database) -> Comparison | None:
    """The answers compared again with doubles rounded to fewer digits (values.RowShape); None when a side fails."""
    try:
        return _one_set(compared, values, shape, sql_server, target, database, COARSE_FLOAT_DIGITS)[2]
    except SideError:
        return None


def _target(target: TargetSide, compared: Compared, values: Any) -> Answer:
    """The target's answer to the class, after its batch's statements when it runs with them."""
    return target.open(compared.target_sql, values.target, compared.target_setup, compared.temporary)


def _read(batches: Any, sql_server: SqlServerSide) -> Any:
    """The batches of the query without its limit, a failure while reading them told as `WholeUnread`."""
    try:
        yield from batches
    except SideError as exc:
        raise _unread(exc, sql_server) from None


def _unread(exc: SideError, sql_server: SqlServerSide) -> WholeUnread:
    """The failure of the query without its limit, the session made usable again after a timeout or a loss."""
    if exc.lost or exc.timed_out:
        sql_server.drop()  # the next class opens it again (sessions.Sessions.ready)
    return WholeUnread(exc.message)


def _drop(answer: Answer) -> None:
    answer.close()


def _why_differs(comparison: Comparison, compared: Compared) -> str:
    rows_left, rows_right = comparison.sql_server_rows, comparison.target_rows
    if rows_left != rows_right:
        text = f"SQL Server returns {rows_left:,} row(s), the target {rows_right:,}"
    elif comparison.method == "ordered" and comparison.differing_rows:
        first = comparison.first[0].position if comparison.first else None
        what = "the same rows in another order: " if comparison.same_rows else ""
        text = f"{what}{comparison.differing_rows:,} row(s) differ in value or place" + (
            f", the first at row {first + 1}" if first is not None else "")
    else:
        text = f"{comparison.differing_rows:,} row(s) differ" if comparison.differing_rows else "the rows differ"
    notes = compared.query.notes
    if notes:
        text += "; the translation noted: " + "; ".join(f"{n.code} {n.message}" for n in notes[:3])
    elif compared.query.status == "translated":
        text += "; the translation noted nothing: a difference the translator does not know"
    return text
