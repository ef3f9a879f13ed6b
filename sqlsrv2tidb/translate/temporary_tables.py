"""The table options of a temporary table a batch makes: the database's character set and collation.

SQL Server compares a temp table's text with the database's tables under one collation (SELECT ... INTO copies
the source's, and the usual install gives tempdb the database's). On the target a temporary table's columns would
take the server's default instead (utf8mb4_bin on TiDB, utf8mb4_0900_ai_ci on MySQL), while the tool's DDL gives
every table the collation mapped from the database's: comparing the two is MySQL's error 1267 (`Illegal mix of
collations`), and on TiDB a case-sensitive comparison where SQL Server's was not. So a temporary table with a text
column gets the same `DEFAULT CHARSET ... COLLATE` the DDL gives the database's tables.
"""

from __future__ import annotations

import functools

from sqlglot import exp

from .context import Context
from .types import CASE_INSENSITIVE_COLLATION, TypeMapper


def collation_properties(ctx: Context, columns: list[exp.Expr]) -> list[exp.Expr]:
    """`DEFAULT CHARACTER SET=... COLLATE=...` for a temporary table with these column definitions, or nothing when
    none of them holds text."""
    if not any(isinstance(c, exp.ColumnDef) and isinstance(c.args.get("kind"), exp.DataType)
               and c.args["kind"].is_type(*exp.DataType.TEXT_TYPES) for c in columns):
        return []
    charset, collation = _mapped(ctx.options.target_engine, CASE_INSENSITIVE_COLLATION in ctx.options.skip_rewrites,
                                 ctx.database.collation)
    return [exp.CharacterSetProperty(this=exp.var(charset), default=True),
            exp.CollateProperty(this=exp.var(collation), default=True)]


@functools.cache
def _mapped(engine: str, case_sensitive: bool, collation: str | None) -> tuple[str, str]:
    mapper = TypeMapper(engine=engine, skip_rewrites=frozenset({CASE_INSENSITIVE_COLLATION}) if case_sensitive else frozenset())
    return mapper.charset, mapper.map_collation(collation).target
