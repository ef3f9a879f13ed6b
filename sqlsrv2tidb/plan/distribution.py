"""Per-table distribution decisions: how a write-hot table's inserts get spread over TiKV nodes.

This is seed 000 as code. A new TiDB table is one Region on one TiKV node, and a monotonically
increasing row key keeps every insert on the last Region however large the table grows
(https://docs.pingcap.com/tidb/stable/troubleshoot-hot-spot-issues). For a table whose captured
write rate crosses the write-hot threshold the planner chooses, with its evidence:

- `key_partition`: `PARTITION BY KEY(<pk columns>) PARTITIONS <TiKV nodes>` for a clustered
  primary key that is composite or not monotonic. Guards: TiDB >= 7.0 (earlier versions silently
  create a normal table), no foreign key on or to the table, and every unique key contains the
  partition columns or becomes a global index (>= 8.3)
  (https://docs.pingcap.com/tidb/stable/partitioned-table#key-partitioning,
  https://docs.pingcap.com/tidb/stable/global-indexes, https://docs.pingcap.com/tidb/stable/foreign-key).
- `pre_split`: `PRIMARY KEY ... NONCLUSTERED` + `SHARD_ROW_ID_BITS` (~log2 of the TiKV nodes) +
  `PRE_SPLIT_REGIONS` (<= the shard bits), `merge_option=deny` and `tidb_scatter_region`, when the
  table has no clustered key (its rows get `_tidb_rowid`) or key partitioning is blocked
  (https://docs.pingcap.com/tidb/stable/shard-row-id-bits, https://docs.pingcap.com/tidb/stable/table-attributes).
- a recommendation only (finding ID04) for a single monotonic clustered key: AUTO_RANDOM changes
  how ids look, and a NONCLUSTERED key with shard bits adds a read to every key lookup while its
  index stays hot, so they are applied only when configured.
  AUTO_RANDOM is offered only where a configured `identity: auto_random` would be accepted (an
  IDENTITY first key column, `auto_random_blockers`); a key filled by a sequence gets the
  pre-split advice instead.

Tables below the threshold, or with no workload to judge by, are left alone, and the decision says
which evidence would change it. The per-table `tables:` overrides of --config win over all this,
unless a guard refuses one (finding DI04): the planner's own decision then applies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from ..model import Database, Finding, Severity, Table
from ..model.plan import Distribution
from ..options import Options, Version
from .config import PlanConfig, TableOverride
from .identity import sequence_reference
from .table_rates import TableRate

KEY_PARTITION_SINCE = Version(7, 0)
GLOBAL_INDEX_SINCE = Version(8, 3)
GLOBAL_INDEX_GA_SINCE = Version(8, 4)
"""Global indexes are experimental in v8.3 and need `tidb_enable_global_index = ON`; v8.4 made them GA
and the switch always on (https://docs.pingcap.com/tidb/stable/global-indexes)."""
SCATTER_ENUM_SINCE = Version(8, 4)
"""`tidb_scatter_region` became SESSION|GLOBAL with values ''/TABLE/GLOBAL in v8.4 (pingcap/docs#18901)."""
TABLE_ATTRIBUTES_SINCE = Version(5, 3)
"""`ALTER TABLE ... ATTRIBUTES 'merge_option=deny'` arrived in v5.3.0 (https://docs.pingcap.com/tidb/stable/table-attributes)."""
_NO_ATTRIBUTES = ("TiDB {version} has no table attributes (v5.3+); pause Region merge for the load with pd-ctl "
                  "`config set merge-schedule-limit 0` and restore it afterwards")
MAX_SHARD_BITS = 15
AUTO_RANDOM_TYPES = ("int", "bigint", "smallint", "tinyint", "decimal", "numeric")
"""SQL Server types of a key column AUTO_RANDOM may take over (widened to BIGINT; IDENTITY allows no others)."""


@dataclass(frozen=True)
class TableDesign:
    """What the distribution decision changes in the table's DDL."""

    distribution: Distribution
    clustered: bool
    partition_columns: tuple[str, ...] = ()
    global_unique: frozenset[str] = frozenset()
    """Names (folded) of unique keys that become GLOBAL indexes of the partitioned table."""
    auto_random: bool = False
    merge_deny: bool = False
    findings: tuple[Finding, ...] = field(default=(), compare=False)


def single_server(table: Table, config: PlanConfig) -> TableDesign:
    """The design of a table on MySQL: one InnoDB server holds it, clustered by its primary key, so there is
    nothing to spread (https://dev.mysql.com/doc/refman/8.4/en/innodb-index-types.html). A TiDB design the
    --config asks for (a distribution, AUTO_RANDOM, an identity sequence) is not applied, with DI04 saying so."""
    dist = Distribution("none", rationale="MySQL: one server stores the table, clustered by its primary key; "
                                          "there are no Regions to spread its writes over.")
    override = config.table(table.schema, table.name)
    wanted = [f"distribution: {override.distribution}" if override and override.distribution else "",
              f"identity: {override.identity}" if override and override.identity else ""]
    findings = tuple(Finding(rule="DI04", severity=Severity.MEDIUM, object=table.qualified_name,
                             message=f"configured {w} in {config.source} not applied: it is a TiDB design, and the "
                                     f"target is MySQL (one server, no Regions, no AUTO_RANDOM, no sequences); "
                                     f"IDENTITY stays AUTO_INCREMENT",
                             file=table.source.file, line=table.source.line) for w in wanted if w)
    return TableDesign(dist, clustered=table.primary_key is not None, findings=findings)


def shard_bits_for(tikv_nodes: int) -> int:
    """SHARD_ROW_ID_BITS = log2 of the TiKV nodes, rounded up (12 nodes -> 4, as seed 000 used)."""
    return max(1, min(MAX_SHARD_BITS, math.ceil(math.log2(max(tikv_nodes, 2)))))


def monotonic_column(table: Table) -> str | None:
    """The first primary-key column when its values only grow: IDENTITY or a NEXT VALUE FOR default."""
    if table.primary_key is None or not table.primary_key.columns:
        return None
    column = table.column(table.primary_key.columns[0].name)
    if column is None:
        return None
    if column.identity is not None or (column.default and "next value for" in column.default.casefold()):
        return column.name
    return None


def auto_random_blockers(table: Table) -> list[str]:
    """Why AUTO_RANDOM cannot generate this table's first primary-key column; empty when it can.

    The one test behind both the ID04 advice and a configured `identity: auto_random`, so the
    planner never recommends what it would then refuse. AUTO_RANDOM replaces ids the database
    generates: it takes no DEFAULT, and explicit values need @@allow_auto_random_explicit_insert
    (https://docs.pingcap.com/tidb/stable/auto-random).
    """
    pk = table.primary_key
    col = table.column(pk.columns[0].name) if pk and pk.columns else None
    if col is None:
        return ["the table has no primary key"]
    if col.type.name.casefold() not in AUTO_RANDOM_TYPES:
        return [f"AUTO_RANDOM needs an integer first primary-key column, and {col.name} is {col.type}"]
    other = next((c.name for c in table.columns if c.identity is not None and c.name.casefold() != col.name.casefold()), None)
    if other is not None:
        return [f"the IDENTITY column {other} is not the first primary-key column"]
    if col.identity is not None:
        return []
    ref = sequence_reference(col.default)
    if ref is not None:
        seq = ".".join(p for p in ref if p)
        return [f"AUTO_RANDOM generates the first key column, and {col.name} is not an IDENTITY: its values come from "
                f"DEFAULT NEXT VALUE FOR {seq}, and an AUTO_RANDOM column takes no DEFAULT; code that draws ids from "
                f"the sequence itself would insert them explicitly, which AUTO_RANDOM refuses unless "
                f"@@allow_auto_random_explicit_insert is set"]
    return [f"AUTO_RANDOM generates the first key column, and {col.name} is not an IDENTITY: the application supplies "
            f"its values"]


def unique_keys(table: Table) -> list[tuple[str, tuple[str, ...]]]:
    """(name, columns) of every UNIQUE constraint and unique rowstore index."""
    keys = [(k.name or f"unique_{i}", k.column_names) for i, k in enumerate(table.unique_keys)]
    keys += [(ix.name or f"unique_ix_{i}", tuple(c.name for c in ix.columns))
             for i, ix in enumerate(table.indexes) if ix.unique and ix.kind == "rowstore" and not ix.clustered]
    return keys


class DistributionPlanner:
    def __init__(self, database: Database, options: Options, config: PlanConfig, *, rates_known: bool) -> None:
        self.database = database
        self.options = options
        self.config = config
        self.rates_known = rates_known
        self.version = options.tidb_version

    def decide(self, table: Table, rate: TableRate | None) -> TableDesign:
        facts = self._facts(table, rate)
        override = self.config.table(table.schema, table.name)
        if override is not None and (override.distribution or override.identity == "auto_random"):
            return self._configured(table, override, facts, rate)
        return self._planned(table, rate, facts)

    def _planned(self, table: Table, rate: TableRate | None, facts: dict[str, object]) -> TableDesign:
        """The planner's own decision from the write rate, without any --config override."""
        threshold = self.config.write_hot_qps
        pk = table.primary_key
        clustered = bool(pk and pk.clustered)
        if not self.rates_known:
            return self._leave(table, facts, "No captured write rates, so no distribution change.",
                               f"A capture with write rates (Query Store, Extended Events or a workload spec) showing "
                               f"at least {threshold:g} writes/s to this table would make it write-hot.")
        load = rate.load if rate else 0.0
        where = f" in window {rate.window!r}" if rate and rate.window else ""
        if load < threshold:
            return self._leave(table, facts, f"Peak write rate {load:,.1f}/s{where} is below the write-hot threshold "
                               f"of {threshold:g}/s: one Region keeps up, so the table is left as is.",
                               f"A peak write rate of {threshold:g}/s or more (thresholds.write_hot_qps).")
        assert rate is not None
        hot = (f"Peak write rate {load:,.0f}/s{where} is above the write-hot threshold of {threshold:g}/s; a new table "
               f"is one Region on one TiKV node, which seed 000 saw top out near 25,000 inserts/s.")
        if self.options.tikv_nodes < 2:
            return self._single_node(table, facts, hot)
        if pk is None or not clustered:
            why = "has no primary key" if pk is None else "has a NONCLUSTERED primary key"
            return self._pre_split(table, facts, hot + f" The table {why}, so rows get TiDB's increasing _tidb_rowid.", None)
        mono = monotonic_column(table)
        if mono is not None and len(pk.columns) == 1:
            return self._recommend_for_increasing_key(table, facts, hot, mono, rate)
        blocked = self._key_partition_blockers(table)
        if blocked:
            return self._pre_split(table, facts, hot, blocked)
        return self._key_partition(table, facts, hot, None)

    # Facts and evidence ---------------------------------------------------------------------

    def _facts(self, table: Table, rate: TableRate | None) -> dict[str, object]:
        pk = table.primary_key
        referencing = [f"{t.schema}.{t.name}.{fk.name or '?'}" for t, fk in self.database.referencing_foreign_keys(table)]
        evidence: dict[str, object] = {
            "threshold_write_qps": self.config.write_hot_qps,
            "rates_known": self.rates_known,
            "primary_key": list(pk.column_names) if pk else [],
            "primary_key_clustered": bool(pk and pk.clustered),
            "primary_key_monotonic": monotonic_column(table) is not None,
            "foreign_keys": [fk.name or "?" for fk in table.foreign_keys],
            "referenced_by": referencing,
            "unique_keys": [f"{n} ({', '.join(c)})" for n, c in unique_keys(table)],
            "tikv_nodes": self.options.tikv_nodes,
            "tidb_version": str(self.version),
        }
        if rate is not None:
            evidence.update(rate.evidence())
        if table.partitioning is not None:
            evidence["sql_server_partition_scheme"] = f"{table.partitioning.scheme}({table.partitioning.column})"
        return evidence

    def _key_partition_blockers(self, table: Table) -> list[str]:
        reasons = []
        if self.version < KEY_PARTITION_SINCE:
            reasons.append(f"TiDB {self.version} has no KEY partitioning (it arrived in v7.0.0; earlier versions "
                           "silently create a normal table)")
        if table.foreign_keys:
            reasons.append(f"the table has foreign keys ({', '.join(fk.name or '?' for fk in table.foreign_keys)}), "
                           "and TiDB cannot partition a table with foreign keys")
        referencing = self.database.referencing_foreign_keys(table)
        if referencing:
            names = ", ".join(f"{t.schema}.{t.name}" for t, _ in referencing)
            reasons.append(f"foreign keys of {names} point at it, and TiDB cannot partition a referenced table")
        pk_cols = {c.casefold() for c in table.primary_key.column_names} if table.primary_key else set()
        missing = [n for n, cols in unique_keys(table) if not pk_cols <= {c.casefold() for c in cols}]
        if missing and self.version < GLOBAL_INDEX_SINCE:
            reasons.append(f"unique keys {', '.join(missing)} do not contain all partition columns, and global "
                           f"indexes need TiDB 8.3 (target is {self.version})")
        return reasons

    def _alternatives(self, table: Table, chosen: str) -> tuple[str, ...]:
        bits = shard_bits_for(self.options.tikv_nodes)
        pk = ", ".join(table.primary_key.column_names) if table.primary_key else ""
        out = []
        if chosen != "key_partition" and table.primary_key:
            out.append(f"key_partition: PARTITION BY KEY({pk}) PARTITIONS {self.options.tikv_nodes} spreads writes by a hash "
                       "of the key; range reads that do not name the key visit every partition")
        mono = monotonic_column(table)
        if chosen != "pre_split":
            key = f"PRIMARY KEY ({pk}) NONCLUSTERED + " if pk else ""
            deny = "ATTRIBUTES 'merge_option=deny' and " if self.version >= TABLE_ATTRIBUTES_SINCE else ""
            out.append(f"pre_split: {key}SHARD_ROW_ID_BITS={bits} PRE_SPLIT_REGIONS={bits} (2^{bits} Regions) with "
                       f"{deny}tidb_scatter_region; key lookups then read the row through "
                       "the primary-key index" + (f", and that index on the increasing {mono} stays one hot Region" if mono else ""))
        if chosen != "auto_random" and mono and not auto_random_blockers(table):
            out.append("auto_random: AUTO_RANDOM on a BIGINT first key column scatters new ids; ids stop being "
                       "increasing, so nothing may rely on their order")
        if chosen != "none":
            out.append("none: keep the SQL Server design and accept one hot Region until the table splits")
        return tuple(out)

    # Outcomes -------------------------------------------------------------------------------

    def _leave(self, table: Table, facts: dict[str, object], rationale: str, would_change_if: str | None) -> TableDesign:
        pk = table.primary_key
        dist = Distribution("none", rationale=rationale, evidence=facts,
                            alternatives=self._alternatives(table, "none"), would_change_if=would_change_if)
        return TableDesign(dist, clustered=bool(pk and pk.clustered) if pk else False)

    def _subject(self, facts: dict[str, object]) -> str:
        """What a DI01/DI02/DI06 finding opens with: why the table is being spread, with its rate if known."""
        if "write_qps" in facts:
            window = facts.get("window")
            rate = f"{float(facts['write_qps'] or 0):,.0f} writes/s" + (f" in window {window!r}" if window else "")
        else:
            rate = "no captured writes to it" if self.rates_known else "no captured write rates"
        if facts.get("configured") and not facts.get("refused"):
            return f"configured in {self.config.source} ({rate})"
        return f"write-hot table ({rate})"

    def _single_node(self, table: Table, facts: dict[str, object], hot: str) -> TableDesign:
        design = self._leave(table, facts, hot + " With one TiKV node there is nothing to spread the writes over: "
                             "every design still writes to that node.", "More than one TiKV node (--tikv-nodes).")
        finding = Finding(
            rule="DI06", severity=Severity.HIGH, object=table.qualified_name,
            message=f"{self._subject(facts)} on a single TiKV node (--tikv-nodes {self.options.tikv_nodes}): no table "
                    f"design can spread its writes, and seed 000 saw one TiKV node top out near 25,000 inserts/s; size "
                    f"the cluster for this rate and plan again with its --tikv-nodes",
            file=table.source.file, line=table.source.line, details={"evidence": facts})
        return replace(design, findings=(finding,))

    def _key_partition(self, table: Table, facts: dict[str, object], hot: str,
                       override: TableOverride | None) -> TableDesign:
        assert table.primary_key is not None
        partitions = (override.partitions if override and override.partitions else None) or self.options.tikv_nodes
        cols = table.primary_key.column_names
        pk_cols = {c.casefold() for c in cols}
        global_unique = frozenset(n.casefold() for n, c in unique_keys(table) if not pk_cols <= {x.casefold() for x in c})
        bits = shard_bits_for(self.options.tikv_nodes)
        nodes = self.options.tikv_nodes
        per_node = "one per TiKV node" if partitions == nodes else f"as configured, on {nodes} TiKV node(s)"
        rationale = (f"{hot} PARTITION BY KEY({', '.join(cols)}) PARTITIONS {partitions} ({per_node}) starts the "
                     f"table as {partitions} Regions and spreads inserts by a hash of the primary key, as seed 000 did "
                     f"(25,000 -> 60,000 inserts/s on 12 TiKV nodes). The alternative is a pre-split table: PRIMARY KEY "
                     f"... NONCLUSTERED with SHARD_ROW_ID_BITS={bits} PRE_SPLIT_REGIONS={bits}, merge_option=deny and "
                     f"tidb_scatter_region. Partitions cost extra round trips for reads that do not name the key.")
        if global_unique:
            rationale += f" Unique keys without the partition columns become global indexes: {', '.join(sorted(global_unique))}."
        dist = Distribution("key_partition", partitions=partitions, rationale=rationale, evidence=facts,
                            alternatives=self._alternatives(table, "key_partition"))
        findings = [Finding(
            rule="DI01", severity=Severity.HIGH, object=table.qualified_name,
            message=f"{self._subject(facts)}: PARTITION BY KEY({', '.join(cols)}) PARTITIONS {partitions}; alternative: pre-split with "
                    f"SHARD_ROW_ID_BITS={bits}",
            file=table.source.file, line=table.source.line, details={"evidence": facts},
        )]
        experimental = ("; global indexes are experimental in TiDB 8.3 and need tidb_enable_global_index = ON, which "
                        "04-indexes.sql sets for its session" if self.version < GLOBAL_INDEX_GA_SINCE else "")
        for name in sorted(global_unique):
            findings.append(Finding(
                rule="DI03", severity=Severity.INFO, object=f"{table.qualified_name}.{name}",
                message=f"unique key {name} does not contain the partition columns ({', '.join(cols)}); it becomes a "
                        f"GLOBAL index (TiDB {self.version} >= 8.3), which costs a cross-partition write on every insert"
                        + experimental,
                file=table.source.file, line=table.source.line,
            ))
        # Each partition starts as an empty Region; keep PD from merging them back before the load.
        return TableDesign(dist, clustered=True, partition_columns=cols, global_unique=global_unique,
                           merge_deny=True, findings=tuple(findings))

    def _pre_split(self, table: Table, facts: dict[str, object], hot: str, blocked: list[str] | None,
                   override: TableOverride | None = None) -> TableDesign:
        bits = (override.shard_row_id_bits if override and override.shard_row_id_bits else None) or shard_bits_for(self.options.tikv_nodes)
        split = (override.pre_split_regions if override and override.pre_split_regions else None) or bits
        split = min(split, bits)
        pk = table.primary_key
        key = f"PRIMARY KEY ({', '.join(pk.column_names)}) NONCLUSTERED + " if pk else ""
        why = f" KEY partitioning is ruled out: {'; '.join(blocked)}." if blocked else ""
        merge_deny = self.version >= TABLE_ATTRIBUTES_SINCE
        keep = ("merge_option=deny keeps PD from merging them back while empty" if merge_deny else
                f"nothing keeps PD from merging them back while empty ({_NO_ATTRIBUTES.format(version=self.version)})")
        rationale = (f"{hot}{why} {key}SHARD_ROW_ID_BITS={bits} scatters row ids over 2^{bits} shards, "
                     f"PRE_SPLIT_REGIONS={split} starts the table as 2^{split} Regions, {keep}, and tidb_scatter_region "
                     f"makes CREATE TABLE wait until they are spread (seed 000: ~60,000 inserts/s on 12 TiKV nodes).")
        mono = monotonic_column(table)
        if mono is not None:
            rationale += (f" This spreads the rows only: every insert still adds its entry at the end of the primary-key "
                          f"index on the increasing {mono}, so that index stays one hot Region.")
        dist = Distribution("pre_split", shard_row_id_bits=bits, pre_split_regions=split, rationale=rationale,
                            evidence=facts, alternatives=self._alternatives(table, "pre_split"))
        message = f"{self._subject(facts)}: {key}SHARD_ROW_ID_BITS={bits} PRE_SPLIT_REGIONS={split}"
        if blocked:
            message += f" (KEY partitioning ruled out: {'; '.join(blocked)})"
        if not merge_deny:
            message += f"; no merge_option=deny: {_NO_ATTRIBUTES.format(version=self.version)}"
        finding = Finding(rule="DI02", severity=Severity.HIGH, object=table.qualified_name, message=message,
                          file=table.source.file, line=table.source.line, details={"evidence": facts})
        return TableDesign(dist, clustered=False, merge_deny=merge_deny, findings=(finding,))

    def _recommend_for_increasing_key(self, table: Table, facts: dict[str, object], hot: str, column: str,
                                      rate: TableRate) -> TableDesign:
        bits = shard_bits_for(self.options.tikv_nodes)
        col = table.column(column)
        pre_split = (f"PRIMARY KEY ({column}) NONCLUSTERED with SHARD_ROW_ID_BITS={bits} PRE_SPLIT_REGIONS={bits} "
                     f"(distribution: pre_split), which spreads the rows but leaves the primary-key index on {column} "
                     f"one hot Region")
        blockers = auto_random_blockers(table)
        not_applied = (f"a NONCLUSTERED key costs every lookup by {column} a second read through the key index, and "
                       f"that index stays hot")
        if blockers:
            advice = f"{pre_split}. AUTO_RANDOM is not offered: {'; '.join(blockers)}"
            choices = ["distribution: pre_split"]
        else:
            widened = "" if col is not None and col.type.name.casefold() == "bigint" else ", widened"
            advice = f"AUTO_RANDOM on {column} (as BIGINT{widened}; identity: auto_random), or {pre_split}"
            choices = ["identity: auto_random", "distribution: pre_split"]
            not_applied = f"AUTO_RANDOM ids no longer increase, and code may rely on their order; {not_applied}"
        rationale = (f"{hot} The clustered key {column} only grows, so every insert lands on the last Region however "
                     f"far the table splits. Recommended: {advice}. Not applied: {not_applied}. Configure it with "
                     f"tables: {{{table.qualified_name}: {{{choices[0]}}}}} in --config, and measure the designs with "
                     f"sqlsrv2tidb experiment.")
        dist = Distribution("none", rationale=rationale, evidence=facts,
                            alternatives=self._alternatives(table, "none"),
                            would_change_if=f"Configure {' or '.join(choices)} for this table.")
        window = f" (window {rate.window!r})" if rate.window else ""
        finding = Finding(
            rule="ID04", severity=Severity.HIGH, object=table.qualified_name,
            message=f"{rate.insert_rate:,.0f} inserts/s{window} on the increasing clustered key {column}: one hot "
                    f"Region. Recommend {advice}; applied only when configured",
            file=table.source.file, line=table.source.line, details={"evidence": facts},
        )
        return TableDesign(dist, clustered=True, findings=(finding,))

    def _configured(self, table: Table, override: TableOverride, facts: dict[str, object],
                    rate: TableRate | None) -> TableDesign:
        wanted = override.distribution or "auto_random"
        if override.identity == "auto_random":
            wanted = "auto_random"
        facts = {**facts, "configured": wanted, "config": self.config.source}
        note = f"Configured in {self.config.source}: distribution {wanted}."
        pk = table.primary_key
        if wanted == "none":
            return self._leave(table, facts, note, None)
        if wanted == "key_partition":
            blockers = self._key_partition_blockers(table) if pk else ["the table has no primary key"]
            if pk is None or blockers:
                return self._refuse(table, facts, wanted, blockers, rate)
            return self._key_partition(table, facts, note, override)
        if wanted == "pre_split":
            return self._pre_split(table, facts, note, None, override)
        blockers = auto_random_blockers(table)
        if blockers:
            return self._refuse(table, facts, wanted, blockers, rate)
        assert pk is not None
        col = table.column(pk.columns[0].name)
        assert col is not None
        dist = Distribution(
            "auto_random", pre_split_regions=override.pre_split_regions,
            rationale=f"{note} {col.name} becomes BIGINT AUTO_RANDOM in a CLUSTERED primary key: new ids are scattered "
                      f"over the key range, so inserts spread over Regions; ids no longer increase.",
            evidence=facts, alternatives=self._alternatives(table, "auto_random"))
        return TableDesign(dist, clustered=True, auto_random=True)

    def _refuse(self, table: Table, facts: dict[str, object], wanted: str, reasons: list[str],
                rate: TableRate | None) -> TableDesign:
        """A configured design that breaks a guard: the planner's own decision applies, and DI04 says so."""
        why = "; ".join(reasons)
        fallback = self._planned(table, rate, {**facts, "refused": list(reasons)})
        dist = fallback.distribution
        chosen = _OUTCOME.get(dist.strategy, dist.strategy) if dist.strategy != "none" else "no distribution change"
        dist = replace(dist, rationale=f"Configured distribution {wanted} cannot be applied: {why}. The planner's own "
                                       f"decision applies instead: {dist.rationale}")
        finding = Finding(rule="DI04", severity=Severity.MEDIUM, object=table.qualified_name,
                          message=f"configured distribution {wanted} not applied: {why}; the planner's own decision "
                                  f"applies instead: {chosen}",
                          file=table.source.file, line=table.source.line)
        return replace(fallback, distribution=dist, findings=(finding, *fallback.findings))


_OUTCOME = {"key_partition": "KEY partitioning (finding DI01)", "pre_split": "a pre-split table (finding DI02)"}
