"""STRING_SPLIT, a table-valued function TiDB and MySQL lack, written with a recursive CTE of piece numbers.

SQL Server returns one row per piece of the string between single-character separators, empty
pieces included (`'a,,b'` is 'a', '', 'b'), no row for a NULL string, and with a third argument of 1
an `ordinal` column numbering the pieces from 1. Piece n is `SUBSTRING_INDEX(SUBSTRING_INDEX(s, sep, n),
sep, -1)` on the target, and a string holds one piece more than it has separators:

    FROM STRING_SPLIT(@ids, ',') AS s
      ->  FROM (WITH RECURSIVE sqlsrv2tidb_split (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM sqlsrv2tidb_split
                WHERE n <= CHAR_LENGTH(?) - CHAR_LENGTH(REPLACE(?, ',', '')))
               SELECT SUBSTRING_INDEX(SUBSTRING_INDEX(?, ',', n), ',', -1) AS value FROM sqlsrv2tidb_split
               WHERE ? IS NOT NULL) AS s

A split of each row's column (`CROSS APPLY STRING_SPLIT(t.tags, ',')`) needs a lateral join, which
TiDB has not: the numbers become a derived table joined on `n <= pieces of t.tags` (OUTER APPLY a LEFT
JOIN), and each `value` the query reads becomes piece n of the column. The numbers stop at 1,000
there (the targets' default cte_max_recursion_depth), which the note says.
https://learn.microsoft.com/sql/t-sql/functions/string-split-transact-sql
"""

from __future__ import annotations

from sqlglot import exp

from .context import Context
from .expression_types import remember_type
from .source_types import is_split
from .templates import fill

_NOTE = "QY81"
_NUMBERS = "sqlsrv2tidb_split"
_MOST_PIECES = 1000
_PIECE = "SUBSTRING_INDEX(SUBSTRING_INDEX(s, d, n), d, -1)"
_SPLIT = (f"SELECT 1 FROM (WITH RECURSIVE {_NUMBERS} (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM {_NUMBERS} "
          f"WHERE n <= CHAR_LENGTH(s) - CHAR_LENGTH(REPLACE(s, d, ''))) SELECT {_PIECE} AS value FROM {_NUMBERS} "
          "WHERE NOT s IS NULL) AS x")
_NUMBERED = (f"SELECT 1 FROM (WITH RECURSIVE {_NUMBERS} (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM {_NUMBERS} "
             f"WHERE n < {_MOST_PIECES}) SELECT n FROM {_NUMBERS}) AS x")


def _arguments(call: exp.Anonymous, ctx: Context) -> tuple[exp.Expr, exp.Expr, bool] | None:
    args = call.expressions
    if len(args) not in (2, 3):
        ctx.note(_NOTE, "unsupported", f"STRING_SPLIT with {len(args)} arguments is not SQL Server's.")
        return None
    flag = args[2] if len(args) == 3 else None
    if flag is not None and not (isinstance(flag, exp.Literal) and flag.name in ("0", "1")):
        ctx.note(_NOTE, "unsupported", "STRING_SPLIT's enable_ordinal must be the constant 0 or 1.")
        return None
    return args[0], args[1], flag is not None and flag.name == "1"


def split_table(table: exp.Table, ctx: Context) -> exp.Expr | None:
    """`STRING_SPLIT(s, sep) AS a` in FROM or a JOIN, of a value the statement is given (no column): a derived table."""
    found = _arguments(table.this, ctx)
    if found is None:
        return None
    string, separator, ordinal = found
    if any(isinstance(n, exp.Column) for n in string.walk()):
        return None  # a column: only under APPLY (split_apply)
    return _derived(string, separator, ordinal, table.alias or "value", ctx)


def _derived(string: exp.Expr, separator: exp.Expr, ordinal: bool, alias: str, ctx: Context) -> exp.Expr:
    query = fill(_SPLIT, s=string, d=separator).args["from_"].this.this  # the derived table's query
    if ordinal:
        query.select(exp.alias_(exp.column("n"), "ordinal"), copy=False)
    ctx.note(_NOTE, "rewritten", "STRING_SPLIT becomes a derived table of the string's pieces, numbered by a recursive "
             "CTE (TiDB has no table-valued functions).")
    return exp.Subquery(this=query, alias=exp.TableAlias(this=exp.to_identifier(alias)))


def split_apply(select: exp.Select, ctx: Context) -> exp.Select:
    """`CROSS APPLY STRING_SPLIT(t.col, sep) AS a` -> a JOIN of piece numbers on `n <= pieces of t.col`, each `a.value`
    piece n of t.col (OUTER APPLY: a LEFT JOIN, one row of NULL for a NULL column, as SQL Server gives)."""
    for join in list(select.args.get("joins") or []):
        lateral = join.this
        if not (isinstance(lateral, exp.Lateral) and is_split(lateral.this)):
            continue
        found = _arguments(lateral.this, ctx)
        if found is None:
            continue
        string, separator, ordinal = found
        alias = lateral.alias or ""
        outer = not lateral.args.get("cross_apply")
        if not any(isinstance(n, exp.Column) for n in string.walk()):
            derived = _derived(string, separator, ordinal, alias or "value", ctx)
            join.replace(exp.Join(this=derived, side="LEFT" if outer else None, on=exp.true() if outer else None,
                                  kind=None if outer else "CROSS"))
            continue
        numbers_alias = f"{alias or 'value'}_{_NUMBERS}"
        numbers = fill(_NUMBERED).args["from_"].this.this
        number = exp.column("n", numbers_alias)
        pieces = fill("CHAR_LENGTH(s) - CHAR_LENGTH(REPLACE(s, d, '')) + 1", s=string, d=separator)
        on = exp.LTE(this=number, expression=pieces)
        piece = remember_type(fill(_PIECE, s=string, d=separator, n=number), ctx.types.of(string))
        replaced = _read_columns(select, join, alias, piece, number if ordinal else None)
        join.replace(exp.Join(this=exp.Subquery(this=numbers, alias=exp.TableAlias(this=exp.to_identifier(numbers_alias))),
                              side="LEFT" if outer else None, on=on))
        ctx.note(_NOTE, "review" if replaced else "rewritten",
                 f"{'OUTER' if outer else 'CROSS'} APPLY STRING_SPLIT over a column becomes a join with the numbers 1 to "
                 f"{_MOST_PIECES} (TiDB has no lateral joins): a value of more than {_MOST_PIECES} pieces keeps only its "
                 f"first {_MOST_PIECES}" + (", and `*` does not return the pieces." if replaced else "."))
    return select


def _read_columns(select: exp.Select, join: exp.Join, alias: str, piece: exp.Expr, ordinal: exp.Expr | None) -> bool:
    """Each reference to the split's `value` (and `ordinal`) replaced by its expression; True when `*` reads the split."""
    names = {"value": piece, **({"ordinal": ordinal} if ordinal is not None else {})}
    others = _other_columns(select, join)
    star = False
    for column in list(select.find_all(exp.Column)):
        if column.is_star:
            star = star or not column.table or column.table.lower() == alias.lower()
            continue
        name = column.name.lower()
        if name not in names:
            continue
        qualifier = column.table.lower()
        if (qualifier and qualifier == alias.lower()) or (not qualifier and name not in others):
            written = names[name].copy()
            # a projection keeps the column's name (`value`, `ordinal`), as SQL Server names it
            column.replace(exp.alias_(written, column.name) if column.parent is select and column.arg_key == "expressions"
                           else written)
    star = star or any(isinstance(p, exp.Star) for p in select.selects)
    return star


def _other_columns(select: exp.Select, upto: exp.Join) -> set[str]:
    """Names `value` or `ordinal` could also be in the query's other sources: a bare name that is one of them stays."""
    out: set[str] = set()
    sources = [select.args.get("from_")] + [j for j in select.args.get("joins") or [] if j is not upto]
    for source in sources:
        node = source.this if source is not None else None
        if isinstance(node, exp.Subquery) and isinstance(node.this, exp.Select):
            out.update(s.alias_or_name.lower() for s in node.this.selects)
    return out
