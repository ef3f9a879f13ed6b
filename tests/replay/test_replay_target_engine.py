"""`replay`, `compare`, `data` and `assess --target` write for the server they reach: the engine and version read
from each real target, unless the user named them."""

from __future__ import annotations

import pytest

from sqlsrv2tidb.options import Options, Version
from sqlsrv2tidb.replay.target_engine import options_for_target
from sqlsrv2tidb.target import parse_target

pytestmark = pytest.mark.mariadb


def test_each_target_says_which_engine_and_version_to_write_for(target, target_database):
    url = parse_target(target.url(target_database))
    given = Options(tidb_version=Version(7, 5))
    found = options_for_target(url, given)
    reported = target.version() if target.kind != "mariadb" else ""
    if target.kind == "mysql":
        assert found.mysql and found.mysql_version == Version.parse(reported)
        assert found.target_label == f"MySQL {Version.parse(reported)}" and found.tidb_version == Version(7, 5)
    elif target.kind == "tidb":  # VERSION() says 8.0.11-TiDB-v8.5.3: the plan is for 8.5.3
        assert not found.mysql and found.tidb_version == Version.parse(reported.split("-TiDB-")[1])
    else:  # MariaDB runs TiDB's text, and says nothing of a TiDB version
        assert found == given
    # A MySQL target's plan asked for by a TiDB server is TiDB's again.
    assert options_for_target(url, Options(target_engine="mysql")).mysql == (target.kind == "mysql")


def test_a_version_or_an_engine_the_user_named_is_kept(target, target_database):
    """`--mysql-version 8.0` (or `--tidb-version 7.5`) is what the user plans for, whatever the server says; with
    `--target-engine mysql` and no version, the MySQL server's own version (a 9.7.4 is not planned as 8.4)."""
    url = parse_target(target.url(target_database))
    named = Options(target_engine="mysql", mysql_version=Version.release_of("8.0"), tidb_version=Version(7, 5),
                    named_versions=frozenset({"mysql", "tidb"}))
    assert options_for_target(url, named, engine=False) == named
    engine_only = options_for_target(url, Options(target_engine="mysql"), engine=False)
    assert engine_only.mysql
    if target.kind == "mysql":
        assert engine_only.mysql_version == Version.parse(target.version()) != Version.release_of("8.4")


def test_a_target_that_does_not_answer_changes_nothing():
    given = Options(target_engine="mysql", mysql_version=Version(8, 0, 36))
    assert options_for_target(parse_target("mysql://nobody@127.0.0.1:1/none"), given) is given
