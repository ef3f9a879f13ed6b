"""Replaying the classes that call procedures: each send is one call, run by the procedure runner.

A captured EXEC (an rpc_completed call, a batch EXEC, sp_executesql calling a procedure) has no TiDB
statement of its own: the translator notes it QY24. When the runner runs the procedure on the
target, replay sends the class through it, at its captured rate, with the captured argument values
(the class's reservoir; generated ones, or values the target holds where the procedure compares a
parameter with a column, when the capture kept none). A procedure that writes needs
`--allow-writes`, as any write does. replay.json says per class and per procedure what a call cost:
statements and round trips per call, the target's latency per call beside SQL Server's captured
duration per call, and the calls that failed (`procedure_figures`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from ..model import Capture
from ..model.translation import TranslatedQuery
from ..options import Options
from ..procedures.calls import Runner
from ..procedures.catalog import Procedures
from ..procedures.workload import CallPlan, CapturedCall, captured_call, captured_calls, parameter_uses
from . import drivers
from .params import MarkerColumn, ParameterPlan, marker_columns, plan_parameters
from .procedure_session import DriverSession

if TYPE_CHECKING:
    from .selection import Chosen

_SESSIONS: WeakKeyDictionary[drivers.Connection, DriverSession] = WeakKeyDictionary()


def calls_of(capture: Capture, options: Options | None = None) -> dict[str, CapturedCall]:
    """The captured classes the procedure runner sends: those that call procedures, and those that change a table
    whose triggers must run after them (TiDB has none: the application runs their logic, `procedures.triggers`)."""
    calls: dict[str, CapturedCall] = {}
    procedures: Procedures | None = None
    if any(q.kind == "exec" for q in capture.workload.queries):
        procedures = Procedures(capture.database, options)
        calls = captured_calls(capture.workload, procedures)
    if capture.database.modules_of("trigger"):
        procedures = procedures or Procedures(capture.database, options)
        for query in capture.workload.queries:
            if query.id in calls or query.kind not in ("insert", "update", "delete", "merge"):
                continue
            call = captured_call(query, procedures, batches=True)
            if call is not None and call.plan.triggers:
                calls[query.id] = call
    return calls


def run_call(conn: drivers.Connection, driver: str, class_id: str, plan: CallPlan, values: tuple[Any, ...],
             totals: Any) -> tuple[bool, bool]:
    """One call of a class on `conn`, counted in the worker's `totals`: (it succeeded, the connection was lost)."""
    session = _SESSIONS.get(conn)
    if session is None:
        session = _SESSIONS[conn] = DriverSession(conn, driver)
    names = [parameter.name for parameter in plan.batch.parameters]
    result = Runner(session, plan.resolve, case_insensitive=plan.case_insensitive, triggers=plan.triggers,
                    dynamic=plan.dynamic).call(
        plan.batch, list(zip(names, values, strict=False)))
    totals.call(class_id, result.statements, result.round_trips, not result.ok)
    if result.lost is not None:
        totals.error(result.lost.code or 2013, class_id, result.lost.message)
        return False, True
    for error in result.errors[:1]:
        totals.error(error.target_code or 0, class_id, error.text())
    return result.ok, False


def plan_values(capture: Capture, chosen: Chosen, pools: Callable[[MarkerColumn], tuple[Any, ...]],
                keys: Callable[[list[MarkerColumn]], frozenset[str]] | None = None) -> ParameterPlan:
    """Where each of the class's parameters gets its value: captured, except a key the procedure INSERTs, which gets
    a fresh value so no replayed call repeats it (`keys`: the key columns of the table the markers fill); else
    from the target's rows where a procedure compares it with a column; else from its declared type."""
    source = chosen.source
    parameters = tuple(p.name for p in source.parameters) if source is not None else ()
    shaped = TranslatedQuery(chosen.query.id, chosen.query.fingerprint, chosen.query.source_sql, None, "translated",
                             parameters=parameters)
    columns = _columns(chosen, parameters)
    written = keys(columns) if keys is not None and any(c.role == "insert" for c in columns) else frozenset()
    plan = plan_parameters(source, shaped, len(parameters), capture.database, None, columns, written)
    wanted = [i for i, (m, c) in enumerate(zip(plan.markers, columns, strict=True)) if m.kind == "type" and c.role == "where"]
    found = {i: values for i in wanted if (values := pools(columns[i]))}
    if not found:
        return plan
    return plan_parameters(source, shaped, len(parameters), capture.database, found, columns, written)


def _columns(chosen: Chosen, parameters: tuple[str, ...]) -> list[MarkerColumn]:
    """The column each of the class's parameters meets in the procedures it is passed to: one it is inserted into
    (a key to keep fresh), else one it is compared with (where values are found)."""
    if chosen.call is None:
        return [MarkerColumn()] * len(parameters)
    uses = parameter_uses(chosen.call.plan)
    out = []
    for name in parameters:
        met = []
        for sql, position in uses.get(name.lower(), []):
            found = marker_columns(sql)
            if position < len(found) and found[position].role in ("insert", "where"):
                met.append(found[position])
        met.sort(key=lambda c: c.role != "insert")
        out.append(met[0] if met else MarkerColumn())
    return out
