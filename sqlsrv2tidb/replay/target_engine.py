"""Which engine a target server is, for the stages that connect to one: `replay`, `compare` and `data` write the
plan and the translation for the server they reach, not for an option.

A MySQL (8.0 or later) gets the MySQL target (`Options.target_engine = "mysql"`, its version from VERSION()),
and its connections the collation the plan gives the database's text (`session_target`);
TiDB and MariaDB keep TiDB's (MariaDB runs TiDB's text: its sequences, its comment forms), as does a MySQL
older than 8.0, which the MySQL target does not write for. A target that does not answer changes nothing:
the stage's own connection then fails with its own message.
"""

from __future__ import annotations

from dataclasses import replace

from ..errors import UsageError
from ..model import Database
from ..options import OLDEST_MYSQL, Options, Version
from ..plan.config import load_plan_config
from ..target import Target
from ..translate.types import TypeMapper
from .drivers import connect
from .evidence import detect_server


def options_for_target(target: Target, options: Options) -> Options:
    """`options` written for the engine of the server `target` names."""
    try:
        conn = connect(target, "pymysql")
    except Exception:  # noqa: BLE001 - unreachable: the stage's own connection reports it
        return options
    try:
        server = detect_server(conn)
    except Exception:  # noqa: BLE001 - a server that cannot say what it is keeps the options given
        return options
    finally:
        conn.close()
    if server.kind != "mysql":
        return replace(options, target_engine="tidb") if options.mysql else options
    try:
        version = Version.parse(server.version)
    except UsageError:
        return options
    if version < OLDEST_MYSQL:
        return options
    return replace(options, target_engine="mysql", mysql_version=version)


def session_target(target: Target, options: Options, database: Database) -> Target:
    """A MySQL target whose connections use the collation of the tables' text (`SET NAMES ... COLLATE`, see
    `drivers.session_setup`), as SQL Server's literals and variables take the database's: a user variable compared
    with a column then never fails with "Illegal mix of collations" (error 1267). One the URL names is kept."""
    if not options.mysql or target.params.get("collation"):
        return target
    mapper = TypeMapper(options.rules_dir, collation_overrides=load_plan_config(options).collations, engine="mysql")
    return replace(target, params={**target.params, "collation": mapper.map_collation(database.collation).target})
