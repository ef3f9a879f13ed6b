"""The `schema` command's summary: how many of each kind of object were read, per SQL Server schema."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .model import Capture

KINDS = (
    "tables", "columns", "primary keys", "unique keys", "indexes", "foreign keys", "check constraints",
    "sequences", "user types", "views", "procedures", "functions", "triggers", "synonyms",
)


@dataclass(frozen=True)
class SchemaSummary:
    database: str | None
    per_schema: dict[str, dict[str, int]]
    totals: dict[str, int]
    findings: dict[str, int]
    query_classes: int
    sources: tuple[str, ...]


def summarize(capture: Capture) -> SchemaSummary:
    db = capture.database
    per_schema: dict[str, Counter[str]] = {}

    def bump(schema: str | None, kind: str, n: int = 1) -> None:
        per_schema.setdefault(schema or "(none)", Counter())[kind] += n

    for schema in db.schemas:
        per_schema.setdefault(schema, Counter())
    for t in db.tables:
        bump(t.schema, "tables")
        bump(t.schema, "columns", len(t.columns))
        bump(t.schema, "primary keys", 1 if t.primary_key else 0)
        bump(t.schema, "unique keys", len(t.unique_keys))
        bump(t.schema, "indexes", len(t.indexes))
        bump(t.schema, "foreign keys", len(t.foreign_keys))
        bump(t.schema, "check constraints", len(t.checks))
    for s in db.sequences:
        bump(s.schema, "sequences")
    for u in db.user_types:
        bump(u.schema, "user types")
    plural = {"view": "views", "procedure": "procedures", "function": "functions", "trigger": "triggers",
              "ddl_trigger": "triggers", "synonym": "synonyms"}
    for m in db.modules:
        bump(m.schema, plural[m.kind])
    totals: Counter[str] = Counter()
    for counts in per_schema.values():
        totals.update(counts)
    return SchemaSummary(
        database=db.name,
        per_schema={s: {k: c[k] for k in KINDS if c[k]} for s, c in sorted(per_schema.items())},
        totals={k: totals[k] for k in KINDS},
        findings=dict(Counter(f.severity.value for f in capture.findings)),
        query_classes=len(capture.workload.queries),
        sources=capture.sources,
    )


def format_summary(summary: SchemaSummary) -> str:
    """A plain-text table for the terminal: one row per schema, one column per object kind present."""
    kinds = [k for k in KINDS if summary.totals.get(k)]
    header = ["schema", *kinds]
    rows = [[s, *(str(counts.get(k, 0)) for k in kinds)] for s, counts in summary.per_schema.items()]
    rows.append(["total", *(str(summary.totals[k]) for k in kinds)])
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = []
    if summary.database:
        lines.append(f"database: {summary.database}")
    lines.append("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)))
    for row in rows:
        lines.append("  ".join(v.rjust(w) if i else v.ljust(w) for i, (v, w) in enumerate(zip(row, widths, strict=True))))
    if summary.query_classes:
        lines.append(f"workload: {summary.query_classes} query classes")
    if summary.findings:
        counts = ", ".join(f"{n} {sev}" for sev, n in sorted(summary.findings.items()))
        lines.append(f"findings while reading: {counts}")
    return "\n".join(lines)
