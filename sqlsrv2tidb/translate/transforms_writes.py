"""Values an INSERT, UPDATE or MERGE writes into a column, converted to the column's type as SQL Server converts them.

SQL Server converts each value a statement writes to its column's type by its own rules; TiDB and
MySQL convert by theirs. Where the two differ, the same statement stores other rows:

- a decimal, float or real value stored into an integer column (tinyint to bigint) is truncated
  toward zero in SQL Server (`SET royalty = royalty * 1.05`: 14.70 is stored as 14); TiDB and MySQL
  round it (15). Money is rounded on both sides. The value is truncated first, `TRUNCATE(v, 0)`.
- a string stored into an integer column must spell a whole number in SQL Server: '1.5' fails the
  statement (Msg 245, "Conversion failed"), and '' is 0. TiDB and MySQL store '1.5' as 2. The value
  is converted with `CAST(v AS SIGNED)`, which both refuse in an INSERT or UPDATE (error 1292 under
  their default strict sql_mode) where SQL Server refuses it; a literal is judged here.
- a value stored into a datetime column is rounded to 1/300 second, shown .000, .003 or .007
  ('10:30:00.005' is stored as .007, '23:59:59.999' as the next day), where DATETIME(3) keeps the
  millisecond; a smalldatetime is rounded to the minute, 29.999 seconds and more up. A literal is
  rounded here; any other value by an expression TiDB and MySQL both run: one of another type
  (datetime2, time, text), and a datetime that is no datetime column's (GETDATE(), a variable, a
  parameter, an expression), which SQL Server holds on the grid already and TiDB need not. A number
  stored there counts days from 1900-01-01.

Decimal and money columns round half away from zero on every side: nothing is rewritten for them.
A text constant stored into a hierarchyid column becomes the path the DDL stores (transforms_hierarchy).
The column's type and the value's come from the one type model (`Types`; a set operation's column
as its branches combine); a value of a type it cannot know is named in a note. This runs on the
T-SQL tree before the other rewrites, so the value inside the conversion keeps every rewrite of its own.
https://learn.microsoft.com/sql/t-sql/functions/cast-and-convert-transact-sql#truncating-and-rounding-results
https://learn.microsoft.com/sql/t-sql/data-types/datetime-transact-sql#rounding-of-datetime-fractional-second-precision
https://learn.microsoft.com/sql/t-sql/data-types/smalldatetime-transact-sql
https://docs.pingcap.com/tidb/stable/sql-mode
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from sqlglot import exp

from ..tsql.datetimes import (
    fraction_digits,
    read_datetime,
    stored_as_datetime,
    stored_as_smalldatetime,
    written_for_tidb,
)
from . import type_rules as rules
from .context import Context
from .scopes import dml_target, sources
from .templates import call, fill
from .transforms_conversions import days_to_ticks, from_ticks, read_alike
from .transforms_hierarchy import is_hierarchyid, written_path

D = exp.DType
_INTEGER_COLUMNS = frozenset({D.TINYINT, D.UTINYINT, D.SMALLINT, D.INT, D.BIGINT})
_ON_THE_GRID = {D.DATETIME: frozenset({D.DATETIME, D.SMALLDATETIME, D.DATE}),
                D.SMALLDATETIME: frozenset({D.SMALLDATETIME, D.DATE})}
"""Value types a datetime or smalldatetime column stores as they are (already on its grid)."""
_NOTE = "QY78"
WRITTEN = "written"
"""Meta of a converted value: the value as the statement wrote it (MERGE matches its source columns by it)."""
_TICKS = "TIMESTAMPADD(MICROSECOND, ((MICROSECOND(w) * 3 + 5000) DIV 10000 * 10 + 1) DIV 3 * 1000 - MICROSECOND(w), w)"
"""`w` rounded to SQL Server's 1/300-second ticks: the microseconds as ticks rounded half up, the ticks as
milliseconds rounded (1 tick .003, 2 ticks .007), past the last tick into the next second."""
_MINUTES = ("TIMESTAMPADD(MINUTE, TIMESTAMPDIFF(MINUTE, CAST('1900-01-01' AS DATETIME), w) "
            "+ (SECOND(w) * 1000000 + MICROSECOND(w) >= 29999000), CAST('1900-01-01' AS DATETIME))")
"""`w` rounded to smalldatetime's minute (from 1900-01-01, where smalldatetime starts): 29.999 seconds up."""


@dataclass(frozen=True)
class Write:
    """One value a statement writes into a column: where, what, and the value's SQL Server type."""

    table: exp.Table
    column: str
    value: exp.Expr
    value_type: exp.DataType | None


def convert_written_values(statement: exp.Expr, ctx: Context) -> None:
    """Convert, in place, each value `statement` writes whose conversion to its column differs on the target."""
    for write in list(writes(statement, ctx)):
        column_type = ctx.types.target_column(write.table, write.column)
        converted = _converted(write, column_type, ctx)
        if converted is not None and converted is not write.value:
            converted.meta[WRITTEN] = write.value.copy()
            write.value.replace(converted)


def as_written(value: exp.Expr) -> exp.Expr:
    """A value as the statement wrote it, before its conversion to the column's type."""
    return value.meta_get(WRITTEN, value)


def writes(statement: exp.Expr, ctx: Context) -> Iterator[Write]:
    """Each value an INSERT (VALUES or a query), UPDATE (SET, with or without FROM) or MERGE (its UPDATE and INSERT
    actions) writes, with the table and column it goes to."""
    if isinstance(statement, exp.Insert):
        yield from _inserted(statement, statement.this, None, ctx)
    elif isinstance(statement, exp.Update):
        target = statement.this
        if isinstance(target, exp.Table) and statement.args.get("from_") is not None:
            target = dml_target(statement, target) or target
        if isinstance(target, exp.Table):
            yield from _assigned(statement.expressions, target, ctx)
    elif isinstance(statement, exp.Merge) and isinstance(statement.this, exp.Table):
        whens = statement.args.get("whens")
        for when in whens.expressions if whens is not None else []:
            then = when.args.get("then")
            if isinstance(then, exp.Update):
                yield from _assigned(then.expressions, statement.this, ctx)
            elif isinstance(then, exp.Insert):
                yield from _inserted(then, then.this, statement.this, ctx)


def _assigned(items: list[exp.Expr], table: exp.Table, ctx: Context) -> Iterator[Write]:
    for item in items:
        if isinstance(item, exp.EQ) and isinstance(item.this, exp.Column):
            yield Write(table, item.this.name, item.expression, ctx.types.of(item.expression))


def _inserted(insert: exp.Insert, target: exp.Expr | None, table: exp.Table | None, ctx: Context) -> Iterator[Write]:
    """The values of `INSERT INTO t (a, b) VALUES ...` or `... SELECT`, and of MERGE's `INSERT (a, b) VALUES (...)`."""
    if isinstance(target, exp.Schema):
        table, names = target.this, [i.name for i in target.expressions]
    elif isinstance(target, exp.Tuple):
        names = [c.name for c in target.expressions]
    else:
        table = target if isinstance(target, exp.Table) else table
        names = ctx.types.insert_columns(table) if isinstance(table, exp.Table) else None
    if not isinstance(table, exp.Table) or names is None:
        return
    source = insert.expression
    rows = [source] if isinstance(source, exp.Tuple) else source.expressions if isinstance(source, exp.Values) else None
    if rows is not None:
        for row in rows:
            values = row.expressions if isinstance(row, exp.Tuple) else [row]
            for name, value in zip(names, values, strict=False):
                yield Write(table, name, value, ctx.types.of(value))
        return
    if isinstance(source, exp.Query):
        yield from _selected(insert, table, names, ctx)


def _selected(insert: exp.Insert, table: exp.Table, names: list[str], ctx: Context) -> Iterator[Write]:
    """The projections of `INSERT ... SELECT`: a `*` opened into its columns, a set operation's columns typed as
    its branches combine (each branch converted under UNION ALL; under a distinct set operation, which keeps
    values distinct before SQL Server converts them, the rows are converted outside it)."""
    query = insert.expression
    columns = [ctx.types.target_column(table, name) for name in names]
    if isinstance(query, exp.SetOperation):
        types = [ctx.types.query_column(query, k) for k in range(len(names))]
        if not any(_kind(column, value) for column, value in zip(columns, types, strict=True)):
            return
        if _all_union_all(query):
            for branch in _branches(query):
                yield from _projections(branch, table, names, ctx, types)
            return
        if query.args.get("order") is not None or query.args.get("limit") is not None:
            ctx.note(_NOTE, "review", "INSERT ... SELECT with UNION, INTERSECT or EXCEPT and ORDER BY: SQL Server converts "
                     "each value to its column's type after the set operation, which is not rewritten here.")
            return
        query = _outside(insert, query, len(names))
    if isinstance(query, exp.Select):
        if any(_is_star(p) for p in query.selects):
            opened = _opened_stars(query, ctx)
            if opened is None or not any(_kind(column, ctx.types.of(value))
                                         for column, value in zip(columns, opened, strict=False)):
                return
            query.set("expressions", opened)
        yield from _projections(query, table, names, ctx, None)


def _projections(query: exp.Expr, table: exp.Table, names: list[str], ctx: Context,
                 types: list[exp.DataType | None] | None) -> Iterator[Write]:
    while isinstance(query, exp.Subquery):
        query = query.this
    if not isinstance(query, exp.Select):
        return
    for position, (name, projection) in enumerate(zip(names, query.selects, strict=False)):
        value = projection.this if isinstance(projection, exp.Alias) else projection
        yield Write(table, name, value, types[position] if types is not None else ctx.types.of(value))


def _outside(insert: exp.Insert, query: exp.SetOperation, count: int) -> exp.Select:
    """`INSERT INTO t (a) SELECT x UNION SELECT y` -> `INSERT INTO t (a) SELECT written.c1 FROM (SELECT x UNION
    SELECT y) AS written (c1)`: the set operation's rows, converted one by one outside it."""
    names = [f"c{k}" for k in range(1, count + 1)]
    alias = exp.TableAlias(this=exp.to_identifier("written"), columns=[exp.to_identifier(n) for n in names])
    outer = exp.Select(expressions=[exp.column(n, "written") for n in names])
    outer.set("from_", exp.From(this=exp.Subquery(this=query.copy(), alias=alias)))
    insert.set("expression", outer)
    return outer


def _opened_stars(query: exp.Select, ctx: Context) -> list[exp.Expr] | None:
    """A SELECT's projections with each `*` as its columns (`s.a, s.b`, typed in the query's scope), so each can
    be converted; None when a `*`'s columns cannot be known."""
    opened: list[exp.Expr] = []
    for projection in query.selects:
        if not _is_star(projection):
            opened.append(projection)
            continue
        qualifier = projection.table.lower() if isinstance(projection, exp.Column) else ""
        for alias, source in sources(query):
            if qualifier and alias != qualifier:
                continue
            names = ctx.types.column_names(source)
            if names is None or not alias:
                return None
            for name in names:
                column = exp.column(name, alias)
                column.parent = query  # resolves through the query's sources before it joins the tree
                opened.append(column)
    return opened


# The conversions ----------------------------------------------------------------------------

def _kind(column: exp.DataType | None, value: exp.DataType | None) -> bool:
    """Whether storing a value of type `value` into a column of type `column` converts otherwise on the target
    (literals aside, which are judged by their text)."""
    if column is None or value is None:
        return False
    kind = rules.category(value)
    if column.this in _INTEGER_COLUMNS:
        return (kind in ("decimal", "float") and value.this not in rules.MONEY) or kind == "string"
    if column.this in _ON_THE_GRID:
        return value.this not in _ON_THE_GRID[column.this] and kind in (*rules.NUMERIC, *rules.TEMPORAL, "string")
    return False


def _converted(write: Write, column: exp.DataType | None, ctx: Context) -> exp.Expr | None:
    value, kind = write.value, rules.category(write.value_type)
    if _is_null(value) or isinstance(value, exp.Var) and value.name.upper() == "DEFAULT":
        return None
    where = f"{write.table.name}.{write.column}"
    if column is None:
        if kind in ("decimal", "float") and write.value_type is not None and write.value_type.this not in rules.MONEY:
            ctx.note(_NOTE, "review", f"The type of the column {where} is unknown: SQL Server truncates a decimal or float "
                     "value stored into an integer column, where TiDB rounds it.")
        return None
    if column.this in _INTEGER_COLUMNS:
        return _into_integer(write, where, ctx)
    if is_hierarchyid(column):
        return written_path(value, write.value_type, where, ctx)
    if column.this in _ON_THE_GRID:
        return _into_datetime(write, column, where, ctx)
    return None


def _into_integer(write: Write, where: str, ctx: Context) -> exp.Expr | None:
    value, datatype = write.value, write.value_type
    kind = rules.category(datatype)
    if kind in ("decimal", "float") and datatype is not None and datatype.this not in rules.MONEY:
        ctx.note(_NOTE, "rewritten", f"A {kind} value stored into the integer column {where} is truncated toward zero by "
                 "SQL Server (14.70 is stored as 14) and rounded by TiDB (15): it is truncated first.")
        return call("TRUNCATE", value, exp.Literal.number(0))
    if kind == "string":
        text = _text(value)
        if text is not None and re.fullmatch(r"\s*[+-]?\d+\s*", text):
            return None
        if text is not None and not text.strip():
            ctx.note(_NOTE, "rewritten", f"SQL Server stores '' into the integer column {where} as 0; TiDB refuses it: it "
                     "is written 0.")
            return exp.Literal.number(0)
        if text is not None:
            ctx.note(_NOTE, "rewritten", f"SQL Server refuses to store '{text}' into the integer column {where} (Msg 245, "
                     "conversion failed), where TiDB would store it rounded: it is converted with CAST(... AS SIGNED), "
                     "which TiDB refuses in an INSERT or UPDATE too (error 1292).")
        else:
            ctx.note(_NOTE, "review", f"A string stored into the integer column {where} must be a whole number in SQL Server, "
                     "which refuses '1.5' (Msg 245) where TiDB would round it: it is converted with CAST(... AS SIGNED), "
                     "which TiDB refuses in an INSERT or UPDATE too; but an empty string, 0 in SQL Server, TiDB refuses.")
        return fill("CAST(v AS SIGNED)", v=value)
    if datatype is None and not _text(value):
        ctx.note(_NOTE, "review", f"The type of `{value.sql('tsql')[:60]}` is unknown: stored into the integer column "
                 f"{where}, a decimal or float value is truncated by SQL Server and rounded by TiDB.")
    return None


def _into_datetime(write: Write, column: exp.DataType, where: str, ctx: Context) -> exp.Expr | None:
    value, datatype = write.value, write.value_type
    small = column.this == D.SMALLDATETIME
    name = "smalldatetime" if small else "datetime"
    text = _text(value)
    if text is not None:
        return _datetime_literal(text, small, where, ctx)
    if datatype is None:
        ctx.note(_NOTE, "review", f"The type of `{value.sql('tsql')[:60]}` is unknown: stored into the {name} column "
                 f"{where}, SQL Server rounds it to {_GRID[small]}, TiDB does not.")
        return None
    kind = rules.category(datatype)
    if datatype.this == D.DATE or (isinstance(value, exp.Column) and datatype.this in _ON_THE_GRID[column.this]):
        return None  # a date is midnight; a datetime column's values are on the grid on every side
    if kind in rules.NUMERIC:
        ctx.note(_NOTE, "rewritten", f"A number stored into the {name} column {where} counts days from 1900-01-01 in SQL "
                 "Server; TiDB would read its digits as YYYYMMDD.")
        return from_ticks(days_to_ticks(value, kind in ("integer", "bit")))
    if kind == "time":
        moment: exp.Expr = fill("TIMESTAMP('1900-01-01', t)", t=value)  # SQL Server puts a time on 1900-01-01
    elif kind == "datetime":
        moment = value
    elif kind == "string":
        moment = fill("CAST(v AS DATETIME(6))", v=value)
    else:
        return None
    if datatype.this in _ON_THE_GRID[column.this]:
        ctx.note(_NOTE, "rewritten", f"A {datatype.sql('tsql').lower()} value (GETDATE(), a variable or parameter, an "
                 f"expression) is on {_GRID[small]} in SQL Server, but can carry other fractions of a second on TiDB: "
                 f"it is rounded so before it is stored into the {name} column {where}.")
        return fill(_MINUTES if small else _TICKS, w=moment)
    ctx.note(_NOTE, "rewritten", f"A {datatype.sql('tsql').lower()} value stored into the {name} column {where} is rounded "
             f"to {_GRID[small]} by SQL Server, where TiDB would keep its milliseconds: it is rounded so first.")
    return fill(_MINUTES if small else _TICKS, w=moment)


_GRID = {False: "1/300 second (.000, .003, .007)", True: "the minute (29.999 seconds and more up)"}


def _datetime_literal(text: str, small: bool, where: str, ctx: Context) -> exp.Expr | None:
    """A string literal stored into a datetime or smalldatetime column, read and rounded here as SQL Server does."""
    moment = read_datetime(text)
    if moment is None:
        return None  # SQL Server refuses it as TiDB does
    if not small and fraction_digits(text) > 3:
        ctx.note(_NOTE, "review", f"SQL Server refuses '{text}' for the datetime column {where} (Msg 241: more than 3 "
                 "fractional digits); TiDB stores it rounded.")
        return None
    stored = stored_as_smalldatetime(moment) if small else stored_as_datetime(moment)
    if stored is None or (stored == moment and read_alike(text, False)):
        return None
    written = written_for_tidb(stored)
    name = "smalldatetime" if small else "datetime"
    ctx.note(_NOTE, "rewritten", f"'{text}' stored into the {name} column {where} is '{written}' in SQL Server "
             f"({_GRID[small]}, read by SQL Server's rules): it is written so for TiDB.")
    return exp.Literal.string(written)


# Shapes ---------------------------------------------------------------------------------------

def _text(value: exp.Expr) -> str | None:
    """The text of a string literal (N'' too), else None."""
    if isinstance(value, exp.National) or (isinstance(value, exp.Literal) and value.is_string):
        return value.name
    return None


def _is_null(node: exp.Expr) -> bool:
    while isinstance(node, exp.Paren):
        node = node.this
    return isinstance(node, exp.Null)


def _is_star(projection: exp.Expr) -> bool:
    return isinstance(projection, exp.Star) or (isinstance(projection, exp.Column) and projection.is_star)


def _all_union_all(query: exp.Expr) -> bool:
    if isinstance(query, exp.Subquery):
        return _all_union_all(query.this)
    if not isinstance(query, exp.SetOperation):
        return True
    return isinstance(query, exp.Union) and not query.args.get("distinct") and _all_union_all(query.this) \
        and _all_union_all(query.expression)


def _branches(query: exp.Expr) -> Iterator[exp.Expr]:
    if isinstance(query, exp.SetOperation):
        yield from _branches(query.this)
        yield from _branches(query.expression)
    elif isinstance(query, exp.Subquery) and isinstance(query.this, exp.SetOperation):
        yield from _branches(query.this)
    else:
        yield query
