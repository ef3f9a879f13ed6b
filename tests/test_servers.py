"""The real servers the suite runs on answer as what they claim to be."""

from __future__ import annotations

import pymysql
import pytest


def test_tidb_is_tidb(tidb, tidb_database):
    assert "TiDB" in tidb.version()
    with tidb.connect(tidb_database) as conn, conn.cursor() as cur:
        cur.execute("SELECT @@sql_mode")
        assert "ONLY_FULL_GROUP_BY" in cur.fetchone()[0]  # TiDB's default, unlike MariaDB's
        cur.execute("CREATE TABLE t (id BIGINT PRIMARY KEY /*T![auto_rand] AUTO_RANDOM(5) */, v INT)")
        cur.execute("INSERT INTO t (v) VALUES (1), (2)")
        cur.execute("SELECT COUNT(DISTINCT id) FROM t")
        assert cur.fetchone()[0] == 2


def test_mysql_is_mysql_and_its_user_has_a_password(mysql, mysql_database):
    """Oracle's MySQL, not MariaDB: the tests' user authenticates with caching_sha2_password (MySQL 8.4's
    default, 9.x's only password plugin), and the server lacks what MariaDB and TiDB have (SEQUENCE)."""
    version = mysql.version()
    assert "mariadb" not in version.lower() and "tidb" not in version.lower()
    assert int(version.split(".")[0]) >= 8
    with mysql.connect(mysql_database) as conn, conn.cursor() as cur:
        cur.execute("SELECT plugin FROM mysql.user WHERE CONCAT(user, '@', host) = CURRENT_USER()")
        plugin = cur.fetchone()
        if mysql.started_here:
            assert mysql.password and plugin == ("caching_sha2_password",)
        cur.execute("SELECT @@collation_server, @@sql_mode")
        collation, sql_mode = cur.fetchone()
        assert collation == "utf8mb4_0900_ai_ci" and "ONLY_FULL_GROUP_BY" in sql_mode
        with pytest.raises(pymysql.err.ProgrammingError) as refused:
            cur.execute("CREATE SEQUENCE s START WITH 1")
        assert refused.value.args[0] == 1064


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
