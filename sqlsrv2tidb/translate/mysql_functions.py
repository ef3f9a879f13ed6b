"""The names of MySQL's built-in functions, as TiDB's list (`tidb_functions`) with MySQL's differences.

The translator checks that a statement calls only functions the target has. TiDB has some MySQL
lacks: its sequences' NEXTVAL/LASTVAL/SETVAL, TRANSLATE, TIDB_VERSION and the approximate aggregates;
every other name the translator writes is MySQL 8's as well.
https://dev.mysql.com/doc/refman/8.4/en/built-in-function-reference.html
"""

from __future__ import annotations

from .tidb_functions import BUILTIN_FUNCTIONS as TIDB_FUNCTIONS

TIDB_ONLY = frozenset({"nextval", "lastval", "setval", "translate", "tidb_version", "json_memberof",
                       "approx_count_distinct", "approx_percentile"})
MYSQL_ONLY = frozenset({"json_schema_valid", "json_schema_validation_report", "json_table", "json_value",
                        "regexp_instr", "st_astext", "st_geomfromtext", "st_distance_sphere", "any_value"})

BUILTIN_FUNCTIONS: frozenset[str] = (TIDB_FUNCTIONS - TIDB_ONLY) | MYSQL_ONLY


def is_builtin(name: str) -> bool:
    """True when MySQL has a built-in function of this name (case-insensitive)."""
    return name.casefold() in BUILTIN_FUNCTIONS
