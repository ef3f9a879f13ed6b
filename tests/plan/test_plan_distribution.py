"""Distribution decisions: seed 000's write-hot keywords table, the guards, version gates and overrides."""

from __future__ import annotations

import pytest
from plan_models import capture, col, entities, events, insert_workload, keywords, pk

from sqlsrv2tidb.model import Column, DataType, ForeignKey, Identity, Index, IndexColumn, Sequence, Table
from sqlsrv2tidb.options import Options, Version
from sqlsrv2tidb.plan.distribution import shard_bits_for
from sqlsrv2tidb.plan.migration import build_plan

HOT = insert_workload("dbo.keywords", 50_000)
KEY_PARTITION_12 = "PARTITION BY KEY(e_type, e_id, s_type, r_id) PARTITIONS 12"


def plan(*tables, workload=None, version="8.5", nodes=12, config=None, **db):
    return build_plan(capture(*tables, workload=workload, **db),
                      Options(tidb_version=Version.parse(version), tikv_nodes=nodes, config=config or {},
                              config_file="overrides.yaml" if config else None))


def codes(p, rule):
    return [f for f in p.findings if f.rule == rule]


def tables_sql(p) -> str:
    return next(f.content for f in p.files if f.name == "02-tables.sql")


def test_write_hot_composite_key_gets_key_partitioning():
    p = plan(keywords(), workload=HOT)
    t = p.table("dbo", "keywords")
    d = t.distribution
    assert (d.strategy, d.partitions) == ("key_partition", 12)
    assert f"/*T! {KEY_PARTITION_12} */" in t.ddl and KEY_PARTITION_12 in tables_sql(p)
    assert "PRIMARY KEY (e_type, e_id, s_type, r_id) /*T![clustered_index] CLUSTERED */" in t.ddl
    # The rationale names the pre-split alternative, and the evidence is recorded.
    assert "pre-split" in d.rationale and "SHARD_ROW_ID_BITS=4 PRE_SPLIT_REGIONS=4" in d.rationale
    assert any(a.startswith("pre_split:") for a in d.alternatives)
    ev = d.evidence
    assert ev["insert_qps"] == 50_000 and ev["window"] == "nightly" and ev["tikv_nodes"] == 12
    assert ev["primary_key"] == ["e_type", "e_id", "s_type", "r_id"] and ev["tidb_version"] == "8.5.0"
    assert ev["foreign_keys"] == [] and ev["referenced_by"] == [] and ev["unique_keys"] == []
    [finding] = codes(p, "DI01")
    assert finding.object == "dbo.keywords" and (finding.file, finding.line) == ("schema.sql", 68)
    placement = next(f for f in p.files if f.name == "03-tidb-placement.sql").content
    assert "ALTER TABLE keywords ATTRIBUTES 'merge_option=deny';" in placement
    assert "/*T! SET SESSION tidb_scatter_region = 'TABLE' */;" in tables_sql(p)


def test_low_insert_rate_leaves_the_table_alone():
    p = plan(keywords(), workload=insert_workload("dbo.keywords", 300))
    d = p.table("dbo", "keywords").distribution
    assert d.strategy == "none" and "PARTITION" not in p.table("dbo", "keywords").ddl
    assert "300.0/s" in d.rationale and "5000" in d.would_change_if
    assert not codes(p, "DI01") and not codes(p, "DI02")


def test_unknown_workload_changes_nothing_and_says_what_would():
    p = plan(keywords())
    d = p.table("dbo", "keywords").distribution
    assert d.strategy == "none" and "Query Store" in d.would_change_if
    [finding] = codes(p, "DI05")
    assert "5000" in finding.message


def test_threshold_from_config():
    p = plan(keywords(), workload=insert_workload("dbo.keywords", 2_000), config={"thresholds": {"write_hot_qps": 1000}})
    assert p.table("dbo", "keywords").distribution.strategy == "key_partition"


@pytest.mark.parametrize("version", ["6.5", "6.1.7"])
def test_before_7_0_there_is_no_key_partitioning(version):
    p = plan(keywords(), workload=HOT, version=version)
    t = p.table("dbo", "keywords")
    assert t.distribution.strategy == "pre_split" and "PARTITION BY" not in t.ddl
    assert "PRIMARY KEY (e_type, e_id, s_type, r_id) /*T![clustered_index] NONCLUSTERED */" in t.ddl
    assert "/*T! SHARD_ROW_ID_BITS=4 PRE_SPLIT_REGIONS=4 */" in t.ddl
    [finding] = codes(p, "DI02")
    assert "no KEY partitioning" in finding.message and "v7.0.0" in finding.message
    # Before v8.4 the scatter switch is global: 02 remembers it, sets it and puts it back after the tables.
    sql = tables_sql(p)
    assert sql.index("/*T! SET @sqlsrv2tidb_tidb_scatter_region = @@GLOBAL.tidb_scatter_region */;") \
        < sql.index("/*T! SET GLOBAL tidb_scatter_region = ON */;") < sql.index("CREATE TABLE keywords") \
        < sql.index("/*T! SET GLOBAL tidb_scatter_region = @sqlsrv2tidb_tidb_scatter_region */;")
    assert "tidb_scatter_region" not in next(f for f in p.files if f.name.startswith("03")).content


def test_before_5_3_there_are_no_table_attributes():
    p = plan(keywords(), workload=HOT, version="5.2")
    t = p.table("dbo", "keywords")
    assert t.distribution.strategy == "pre_split" and "/*T! SHARD_ROW_ID_BITS=4 PRE_SPLIT_REGIONS=4 */" in t.ddl
    placement = next(f for f in p.files if f.name == "03-tidb-placement.sql").content
    assert "ATTRIBUTES" not in placement
    assert ("-- TiDB 5.2.0 has no table attributes (v5.3+), so no merge_option=deny for keywords: pause Region merge "
            "for the load with pd-ctl `config set merge-schedule-limit 0`, and restore it afterwards (finding DI02).") in placement
    [finding] = codes(p, "DI02")
    assert finding.message.endswith("; no merge_option=deny: TiDB 5.2.0 has no table attributes (v5.3+); pause Region "
                                    "merge for the load with pd-ctl `config set merge-schedule-limit 0` and restore it "
                                    "afterwards")
    assert "merge_option=deny keeps PD" not in t.distribution.rationale
    # From v5.3 the attribute is written.
    assert "ALTER TABLE keywords ATTRIBUTES 'merge_option=deny';" in next(
        f.content for f in plan(keywords(), workload=HOT, version="5.3").files if f.name == "03-tidb-placement.sql")


@pytest.mark.parametrize("version", ["7.0", "7.5.0", "8.1"])
def test_from_7_0_key_partitioning(version):
    assert plan(keywords(), workload=HOT, version=version).table("dbo", "keywords").distribution.strategy == "key_partition"


def test_unique_key_without_partition_columns_blocks_before_8_3():
    p = plan(keywords(unique=True), workload=HOT, version="8.1")
    assert p.table("dbo", "keywords").distribution.strategy == "pre_split"
    assert "UQ_keywords_d_order do not contain all partition columns" in codes(p, "DI02")[0].message


def test_unique_key_without_partition_columns_is_global_from_8_3():
    p = plan(keywords(unique=True), workload=HOT, version="8.3")
    t = p.table("dbo", "keywords")
    assert t.distribution.strategy == "key_partition"
    assert "CREATE UNIQUE INDEX UQ_keywords_d_order ON keywords (d_order) /*T![global_index] GLOBAL */;" in "\n".join(t.post_data_ddl)
    assert codes(p, "DI03")[0].object == "dbo.keywords.uq_keywords_d_order"


def test_global_indexes_in_8_3_switch_on_tidb_enable_global_index():
    p = plan(keywords(unique=True), workload=HOT, version="8.3")
    indexes = next(f for f in p.files if f.name == "04-indexes.sql").content
    assert "/*T! SET SESSION tidb_enable_global_index = ON */;" in indexes
    assert indexes.index("tidb_enable_global_index") < indexes.index("CREATE UNIQUE INDEX UQ_keywords_d_order")
    assert "-- Global indexes (keywords) are experimental in TiDB 8.3 and refused unless this switch is on" in indexes
    assert codes(p, "DI03")[0].message.endswith(
        "; global indexes are experimental in TiDB 8.3 and need tidb_enable_global_index = ON, which 04-indexes.sql sets "
        "for its session")


@pytest.mark.parametrize("version", ["8.4", "8.5"])
def test_global_indexes_from_8_4_need_no_switch(version):
    p = plan(keywords(unique=True), workload=HOT, version=version)
    assert "tidb_enable_global_index" not in next(f for f in p.files if f.name == "04-indexes.sql").content
    assert "experimental" not in codes(p, "DI03")[0].message


def test_no_global_index_no_switch():
    assert "tidb_enable_global_index" not in next(
        f for f in plan(keywords(), workload=HOT, version="8.3").files if f.name == "04-indexes.sql").content


@pytest.mark.parametrize("direction", ["on", "to"])
def test_foreign_keys_block_key_partitioning(direction):
    if direction == "on":
        tables = (keywords(fk=True), entities())
    else:
        referencing = Table("dbo", "keyword_hits", (col("e_type", "smallint"), col("e_id", "int"), col("s_type", "smallint"), col("r_id", "int")),
                            primary_key=pk("e_type", "e_id", "s_type", "r_id"),
                            foreign_keys=(ForeignKey("FK_hits_keywords", ("e_type", "e_id", "s_type", "r_id"), "dbo",
                                                       "keywords", ("e_type", "e_id", "s_type", "r_id")),))
        tables = (keywords(), referencing)
    p = plan(*tables, workload=HOT)
    assert p.table("dbo", "keywords").distribution.strategy == "pre_split"
    assert "foreign key" in codes(p, "DI02")[0].message


def test_heap_write_hot_table_is_pre_split():
    heap = Table("dbo", "audit", (col("at", "datetime2"), col("what", "nvarchar", length=200)))
    p = plan(heap, workload=insert_workload("dbo.audit", 8_000), nodes=3)
    t = p.table("dbo", "audit")
    assert (t.distribution.strategy, t.distribution.shard_row_id_bits, t.distribution.pre_split_regions) == ("pre_split", 2, 2)
    assert "/*T! SHARD_ROW_ID_BITS=2 PRE_SPLIT_REGIONS=2 */" in t.ddl


def test_increasing_clustered_key_is_only_a_recommendation():
    p = plan(events(), workload=insert_workload("dbo.events", 20_000))
    t = p.table("dbo", "events")
    assert t.distribution.strategy == "none" and "AUTO_RANDOM" not in t.ddl and "AUTO_INCREMENT" in t.ddl
    [finding] = codes(p, "ID04")
    assert "20,000 inserts/s" in finding.message and "AUTO_RANDOM" in finding.message
    assert "SHARD_ROW_ID_BITS=4" in finding.message and finding.details["evidence"]["primary_key_monotonic"]


def test_one_tikv_node_has_nothing_to_spread_over_and_says_so_in_a_finding():
    p = plan(keywords(), workload=HOT, nodes=1)
    d = p.table("dbo", "keywords").distribution
    assert d.strategy == "none" and "PARTITION" not in p.table("dbo", "keywords").ddl
    assert d.would_change_if == "More than one TiKV node (--tikv-nodes)."
    [finding] = codes(p, "DI06")
    assert (finding.object, finding.severity.value, finding.line) == ("dbo.keywords", "high", 68)
    assert finding.message == (
        "write-hot table (50,000 writes/s in window 'nightly') on a single TiKV node (--tikv-nodes 1): no table design "
        "can spread its writes, and seed 000 saw one TiKV node top out near 25,000 inserts/s; size the cluster for this "
        "rate and plan again with its --tikv-nodes")
    assert not codes(p, "DI01") and not codes(p, "DI02")


def test_one_tikv_node_below_the_threshold_is_no_finding():
    assert not codes(plan(keywords(), workload=insert_workload("dbo.keywords", 300), nodes=1), "DI06")


def test_configured_partition_count_is_not_called_one_per_node():
    p = plan(keywords(), workload=HOT, config={"tables": {"dbo.keywords": {"distribution": "key_partition", "partitions": 7}}})
    d = p.table("dbo", "keywords").distribution
    assert "PARTITION BY KEY(e_type, e_id, s_type, r_id) PARTITIONS 7 (as configured, on 12 TiKV node(s)) starts the " \
           "table as 7 Regions" in d.rationale
    assert "one per TiKV node" not in d.rationale
    assert codes(p, "DI01")[0].message.startswith(
        "configured in overrides.yaml (50,000 writes/s in window 'nightly'): PARTITION BY KEY(e_type, e_id, s_type, r_id) "
        "PARTITIONS 7;")
    # The planner's own count is still one per node.
    assert "PARTITIONS 12 (one per TiKV node)" in plan(keywords(), workload=HOT).table("dbo", "keywords").distribution.rationale


def test_configured_designs_without_a_workload_do_not_invent_a_rate():
    p = plan(keywords(), config={"tables": {"dbo.keywords": {"distribution": "key_partition", "partitions": 6}}})
    assert codes(p, "DI01")[0].message == (
        "configured in overrides.yaml (no captured write rates): PARTITION BY KEY(e_type, e_id, s_type, r_id) "
        "PARTITIONS 6; alternative: pre-split with SHARD_ROW_ID_BITS=4")
    p = plan(keywords(), config={"tables": {"dbo.keywords": {"distribution": "pre_split", "shard_row_id_bits": 5,
                                                             "pre_split_regions": 3}}})
    assert codes(p, "DI02")[0].message == (
        "configured in overrides.yaml (no captured write rates): PRIMARY KEY (e_type, e_id, s_type, r_id) NONCLUSTERED "
        "+ SHARD_ROW_ID_BITS=5 PRE_SPLIT_REGIONS=3")
    # A workload that never writes the table: known rates, none for it.
    p = plan(keywords(), entities(), workload=insert_workload("dbo.entities", 10),
             config={"tables": {"dbo.keywords": {"distribution": "pre_split"}}})
    assert codes(p, "DI02")[0].message.startswith("configured in overrides.yaml (no captured writes to it): ")
    assert all("None" not in f.message for f in p.findings if f.rule.startswith("DI"))


def test_config_changes_a_tables_distribution():
    p = plan(keywords(), workload=HOT, config={"tables": {"dbo.keywords": {"distribution": "pre_split",
                                                                          "shard_row_id_bits": 5, "pre_split_regions": 3}}})
    t = p.table("dbo", "keywords")
    assert t.distribution.strategy == "pre_split" and "/*T! SHARD_ROW_ID_BITS=5 PRE_SPLIT_REGIONS=3 */" in t.ddl
    assert t.distribution.evidence["configured"] == "pre_split"


def test_config_partitions_and_key_partition_without_a_workload():
    p = plan(keywords(), config={"tables": {"keywords": {"distribution": "key_partition", "partitions": 6}}})
    assert "PARTITION BY KEY(e_type, e_id, s_type, r_id) PARTITIONS 6" in p.table("dbo", "keywords").ddl


def test_config_none_overrides_a_hot_table():
    p = plan(keywords(), workload=HOT, config={"tables": {"dbo.keywords": {"distribution": "none"}}})
    assert p.table("dbo", "keywords").distribution.strategy == "none" and not codes(p, "DI01")


def test_config_auto_random():
    p = plan(events(), config={"tables": {"dbo.events": {"identity": "auto_random", "pre_split_regions": 4}}})
    t = p.table("dbo", "events")
    assert t.distribution.strategy == "auto_random"
    assert "id BIGINT NOT NULL /*T![auto_rand] AUTO_RANDOM(5) */" in t.ddl
    assert "AUTO_INCREMENT" not in t.ddl and "/*T! PRE_SPLIT_REGIONS=4 */" in t.ddl
    assert "/*T![clustered_index] CLUSTERED */" in t.ddl
    assert codes(p, "ID05")


def test_auto_random_pre_split_beyond_its_shard_bits_stops_the_plan():
    from sqlsrv2tidb.errors import InputError

    with pytest.raises(InputError, match=r"`tables.dbo.events.pre_split_regions` \(8\) must not exceed the AUTO_RANDOM shard bits \(5\)"):
        plan(events(), config={"tables": {"dbo.events": {"identity": "auto_random", "pre_split_regions": 8}}})
    ddl = plan(events(), config={"tables": {"dbo.events": {"identity": "auto_random", "pre_split_regions": 5}}}).table("dbo", "events").ddl
    assert "id BIGINT NOT NULL /*T![auto_rand] AUTO_RANDOM(5) */" in ddl and "/*T! PRE_SPLIT_REGIONS=5 */" in ddl


def test_config_that_breaks_a_guard_is_refused():
    p = plan(keywords(fk=True), entities(), config={"tables": {"dbo.keywords": {"distribution": "key_partition"}}})
    # Without a workload the planner's own decision is to leave the table alone.
    assert p.table("dbo", "keywords").distribution.strategy == "none"
    [finding] = codes(p, "DI04")
    assert "foreign keys" in finding.message and finding.message.endswith(
        "the planner's own decision applies instead: no distribution change")


def test_a_refused_override_on_a_hot_table_falls_back_to_the_planners_design():
    # 30,000 writes/s with a foreign key: the planner pre-splits; a configured key_partition is refused.
    p = plan(keywords(fk=True), entities(), workload=insert_workload("dbo.keywords", 30_000),
             config={"tables": {"dbo.keywords": {"distribution": "key_partition", "partitions": 6}}})
    t = p.table("dbo", "keywords")
    assert t.distribution.strategy == "pre_split" and "PARTITION" not in t.ddl
    assert "PRIMARY KEY (e_type, e_id, s_type, r_id) /*T![clustered_index] NONCLUSTERED */" in t.ddl
    assert "/*T! SHARD_ROW_ID_BITS=4 PRE_SPLIT_REGIONS=4 */" in t.ddl
    [refused] = codes(p, "DI04")
    assert refused.message == (
        "configured distribution key_partition not applied: the table has foreign keys (FK_keywords_entities), and TiDB "
        "cannot partition a table with foreign keys; the planner's own decision applies instead: a pre-split table "
        "(finding DI02)")
    assert t.distribution.rationale.startswith("Configured distribution key_partition cannot be applied: the table has "
                                               "foreign keys (FK_keywords_entities)")
    assert t.distribution.evidence["refused"] == ["the table has foreign keys (FK_keywords_entities), and TiDB cannot "
                                                  "partition a table with foreign keys"]
    [split] = codes(p, "DI02")
    assert split.message.startswith("write-hot table (30,000 writes/s in window 'nightly')")
    placement = next(f for f in p.files if f.name == "03-tidb-placement.sql").content
    assert "ALTER TABLE keywords ATTRIBUTES 'merge_option=deny';" in placement


def test_config_for_a_missing_table_is_reported():
    p = plan(keywords(), config={"tables": {"dbo.nope": {"distribution": "pre_split"}}})
    assert [f.object for f in codes(p, "DI04")] == ["tables: dbo.nope"]


@pytest.mark.parametrize(("nodes", "bits"), [(1, 1), (2, 1), (3, 2), (4, 2), (12, 4), (16, 4), (17, 5), (100000, 15)])
def test_shard_bits_are_log2_of_tikv_nodes(nodes, bits):
    assert shard_bits_for(nodes) == bits


def test_sql_server_clustered_index_other_than_the_key_becomes_secondary():
    t = Table("dbo", "orders", (col("id", "int"), col("placed", "datetime")), primary_key=pk("id", clustered=False),
              indexes=(Index("CIX_orders_placed", (IndexColumn("placed"),), clustered=True),))
    p = plan(t)
    assert "/*T![clustered_index] NONCLUSTERED */" in p.table("dbo", "orders").ddl
    assert any("CREATE INDEX CIX_orders_placed ON orders (placed);" in s for s in p.table("dbo", "orders").post_data_ddl)


def test_auto_random_needs_the_identity_to_lead_the_key():
    t = Table("dbo", "t", (col("code", "int"), Column("seq", DataType("int"), False, identity=Identity(1, 1))),
              primary_key=pk("code"))
    p = plan(t, config={"tables": {"dbo.t": {"identity": "auto_random"}}})
    assert p.table("dbo", "t").distribution.strategy == "none" and "AUTO_RANDOM" not in p.table("dbo", "t").ddl
    assert "IDENTITY column seq" in codes(p, "DI04")[0].message


def test_auto_random_is_refused_on_a_key_the_application_supplies():
    # Seed 000's keywords table: its first key column e_type is a smallint the application writes.
    p = plan(keywords(), workload=HOT, config={"tables": {"dbo.keywords": {"distribution": "auto_random"}}})
    t = p.table("dbo", "keywords")
    assert "AUTO_RANDOM" not in t.ddl and "BIGINT" not in t.ddl
    [finding] = codes(p, "DI04")
    assert finding.message == (
        "configured distribution auto_random not applied: AUTO_RANDOM generates the first key column, and e_type is not "
        "an IDENTITY: the application supplies its values; the planner's own decision applies instead: KEY "
        "partitioning (finding DI01)")
    # The hot table is not left without a design: the planner's own choice, as without the override.
    assert t.distribution.strategy == "key_partition" and KEY_PARTITION_12 in t.ddl and codes(p, "DI01")
    assert t.distribution.rationale.startswith("Configured distribution auto_random cannot be applied: AUTO_RANDOM "
                                               "generates the first key column, and e_type is not an IDENTITY")


# Advice and acceptance agree: ID04 offers AUTO_RANDOM only where a configured one is accepted ---------------

ORDER_SEQ = Sequence("Sequences", "OrderID", DataType("int"), start=1, increment=1)


def sequence_keyed_orders() -> Table:
    """An increasing clustered key filled by a sequence default, not by IDENTITY."""
    return Table("Sales", "Orders", (Column("OrderID", DataType("int"), False, default="(NEXT VALUE FOR [Sequences].[OrderID])"),
                                     col("note", "nvarchar", True, length=10)), primary_key=pk("OrderID"))


def test_a_sequence_filled_key_is_advised_to_pre_split_not_auto_random():
    p = plan(sequence_keyed_orders(), sequences=(ORDER_SEQ,), workload=insert_workload("Sales.Orders", 20_000))
    d = p.table("Sales", "Orders").distribution
    assert d.strategy == "none"
    [finding] = codes(p, "ID04")
    assert finding.message == (
        "20,000 inserts/s (window 'nightly') on the increasing clustered key OrderID: one hot Region. Recommend "
        "PRIMARY KEY (OrderID) NONCLUSTERED with SHARD_ROW_ID_BITS=4 PRE_SPLIT_REGIONS=4 (distribution: pre_split), which "
        "spreads the rows but leaves the primary-key index on OrderID one hot Region. AUTO_RANDOM is not offered: "
        "AUTO_RANDOM generates the first key column, and OrderID is not an IDENTITY: its values come from DEFAULT NEXT "
        "VALUE FOR Sequences.OrderID, and an AUTO_RANDOM column takes no DEFAULT; code that draws ids from the sequence "
        "itself would insert them explicitly, which AUTO_RANDOM refuses unless @@allow_auto_random_explicit_insert is "
        "set; applied only when configured")
    assert "{Sales.Orders: {distribution: pre_split}}" in d.rationale
    assert d.would_change_if == "Configure distribution: pre_split for this table."
    assert not any(a.startswith("auto_random:") for a in d.alternatives)


def test_auto_random_on_a_sequence_filled_key_is_refused_for_the_real_reason():
    p = plan(sequence_keyed_orders(), sequences=(ORDER_SEQ,), config={"tables": {"Sales.Orders": {"identity": "auto_random"}}})
    t = p.table("Sales", "Orders")
    assert "AUTO_RANDOM" not in t.ddl and "OrderID INT NOT NULL DEFAULT NEXT VALUE FOR OrderID" in t.ddl
    [finding] = codes(p, "DI04")
    assert "its values come from DEFAULT NEXT VALUE FOR Sequences.OrderID" in finding.message
    assert "an AUTO_RANDOM column takes no DEFAULT" in finding.message
    assert "the application supplies its values" not in finding.message


def test_the_advised_pre_split_of_an_increasing_key_is_accepted_and_names_the_hot_key_index():
    p = plan(sequence_keyed_orders(), sequences=(ORDER_SEQ,), workload=insert_workload("Sales.Orders", 20_000),
             config={"tables": {"Sales.Orders": {"distribution": "pre_split"}}})
    t = p.table("Sales", "Orders")
    assert t.distribution.strategy == "pre_split" and "/*T! SHARD_ROW_ID_BITS=4 PRE_SPLIT_REGIONS=4 */" in t.ddl
    assert "PRIMARY KEY (OrderID) /*T![clustered_index] NONCLUSTERED */" in t.ddl
    assert t.distribution.rationale.endswith(
        "This spreads the rows only: every insert still adds its entry at the end of the primary-key index on the "
        "increasing OrderID, so that index stays one hot Region.")
    assert not codes(p, "DI04")


@pytest.mark.parametrize("table", [events, sequence_keyed_orders,
                                   lambda: Table("dbo", "counters", (Column("id", DataType("int"), False, identity=Identity(1, 1)),),
                                                 primary_key=pk("id"))])
def test_whatever_id04_recommends_is_accepted_when_configured(table):
    t = table()
    hot = plan(t, sequences=(ORDER_SEQ,), workload=insert_workload(t.qualified_name, 20_000))
    [advice] = codes(hot, "ID04")
    choice = {"identity": "auto_random"} if f"AUTO_RANDOM on {t.primary_key.columns[0].name}" in advice.message \
        else {"distribution": "pre_split"}
    configured = plan(t, sequences=(ORDER_SEQ,), workload=insert_workload(t.qualified_name, 20_000),
                      config={"tables": {t.qualified_name: choice}})
    assert not codes(configured, "DI04")
    assert configured.table(t.schema, t.name).distribution.strategy == choice.get("distribution", "auto_random")
