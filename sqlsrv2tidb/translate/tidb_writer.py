"""How TiDB's text differs from MySQL's, as entries of sqlglot's writer dispatch table.

TiDB is written with sqlglot's own MySQL writer; what differs is a handler per node class, put in
place of MySQL's in the writer's dispatch table (`dispatch`). Not a subclass of the writer: with
sqlglot's compiled extension (`sqlglot[c]`, the mypyc build) the writer is a compiled class that a
Python subclass cannot be instantiated from ("interpreted classes cannot inherit from compiled"),
and compiled code calls its own methods directly, past any override. Every node is written through
the dispatch table, compiled or not, so the same handlers work on both builds. A handler that needs
MySQL's writing for the rest calls MySQL's method (`MySQLGenerator.cast_sql(self, ...)`), as a
subclass would call `super()`; MySQL's class-level tables it cannot replace (type names, cast
names, type parameters, unsupported types) are applied here before that call.

Constructs TiDB cannot run (LATERAL joins, RETURNING, MERGE, table hints, SELECT ... INTO a new
table) are reported through sqlglot's `unsupported` channel, so a statement that still holds one
after the project's transforms fails loudly instead of being written in a form TiDB rejects.
"""

from __future__ import annotations

import re
import typing as t

from sqlglot import exp, transforms
from sqlglot.generators.mysql import MySQLGenerator

Handler = t.Callable[[MySQLGenerator, t.Any], str]

# Fractional seconds stop at 6 digits; SQL Server's defaults differ from MySQL's (datetime keeps
# milliseconds, decimal defaults to 18 digits): (defaults, bounds) per type.
# https://docs.pingcap.com/tidb/stable/data-type-date-and-time
TYPE_PARAM_SETTINGS: dict[exp.DType, tuple[tuple[int, ...], tuple[int | None, ...]]] = {
    exp.DType.DATETIME: ((3,), (6,)),
    exp.DType.DATETIME2: ((6,), (6,)),
    exp.DType.TIME: ((6,), (6,)),
    exp.DType.TIMESTAMP: ((), (6,)),
    exp.DType.DECIMAL: ((18, 0), ()),
}

# Type names TiDB spells unlike MySQL's writer.
TYPE_MAPPING: dict[exp.DType, str] = {
    exp.DType.TIMESTAMPTZ: "DATETIME",
    exp.DType.DOUBLE: "DOUBLE",
    exp.DType.IMAGE: "LONGBLOB",
    exp.DType.TEXT: "LONGTEXT",
}

# SQL Server types without a same-named TiDB type, in column definitions.
# https://docs.pingcap.com/tidb/stable/data-type-overview
SQLSERVER_TYPES: dict[exp.DType, str] = {
    exp.DType.MONEY: "DECIMAL(19, 4)",
    exp.DType.SMALLMONEY: "DECIMAL(10, 4)",
    exp.DType.UUID: "CHAR(36)",
    exp.DType.BIT: "TINYINT(1)",
    exp.DType.ROWVERSION: "BINARY(8)",
}

# `varchar(max)` and friends hold up to 2 GB in SQL Server; TiDB's LONG types cap at 6 MiB by
# default (txn-entry-size-limit). https://docs.pingcap.com/tidb/stable/tidb-limitations
MAX_TYPES: dict[exp.DType, str] = {
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

# Cast targets TiDB names unlike MySQL's writer (on top of MySQL's own cast names).
CAST_MAPPING: dict[exp.DType, str] = {
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


def engine(self: MySQLGenerator) -> str:
    """The server the text is written for, in a refusal's words: the dialect's `ENGINE` (TiDB, MySQL)."""
    return getattr(self.dialect, "ENGINE", "TiDB")


def _unsupported(what: str) -> Handler:
    def generate(self: MySQLGenerator, expression: exp.Expr) -> str:
        self.unsupported(f"{what} is not supported by {engine(self)}")
        return ""

    return generate


def _is_max(datatype: exp.DataType) -> bool:
    return any(p.name.upper() == "MAX" for p in datatype.expressions)


def datatype_sql(self: MySQLGenerator, expression: exp.DataType) -> str:
    type_value = expression.this
    if type_value in SQLSERVER_TYPES:
        return SQLSERVER_TYPES[type_value]
    if type_value in MAX_TYPES and _is_max(expression):
        return MAX_TYPES[type_value]
    if type_value == exp.DType.DOUBLE and expression.expressions:
        # float(n): n <= 24 is a 4-byte float, otherwise a double.
        digits = expression.expressions[0]
        size = digits.this if isinstance(digits, exp.DataTypeParam) else digits
        return "FLOAT" if size.is_int and int(size.name) <= 24 else "DOUBLE"
    if isinstance(type_value, exp.DType):
        settings = TYPE_PARAM_SETTINGS.get(type_value)
        if settings is not None and not expression.args.get("nested"):
            expression = self.datatype_param_bound_limiter(expression, type_value, *settings)
        if type_value in UNSUPPORTED_TYPES:
            self.unsupported(f"Data type {type_value.value} is not supported when targeting {engine(self)}")
        if type_value in TYPE_MAPPING:
            expression = expression.copy()  # MySQL's writer reads a name given as text as it is
            expression.set("this", TYPE_MAPPING[type_value])
    return MySQLGenerator.datatype_sql(self, expression)


def cast_sql(self: MySQLGenerator, expression: exp.Cast, safe_prefix: str | None = None) -> str:
    to = expression.to
    if isinstance(to, exp.DataType) and _is_max(to):
        to = exp.DataType(this="BINARY" if to.this == exp.DType.VARBINARY else "CHAR")
        expression = expression.copy()
        expression.set("to", to)
    elif isinstance(to, exp.DataType) and to.this == exp.DType.DOUBLE:
        return f"CAST({self.sql(expression, 'this')} AS {datatype_sql(self, to)})"
    if expression.to.this in CAST_MAPPING and expression.to.this not in self.TIMESTAMP_FUNC_TYPES:
        expression.to.set("this", CAST_MAPPING[expression.to.this])  # what MySQL's writer does with its own names
    return MySQLGenerator.cast_sql(self, expression, safe_prefix)


def table_sql(self: MySQLGenerator, expression: exp.Table, sep: str = " AS ") -> str:
    # DUAL is a reserved word, so the MySQL writer quotes it, and `DUAL` in backticks names a table.
    if expression.name.upper() == "DUAL" and not expression.args.get("db") and not expression.alias:
        return "DUAL"
    return MySQLGenerator.table_sql(self, expression, sep)


def into_sql(self: MySQLGenerator, expression: exp.Into) -> str:
    # CREATE TABLE ... AS SELECT is unsupported: https://docs.pingcap.com/tidb/stable/mysql-compatibility
    self.unsupported("SELECT ... INTO a new table (CREATE TABLE ... AS SELECT) is not supported by TiDB")
    return ""


def version_sql(self: MySQLGenerator, expression: exp.Version) -> str:
    # FOR SYSTEM_TIME reads a temporal table's history; TiDB's AS OF TIMESTAMP is a stale snapshot read.
    self.unsupported(f"FOR SYSTEM_TIME (temporal tables) is not supported by {engine(self)}")
    return ""


def join_sql(self: MySQLGenerator, expression: exp.Join) -> str:
    # No FULL OUTER JOIN: https://docs.pingcap.com/tidb/stable/sql-statement-select
    if expression.side == "FULL":
        self.unsupported(f"FULL OUTER JOIN is not supported by {engine(self)}")
    return MySQLGenerator.join_sql(self, expression)


def literal_sql(self: MySQLGenerator, expression: exp.Literal) -> str:
    # A number with a trailing point (`86400.`) is numeric in T-SQL; TiDB reads `86400. AS x` as a
    # syntax error, so the point gets a digit: `86400.0`, the same value.
    if not expression.is_string and expression.this.endswith("."):
        return expression.this + "0"
    if expression.is_string and _END_OF_TIME.match(expression.this):
        # The "end of time" applications write for datetime2(7) would round past TiDB's largest DATETIME(6) (error
        # 1292); it keeps its truncated value, as the data load keeps it (data/normalize.py).
        return MySQLGenerator.literal_sql(self, exp.Literal.string("9999-12-31 23:59:59.999999"))
    return MySQLGenerator.literal_sql(self, expression)


_END_OF_TIME = re.compile(r"^9999-?12-?31[ T]23:59:59\.9999999\d*$")


def forclause_sql(self: MySQLGenerator, expression: exp.ForClause) -> str:
    self.unsupported(f"FOR {expression.text('kind')} is not supported by {engine(self)}")
    return ""


WRITERS: dict[type[exp.Expr], Handler] = {
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
    # sqlglot's MySQL writer turns one FULL JOIN into a union that keeps `ORDER BY t.c` (TiDB error 1250);
    # the translator rewrites FULL JOINs itself (transforms_joins), so the writer must not.
    exp.Select: transforms.preprocess([
        transforms.eliminate_distinct_on,
        transforms.eliminate_semi_and_anti_joins,
        transforms.eliminate_qualify,
        transforms.unnest_generate_date_array_using_recursive_cte,
    ]),
    # The REGEXP operator reads the same in TiDB, MySQL and MariaDB; REGEXP_LIKE() is not in MariaDB.
    # https://docs.pingcap.com/tidb/stable/string-functions
    exp.RegexpLike: lambda self, e: (
        self.binary(e, "REGEXP") if not e.args.get("flag") else self.func("REGEXP_LIKE", e.this, e.expression, e.args["flag"])
    ),
    exp.DataType: datatype_sql,
    exp.Cast: cast_sql,
    # MySQL writes these through its cast method, which compiled code calls past the dispatch table.
    exp.TryCast: cast_sql,
    exp.JSONCast: cast_sql,
    exp.Table: table_sql,
    exp.Into: into_sql,
    exp.Version: version_sql,
    exp.Join: join_sql,
    exp.ForClause: forclause_sql,
    exp.Literal: literal_sql,
}

WITHOUT_UNNEST: dict[type[exp.Expr], Handler] = {
    **WRITERS,
    # The same without the search for UNNEST(GENERATE_DATE_ARRAY(...)), which walks each SELECT's whole
    # subtree (every nested one again): for a tree known to hold no UNNEST (`dispatch`).
    exp.Select: transforms.preprocess([
        transforms.eliminate_distinct_on,
        transforms.eliminate_semi_and_anti_joins,
        transforms.eliminate_qualify,
    ]),
}

_TABLES: dict[tuple[int, int], dict[type[exp.Expr], Handler]] = {}


def dispatch(generator: MySQLGenerator, unnest: bool = True) -> MySQLGenerator:
    """Make a MySQL writer write TiDB: TiDB's handlers in place of MySQL's (one table, built once).

    `unnest=False` for a tree known to hold no UNNEST (the output check saw every node of it), whose
    SELECTs need not be searched for one: the same text, without a walk per SELECT."""
    return install(generator, WRITERS, WITHOUT_UNNEST, unnest)


def install(generator: MySQLGenerator, writers: dict[type[exp.Expr], Handler],
            without_unnest: dict[type[exp.Expr], Handler], unnest: bool) -> MySQLGenerator:
    """Put `writers` (or `without_unnest`) over the generator's own dispatch table: one table per generator
    class and set of handlers, built once (TiDB's here, MySQL's in `mysql_writer`)."""
    chosen = writers if unnest else without_unnest
    key = (id(type(generator)), id(chosen))
    table = _TABLES.get(key)
    if table is None:
        table = _TABLES[key] = {**generator._dispatch, **chosen}
    generator._dispatch = table
    return generator
