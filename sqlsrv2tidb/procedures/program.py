"""A procedure made ready to run: its parameters and a tree of steps whose statements are already TiDB's.

The compiler (`compiler`) reads a procedure once and writes this; the runner (`calls`) walks it for
every call. Everything here is plain data (text, tuples, the client's small expression trees), so a
program is shipped to replay's worker processes as it is. Every step keeps the line of the
definition it came from, so an error names it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model.translation import Note, Status
from ..translate.session import SentStatement
from .affected import ChangePlan
from .expressions import Local
from .for_json import ForJson
from .header import Blocker
from .json_text import Column as JsonColumn


@dataclass(frozen=True)
class Value:
    """An expression the runner needs the value of: worked out on the client when it can (`local`),
    else asked of the target (`remote`, `SELECT <expression>` translated)."""

    text: str
    local: Local | None = None
    remote: tuple[SentStatement, ...] = ()


@dataclass(frozen=True)
class Step:
    line: int


@dataclass(frozen=True)
class Steps(Step):
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class IfStep(Step):
    condition: Value
    then: Step
    otherwise: Step | None = None


@dataclass(frozen=True)
class WhileStep(Step):
    condition: Value
    body: Step


@dataclass(frozen=True)
class TryStep(Step):
    body: Step
    catch: Step


@dataclass(frozen=True)
class AtomicStep(Step):
    """BEGIN ATOMIC: the body commits whole or not at all (its own transaction, or a savepoint in the caller's)."""

    body: Step


@dataclass(frozen=True)
class Declare(Step):
    """Scalar variables: (name, type, initial value or None), in order."""

    variables: tuple[tuple[str, str, Value | None], ...]


@dataclass(frozen=True)
class Assign(Step):
    """SET @v = value, or SELECT @a = x, @b = y without FROM: (name, value), in order."""

    targets: tuple[tuple[str, Value], ...]
    select: bool = False


@dataclass(frozen=True)
class AssignFromQuery(Step):
    """SELECT @a = x, @b = y FROM ...: the query with the assigned expressions as its columns; the variables
    take the last row's values (and keep theirs when there is none)."""

    names: tuple[str, ...]
    statements: tuple[SentStatement, ...]
    tsql: str
    fills: tuple[JsonRows, ...] = ()


@dataclass(frozen=True)
class HistoryPlan:
    """Where a system-versioned table's old rows go, and its period columns."""

    history: str
    """The history table, quoted as the DDL names it on the target."""
    columns: tuple[str, ...]
    period_start: str
    period_end: str


@dataclass(frozen=True)
class OutputColumn:
    """One column of OUTPUT: `inserted.x` / `deleted.x` (`source`, `column`), or a value the runner holds."""

    name: str
    source: str | None = None
    """inserted or deleted; None for a value."""
    column: str | None = None
    value: Value | None = None


@dataclass(frozen=True)
class OutputSpec:
    columns: tuple[OutputColumn, ...]
    into: SentStatement | None = None
    """One row's INSERT into the INTO target, `?` per column; None: the rows are a result set."""
    tsql: str = ""


@dataclass(frozen=True)
class Run(Step):
    """A statement sent to the target as translated (a query, DML, a temp table's DDL); a result set it
    returns goes to the caller."""

    statements: tuple[SentStatement, ...]
    tsql: str
    status: Status = "translated"
    writes: str | None = None
    """What it changes outside the session (`UPDATE Sales.Orders`), None when it only reads or makes temp tables."""
    changes: ChangePlan | None = None
    """How the rows it changes are read before and after it (`affected`), for a statement that changes a table."""
    json: ForJson | None = None
    """FOR JSON: the rows it returns are written as SQL Server's JSON text (`for_json`)."""
    output: OutputSpec | None = None
    """OUTPUT: the rows it changed, read back, returned or inserted INTO a table (`output`)."""
    history: HistoryPlan | None = None
    """A system-versioned table's history the runner writes after it (`history`)."""
    fills: tuple[JsonRows, ...] = ()
    """OPENJSON over held values it reads: their tables filled first, part of the statement (an error is its own)."""


@dataclass(frozen=True)
class Option(Step):
    """SET NOCOUNT / XACT_ABORT ON|OFF, SET ROWCOUNT n: how the runner behaves, nothing sent."""

    name: str
    on: bool
    value: Value | None = None


@dataclass(frozen=True)
class Transaction(Step):
    """BEGIN TRAN, COMMIT, ROLLBACK [name], SAVE TRAN name."""

    action: str
    name: str | None = None


@dataclass(frozen=True)
class CursorDeclare(Step):
    name: str
    statements: tuple[SentStatement, ...]
    tsql: str
    scroll: bool = False


@dataclass(frozen=True)
class CursorAction(Step):
    """OPEN, CLOSE, DEALLOCATE, or FETCH (`direction` NEXT, PRIOR, FIRST, LAST, ABSOLUTE, RELATIVE) INTO names."""

    action: str
    name: str
    direction: str = "NEXT"
    offset: Value | None = None
    into: tuple[str, ...] = ()


@dataclass(frozen=True)
class Return(Step):
    value: Value | None = None


@dataclass(frozen=True)
class Loop(Step):
    """BREAK or CONTINUE."""

    word: str


@dataclass(frozen=True)
class Raise(Step):
    """RAISERROR(message, severity, state, args...) or THROW number, message, state; THROW alone rethrows."""

    kind: str
    arguments: tuple[Value, ...] = ()


@dataclass(frozen=True)
class Print(Step):
    value: Value


@dataclass(frozen=True)
class Argument:
    """One argument of an EXEC: by name or position, its value (None: DEFAULT), the variable an OUTPUT fills."""

    name: str | None
    value: Value | None
    output: str | None = None
    rows: tuple[SentStatement, ...] = ()
    """A table variable passed to a table-valued parameter: the query of its rows."""


@dataclass(frozen=True)
class Call(Step):
    """EXEC [@status =] procedure arguments."""

    procedure: str
    arguments: tuple[Argument, ...]
    status: str | None = None


@dataclass(frozen=True)
class CallFunction(Step):
    """`SET @v = dbo.f(args)` of a scalar function that cannot be inlined: the runner runs its body as it runs a
    procedure, and its RETURN value goes to the variable."""

    function: str
    arguments: tuple[Argument, ...]
    target: str
    """The variable assigned, lower case without `@`."""


@dataclass(frozen=True)
class DynamicText(Step):
    """EXEC (@sql) or sp_executesql @sql [, @declarations, args]: SQL known only when the call reaches it (`dynamic`)."""

    text: Value
    declarations: Value | None = None
    arguments: tuple[Argument, ...] = ()
    writes: str | None = None


@dataclass(frozen=True)
class CallText(Step):
    """sp_executesql N'...' [, N'@p type, ...', values] or EXEC ('...'): literal SQL run as a batch of its own."""

    program: Program
    arguments: tuple[Argument, ...] = ()


@dataclass(frozen=True)
class InsertFromCall(Step):
    """INSERT [INTO] t [(columns)] EXEC ...: the call's result set, inserted row by row into t."""

    call: Step
    insert: tuple[SentStatement, ...]
    """`INSERT INTO t (columns) VALUES (?, ...)` with one marker per column, translated."""
    columns: int
    tsql: str
    writes: str | None = None


@dataclass(frozen=True)
class JsonRows(Step):
    """OPENJSON over a value the runner holds: the document's rows sent into the table variable `variable` before the
    statement that reads them (`json_rows`)."""

    variable: str
    """The table variable's name without `@` (`sqlsrv2tidb_json1`)."""
    declare: tuple[SentStatement, ...]
    clear: tuple[SentStatement, ...]
    insert: SentStatement
    """One row's INSERT, `?` per column; the runner repeats its VALUES group for many rows."""
    source: Value
    path: Value | None
    columns: tuple[JsonColumn, ...]
    """The WITH clause's columns; none for OPENJSON's own (key, value, type)."""
    types: tuple[str, ...]


@dataclass(frozen=True)
class TableParameter:
    """A table-valued parameter's temporary table: made, then filled with the rows the call passes (none by default,
    as SQL Server's is an empty table when the caller passes none)."""

    declare: tuple[SentStatement, ...]
    insert: SentStatement
    """One row's INSERT, `?` per column the caller gives (an identity column is the table's own)."""
    columns: int


@dataclass(frozen=True)
class Parameter:
    name: str
    """As declared, with `@`."""
    type: str
    default: Value | None = None
    has_default: bool = False
    output: bool = False
    table: TableParameter | None = None


@dataclass(frozen=True)
class Program:
    """A procedure (or a captured batch) ready to run, and what reading it found."""

    name: str
    parameters: tuple[Parameter, ...]
    body: Step
    blockers: tuple[Blocker, ...] = ()
    notes: tuple[Note, ...] = ()
    status: Status = "translated"
    """The translations' worst status; `unsupported` when anything blocks it."""
    statements: int = 0
    """T-SQL statements in its body."""
    sent: int = 0
    """TiDB statements in its body, every branch counted once."""
    calls: tuple[str, ...] = ()
    """Procedures it EXECs, as written."""
    writes: tuple[str, ...] = ()
    """What it changes outside the session, each with its line: `UPDATE Sales.Orders (line 12)`."""
    transactions: bool = False
    file: str | None = None
    first_line: int = 1
    """The line of the file its definition starts on (its lines are the definition's)."""
    variables: tuple[tuple[str, str], ...] = field(default=())
    """Every variable it declares, (name, type): the runner's scope knows their types."""
    returns: str | None = None
    """A scalar function's RETURNS type (its RETURN value takes it); None for a procedure."""
    wrapper: bool = False
    """A captured batch around procedure calls (`exec dbo.P @a = @1`): its own statements are the application's
    call, not statements the application takes over, and are not counted."""

    @property
    def runnable(self) -> bool:
        return not self.blockers

    def where(self, line: int) -> str:
        """`file:line` of a line of the definition, or `line N` when the definition came from a catalog."""
        if self.file:
            return f"{self.file}:{self.first_line + line - 1}"
        return f"line {line}"
