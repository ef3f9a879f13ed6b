"""Which engine a target server is, for the stages that connect to one: `replay`, `compare` and `data` write the
plan and the translation for the server they reach, not for an option.

A MySQL (8.0 or later) gets the MySQL target (`Options.target_engine = "mysql"`, its version from VERSION());
TiDB and MariaDB keep TiDB's (MariaDB runs TiDB's text: its sequences, its comment forms), as does a MySQL
older than 8.0, which the MySQL target does not write for. A target that does not answer changes nothing:
the stage's own connection then fails with its own message.
"""

from __future__ import annotations

from dataclasses import replace

from ..errors import UsageError
from ..options import OLDEST_MYSQL, Options, Version
from ..target import Target
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
