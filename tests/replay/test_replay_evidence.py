"""Hotspot evidence: concentrated writes in TiDB's Region data become an RP01 finding.

The test TiDB is one tidb-server (no PD, one store), where no hotspot can show; so these tests feed
`hotspot_findings` the shape that `snapshot` builds on a multi-store cluster from `SHOW TABLE ...
REGIONS` and `information_schema.tidb_hot_regions` rows. Replay against the real TiDB is in
test_replay_run.py and test_replay_tidb.py.
"""

from __future__ import annotations

import pytest
from replay_helpers import INSERT_SQL, SELECT_SQL, keywords_case

from sqlsrv2tidb.replay.evidence import _prevention_rule, hotspot_findings, quote_table, written_tables


def _table(regions, leaders, written, hot=()):
    return {"regions": regions, "leaders_by_store": leaders, "written_bytes_by_store": written,
            "hot_regions": list(hot)}


def test_writes_on_one_store_raise_a_hotspot_finding():
    capture, _ = keywords_case()
    before = {"keywords": _table(1, {"4": 1}, {"4": 0})}
    after = {"keywords": _table(2, {"4": 2}, {"4": 9_000_000, "5": 0},
                                [{"region_id": 12, "type": "write", "max_hot_degree": 30, "flow_bytes": 9_000_000}])}
    (finding,) = hotspot_findings(before, after, capture, {"DI01": "write-hotspot-composite-key"})
    assert finding.rule == "RP01" and finding.object == "keywords"
    assert "100% of the writes went to TiKV store 4" in finding.message and "DI01" in finding.message
    assert finding.details["regions_before"] == 1 and finding.details["regions_after"] == 2
    assert finding.details["known_table"] is True


def test_writes_spread_over_stores_raise_nothing():
    capture, _ = keywords_case()
    after = {"keywords": _table(16, {"1": 5, "2": 6, "3": 5}, {"1": 300, "2": 340, "3": 310})}
    assert hotspot_findings({}, after, capture) == []
    assert hotspot_findings({}, {"keywords": {"error": "Table 'x' doesn't exist"}}, capture) == []


def test_the_finding_names_the_catalogue_hotspot_rule():
    assert _prevention_rule({"DI02": "pre-split-regions", "DI07": "write-hotspot-sequential-key"}) == "DI07"
    assert _prevention_rule({}) == "DI01"


def test_written_tables_are_ranked_by_write_rate():
    statements = [("insert", INSERT_SQL, 10.0), ("select", SELECT_SQL, 500.0),
                  ("update", "UPDATE db.other SET a = ? WHERE id = ?", 30.0), ("insert", INSERT_SQL, 25.0)]
    assert written_tables(statements) == [("keywords", 35.0), ("db.other", 30.0)]
    assert quote_table("db.we`ird") == "`db`.`we``ird`"


@pytest.mark.tidb_parser
def test_the_tidb_only_statements_parse_as_tidb_sql(tidb_parser):
    from sqlsrv2tidb.replay.evidence import HOT_REGIONS_SQL, regions_sql
    from sqlsrv2tidb.replay.experiment import SCATTER_SQL, keep_regions_sql

    for sql in (regions_sql("poc.keywords"), regions_sql("keywords"),
                HOT_REGIONS_SQL.replace("%s", "'keywords'", 1).replace("%s", "'poc'"),
                SCATTER_SQL, keep_regions_sql("keywords__pre_split"), "SELECT tidb_version()"):
        result = tidb_parser.check(sql)
        assert result.ok, (sql, result.error)
    assert not tidb_parser.check(regions_sql("poc.keywords").replace("REGIONS", "REGION")).ok


def test_region_rows_as_tidb_returns_them_are_summarized_per_store():
    from sqlsrv2tidb.replay.evidence import summarize_regions

    # SHOW TABLE ... REGIONS columns as TiDB 8.5 returns them (REGION_ID .. SCHEDULING_STATE).
    columns = ["REGION_ID", "START_KEY", "END_KEY", "LEADER_ID", "LEADER_STORE_ID", "PEERS", "SCATTERING",
               "WRITTEN_BYTES", "READ_BYTES", "APPROXIMATE_SIZE(MB)", "APPROXIMATE_KEYS", "SCHEDULING_CONSTRAINTS",
               "SCHEDULING_STATE"]
    rows = [
        (2001, "t_88_", "t_88_r_1000", 2002, 1, "2002, 2003, 2004", 0, 0, 0, 1, 0, "", ""),
        (2005, "t_88_r_1000", "t_89_", 2006, 4, "2006, 2007, 2008", 0, 31_457_280, 0, 96, 950_000, "", ""),
    ]
    summary = summarize_regions(columns, rows)
    assert summary == {"regions": 2, "leaders_by_store": {"1": 1, "4": 1},
                       "written_bytes_by_store": {"1": 0, "4": 31_457_280}}
    capture, _ = keywords_case()
    (finding,) = hotspot_findings({"keywords": summary}, {"keywords": summary}, capture)
    assert finding.details["store"] == "4" and finding.details["share"] == 1.0


def test_a_cluster_that_cannot_show_a_hotspot_says_so_and_makes_no_finding():
    from sqlsrv2tidb.replay.evidence import not_measured

    capture, _ = keywords_case()
    after = {"keywords": _table(1, {"1": 1}, {"1": 0})}
    single = {"tidb": 1, "tikv": 1, "pd": 0, "tiflash": 0}
    assert hotspot_findings({}, after, capture, shape=single) == []
    missing = not_measured(single)
    assert len(missing) == 2 and "no PD" in missing[0] and "1 TiKV store" in missing[1]
    cluster = {"tidb": 2, "tikv": 3, "pd": 3, "tiflash": 0}
    assert not_measured(cluster) == []
    (finding,) = hotspot_findings({}, {"keywords": _table(1, {"4": 1}, {"4": 9_000, "5": 0})}, capture, shape=cluster)
    assert finding.rule == "RP01"
