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

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace

from sqlglot import exp

from ..errors import one_line
from ..model import Capture, Database, Finding, Parameter, QueryClass, Severity
from ..model.translation import TranslatedQuery, Translation
from ..options import Options
from ..progress import NullProgress, Progress
from ..tsql.fingerprint import fingerprint as fingerprint_of
from ..tsql.fingerprint import parse_declarations, query_id, statement_kind, strip_parameter_prefix
from . import transforms_batch
from .context import Context
from .emit import generate
from .naming import NameMap
from .statements import Statement, parse_statements
from .transforms import translate_tree
from .typing import Types, type_of_declaration

_SEVERITY = {"rewritten": Severity.INFO, "review": Severity.MEDIUM, "unsupported": Severity.HIGH}


def translate_workload(capture: Capture, options: Options, progress: Progress | None = None) -> Translation:
    """Translate each query class of the capture once; findings list what needs a DBA's attention."""
    progress = progress or NullProgress()
    names = NameMap.for_database(capture.database)  # the DDL generator's map, so queries name its tables
    done: dict[str, TranslatedQuery] = {}
    out: list[TranslatedQuery] = []
    queries = capture.workload.queries
    with progress.task(f"Translating {len(queries)} query classes", total=len(queries)) as task:
        for query in queries:
            key = query.fingerprint or query.text
            if key in done:  # two classes of one shape (from two sources) share one translation
                out.append(replace(done[key], id=query.id, source_sql=query.text))
            else:
                done[key] = translate_query(query, database=capture.database, names=names, options=options)
                out.append(done[key])
            task.advance()
    return Translation(queries=tuple(out), findings=tuple(_findings(out, capture)))


def translate_query(query: QueryClass, *, database: Database, names: NameMap, options: Options) -> TranslatedQuery:
    result = translate_sql(query.text, database=database, names=names, options=options, parameters=query.parameters,
                           fingerprint=query.fingerprint or None)
    return replace(result, id=query.id, fingerprint=query.fingerprint or result.fingerprint, kind=query.kind or result.kind)


def translate_sql(
    sql: str,
    *,
    database: Database,
    names: NameMap,
    options: Options,
    parameters: tuple[Parameter, ...] = (),
    fingerprint: str | None = None,
) -> TranslatedQuery:
    """Translate one statement or batch of T-SQL; never raises for bad SQL (it becomes a note).

    `parameters` are the captured class's declared parameters; `fingerprint` the class's own, when
    known (it is computed from `sql` otherwise)."""
    declarations, body = strip_parameter_prefix(sql)
    declared = (*parse_declarations(declarations), *parameters) if declarations else tuple(parameters)
    fingerprint = fingerprint or fingerprint_of(sql)
    base = TranslatedQuery(
        id=query_id(fingerprint), fingerprint=fingerprint, source_sql=sql, target_sql=None, status="unsupported",
        kind=statement_kind(sql),
    )
    ctx = Context(database=database, names=names, options=options, types=Types(database))
    for parameter in declared:
        name = parameter.name.lstrip("@")
        ctx.parameters.setdefault(name.lower(), parameter.name if parameter.name.startswith("@") else "@" + name)
        datatype = type_of_declaration(parameter.type)
        if datatype is not None:
            ctx.types.variables.setdefault(name.lower(), datatype)
    try:
        with deep_recursion():
            statements = parse_statements(body)
            trees = translate_statements(statements, ctx)
            target, bound = generate(trees, ctx) if not ctx.unsupported else (None, ())
    except RecursionError:
        ctx.note("QY00", "unsupported", "The statement is nested too deeply to translate.")
        target, bound = None, ()
    except Exception as exc:  # noqa: BLE001 - one statement must never stop the others
        ctx.note("QY00", "unsupported", f"Translation failed: {type(exc).__name__}: {one_line(str(exc), 160)}")
        target, bound = None, ()
    status = ctx.status
    if status == "unsupported":
        target, bound = None, ()
    return replace(base, target_sql=target, status=status, notes=tuple(ctx.notes), parameters=bound)


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


def translate_statements(statements: list[Statement], ctx: Context) -> list[exp.Expr]:
    """Translate a batch's statements in order; the context carries variables and temp tables along."""
    _declare_ahead(statements, ctx)
    out: list[exp.Expr] = []
    for statement in statements:
        if statement.error is not None:
            code, message = unreadable(statement)
            ctx.note(code, "unsupported", message)
            continue
        if statement.control_flow:
            ctx.note("QY31", "unsupported", "Control flow (IF, WHILE, BEGIN...END, TRY...CATCH, GOTO, RETURN): TiDB has no "
                     "procedural SQL outside stored programs, so the batch cannot run as one unit.")
            continue
        tree = statement.tree
        if tree is None:
            continue
        handled = transforms_batch.statement(tree, ctx)
        out.extend(handled if handled is not None else translate_tree(tree, ctx))
        ctx.previous = tree
    return out


# Statements sqlglot cannot read whose kind is still clear from their text: each gets the note of
# what it is (dynamic SQL, a procedure call, OUTPUT) rather than "could not be read". First match wins.
_UNREADABLE: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"^\s*(?:INSERT\b.*?\b)?EXEC(?:UTE)?\s*\(", re.IGNORECASE | re.DOTALL), "QY25",
     "EXEC (...) of SQL built at run time: dynamic SQL is unknown until it runs; capture the statements it executes instead."),
    (re.compile(r"^\s*INSERT\b.*?\bEXEC(?:UTE)?\b", re.IGNORECASE | re.DOTALL), "QY24",
     "INSERT ... EXEC of a stored procedure: TiDB has no stored procedures; run the procedure's query in the INSERT ... "
     "SELECT, or its logic in the application."),
    (re.compile(r"^\s*EXEC(?:UTE)?\b", re.IGNORECASE), "QY24",
     "EXEC of a stored procedure: TiDB has no stored procedures; move its logic to the application."),
    (re.compile(r"\bOUTPUT\b", re.IGNORECASE), "QY11",
     "A statement with an OUTPUT clause: TiDB has no OUTPUT/RETURNING; read the rows in a separate SELECT."),
)


def unreadable(statement: Statement) -> tuple[str, str]:
    """The note code and message for a statement sqlglot could not read."""
    text = re.sub(r"N?'(?:[^']|'')*'", "''", statement.sql)  # words inside string literals say nothing
    for pattern, code, message in _UNREADABLE:
        if pattern.search(text):
            return code, f"{message} ({statement.error})"
    return "QY01", f"T-SQL that could not be read: {statement.error} in `{one_line(statement.sql, 120)}`"


def _declare_ahead(statements: list[Statement], ctx: Context) -> None:
    """Know every DECLAREd variable's type before translating the statements that use it."""
    for statement in statements:
        if isinstance(statement.tree, exp.Declare):
            for item in statement.tree.expressions:
                kind = item.args.get("kind")
                for name in item.this if isinstance(item.this, list) else [item.this]:
                    if isinstance(name, exp.Parameter) and isinstance(kind, exp.DataType):
                        ctx.types.variables.setdefault(name.this.name.lower(), kind)


def inner_statements(text: str, values: dict[str, exp.Expr], ctx: Context) -> list[exp.Expr]:
    """The statements of dynamic SQL given as a literal (sp_executesql, EXEC ('...')), with the
    values passed to its parameters put in their place."""
    statements = parse_statements(text)
    bound = []
    for statement in statements:
        tree = statement.tree
        if tree is not None and values:
            tree = tree.copy()
            for node in list(tree.find_all(exp.Parameter)):
                name = node.this.name.lower() if not isinstance(node.this, exp.Parameter) else ""
                if name in values:
                    node.replace(values[name].copy())
            statement = Statement(statement.sql, tree=tree)
        bound.append(statement)
    return translate_statements(bound, ctx)


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
