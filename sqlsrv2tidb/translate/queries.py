"""The query translator: every query class of a workload, from captured T-SQL to TiDB SQL.

One translation per query class (a fingerprint), never per execution: a capture with a million
executions of ten statements translates ten statements. Each class gets a status and the notes
that explain it (see `model.translation`): `translated` (same meaning), `rewritten` (changed to
keep the meaning), `review` (runs, but the meaning may differ), `unsupported` (no TiDB statement).

A class's text may be a whole batch (several statements, DECLAREd variables, GO separators); its
TiDB form is then several statements separated by `;` and a newline, run in order on one session.
Captured parameters (`@P1`, declared in Query Store's `(@P1 int)` prefix or by the workload
reader) become `?` markers; `TranslatedQuery.parameters` names the source parameter of each.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

from ..errors import one_line
from ..model import Capture, Database, Finding, Parameter, QueryClass, Severity
from ..model.translation import TranslatedQuery, Translation
from ..model.workload import Scalar
from ..options import Options
from ..progress import NullProgress, Progress
from ..tsql.fingerprint import fingerprint as fingerprint_of
from ..tsql.fingerprint import (
    fingerprint_of_tokens,
    parse_declarations,
    query_id,
    statement_kind,
    strip_parameter_prefix,
)
from . import transforms_mysql
from .batch import translate_statements
from .context import Context
from .emit import generate
from .expression_types import Types, type_of_declaration
from .naming import NameMap
from .parallel import translate_in_processes, workers_for
from .statements import Statement, parse_statements, read_batches
from .transforms import check_skip_rewrites

_SEVERITY = {"rewritten": Severity.INFO, "review": Severity.MEDIUM, "unsupported": Severity.HIGH}


def translate_workload(capture: Capture, options: Options, progress: Progress | None = None) -> Translation:
    """Translate each query class of the capture once; findings list what needs a DBA's attention.

    Two classes of one shape (from two sources) share one translation. Many distinct classes are
    translated on every core (`parallel`), with the output of one process."""
    progress = progress or NullProgress()
    check_skip_rewrites(options.skip_rewrites)  # a wrong name stops the command, not each statement
    queries = capture.workload.queries
    first: dict[str, QueryClass] = {}
    for query in queries:
        first.setdefault(query.fingerprint or query.text, query)
    distinct = list(first.values())
    workers = workers_for(len(distinct), options)
    done: list[TranslatedQuery] = []
    where = f" on {workers} processes" if workers > 1 else ""
    with progress.task(f"Translating {len(queries)} query classes{where}", total=len(queries)) as task:
        if workers == 1:
            names = NameMap.for_database(capture.database)  # the DDL generator's map, so queries name its tables
            for query in distinct:
                done.append(translate_query(query, database=capture.database, names=names, options=options))
                task.advance()
        else:
            for chunk in translate_in_processes(distinct, translate_query, database=capture.database, options=options,
                                                workers=workers):
                done.extend(chunk)
                task.advance(len(chunk))
        task.advance(len(queries) - len(distinct))
    translated = {query.fingerprint or query.text: result for query, result in zip(distinct, done, strict=True)}
    out: list[TranslatedQuery] = []
    for query in queries:
        key = query.fingerprint or query.text
        result = translated[key]
        out.append(result if first[key] is query else replace(result, id=query.id, source_sql=query.text))
    return Translation(queries=tuple(out), findings=tuple(_findings(out, capture)))


def translate_query(query: QueryClass, *, database: Database, names: NameMap, options: Options) -> TranslatedQuery:
    return translate_sql(query.text, database=database, names=names, options=options, parameters=query.parameters,
                         fingerprint=query.fingerprint or None, samples=query.samples, class_id=query.id,
                         kind=query.kind or None)


def translate_sql(
    sql: str,
    *,
    database: Database,
    names: NameMap,
    options: Options,
    parameters: tuple[Parameter, ...] = (),
    fingerprint: str | None = None,
    samples: tuple[tuple[Scalar, ...], ...] = (),
    class_id: str | None = None,
    kind: str | None = None,
) -> TranslatedQuery:
    """Translate one statement or batch of T-SQL; never raises for bad SQL (it becomes a note), only
    `UsageError` for a name in `options.skip_rewrites` that is no rewrite.

    `parameters` are the captured class's declared parameters, `samples` value sets captured for them
    (in their order); `fingerprint` the class's own, when known (it is computed from `sql` otherwise), and so
    `class_id` and `kind` (derived from the fingerprint and the text otherwise)."""
    check_skip_rewrites(options.skip_rewrites)  # the one error this function raises: a wrong name is the caller's
    declarations, body = strip_parameter_prefix(sql)
    declared = (*parse_declarations(declarations), *parameters) if declarations else tuple(parameters)
    batches = read_batches(body)
    if fingerprint is None and len(batches) == 1 and batches[0].text == body and batches[0].tokens is not None:
        fingerprint = fingerprint_of_tokens(batches[0].tokens)  # one tokenization for both
    fingerprint = fingerprint or fingerprint_of(sql)
    ctx = Context(database=database, names=names, options=options, types=Types(database))
    for parameter in declared:
        name = parameter.name.lstrip("@")
        ctx.parameters.setdefault(name.lower(), parameter.name if parameter.name.startswith("@") else "@" + name)
        datatype = type_of_declaration(parameter.type)
        if datatype is not None:
            ctx.types.variables.setdefault(name.lower(), datatype)
    for index, parameter in enumerate(parameters):  # samples are in the class's parameter order
        ctx.samples[parameter.name.lstrip("@").lower()] = tuple(row[index] for row in samples if len(row) == len(parameters))
    target, bound = written(lambda: parse_statements(body, batches), ctx)
    status = ctx.status
    if status == "unsupported":
        target, bound = None, ()
    return TranslatedQuery(id=class_id or query_id(fingerprint), fingerprint=fingerprint, source_sql=sql, target_sql=target,
                           status=status, notes=tuple(ctx.notes), kind=kind or statement_kind(sql), parameters=bound)


def written(read: Callable[[], list[Statement]], ctx: Context) -> tuple[str | None, tuple[str, ...]]:
    """The target's text of the statements `read` gives, and the parameters bound to it; (None, ()) when the
    translation is unsupported. The one place statements are translated and written for the target engine
    (MySQL's rewrites after the common ones): a whole text here, one statement at a time in `session.py`.
    Never raises: a failure, or nesting too deep to walk, becomes QY00 on `ctx`, so one statement never
    stops the others."""
    try:
        with deep_recursion():
            trees = translate_statements(read(), ctx)
            if ctx.options.mysql:
                trees = transforms_mysql.statements(trees, ctx)
            return generate(trees, ctx) if not ctx.unsupported else (None, ())
    except RecursionError:
        ctx.note("QY00", "unsupported", "The statement is nested too deeply to translate.")
    except Exception as exc:  # noqa: BLE001 - one statement must never stop the others
        ctx.note("QY00", "unsupported", f"Translation failed: {type(exc).__name__}: {one_line(str(exc), 160)}")
    return None, ()


@contextmanager
def deep_recursion(limit: int = 8000) -> Iterator[None]:
    """sqlglot parses and writes recursively, about 25 frames per nested parenthesis, so Python's
    default limit of 1000 stops at some 40 levels; captured SQL nests deeper than that."""
    previous = sys.getrecursionlimit()
    if previous < limit:
        sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        if previous < limit:
            sys.setrecursionlimit(previous)


def _findings(queries: list[TranslatedQuery], capture: Capture) -> list[Finding]:
    """One finding per query and note that needs review or cannot run; rewrites are summed per rule."""
    findings: list[Finding] = []
    rewritten: dict[str, list[str]] = {}
    for query in queries:
        cls = capture.workload.query(query.id)
        file, line = (cls.source.file, cls.source.line) if cls is not None else (None, None)
        for note in query.notes:
            level = note.status or query.status
            if level in ("review", "unsupported"):
                findings.append(Finding(rule=note.code, severity=_SEVERITY[level], object=f"query {query.id}",
                                        message=note.message, file=file, line=line, details={"status": query.status}))
            elif level == "rewritten":
                rewritten.setdefault(note.code, []).append(query.id)
    for code, ids in sorted(rewritten.items()):
        unique = sorted(set(ids))
        findings.append(Finding(rule=code, severity=Severity.INFO,
                                object=f"{len(unique)} query class{'es' if len(unique) != 1 else ''}",
                                message=f"rewritten to keep their meaning on TiDB ({', '.join(unique[:5])}{', ...' if len(unique) > 5 else ''})",
                                details={"queries": unique}))
    return findings


def render_queries_sql(translation: Translation) -> str:
    """OUT/queries.sql: each class's id, status and notes as comments above its TiDB statement,
    or above its original text, commented out, when it has none."""
    from .render import render

    return render(translation)
