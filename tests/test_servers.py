"""The real servers the suite runs on answer as what they claim to be."""

from __future__ import annotations


def test_tidb_is_tidb(tidb, tidb_database):
    assert "TiDB" in tidb.version()
    with tidb.connect(tidb_database) as conn, conn.cursor() as cur:
        cur.execute("SELECT @@sql_mode")
        assert "ONLY_FULL_GROUP_BY" in cur.fetchone()[0]  # TiDB's default, unlike MariaDB's
        cur.execute("CREATE TABLE t (id BIGINT PRIMARY KEY /*T![auto_rand] AUTO_RANDOM(5) */, v INT)")
        cur.execute("INSERT INTO t (v) VALUES (1), (2)")
        cur.execute("SELECT COUNT(DISTINCT id) FROM t")
        assert cur.fetchone()[0] == 2


def test_every_target_runs_sql(target, target_database):
    with target.connect(target_database) as conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE t (id INT PRIMARY KEY)")
        cur.execute("INSERT INTO t VALUES (1), (2), (3)")
        cur.execute("SELECT SUM(id) FROM t")
        assert cur.fetchone()[0] == 6
        cur.execute("SELECT VERSION()")
        assert ("TiDB" in cur.fetchone()[0]) == (target.kind == "tidb")


def test_the_sql_server_endpoint_speaks_tds_and_has_the_catalog_views(mssql):
    name = mssql.create_database("servers_smoke")
    conn = mssql.connect(name)
    try:
        cur = conn.cursor()
        cur.execute("CREATE TABLE dbo.t (id int IDENTITY(1,1) PRIMARY KEY, name nvarchar(20) NOT NULL)")
        cur.execute("INSERT INTO dbo.t (name) VALUES (N'a'), (N'b')")
        rows = cur.execute("SELECT c.name, TYPE_NAME(c.user_type_id), c.is_identity FROM sys.columns c "
                           "WHERE c.object_id = OBJECT_ID('dbo.t') ORDER BY c.column_id").fetchall()
        assert [tuple(r) for r in rows] == [("id", "int", 1), ("name", "nvarchar", 0)]
        assert cur.execute("SELECT MAX(id) FROM dbo.t").fetchone()[0] == 2
    finally:
        conn.close()
