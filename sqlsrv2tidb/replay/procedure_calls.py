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
from ..procedures.workload import CallPlan, CapturedCall, captured_calls, parameter_uses
from . import drivers
from .params import MarkerColumn, ParameterPlan, marker_columns, plan_parameters
from .procedure_session import DriverSession

if TYPE_CHECKING:
    from .selection import Chosen

_SESSIONS: WeakKeyDictionary[drivers.Connection, DriverSession] = WeakKeyDictionary()


def calls_of(capture: Capture, options: Options | None = None) -> dict[str, CapturedCall]:
    """The captured classes that call procedures (none when the workload holds no EXEC)."""
    if not any(q.kind == "exec" for q in capture.workload.queries):
        return {}
    return captured_calls(capture.workload, Procedures(capture.database, options))


def run_call(conn: drivers.Connection, driver: str, class_id: str, plan: CallPlan, values: tuple[Any, ...],
             totals: Any) -> tuple[bool, bool]:
    """One call of a class on `conn`, counted in the worker's `totals`: (it succeeded, the connection was lost)."""
    session = _SESSIONS.get(conn)
    if session is None:
        session = _SESSIONS[conn] = DriverSession(conn, driver)
    names = [parameter.name for parameter in plan.batch.parameters]
    result = Runner(session, plan.resolve).call(plan.batch, list(zip(names, values, strict=False)))
    totals.call(class_id, result.statements, result.round_trips, not result.ok)
    if result.lost is not None:
        totals.error(result.lost.code or 2013, class_id, result.lost.message)
        return False, True
    for error in result.errors[:1]:
        totals.error(error.target_code or 0, class_id, error.text())
    return result.ok, False


def plan_values(capture: Capture, chosen: Chosen, pools: Callable[[MarkerColumn], tuple[Any, ...]]) -> ParameterPlan:
    """Where each of the class's parameters gets its value: captured, else from the target's rows where a
    procedure compares it with a column, else from its declared type."""
    source = chosen.source
    parameters = tuple(p.name for p in source.parameters) if source is not None else ()
    shaped = TranslatedQuery(chosen.query.id, chosen.query.fingerprint, chosen.query.source_sql, None, "translated",
                             parameters=parameters)
    plan = plan_parameters(source, shaped, len(parameters), capture.database, None, [MarkerColumn()] * len(parameters))
    if chosen.call is None or all(m.kind != "type" for m in plan.markers):
        return plan
    uses = parameter_uses(chosen.call.plan)
    found: dict[int, tuple[Any, ...]] = {}
    for index, name in enumerate(parameters):
        for sql, position in uses.get(name.lower(), []):
            columns = marker_columns(sql)
            column = columns[position] if position < len(columns) else MarkerColumn()
            if column.role == "where" and (values := pools(column)):
                found[index] = values
                break
    if not found:
        return plan
    return plan_parameters(source, shaped, len(parameters), capture.database, found, [MarkerColumn()] * len(parameters))
