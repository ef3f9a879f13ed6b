"""OUT/queries.sql: the translated workload as one script a DBA can read, diff and run.

Each query class is a block: its id, status and notes as comments, then its TiDB statements. A class
with no TiDB form keeps its T-SQL, commented out, so nothing the capture held is missing from the
file. The file runs as-is on TiDB (`?` markers aside): everything that is not TiDB SQL is a comment.
"""

from __future__ import annotations

from collections import Counter

from ..model.translation import STATUSES, Translation


def _comment(text: str, prefix: str = "-- ") -> list[str]:
    return [(prefix + line).rstrip() for line in text.replace("\r\n", "\n").split("\n")]


def render(translation: Translation) -> str:
    counts = Counter(q.status for q in translation.queries)
    summary = ", ".join(f"{counts.get(s, 0)} {s}" for s in STATUSES)
    lines = [
        f"-- sqlsrv2tidb: {len(translation.queries)} query classes translated to TiDB ({summary}).",
        "-- Each block: the query class id and status, the notes that explain the status, then the TiDB",
        "-- statements. `?` marks a parameter; `parameters:` names the captured parameter bound to each.",
        "",
    ]
    for query in translation.queries:
        lines.append(f"-- {query.id} [{query.status}] {query.kind}")
        for note in query.notes:
            lines.extend(_comment(f"{note.code}: {note.message}"))
        if query.parameters:
            lines.append(f"-- parameters: {', '.join(query.parameters)}")
        if query.target_sql is None:
            lines.append("-- no TiDB statement; the captured T-SQL:")
            lines.extend(_comment(query.source_sql.strip(), "--   "))
        elif not query.target_sql.strip():
            lines.append("-- nothing to run on TiDB")
        else:
            lines.append(query.target_sql.rstrip().rstrip(";") + ";")
        lines.append("")
    return "\n".join(lines)
