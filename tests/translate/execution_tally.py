"""The execution check's tally as a Markdown page (`benchmarks/translate/EXECUTION.md`): per target and
corpus, how many statements are usable and how many ran; the errors by class, translation defects
apart from inputs that are broken in SQL Server too; and every failing statement, listed."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from execution import Run

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "benchmarks" / "translate" / "EXECUTION.md"
COMMAND = ("UPDATE_EXECUTION=1 PYTHONPATH=$PWD python3 -m pytest -q -p no:cacheprovider "
           "tests/translate/test_execution.py")

_CAUSES = {"translation": "translation defect", "missing": "object the schema lacks", "input": "broken in SQL Server too",
           "data": "needs data the run lacks", "target": "runs on TiDB, not on MariaDB"}

_HEAD = """# Translations proven by execution

Every statement of the development corpora that the translator calls usable (`translated`,
`rewritten` or `review`) is run on a real server: TiDB v8.5.3 and MariaDB, each with the corpus's
schema created by the tool's own DDL (`ddl/` without the placement, index and foreign-key files),
empty tables, TiDB's default sql_mode (`ONLY_FULL_GROUP_BY`, strict) on both, parameters bound to a
generated value of their declared type, and every statement in a transaction that is rolled back.

Corpora: the golden pairs (`tests/translate/golden`), the 857 Stack Exchange Data Explorer queries
against the Stack Overflow schema of `tables_so.json`, and the queries inside the modules (views,
procedures, functions, triggers) of AdventureWorks and WideWorldImporters against their schemas.

An error is put in one of four causes: a **translation defect** (the tool's text fails where the
T-SQL runs on SQL Server), an **object the schema lacks** (a table or column the corpus's schema
does not have, or another database), an input **broken in SQL Server too** (invalid T-SQL that SQL
Server rejects as well: each listed with why), or a statement that **needs data the run lacks** (a
NULL into a NOT NULL column, from a lookup in an empty table or from a module's variable set by a
statement the check does not run: SQL Server fails the same way on the same values). On MariaDB a fifth: what **runs on TiDB, not on MariaDB** (TiDB ran the same text; a
feature MariaDB lacks, such as WITH ROLLUP with ORDER BY or a CTE before UPDATE).

MySQL runs what the tool writes for it (`--target-engine mysql`): its own DDL (sequences as
AUTO_INCREMENT columns or sequence tables, MySQL's collations, CHECKs it takes) and its own
translation, which differs from TiDB's where MySQL refuses what TiDB runs: a temporary table read
twice in one statement (error 1137), an UPDATE or DELETE reading its own target in a subquery (1093,
read through a derived table instead), a constant PARTITION BY (3592), more than six fractional
digits in a date-time string (1525), a date variable holding its string (1292: cast as SQL Server
assigns it), YEAR() being unsigned (1690: EXTRACT(YEAR FROM ...) instead), NEXT VALUE FOR and
TiDB-only functions (no MySQL form). A statement the translator cannot write for MySQL is not usable
there, so MySQL's usable count is its own. The session uses the tables' collation, as the tool's own
connections to MySQL do (finding MY10).

What differs per target, and what the translator writes for it:

- table names and aliases: TiDB compares them case-insensitively (lower_case_table_names is fixed
  at 2), as SQL Server does; MySQL and MariaDB on Linux compare them case-sensitively by default.
  The translator spells every table as the schema (and so the DDL) spells it and every alias as
  where it is defined, which runs on all three;
- `TOP n` inside `IN (...)`, `ALL (...)`, `ANY (...)`: TiDB runs LIMIT there, MySQL and MariaDB refuse
  it (error 1235); the translator moves it into a derived table, which runs on all three (a
  subquery that reads the outer query stays as it is: it runs on TiDB only);
- a date-time compared with a string that is no date-time: MySQL fails (error 1525) where TiDB and
  MariaDB compare with a warning; SQL Server fails to convert such a string as MySQL does, so these
  are counted as inputs (the T-SQL's own string) or data (a generated parameter value);
- ONLY_FULL_GROUP_BY: TiDB matches a GROUP BY expression only whole, MariaDB only columns; the
  translator writes what TiDB accepts (`MIN(expression)` where one is used inside another), and
  MariaDB's stricter reading is listed below as what runs on TiDB only.

Regenerate (needs the shared TiDB and MySQL builds, or `SQLSRV2TIDB_TEST_TIDB` and `SQLSRV2TIDB_TEST_MYSQL`):

    {command}
"""


def render(runs: list[Run]) -> str:
    lines = [_HEAD.format(command=COMMAND)]
    for target in sorted({r.target for r in runs}, key=lambda t: (t != "tidb", t)):
        mine = [r for r in runs if r.target == target]
        lines += [f"## {_TITLES.get(target, target)}", "",
                  "| corpus | statements | usable | ran | translation defects | object the schema lacks "
                  "| broken in SQL Server too | needs data | runs on TiDB only |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for run in mine:
            ran = len(run.usable) - len(run.failures())
            lines.append(f"| {run.corpus} | {len(run.outcomes)} | {len(run.usable)} | {ran} | "
                         + " | ".join(str(len(run.failures(cause))) for cause in _CAUSES) + " |")
        lines.append("")
        tally = Counter((o.failure.cause, o.failure.kind) for r in mine for o in r.failures())
        if tally:
            lines += ["| cause | class | statements |", "|---|---|---:|"]
            for (cause, kind), n in sorted(tally.items(), key=lambda item: (list(_CAUSES).index(item[0][0]), -item[1], item[0][1])):
                lines.append(f"| {_CAUSES[cause]} | {kind} | {n} |")
            lines.append("")
            lines += ["Every failing statement:", ""]
            for run in mine:
                for o in run.failures():
                    f = o.failure
                    why = f" ({f.reason})" if f.reason else ""
                    lines.append(f"- {o.sample.id} [{o.translation.status}]: {_CAUSES[f.cause]}, {f.kind}{why}: "
                                 f"`{f.code}` {_cell(f.message)}")
            lines.append("")
        left = Counter()
        for run in mine:
            for what, n in run.left_out:
                if n:
                    left[f"{run.corpus}: {what}"] += n
        if left:
            lines += ["Not run: " + "; ".join(f"{k} ({n})" for k, n in sorted(left.items())) + ".", ""]
    return "\n".join(lines).rstrip() + "\n"


_TITLES = {"tidb": "TiDB v8.5.3", "mariadb": "MariaDB", "mysql": "MySQL 9.7 (its own DDL and translation)"}


def _cell(text: str) -> str:
    return " ".join(text.replace("`", "'").split())[:160]
