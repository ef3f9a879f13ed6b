"""The statistics rowsets of a catalog document (statistics_sql.py) mapped to the model's TableStatistics.

Each column takes the statistics object that leads with it and saw the most rows (a FULLSCAN index
statistic over an auto-created sampled one; the newer of two equal ones). Histogram steps keep
SQL Server's numbers as they are; the NULL step is the one whose RANGE_HI_KEY is NULL.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ..model import ColumnStatistics, HistogramStep, TableStatistics
from .querystore import as_text

ROWSETS = ("STATS_PROPERTIES", "STATS_HISTOGRAM", "STATS_DENSITY")


def _number(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def _id(row: dict[str, Any], name: str) -> int | None:
    value = _number(row.get(name))
    return None if value is None else int(value)


def statistics_by_table(rowsets: dict[str, Any]) -> dict[int, TableStatistics]:
    """object_id → its columns' statistics (rows unknown here: the table's row count is added by the caller)."""
    steps: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
    for row in rowsets.get("STATS_HISTOGRAM") or []:
        if isinstance(row, dict) and _id(row, "object_id") is not None:
            steps[(_id(row, "object_id"), _id(row, "stats_id"))].append(row)
    density = {(_id(r, "object_id"), _id(r, "stats_id")): r for r in rowsets.get("STATS_DENSITY") or []
               if isinstance(r, dict)}
    best: dict[int, dict[str, tuple[tuple[float, str], ColumnStatistics]]] = defaultdict(dict)
    for row in rowsets.get("STATS_PROPERTIES") or []:
        if not isinstance(row, dict) or not row.get("column_name") or _id(row, "object_id") is None:
            continue
        key = (_id(row, "object_id"), _id(row, "stats_id"))
        ordered = sorted(steps.get(key, []), key=lambda r: _number(r.get("step_number")) or 0)
        vector = density.get(key, {})
        stats = ColumnStatistics(
            column=str(row["column_name"]), stats_name=as_text(row.get("stats_name")), rows=_number(row.get("rows")),
            rows_sampled=_number(row.get("rows_sampled")), last_updated=as_text(row.get("last_updated")),
            avg_width=_number(vector.get("average_length")), all_density=_number(vector.get("all_density")),
            histogram=tuple(HistogramStep(as_text(s.get("range_hi_key")), _number(s.get("range_rows")) or 0.0,
                                          _number(s.get("equal_rows")) or 0.0,
                                          _number(s.get("distinct_range_rows")) or 0.0,
                                          _number(s.get("average_range_rows")) or 1.0) for s in ordered))
        rank = (stats.rows_sampled or 0.0, stats.last_updated or "")
        folded = stats.column.casefold()
        if folded not in best[key[0]] or rank > best[key[0]][folded][0]:
            best[key[0]][folded] = (rank, stats)
    return {oid: TableStatistics(None, tuple(s for _, s in sorted(cols.values(), key=lambda x: x[1].column.casefold())))
            for oid, cols in best.items()}
