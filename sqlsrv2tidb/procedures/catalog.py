"""A schema's procedures, each compiled once, found by the names calls give them, judged with what they call.

A procedure runs on the target when nothing in it blocks the runner and every procedure it EXECs
runs too; it writes when it, or one it calls, changes a table (temp tables and table variables
are the session's own). `summary` says so per procedure, for the report, the effort of MO01, replay's
write safety and compare's choice of reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import Database, Module
from ..model.translation import Note, Status
from ..options import Options
from ..translate.naming import NameMap
from ..translate.session import worst
from .administration import Administration, administration
from .compiler import children, compile_function, compile_procedure, compile_trigger
from .dynamic import DynamicSql
from .header import Blocker
from .program import Call, CallFunction, Program
from .triggers import Trigger, is_dml_trigger, trigger_key


@dataclass(frozen=True)
class Summary:
    """One procedure as the runner sees it, its callees taken into account."""

    name: str
    runs: bool
    status: Status
    blockers: tuple[Blocker, ...]
    """What stops it (its own, then `calls X, which cannot run` for a callee), each with its line."""
    statements: int
    sent: int
    """TiDB statements in its body (every branch once), round trips of one pass through it."""
    writes: tuple[str, ...]
    calls: tuple[str, ...]
    transactions: bool
    notes: tuple[Note, ...]
    program: Program
    administration: Administration | None = None
    """What it configures when it is administration rather than the application's logic (`administration`)."""

    @property
    def reads_only(self) -> bool:
        return not self.writes

    def stops(self) -> str:
        """What stops it, in one line: the first blocker and where."""
        if not self.blockers:
            return ""
        first = self.blockers[0]
        more = f" (and {len(self.blockers) - 1} more)" if len(self.blockers) > 1 else ""
        return f"{first.construct} at {self.program.where(first.line)}: {first.message}{more}"


def name_key(name: str) -> tuple[str | None, str]:
    """(schema or None, name), case-folded, of `[db].[schema].[name]`, `schema.name` or `name`."""
    parts = [part.strip().strip("[]\"").strip() for part in name.split(".")]
    if len(parts) == 1:
        return None, parts[0].casefold()
    return (parts[-2].casefold() or None), parts[-1].casefold()


class Procedures:
    """The procedures of one schema; programs are compiled on first use."""

    def __init__(self, database: Database, options: Options | None = None, names: NameMap | None = None) -> None:
        self.database = database
        self.options = options or Options()
        self._names = names
        self._modules: dict[tuple[str | None, str], Module] = {}
        self._by_name: dict[str, list[Module]] = {}
        for module in database.modules_of("procedure"):
            self._modules[((module.schema or "dbo").casefold(), module.name.casefold())] = module
            self._by_name.setdefault(module.name.casefold(), []).append(module)
        self._functions = {((m.schema or "dbo").casefold(), m.name.casefold()): m for m in database.modules_of("function")}
        """Scalar functions the runner runs where a statement assigns their value (`functions`), by (schema, name)."""
        self._programs: dict[str, Program] = {}
        self._dynamic: DynamicSql | None = None
        self._summaries: dict[str, Summary] = {}
        self._trigger_modules: dict[str, list[Module]] = {}
        for module in database.modules_of("trigger"):
            if is_dml_trigger(module):
                self._trigger_modules.setdefault(self._table_key(module.parent or ""), []).append(module)
        self._triggers: dict[str, tuple[Trigger, ...]] = {}

    @property
    def names(self) -> NameMap:
        if self._names is None:
            self._names = NameMap.for_database(self.database)
        return self._names

    def modules(self) -> list[Module]:
        return sorted(self._modules.values(), key=lambda m: m.qualified_name.casefold())

    def module(self, name: str, hops: int = 0) -> Module | None:
        """The procedure a call names: `dbo.P`, `[dbo].[P]`, `P` (dbo's, or the only one of that name), `db.dbo.P`, or
        a synonym of one."""
        schema, bare = name_key(name)
        if schema is not None:
            found_one = self._modules.get((schema, bare))
        else:
            found = self._by_name.get(bare, [])
            found_one = found[0] if len(found) == 1 else self._modules.get(("dbo", bare))
        if found_one is None and schema is not None:
            found_one = self._functions.get((schema, bare))
        if found_one is not None or hops > 3:
            return found_one
        synonym = next((m for m in self.database.modules_of("synonym") if m.base_object
                        and name_key(m.qualified_name) == ((schema or (m.schema or "dbo").casefold()), bare)), None)
        return self.module(synonym.base_object, hops + 1) if synonym is not None and synonym.base_object else None

    def program(self, name: str) -> Program | None:
        module = self.module(name)
        if module is None:
            return None
        key = module.qualified_name.casefold()
        if key not in self._programs:
            compile_module = compile_function if module.kind == "function" else compile_procedure
            self._programs[key] = compile_module(module, self.database, self.names, self.options)
        return self._programs[key]

    def summary(self, name: str) -> Summary | None:
        module = self.module(name)
        if module is None:
            return None
        return self._summary(module.qualified_name, ())

    def summaries(self) -> list[Summary]:
        return [s for m in self.modules() if (s := self._summary(m.qualified_name, ())) is not None]

    def _summary(self, name: str, seen: tuple[str, ...]) -> Summary:
        key = name.casefold()
        if key in self._summaries:
            return self._summaries[key]
        program = self.program(name)
        assert program is not None
        blockers = list(program.blockers)
        writes = list(program.writes)
        transactions = program.transactions
        statuses = [program.status]
        administered: dict[str, Administration] = {}
        for called in program.calls:
            callee = self.module(called)
            line = _call_line(program, called)
            if callee is None:
                what = "a system procedure, which the runner does not run" if is_system(called) else \
                    "the schema has no such procedure"
                blockers.append(Blocker("procedure call", line, f"EXEC {called}: {what}"))
                continue
            if callee.qualified_name.casefold() in (*seen, key):
                continue  # recursion: judged where it starts
            inner = self._summary(callee.qualified_name, (*seen, key))
            if inner.administration is not None:
                administered[called.casefold()] = inner.administration
            if not inner.runs:
                blockers.append(Blocker("procedure call", line, f"EXEC {called}, which cannot run: {inner.stops()}"))
            writes += [f"{w} in {inner.name}" for w in inner.writes if " in " not in w] + \
                      [w for w in inner.writes if " in " in w]
            transactions = transactions or inner.transactions
            statuses.append(inner.status)
        blockers.sort(key=lambda b: b.line)
        status: Status = "unsupported" if blockers else _worst(statuses)
        module = self.module(name)
        summary = Summary(program.name, not blockers, status, tuple(blockers), program.statements, program.sent,
                          tuple(dict.fromkeys(writes)), program.calls, transactions, program.notes, program,
                          administration(module, program.calls, administered) if module is not None else None)
        self._summaries[key] = summary
        return summary

    @property
    def dynamic(self) -> DynamicSql:
        """What translates the SQL these procedures build at run time, for the runner."""
        if self._dynamic is None:
            self._dynamic = DynamicSql(self.database, self.names, self.options)
        return self._dynamic

    def resolve(self, name: str) -> Program | None:
        """For the runner: the program of a procedure a call names."""
        return self.program(name)

    def _table_key(self, name: str) -> str:
        schema, bare = name_key(name)
        table = self.database.table(schema, bare)
        return trigger_key(table.qualified_name if table is not None else f"{schema or 'dbo'}.{bare}")

    def triggers_on(self, table: str) -> tuple[Trigger, ...]:
        """The DML triggers of a table (`schema.name`), compiled once, in the order the schema defines them."""
        key = self._table_key(table)
        if key not in self._triggers:
            modules = self._trigger_modules.get(key, [])
            self._triggers[key] = tuple(
                compile_trigger(m, self.database, self.names, self.options, len(self._triggers) * 16 + n)
                for n, m in enumerate(modules))
        return self._triggers[key]

    def all_triggers(self) -> list[Trigger]:
        """Every DML trigger of the schema (the report lists each with what it does)."""
        return [t for key in sorted(self._trigger_modules) for t in self.triggers_on(key)]


def _call_line(program: Program, called: str) -> int:
    stack = [program.body]
    while stack:
        step = stack.pop()
        if isinstance(step, (Call, CallFunction)) and (step.procedure if isinstance(step, Call) else step.function) == called:
            return step.line
        stack.extend(children(step))
    return 1


def _worst(statuses: list[Status]) -> Status:
    return worst(s for s in statuses if s != "unsupported")


def is_system(name: str) -> bool:
    """`sp_...` and `xp_...`: SQL Server's own procedures (a schema does not define them)."""
    return name_key(name)[1].startswith(("sp_", "xp_"))


_LAST: list[Procedures] = []


def procedures_of(database: Database, options: Options | None = None) -> Procedures:
    """The procedures of `database`, compiled once for the stages of one command that ask (the rules' MO01 and
    assessment.json read the same summaries): the last schema asked about is kept."""
    options = options or Options()
    if _LAST and _LAST[0].database is database and _LAST[0].options == options:
        return _LAST[0]
    found = Procedures(database, options)
    _LAST[:] = [found]
    return found
