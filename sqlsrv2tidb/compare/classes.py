"""Which query classes are compared, and the parameter sets each is run with on both sides.

Only reads: a class is compared when its statement kind is `select` and replay's write-safety
judgement (`replay.safety.may_send`, without --allow-writes, whatever the user gave) would send it.
No flag changes this: `compare` has no option to write. A class without a TiDB statement is left
out with its reason. A class that leans on its batch (it reads a temp table or a variable an earlier
statement made, or its own text is such a batch) is run with the batch when the capture holds it,
or left out saying what it needs (`batches`); the batch is translated here, with the run's options.

Parameter values come from replay's parameter plan (`replay.params`): the captured values where
the capture has them (each captured set in turn, up to N), else generated from the workload spec or
the declared type, or drawn from values the target's column already holds so that lookups find rows.
One value is made per declared parameter and given to both sides: SQL Server gets it for `@name`,
the target for every `?` the translation bound to that name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from ..errors import UsageError
from ..model import Capture, Database, Parameter, QueryClass
from ..model.translation import TranslatedQuery, Translation
from ..options import Options
from ..replay.config import ReplayConfig
from ..replay.params import MarkerColumn, ParameterMaker, ParameterPlan, marker_columns, plan_parameters
from ..replay.safety import may_send
from ..replay.sqltext import to_format_style
from ..translate.emit import split_target_sql
from ..translate.naming import NameMap
from ..translate.queries import translate_sql
from ..tsql.literals import tokens
from .batches import batch_run, declared_variables, needs, temporary_tables, unsafe_setup

READS_ONLY = ReplayConfig(allow_writes=False)


@dataclass(frozen=True)
class ValueSet:
    sql_server: tuple[Any, ...]
    """One value per declared parameter, in declaration order."""
    target: tuple[Any, ...]
    """One value per `?` of the translation, in marker order."""


@dataclass(frozen=True)
class Compared:
    """A class to compare: its T-SQL and parameters, its translation ready for the driver, its value sets."""

    query: TranslatedQuery
    tsql: str
    parameters: tuple[Parameter, ...]
    target_sql: str
    """The translation's query, with `%s` markers when it has parameters, else as written."""
    value_sets: tuple[ValueSet, ...]
    values_from: str
    """Where the values came from, in words (replay's parameter plan)."""
    target_setup: tuple[tuple[str, int], ...] = ()
    """The statements a batch's translation runs before its query, each with its number of `%s` markers
    (their values come first in `ValueSet.target`)."""
    temporary: tuple[str, ...] = ()
    """Temporary tables the setup makes on the target: dropped before it runs and after the answer."""
    batch: str | None = None
    """How the class was run with its batch, in words; None when it ran alone."""
    call: Any = None
    """A procedure call (`procedures.workload.CapturedCall`), compared by `calls`: EXEC on SQL Server, the
    procedure runner on the target."""
    write: bool = False
    """A class that changes data, compared by its effect on the rows (`write_judge`, with --allow-writes)."""


@dataclass(frozen=True)
class Left:
    id: str
    reason: str


@dataclass(frozen=True)
class Chosen:
    """A class to compare: its translation and captured class (of its batch, when it runs with one)."""

    query: TranslatedQuery
    source: QueryClass
    batch: str | None = None
    """How it runs with its batch (`BatchRun.describe`), or None."""


def read_verdict(tq: TranslatedQuery, source: QueryClass | None) -> str | None:
    """Why a class is not compared, or None: reads only, one TiDB statement, a captured T-SQL text."""
    kind = tq.kind if tq.kind != "other" or source is None else source.kind
    verdict = may_send(kind, READS_ONLY)
    if not verdict.send:
        return verdict.reason
    if kind != "select":
        return f"not a read (a statement of kind {kind}): only SELECTs are compared"
    if tq.status == "unsupported" or not tq.target_sql:
        return "unsupported: no TiDB statement was produced"
    if source is None:
        return "the capture holds no T-SQL text for it"
    return None


def with_batch(tq: TranslatedQuery, source: QueryClass, database: Database, options: Options,
               names: Callable[[], NameMap] | None = None) -> Chosen | Left:
    """The class as it is run: alone, or with its batch (translated here, with the run's options and the DDL's
    names: `names` gives the map, made once for a run), or left out saying what it needs."""
    missing = needs(source.text, source.parameters)
    if not missing and len(split_target_sql(tq.target_sql or "")) == 1:
        return Chosen(tq, source)
    if missing and source.batch is None:
        return Left(tq.id, f"{'; '.join(missing)}: the capture holds no statement of its batch before it")
    run = batch_run(source.batch if missing and source.batch else source.text, source.parameters)
    if isinstance(run, str):
        return Left(tq.id, run)
    used = {t.text.casefold() for t in tokens(run.tsql) if t.kind == "var"} - declared_variables(run.tsql)
    keep = [i for i, p in enumerate(source.parameters) if p.name.casefold() in used]
    batch = replace(source, text=run.tsql, parameters=tuple(source.parameters[i] for i in keep),
                    samples=tuple(tuple(row[i] for i in keep) for row in source.samples if len(row) == len(source.parameters)))
    translated = translate_sql(run.tsql, database=database, names=names() if names else NameMap.for_database(database),
                               options=options, parameters=batch.parameters, samples=batch.samples)
    if translated.status == "unsupported" or not translated.target_sql:
        said = next((n.message for n in translated.notes if n.status == "unsupported"), "no TiDB statements")
        return Left(tq.id, f"its batch, as it would run with it, does not translate: {said}")
    statements = split_target_sql(translated.target_sql)
    why = unsafe_setup(statements[:-1])
    if why is not None:
        return Left(tq.id, why)
    return Chosen(replace(translated, id=tq.id, kind=tq.kind), batch, run.describe(len(statements)))


def choose(capture: Capture, translation: Translation, wanted: Sequence[str] = (),
           options: Options | None = None) -> tuple[list[Chosen], list[Left]]:
    """The classes to compare (with their captured class) and those left out with why; `wanted` names ids."""
    chosen: list[Chosen] = []
    left: list[Left] = []
    made: list[NameMap] = []

    def names() -> NameMap:
        if not made:
            made.append(NameMap.for_database(capture.database))
        return made[0]

    wanted_ids = {w.casefold() for w in wanted}
    unknown = sorted(wanted_ids - {tq.id.casefold() for tq in translation.queries})
    if unknown:
        raise UsageError(f"--query {unknown[0]}: the capture has no query class of that id "
                         f"({len(translation.queries)} class(es); their ids are in queries.sql and assessment.json)")
    for tq in translation.queries:
        if wanted_ids and tq.id.casefold() not in wanted_ids:
            continue
        source = capture.workload.query(tq.id)
        why = read_verdict(tq, source)
        if why is not None:
            left.append(Left(tq.id, why))
            continue
        assert source is not None
        found = with_batch(tq, source, capture.database, options or Options(), names)
        (chosen if isinstance(found, Chosen) else left).append(found)  # type: ignore[arg-type]
    return chosen, left


Pools = Callable[[MarkerColumn], tuple[Any, ...]]
"""Values of a column already in the target (replay's `statements.target_values`)."""


def prepare(tq: TranslatedQuery, source: QueryClass, capture: Capture, sets: int, seed: int,
            pools: Pools | None = None, batch: str | None = None) -> Compared:
    """The class with `sets` parameter sets (one set when it takes no parameters); a batch's translation is
    cut into the statements before its query and the query (`batch` says how it runs with its batch)."""
    compared = _prepare(tq, source, capture, sets, seed, pools)
    statements = split_target_sql(tq.target_sql or "")
    if len(statements) < 2:
        return replace(compared, batch=batch)
    setup = tuple((text if count else raw, count) for raw in statements[:-1] for text, count in [to_format_style(raw)])
    query, count = to_format_style(statements[-1])
    return replace(compared, target_sql=query if count else statements[-1], target_setup=setup,
                   temporary=temporary_tables(statements[:-1]), batch=batch)


def _prepare(tq: TranslatedQuery, source: QueryClass, capture: Capture, sets: int, seed: int,
             pools: Pools | None = None) -> Compared:
    target_sql, count = to_format_style(tq.target_sql or "")
    if not count and not source.parameters:
        return Compared(tq, source.text, (), tq.target_sql or "", (ValueSet((), ()),), "no parameters")
    columns = marker_columns(tq.target_sql or "") if count else []
    plan = plan_parameters(source, tq, count, capture.database, None, columns)
    if pools is not None:
        wanted = {i: found for i, (m, col) in enumerate(zip(plan.markers, columns, strict=False))
                  if m.kind == "type" and col.role == "where" and (found := pools(col))}
        if wanted:
            plan = plan_parameters(source, tq, count, capture.database, wanted, columns)
    return Compared(tq, source.text, tuple(source.parameters), target_sql if count else tq.target_sql or "",
                    value_sets(plan, source, sets, seed, tq.id), plan.summary()["description"])


def value_sets(plan: ParameterPlan, source: QueryClass, sets: int, seed: int, class_id: str) -> tuple[ValueSet, ...]:
    maker = ParameterMaker(plan, seed, 0, 1, class_id)
    captured = list(dict.fromkeys(plan.samples)) if plan.samples and plan.takes_captured else []
    declared = len(source.parameters)
    found: list[ValueSet] = []
    for n in range(max(1, sets)):
        row = captured[n] if n < len(captured) else None
        if captured and row is None:
            break  # every captured set was used: generated values would not be what the application sends
        made = maker.next(row)
        by_parameter: dict[int, Any] = {}
        for marker, value in zip(plan.markers, made, strict=True):
            if marker.index >= 0:
                by_parameter.setdefault(marker.index, value)
        sample = row if row is not None else (plan.samples[0] if plan.samples else None)
        # A captured set goes to SQL Server as it was captured: the plan types values for the target (a literal
        # '2024-01-02 10:30:00.005' becomes a datetime), and bound to a parameter declared varchar a datetime is
        # read back in SQL Server's own style, which drops its seconds.
        sql_server = tuple(_for_sql_server(row[i] if row is not None and i < len(row) else by_parameter[i]
                                           if i in by_parameter else (sample[i] if sample and i < len(sample) else None),
                                           source.parameters[i].type)
                           for i in range(declared))
        target = tuple(by_parameter[m.index] if m.index >= 0 else value
                       for m, value in zip(plan.markers, made, strict=True))
        found.append(ValueSet(sql_server, target))
    return tuple(dict.fromkeys(found))


_DATE_TYPES = ("date", "datetime", "datetime2", "smalldatetime", "datetimeoffset", "time")


def _for_sql_server(value: Any, declared: str | None) -> Any:
    """A value as pyodbc should bind it for a parameter of the declared type.

    Values drawn from the target come as JSON text: a date-time's ISO text (`2001-05-22T20:37:29.993000`)
    is not a literal every SQL Server type reads, so it is bound as a datetime, which every one does.
    """
    base = (declared or "").split("(")[0].strip().lower()
    if isinstance(value, str) and base in _DATE_TYPES:
        try:
            parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            return value
        return parsed.date() if base == "date" else parsed.time() if base == "time" else parsed
    return value
