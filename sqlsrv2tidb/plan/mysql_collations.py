"""What SQL Server's collations become on MySQL, as findings: one per source collation, naming its columns.

The map is `rules/mappings/collations.yaml`, section `mysql:`. A case-insensitive collation becomes
utf8mb4_general_ci, as on TiDB: PAD SPACE, so trailing spaces are ignored in comparisons, GROUP BY and
unique keys as SQL Server ignores them (MySQL's default utf8mb4_0900_ai_ci is NO PAD); it folds accents,
where SQL Server's `_CI_AS` kept them apart. A connection of another collation (MySQL 8's drivers default
to utf8mb4_0900_ai_ci) cannot compare a user variable with such a column (error 1267), so the tool's
connections set the tables' collation and the finding says the application's must. Case-sensitive
collations become utf8mb4_0900_as_cs, binary ones utf8mb4_bin
(https://dev.mysql.com/doc/refman/8.4/en/charset-unicode-sets.html,
https://dev.mysql.com/doc/refman/8.4/en/charset-collation-coercibility.html,
https://learn.microsoft.com/sql/t-sql/language-elements/string-comparison-assignment).
"""

from __future__ import annotations

import re

from ..model import Finding, Severity
from ..translate.types import CASE_INSENSITIVE_COLLATION, TypeMapper

CollationUses = tuple[dict[str, list[str]], dict[str, tuple[str | None, int | None]]]
"""(SQL Server collation -> its columns, SQL Server collation -> (file, line) where first seen); "" is the default."""


def mysql_collation_findings(uses: CollationUses, mapper: TypeMapper) -> list[Finding]:
    """MY10 for each case-insensitive source collation, MY11 for each case-sensitive or binary one."""
    columns_of, first = uses
    out = []
    for key, columns in sorted(columns_of.items()):
        m = mapper.map_collation(key or None)
        assumed = " (assumed: the scripts name no collation)" if m.assumed else ""
        file, line = first[key]
        details = {"columns": len(columns), "examples": columns[:10], "target": m.target}
        head = f"{m.kind.replace('_', '-')} collation {m.source}{assumed} becomes {m.target} on {len(columns)} column(s)"
        if m.switched_off:
            out.append(Finding("MY10", Severity.MEDIUM, m.source,
                               f"{head} because the mapping is switched off (skip_rewrites: {CASE_INSENSITIVE_COLLATION}): "
                               "comparisons become case-sensitive", file, line, details))
        elif m.kind == "case_insensitive":
            sensitive = re.search(r"_AS(_|$)", m.source, re.I) is not None
            accents = ("accents compare equal ('e' = 'é'), which SQL Server's _AS kept apart" if sensitive
                       and "_as_" not in m.target else "accents compare as in SQL Server")
            pad = ("it is NO PAD, so trailing spaces count ('a' = 'a ' is false, true in SQL Server)"
                   if "_0900_" in m.target else "trailing spaces are ignored, as in SQL Server")
            out.append(Finding("MY10", Severity.LOW, m.source,
                               f"{head}: comparisons stay case-insensitive, {accents}, and {pad}. The application's "
                               f"connections must use it too (SET NAMES utf8mb4 COLLATE {m.target}, or the driver's "
                               "connection collation): MySQL 8's drivers default to utf8mb4_0900_ai_ci, and a user "
                               "variable of that collation compared with these columns fails with error 1267",
                               file, line, details))
        else:
            how = "byte-wise comparison and ordering" if m.target.endswith("_bin") else (
                "case- and accent-sensitive comparison with linguistic ordering, as SQL Server's")
            pad = "; it is NO PAD, so trailing spaces count" if "_0900_" in m.target else ""
            out.append(Finding("MY11", Severity.INFO, m.source,
                               f"{head}: {how}{pad}. Comparing these columns with a user variable or a column of the "
                               f"connection's collation fails with error 1267 unless one side names its COLLATE",
                               file, line, details))
    return out
