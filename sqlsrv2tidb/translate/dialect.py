"""The sqlglot dialects the translator works between: T-SQL as captured, and TiDB or MySQL as the target.

`TiDB(MySQL)` is MySQL's dialect writing TiDB's differences: the handlers of `tidb_writer` (SQL
Server's types in TiDB's spelling, what TiDB cannot run reported as unsupported) in MySQL's
writer. `MySQLTarget(TiDB)` writes for a MySQL 8 target: TiDB's handlers with MySQL's differences
from them (`mysql_writer`); `target_dialect` picks one of the two from the options, the one place
the engine chooses the writer. `SqlServer(TSQL)` reads captured T-SQL with the corrections of `tsql_reader` (precisions of
GETDATE and SYSDATETIME, DATEDIFF and DATEADD as SQL Server counts, every query hint) and reads
FLOAT (8 bytes in SQL Server) as a double.

Both work with sqlglot's pure-Python build and with its compiled extension (`sqlglot[c]`), whose
parser and writer are compiled classes a Python subclass cannot be instantiated from: so neither
dialect subclasses them; each dialect hands out sqlglot's own parser or writer, with the
corrections put around the parser (`tsql_reader`) and into the writer's dispatch table
(`tidb_writer`). Importing this module registers both names with sqlglot (`read="sqlserver"`,
`write="tidb"`).
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp
from sqlglot.dialects.mysql import MySQL
from sqlglot.dialects.tsql import TSQL
from sqlglot.generator import Generator
from sqlglot.tokens import Token, TokenType

from ..options import Options
from . import mysql_writer, tidb_writer, tsql_reader
from .tsql_reader import DATE_PARTS

__all__ = ["DATE_PARTS", "MYSQL_TARGET", "TIDB", "TSQL_DIALECT", "MySQLTarget", "SqlServer", "TiDB", "target_dialect"]


class SqlServer(TSQL):
    """T-SQL as SQL Server runs it, read with the corrections described in `tsql_reader`."""

    class Tokenizer(TSQL.Tokenizer):
        # FLOAT without a size is float(53), an 8-byte double; REAL stays a 4-byte float.
        # https://learn.microsoft.com/sql/t-sql/data-types/float-and-real-transact-sql
        KEYWORDS = {**TSQL.Tokenizer.KEYWORDS, "FLOAT": TokenType.DOUBLE}

    def parse(self, sql: str, **opts: Any) -> list[exp.Expr | None]:
        return self.parse_tokens(self.tokenize(sql), sql, **opts)

    def parse_into(self, expression_type: exp.IntoType, sql: str, **opts: Any) -> list[exp.Expr | None]:
        return tsql_reader.read(self.parser(**opts), self.tokenize(sql), sql, into=expression_type)

    def parse_tokens(self, tokens: list[Token], sql: str, **opts: Any) -> list[exp.Expr | None]:
        """Parse tokens already made of `sql` (positions index `sql`), with the corrections.

        A parser starts afresh on every parse, so one per set of options is kept and reused (making
        one costs about as much as parsing a short statement); one in use is not shared."""
        key = tuple(sorted(opts.items()))
        idle = self.__dict__.setdefault("_idle_parsers", {})
        parser = idle.pop(key, None) or self.parser(**opts)
        try:
            return tsql_reader.read(parser, tokens, sql)
        finally:
            idle[key] = parser


class TiDB(MySQL):
    """TiDB as a MySQL dialect: the same grammar, with TiDB's gaps and SQL Server's types mapped."""

    ENGINE = "TiDB"
    """The server's name in what the writer refuses (`tidb_writer.engine`)."""

    def generator(self, **opts: Any) -> Generator:
        """sqlglot's MySQL writer with TiDB's handlers; `unnest=False` (the translator's own option, for a
        tree known to hold no UNNEST) leaves out the writer's search for one (`tidb_writer.dispatch`)."""
        unnest = opts.pop("unnest", True)
        return tidb_writer.dispatch(super().generator(**opts), unnest=unnest)


class MySQLTarget(TiDB):
    """MySQL 8 as the target: TiDB's writer with MySQL's differences (`mysql_writer`)."""

    ENGINE = "MySQL"

    def generator(self, **opts: Any) -> Generator:
        unnest = opts.pop("unnest", True)
        return mysql_writer.dispatch(MySQL.generator(self, **opts), unnest=unnest)


TIDB = TiDB()
"""The dialect instance the translator writes with: sqlglot makes a new one from the class on every
call given the class (`sql(dialect=TiDB)`), some microseconds each, several times per statement."""
MYSQL_TARGET = MySQLTarget()


def target_dialect(options: Options) -> TiDB:
    """The dialect a translation for `options`' target engine is written in."""
    return MYSQL_TARGET if options.mysql else TIDB
TSQL_DIALECT = TSQL()
"""sqlglot's own T-SQL dialect (`"tsql"`), made once, for the texts the rewrites compare."""
