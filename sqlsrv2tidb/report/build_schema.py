"""The schema section: every table's TiDB design with its evidence, type-mapping losses and findings."""

from __future__ import annotations

from collections import Counter
from typing import Any

from . import formatting as fmt
from .findings import finding_groups
from .labels import STRATEGY_LABELS, record_facts
from .links import Anchors
from .rulesinfo import RuleInfo
from .shape import obj, seq
from .viewmodel import Cell, ColumnRow, Count, Fact, LossRow, SchemaSection, TableView


def _facts(data: Any) -> tuple[Fact, ...]:
    return record_facts(data) if isinstance(data, dict) else ()


def _strategy_label(dist: dict[str, Any]) -> str:
    strategy = str(dist.get("strategy") or "none")
    label = STRATEGY_LABELS.get(strategy, strategy)
    if strategy == "key_partition" and dist.get("partitions"):
        return f"{label}, {dist['partitions']} partitions"
    if strategy == "pre_split":
        bits = [f"SHARD_ROW_ID_BITS={dist['shard_row_id_bits']}" if dist.get("shard_row_id_bits") else "",
                f"PRE_SPLIT_REGIONS={dist['pre_split_regions']}" if dist.get("pre_split_regions") else ""]
        extra = " ".join(b for b in bits if b)
        return f"{label} ({extra})" if extra else label
    return label


def _column(c: dict[str, Any]) -> ColumnRow:
    notes = seq(c.get("notes"))
    return ColumnRow(
        name=str(c.get("name", "")),
        source_type=str(c.get("source_type", "")),
        target_type=str(c.get("target_type", "")),
        nullable="yes" if c.get("nullable", True) else "no",
        identity=str(c.get("identity") or ""),
        default=str(c.get("default") or ""),
        notes="; ".join(str(n) for n in notes),
    )


def _table(t: dict[str, Any], anchors: Anchors, finding_counts: Counter[str]) -> TableView:
    schema, name = str(t.get("schema", "")), str(t.get("name", ""))
    dist = obj(t.get("distribution"))
    partitions = dist.get("partitions")
    rows, size = t.get("row_count"), t.get("size_bytes")
    source = obj(t.get("source"))
    qualified = f"{schema}.{name}" if schema else name
    return TableView(
        anchor=anchors.table(schema, name),
        name=qualified,
        target=str(t.get("target") or name),
        strategy=str(dist.get("strategy") or "none"),
        strategy_label=_strategy_label(dist),
        partitions=Cell(fmt.number(partitions) if partitions else "—", fmt.sort_key(partitions or 0), True),
        rows=Cell(fmt.number(rows) + (" (script)" if t.get("row_count_from") == "script" else ""),
                  fmt.sort_key(rows if rows is not None else -1), True),
        size=Cell(fmt.size(size), fmt.sort_key(size if size is not None else -1), True),
        primary_key=", ".join(str(c) for c in seq(t.get("primary_key"))) or "—",
        clustered="clustered" if t.get("clustered", True) else "nonclustered",
        rationale=str(dist.get("rationale") or ""),
        evidence=_facts(dist.get("evidence")),
        alternatives=tuple(str(a) for a in seq(dist.get("alternatives"))),
        would_change_if=str(dist.get("would_change_if") or ""),
        ddl=str(t.get("ddl") or ""),
        post_ddl="\n".join(str(s) for s in seq(t.get("post_data_ddl"))),
        columns=tuple(_column(c) for c in seq(t.get("columns")) if isinstance(c, dict)),
        source=anchors.source(source.get("file"), source.get("line")) if isinstance(source, dict) else None,
        findings=finding_counts.get(qualified.casefold(), 0),
    )


def _losses(tables: list[TableView], raw: list[dict[str, Any]], findings: list[dict[str, Any]], anchors: Anchors) -> tuple[LossRow, ...]:
    out: list[LossRow] = []
    seen: set[str] = set()
    for view in tables:
        for col in view.columns:
            if col.notes:
                out.append(LossRow(view.name, view.anchor, col.name, col.source_type, col.target_type, col.notes))
                seen.add(f"{view.name}.{col.name}".casefold())
    columns = {f"{view.name}.{col.name}".casefold(): col for view in tables for col in view.columns}
    for f in findings:
        named = str(f.get("object") or "")
        if str(f.get("rule", "")).startswith("TY") and named.casefold() not in seen:
            parts = named.split(".")
            known = columns.get(named.casefold())  # the types beside the finding's words
            if len(parts) >= 2:
                table, column = ".".join(parts[:2]), ".".join(parts[2:])
                source_type, target_type = (known.source_type, known.target_type) if known else ("", "")
            else:  # a database-wide loss (a collation): what it names is the SQL Server side, its columns the examples
                examples = [str(e) for e in seq(obj(f.get("details")).get("examples"))]
                table, column, source_type, target_type = "(several tables)" if examples else "—", ", ".join(examples), named, ""
            out.append(LossRow(table, anchors.for_object(named) or "", column, source_type, target_type,
                               str(f.get("message") or "")))
    out.sort(key=lambda r: (r.table.casefold(), r.column.casefold(), r.note))
    return tuple(out)


def build_schema(doc: dict[str, Any], rules: dict[str, RuleInfo], anchors: Anchors) -> SchemaSection:
    findings = [f for f in seq(doc.get("findings")) if isinstance(f, dict)]
    total = len(findings)
    if anchors.unlisted_queries:  # findings about a class the page leaves out stay in assessment.json
        findings = [f for f in findings if not _about_unlisted(f, anchors)]
    counts: Counter[str] = Counter()
    for f in findings:
        parts = str(f.get("object") or "").split(".")
        if len(parts) >= 2:
            counts[".".join(parts[:2]).casefold()] += 1
    raw = [t for t in seq(doc.get("tables")) if isinstance(t, dict)]
    tables = [_table(t, anchors, counts) for t in raw]
    tables.sort(key=lambda v: (v.strategy == "none", v.name.casefold()))
    strategies = Counter(v.strategy for v in tables)
    return SchemaSection(
        tables=tuple(tables),
        strategies=tuple(Count(STRATEGY_LABELS.get(s, s), n) for s, n in sorted(strategies.items(), key=lambda kv: (-kv[1], kv[0]))),
        losses=_losses(tables, raw, findings, anchors),
        finding_groups=finding_groups(findings, rules, anchors),
        findings_total=total,
        findings_unlisted=total - len(findings),
    )


def _about_unlisted(finding: dict[str, Any], anchors: Anchors) -> bool:
    obj = str(finding.get("object") or "")
    return obj.startswith("query ") and obj[6:].strip() in anchors.unlisted_queries
