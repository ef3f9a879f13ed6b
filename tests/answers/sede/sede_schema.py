"""The SEDE schema script (schema.sql) read for what the generator and loader need: its batches, and each
table's columns in order with their base types (the order the generated rows are written in)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

SCHEMA = Path(__file__).resolve().parent / "schema.sql"
_GO = re.compile(r"(?im)^[ \t]*GO[ \t]*$")
_TABLE = re.compile(r"CREATE\s+TABLE\s+dbo\.(\w+)\s*\((.*?)\n\);", re.S)
_COLUMN = re.compile(r"^\s+(\w+)\s+(\w+)", re.M)


def batches() -> list[str]:
    """The script's batches (split at GO), comments and all."""
    return [b for b in _GO.split(SCHEMA.read_text(encoding="utf-8")) if re.search(r"(?m)^\s*CREATE\b", b)]


@cache
def table_columns() -> dict[str, tuple[tuple[str, str], ...]]:
    """{table: ((column, base type), ...)} in the script's order; PRIMARY KEY lines are not columns."""
    text = SCHEMA.read_text(encoding="utf-8")
    return {m.group(1): tuple((c, t.lower()) for c, t in _COLUMN.findall(m.group(2)) if c.upper() != "PRIMARY")
            for m in _TABLE.finditer(text)}
