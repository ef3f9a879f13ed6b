"""What SQL Server's statistics say about a column's values: the shape `data synthesize` follows.

The capture reads them where rows may not leave the company: per statistics object whose first
column is the column, `sys.dm_db_stats_properties` (rows, rows sampled, last update) and
`sys.dm_db_stats_histogram` (at most 200 steps; `DBCC SHOW_STATISTICS ... WITH HISTOGRAM` on
versions before it), plus the density vector's average length. The fields keep SQL Server's own
definitions (https://learn.microsoft.com/sql/t-sql/database-console-commands/dbcc-show-statistics-transact-sql):

- a step's RANGE_HI_KEY is the step's upper bound, one value that occurs EQ_ROWS times;
- RANGE_ROWS rows have a value strictly between the previous step's key and this one, over
  DISTINCT_RANGE_ROWS distinct values, AVG_RANGE_ROWS = RANGE_ROWS / DISTINCT_RANGE_ROWS;
- NULLs, when there are any, form the first step, whose RANGE_HI_KEY is NULL.

Keys are kept as text (the capture casts the sql_variant RANGE_HI_KEY on the server); the
synthesizer reads them back with the column's type. `derived()` computes the column summary the
histogram implies, so a capture that stored only the histogram and one that stored the summary
read the same.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HistogramStep:
    range_hi_key: str | None
    """The step's upper bound as text; None for the step that counts NULLs."""
    range_rows: float = 0.0
    eq_rows: float = 0.0
    distinct_range_rows: float = 0.0
    avg_range_rows: float = 1.0


@dataclass(frozen=True)
class ColumnStatistics:
    """One column's statistics, from the statistics object that leads with it."""

    column: str
    stats_name: str | None = None
    rows: float | None = None
    """Rows in the table when the statistics were computed (dm_db_stats_properties.rows)."""
    rows_sampled: float | None = None
    last_updated: str | None = None
    avg_width: float | None = None
    """Bytes per value (the density vector's Average Length for this column alone)."""
    all_density: float | None = None
    """1 / distinct values (the density vector's All density for this column alone)."""
    histogram: tuple[HistogramStep, ...] = ()

    @property
    def null_rows(self) -> float:
        return sum(s.eq_rows for s in self.histogram if s.range_hi_key is None)

    @property
    def histogram_rows(self) -> float:
        return sum(s.range_rows + s.eq_rows for s in self.histogram)

    @property
    def null_fraction(self) -> float | None:
        total = self.histogram_rows or (self.rows or 0)
        if not self.histogram or not total:
            return None
        return self.null_rows / total

    @property
    def distinct(self) -> float | None:
        """Distinct non-NULL values: each step's key plus its range's distinct values."""
        steps = [s for s in self.histogram if s.range_hi_key is not None]
        if steps:
            return sum(s.distinct_range_rows + (1 if s.eq_rows > 0 else 0) for s in steps)
        if self.all_density:
            return 1 / self.all_density
        return None

    @property
    def min(self) -> str | None:
        steps = [s for s in self.histogram if s.range_hi_key is not None]
        return steps[0].range_hi_key if steps else None

    @property
    def max(self) -> str | None:
        steps = [s for s in self.histogram if s.range_hi_key is not None]
        return steps[-1].range_hi_key if steps else None


@dataclass(frozen=True)
class TableStatistics:
    """A table's row count with the statistics of its columns (those that have any)."""

    rows: int | None = None
    columns: tuple[ColumnStatistics, ...] = ()

    def column(self, name: str) -> ColumnStatistics | None:
        folded = name.casefold()
        return next((c for c in self.columns if c.column.casefold() == folded), None)
