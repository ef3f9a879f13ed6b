"""Which engine a target server is, for the stages that connect to one: `replay`, `compare` and `data` write the
plan and the translation for the server they reach, not for an option.

A MySQL (8.0 or later) gets the MySQL target (`Options.target_engine = "mysql"`), and its connections the
collation the plan gives the database's text (`session_target`); TiDB and MariaDB keep TiDB's (MariaDB runs
TiDB's text: its sequences, its comment forms), as does a MySQL older than 8.0, which the MySQL target does not
write for. The plan is for the version the server reports (VERSION(): `9.7.4`, or TiDB's `8.0.11-TiDB-v8.5.3`),
unless the user named one (`--mysql-version`, `--tidb-version`: `Options.named_versions`); an engine the user
named (`--target-engine`) is kept. A target that does not answer changes nothing: the stage's own connection
then fails with its own message.
"""

from __future__ import annotations

import re
from dataclasses import replace

from ..errors import UsageError
from ..model import Database
from ..options import OLDEST_MYSQL, Options, Version
from ..plan.config import load_plan_config
from ..target import Target
from ..translate.types import TypeMapper
from .drivers import connect
from .evidence import detect_server

_TIDB_VERSION = re.compile(r"-TiDB-(v?\d+(?:\.\d+){0,2})", re.I)


def options_for_target(target: Target, options: Options, *, engine: bool = True) -> Options:
    """`options` written for the server `target` names: its engine (unless `engine` is False: the user named
    one) and its version (unless the user named that engine's)."""
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
    if engine:
        options = _engine_of(server.kind, server.version, options)
    return _version_of(server.kind, server.version, options)


def _engine_of(kind: str, reported: str, options: Options) -> Options:
    if kind != "mysql":
        return replace(options, target_engine="tidb") if options.mysql else options
    try:
        version = Version.parse(reported)
    except UsageError:
        return options
    return options if version < OLDEST_MYSQL else replace(options, target_engine="mysql")


def _version_of(kind: str, reported: str, options: Options) -> Options:
    """The plan's version for the server's own, where the user named none for the plan's engine."""
    if options.target_engine in options.named_versions:
        return options
    found = _TIDB_VERSION.search(reported) if kind == "tidb" else None
    try:
        if options.mysql and kind == "mysql":
            version = Version.parse(reported)
            return replace(options, mysql_version=version) if version >= OLDEST_MYSQL else options
        if not options.mysql and found is not None:
            return replace(options, tidb_version=Version.parse(found[1]))
    except UsageError:
        pass
    return options


def session_target(target: Target, options: Options, database: Database) -> Target:
    """A MySQL target whose connections use the collation of the tables' text (`SET NAMES ... COLLATE`, see
    `drivers.session_setup`), as SQL Server's literals and variables take the database's: a user variable compared
    with a column then never fails with "Illegal mix of collations" (error 1267). One the URL names is kept."""
    if not options.mysql or target.params.get("collation"):
        return target
    mapper = TypeMapper(options.rules_dir, collation_overrides=load_plan_config(options).collations, engine="mysql")
    return replace(target, params={**target.params, "collation": mapper.map_collation(database.collation).target})
