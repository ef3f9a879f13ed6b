"""The translator's notes as a MySQL target reads them: the rewrites write their reasons naming TiDB, and for a
MySQL target (`--target-engine mysql`) each note names MySQL instead, where the reason holds for MySQL too
(no FULL OUTER JOIN, no MERGE, strings read as numbers with a warning, no linked servers, ...).

Where the reason differs, the phrase is replaced (`_DIFFERS`): MySQL has stored programs (in its own
language, which the translator does not write) and lateral joins (8.0.14+, which it does not write either),
and accepts a subquery in ON. A note that compares TiDB with MySQL keeps its words (`_COMPARES`).
`Context.note` calls `for_mysql`, the one place notes are reworded.
"""

from __future__ import annotations

import re

_COMPARES = frozenset({"QY57"})
"""Notes whose text already tells TiDB and MySQL apart."""

_DIFFERS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"TiDB has no lateral joins"),
     "the translator writes no LATERAL join (MySQL 8.0.14+ has them: rewrite it by hand)"),
    (re.compile(r"TiDB refuses subqueries in ON"), "the same rows, in a form every target takes"),
    (re.compile(r"TiDB has no procedural SQL outside stored programs \(which it lacks\)"),
     "MySQL runs procedural SQL only inside stored programs, which the translator does not write"),
    (re.compile(r"TiDB has no procedural SQL outside stored programs"),
     "MySQL runs procedural SQL only inside stored programs, which the translator does not write"),
    (re.compile(r"TiDB has no stored procedures(, functions or triggers)?"),
     r"the translator does not write MySQL stored procedures\1"),
)


def for_mysql(code: str, message: str) -> str:
    """`message` of note `code` as a MySQL target reads it."""
    if code in _COMPARES or "TiDB" not in message:
        return message
    for pattern, replacement in _DIFFERS:
        message = pattern.sub(replacement, message)
    return message.replace("TiDB's", "MySQL's").replace("TiDB", "MySQL")
