"""The test servers themselves: TiDB's parser judges TiDB SQL, and MariaDB runs what the tool emits."""

from __future__ import annotations

import pymysql
import pytest


def test_tidb_parser_accepts_tidb_only_ddl(tidb_parser):
    sql = (
        "CREATE TABLE k (a SMALLINT NOT NULL, b INT NOT NULL, PRIMARY KEY (a, b) /*T![clustered_index] NONCLUSTERED */)"
        " /*T! SHARD_ROW_ID_BITS=4 PRE_SPLIT_REGIONS=4 */;"
        " CREATE TABLE r (id BIGINT PRIMARY KEY /*T![auto_rand] AUTO_RANDOM(5) */);"
        " CREATE SEQUENCE s START WITH 1 INCREMENT BY 1 NOCACHE"
    )
    result = tidb_parser.check(sql)
    assert result.ok, result.error
    assert result.statements == 3


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT TOP 10 a FROM t",
        "SELECT a FROM t WITH (NOLOCK)",
        "CREATE TABLE t (d DATETIME(7)) ON [PRIMARY]",
        "SELECT a FROM t LIMIT 10 PERCENT",
    ],
)
def test_tidb_parser_rejects_tsql(tidb_parser, sql):
    result = tidb_parser.check(sql)
    assert not result.ok
    assert result.error and "line 1" in result.error


def test_mariadb_runs_what_tidb_ddl_means_for_mysql(mariadb, database):
    """TiDB's versioned comments are plain comments to MariaDB, so one DDL file serves both."""
    with mariadb.connect(database) as conn, conn.cursor() as cur:
        cur.execute(
            "CREATE TABLE k (a SMALLINT NOT NULL, b INT NOT NULL,"
            " PRIMARY KEY (a, b) /*T![clustered_index] NONCLUSTERED */) /*T! SHARD_ROW_ID_BITS=4 */"
        )
        cur.execute("INSERT INTO k VALUES (1, 2)")
        cur.execute("SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = %s", (database,))
        assert cur.fetchone() == (1,)


def test_mariadb_rejects_invalid_sql(mariadb, database):
    with mariadb.connect(database) as conn, conn.cursor() as cur, pytest.raises(pymysql.err.ProgrammingError) as err:
        cur.execute("SELECT a FROM t WITH (NOLOCK)")
    assert err.value.args[0] == 1064
