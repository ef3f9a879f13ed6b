"""The Options a test writes a plan or a translation with for a given server: MySQL's engine and version for a
MySQL, TiDB's (the default) for TiDB and MariaDB, as `replay`, `compare` and `data` choose from the server."""

from __future__ import annotations

from sqlsrv2tidb.options import Options, Version


def options_for(server, **kwargs) -> Options:
    if getattr(server, "kind", None) == "mysql":
        return Options(target_engine="mysql", mysql_version=Version.parse(server.version()), **kwargs)
    return Options(**kwargs)
