"""Write safety: what replay may send to a target, decided before the first connection opens.

Replay is read-only unless the user says otherwise twice: `--allow-writes` and `--confirm-database
NAME` naming the target's own database, so a script can run it but a slip of the URL cannot write
into the wrong place. Schema changes are never replayed. A target that is the capture's own source
server (the SQL Server the workload came from) is refused outright.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass

from ..errors import Refused
from ..model import ServerInfo
from ..model.workload import QueryKind
from ..target import Target
from ..tsql.fingerprint import is_write
from .config import ReplayConfig

SQL_SERVER_DEFAULT_PORT = 1433


@dataclass(frozen=True)
class Verdict:
    send: bool
    reason: str = ""


def check_writes_confirmed(target: Target, config: ReplayConfig) -> None:
    """Refuse `--allow-writes` whose `--confirm-database` does not name the target's database."""
    if not config.allow_writes:
        return
    if config.confirm_database != target.database:
        raise Refused(
            f"--confirm-database {config.confirm_database!r} does not name the target's database "
            f"{target.database!r} ({target.display}); no statement was sent"
        )


def check_not_source(target: Target, server: ServerInfo | None) -> None:
    """Refuse a target that is the SQL Server the capture was read from (`ServerInfo.instance`)."""
    if server is None or not server.instance:
        return
    where, _, database = server.instance.partition("/")
    host, _, port_text = where.replace(":", ",").partition(",")
    port = int(port_text) if port_text.strip().isdigit() else SQL_SERVER_DEFAULT_PORT
    host = host.split("\\")[0]  # a named instance `host\\SQL2019` lives on `host`
    if port == target.port and _same_host(host, target.host) and (not database or database == target.database):
        raise Refused(f"the target {target.display} is the capture's own source server ({server.instance}); "
                      "replay sends to a TiDB/MySQL copy, never back to SQL Server")


def _same_host(a: str, b: str) -> bool:
    a, b = a.strip().casefold(), b.strip().casefold()
    if a == b:
        return True
    local = {"localhost", "127.0.0.1", "::1", "(local)", "."}
    if a in local and b in local:
        return True
    try:
        return bool({i[4][0] for i in socket.getaddrinfo(a, None)} & {i[4][0] for i in socket.getaddrinfo(b, None)})
    except OSError:
        return False


def may_send(kind: QueryKind, config: ReplayConfig) -> Verdict:
    """Whether a class of this kind is replayed under this configuration, and why not."""
    if kind == "ddl":
        return Verdict(False, "schema change: never replayed")
    if is_write(kind) and not config.allow_writes:
        return Verdict(False, "changes data: replayed only with --allow-writes --confirm-database NAME")
    return Verdict(True)
