"""How MySQL's text differs from TiDB's, as entries of the writer's dispatch table (`dispatch`).

The MySQL target is written with TiDB's handlers (`tidb_writer`: SQL Server's types in MySQL's
spelling, and what neither server runs refused), with these in their place where MySQL 8 differs:

- a window's `PARTITION BY` of constants: one partition, as SQL Server reads it; MySQL reads an
  integer there as a position and refuses it (error 3592), so constant keys are left out;
- a date-time string with more than six fractional digits (SQL Server's datetime2(7) writes seven):
  MySQL refuses it where a DATETIME is expected (error 1525, "Incorrect DATETIME value") where TiDB
  rounds; DATETIME(6) keeps six digits, so the seventh is cut, as the column's value is;
- YEAR(x): MySQL's is unsigned (TiDB's and SQL Server's are signed int), so `YEAR(d) - 2011` fails for an
  earlier year (error 1690, "BIGINT UNSIGNED value is out of range"); `EXTRACT(YEAR FROM x)`, the same value,
  is signed;
- what neither can run is refused by TiDB's handlers, in MySQL's name (the dialect's `ENGINE`).

https://dev.mysql.com/doc/refman/8.4/en/window-functions-usage.html
https://dev.mysql.com/doc/refman/8.4/en/fractional-seconds.html
"""

from __future__ import annotations

import re
import typing as t

from sqlglot import exp
from sqlglot.generators.mysql import MySQLGenerator

from . import tidb_writer

Handler = t.Callable[[MySQLGenerator, t.Any], str]

_LONG_FRACTION = re.compile(r"^(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}\.\d{6})\d+$")


def window_sql(self: MySQLGenerator, expression: exp.Window) -> str:
    """`ROW_NUMBER() OVER (PARTITION BY 1 ORDER BY a)` -> `ROW_NUMBER() OVER (ORDER BY a)`: a constant key is
    one partition, which is what no PARTITION BY means."""
    keys = expression.args.get("partition_by") or []
    if keys and all(isinstance(k, exp.Literal) or isinstance(k, exp.Null) for k in keys):
        expression = expression.copy()
        expression.set("partition_by", None)
    return MySQLGenerator.window_sql(self, expression)


def literal_sql(self: MySQLGenerator, expression: exp.Literal) -> str:
    """`'9999-12-31 23:59:59.9999999'` -> `'9999-12-31 23:59:59.999999'`: MySQL keeps six fractional digits."""
    if expression.is_string:
        m = _LONG_FRACTION.match(expression.this)
        if m:
            return MySQLGenerator.literal_sql(self, exp.Literal.string(m[1]))
    return tidb_writer.literal_sql(self, expression)


def year_sql(self: MySQLGenerator, expression: exp.Year) -> str:
    """`YEAR(d)` -> `EXTRACT(YEAR FROM d)`: a signed year, as SQL Server's YEAR returns an int."""
    return f"EXTRACT(YEAR FROM {self.sql(expression, 'this')})"


def into_sql(self: MySQLGenerator, expression: exp.Into) -> str:
    self.unsupported("SELECT ... INTO a new table is not supported by MySQL (use CREATE TABLE ... AS SELECT)")
    return ""


WRITERS: dict[type[exp.Expr], Handler] = {
    **tidb_writer.WRITERS,
    exp.Into: into_sql,
    exp.Window: window_sql,
    exp.Literal: literal_sql,
    exp.Year: year_sql,
}

WITHOUT_UNNEST: dict[type[exp.Expr], Handler] = {**WRITERS, exp.Select: tidb_writer.WITHOUT_UNNEST[exp.Select]}

def dispatch(generator: MySQLGenerator, unnest: bool = True) -> MySQLGenerator:
    """Make a MySQL writer write for the MySQL target: MySQL's handlers over TiDB's (one table, built once)."""
    return tidb_writer.install(generator, WRITERS, WITHOUT_UNNEST, unnest)
