"""What the planner hands on: per-table TiDB designs with their reasons, and the ordered DDL files."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from .finding import Finding
from .schema import SourceRef

Strategy = Literal["none", "key_partition", "pre_split", "auto_random"]


@dataclass(frozen=True)
class Distribution:
    """How a table's writes are spread over TiKV, and the evidence that decided it."""

    strategy: Strategy = "none"
    partitions: int | None = None
    shard_row_id_bits: int | None = None
    pre_split_regions: int | None = None
    rationale: str = ""
    evidence: dict[str, Any] = field(default_factory=dict)
    alternatives: tuple[str, ...] = ()
    would_change_if: str | None = None
    """For a table left alone: the evidence that would change the decision."""


@dataclass(frozen=True)
class ColumnPlan:
    name: str
    source_type: str
    target_type: str
    nullable: bool = True
    identity: Literal["auto_increment", "auto_random", "sequence"] | None = None
    default: str | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class TablePlan:
    schema: str
    name: str
    target: str
    """The TiDB name, as DDL writes it (may be `db`.`table`)."""
    columns: tuple[ColumnPlan, ...]
    primary_key: tuple[str, ...] = ()
    clustered: bool = True
    distribution: Distribution = field(default_factory=Distribution)
    ddl: str = ""
    """The CREATE TABLE statement applied before the data load."""
    post_data_ddl: tuple[str, ...] = ()
    """Secondary indexes and foreign keys added after the load."""
    checks: tuple[str, ...] = ()
    """The names of the CHECK constraints its CREATE TABLE makes (those the target can take)."""
    row_count: int | None = None
    """Rows on the server, or else the rows the script that defined the table inserts (`row_count_from`)."""
    size_bytes: int | None = None
    source: SourceRef = field(default_factory=SourceRef)
    row_count_from: str | None = None
    """`catalog` (rows on the server) or `script` (rows its INSERT ... VALUES add: a lower bound where some come
    from a query or a file, IN09); None when neither tells."""


@dataclass(frozen=True)
class ViewPlan:
    """A view of the source as 06-views.sql has it: its CREATE statement, or why it is kept as a comment."""

    source: str
    """`schema.name` on SQL Server."""
    target: str
    """The TiDB name, as DDL writes it."""
    ddl: str = ""
    """The CREATE VIEW statement (with its comment lines); empty for a view that is not translated."""
    kept: str = ""
    """Why the view is kept as a comment instead (then `ddl` is empty)."""
    review: tuple[str, ...] = ()
    """The rules (`QY64`) whose notes mark its translation review: it runs on TiDB, but its answers
    may differ, and so may those of every query that reads it."""


@dataclass(frozen=True)
class DdlFile:
    name: str
    """`01-sequences.sql`, `02-tables.sql`, ...: applying the files in name order migrates the schema."""
    title: str
    content: str
    statements: int = 0


@dataclass(frozen=True)
class MigrationPlan:
    tables: tuple[TablePlan, ...] = ()
    files: tuple[DdlFile, ...] = ()
    views: tuple[ViewPlan, ...] = ()
    """Every view in dependency order (a view after the views it reads), translated or kept."""
    findings: tuple[Finding, ...] = ()
    settings: dict[str, Any] = field(default_factory=dict)

    def table(self, schema: str, name: str) -> TablePlan | None:
        s, n = schema.casefold(), name.casefold()
        return next((t for t in self.tables if t.schema.casefold() == s and t.name.casefold() == n), None)
