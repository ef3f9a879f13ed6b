"""Running translations on a real server: each usable statement of a corpus, against that corpus's
schema as the tool's own DDL creates it, and every error put in a class.

"Usable" has meant that TiDB's parser accepts the text; running it says more. Each statement runs
with its `?` markers bound to a generated value of the parameter's declared type, on empty tables,
under TiDB's default sql_mode (ONLY_FULL_GROUP_BY among others, which MariaDB's default lacks), in
a transaction that is rolled back; the tables a batch creates are dropped after it, so one statement
never sees another's state.

An error is a translation defect unless the T-SQL names an object the corpus's schema lacks (real
queries written against an older or newer schema, another database), is broken in SQL Server too
(a derived table without an alias, ...), or needs data the run lacks (a NULL from a lookup in an
empty table, or from a module variable set by a statement not run, into a NOT NULL column). On a
target other than TiDB, an error TiDB did not raise on the same text is that target's gap. Each
class of error has a name, so the tally says what failed and why (`benchmarks/translate/EXECUTION.md`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

import pymysql
from sqlglot import exp

from sqlsrv2tidb import api
from sqlsrv2tidb.model import Capture, Parameter
from sqlsrv2tidb.model.translation import TranslatedQuery
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.plan.files import TIFLASH_FILE
from sqlsrv2tidb.translate.ddl import is_comment_only, split_statements
from sqlsrv2tidb.translate.emit import split_target_sql, unquoted
from sqlsrv2tidb.translate.naming import NameMap
from sqlsrv2tidb.translate.queries import translate_sql
from sqlsrv2tidb.translate.statements import parse_statements

TIDB_SQL_MODE = ("ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,"
                 "NO_AUTO_CREATE_USER,NO_ENGINE_SUBSTITUTION")
"""TiDB v8.5's default sql_mode (https://docs.pingcap.com/tidb/stable/sql-mode), set on every target."""

SKIPPED_DDL = ("03-tidb-placement.sql", "04-indexes.sql", "05-foreign-keys.sql", TIFLASH_FILE)
"""DDL files not applied: placement has no MySQL form, TiFlash replicas need TiFlash servers, indexes
change no statement's validity and slow TiDB's DDL down, and foreign keys would refuse the test
writes into empty parent tables."""

Cause = Literal["translation", "missing", "input", "data", "target"]


@dataclass(frozen=True)
class Sample:
    """One T-SQL statement (or batch) of a corpus, with the parameters it is given."""

    id: str
    sql: str
    parameters: tuple[Parameter, ...] = ()


@dataclass(frozen=True)
class Corpus:
    name: str
    capture: Capture
    samples: tuple[Sample, ...]
    left_out: tuple[tuple[str, int], ...] = ()
    """Statements of the corpus not run, with why (counted in the tally)."""


@dataclass(frozen=True)
class Failure:
    code: int
    message: str
    statement: str
    kind: str
    """The class of the error (`FULL OUTER JOIN`, `table not in the schema`, ...)."""
    cause: Cause
    reason: str = ""
    """Why an input counts as broken in SQL Server too, when that is not plain from the class."""


@dataclass
class Outcome:
    sample: Sample
    translation: TranslatedQuery
    failure: Failure | None = None

    @property
    def usable(self) -> bool:
        return self.translation.target_sql is not None and self.translation.status != "unsupported"


@dataclass
class Run:
    """The outcomes of one corpus on one target."""

    corpus: str
    target: str
    outcomes: list[Outcome] = field(default_factory=list)
    left_out: tuple[tuple[str, int], ...] = ()

    @property
    def usable(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.usable]

    def failures(self, cause: Cause | None = None) -> list[Outcome]:
        return [o for o in self.outcomes if o.failure is not None and (cause is None or o.failure.cause == cause)]


def translate(corpus: Corpus, sample: Sample, options: Options | None = None) -> TranslatedQuery:
    """The sample translated for TiDB, or for the target `options` name (MySQL)."""
    database = corpus.capture.database
    return translate_sql(sample.sql, database=database, names=_names(corpus), options=options or Options(),
                         parameters=sample.parameters)


_NAME_MAPS: dict[int, NameMap] = {}


def _names(corpus: Corpus) -> NameMap:
    key = id(corpus.capture.database)
    if key not in _NAME_MAPS:
        _NAME_MAPS[key] = NameMap.for_database(corpus.capture.database)
    return _NAME_MAPS[key]


def schema_statements(capture: Capture, options: Options | None = None) -> list[str]:
    """The corpus schema's DDL as the tool writes it (for TiDB, or the target `options` name), less SKIPPED_DDL."""
    plan = api.plan(capture, options or Options())
    out = []
    for ddl in sorted(plan.files, key=lambda f: f.name):
        if ddl.name in SKIPPED_DDL or not ddl.name.endswith(".sql"):
            continue
        out += [s for s in split_statements(ddl.content) if not is_comment_only(s)]
    return out


def create_schema(conn: pymysql.Connection, capture: Capture, options: Options | None = None) -> list[str]:
    """Apply the schema; return the statements the server refused (views over unsupported columns, ...)."""
    refused = []
    with conn.cursor() as cur:
        for statement in schema_statements(capture, options):
            try:
                cur.execute(statement)
            except pymysql.MySQLError as exc:
                refused.append(f"{exc.args[0]}: {exc.args[1]} in {statement[:200]}")
    return refused


# Parameter values ----------------------------------------------------------------------------------

def value_of(type_text: str | None) -> str:
    """A literal of the declared T-SQL type: what SQL Server would have been sent for the parameter."""
    kind = (type_text or "int").lower()
    if "char" in kind or "text" in kind or "xml" in kind or "sysname" in kind:
        return "'a'"
    if "uniqueidentifier" in kind:
        return "'00000000-0000-0000-0000-000000000001'"
    if kind.startswith("date") or "time" in kind:
        return "'2024-03-01 00:00:00'"
    if "binary" in kind or "image" in kind:
        return "X'01'"
    if any(word in kind for word in ("dec", "numeric", "money", "float", "real")):
        return "1.5"
    return "1"


def bind(sql: str, values: Iterator[str]) -> str:
    """Put a literal where each `?` marker is, outside quoted strings and names."""
    out, start = [], 0
    for i in unquoted(sql, "?"):
        out += [sql[start:i], next(values)]
        start = i + 1
    return "".join([*out, sql[start:]])


def parameter_values(sample: Sample, translation: TranslatedQuery) -> list[str]:
    declared = {p.name.lower(): p.type for p in sample.parameters}
    for line in re.findall(r"^\((@[^)]*(?:\([^)]*\)[^)]*)*)\)", sample.sql):
        for name, type_text in re.findall(r"(@\w+)\s+([\w]+(?:\s*\([^)]*\))?)", line):
            declared.setdefault(name.lower(), type_text)
    return [value_of(declared.get(name.lower())) for name in translation.parameters]


# Running ----------------------------------------------------------------------------------------------

_CREATED = re.compile(r"^\s*CREATE\s+(TEMPORARY\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?(`[^`]+`|\w+)", re.I)


MYSQL_SQL_MODE = TIDB_SQL_MODE.replace(",NO_AUTO_CREATE_USER", "")
"""The same modes on MySQL 8, which removed NO_AUTO_CREATE_USER (and refuses it): MySQL 8's own default."""


def session(conn: pymysql.Connection, kind: str, collation: str | None = None) -> None:
    """TiDB's default sql_mode on every target, and a time limit so no statement can hang the run; on MySQL the
    tables' collation for the connection, as the tool's own connections to a MySQL target set it (finding MY10)."""
    with conn.cursor() as cur:
        cur.execute(f"SET SESSION sql_mode = '{MYSQL_SQL_MODE if kind == 'mysql' else TIDB_SQL_MODE}'")
        if collation is not None:
            cur.execute(f"SET NAMES utf8mb4 COLLATE {collation}")
        cur.execute("SET SESSION max_statement_time = 10" if kind == "mariadb" else "SET SESSION max_execution_time = 10000")
    conn.autocommit(False)


def execute(conn: pymysql.Connection, translation: TranslatedQuery, values: list[str]) -> tuple[int, str, str] | None:
    """Run a translation's statements in order, then roll back; (code, message, statement) of the first error."""
    iterator = iter(values)
    created: list[tuple[bool, str]] = []
    error = None
    with conn.cursor() as cur:
        try:
            for statement in split_target_sql(translation.target_sql or ""):
                bound = bind(statement, iterator)
                m = _CREATED.match(bound)
                if m:
                    created.append((bool(m[1]), m[2]))
                cur.execute(bound)
                cur.fetchall()
        except pymysql.MySQLError as exc:
            code = exc.args[0] if exc.args and isinstance(exc.args[0], int) else 0
            error = (code, str(exc.args[1] if len(exc.args) > 1 else exc), bound)
        finally:
            conn.rollback()
            for temporary, name in created:
                cur.execute(f"DROP {'TEMPORARY ' if temporary else ''}TABLE IF EXISTS {name}")
            conn.commit()
    return error


def run_corpus(conn: pymysql.Connection, corpus: Corpus, target: str,
               translations: dict[str, TranslatedQuery] | None = None, reference: Run | None = None) -> Run:
    """Run every usable statement; `reference` is the same corpus's run on TiDB, against which an error
    on another target that TiDB did not raise is that target's gap, not the translation's."""
    ran_on_tidb = {o.sample.id for o in reference.outcomes if o.usable and o.failure is None} if reference else set()
    run = Run(corpus.name, target, left_out=corpus.left_out)
    with conn.cursor() as cur:
        cur.execute("SELECT DATABASE()")
        database = cur.fetchone()[0]
    for sample in corpus.samples:
        translation = (translations or {}).get(sample.id) or translate(corpus, sample)
        outcome = Outcome(sample, translation)
        if outcome.usable:
            error = execute(conn, translation, parameter_values(sample, translation))
            if error is not None:
                outcome.failure = classify(*error, sample=sample, corpus=corpus, database=database,
                                           runs_on_tidb=sample.id in ran_on_tidb)
        run.outcomes.append(outcome)
    return run


def sequence_tables(capture: Capture, options: Options | None) -> set[str]:
    """The tables MySQL's DDL holds sequences in (one row each, by design): not left behind by a statement."""
    plan = api.plan(capture, options or Options())
    return {name.strip("`") for name in plan.settings.get("sequence_tables", ())}


def leftover_rows(conn: pymysql.Connection, ignore: set[str] = frozenset()) -> dict[str, int]:
    """Rows left in any table of the current database (but those in `ignore`): must be none after a run."""
    with conn.cursor() as cur:
        cur.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() "
                    "AND table_type = 'BASE TABLE'")
        names = [r[0] for r in cur.fetchall()]
        counts = {}
        for name in names:
            cur.execute(f"SELECT COUNT(*) FROM `{name}`")
            counts[name] = cur.fetchone()[0]
    conn.commit()
    return {k: v for k, v in counts.items() if v and k not in ignore}


# Classes of errors ------------------------------------------------------------------------------------

BROKEN_INPUTS: dict[str, str] = {
    "sede 143257": "two SELECTs run together; the first has no FROM, so SQL Server rejects p.id, Body, Tags and score too",
    "sede 367275": "the outer query filters on location, which the CTE USER_BY_TAG does not return: "
                   "SQL Server's 'Invalid column name' as well",
}
"""Statements SQL Server rejects as well, for a reason the error class does not show, read one by one."""


_DATA = {
    1048: "NULL into a NOT NULL column (an empty lookup, or a variable set by a statement not run)",
    4025: "a generated value outside a CHECK constraint (MariaDB enforces CHECK)",
    3819: "a generated value outside a CHECK constraint (MySQL enforces CHECK, and TiDB once the DDL turns "
          "tidb_enable_check_constraint on)",
}
_NO_DATE = "a string that is no date-time where one is expected (SQL Server fails to convert it too)"
"""MySQL's error 1525 (`Incorrect DATETIME value`), where TiDB and MariaDB compare with a warning."""
_TARGET_GAPS = (
    (1221, "ROLLUP", "WITH ROLLUP with ORDER BY"),
    (1064, "near 'UPDATE", "a CTE before UPDATE or DELETE"),
    (1064, "near '>>", "the ->> JSON operator"),
    (1305, "GROUPING does not exist", "the GROUPING() function"),
    (1055, "isn't in GROUP BY", "ONLY_FULL_GROUP_BY matching columns only, not GROUP BY expressions"),
    (1146, "", "a table name in another case than the schema's (MariaDB compares them case-sensitively)"),
    (1235, "", "LIMIT inside IN/ALL/ANY/SOME"),
    (1054, "", "an outer query's column inside a derived table, or an alias in another case"),
)


def classify(code: int, message: str, statement: str, *, sample: Sample, corpus: Corpus, database: str,
             runs_on_tidb: bool = False) -> Failure:
    if code in _DATA:
        return Failure(code, message, statement, _DATA[code], "data")
    if code == 1525:  # the value is the statement's own (input) or a generated parameter value (data)
        value = _quoted(message)
        written = bool(value) and f"'{value}'".casefold() in sample.sql.casefold()
        return Failure(code, message, statement, _NO_DATE, "input" if written else "data",
                       "the T-SQL compares a date-time with this string" if written else "")
    if code == 1049:  # MySQL: the database named does not exist (TiDB says the table does not)
        return Failure(code, message, statement, "table of another database", "missing")
    if runs_on_tidb:
        kind = next((label for c, words, label in _TARGET_GAPS if c == code and words in message), f"error {code}")
        return Failure(code, message, statement, kind, "target")
    if sample.id in BROKEN_INPUTS:
        return Failure(code, message, statement, _CLASSES.get(code, f"error {code}"), "input", BROKEN_INPUTS[sample.id])
    kind, cause = _kind(code, message, sample, corpus, database)
    return Failure(code, message, statement, kind, cause)


_CLASSES: dict[int, str] = {
    1055: "GROUP BY: expression not grouped (ONLY_FULL_GROUP_BY)",
    8123: "GROUP BY: aggregate mixed with a column not grouped (ONLY_FULL_GROUP_BY)",
    1140: "GROUP BY: aggregate mixed with a column not grouped (ONLY_FULL_GROUP_BY)",
    8122: "a bare * after other select items",
    1235: "LIMIT inside IN/ALL/ANY/SOME subquery",
    1250: "ORDER BY with a table prefix after UNION",
    1221: "ORDER BY/LIMIT in a UNION operand",
    1305: "function that does not exist",
    1582: "wrong number of arguments",
    1584: "wrong arguments",
    1241: "operand should contain one column",
    1242: "subquery returns more than one row",
    1052: "ambiguous column",
    1060: "duplicate column name",
    1066: "table or alias used twice",
    1093: "update of a table also read in a subquery",
    1111: "invalid use of an aggregate",
    1247: "reference not supported",
    1264: "value out of range",
    1292: "value that does not convert",
    1366: "value that does not convert",
    1365: "division by zero",
    1406: "data too long",
    1364: "NOT NULL column without a value",
    1136: "column count does not match the values",
    1222: "SELECT statements with different column counts",
    1054: "unknown column",
    1146: "table not in the schema",
    1109: "unknown table",
    1248: "derived table without an alias",
    1064: "syntax error",
    3636: "recursion limit of a recursive CTE",
    1105: "TiDB internal error",
}


def _kind(code: int, message: str, sample: Sample, corpus: Corpus, corpus_database: str) -> tuple[str, Cause]:
    database = corpus.capture.database
    if code == 1146:
        qualified = _quoted(message)
        if qualified.count(".") == 1 and qualified.split(".")[0].casefold() != corpus_database.casefold():
            return ("table of another database", "missing")
        name = qualified.split(".")[-1]
        known = any(t.name.casefold() == name.casefold() for t in database.tables) or any(
            m.name.casefold() == name.casefold() for m in database.modules_of("view"))
        return ("table not in the schema", "missing") if not known else ("table named differently", "translation")
    if code == 1054:
        name = _quoted(message).split(".")[-1]
        known = any(t.column(name) is not None for t in database.tables)
        return ("column not in the schema", "missing") if not known else ("unknown column", "translation")
    if code in (1248, 1064) and _unaliased_derived_table(sample.sql):
        return ("derived table without an alias", "input")
    if code == 1064 and re.search(r"near\s+\"?FULL\b|FULL OUTER JOIN|FULL JOIN", message + sample.sql, re.I) and \
            re.search(r"\bFULL\s+(OUTER\s+)?JOIN\b", message, re.I):
        return ("FULL OUTER JOIN", "translation")
    return (_CLASSES.get(code, f"error {code}"), "translation")


def _quoted(message: str) -> str:
    m = re.search(r"'([^']+)'", message)
    return m[1] if m else ""


def _unaliased_derived_table(sql: str) -> bool:
    """A FROM or JOIN source in parentheses without an alias, which SQL Server rejects as well."""
    for statement in parse_statements(sql):
        if statement.tree is None:
            continue
        for subquery in statement.tree.find_all(exp.Subquery):
            if isinstance(subquery.parent, (exp.From, exp.Join)) and not subquery.alias:
                return True
    return False
