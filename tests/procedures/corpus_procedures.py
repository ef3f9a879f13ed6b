"""The corpus procedures on the SQL Server endpoint and on TiDB: created on the endpoint where it accepts them, each
called once through the procedure runner on TiDB, each reading one compared with EXEC on the endpoint (the tool's
own `compare`), and the tally written as benchmarks/procedures/RESULTS.md.

The rows are the endpoint fixtures' (`compare_northwind`, `compare_adventureworks`, `compare_wwi`; tests/answers/
README.md), put in TiDB with `sqlsrv2tidb data copy --create-tables`. Northwind's script creates its own procedures;
AdventureWorks's and WideWorldImporters's are created here from the corpus, one by one, and the ones the endpoint
refuses are listed with its error (docs/babelfish.md). A procedure is called with values replay would send it: a
parameter compared with a column gets a value the target's column holds, the others one of their declared type.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parents[1]
for _folder in ("compare", "data", "answers"):
    if str(TESTS / _folder) not in sys.path:
        sys.path.insert(0, str(TESTS / _folder))

from compare_helpers import compare  # noqa: E402
from data_helpers import copy_args, data, document  # noqa: E402
from departures import departing_views  # noqa: E402
from paths import CORPUS  # noqa: E402

from sqlsrv2tidb import api  # noqa: E402
from sqlsrv2tidb.model import Capture, Module, Parameter, QueryClass, Workload, save_capture  # noqa: E402
from sqlsrv2tidb.model.workload import jsonable  # noqa: E402
from sqlsrv2tidb.procedures.calls import Limits, Runner  # noqa: E402
from sqlsrv2tidb.procedures.catalog import Procedures  # noqa: E402
from sqlsrv2tidb.procedures.workload import captured_calls  # noqa: E402
from sqlsrv2tidb.replay.evidence import quote_table  # noqa: E402
from sqlsrv2tidb.replay.params import ParameterMaker  # noqa: E402
from sqlsrv2tidb.replay.procedure_calls import plan_values  # noqa: E402
from sqlsrv2tidb.replay.procedure_session import DriverSession  # noqa: E402
from sqlsrv2tidb.replay.selection import Chosen  # noqa: E402
from sqlsrv2tidb.report.verdict import explained  # noqa: E402
from sqlsrv2tidb.target import parse_target  # noqa: E402
from sqlsrv2tidb.tsql.fingerprint import fingerprint, query_id  # noqa: E402

SOURCES = {"northwind": None, "adventureworks": CORPUS / "adventureworks-oltp" / "instawdb.sql",
           "wideworldimporters": CORPUS / "wwi-oltp-ssdt"}
"""Where a corpus's procedures are read from: the endpoint's catalog (None: its script created them) or the corpus."""
SCRIPTS = {"northwind": CORPUS / "northwind" / "instnwnd.sql", "adventureworks": CORPUS / "adventureworks-oltp" / "instawdb.sql",
           "wideworldimporters": CORPUS / "wwi-oltp-ssdt"}
"""The corpus itself, whose views say which answers the endpoint departs from (its catalog keeps them in its own form)."""
FIXTURES = {"northwind": "compare_northwind", "adventureworks": "compare_adventureworks",
            "wideworldimporters": "compare_wwi"}
RECORD = Path(__file__).resolve().parents[2] / "benchmarks" / "procedures" / "RESULTS.md"
COMMAND = ("UPDATE_PROCEDURES=1 PYTHONPATH=$PWD python3 -m pytest -q -p no:cacheprovider -m answers "
           "tests/procedures/test_corpus_procedures.py")


@dataclass
class Outcome:
    """One procedure: what the runner makes of it, what its call on TiDB did, and its comparison."""

    name: str
    runs: bool
    stops: str = ""
    reads_only: bool = True
    created: bool = True
    """The endpoint accepted its definition."""
    refused: str = ""
    ran: str = ""
    """`ok`, `its own error` (a THROW or RAISERROR of the procedure's, or an error it raised on purpose), or the error."""
    target_error: str = ""
    number: int = 0
    """SQL Server's number of the error TiDB raised (ERROR_NUMBER() as the runner maps it)."""
    sql_server: str = ""
    """What the endpoint answered the same call, when TiDB refused it."""
    statements: int = 0
    round_trips: int = 0
    verdict: str = ""
    reason: str = ""
    rows: str = ""
    """Rows of its answers on each side (SQL Server / TiDB), when compared."""
    explained: str = ""
    """Why its answers differ, where a view it reads says so (the endpoint departs from SQL Server there)."""
    administration: str = ""
    """What it configures when it administers the database rather than carrying the application's logic."""


@dataclass
class CorpusRun:
    corpus: str
    outcomes: list[Outcome] = field(default_factory=list)

    def count(self, test) -> int:
        return sum(1 for o in self.outcomes if test(o))


def corpus_modules(corpus: str, endpoint: Capture) -> tuple[Module, ...]:
    source = SOURCES[corpus]
    if source is None:
        return endpoint.database.modules_of("procedure")
    return api.read([source]).database.modules_of("procedure")


_EXECUTE_AS = re.compile(r"\bWITH\s+EXECUTE\s+AS\s+(?:OWNER|SELF|CALLER|'[^']*')\s*(?=\bAS\b)", re.IGNORECASE)


def create_on_endpoint(mssql, database: str, modules: tuple[Module, ...], aliases: tuple = ()) -> dict[str, str]:
    """Each procedure the endpoint lacks, created from its definition (its schema and the alias types its parameters
    use first, when the fixture made none); {name: the endpoint's error} for those refused."""
    conn = mssql.connect(database)
    refused: dict[str, str] = {}
    try:
        cursor = conn.cursor()
        schemas = {str(r[0]).casefold() for r in cursor.execute("SELECT name FROM sys.schemas").fetchall()}
        for schema in sorted({m.schema for m in modules if m.schema and m.schema.casefold() not in schemas}):
            cursor.execute(f"CREATE SCHEMA [{schema}]")
        types = {str(r[0]).casefold() for r in cursor.execute(
            "SELECT s.name + '.' + t.name FROM sys.types t JOIN sys.schemas s ON s.schema_id = t.schema_id "
            "WHERE t.is_user_defined = 1").fetchall()}
        for alias in aliases:
            if alias.base is not None and not alias.is_table_type and alias.qualified_name.casefold() not in types:
                try:
                    cursor.execute(f"CREATE TYPE [{alias.schema}].[{alias.name}] FROM {alias.base}"
                                   f"{'' if alias.nullable else ' NOT NULL'}")
                except Exception:  # noqa: BLE001 - a procedure that needs it is refused with the endpoint's words
                    pass
        have = {str(r[0]).casefold() for r in cursor.execute(
            "SELECT s.name + '.' + p.name FROM sys.procedures p JOIN sys.schemas s ON s.schema_id = p.schema_id").fetchall()}
        for module in modules:
            if module.qualified_name.casefold() in have or not module.definition:
                continue
            try:
                cursor.execute(module.definition)
            except Exception as exc:  # noqa: BLE001 - a definition the endpoint refuses is recorded, the rest go on
                # Babelfish refuses WITH EXECUTE AS OWNER (docs/babelfish.md); the procedure means the same without
                # it to a caller who may read its tables, as the tests' login may.
                without = _EXECUTE_AS.sub("", module.definition, count=1)
                if "EXECUTE AS" in str(exc) and without != module.definition:
                    try:
                        cursor.execute(without)
                        continue
                    except Exception as again:  # noqa: BLE001 - refused for another reason too
                        exc = again
                refused[module.qualified_name] = " ".join(str(exc).split())[:300]
    finally:
        conn.close()
    return refused


def call_class(module: Module, database: Any) -> QueryClass:
    """`EXEC schema.name @a = @1, ...`: a captured call of the procedure, its parameters the procedure's (an OUTPUT
    parameter without a default given a variable of its own)."""
    from sqlsrv2tidb.procedures.header import read_head

    head = read_head(module.definition or "")
    arguments, declared, parameters = [], [], []
    for n, p in enumerate(head.parameters, start=1):
        if p.readonly:
            continue  # a table-valued parameter the call leaves out is an empty table, in SQL Server and the runner
        type_text = _base_type(p.type, database)
        if p.output:
            if p.default is None:
                declared.append(f"DECLARE @out{n} {type_text};")
                arguments.append(f"{p.name} = @out{n} OUTPUT")
            continue
        arguments.append(f"{p.name} = @{n}")
        parameters.append(Parameter(f"@{n}", type_text))
    name = f"[{module.schema}].[{module.name}]" if module.schema else f"[{module.name}]"
    text = " ".join([*declared, f"EXEC {name} {', '.join(arguments)}".rstrip()])
    fp = fingerprint(text)
    return QueryClass(query_id(fp), fp, text, "exec", tuple(parameters), name=module.qualified_name,
                      procedure=module.qualified_name)


def _base_type(type_text: str, database: Any) -> str:
    clean = type_text.replace("[", "").replace("]", "").strip()
    for user_type in database.user_types:
        if clean.casefold() in (user_type.qualified_name.casefold(), user_type.name.casefold()) and user_type.base:
            return str(user_type.base)
    return clean


def run_corpus(corpus: str, source, tidb, database: str, folder: Path) -> CorpusRun:
    """Copy the rows, call every procedure on TiDB, compare the reading ones with EXEC on the endpoint."""
    endpoint = api.read([source.capture])
    modules = corpus_modules(corpus, endpoint)
    # The functions the procedures call, made on the endpoint first and known to the runner (which inlines them)
    functions = api.read([SOURCES[corpus]]).database.modules_of("function") if SOURCES[corpus] is not None else ()
    corpus_types = api.read([SOURCES[corpus]]).database.user_types if SOURCES[corpus] is not None else ()
    refused = create_on_endpoint(source.mssql, source.name, (*functions, *modules), corpus_types) \
        if SOURCES[corpus] is not None else {}
    copied = data(*copy_args(source, tidb, database, folder / "data", "--create-tables"))
    # WideWorldImporters: every row arrives, and TiDB then refuses the unique key on StockItemName (two names that
    # differ only after a U+FFFD compare equal under its collation; tests/answers/test_copy_verify.py pins it).
    assert copied.exit_code == 0 or (copied.exit_code == 2 and "04-indexes.sql" in copied.stderr
                                     and "Duplicate entry" in copied.stderr), copied.output
    if copied.exit_code == 0:
        assert document(folder / "data")["summary"]["tables"] > 0
    schema = replace(endpoint.database, modules=(*functions, *modules), user_types=_user_types(endpoint, corpus))
    if SOURCES[corpus] is not None:
        written = api.read([SOURCES[corpus]]).database
        schema = _with_sequences(replace(schema, tables=_temporal(schema.tables, written.tables)), written, tidb, database)
        schema = _with_hierarchies(schema, written, tidb, database)
    classes = [call_class(m, schema) for m in modules if m.definition]
    capture = replace(endpoint, database=schema, workload=Workload(queries=tuple(classes)))
    path = folder / "capture.json"
    save_capture(capture, path)
    run = CorpusRun(corpus)
    catalog = Procedures(schema)
    calls = captured_calls(capture.workload, catalog)
    session = DriverSession.open(parse_target(tidb.url(database)))
    by_name = {c.name: c for c in classes}
    try:
        for module in sorted(modules, key=lambda m: m.qualified_name.casefold()):
            summary = catalog.summary(module.qualified_name)
            assert summary is not None
            outcome = Outcome(module.qualified_name, summary.runs, summary.stops(), summary.reads_only,
                              module.qualified_name not in refused, refused.get(module.qualified_name, ""),
                              administration=summary.administration.kind if summary.administration else "")
            run.outcomes.append(outcome)
            query = by_name.get(module.qualified_name)
            call = calls.get(query.id) if query is not None else None
            if not summary.runs or call is None or query is None:
                continue
            values = _call_on_tidb(outcome, capture, query, call, session)
            if outcome.ran in ("target error", "lost") and outcome.created:
                _judge_failure(outcome, source, query, values)
    finally:
        session.close()
    doc = compare([path], folder / "out", source.connection, tidb.url(database), "--parameter-sets", "2",
                  "--statement-timeout", "20", "--allow-writes", "--confirm-database", database)
    verdicts = {q["id"]: q for q in doc["queries"]}
    departing = departing_views(api.read([SCRIPTS[corpus]]).database)
    left = {x["id"]: x["reason"] for x in doc["left_out"]}
    for outcome in run.outcomes:
        query = by_name.get(outcome.name)
        if query is None:
            continue
        if query.id in verdicts:
            found = verdicts[query.id]
            outcome.verdict, outcome.reason = found["verdict"], found["reason"]
            counts = found.get("rows") or {}
            if counts:
                outcome.rows = f"{counts.get('sql_server')} / {counts.get('target')}"
            module = catalog.module(outcome.name)
            body = (module.definition or "").casefold() if module else ""
            reads = sorted(v for v in departing if v in body)
            if outcome.verdict == "differs" and reads:
                outcome.explained = (f"it reads {', '.join(reads)}, a view whose rewrite the endpoint answers otherwise "
                                     "than SQL Server (docs/babelfish.md)")
            elif outcome.verdict == "differs" and "SQL Server runs it: JSON text or path" in outcome.reason:
                # The harness gives a JSON parameter a value of its declared type (`4`), no document: the runner raises
                # SQL Server's JSON error where OPENJSON reads it, the endpoint reads it only for a row its plan meets
                outcome.explained = ("its JSON parameter was given no document, which the endpoint never parsed "
                                     "(docs/babelfish.md)")
            elif outcome.verdict == "differs" and explained(found):
                outcome.explained = "; ".join(found.get("explained_by") or ()) or "its translation's notes"
        elif outcome.runs:
            outcome.verdict, outcome.reason = "left out", left.get(query.id, "")
    return run


_NEXT_VALUE = re.compile(r"NEXT\s+VALUE\s+FOR\s+(\[?[\w]+\]?)\s*\.\s*(\[?[\w]+\]?)", re.IGNORECASE)


def _with_sequences(schema: Any, corpus: Any, tidb, database: str) -> Any:
    """The corpus's sequences, which the endpoint's catalog does not report (Babelfish's sys.sequences), made on
    TiDB as the tool's DDL makes them, each past the values its table holds and the default of its columns again
    (`data copy` made the tables from the endpoint's catalog, without them)."""
    from sqlsrv2tidb.options import Options
    from sqlsrv2tidb.translate.ddl import is_comment_only, split_statements
    from sqlsrv2tidb.translate.naming import NameMap

    if not corpus.sequences:
        return schema
    merged = replace(schema, sequences=corpus.sequences, tables=_sequence_defaults(schema.tables, corpus.tables))
    plan = api.plan(Capture(database=merged), Options())
    names = NameMap.for_database(merged)
    conn = tidb.connect(database)
    try:
        with conn.cursor() as cur:
            for ddl in plan.files:
                if ddl.name == "01-sequences.sql":
                    for statement in split_statements(ddl.content):
                        if not is_comment_only(statement):
                            cur.execute(statement)
            for table in corpus.tables:
                for column in table.columns:
                    found = _NEXT_VALUE.search(column.default or "")
                    if found is None:
                        continue
                    target = names.object(table.schema, table.name).name
                    sequence = names.object(found[1].strip("[]"), found[2].strip("[]")).name
                    cur.execute("SELECT COLUMN_TYPE, IS_NULLABLE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = "
                                "DATABASE() AND TABLE_NAME = %s AND COLUMN_NAME = %s", (target, column.name))
                    described = cur.fetchone()
                    if described is None:
                        continue
                    cur.execute(f"SELECT COALESCE(MAX(`{column.name}`), 0) FROM `{target}`")
                    cur.execute(f"SELECT SETVAL(`{sequence}`, {int(cur.fetchone()[0])})")
                    null = "NULL" if described[1] == "YES" else "NOT NULL"
                    cur.execute(f"ALTER TABLE `{target}` MODIFY COLUMN `{column.name}` {described[0]} {null} "
                                f"DEFAULT NEXT VALUE FOR `{sequence}`")
    finally:
        conn.close()
    return merged


def _sequence_defaults(tables: tuple, corpus_tables: tuple) -> tuple:
    """The endpoint's tables with the corpus's `DEFAULT (NEXT VALUE FOR ...)` on their columns, which the endpoint's
    catalog leaves out with the sequences (a SQL Server catalog reports them): the runner reads an INSERT's new keys
    from the sequence a column's default draws from."""
    defaults = {(t.schema.casefold(), t.name.casefold(), c.name.casefold()): c.default for t in corpus_tables
                for c in t.columns if _NEXT_VALUE.search(c.default or "")}
    out = []
    for table in tables:
        columns = tuple(replace(c, default=defaults[(table.schema.casefold(), table.name.casefold(), c.name.casefold())])
                        if (table.schema.casefold(), table.name.casefold(), c.name.casefold()) in defaults else c
                        for c in table.columns)
        out.append(replace(table, columns=columns))
    return tuple(out)


def _temporal(tables: tuple, corpus_tables: tuple) -> tuple:
    """The endpoint's tables with the corpus's system versioning: the endpoint holds each temporal table and its
    `_Archive` history table as ordinary tables (tests/data/wideworldimporters.py), and its catalog says nothing of
    the pair, which a SQL Server catalog reports (sys.tables.temporal_type, history_table_id). The runner answers
    FOR SYSTEM_TIME from both tables and keeps the history on every write it sends."""
    corpus = {(t.schema.casefold(), t.name.casefold()): t for t in corpus_tables}
    out = []
    for table in tables:
        found = corpus.get((table.schema.casefold(), table.name.casefold()))
        if found is not None and (found.temporal is not None or found.is_history_table):
            table = replace(table, temporal=found.temporal, is_history_table=found.is_history_table)
        out.append(table)
    return tuple(out)


def _with_hierarchies(schema: Any, corpus: Any, tidb, database: str) -> Any:
    """The corpus's hierarchyid columns, which the endpoint holds as varbinary of generated bytes (it has no
    hierarchyid, tests/data/adventureworks.py): on TiDB each becomes the column the tool's DDL gives a hierarchyid,
    holding the paths of a tree (every row's parent made before it, three children each), as `data copy` loads
    SQL Server's ToString() paths; the runner then types the column as the corpus does. A key column stays as
    the endpoint made it (TiDB changes no primary key's type)."""
    from sqlsrv2tidb.data.synth_values import tree_path
    from sqlsrv2tidb.model import DataType
    from sqlsrv2tidb.model.hierarchy_path import encode
    from sqlsrv2tidb.translate.naming import NameMap
    from sqlsrv2tidb.translate.types import TypeMapper

    column_type = TypeMapper().map_type(DataType("hierarchyid")).target
    hierarchies = {(t.schema.casefold(), t.name.casefold(), c.name.casefold()) for t in corpus.tables
                   for c in t.columns if c.type.name.casefold() == "hierarchyid"}
    names = NameMap.for_database(schema)
    tables = []
    conn = tidb.connect(database)
    try:
        with conn.cursor() as cur:
            for table in schema.tables:
                key = table.primary_key.column_names if table.primary_key else ()
                changed = [c for c in table.columns if (table.schema.casefold(), table.name.casefold(), c.name.casefold())
                           in hierarchies and c.name not in key]
                if changed and key:
                    target = names.object(table.schema, table.name).name
                    order = ", ".join(f"`{k}`" for k in key)
                    cur.execute(f"SELECT {order} FROM `{target}` ORDER BY {order}")
                    rows = cur.fetchall()
                    for column in changed:
                        _replace_column(cur, target, column.name, column_type)
                        where = " AND ".join(f"`{k}` = %s" for k in key)
                        cur.executemany(f"UPDATE `{target}` SET `{column.name}` = %s WHERE {where}",
                                        [(encode(tree_path(i)), *row) for i, row in enumerate(rows)])
                    conn.commit()
                    changed_names = {c.name for c in changed}
                    table = replace(table, columns=tuple(replace(c, type=DataType("hierarchyid")) if c.name in changed_names
                                                         else c for c in table.columns))
                tables.append(table)
    finally:
        conn.close()
    return replace(schema, tables=tuple(tables))


def _replace_column(cur, table: str, column: str, column_type: str) -> None:
    """The column dropped and added again with `column_type`, in its place and in its indexes (TiDB changes no
    binary column into text)."""
    cur.execute("SELECT INDEX_NAME, NON_UNIQUE, GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX) FROM information_schema.STATISTICS "
                "WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = %s GROUP BY INDEX_NAME, NON_UNIQUE", (table,))
    indexes = [(name, unique, columns.split(",")) for name, unique, columns in cur.fetchall()
               if column.casefold() in {c.casefold() for c in columns.split(",")}]
    cur.execute("SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = %s "
                "ORDER BY ORDINAL_POSITION", (table,))
    order = [r[0] for r in cur.fetchall()]
    at = order.index(next(c for c in order if c.casefold() == column.casefold()))
    for name, _, _ in indexes:
        cur.execute(f"ALTER TABLE `{table}` DROP INDEX `{name}`")
    cur.execute(f"ALTER TABLE `{table}` DROP COLUMN `{column}`")
    place = f"AFTER `{order[at - 1]}`" if at > 0 else "FIRST"
    cur.execute(f"ALTER TABLE `{table}` ADD COLUMN `{column}` {column_type} NULL {place}")
    for name, non_unique, columns in indexes:
        kind = "INDEX" if int(non_unique) else "UNIQUE INDEX"
        cur.execute(f"CREATE {kind} `{name}` ON `{table}` ({', '.join(f'`{c}`' for c in columns)})")


def _user_types(endpoint: Capture, corpus: str) -> tuple:
    source = SOURCES[corpus]
    if source is None:
        return endpoint.database.user_types
    have = {t.qualified_name.casefold() for t in endpoint.database.user_types}
    return endpoint.database.user_types + tuple(t for t in api.read([source]).database.user_types
                                                 if t.qualified_name.casefold() not in have)


def _call_on_tidb(outcome: Outcome, capture: Capture, query: QueryClass, call, session: DriverSession) -> tuple:
    tq = _shaped(query)
    plan = plan_values(capture, Chosen(tq, query, 0.0, call), lambda column: _pool(session, column))
    values = ParameterMaker(plan, 1, 0, 1, query.id).next() if plan.markers else ()
    names = [p.name for p in call.plan.batch.parameters]
    # In a transaction rolled back afterwards, as on the endpoint: each call meets the rows as copied. A call is bounded
    # (the data simulation procedures loop over days and customers): one that reaches the bound without an error is
    # `bounded`, every statement it ran having run.
    result = Runner(session, call.plan.resolve, limits=Limits(statements=BOUND), triggers=call.plan.triggers,
                    dynamic=call.plan.dynamic).call(call.plan.batch, list(zip(names, values, strict=False)), enclosing=True)
    try:
        session.execute("ROLLBACK", ())
    except Exception:  # noqa: BLE001 - a connection the call lost has nothing to roll back
        pass
    outcome.statements, outcome.round_trips = result.statements, result.round_trips
    if result.lost is not None:
        outcome.ran, outcome.target_error = "lost", result.lost.message
    elif not result.errors:
        outcome.ran = "ok"
    elif any(e.message.startswith(_BOUNDED) for e in result.errors) and all(
            e.target_code is None for e in result.errors):
        outcome.ran = "bounded"
    elif any(e.target_code is None and e.number == 50000 and e.message.startswith(_THE_RUNNER) for e in result.errors):
        outcome.ran = "runner error"
        outcome.target_error = next(e for e in result.errors if e.message.startswith(_THE_RUNNER)).text()
    elif all(e.target_code is None for e in result.errors):
        outcome.ran = "its own error"
        outcome.target_error = result.errors[0].text()
    else:
        first = next(e for e in result.errors if e.target_code is not None)
        outcome.ran, outcome.target_error = "target error", first.text()
        outcome.number = first.number
    return values


BOUND = 5_000
"""Statements a corpus call may run (a call that reaches it without an error is `bounded`)."""
_BOUNDED = ("the call ran more than", "the WHILE loop turned more than")
_THE_RUNNER = ("dynamic SQL cannot run", "the value of", "the condition", "SQL built at run time")
_NUMBER = re.compile(r"\((\d+)\) \(SQL")


def _judge_failure(outcome: Outcome, source, query: QueryClass, values: tuple) -> None:
    """A call TiDB refused, made the same way on the endpoint (in a transaction rolled back): when the endpoint
    refuses it with the same error, the values, not the translation, are the cause."""
    from sqlsrv2tidb.compare.sides import declared_batch

    conn = source.mssql.connect(source.name, autocommit=False)
    try:
        cursor = conn.cursor()
        cursor.execute(declared_batch(query.text, query.parameters), list(values))
        while cursor.nextset():
            pass
        answer = None
    except Exception as exc:  # noqa: BLE001 - the endpoint's refusal is the answer looked for
        found = _NUMBER.search(str(exc))
        answer = int(found[1]) if found else -1
        outcome.sql_server = " ".join(str(exc).split())[:300]
    finally:
        try:
            conn.rollback()
        except Exception:  # noqa: BLE001 - the procedure's own ROLLBACK ended the transaction already
            pass
        conn.close()
    if answer is None:
        return
    outcome.ran = "fails on SQL Server too" if answer == outcome.number else "fails on the endpoint too, otherwise"


def _pool(session: DriverSession, column) -> tuple:
    """The values a column holds, the same on every run (replay's own pool takes the first rows, in any order)."""
    if not column.table or not column.column:
        return ()
    name = column.column.replace("`", "``")
    try:
        rows = session.conn.fetch(f"SELECT DISTINCT `{name}` FROM {quote_table(column.table)} WHERE `{name}` IS NOT NULL "
                                  f"ORDER BY `{name}` LIMIT 200")
    except Exception:  # noqa: BLE001 - a table the target lacks: values of the declared type instead
        return ()
    return tuple(jsonable(r[0]) for r in rows)


def _shaped(query: QueryClass):
    from sqlsrv2tidb.model.translation import TranslatedQuery

    return TranslatedQuery(query.id, query.fingerprint, query.text, None, "unsupported", kind="exec")


# The record ------------------------------------------------------------------------------------------------


_COMPLETED = ("ok", "its own error", "fails on SQL Server too", "bounded")
"""Calls that ended as SQL Server's would: without an error, with the procedure's own, or with the error SQL Server
gives the same values; or that ran to the test's bound without an error."""


def coverage(run: CorpusRun) -> tuple[int, int, int, int]:
    """(application procedures, those that run on TiDB, reading ones, reading ones that answer as EXEC does)."""
    application = [o for o in run.outcomes if not o.administration]
    ran = [o for o in application if o.runs and o.ran in _COMPLETED]
    reading = [o for o in application if o.runs and o.reads_only]
    answered = [o for o in reading if o.verdict in ("same", "same up to ties")]
    return len(application), len(ran), len(reading), len(answered)


def write_coverage(run: CorpusRun) -> tuple[int, int, int, int, int, int]:
    """The application's writing procedures that run: (all, compared by their effect, the same, differing with the
    cause named, differing unexplained, left out or not judged: not created on the endpoint, an error, not comparable)."""
    writing = [o for o in run.outcomes if not o.administration and o.runs and not o.reads_only]
    compared = [o for o in writing if o.verdict and o.verdict != "left out"]
    same = [o for o in compared if o.verdict in ("same", "same up to ties")]
    differs = [o for o in compared if o.verdict == "differs"]
    known = [o for o in differs if o.explained]
    return (len(writing), len(compared), len(same), len(known), len(differs) - len(known),
            len(writing) - len(same) - len(differs))


def render(runs: list[CorpusRun], server: str) -> str:
    lines = [
        "# Corpus procedures run by the procedure runner on TiDB, and compared with EXEC on SQL Server",
        "",
        "Every stored procedure of the test corpora (Northwind, AdventureWorks, WideWorldImporters) read by the",
        "procedure runner (docs/procedures.md); each one the runner runs called once on TiDB " + server + " with the",
        "rows of the SQL Server endpoint's fixture copied by `sqlsrv2tidb data copy --create-tables`; each reading",
        "one compared by `sqlsrv2tidb compare` with EXEC on the SQL Server endpoint (Babelfish), two parameter",
        "sets each, its result sets, return status and OUTPUT parameters. Values: a parameter compared with a",
        "column gets a value the target's column holds, the others one of their declared type (replay's",
        "parameter plan). Procedures that write are compared by their effect (`compare --allow-writes`: each",
        "call on both sides in a transaction rolled back, its refusals, rows affected, result sets, return status,",
        "OUTPUT parameters and the rows it left in every table it touched). A procedure that administers the",
        "database (auditing, indexing, partitioning, in-memory,",
        "PolyBase, row-level security, roles) is classed apart and not counted in the application's coverage.",
        "The endpoint holds WideWorldImporters' system-versioned tables as ordinary tables beside their `_Archive`",
        "tables, and its catalog reports neither the versioning nor the sequences behind column defaults: the",
        "runner takes both from the corpus's own definitions, as a SQL Server catalog reports them. The endpoint has",
        "no hierarchyid: AdventureWorks's hierarchyid columns are varbinary there, and on TiDB they get the tool's",
        "hierarchyid column holding a tree of paths, as `data copy` loads SQL Server's ToString() (their calls are",
        "not compared: the endpoint cannot run the methods, docs/babelfish.md).",
        "Regenerate (needs the shared servers):",
        "",
        f"    {COMMAND}",
        "",
        "| corpus | application procedures | run on TiDB | reading ones | answer as EXEC does | administration, apart |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for run in runs:
        application, ran, reading, answered = coverage(run)
        lines.append(f"| {run.corpus} | {application} | {ran} ({_share(ran, application)}) | {reading} "
                     f"| {answered} | {len(run.outcomes) - application} |")
    lines += [
        "",
        "| corpus | writing ones that run | compared by their effect | same | differ, cause named | differ, unexplained "
        "| left out or not judged |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for run in runs:
        lines.append("| " + " | ".join([run.corpus, *(str(n) for n in write_coverage(run))]) + " |")
    lines += [
        "",
        "Run on TiDB: the runner runs the procedure and its call ended as SQL Server's would (without an error, with",
        f"the procedure's own, or with the error SQL Server gives the same values), or ran {BOUND:,} statements without an",
        "error and was stopped there (the data simulation procedures loop over days and customers; `bounded` below).",
        "Answer as EXEC does: compared, the same or the same up to ties. Every call, the administration's included:",
        "",
        "| corpus | procedures | runner runs them | ran on TiDB | bounded | ended by their own error | fail on SQL Server too "
        "| fail on the endpoint too, otherwise | failed on TiDB, not judged | failed on TiDB only | runner error | read only "
        "| compared | same | same up to ties | differ | error | not comparable | not created on the endpoint |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for run in runs:
        compared = [o for o in run.outcomes if o.verdict and o.verdict != "left out"]
        lines.append(
            f"| {run.corpus} | {len(run.outcomes)} | {run.count(lambda o: o.runs)} | {run.count(lambda o: o.ran == 'ok')} "
            f"| {run.count(lambda o: o.ran == 'bounded')} "
            f"| {run.count(lambda o: o.ran == 'its own error')} | {run.count(lambda o: o.ran == 'fails on SQL Server too')} "
            f"| {run.count(lambda o: o.ran == 'fails on the endpoint too, otherwise')} "
            f"| {run.count(lambda o: o.ran in ('target error', 'lost') and not o.created)} "
            f"| {run.count(lambda o: o.ran in ('target error', 'lost') and o.created)} "
            f"| {run.count(lambda o: o.ran == 'runner error')} "
            f"| {run.count(lambda o: o.runs and o.reads_only)} | {len(compared)} | "
            + " | ".join(str(sum(1 for o in compared if o.verdict == v))
                         for v in ("same", "same up to ties", "differs", "error", "not comparable"))
            + f" | {run.count(lambda o: not o.created)} |")
    lines += ["", "Each call runs in a transaction rolled back afterwards, on both sides, so every call meets the rows as",
              "copied. Ran on TiDB: the call ended without an error. Ended by their own error: the procedure raised it",
              "itself (THROW or RAISERROR on the values it was given). Fail on SQL Server too: TiDB refused a statement",
              "and the same call on the endpoint fails with the same error (a foreign key the values meet): the values,",
              "not the translation. Fail on the endpoint too, otherwise: the endpoint fails the same call with another",
              "error (Babelfish cannot run it, or lacks a column its fixture left out; each listed below with both",
              "errors). Failed on TiDB, not judged: the endpoint does not hold the procedure. Failed on TiDB only: the",
              "endpoint runs the call and TiDB does not.", ""]
    for run in runs:
        lines += [f"## {run.corpus}", "", "| procedure | on TiDB | call | statements | round trips | answers | rows |",
                  "|---|---|---|---:|---:|---|---:|"]
        for o in run.outcomes:
            where = "runs" if o.runs else f"stopped: {_cell(o.stops, 160)}"
            if o.administration:
                where = f"administration ({o.administration}); {where}"
            call = o.ran + (f": {_cell(o.target_error, 140)}" if o.target_error else "") if o.ran else "—"
            if o.sql_server and o.ran.startswith("fails on"):
                call += f"; the endpoint: {_cell(o.sql_server, 120)}"
            answers = (f"not created on the endpoint: {_cell(o.refused, 120)}" if not o.created else
                       o.verdict + (f": {_cell(o.reason, 140)}" if o.reason else "") if o.verdict else "—")
            if o.explained:
                answers += f" (explained: {_cell(o.explained, 140)})"
            lines.append(f"| {o.name} | {where} | {call} | {o.statements if o.ran else '—'} "
                         f"| {o.round_trips if o.ran else '—'} | {answers} | {o.rows or '—'} |")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "—"


_ROOT = str(Path(__file__).resolve().parents[2]) + "/"


def _cell(text: str, limit: int) -> str:
    flat = " ".join(text.split()).replace(_ROOT, "").replace("|", "\\|")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
