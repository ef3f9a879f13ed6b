"""The two sqlglot dialects the translator works between: T-SQL as captured, and TiDB.

`TiDB(MySQL)` lists only where TiDB differs from MySQL, and where SQL Server's own types need a
TiDB spelling, in class-level tables. Constructs TiDB cannot run (LATERAL joins, RETURNING,
MERGE, table hints, SELECT ... INTO a new table) are reported through sqlglot's `unsupported`
channel, so a statement that still holds one after the project's transforms fails loudly
instead of being written in a form TiDB rejects.

`SqlServer(TSQL)` reads captured T-SQL with the few corrections the translator needs: sqlglot's
T-SQL reader folds GETDATE and SYSDATETIME (different precisions) into one node, reads FLOAT
(8 bytes in SQL Server) as a 4-byte float, wraps LEN/LEFT/RIGHT arguments in casts, turns
DATEDIFF into a day count, and rejects query hints it has no entry for (`OPTION (OPTIMIZE FOR
(@p = 5))`, `USE HINT (...)`, `TABLE HINT (...)`). These parse-side fixes keep the meaning in the
tree so the transforms can act on it.

Importing this module registers both names with sqlglot (`read="sqlserver"`, `write="tidb"`).
"""

from __future__ import annotations

import datetime
import typing as t

from sqlglot import exp, transforms
from sqlglot.dialects.mysql import MySQL
from sqlglot.dialects.tsql import TSQL
from sqlglot.generators.mysql import MySQLGenerator
from sqlglot.helper import seq_get
from sqlglot.parsers.tsql import OPTIONS, TSQLParser
from sqlglot.tokens import TokenType

# DATEDIFF/DATEADD date parts and their abbreviations.
# https://learn.microsoft.com/sql/t-sql/functions/datediff-transact-sql#datepart
DATE_PARTS: dict[str, str] = {
    **dict.fromkeys(("year", "yy", "yyyy"), "YEAR"),
    **dict.fromkeys(("quarter", "qq", "q"), "QUARTER"),
    **dict.fromkeys(("month", "mm", "m"), "MONTH"),
    **dict.fromkeys(("dayofyear", "dy", "y"), "DAYOFYEAR"),
    **dict.fromkeys(("day", "dd", "d"), "DAY"),
    **dict.fromkeys(("week", "wk", "ww"), "WEEK"),
    **dict.fromkeys(("weekday", "dw", "w"), "WEEKDAY"),
    **dict.fromkeys(("hour", "hh"), "HOUR"),
    **dict.fromkeys(("minute", "mi", "n"), "MINUTE"),
    **dict.fromkeys(("second", "ss", "s"), "SECOND"),
    **dict.fromkeys(("millisecond", "ms"), "MILLISECOND"),
    **dict.fromkeys(("microsecond", "mcs"), "MICROSECOND"),
    **dict.fromkeys(("nanosecond", "ns"), "NANOSECOND"),
    **dict.fromkeys(("iso_week", "isowk", "isoww"), "ISO_WEEK"),
}

_DAY_ZERO = datetime.date(1900, 1, 1)


def _date_part(node: exp.Expr | None) -> exp.Var:
    name = node.name if node is not None else ""
    return exp.var(DATE_PARTS.get(name.lower(), name.upper()))


def _date_value(node: exp.Expr | None) -> exp.Expr | None:
    """An integer date argument is the datetime that many days after 1900-01-01 (`DATEADD(day, n, 0)` is a datetime)."""
    if node is not None and node.is_int:
        day = exp.Literal.string((_DAY_ZERO + datetime.timedelta(days=node.to_py())).isoformat())
        return exp.Cast(this=day, to=exp.DataType.build("datetime"))
    return node


def _build_datediff(args: list[exp.Expr]) -> exp.DateDiff:
    return exp.DateDiff(
        this=_date_value(seq_get(args, 2)), expression=_date_value(seq_get(args, 1)), unit=_date_part(seq_get(args, 0))
    )


# DATEADD parts TiDB's INTERVAL spells differently: (unit, factor applied to the number).
# https://docs.pingcap.com/tidb/stable/date-and-time-functions
_DATEADD_UNITS = {"DAYOFYEAR": ("DAY", None), "WEEKDAY": ("DAY", None), "MILLISECOND": ("MICROSECOND", 1000)}


def _build_dateadd(args: list[exp.Expr]) -> exp.DateAdd:
    part = _date_part(seq_get(args, 0))
    number = seq_get(args, 1)
    unit, factor = _DATEADD_UNITS.get(part.name, (part.name, None))
    if factor is not None and number is not None:
        number = exp.Mul(this=exp.Paren(this=number), expression=exp.Literal.number(factor))
    return exp.DateAdd(this=_date_value(seq_get(args, 2)), expression=number, unit=exp.var(unit))


def _build_plain(klass: type[exp.Expr]) -> t.Callable[[list[exp.Expr]], exp.Expr]:
    def build(args: list[exp.Expr]) -> exp.Expr:
        kwargs: dict[str, t.Any] = {"this": seq_get(args, 0)}
        if len(args) > 1:
            kwargs["expression"] = args[1]
        return klass(**kwargs)

    return build


def _precision(digits: int) -> t.Callable[[list[exp.Expr]], exp.Expr]:
    return lambda args: exp.CurrentTimestamp(this=exp.Literal.number(digits))


def _utc_precision(digits: int) -> t.Callable[[list[exp.Expr]], exp.Expr]:
    return lambda args: exp.UtcTimestamp(this=exp.Literal.number(digits))


class SqlServerParser(TSQLParser):
    FUNCTIONS = {
        **TSQLParser.FUNCTIONS,
        # datetime has 3 fractional digits (rounded to 1/300 s), datetime2 has 7; TiDB keeps 6.
        # https://learn.microsoft.com/sql/t-sql/functions/date-and-time-data-types-and-functions-transact-sql
        "GETDATE": _precision(3),
        "SYSDATETIME": _precision(6),
        "GETUTCDATE": _utc_precision(3),
        "SYSUTCDATETIME": _utc_precision(6),
        "DATEDIFF": _build_datediff,
        "DATEADD": _build_dateadd,
        "DATEDIFF_BIG": _build_datediff,
        "LEN": _build_plain(exp.Length),
        "LEFT": _build_plain(exp.Left),
        "RIGHT": _build_plain(exp.Right),
    }

    def _parse_options(self) -> list[exp.Expr] | None:
        """`OPTION (...)`: every query hint SQL Server documents, read whole.

        The hints sqlglot knows keep its form; any other (`OPTIMIZE FOR (@p = 5, @q UNKNOWN)`,
        `USE HINT ('...')`, `TABLE HINT (t, INDEX (ix))`, `USE PLAN N'<xml>'`) is kept as its text,
        up to the next comma outside parentheses, so the statement still parses and the
        translator can name the hint it drops.
        https://learn.microsoft.com/sql/t-sql/queries/hints-transact-sql-query
        """
        if not self._match(TokenType.OPTION):
            return None

        def _parse_option() -> exp.Expr | None:
            index = self._index
            option = self._parse_var_from_options(OPTIONS, raise_unmatched=False)
            if option is not None and not self._match(TokenType.L_PAREN, advance=False):
                self._match(TokenType.EQ)
                return self.expression(exp.QueryOption(this=option, expression=self._parse_primary_or_var()))
            self._retreat(index)
            return self._parse_hint_text()

        return self._parse_wrapped_csv(_parse_option)

    def _parse_hint_text(self) -> exp.Expr | None:
        first, last, depth = self._curr, None, 0
        while self._curr and not (depth == 0 and self._curr.token_type in (TokenType.COMMA, TokenType.R_PAREN)):
            depth += {TokenType.L_PAREN: 1, TokenType.R_PAREN: -1}.get(self._curr.token_type, 0)
            last = self._curr
            self._advance()
        if first is None or last is None:
            self.raise_error("Expected a query hint")
            return None
        return self.expression(exp.QueryOption(this=exp.var(" ".join(self._find_sql(first, last).split()))))


class SqlServer(TSQL):
    """T-SQL as SQL Server runs it, read with the corrections described in the module docstring."""

    class Tokenizer(TSQL.Tokenizer):
        # FLOAT without a size is float(53), an 8-byte double; REAL stays a 4-byte float.
        # https://learn.microsoft.com/sql/t-sql/data-types/float-and-real-transact-sql
        KEYWORDS = {**TSQL.Tokenizer.KEYWORDS, "FLOAT": TokenType.DOUBLE}

    Parser = SqlServerParser


def _unsupported(what: str) -> t.Callable[[MySQLGenerator, exp.Expr], str]:
    def generate(self: MySQLGenerator, expression: exp.Expr) -> str:
        self.unsupported(f"{what} is not supported by TiDB")
        return ""

    return generate


class TiDBGenerator(MySQLGenerator):
    # Fractional seconds stop at 6 digits; SQL Server's defaults differ from MySQL's
    # (datetime keeps milliseconds, decimal defaults to 18 digits).
    # https://docs.pingcap.com/tidb/stable/data-type-date-and-time
    TYPE_PARAM_SETTINGS = {
        exp.DType.DATETIME: ((3,), (6,)),
        exp.DType.DATETIME2: ((6,), (6,)),
        exp.DType.TIME: ((6,), (6,)),
        exp.DType.TIMESTAMP: ((), (6,)),
        exp.DType.DECIMAL: ((18, 0), ()),
    }

    TYPE_MAPPING = {
        **MySQLGenerator.TYPE_MAPPING,
        exp.DType.TIMESTAMPTZ: "DATETIME",
        exp.DType.DOUBLE: "DOUBLE",
        exp.DType.IMAGE: "LONGBLOB",
        exp.DType.TEXT: "LONGTEXT",
    }

    # SQL Server types without a same-named TiDB type, in column definitions.
    # https://docs.pingcap.com/tidb/stable/data-type-overview
    SQLSERVER_TYPES: t.ClassVar[dict[exp.DType, str]] = {
        exp.DType.MONEY: "DECIMAL(19, 4)",
        exp.DType.SMALLMONEY: "DECIMAL(10, 4)",
        exp.DType.UUID: "CHAR(36)",
        exp.DType.BIT: "TINYINT(1)",
        exp.DType.ROWVERSION: "BINARY(8)",
    }

    # `varchar(max)` and friends hold up to 2 GB in SQL Server; TiDB's LONG types cap at 6 MiB by
    # default (txn-entry-size-limit). https://docs.pingcap.com/tidb/stable/tidb-limitations
    MAX_TYPES: t.ClassVar[dict[exp.DType, str]] = {
        exp.DType.VARCHAR: "LONGTEXT",
        exp.DType.NVARCHAR: "LONGTEXT",
        exp.DType.VARBINARY: "LONGBLOB",
    }

    # TiDB has no spatial types, no XML type and no variant type.
    # https://docs.pingcap.com/tidb/stable/mysql-compatibility#unsupported-features
    UNSUPPORTED_TYPES = {
        exp.DType.XML,
        exp.DType.VARIANT,
        exp.DType.GEOGRAPHY,
        exp.DType.GEOMETRY,
        exp.DType.USERDEFINED,
    }

    CAST_MAPPING = {
        **MySQLGenerator.CAST_MAPPING,
        exp.DType.NVARCHAR: "CHAR",
        exp.DType.NCHAR: "CHAR",
        exp.DType.UTINYINT: "UNSIGNED",
        exp.DType.MONEY: "DECIMAL(19, 4)",
        exp.DType.SMALLMONEY: "DECIMAL(10, 4)",
        exp.DType.UUID: "CHAR(36)",
        exp.DType.SMALLDATETIME: "DATETIME",
        exp.DType.TIMESTAMPTZ: "DATETIME",
        exp.DType.IMAGE: "BINARY",
        exp.DType.VARBINARY: "BINARY",
        exp.DType.ROWVERSION: "BINARY(8)",
    }

    TRANSFORMS = {
        **MySQLGenerator.TRANSFORMS,
        # No lateral derived tables: https://docs.pingcap.com/tidb/stable/mysql-compatibility (tidb#40328)
        exp.Lateral: _unsupported("A lateral join (CROSS/OUTER APPLY)"),
        # No RETURNING / OUTPUT clause: https://docs.pingcap.com/tidb/stable/sql-statement-insert
        exp.Returning: _unsupported("An OUTPUT/RETURNING clause"),
        # No MERGE statement: https://docs.pingcap.com/tidb/stable/sql-statements-overview
        exp.Merge: _unsupported("MERGE"),
        # Table hints are T-SQL only: https://docs.pingcap.com/tidb/stable/optimizer-hints
        exp.WithTableHint: _unsupported("A WITH (...) table hint"),
        exp.CurrentTimestampLTZ: _unsupported("A time-zone-aware current time"),
        exp.Pivot: _unsupported("PIVOT/UNPIVOT"),
        # The REGEXP operator reads the same in TiDB, MySQL and MariaDB; REGEXP_LIKE() is not in MariaDB.
        # https://docs.pingcap.com/tidb/stable/string-functions
        # sqlglot's MySQL writer turns one FULL JOIN into a union that keeps `ORDER BY t.c` (TiDB error 1250);
        # the translator rewrites FULL JOINs itself (transforms_joins), so the writer must not.
        exp.Select: transforms.preprocess([
            transforms.eliminate_distinct_on,
            transforms.eliminate_semi_and_anti_joins,
            transforms.eliminate_qualify,
            transforms.unnest_generate_date_array_using_recursive_cte,
        ]),
        exp.RegexpLike: lambda self, e: (
            self.binary(e, "REGEXP") if not e.args.get("flag") else self.func("REGEXP_LIKE", e.this, e.expression, e.args["flag"])
        ),
    }

    def datatype_sql(self, expression: exp.DataType) -> str:
        type_value = expression.this
        if type_value in self.SQLSERVER_TYPES:
            return self.SQLSERVER_TYPES[type_value]
        if type_value in self.MAX_TYPES and _is_max(expression):
            return self.MAX_TYPES[type_value]
        if type_value == exp.DType.DOUBLE and expression.expressions:
            # float(n): n <= 24 is a 4-byte float, otherwise a double.
            digits = expression.expressions[0]
            size = digits.this if isinstance(digits, exp.DataTypeParam) else digits
            return "FLOAT" if size.is_int and int(size.name) <= 24 else "DOUBLE"
        return super().datatype_sql(expression)

    def cast_sql(self, expression: exp.Cast, safe_prefix: str | None = None) -> str:
        to = expression.to
        if isinstance(to, exp.DataType) and _is_max(to):
            to = exp.DataType(this="BINARY" if to.this == exp.DType.VARBINARY else "CHAR")
            expression = expression.copy()
            expression.set("to", to)
        elif isinstance(to, exp.DataType) and to.this == exp.DType.DOUBLE:
            return f"CAST({self.sql(expression, 'this')} AS {self.datatype_sql(to)})"
        return super().cast_sql(expression, safe_prefix)

    def table_sql(self, expression: exp.Table, sep: str = " AS ") -> str:
        # DUAL is a reserved word, so the MySQL writer quotes it, and `DUAL` in backticks names a table.
        if expression.name.upper() == "DUAL" and not expression.args.get("db") and not expression.alias:
            return "DUAL"
        return super().table_sql(expression, sep)

    def into_sql(self, expression: exp.Into) -> str:
        # CREATE TABLE ... AS SELECT is unsupported: https://docs.pingcap.com/tidb/stable/mysql-compatibility
        self.unsupported("SELECT ... INTO a new table (CREATE TABLE ... AS SELECT) is not supported by TiDB")
        return ""

    def version_sql(self, expression: exp.Version) -> str:
        # FOR SYSTEM_TIME reads a temporal table's history; TiDB's AS OF TIMESTAMP is a stale snapshot read.
        self.unsupported("FOR SYSTEM_TIME (temporal tables) is not supported by TiDB")
        return ""

    def join_sql(self, expression: exp.Join) -> str:
        # No FULL OUTER JOIN: https://docs.pingcap.com/tidb/stable/sql-statement-select
        if expression.side == "FULL":
            self.unsupported("FULL OUTER JOIN is not supported by TiDB")
        return super().join_sql(expression)

    def forclause_sql(self, expression: exp.ForClause) -> str:
        self.unsupported(f"FOR {expression.text('kind')} is not supported by TiDB")
        return ""


def _is_max(datatype: exp.DataType) -> bool:
    return any(p.name.upper() == "MAX" for p in datatype.expressions)


class TiDB(MySQL):
    """TiDB as a MySQL dialect: the same grammar, with TiDB's gaps and SQL Server's types mapped."""

    Generator = TiDBGenerator
