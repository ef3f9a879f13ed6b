"""A FOR JSON answer compared as the JSON document it is, not as rows of text.

SQL Server returns a FOR JSON query's text cut into rows of 2,033 characters, which a client joins;
the procedure runner writes the same text from the target's rows (`procedures.for_json`). Where the
other side writes the same document with other spacing, or in one row (the test endpoint, Babelfish,
puts a space after each colon and comma), the rows differ and the document does not: the rows of
each side are joined and read as JSON, and two documents with the same values are the same answer.
https://learn.microsoft.com/sql/relational-databases/json/format-query-results-as-json-with-for-json-sql-server
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ..procedures.for_json import COLUMN_NAME


def is_json_answer(columns: Sequence[str]) -> bool:
    return len(columns) == 1 and str(columns[0]).upper() == COLUMN_NAME.upper()


def same_document(mine: Sequence[Sequence[Any]], theirs: Sequence[Sequence[Any]]) -> bool | None:
    """True when both sides' rows, joined, are the same JSON document; None when either is not JSON."""
    try:
        left = json.loads("".join(str(r[0]) for r in mine if r and r[0] is not None) or "null")
        right = json.loads("".join(str(r[0]) for r in theirs if r and r[0] is not None) or "null")
    except ValueError:
        return None
    return left == right
