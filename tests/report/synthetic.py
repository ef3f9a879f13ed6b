"""A capture scaled up through the real contracts: thousands of tables and query classes.

Used by the browser test (paging, sorting, filtering over a few hundred classes) and by
benchmarks/report (10,000 classes, 1,000 tables).
"""

from __future__ import annotations

from pathlib import Path

from sample import _col, _t, write_out

from sqlsrv2tidb.model import (
    Capture,
    Finding,
    IndexColumn,
    IntervalStat,
    Key,
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
from sqlsrv2tidb.tsql.fingerprint import fingerprint, query_id


def synthetic_out(out: Path, tables: int = 1000, classes: int = 10_000, intervals: int = 24) -> Path:
    """`tables` tables of 12 columns and `classes` query classes over `intervals` hourly intervals."""
    schema_tables, plans = [], []
    for i in range(tables):
        cols = tuple(_col(f"c{j:02d}_{i}", "int" if j % 3 else "nvarchar", None if j % 3 else 100) for j in range(12))
        t = Table("sales" if i % 2 else "dbo", f"table_{i:04d}", cols, primary_key=Key(f"PK_{i}", (IndexColumn(cols[0].name),), clustered=True),
                  source=SourceRef(f"/data/ssdt/Tables/table_{i:04d}.sql", 1), row_count=i * 1000, size_bytes=i * 65536)
        schema_tables.append(t)
        ddl = f"CREATE TABLE `t{i:04d}` (\n" + ",\n".join(f"  `{c.name}` INT NOT NULL" for c in cols) + f",\n  PRIMARY KEY (`{cols[0].name}`)\n);"
        plans.append(TablePlan(t.schema, t.name, f"`{t.name}`", tuple(ColumnPlan(c.name, str(c.type), "INT") for c in cols),
                               (cols[0].name,), True, Distribution(rationale="below one Region's ceiling", evidence={"insert_qps_peak": float(i)}),
                               ddl, (f"CREATE INDEX `ix_{i}` ON `t{i:04d}` (`{cols[1].name}`);",), t.row_count, t.size_bytes, t.source))
    queries, translated, stats = [], [], []
    for k in range(classes):
        table = schema_tables[k % tables]
        text = (f"SELECT {', '.join(c.name for c in table.columns[:6])} FROM {table.schema}.{table.name} "
                f"WHERE {table.columns[1].name} = @P1 AND {table.columns[2].name} > {k}")
        fp = fingerprint(text) + f" /* {k} */"
        qid = query_id(fp)
        queries.append(QueryClass(qid, fp, text, kind="select", origin="query_store"))
        status = ("translated", "rewritten", "review", "unsupported")[k % 4]
        translated.append(TranslatedQuery(qid, fp, text, None if status == "unsupported" else text.replace("@P1", "?"), status,
                                          (Note("QY01", "example note"),) if k % 2 else (), "select"))
        for h in range(intervals):
            n = (k % 97 + 1) * (10 if h == 1 else 1)
            stats.append(IntervalStat(qid, _t(h), _t(h + 1), n, total_duration_us=n * 250.0))
    capture = Capture(database=Database(name="bench", tables=tuple(schema_tables)),
                      workload=Workload(tuple(queries), tuple(stats), (Window("nightly", _t(1), _t(2), kind="batch"),)))
    files = (DdlFile("01-tables.sql", "tables", "\n\n".join(p.ddl for p in plans) + "\n", tables),
             DdlFile("02-indexes.sql", "indexes", "\n".join(p.post_data_ddl[0] for p in plans) + "\n", tables))
    plan = MigrationPlan(tuple(plans), files)
    findings = [Finding(("TY02", "IX03", "DI01", "QY01")[i % 4], (Severity.LOW, Severity.MEDIUM, Severity.HIGH, Severity.INFO)[i % 4],
                        f"{t.schema}.{t.name}", f"finding {i} about {t.name}", t.source.file, 1) for i, t in enumerate(schema_tables)]
    per_query = [{"id": q.id, "statements": 50 + i % 50, "errors": 1 if i % 101 == 0 else 0,
                  "latency_ms": {"mean": 0.2 + (i % 7) * 0.05, "p50": 0.2, "p95": 0.5, "p99": 1.0, "max": 3.0}}
                 for i, q in enumerate(queries)]
    replay = {"format": "sqlsrv2tidb.replay/1", "target": "mysql://bench@127.0.0.1:4000/bench", "config": {"window": "nightly"},
              "target_qps": 1000.0, "achieved_qps": 990.0, "duration_s": 60.0, "statements": 59_400, "errors": 99,
              "latency_ms": {"p50": 0.2, "p95": 0.5, "p99": 1.0, "max": 3.0}, "per_query": per_query,
              "timeline": [{"t": float(s), "target_qps": 1000.0, "achieved_qps": 990.0} for s in range(60)]}
    return write_out(out, capture, Translation(tuple(translated)), plan, findings, Options(), replay)
