"""Identifiers in generated DDL: quoted only where needed, at most 64 characters, never clashing.

SQL Server allows 128-character names and constraint names that repeat across schemas; TiDB (like
MySQL) allows 64 characters (https://docs.pingcap.com/tidb/stable/tidb-limitations), keeps index
names per table and foreign-key names per database. A name is quoted with backticks only when it
is not a plain word or is a reserved word of MySQL or TiDB, so the DDL stays readable:
`PARTITION BY KEY(e_type, e_id)` but `` `Order Details` `` and `` `order` ``. It sits beside
`naming` (which TiDB name an object gets) because the planner writes these names and the rules
check them, and the rules come before the planner.

    >>> sql_name("e_type"), sql_name("Order Details"), sql_name("order")
    ('e_type', '`Order Details`', '`order`')
    >>> len(fit("x" * 100))
    64
"""

from __future__ import annotations

import hashlib
import re

from sqlglot.dialects.mysql import MySQL

MAX_IDENTIFIER = 64

# TiDB's reserved words that MySQL's list lacks, from the ReservedKeyword section of TiDB's
# parser.y (github.com/pingcap/tidb/pkg/parser).
_TIDB_RESERVED = {"array", "current_role", "ilike", "tablesample", "tidb_current_tso", "until"}
RESERVED = {w.casefold() for w in MySQL.Generator.RESERVED_KEYWORDS} | _TIDB_RESERVED
_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")


def sql_name(name: str) -> str:
    """The identifier as DDL writes it."""
    if _PLAIN.match(name) and name.casefold() not in RESERVED:
        return name
    return "`" + name.replace("`", "``") + "`"


def fit(name: str, limit: int = MAX_IDENTIFIER) -> str:
    """`name` cut to `limit` characters, keeping it unique with a hash of the full name."""
    if len(name) <= limit:
        return name
    digest = hashlib.sha1(name.encode("utf-8")).hexdigest()[:8]
    return f"{name[: limit - 9]}_{digest}"


def object_name(names, schema: str | None, name: str) -> str:
    """The TiDB name of a table, view or sequence as DDL writes it (`db`.`name` in databases mode)."""
    tidb = names.object(schema, name)
    short = sql_name(fit(tidb.name))
    return f"{sql_name(tidb.database)}.{short}" if tidb.database else short


class NameScope:
    """Hands out names unique within one scope (a table's indexes, a database's foreign keys)."""

    def __init__(self, taken: tuple[str, ...] = ()) -> None:
        self._taken = {t.casefold() for t in taken}

    def claim(self, wanted: str) -> str:
        base = fit(wanted)
        name, n = base, 2
        while name.casefold() in self._taken:
            suffix = f"_{n}"
            name = fit(wanted, MAX_IDENTIFIER - len(suffix)) + suffix
            n += 1
        self._taken.add(name.casefold())
        return name
