"""Identity columns and sequences: how SQL Server's generated ids become TiDB's.

- IDENTITY becomes `AUTO_INCREMENT` with `AUTO_ID_CACHE=1`, TiDB's centralized allocator, so ids
  stay unique and increasing across TiDB servers as SQL Server's are; the seed becomes the
  `AUTO_INCREMENT=n` table option (https://docs.pingcap.com/tidb/stable/auto-increment).
  An increment other than 1 has no per-table equivalent in TiDB.
- SEQUENCE objects (and `NEXT VALUE FOR` defaults) become TiDB sequences. NOCACHE keeps values
  in order but serializes every insert; seed 002 measured it flat at ~55,000 rows per period from
  8 threads up, against near-linear AUTO_ID_CACHE 1. So NOCACHE is chosen only where the tables
  using the sequence insert slowly, and CACHE otherwise
  (https://docs.pingcap.com/tidb/stable/sql-statement-create-sequence).
- `AUTO_RANDOM` (BIGINT, first column of a clustered primary key) and an identity backed by a
  sequence are applied only when --config asks for them (https://docs.pingcap.com/tidb/stable/auto-random).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..model import Column, Database, Finding, Sequence, Severity, Table
from ..options import DEFAULT_TIDB_VERSION, Version
from ..translate.identifiers import object_name
from ..translate.mysql_sequences import sequence_reference
from ..translate.naming import NameMap
from ..translate.types import TypeMapper
from .config import AUTO_RANDOM_BITS, PlanConfig
from .table_rates import WorkloadRates

AUTO_ID_CACHE_1_SINCE = Version(6, 4)
"""Before v6.4.0 AUTO_ID_CACHE=1 fetched every id from TiKV in its own transaction, which is slow."""

# The value range of each type a SQL Server sequence may have; TiDB sequences are BIGINT.
# https://learn.microsoft.com/sql/t-sql/statements/create-sequence-transact-sql
_TYPE_RANGE = {
    "tinyint": (0, 255),
    "smallint": (-32768, 32767),
    "int": (-2147483648, 2147483647),
    "bigint": (-9223372036854775807, 9223372036854775806),
}

# The value range of TiDB's integer column types (https://docs.pingcap.com/tidb/stable/data-type-numeric).
_TIDB_INT_RANGE = {
    "TINYINT": (-128, 127), "SMALLINT": (-32768, 32767), "MEDIUMINT": (-8388608, 8388607),
    "INT": (-2147483648, 2147483647), "INTEGER": (-2147483648, 2147483647),
    "BIGINT": (-9223372036854775808, 9223372036854775807),
}
_TIDB_INT = re.compile(r"^\s*(TINYINT|SMALLINT|MEDIUMINT|INTEGER|INT|BIGINT)\b(?:\s*\(\s*\d+\s*\))?(\s+UNSIGNED)?", re.I)


def column_range(tidb_type: str) -> tuple[int, int]:
    """The values a TiDB integer column holds, within a sequence's BIGINT range; BIGINT's for other types.

        >>> column_range("TINYINT UNSIGNED")
        (0, 255)
        >>> column_range("INT")
        (-2147483648, 2147483647)
    """
    low, high = _TYPE_RANGE["bigint"]
    m = _TIDB_INT.match(tidb_type)
    if m is None:
        return low, high
    t_low, t_high = _TIDB_INT_RANGE[m[1].upper()]
    if m[2]:
        t_low, t_high = 0, 2 * t_high + 1
    return max(low, t_low), min(high, t_high)


@dataclass(frozen=True)
class SequencePlan:
    schema: str
    name: str
    target: str
    """TiDB name, quoted as DDL writes it."""
    start: int
    increment: int
    minimum: int
    maximum: int
    cycle: bool
    cache: int | None
    """None: NOCACHE."""
    used_by: tuple[str, ...] = ()
    insert_rate: float | None = None
    rationale: str = ""
    generated_for: str | None = None
    """The `schema.table.column` whose IDENTITY this sequence replaces (identity: sequence in --config)."""
    form: str = "sequence"
    """`sequence` (TiDB's CREATE SEQUENCE) or `table` (MySQL: a one-row table of the next value)."""
    draw: str | None = None
    """For a `table`: the statement that draws the next value (LAST_INSERT_ID() then holds it)."""


@dataclass(frozen=True)
class IdentityPlan:
    """What one table's IDENTITY column becomes."""

    column: str
    kind: str
    """auto_increment, auto_random or sequence."""
    start: int | None = None
    """The AUTO_INCREMENT=n table option (None when the seed is 1)."""
    widen_to_bigint: bool = False
    centralized: bool = True
    """AUTO_ID_CACHE=1 (TiDB v6.4+)."""
    sequence: SequencePlan | None = None
    findings: tuple[Finding, ...] = field(default=(), compare=False)


class IdentityPlanner:
    def __init__(self, database: Database, names: NameMap, config: PlanConfig, rates: WorkloadRates,
                 version: Version = DEFAULT_TIDB_VERSION, mapper: TypeMapper | None = None) -> None:
        self.database = database
        self.centralized = version >= AUTO_ID_CACHE_1_SINCE
        self.names = names
        self.config = config
        self.rates = rates
        self.mapper = mapper or TypeMapper.builtin()

    # Sequences ------------------------------------------------------------------------------

    def sequence_users(self) -> dict[tuple[str, str], list[Table]]:
        users: dict[tuple[str, str], list[Table]] = {}
        for table in self.database.tables:
            for column in table.columns:
                ref = sequence_reference(column.default)
                if ref is None:
                    continue
                seq = self.database.sequence(ref[0], ref[1])
                if seq is not None:
                    users.setdefault((seq.schema.casefold(), seq.name.casefold()), []).append(table)
        return users

    def plan_sequences(self) -> tuple[list[SequencePlan], list[Finding]]:
        users = self.sequence_users()
        plans, findings = [], []
        for seq in self.database.sequences:
            tables = users.get((seq.schema.casefold(), seq.name.casefold()), [])
            plan, finding = self._sequence(seq, tables)
            plans.append(plan)
            findings.append(finding)
        return plans, findings

    def _insert_rate(self, tables: list[Table]) -> float | None:
        if not self.rates.known or not tables:
            return None
        total = 0.0
        for t in tables:
            rate = self.rates.rate(t.schema, t.name)
            total += rate.insert_rate if rate else 0.0
        return total

    def _cache_choice(self, rate: float | None, sql_server_cache: int | None) -> tuple[int | None, str]:
        low = self.config.low_insert_qps
        if rate is not None and rate <= low:
            return None, (f"NOCACHE: the tables using it insert {rate:,.1f} rows/s at their busiest, at most {low:g}/s, "
                          f"so values stay in order across TiDB servers at no throughput cost")
        size = sql_server_cache if sql_server_cache and sql_server_cache > 1 else 1000
        if rate is None:
            why = "no captured insert rate for the tables using it"
        else:
            why = f"the tables using it insert {rate:,.1f} rows/s, above {low:g}/s"
        return size, (f"CACHE {size}: {why}; NOCACHE serializes every value (seed 002: flat from 8 threads up). "
                      f"Values stay unique but are not in order across TiDB servers")

    def _sequence(self, seq: Sequence, tables: list[Table]) -> tuple[SequencePlan, Finding]:
        low_t, high_t = _TYPE_RANGE.get(seq.type.name.casefold(), _TYPE_RANGE["bigint"])
        minimum = seq.minimum if seq.minimum is not None else low_t
        maximum = seq.maximum if seq.maximum is not None else high_t
        minimum = max(minimum, _TYPE_RANGE["bigint"][0])
        maximum = min(maximum, _TYPE_RANGE["bigint"][1])
        # SQL Server starts an ascending sequence at its minimum (descending: maximum) when no START is given.
        start = seq.start if seq.start is not None else (minimum if seq.increment > 0 else maximum)
        rate = self._insert_rate(tables)
        cache, why = self._cache_choice(rate, seq.cache_size if seq.cached else None)
        if not seq.cached and cache is not None:
            why += "; SQL Server had NO CACHE"
        used_by = tuple(sorted(t.qualified_name for t in tables))
        plan = SequencePlan(seq.schema, seq.name, object_name(self.names, seq.schema, seq.name), start,
                            seq.increment, minimum, maximum, seq.cycle, cache, used_by, rate, why)
        finding = Finding(
            rule="ID03", severity=Severity.INFO, object=seq.qualified_name,
            message=f"sequence becomes a TiDB SEQUENCE with {why}",
            file=seq.source.file, line=seq.source.line,
            details={"used_by": list(used_by), "insert_rate": rate, "cache": cache},
        )
        return plan, finding

    # Identity columns -----------------------------------------------------------------------

    def plan_identity(self, table: Table, *, auto_random: bool) -> IdentityPlan | None:
        column = next((c for c in table.columns if c.identity is not None), None)
        if column is None:  # the distribution planner grants AUTO_RANDOM only to an IDENTITY column
            return None
        ident = column.identity
        assert ident is not None
        override = self.config.table(table.schema, table.name)
        where = f"{table.qualified_name}.{column.name}"
        src = column.source if column.source.file else table.source
        findings: list[Finding] = []
        pk_first = table.primary_key.columns[0].name.casefold() if table.primary_key and table.primary_key.columns else None
        if auto_random and pk_first == column.name.casefold():
            return self._auto_random(table, column.name, column.type.name)
        if override is not None and override.identity == "sequence":
            return self._identity_sequence(table, column, ident.seed, ident.increment)
        if ident.increment != 1 or ident.seed < 1:
            why = ("TiDB has no per-table increment (only the session/global auto_increment_increment), so new ids "
                   "step by 1" if ident.increment != 1 else "AUTO_INCREMENT starts at 1 or more, so new ids start at 1")
            findings.append(Finding(
                rule="ID02", severity=Severity.MEDIUM, object=where,
                message=f"IDENTITY({ident.seed},{ident.increment}): {why}; use identity: sequence in --config to keep "
                        f"START WITH {ident.seed} INCREMENT BY {ident.increment}",
                file=src.file, line=src.line,
            ))
        how = ("AUTO_INCREMENT with AUTO_ID_CACHE=1: unique and increasing across TiDB servers like SQL Server's ids"
               if self.centralized else
               "AUTO_INCREMENT with TiDB's default id cache: before v6.4 AUTO_ID_CACHE=1 takes one TiKV transaction "
               "per id, so ids are unique but only increasing per TiDB server")
        findings.append(Finding(
            rule="ID01", severity=Severity.INFO, object=where,
            message=f"IDENTITY({ident.seed},{ident.increment}) becomes {how}"
                    + (f"; the seed becomes AUTO_INCREMENT={ident.seed}" if ident.seed != 1 else ""),
            file=src.file, line=src.line,
        ))
        start = ident.seed if ident.seed > 1 else None
        return IdentityPlan(column.name, "auto_increment", start=start, centralized=self.centralized,
                            findings=tuple(findings))

    def _auto_random(self, table: Table, column: str, type_name: str) -> IdentityPlan:
        widen = type_name.casefold() != "bigint"
        where = f"{table.qualified_name}.{column}"
        findings = [Finding(
            rule="ID05", severity=Severity.MEDIUM, object=where,
            message=f"configured AUTO_RANDOM({AUTO_RANDOM_BITS}) on {column}"
                    + (f" ({type_name} widened to BIGINT, as AUTO_RANDOM requires)" if widen else "")
                    + ": ids are scattered, no longer increasing, and explicit inserts need "
                      "@@allow_auto_random_explicit_insert; the column works as a plain BIGINT on MySQL/MariaDB",
            file=table.source.file, line=table.source.line,
        )]
        return IdentityPlan(column, "auto_random", widen_to_bigint=widen, findings=tuple(findings))

    def _identity_sequence(self, table: Table, column: Column, seed: int, increment: int) -> IdentityPlan:
        name = f"{table.name}_{column.name}_seq"
        target = object_name(self.names, table.schema, name)
        rate = self._insert_rate([table])
        cache, why = self._cache_choice(rate, None)
        # The sequence stops where the column's TiDB type does (INT: 2147483647), not at BIGINT's end,
        # so an exhausted sequence fails with its own error (4135) rather than an out-of-range insert.
        key = f"{table.schema}.{table.name}.{column.name}"
        tidb_type = ("BIGINT" if column.type.name.casefold() in ("decimal", "numeric")
                     else self.mapper.map_type(column.type, column_key=key).target)
        low, high = column_range(tidb_type)
        # MINVALUE <= START WITH <= MAXVALUE, or TiDB refuses the sequence: a seed below 1 lowers the bound.
        minimum, maximum = (min(1, seed), high) if increment > 0 else (low, max(-1, seed))
        seq = SequencePlan(table.schema, name, target, seed, increment, max(low, minimum), min(high, maximum), False,
                           cache, (table.qualified_name,), rate, why, generated_for=f"{table.qualified_name}.{column.name}")
        finding = Finding(
            rule="ID03", severity=Severity.INFO, object=f"{table.qualified_name}.{column.name}",
            message=f"configured identity: sequence: IDENTITY({seed},{increment}) becomes DEFAULT NEXT VALUE FOR {target} "
                    f"with {why}",
            file=table.source.file, line=table.source.line,
        )
        return IdentityPlan(column.name, "sequence", sequence=seq, findings=(finding,))
