"""`replay`, `compare` and `data` write for the server they reach: the engine and version read from each real target."""

from __future__ import annotations

import pytest

from sqlsrv2tidb.options import Options, Version
from sqlsrv2tidb.replay.target_engine import options_for_target
from sqlsrv2tidb.target import parse_target

pytestmark = pytest.mark.mariadb


def test_each_target_says_which_engine_to_write_for(target, target_database):
    given = Options(tidb_version=Version(7, 5))
    found = options_for_target(parse_target(target.url(target_database)), given)
    if target.kind == "mysql":
        assert found.mysql and found.mysql_version == Version.parse(target.version())
        assert found.target_label.startswith("MySQL ") and found.tidb_version == Version(7, 5)
    else:  # TiDB, and MariaDB, which runs TiDB's text
        assert found == given
    # A MySQL target's plan asked for by a TiDB server is TiDB's again.
    assert options_for_target(parse_target(target.url(target_database)),
                              Options(target_engine="mysql")).mysql == (target.kind == "mysql")


def test_a_target_that_does_not_answer_changes_nothing():
    given = Options(target_engine="mysql", mysql_version=Version(8, 0, 36))
    assert options_for_target(parse_target("mysql://nobody@127.0.0.1:1/none"), given) is given
