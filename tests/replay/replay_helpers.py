"""Hand-built captures and translations for the replay tests (the translator lands separately).

The seed-000 case: the `keywords` table with its composite primary key, the nightly INSERT with
seed 000's random ranges, and a point SELECT on the same table.
"""

from __future__ import annotations

from sqlsrv2tidb.model import (
    Capture,
    Column,
    Database,
    DataType,
    Generator,
    IndexColumn,
    IntervalStat,
    Key,
    Parameter,
    QueryClass,
    ServerInfo,
    Table,
    Window,
    Workload,
)
from sqlsrv2tidb.model.translation import TranslatedQuery, Translation

KEYWORDS_DDL = """CREATE TABLE keywords (
  e_type smallint NOT NULL, e_id int NOT NULL, s_type smallint NOT NULL, r_id int NOT NULL,
  d_order int NOT NULL, p_count smallint NOT NULL, p_display_order int NULL,
  PRIMARY KEY (e_type, e_id, s_type, r_id)
)"""

INSERT_SQL = ("INSERT INTO keywords (e_type, e_id, s_type, r_id, d_order, p_count, p_display_order) "
              "VALUES (?, ?, ?, ?, 1, 1, 1)")
SELECT_SQL = "SELECT d_order, p_count FROM keywords WHERE e_type = ? AND e_id = ?"

KEYWORDS = Table("dbo", "keywords", (
    Column("e_type", DataType("smallint"), False), Column("e_id", DataType("int"), False),
    Column("s_type", DataType("smallint"), False), Column("r_id", DataType("int"), False),
    Column("d_order", DataType("int"), False), Column("p_count", DataType("smallint"), False),
    Column("p_display_order", DataType("int")),
), primary_key=Key("PK_keywords", tuple(IndexColumn(c) for c in ("e_type", "e_id", "s_type", "r_id")), clustered=True))

GENERATORS = {
    "@e_type": Generator("random_int", min=1, max=8),
    "@e_id": Generator("random_int", min=1, max=2_100_000_000),
    "@s_type": Generator("random_int", min=1, max=3),
    "@r_id": Generator("random_int", min=1, max=2_100_000_000),
}


def keywords_case(*, insert_rate: float = 150.0, select_rate: float = 50.0, extra_sql: dict | None = None,
                  server: ServerInfo | None = None, select_generators: bool = False) -> tuple[Capture, Translation]:
    """A capture whose one-hour window runs the insert and the select at the given rates."""
    params = tuple(Parameter(p, t) for p, t in (("@e_type", "smallint"), ("@e_id", "int"), ("@s_type", "smallint"),
                                                 ("@r_id", "int")))
    queries = [
        QueryClass("qinsert", "INSERT INTO keywords ...", "INSERT INTO keywords ...", "insert", params,
                   generators=GENERATORS, origin="spec"),
        QueryClass("qselect", "SELECT ... FROM keywords WHERE ...", "SELECT ...", "select",
                   (Parameter("@e_type", "smallint"), Parameter("@e_id", "int")), origin="spec",
                   generators={k: GENERATORS[k] for k in ("@e_type", "@e_id")} if select_generators else {}),
    ]
    translated = [
        TranslatedQuery("qinsert", "INSERT ...", "INSERT ...", INSERT_SQL, "translated", kind="insert",
                        parameters=("@e_type", "@e_id", "@s_type", "@r_id")),
        TranslatedQuery("qselect", "SELECT ...", "SELECT ...", SELECT_SQL, "translated", kind="select",
                        parameters=("@e_type", "@e_id")),
    ]
    rates = {"qinsert": insert_rate, "qselect": select_rate}
    for qid, (kind, sql, rate) in (extra_sql or {}).items():
        queries.append(QueryClass(qid, sql, sql, kind, origin="spec"))
        translated.append(TranslatedQuery(qid, sql, sql, sql, "translated", kind=kind))
        rates[qid] = rate
    start, end = "2024-12-01T01:00:00Z", "2024-12-01T02:00:00Z"
    intervals = tuple(IntervalStat(qid, start, end, int(rate * 3600), total_duration_us=rate * 3600 * 250.0,
                                   min_duration_us=80.0, max_duration_us=9000.0)
                      for qid, rate in rates.items() if rate > 0)
    workload = Workload(tuple(queries), intervals, (Window("nightly", start, end, kind="spec"),))
    database = Database("poc", tables=(KEYWORDS,))
    return Capture(database=database, workload=workload, server=server), Translation(tuple(translated))


def create_keywords(mariadb, database: str) -> None:
    with mariadb.connect(database) as conn, conn.cursor() as cur:
        cur.execute(KEYWORDS_DDL)


def create_planned_tables(mariadb, database: str, capture: Capture) -> None:
    """Create the capture's tables on the test server from the planner's own CREATE TABLE statements."""
    from sqlsrv2tidb import api
    from sqlsrv2tidb.options import Options

    with mariadb.connect(database) as conn, conn.cursor() as cur:
        for table in api.plan(capture, Options()).tables:
            cur.execute(table.ddl.replace("%", "%%"))


def cluster_shape(server) -> dict[str, int]:
    """Servers by kind in the test TiDB (one tidb-server on unistore: one TiDB, one store, no PD, no TiFlash)."""
    shape = {"tidb": 0, "tikv": 0, "pd": 0, "tiflash": 0}
    with server.connect() as conn, conn.cursor() as cur:
        cur.execute("SELECT TYPE, COUNT(*) FROM information_schema.cluster_info GROUP BY TYPE")
        shape.update({str(kind).lower(): int(n) for kind, n in cur.fetchall()})
    return shape
