"""The captured classes that call a procedure, each made a call the runner can send.

An application calls a procedure as an RPC (`exec dbo.P @a=@1` in an rpc_completed event, its
arguments the class's parameters with a reservoir of each call's values), in a batch (`EXEC dbo.P
5`), or through sp_executesql (`EXEC dbo.P @a` with `@a int` declared). Whatever the form, the
class's text is run as a batch of its own, its parameters bound to the captured values, and every
EXEC in it runs the procedure's program. A `CallPlan` carries that batch with the programs of every
procedure it can reach, as plain data, so replay's worker processes run calls without the schema.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from ..model import QueryClass, Workload
from ..translate.session import SentStatement
from . import program as p
from .affected import ChangePlan
from .catalog import Procedures, is_system, name_key
from .compiler import children, compile_batch
from .dynamic import DynamicSql
from .expressions import Var
from .header import Blocker
from .triggers import Trigger, trigger_key


@dataclass(frozen=True)
class CallPlan:
    """A captured class's batch and the programs of the procedures it can reach, keyed as `catalog.name_key` reads a name."""

    batch: p.Program
    programs: dict[tuple[str | None, str], p.Program] = field(default_factory=dict)
    by_name: dict[str, tuple[tuple[str | None, str], ...]] = field(default_factory=dict)
    case_insensitive: bool = True
    """Text compares without case (the database's collation is case-insensitive, SQL Server's default)."""
    aliases: dict[tuple[str | None, str], tuple[str | None, str]] = field(default_factory=dict)
    """Names calls give that are not the procedure's own (a synonym, another schema's spelling) -> its key."""
    triggers: dict[str, tuple[Trigger, ...]] = field(default_factory=dict)
    """The triggers of every table the programs may change (`triggers.trigger_key`), their own writes' included:
    the runner runs them after the statements that fire them."""
    dynamic: DynamicSql | None = None
    """What translates SQL the procedures build at run time; None when none of them does."""
    checked: p.Program | None = None
    """The batch with the call's return status and OUTPUT parameters selected after it (`checked_text`), which compare
    runs on both sides; None when the batch is not one EXEC of a procedure."""
    checked_text: str | None = None

    def target_sql(self) -> str:
        """Every TiDB statement the procedures may send, each once, in the order of the programs (for the files)."""
        seen = dict.fromkeys(s.sql for program in self.programs.values() for s in statements_of(program))
        return ";\n".join(seen)

    def resolve(self, name: str) -> p.Program | None:
        schema, bare = name_key(name)
        if (schema, bare) in self.aliases:
            return self.programs.get(self.aliases[(schema, bare)])
        if schema is not None:
            return self.programs.get((schema, bare))
        keys = self.by_name.get(bare, ())
        if len(keys) == 1:
            return self.programs[keys[0]]
        return self.programs.get(("dbo", bare))


@dataclass(frozen=True)
class CapturedCall:
    """A class that calls one or more procedures, and whether the runner runs it."""

    query_id: str
    procedures: tuple[str, ...]
    """The procedures its text EXECs, as the schema names them (as written when the schema has none)."""
    runs: bool
    stops: str
    """Why it cannot run (empty when it runs)."""
    writes: tuple[str, ...]
    plan: CallPlan

    @property
    def reads_only(self) -> bool:
        return not self.writes


_EXEC = re.compile(r"\bEXEC(?:UTE)?\b", re.IGNORECASE)


def captured_calls(workload: Workload, procedures: Procedures) -> dict[str, CapturedCall]:
    """Every class whose text EXECs a procedure, by class id."""
    found: dict[str, CapturedCall] = {}
    for query in workload.queries:
        if query.kind != "exec" and not _EXEC.search(query.text):
            continue
        call = captured_call(query, procedures)
        if call is not None:
            found[query.id] = call
    return found


def captured_call(query: QueryClass, procedures: Procedures, batches: bool = False) -> CapturedCall | None:
    """The class as a call of procedures, or None when its text EXECs none (literal SQL is the translator's);
    `batches`: any class, as a batch the runner runs (compare's writes run every one so)."""
    batch = compile_batch(query.text, query.parameters, procedures.database, procedures.names, procedures.options,
                          name=f"query {query.id}", file=query.source.file, first_line=query.source.line or 1,
                          wrapper=True)
    if not batch.calls and not batches:
        return None
    blockers: list[str] = [_said(batch, b) for b in batch.blockers]
    writes = list(batch.writes)
    named: list[str] = []
    for called in batch.calls:
        summary = procedures.summary(called)
        if summary is None:
            if not is_system(called):
                blockers.append(f"EXEC {called}: the schema has no such procedure")
            else:
                blockers.append(f"EXEC {called}: a system procedure, which the runner does not run")
            named.append(called)
            continue
        named.append(summary.name)
        if not summary.runs:
            blockers.append(f"{summary.name} cannot run: {summary.stops()}")
        writes += [f"{w} ({summary.name})" if summary.name not in w else w for w in summary.writes]
    plan = plan_of(batch, procedures)
    for triggers in plan.triggers.values():
        for trigger in triggers:
            if not trigger.runs and not trigger.disabled:
                first = trigger.blockers[0]
                blockers.append(f"it fires the trigger {trigger.name}, which cannot run: {first.construct} at "
                                f"{trigger.program.where(first.line)}: {first.message}")
            writes += [f"{w.rsplit(' (line', 1)[0]} (trigger {trigger.name})" for w in trigger.program.writes]
    checked_text = with_outputs(query.text) if len(batch.calls) == 1 else None
    if checked_text is not None:
        checked = compile_batch(checked_text, query.parameters, procedures.database, procedures.names, procedures.options,
                                name=f"query {query.id}", file=query.source.file, first_line=query.source.line or 1,
                                wrapper=True)
        if not checked.blockers:
            plan = replace(plan, checked=checked, checked_text=checked_text)
    return CapturedCall(query.id, tuple(dict.fromkeys(named)), not blockers, "; ".join(dict.fromkeys(blockers)),
                        tuple(dict.fromkeys(writes)), plan)


STATUS = "call_return_status"
"""The variable a checked call's return status goes into (a name outside the runner's own, `sqlsrv2tidb_`)."""
_ONE_EXEC = re.compile(r"^(?P<before>(?:\s*DECLARE\b[^;]*;)*\s*)EXEC(?:UTE)?\s+(?P<status>@\w+\s*=\s*)?"
                       r"(?P<call>(?!\()[^;]*?);?\s*$", re.IGNORECASE | re.DOTALL)
_OUTPUT = re.compile(r"(@\w+)\s+OUT(?:PUT)?\b", re.IGNORECASE)


def with_outputs(text: str) -> str | None:
    """`EXEC dbo.P @a = @1, @b = @o OUTPUT` -> the same call with its return status kept, then `SELECT @status AS
    [return status], @o AS [@o]`: one more result set, which both sides answer alike, so compare compares what a
    procedure gives back besides its rows. None for a batch that is not one EXEC (nothing else after DECLAREs)."""
    m = _ONE_EXEC.match(text)
    if m is None or re.search(r"\bEXEC(?:UTE)?\b", m["call"], re.IGNORECASE):
        return None
    status = m["status"].split("=")[0].strip() if m["status"] else "@" + STATUS
    declare = "" if m["status"] else f"DECLARE @{STATUS} int; "
    outputs = list(dict.fromkeys(v for v in _OUTPUT.findall(m["call"])))
    selected = ", ".join([f"{status} AS [return status]", *(f"{v} AS [{v}]" for v in outputs)])
    return f"{m['before']}{declare}EXEC {status} = {m['call'].strip()}; SELECT {selected}"


def _said(program: p.Program, blocker: Blocker) -> str:
    return f"{blocker.construct} at {program.where(blocker.line)}: {blocker.message}"


def plan_of(batch: p.Program, procedures: Procedures) -> CallPlan:
    """The batch with every program it can reach through EXEC (each procedure once)."""
    programs: dict[tuple[str | None, str], p.Program] = {}
    aliases: dict[tuple[str | None, str], tuple[str | None, str]] = {}
    pending = list(batch.calls)
    while pending:
        name = pending.pop()
        module = procedures.module(name)
        if module is None:
            continue
        key = ((module.schema or "dbo").casefold(), module.name.casefold())
        if name_key(name) != key and name_key(name)[0] is not None:
            aliases[name_key(name)] = key
        elif name_key(name)[0] is None and module.name.casefold() != name_key(name)[1]:
            aliases[name_key(name)] = key
        if key in programs:
            continue
        program = procedures.program(name)
        if program is None:
            continue
        programs[key] = program
        pending.extend(program.calls)
    by_name: dict[str, list[tuple[str | None, str]]] = {}
    for key in programs:
        by_name.setdefault(key[1], []).append(key)
    collation = (procedures.database.collation or "").lower()
    dynamic = procedures.dynamic if any(_dynamic(program) for program in (batch, *programs.values())) else None
    return CallPlan(batch, programs, {name: tuple(keys) for name, keys in by_name.items()},
                    "_cs_" not in collation and not collation.endswith("_bin") and "_bin2" not in collation, aliases,
                    _triggers_of([batch, *programs.values()], procedures), dynamic)


def _triggers_of(programs: list[p.Program], procedures: Procedures) -> dict[str, tuple[Trigger, ...]]:
    """The triggers of every table the programs change, and of every table those triggers change in turn."""
    found: dict[str, tuple[Trigger, ...]] = {}
    pending = [step.changes.table.qualified_name for program in programs for step in _walk(program.body)
               if isinstance(step, p.Run) and step.changes is not None]
    while pending:
        table = pending.pop()
        key = trigger_key(table)
        if key in found:
            continue
        found[key] = procedures.triggers_on(table)
        for trigger in found[key]:
            pending += [step.changes.table.qualified_name for step in _walk(trigger.program.body)
                        if isinstance(step, p.Run) and step.changes is not None]
    return {key: triggers for key, triggers in found.items() if triggers}


def _dynamic(program: p.Program) -> bool:
    return any(isinstance(step, p.DynamicText) for step in _walk(program.body))


def statements_of(program: p.Program) -> Iterator[SentStatement]:
    """Every TiDB statement a program may send, its values' statements included."""
    stack = [program.body]
    while stack:
        step = stack.pop()
        stack.extend(children(step))
        stack.extend(getattr(step, "fills", ()) or ())
        for name in ("statements", "insert", "declare", "clear"):
            found = getattr(step, name, ()) or ()
            yield from (found,) if isinstance(found, SentStatement) else found
        for value in _values(step):
            yield from value.remote


def _values(step: p.Step) -> Iterator[p.Value]:
    for name in ("condition", "value", "offset", "source", "path"):
        value = getattr(step, name, None)
        if isinstance(value, p.Value):
            yield value
    if isinstance(step, p.Declare):
        yield from (v for _, _, v in step.variables if v is not None)
    if isinstance(step, p.Assign):
        yield from (v for _, v in step.targets)
    if isinstance(step, (p.Raise,)):
        yield from step.arguments
    if isinstance(step, (p.Call, p.CallText)):
        yield from (a.value for a in step.arguments if a.value is not None)


def parameter_uses(plan: CallPlan) -> dict[str, list[tuple[str, int]]]:
    """For each parameter of the captured class (lower case, with `@`), the statements that use it, each with the
    position of its marker: the batch's own, and those of the procedures it is passed to (where a value can be looked
    for, or a key it inserts must be kept fresh)."""
    uses: dict[str, list[tuple[str, int]]] = {}
    own = {param.name.lower() for param in plan.batch.parameters}
    for statement in statements_of(plan.batch):  # the batch's own statements (a captured INSERT, UPDATE, ...)
        for position, bound in enumerate(statement.parameters):
            if bound.lower() in own:
                uses.setdefault(bound.lower(), []).append((statement.sql, position))
    for step in _walk(plan.batch.body):
        if not isinstance(step, p.Call):
            continue
        callee = plan.resolve(step.procedure)
        if callee is None:
            continue
        positional = [a for a in step.arguments if a.name is None]
        for argument in step.arguments:
            local = argument.value.local if argument.value is not None else None
            if not isinstance(local, Var):
                continue
            name = local.name
            if argument.name is not None:
                target = argument.name.lower()
            else:
                index = positional.index(argument)
                if index >= len(callee.parameters):
                    continue
                target = callee.parameters[index].name.lower()
            for statement in statements_of(callee):
                for position, bound in enumerate(statement.parameters):
                    if bound.lower() == target:
                        uses.setdefault("@" + name, []).append((statement.sql, position))
    return uses


def _walk(step: p.Step) -> Iterator[p.Step]:
    yield step
    for child in children(step):
        yield from _walk(child)


def change_plans(plan: CallPlan) -> list[ChangePlan]:
    """How each statement that may change a table, in the batch, every program it can reach and every trigger they
    fire, reads its rows."""
    found: list[ChangePlan] = []
    triggers = [t.program for ts in plan.triggers.values() for t in ts]
    for program in (plan.batch, *plan.programs.values(), *triggers):
        for step in _walk(program.body):
            if isinstance(step, p.Run) and step.changes is not None:
                found.append(step.changes)
    return found


def own_change_plans(plan: CallPlan) -> list[ChangePlan]:
    """The change plans of the captured batch's own statements (not its procedures'): SQL Server can be asked the
    same reads, with the class's parameters."""
    return [step.changes for step in _walk(plan.batch.body) if isinstance(step, p.Run) and step.changes is not None]


def tsql_of(plan: CallPlan) -> Iterator[str]:
    """The T-SQL of every statement and value the batch, its procedures and their triggers may run."""
    triggers = [t.program for ts in plan.triggers.values() for t in ts]
    for program in (plan.batch, *plan.programs.values(), *triggers):
        for step in _walk(program.body):
            text = getattr(step, "tsql", None)
            if isinstance(text, str):
                yield text
            for value in _values(step):
                yield f"SELECT {value.text}"
