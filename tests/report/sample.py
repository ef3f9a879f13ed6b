"""OUT folders for the report tests, built through the real contracts rather than typed in by hand.

The schema, workload, translation and plan are model objects; `assessment.json` comes from
`assessment.build_assessment` and the deployment advice from `plan.sizing.advise`, exactly as
`assess` writes them. `replay.json` and `experiment.json` follow the DESIGN.md contract. The
`keywords` scenario is seed 000's case (a composite-key table written at 50,000 inserts per second in
a nightly window); `hostile` puts markup and script into every name and text a user controls;
`synthetic.py` scales the same contracts to thousands of tables and query classes.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from sqlsrv2tidb.assessment import Parts, build_assessment
from sqlsrv2tidb.model import (
    Capture,
    Column,
    DataType,
    Finding,
    IndexColumn,
    IntervalStat,
    Key,
    Parameter,
    QueryClass,
    Severity,
    SourceRef,
    Table,
    Window,
    Workload,
)
from sqlsrv2tidb.model.plan import ColumnPlan, DdlFile, Distribution, MigrationPlan, TablePlan
from sqlsrv2tidb.model.schema import Database
from sqlsrv2tidb.model.translation import Note, TranslatedQuery, Translation
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.outdir import write_json, write_text
from sqlsrv2tidb.plan.sizing import advise
from sqlsrv2tidb.tsql.fingerprint import fingerprint, query_id

FIXED_VERSION = "0.0.0-test"
DAY = datetime(2024, 5, 1, tzinfo=UTC)


def _t(hours: float) -> str:
    return (DAY + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")


def _col(name: str, type_: str, length: int | None = None, nullable: bool = False, **kw: Any) -> Column:
    return Column(name, DataType(type_, length=length), nullable=nullable, **kw)


# -- the keywords scenario ------------------------------------------------------------------------

KEYWORDS_COLUMNS = ("e_type", "e_id", "s_type", "r_id")


def _keywords_tables(file: str) -> tuple[Table, ...]:
    pk = Key("PK_keywords", tuple(IndexColumn(c) for c in KEYWORDS_COLUMNS), clustered=True)
    return (
        Table("dbo", "users", (_col("user_id", "int"), _col("email", "nvarchar", 256), _col("display_name", "nvarchar", 100),
                               Column("created_at", DataType("datetime2", scale=7), nullable=False)),
              primary_key=Key("PK_users", (IndexColumn("user_id"),), clustered=True), source=SourceRef(file, 13)),
        Table("dbo", "reviews", (_col("r_id", "int"), _col("user_id", "int"), _col("e_type", "smallint"), _col("e_id", "int"),
                                 _col("rating", "tinyint"), _col("body", "nvarchar", -1, nullable=True),
                                 Column("created_at", DataType("datetime2", scale=7), nullable=False)),
              primary_key=Key("PK_reviews", (IndexColumn("r_id"),), clustered=True), source=SourceRef(file, 33)),
        Table("dbo", "photos", (_col("photo_id", "bigint"), _col("r_id", "int"), _col("url", "nvarchar", 400),
                                _col("uploaded_at", "datetime")),
              primary_key=Key("PK_photos", (IndexColumn("photo_id"),), clustered=True), source=SourceRef(file, 52)),
        Table("dbo", "keywords", (_col("e_type", "smallint"), _col("e_id", "int"), _col("s_type", "smallint"), _col("r_id", "int"),
                                  _col("d_order", "int"), _col("p_count", "smallint"), _col("p_display_order", "int", nullable=True)),
              primary_key=pk, source=SourceRef(file, 66), row_count=2_100_000_000, size_bytes=180 * 1024**3),
    )


def _plan_for(table: Table, tikv: int, ddl: str, distribution: Distribution, types: dict[str, tuple[str, tuple[str, ...]]],
              post: tuple[str, ...] = ()) -> TablePlan:
    cols = []
    for c in table.columns:
        target, notes = types.get(c.name, (str(c.type).upper(), ()))
        cols.append(ColumnPlan(c.name, str(c.type), target, c.nullable, None, None, notes))
    return TablePlan(
        schema=table.schema, name=table.name, target=f"`{table.name}`", columns=tuple(cols),
        primary_key=table.primary_key.column_names if table.primary_key else (), clustered=True,
        distribution=distribution, ddl=ddl, post_data_ddl=post, row_count=table.row_count,
        size_bytes=table.size_bytes, source=table.source,
    )


def keywords_parts(file: str = "examples/keywords/schema.sql") -> tuple[Capture, Translation, MigrationPlan, list[Finding], Options]:
    options = Options(tikv_nodes=12)
    tables = _keywords_tables(file)
    statements = {
        "insert_keywords": ("insert", "INSERT INTO dbo.keywords (e_type, e_id, s_type, r_id, d_order, p_count) "
                            "VALUES (@P1, @P2, @P3, @P4, @P5, @P6)",
                            "INSERT INTO `keywords` (`e_type`, `e_id`, `s_type`, `r_id`, `d_order`, `p_count`) VALUES (?, ?, ?, ?, ?, ?)",
                            "translated", ()),
        "select_keywords": ("select", "SELECT TOP 10 r_id, d_order FROM dbo.keywords WITH (NOLOCK) "
                            "WHERE e_type = @P1 AND e_id = @P2 ORDER BY d_order",
                            "SELECT `r_id`, `d_order` FROM `keywords` WHERE `e_type` = ? AND `e_id` = ? ORDER BY `d_order` LIMIT 10",
                            "rewritten", (Note("QY01", "TOP n became LIMIT n"), Note("QY02", "table hint NOLOCK dropped: TiDB reads a snapshot"))),
        "insert_review": ("insert", "INSERT INTO dbo.reviews (user_id, e_type, e_id, rating, body) OUTPUT inserted.r_id "
                          "VALUES (@P1, @P2, @P3, @P4, @P5)",
                          "INSERT INTO `reviews` (`user_id`, `e_type`, `e_id`, `rating`, `body`) VALUES (?, ?, ?, ?, ?)",
                          "rewritten", (Note("QY05", "OUTPUT inserted.r_id became a LAST_INSERT_ID() call after the insert"),)),
        "review_age": ("select", "SELECT r_id, DATEDIFF(hour, created_at, GETUTCDATE()) AS age FROM dbo.reviews WHERE user_id = @P1",
                       "SELECT `r_id`, TIMESTAMPDIFF(HOUR, `created_at`, UTC_TIMESTAMP(6)) AS `age` FROM `reviews` WHERE `user_id` = ?",
                       "review", (Note("QY07", "DATEDIFF counts boundaries crossed on SQL Server; TIMESTAMPDIFF counts whole hours"),)),
        "merge_users": ("merge", "MERGE dbo.users AS t USING (SELECT @P1 AS email) AS s ON t.email = s.email "
                        "WHEN NOT MATCHED THEN INSERT (email, display_name, created_at) VALUES (s.email, N'new user', SYSUTCDATETIME());",
                        None, "unsupported", (Note("QY09", "MERGE has no TiDB statement; rewrite as INSERT ... ON DUPLICATE KEY UPDATE"),)),
    }
    # (class, normal-window rate, nightly-window rate, average duration in microseconds)
    rates = {"insert_keywords": (2_000, 50_000, 180.0), "select_keywords": (5_000, 800, 350.0),
             "insert_review": (300, 40, 900.0), "review_age": (120, 10, 4_200.0), "merge_users": (15, 0, 2_500.0)}
    queries, translated, intervals = [], [], []
    ids = {}
    for key, (kind, text, target, status, notes) in statements.items():
        fp = fingerprint(text)
        qid = query_id(fp)
        ids[key] = qid
        queries.append(QueryClass(qid, fp, text, kind=kind, origin="query_store", source=SourceRef("capture/query_store.json", None)))
        translated.append(TranslatedQuery(qid, fp, text, target, status, notes, kind))
        normal, nightly, avg_us = rates[key]
        for hour in range(24):
            rate = nightly if hour == 1 else normal if 9 <= hour < 18 else normal * 0.2
            n = int(rate * 3600)
            if n:
                intervals.append(IntervalStat(qid, _t(hour), _t(hour + 1), n, total_duration_us=avg_us * n))
    # Named and described by the user in a workload spec, as in seed 000; the readers' own windows keep their names.
    windows = (Window("nightly", _t(1), _t(2), kind="spec", description="nightly batch: keyword rebuild"),
               Window("normal", _t(9), _t(18), kind="spec", description="office hours"))
    capture = Capture(
        database=Database(name="poc", tables=tables),
        workload=Workload(queries=tuple(queries), intervals=tuple(intervals), windows=windows),
        sources=(file, "capture/query_store.json"),
    )
    dt = ("DATETIME(6)", ("datetime2(7) keeps 100 ns; TiDB keeps microseconds: the 7th digit is rounded",))
    ddl = {
        "users": "CREATE TABLE `users` (\n  `user_id` INT NOT NULL AUTO_INCREMENT,\n  `email` VARCHAR(256) NOT NULL,\n"
                 "  `display_name` VARCHAR(100) NOT NULL,\n  `created_at` DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),\n"
                 "  PRIMARY KEY (`user_id`) /*T![clustered_index] CLUSTERED */\n) /*T![auto_id_cache] AUTO_ID_CACHE=1 */;",
        "reviews": "CREATE TABLE `reviews` (\n  `r_id` INT NOT NULL AUTO_INCREMENT,\n  `user_id` INT NOT NULL,\n  `e_type` SMALLINT NOT NULL,\n"
                   "  `e_id` INT NOT NULL,\n  `rating` TINYINT UNSIGNED NOT NULL,\n  `body` LONGTEXT NULL,\n"
                   "  `created_at` DATETIME(6) NOT NULL,\n  PRIMARY KEY (`r_id`) /*T![clustered_index] CLUSTERED */\n);",
        "photos": "CREATE TABLE `photos` (\n  `photo_id` BIGINT NOT NULL /*T![auto_rand] AUTO_RANDOM(5) */,\n  `r_id` INT NOT NULL,\n"
                  "  `url` VARCHAR(400) NOT NULL,\n  `uploaded_at` DATETIME(3) NOT NULL,\n"
                  "  PRIMARY KEY (`photo_id`) /*T![clustered_index] CLUSTERED */\n);",
        "keywords": "CREATE TABLE `keywords` (\n  `e_type` SMALLINT NOT NULL,\n  `e_id` INT NOT NULL,\n  `s_type` SMALLINT NOT NULL,\n"
                    "  `r_id` INT NOT NULL,\n  `d_order` INT NOT NULL,\n  `p_count` SMALLINT NOT NULL,\n  `p_display_order` INT NULL,\n"
                    "  PRIMARY KEY (`e_type`, `e_id`, `s_type`, `r_id`) /*T![clustered_index] CLUSTERED */\n)"
                    " COLLATE=utf8mb4_bin\nPARTITION BY KEY (`e_type`, `e_id`, `s_type`, `r_id`) PARTITIONS 12;",
    }
    hot = Distribution(
        strategy="key_partition", partitions=12,
        rationale="Inserts reach 50,000 per second in the nightly window, twice what one Region took in seed 000 "
                  "(about 25,000); the composite primary key spreads well under KEY partitioning.",
        evidence={"insert_qps_peak": 50_000.0, "peak_window": "nightly", "region_ceiling_qps": 25_000,
                  "primary_key": "e_type, e_id, s_type, r_id", "tikv_nodes": 12},
        alternatives=("NONCLUSTERED primary key with SHARD_ROW_ID_BITS=4 PRE_SPLIT_REGIONS=4 and merge_option=deny",),
    )
    calm = Distribution(rationale="Writes stay far below one Region's ceiling.",
                        evidence={"insert_qps_peak": 300.0}, would_change_if="inserts exceed about 12,500 per second")
    rand = Distribution(strategy="auto_random", rationale="A BIGINT identity key: AUTO_RANDOM spreads new rows.",
                        evidence={"identity": "photo_id bigint"})
    by_name = {t.name: t for t in tables}
    post = {
        "keywords": ("CREATE INDEX `idx_keywords_by_display_order` ON `keywords` (`e_type`, `e_id`, `s_type`, `d_order`, `r_id`);",
                     "CREATE INDEX `idx_keywords_reviews_by_photo_display_order` ON `keywords` "
                     "(`e_type`, `e_id`, `s_type`, `p_display_order`, `r_id`, `p_count`);"),
        "reviews": ("CREATE INDEX `IX_reviews_entity` ON `reviews` (`e_type`, `e_id`, `rating`);",
                    "ALTER TABLE `reviews` ADD CONSTRAINT `FK_reviews_users` FOREIGN KEY (`user_id`) REFERENCES `users` (`user_id`);"),
        "photos": ("ALTER TABLE `photos` ADD CONSTRAINT `FK_photos_reviews` FOREIGN KEY (`r_id`) REFERENCES `reviews` (`r_id`);",),
    }
    plans = (
        _plan_for(by_name["keywords"], 12, ddl["keywords"], hot, {}, post["keywords"]),
        _plan_for(by_name["photos"], 12, ddl["photos"], rand, {"uploaded_at": ("DATETIME(3)", ())}, post["photos"]),
        _plan_for(by_name["reviews"], 12, ddl["reviews"], calm, {"created_at": dt, "body": ("LONGTEXT", (
            "nvarchar(max) holds 2 GB; TiDB caps a value at 6 MiB by default (txn-entry-size-limit)",)),
            "rating": ("TINYINT UNSIGNED", ())}, post["reviews"]),
        _plan_for(by_name["users"], 12, ddl["users"], calm, {"created_at": dt}),
    )
    files = (
        DdlFile("01-tables.sql", "tables with their primary keys", "\n\n".join(ddl[n] for n in ("users", "reviews", "photos", "keywords")) + "\n", 4),
        DdlFile("02-indexes.sql", "secondary indexes, after the data load",
                "SET GLOBAL tidb_ddl_enable_fast_reorg = ON;\nSET GLOBAL tidb_ddl_reorg_worker_cnt = 8;\n"
                + "\n".join(post["keywords"] + post["reviews"][:1]) + "\n", 5),
        DdlFile("03-foreign-keys.sql", "foreign keys", post["reviews"][1] + "\n" + post["photos"][0] + "\n", 2),
    )
    plan = MigrationPlan(tables=plans, files=files, settings={"tidb_ddl_enable_fast_reorg": "ON", "tidb_ddl_reorg_worker_cnt": 8})
    findings = [
        Finding("DI01", Severity.HIGH, "dbo.keywords", "Composite clustered key written at 50,000 inserts per second: one "
                "Region takes about 25,000; the plan KEY-partitions the table into 12", file, 66,
                {"insert_qps": 50_000}),
        Finding("TY02", Severity.MEDIUM, "dbo.reviews.created_at", "datetime2(7) becomes DATETIME(6): the 7th fractional digit is rounded", file, 40),
        Finding("TY02", Severity.MEDIUM, "dbo.users.created_at", "datetime2(7) becomes DATETIME(6): the 7th fractional digit is rounded", file, 20),
        Finding("TY05", Severity.MEDIUM, "dbo.reviews.body", "nvarchar(max) becomes LONGTEXT, capped at 6 MiB per value by default", file, 39),
        Finding("IX03", Severity.LOW, "dbo.reviews", "Index IX_reviews_entity has INCLUDE (rating): the column joins the key", file, 118),
        Finding("QY09", Severity.HIGH, f"query {ids['merge_users']}", "MERGE has no TiDB statement", None, None,
                {"effort_days": 0.5}),
        Finding("QY07", Severity.MEDIUM, f"query {ids['review_age']}", "DATEDIFF(hour, ...) counts boundaries crossed", None, None),
        Finding("ID01", Severity.INFO, "dbo.users", "IDENTITY becomes AUTO_INCREMENT with AUTO_ID_CACHE=1, keeping ids in insert order", file, 14),
    ]
    return capture, Translation(tuple(translated)), plan, findings, options


def keywords_replay(capture: Capture) -> dict[str, Any]:
    """A replay of the nightly window (format of sqlsrv2tidb/replay/resultfile.py) that plateaus at ~25,000 QPS."""
    def qid(prefix: str) -> str:
        return next(q.id for q in capture.workload.queries if q.text.startswith(prefix))

    insert_id, select_id = qid("INSERT INTO dbo.keywords"), qid("SELECT TOP 10")
    review_id, age_id, merge_id = qid("INSERT INTO dbo.reviews"), qid("SELECT r_id, DATEDIFF"), qid("MERGE")
    timeline = []
    for second in range(-5, 60):
        done = 12_000 + second * 400 if second < 30 else 24_600 + (second % 10) * 30
        timeline.append({"second": second, "step": 0, "warmup": second < 0, "sent": 50_850, "completed": max(done, 0),
                         "errors": 1 if second in (12, 40) else 0, "p50_ms": 4.0, "p99_ms": 40.0, "max_lag_ms": 800.0,
                         "per_query": {}})

    def lat(mean: float, p50: float, p99: float) -> dict[str, float]:
        return {"p50": p50, "p95": round(p50 * 3, 3), "p99": p99, "max": p99 * 4, "mean": mean}

    return {
        "format": "sqlsrv2tidb.replay/1",
        "tool_version": FIXED_VERSION,
        "started_at": "2024-05-02T01:00:00Z",
        "target": "mysql://loadtest@tidb.example.internal:4000/poc",
        "server": {"kind": "tidb", "version": "8.0.11-TiDB-v8.5.0"},
        "driver": "pymysql",
        "workers": 2,
        "connections": 256,
        "config": {"window": "nightly", "scale": None, "qps": None, "duration": 60.0, "warmup": 5.0, "workers": None,
                   "connections": 256, "arrival": "uniform", "timed": False, "speed": 1.0, "ramp": None,
                   "p99_limit_ms": 100.0, "allow_writes": True, "confirm_database": "poc", "seed": 1, "driver": "auto"},
        "mode": "rate",
        "window": {"name": "nightly", "start": _t(1), "end": _t(2), "seconds": 3600.0},
        "scale": 1.0,
        "captured_qps": 50_850.0,
        "target_qps": 50_850.0,
        "achieved_qps": 24_710.0,
        "duration_s": 60.0,
        "warmup_s": 5.0,
        "statements": 1_482_612,
        "errors": 12,
        "missed": 1_568_400,
        "reconnects": 0,
        "sustained": False,
        "latency_ms": lat(9.5, 4.1, 41.0),
        "service_ms": lat(3.0, 2.2, 12.0),
        "histograms": {"latency": {"buckets": [1, 2, 3]}, "service": {"buckets": [1, 2, 3]}},
        "per_query": [
            {"id": insert_id, "kind": "insert", "status": "translated", "statements": 1_440_000, "errors": 0,
             "captured_qps": 50_000.0, "target_qps": 50_000.0, "achieved_qps": 24_000.0,
             "latency_ms": lat(4.6, 4.2, 43.0), "captured_duration_ms": {"avg": 0.18, "min": 0.05, "max": 12.0}},
            {"id": select_id, "kind": "select", "status": "rewritten", "statements": 40_000, "errors": 0,
             "latency_ms": lat(0.21, 0.18, 1.2), "captured_duration_ms": {"avg": 0.35, "min": 0.1, "max": 8.0}},
            {"id": review_id, "kind": "insert", "status": "rewritten", "statements": 2_012, "errors": 12,
             "latency_ms": lat(2.0, 1.8, 7.0), "captured_duration_ms": {"avg": 0.9, "min": 0.2, "max": 9.0}},
            {"id": age_id, "kind": "select", "status": "review", "statements": 600, "errors": 0,
             "latency_ms": lat(4.4, 4.0, 9.0), "captured_duration_ms": {"avg": 4.2, "min": 1.0, "max": 30.0}},
        ],
        "timeline": timeline,
        "error_codes": [{"code": 1062, "count": 12, "samples": [
            {"query": review_id, "message": "Duplicate entry '77-123456' for key 'reviews.PRIMARY'"}]}],
        "skipped": [{"id": merge_id, "fingerprint": "MERGE dbo.users ...", "kind": "merge", "status": "unsupported",
                     "reason": "no TiDB statement"}],
        "ramp": None,
        "evidence": {"tables": ["keywords", "reviews"],
                     "before": {"keywords": {"regions": 1, "leaders_by_store": {"4": 1}, "written_bytes_by_store": {"4": 0}},
                                "reviews": {"regions": 3, "leaders_by_store": {"1": 1, "2": 1, "4": 1}}},
                     "after": {"keywords": {"regions": 2, "leaders_by_store": {"4": 2},
                                            "written_bytes_by_store": {"4": 9_700_000_000, "2": 300_000_000},
                                            "hot_regions": [{"region_id": 1001, "type": "write", "max_hot_degree": 3,
                                                             "flow_bytes": 160_000_000}]},
                               "reviews": {"regions": 3, "leaders_by_store": {"1": 1, "2": 1, "4": 1},
                                           "written_bytes_by_store": {"1": 4_000_000, "2": 3_000_000, "4": 3_000_000},
                                           "hot_regions": []}}},
        "interrupted": False,
        "stopped_by": None,
        "notes": ["1 query class was not sent: it has no TiDB statement"],
    }


def keywords_ramp(capture: Capture) -> dict[str, Any]:
    """The same target found by `--ramp 10000:10000:40000`: the ceiling sits near 20,000 QPS."""
    replay = keywords_replay(capture)
    steps = [(10_000.0, 9_990.0, 6.0, True), (20_000.0, 19_950.0, 14.0, True), (30_000.0, 25_100.0, 95.0, False),
             (40_000.0, 24_800.0, 180.0, False)]
    replay.update(mode="ramp", target_qps=20_000.0, achieved_qps=19_950.0, sustained=True,
                  ramp={"steps": [{"target_qps": t, "achieved_qps": a, "p99_ms": p, "errors": 0, "sustained": ok}
                                  for t, a, p, ok in steps], "ceiling_qps": 20_000.0, "p99_limit_ms": 100.0})
    replay["config"]["ramp"] = "10000:10000:40000"
    replay["timeline"] = [{"second": i, "step": i // 20, "warmup": i % 20 < 5, "sent": int(steps[i // 20][0]),
                           "completed": int(steps[i // 20][1]), "errors": 0} for i in range(80)]
    return replay


def keywords_experiment() -> dict[str, Any]:
    """`sqlsrv2tidb experiment --table dbo.keywords` as sqlsrv2tidb/replay/experiment.py writes it."""
    def variant(strategy: str, achieved: float, p99: float, ceiling: float | None, ddl: str) -> dict[str, Any]:
        name = f"keywords__{strategy}"
        return {"name": name, "strategy": strategy, "table": name, "ddl": ddl.replace("TABLE `k`", f"TABLE `{name}`"),
                "achieved_qps": achieved, "target_qps": 65_000.0, "p99_ms": p99, "errors": 0,
                "sustained": ceiling is not None and ceiling >= 60_000, "ceiling_qps": ceiling,
                "replay": f"variants/{name}/replay.json"}

    return {
        "format": "sqlsrv2tidb.experiment/1",
        "table": "dbo.keywords",
        "target": "mysql://loadtest@tidb.example.internal:4000/poc",
        "server": {"kind": "tidb", "version": "8.0.11-TiDB-v8.5.0"},
        "variants": [
            variant("as_captured", 24_800.0, 180.0, 20_000.0,
                    "CREATE TABLE `k` (`e_type` SMALLINT NOT NULL, PRIMARY KEY (`e_type`) /*T![clustered_index] CLUSTERED */)"),
            variant("key_partition", 61_200.0, 22.0, 60_000.0,
                    "CREATE TABLE `k` (`e_type` SMALLINT NOT NULL, PRIMARY KEY (`e_type`)) PARTITION BY KEY (`e_type`) PARTITIONS 12"),
            variant("pre_split", 59_400.0, 31.0, 50_000.0,
                    "CREATE TABLE `k` (`e_type` SMALLINT NOT NULL, PRIMARY KEY (`e_type`) /*T![clustered_index] NONCLUSTERED */) "
                    "/*T! SHARD_ROW_ID_BITS=4 PRE_SPLIT_REGIONS=4 */"),
        ],
        "skipped": [{"strategy": "auto_random", "reason": "the primary key is not a single BIGINT column"}],
        "best": "keywords__key_partition",
        "notes": [],
    }


def keywords_compare(capture: Capture, translation: Translation) -> dict[str, Any]:
    """compare.json as `compare` writes it (compare.document) for the keywords scenario: the writes left out by the
    same choice, the TOP query the same on both sides after a lost target session, the DATEDIFF one different."""
    from sqlsrv2tidb.compare.answers import compare_multiset, compare_ordered
    from sqlsrv2tidb.compare.classes import Compared, ValueSet, choose
    from sqlsrv2tidb.compare.document import document, findings
    from sqlsrv2tidb.compare.reopen import Reopened
    from sqlsrv2tidb.compare.runner import DIFFERS, ClassResult
    from sqlsrv2tidb.compare.values import ResultColumn, RowShape

    # Query Store declares each class's parameters in front of its text (`(@P1 int, @P2 bigint)`); here, as ints.
    declared = tuple(replace(q, parameters=tuple(Parameter(f"@P{n}", "int") for n in range(1, q.text.count("@P") + 1)))
                     for q in capture.workload.queries)
    chosen, left = choose(replace(capture, workload=replace(capture.workload, queries=declared)), translation)
    results = []
    for c in sorted(chosen, key=lambda c: c.query.source_sql):
        compared = Compared(c.query, c.source.text, c.source.parameters, c.query.target_sql or "",
                            (ValueSet((3, 1001), (3, 1001)),), "captured values")
        result = ClassResult(compared, values=(3, 1001), sets_run=1, seconds=0.012)
        columns = (ResultColumn("r_id", 8), ResultColumn("d_order", 3))
        left_rows = [(7001 + i, i) for i in range(10)]
        if "TOP 10" in c.source.text:
            result.method, result.total_order = "ordered", False
            result.comparison = compare_ordered([left_rows], [left_rows], RowShape(columns, None), [1])
            result.retried = ("the first run lost its session: the target failed: Lost connection to MySQL server "
                              "during query (MySQL error 2013)")
            result.reopened = [Reopened("target", 3, 3.0, "Lost connection to MySQL server during query (MySQL error 2013)")]
        else:
            result.method = "multiset"
            result.comparison = compare_multiset([[(7001, 5), (7002, 30)]], [[(7001, 4), (7002, 30)]],
                                                 RowShape((ResultColumn("r_id", 8), ResultColumn("age", 8)), None))
            result.verdict, result.reason = DIFFERS, "1 row(s) differ; the translation noted: QY07 DATEDIFF counts boundaries"
        result.rows = {"sql_server": result.comparison.sql_server_rows, "target": result.comparison.target_rows}
        result.comparison = result.comparison if not result.comparison.equal else None
        results.append(result)
    doc = document(source="db1/keywords", target="mysql://root@tidb:4000/keywords", server="tidb",
                   settings={"parameter_sets": 3, "timeout_s": 30.0, "seed": 1, "queries": None, "reconnect_within_s": 120.0},
                   results=results, left=left, found=findings(results), seconds=1.5, reconnects=1)
    return doc


def write_out(out: Path, capture: Capture, translation: Translation | None, plan: MigrationPlan | None, findings: list[Finding],
              options: Options, replay: dict[str, Any] | None = None, experiment: dict[str, Any] | None = None,
              compare: dict[str, Any] | None = None) -> Path:
    """Write OUT as `assess` does: ddl/, assessment.json (with deployment advice), replay.json, experiment.json,
    and compare.json as `compare` does."""
    out.mkdir(parents=True, exist_ok=True)
    advice = advise(capture, plan, options)
    doc = build_assessment(Parts(capture, options, plan=plan, translation=translation, findings=tuple(findings), deployment=advice))
    doc["tool_version"] = FIXED_VERSION
    write_json(out / "assessment.json", doc)
    if plan is not None:
        for f in plan.files:
            write_text(out / "ddl" / f.name, f.content)
    if replay is not None:
        write_json(out / "replay.json", replay)
    if experiment is not None:
        write_json(out / "experiment.json", experiment)
    if compare is not None:
        write_json(out / "compare.json", compare)
    return out


def keywords_out(out: Path, *, replay: bool = True, experiment: bool = True, compare: bool = False) -> Path:
    capture, translation, plan, findings, options = keywords_parts()
    return write_out(out, capture, translation, plan, findings, options,
                     keywords_replay(capture) if replay else None, keywords_experiment() if experiment else None,
                     keywords_compare(capture, translation) if compare else None)


# -- hostile input ---------------------------------------------------------------------------------

PAYLOAD = "</script><script>window.__pwned=1;console.error('pwned')</script>"
MARKUP_NAME = "<img src=x onerror=\"window.__pwned=2\">"
STYLE_NAME = "t</title><style>body{display:none}</style>"


def hostile_out(out: Path) -> Path:
    """Every user-controlled string carries script or markup; the report must show it, never run it."""
    capture, translation, plan, findings, options = keywords_parts(file=f"/tmp/{MARKUP_NAME}/schema.sql")
    tables = tuple(replace(t, name=MARKUP_NAME if t.name == "users" else STYLE_NAME if t.name == "photos" else t.name)
                   for t in capture.database.tables)
    text = f"SELECT '{PAYLOAD}' AS x FROM dbo.[{MARKUP_NAME}] WHERE a = N'<b>bold</b>'"
    fp = fingerprint(text)
    qid = query_id(fp)
    evil = QueryClass(qid, fp, text, kind="select", origin="sql_file")
    windows = tuple(replace(w, name=PAYLOAD if w.name == "normal" else w.name, description=MARKUP_NAME) for w in capture.workload.windows)
    workload = replace(capture.workload, queries=(*capture.workload.queries, evil),
                       intervals=(*capture.workload.intervals, IntervalStat(qid, _t(9), _t(10), 3600, 3600 * 500.0)),
                       windows=windows)
    capture = replace(capture, database=replace(capture.database, tables=tables, name=STYLE_NAME), workload=workload)
    translation = replace(translation, queries=(*translation.queries, TranslatedQuery(
        qid, fp, text, f"SELECT '{PAYLOAD}' AS `x` FROM `{MARKUP_NAME}`", "review", (Note("QY99", PAYLOAD),), "select")))
    plans = tuple(replace(p, name=MARKUP_NAME if p.name == "users" else STYLE_NAME if p.name == "photos" else p.name,
                          ddl=p.ddl + f"\n-- {PAYLOAD}",
                          distribution=replace(p.distribution, rationale=PAYLOAD, evidence={MARKUP_NAME: PAYLOAD}))
                  for p in plan.tables)
    plan = replace(plan, tables=plans, files=(*plan.files, DdlFile("04-evil.sql", PAYLOAD, f"-- {PAYLOAD}\n", 0)))
    findings = [*findings, Finding("XX01", Severity.BLOCKER, f"dbo.{MARKUP_NAME}", PAYLOAD, f"/tmp/{MARKUP_NAME}.sql", 3,
                                   {"note": PAYLOAD})]
    replay = keywords_replay(capture)
    replay["error_codes"] = [{"code": 1105, "count": 3, "samples": [{"query": qid, "message": PAYLOAD}]}]
    replay["evidence"] = {"tables": [MARKUP_NAME], "before": {MARKUP_NAME: {"regions": 1}},
                          "after": {MARKUP_NAME: {"regions": 1, "error": PAYLOAD, "leaders_by_store": {PAYLOAD: 1}}}}
    replay["notes"] = [PAYLOAD]
    replay["skipped"] = [{"id": qid, "fingerprint": PAYLOAD, "kind": "select", "status": "review", "reason": MARKUP_NAME}]
    replay["per_query"].append({"id": qid, "statements": 100, "errors": 0, "latency_ms": {"p50": 1.0}})
    experiment = keywords_experiment()
    experiment["variants"][0]["strategy"] = PAYLOAD
    experiment["skipped"][0]["reason"] = MARKUP_NAME
    return write_out(out, capture, translation, plan, findings, options, replay, experiment)


def read_json(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


class _Visible(HTMLParser):
    SKIP_ATTRS = ("d", "style", "transform", "clip-path", "points")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("style", "script"):
            self._skipping += 1
        self.parts += [v for k, v in attrs if v and k not in self.SKIP_ATTRS]

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script") and self._skipping:
            self._skipping -= 1

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.parts.append(data)


def visible_text(page: str) -> str:
    """Text and attribute values of a report, without its own stylesheet, script and SVG geometry."""
    parser = _Visible()
    parser.feed(page)
    parser.close()
    return "\n".join(parser.parts)


def leaks(text: str, originals: set[str]) -> list[str]:
    """The originals found in `text` as whole words, case-insensitively."""
    return sorted(n for n in originals if re.search(rf"(?<![\w]){re.escape(n)}(?![\w])", text, re.I))
