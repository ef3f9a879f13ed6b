"""One call of a procedure, run on the target as the application will run it: statement by statement, one connection.

The runner walks the program's steps. Variables stay on the client and are bound to each statement
that names them; what the client can work out (`expressions`) costs no round trip. The procedure's
transaction is the target's (BEGIN, COMMIT, ROLLBACK, SAVEPOINT on the connection, @@TRANCOUNT
counted here as SQL Server nests it). Errors follow T-SQL: inside TRY (of this procedure or of a
caller) an error goes to the nearest CATCH; outside, a statement's error reaches the caller and the
procedure goes on with @@ERROR set, unless XACT_ABORT is ON (the call ends and the transaction is
rolled back); THROW and RAISERROR of severity 20 and more end the call; RAISERROR of severity 11 to
19 is an error the caller sees, and the procedure goes on.

Bounded: a WHILE that turns more than `Limits.loop_iterations` times, a call deeper than
`Limits.depth` procedures or longer than `Limits.statements` statements stops with an error.
https://learn.microsoft.com/sql/t-sql/language-elements/try-catch-transact-sql
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from . import json_rows
from . import program as p
from .changes import run_changing
from .cursors import cursor_step
from .dynamic import DynamicSql
from .failures import TsqlError, WouldCommit
from .firing import begin_for_triggers, fire, firing
from .for_json import as_json
from .history import keep_history
from .output import description_of, output_rows
from .raising import raise_step, text_of
from .results import CallResult, ResultSet
from .sending import Lost, Sender
from .session import Outcome, TargetSession
from .state import CallState, Frame
from .table_rows import fill_table, insert_rows
from .transactions import CALL_SAVEPOINT, ROLLED_BACK_TRANCOUNT, atomic, implicit_begin, transaction
from .triggers import Trigger
from .values import assign

Resolve = Callable[[str], "p.Program | None"]
"""The program of a procedure a call names (`dbo.P`, `P`, `[dbo].[P]`), None when the schema has none."""


@dataclass(frozen=True)
class Limits:
    loop_iterations: int = 100_000
    depth: int = 32
    """SQL Server's own limit of nested procedure calls."""
    statements: int = 1_000_000
    seconds: float | None = None
    """How long a call may run (compare's statement timeout, as SQL Server's query timeout bounds its EXEC); None:
    no bound but the others."""


_TOO_LONG = "the call ran longer than"


def ran_too_long(result: CallResult) -> bool:
    """Whether the call was stopped at `Limits.seconds` (a timeout, not an error of its statements)."""
    return any(e.message.startswith(_TOO_LONG) for e in result.errors)


class _Return(Exception):
    def __init__(self, value: int | None) -> None:
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Abort(Exception):
    """The call ends here (a THROW outside TRY, an error under XACT_ABORT)."""


_ENDS_BATCH = frozenset({137, 241, 245, 8114, 8115, 8134, 3609})
"""Errors that end the batch in SQL Server, not only their statement (with ARITHABORT ON, clients' default): an
undeclared variable, a failed conversion, an arithmetic overflow, a division by zero."""
_CREATED = re.compile(r"^\s*CREATE\s+TEMPORARY\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(`[^`]+`|\S+)", re.IGNORECASE)
_MERGE = re.compile(r"^\s*(?:WITH\b.*?\)\s*)?MERGE\b", re.IGNORECASE | re.DOTALL)
_DML = re.compile(r"^\s*(?:WITH\b.*?\)\s*)?(INSERT|UPDATE|DELETE|MERGE)\b", re.IGNORECASE | re.DOTALL)


class Runner:
    """Runs calls of programs on one target session; `resolve` finds the programs of procedures they call."""

    def __init__(self, session: TargetSession, resolve: Resolve, limits: Limits | None = None,
                 case_insensitive: bool = True, changes: bool = False,
                 triggers: Mapping[str, tuple[Trigger, ...]] | None = None, dynamic: DynamicSql | None = None) -> None:
        self.session, self.resolve, self.dynamic = session, resolve, dynamic
        self.limits = limits or Limits()
        self.sender = Sender(session, case_insensitive)
        self.changes = changes
        """Read the rows each statement that changes a table changes (`affected`), into `CallResult.changes`."""
        self.triggers = triggers or {}
        """The tables' AFTER triggers (`triggers`), run after the statements that fire them (`firing`)."""

    def call(self, program: p.Program, arguments: Sequence[p.Argument | tuple[str | None, Any]] = (),
             enclosing: bool = False, rolled_back: bool = False) -> CallResult:
        """Run `program` once with `arguments`: (`@name` or None for the next position, value) pairs.

        `enclosing`: the caller holds a transaction the call runs in (BEGIN is sent first, @@TRANCOUNT starts at 1, and
        the caller ends it): a procedure's COMMIT then commits nothing, its ROLLBACK rolls all of it back, as in SQL Server.
        `rolled_back`: the caller rolls the call back (compare's writes, `transactions`): BEGIN and a savepoint are sent
        first, nothing the call does commits, and the transaction is left open for the caller to read and end; a call
        that would commit stops there with `CallResult.left_out` saying why."""
        result = CallResult(program.name)
        state = CallState(result)
        if self.limits.seconds is not None:
            state.deadline = time.monotonic() + self.limits.seconds
        if rolled_back:
            self.session.execute("BEGIN", ())
            self.session.execute(f"SAVEPOINT `{CALL_SAVEPOINT}`", ())
            state.trancount, state.enclosing, state.rolled_back = ROLLED_BACK_TRANCOUNT, True, True
        elif enclosing:
            self.session.execute("BEGIN", ())
            state.trancount, state.enclosing = 1, True
        given = [(a[0], a[1]) if isinstance(a, tuple) else (a.name, a.value) for a in arguments]
        try:
            status, frame = self._run_program(state, program, given, level=1)
            result.return_status = status
            result.output = {param.name: frame.variables.get(param.name.lstrip("@").lower())
                             for param in program.parameters if param.output}
        except _Abort:
            result.aborted = True
        except Lost as lost:
            result.lost, result.aborted = lost.failure, True
            return result
        except TsqlError as error:  # raised where no TRY was left to take it
            state.to_client(error)
            result.aborted = True
        except WouldCommit as stop:
            result.left_out, result.aborted = str(stop), True
            return result
        self._end(state)
        return result

    # -- calls ---------------------------------------------------------------------------------------------

    def _run_program(self, state: CallState, program: p.Program, given: list[tuple[str | None, Any]],
                     level: int) -> tuple[int | None, Frame]:
        if level > self.limits.depth:
            raise TsqlError(217, f"Maximum stored procedure nesting level exceeded (limit {self.limits.depth}).")
        if program.blockers:
            first = program.blockers[0]
            raise TsqlError(50000, f"{program.name} cannot run on the target: {first.construct} at "
                                   f"{program.where(first.line)}: {first.message}", 16)
        frame = Frame(program, types=dict(program.variables), level=level)
        self._bind(state, frame, program, given)
        state.frames.append(frame)
        options = (state.nocount, state.xact_abort, state.row_limit)
        try:
            self._step(state, frame, program.body)
            status: int | None = 0
        except _Return as returned:
            status = 0 if returned.value is None else returned.value
        finally:
            state.frames.pop()
            if level > 1:  # SET options a procedure or trigger sets go back to the caller's when it ends
                state.nocount, state.xact_abort, state.row_limit = options
            self._drop(state, frame.temp_tables)
        return status, frame

    def _bind(self, state: CallState, frame: Frame, program: p.Program, given: list[tuple[str | None, Any]]) -> None:
        parameters = program.parameters
        by_name = {param.name.lower(): param for param in parameters}
        values: dict[str, Any] = {}
        position = 0
        for name, value in given:
            if name is None:
                if position >= len(parameters):
                    raise TsqlError(8144, f"Procedure or function {program.name} has too many arguments specified.")
                param = parameters[position]
                position += 1
            else:
                found = by_name.get(name.lower() if name.startswith("@") else "@" + name.lower())
                if found is None:
                    raise TsqlError(8145, f"{name} is not a parameter for procedure {program.name}.")
                param = found
            values[param.name.lower()] = value
        for param in parameters:
            key = param.name.lower()
            if param.table is not None:
                rows = values.get(key)
                self._table_parameter(state, frame, param, [] if rows is None or rows is _DEFAULT else rows)
                continue
            if key in values and values[key] is not _DEFAULT:
                value = values[key]
            elif param.has_default:
                value = self.sender.value(state, frame, param.default) if param.default else None
            elif param.output and key in values:
                value = None
            else:
                raise TsqlError(201, f"Procedure or function '{program.name}' expects parameter '{param.name}', which was "
                                     "not supplied.")
            frame.variables[key.lstrip("@")] = assign(value, param.type)

    def _table_parameter(self, state: CallState, frame: Frame, param: p.Parameter, rows: Any) -> None:
        """The rows a caller passes a table-valued parameter (a sequence of rows, each a sequence of the type's columns
        but its identity), sent into its temporary table."""
        assert param.table is not None
        if isinstance(rows, (str, bytes)) or not all(isinstance(r, (list, tuple)) and len(r) == param.table.columns
                                                     for r in rows):
            raise TsqlError(206, f"Operand type clash: the value given for {param.name} is not rows of "
                                 f"{param.table.columns} column(s) of {param.type}.")
        fill_table(self.sender, state, frame, param.table.declare, (), param.table.insert, [tuple(r) for r in rows])

    def _call(self, state: CallState, frame: Frame, step: p.Call | p.CallText | p.DynamicText) -> None:
        if isinstance(step, p.Call):
            callee = self.resolve(step.procedure)
            if callee is None:
                raise TsqlError(2812, f"Could not find stored procedure '{step.procedure}'.", 16)
        elif isinstance(step, p.DynamicText):
            text = self.sender.value(state, frame, step.text)
            if text is None:
                return  # EXEC (NULL) and sp_executesql NULL run nothing
            if self.dynamic is None:
                raise TsqlError(50000, "SQL built at run time reached a runner that has no schema to translate it with",
                                16)
            declarations = self.sender.value(state, frame, step.declarations) if step.declarations else None
            callee = self.dynamic.program(str(text), None if declarations is None else str(declarations))
        else:
            callee = step.program
        given: list[tuple[str | None, Any]] = []
        for argument in step.arguments:
            if argument.rows:
                value = self.sender.send_all(state, frame, argument.rows).rows
            else:
                value = _DEFAULT if argument.value is None else self.sender.value(state, frame, argument.value)
            given.append((argument.name, value))
        status, inner = self._run_program(state, callee, given, frame.level + 1)
        for argument in step.arguments:
            if argument.output is None:
                continue
            param = _parameter_for(callee, step.arguments, argument)
            if param is not None and param.output:
                frame.variables[argument.output] = assign(inner.variables.get(param.name.lstrip("@").lower()),
                                                          frame.types.get(argument.output))
        if isinstance(step, p.Call) and step.status is not None:
            frame.variables[step.status] = assign(status, frame.types.get(step.status))

    def _call_function(self, state: CallState, frame: Frame, step: p.CallFunction) -> None:
        callee = self.resolve(step.function)
        if callee is None:
            raise TsqlError(4121, f"Cannot find either column \"{step.function.split('.')[0]}\" or the user-defined function "
                                  f"or aggregate \"{step.function}\", or the name is ambiguous.", 16)
        given = [(a.name, _DEFAULT if a.value is None else self.sender.value(state, frame, a.value)) for a in step.arguments]
        value, _ = self._run_program(state, callee, given, frame.level + 1)
        self._set(frame, step.target, value)
        state.rowcount = 1

    # -- steps ---------------------------------------------------------------------------------------------

    def _count(self, state: CallState) -> None:
        if state.frames and state.frames[-1].program.wrapper:
            return  # the application's own call around the procedures
        state.result.statements += 1
        if state.result.statements > self.limits.statements:
            raise TsqlError(50000, f"the call ran more than {self.limits.statements:,} statements: stopped (the runner "
                                   "bounds a call)", 20)
        if state.deadline is not None and time.monotonic() > state.deadline:
            raise TsqlError(50000, f"{_TOO_LONG} {self.limits.seconds:g} s: stopped (the runner bounds a "
                                   "call)", 20)

    def _step(self, state: CallState, frame: Frame, step: p.Step) -> None:
        if isinstance(step, p.Steps):
            for inner in step.steps:
                self._step(state, frame, inner)
            return
        if isinstance(step, p.TryStep):
            self._try(state, frame, step)
            return
        if isinstance(step, p.AtomicStep):
            atomic(self.sender, state, step.line, lambda: self._step(state, frame, step.body))
            return
        self._count(state)
        try:
            self._statement(state, frame, step)
        except TsqlError as error:
            if error.line is None:
                error.line = step.line
            if error.procedure is None:
                error.procedure = frame.program.name
            self._fail(state, error)

    def _try(self, state: CallState, frame: Frame, step: p.TryStep) -> None:
        caught: TsqlError | None = None
        state.try_depth += 1
        try:
            self._step(state, frame, step.body)
        except TsqlError as error:
            caught = error
        finally:
            state.try_depth -= 1
        if caught is None:
            return
        state.handling.append(caught)
        try:
            self._step(state, frame, step.catch)
        finally:
            state.handling.pop()

    def _fail(self, state: CallState, error: TsqlError, aborts: bool = False) -> None:
        """An error met: to the nearest CATCH, else to the caller (the call ends when it must)."""
        state.error = error.number
        if state.xact_abort and state.trancount:
            state.doomed = True
        if state.try_depth > 0 and 10 < error.severity < 20:  # 20 and above end the session's task: no CATCH sees them
            raise error
        state.to_client(error)
        if aborts or state.xact_abort or error.severity >= 20 or error.number in _ENDS_BATCH:
            raise _Abort

    def _statement(self, state: CallState, frame: Frame, step: p.Step) -> None:
        if isinstance(step, p.IfStep):
            holds = self.sender.condition(state, frame, step.condition)
            state.error = 0
            if holds:
                self._step(state, frame, step.then)
            elif step.otherwise is not None:
                self._step(state, frame, step.otherwise)
            return
        if isinstance(step, p.WhileStep):
            self._while(state, frame, step)
            return
        self._simple(state, frame, step)
        state.error = 0  # it ran: @@ERROR says so (a failure set it where it was met)

    def _simple(self, state: CallState, frame: Frame, step: p.Step) -> None:
        if isinstance(step, (p.Run, p.AssignFromQuery, p.InsertFromCall, p.CursorAction)):
            implicit_begin(state)
        if isinstance(step, p.Run):
            self._run(state, frame, step)
        elif isinstance(step, p.Declare):
            for name, type_text, value in step.variables:
                frame.types[name] = type_text
                if value is not None or name not in frame.variables:  # declared again in a loop: it keeps its value
                    frame.variables[name] = assign(self.sender.value(state, frame, value) if value else None, type_text)
        elif isinstance(step, p.Assign):
            for name, value in step.targets:
                self._set(frame, name, self.sender.value(state, frame, value))
            state.rowcount = 1
        elif isinstance(step, p.AssignFromQuery):
            for fill in step.fills:
                json_rows.fill(self.sender, state, frame, fill)
            outcome = self.sender.send_all(state, frame, step.statements)
            if outcome.rows:
                for name, value in zip(step.names, outcome.rows[-1], strict=False):
                    self._set(frame, name, value)
            state.rowcount = len(outcome.rows)
        elif isinstance(step, (p.Call, p.CallText, p.DynamicText)):
            self._call(state, frame, step)
        elif isinstance(step, p.CallFunction):
            self._call_function(state, frame, step)
        elif isinstance(step, p.InsertFromCall):
            self._insert_from_call(state, frame, step)
        elif isinstance(step, p.Transaction):
            transaction(self.sender, state, step)
        elif isinstance(step, (p.CursorDeclare, p.CursorAction)):
            cursor_step(self.sender, state, frame, step, self._set)
        elif isinstance(step, p.JsonRows):
            json_rows.fill(self.sender, state, frame, step)
        elif isinstance(step, p.Option):
            self._option(state, frame, step)
        elif isinstance(step, p.Print):
            state.result.messages.append(text_of(self.sender.value(state, frame, step.value)))
            state.rowcount = 0
        elif isinstance(step, p.Raise):
            raise_step(self.sender, state, frame, step, self._fail)
        elif isinstance(step, p.Return):
            returned = frame.program.returns or "int"  # a function's RETURNS type; a procedure's status is an int
            raise _Return(None if step.value is None else assign(self.sender.value(state, frame, step.value), returned))
        elif isinstance(step, p.Loop):
            raise _Break if step.word == "BREAK" else _Continue

    def _while(self, state: CallState, frame: Frame, step: p.WhileStep) -> None:
        turns = 0
        while True:
            if turns:
                self._count(state)  # the condition is tested again: a statement each time
            if not self.sender.condition(state, frame, step.condition):
                return
            turns += 1
            if turns > self.limits.loop_iterations:
                raise TsqlError(50000, f"the WHILE loop turned more than {self.limits.loop_iterations:,} times: stopped "
                                       "(the runner bounds loops)", 20)
            try:
                self._step(state, frame, step.body)
            except _Break:
                return
            except _Continue:
                continue

    def _set(self, frame: Frame, name: str, value: Any) -> None:
        if name not in frame.types and name not in frame.variables:
            raise TsqlError(137, f'Must declare the scalar variable "@{name}".', 15)
        frame.variables[name] = assign(value, frame.types.get(name))

    def _run(self, state: CallState, frame: Frame, step: p.Run) -> None:
        if state.row_limit and _DML.match(step.tsql):
            raise TsqlError(50000, f"SET ROWCOUNT {state.row_limit} limits this statement's rows; the runner applies "
                                   "SET ROWCOUNT to result sets only", 16)
        for fill in step.fills:  # OPENJSON's rows: part of the statement, whose error is theirs
            json_rows.fill(self.sender, state, frame, fill)

        def send() -> Outcome:
            # A MERGE the translator wrote as several statements is one statement in SQL Server: all of it or none.
            whole = (len(step.statements) > 1 and state.trancount == 0 and not state.rolled_back
                     and _MERGE.match(step.tsql) is not None)
            if whole:
                self.sender.text(state, "BEGIN")
            try:
                outcome = each()
            except TsqlError:
                if whole:
                    self.sender.text(state, "ROLLBACK")
                raise
            if whole:
                self.sender.text(state, "COMMIT")
            return outcome

        def each() -> Outcome:
            outcome, changed = Outcome(), 0
            for statement in step.statements:
                outcome = self.sender.send(state, frame, statement)
                created = _CREATED.match(statement.sql)
                if created:
                    frame.temp_tables.append(created[1].strip("`"))
                if outcome.columns is not None and step.json is not None:
                    outcome = as_json(step.json, outcome)
                if outcome.columns is not None:
                    rows = outcome.rows[: state.row_limit] if state.row_limit else outcome.rows
                    state.result.result_sets.append(ResultSet(outcome.columns, rows, outcome.description, step.tsql,
                                                              frame.program.name, step.line))
                    outcome.rowcount = len(rows)
                else:
                    changed += outcome.rowcount
            if step.changes is not None and step.changes.kind == "merge":
                outcome.rowcount = changed  # a MERGE counts the rows its UPDATE, INSERT and DELETE changed together
            return outcome

        fires = firing(self.triggers, step.changes)
        if step.changes is not None and (self.changes or fires or step.output is not None or step.history is not None):
            own = begin_for_triggers(self.sender, state) if fires else False
            try:
                outcome, change = run_changing(self.sender, state, frame, step.changes, step.line, send)
            except BaseException:
                if own:
                    self.sender.text(state, "ROLLBACK")
                raise
            if self.changes:
                state.result.changes.append(change)
            if step.history is not None:
                keep_history(self.sender, state, step.history, change)
            if step.output is not None:
                self._output(state, frame, step, change)
            if fires:
                fire(self._trigger, self.sender, state, frame, fires, change, own)
        else:
            outcome = send()
        if step.writes is not None and not state.nocount:
            state.result.counts.append((frame.program.name, step.line, outcome.rowcount))
        state.rowcount = outcome.rowcount

    def _output(self, state: CallState, frame: Frame, step: p.Run, change: Any) -> None:
        """OUTPUT: the rows the statement changed, to the caller as a result set or INTO a table (`output`)."""
        spec = step.output
        assert spec is not None
        values = [self.sender.value(state, frame, c.value) for c in spec.columns if c.value is not None]
        rows = output_rows(spec, change, values)
        if spec.into is None:
            state.result.result_sets.append(ResultSet(tuple(c.name for c in spec.columns), rows,
                                                      description_of(spec, change), step.tsql, frame.program.name,
                                                      step.line))
        elif rows:
            insert_rows(self.sender, state, spec.into, rows)

    def _trigger(self, state: CallState, program: p.Program, given: list[tuple[str | None, Any]], level: int) -> None:
        """A trigger's program: run as a procedure is, its errors its statement's (`firing`)."""
        self._run_program(state, program, given, level)

    def _insert_from_call(self, state: CallState, frame: Frame, step: p.InsertFromCall) -> None:
        before = len(state.result.result_sets)
        self._statement(state, frame, step.call)
        produced = state.result.result_sets[before:]
        del state.result.result_sets[before:]
        inserted = 0
        for result_set in produced:
            for row in result_set.rows:
                if len(row) != step.columns:
                    raise TsqlError(213, "Column name or number of supplied values does not match table definition.")
                state.bound = {f"c{i}": value for i, value in enumerate(row)}
                try:
                    for statement in step.insert:
                        self.sender.send(state, frame, statement)
                finally:
                    state.bound = {}
                inserted += 1
        state.rowcount = inserted

    def _option(self, state: CallState, frame: Frame, step: p.Option) -> None:
        if step.name == "NOCOUNT":
            state.nocount = step.on
        elif step.name == "XACT_ABORT":
            state.xact_abort = step.on
        elif step.name == "ROWCOUNT" and step.value is not None:
            state.row_limit = max(0, assign(self.sender.value(state, frame, step.value), "int") or 0)
        state.rowcount = 0

    def _drop(self, state: CallState, tables: list[str]) -> None:
        """Drop the temp tables a procedure made, as SQL Server does when it ends."""
        if not tables:
            return
        names = ", ".join(f"`{t}`" for t in dict.fromkeys(tables))
        try:
            self.sender.text(state, f"DROP TEMPORARY TABLE IF EXISTS {names}")
        except TsqlError:
            pass
        tables.clear()

    def _end(self, state: CallState) -> None:
        """A transaction the call left open is rolled back (SQL Server: error 266, and it stays open); the caller's own
        (`enclosing`, `rolled_back`) is the caller's to end."""
        if state.rolled_back:
            return
        if state.trancount > (1 if state.enclosing else 0):
            state.result.notes.append(f"the call ended with @@TRANCOUNT {state.trancount}: its transaction was rolled back")
            try:
                self.sender.text(state, "ROLLBACK")
            except (TsqlError, Lost):
                pass
            state.trancount = 0


class _DefaultMarker:
    def __repr__(self) -> str:
        return "DEFAULT"


_DEFAULT = _DefaultMarker()


def _parameter_for(callee: p.Program, arguments: tuple[p.Argument, ...], argument: p.Argument) -> p.Parameter | None:
    if argument.name is not None:
        return next((q for q in callee.parameters if q.name.lower() == argument.name.lower()), None)
    position = [a for a in arguments if a.name is None].index(argument)
    return callee.parameters[position] if position < len(callee.parameters) else None


def argument_values(values: Mapping[str, Any]) -> list[tuple[str | None, Any]]:
    """Named arguments from a mapping (`{"@CustomerID": "ALFKI"}`)."""
    return [(name if name.startswith("@") else "@" + name, value) for name, value in values.items()]
