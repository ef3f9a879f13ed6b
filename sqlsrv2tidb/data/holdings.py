"""How much data a target holds: what `replay` and `experiment` say beside their measurements.

A read replayed against empty tables measures nothing (TiDB answers an empty table in
microseconds), so a replay records the rows each of the target database's tables held when it
started. Each table is counted up to a cap, so the count costs little on a large TiDB table: a
table at the cap is reported as holding at least that many.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

CAP = 1_000_000

Fetch = Callable[[str], Sequence[Sequence[Any]]]


def target_holdings(fetch: Fetch, cap: int = CAP) -> dict[str, Any]:
    """`{"tables", "rows", "empty": [...], "at_least": [...], "per_table": {name: rows}, "cap"}` of the
    database the connection is in (rows counted up to `cap` per table)."""
    names = sorted(str(r[0]) for r in fetch(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_type = 'BASE TABLE'"))
    per_table = {}
    for name in names:
        quoted = "`" + name.replace("`", "``") + "`"
        per_table[name] = int(fetch(f"SELECT COUNT(*) FROM (SELECT 1 FROM {quoted} LIMIT {cap}) AS counted")[0][0])
    return {
        "tables": len(names), "rows": sum(per_table.values()), "cap": cap,
        "empty": [n for n, rows in per_table.items() if rows == 0],
        "at_least": [n for n, rows in per_table.items() if rows >= cap],
        "per_table": per_table,
    }


def describe(held: dict[str, Any]) -> str:
    """One line for the result and the report: whether the target held data, and how much."""
    if not held.get("tables"):
        return "the target database held no tables"
    rows, empty = held.get("rows", 0), held.get("empty", [])
    if rows == 0:
        return f"the target's {held['tables']} table(s) held no rows: reads were answered from empty tables"
    more = "at least " if held.get("at_least") else ""
    text = f"the target held {more}{rows:,} rows in {held['tables'] - len(empty)} of its {held['tables']} table(s)"
    return text + (f"; empty: {', '.join(empty[:10])}{' ...' if len(empty) > 10 else ''}" if empty else "")
