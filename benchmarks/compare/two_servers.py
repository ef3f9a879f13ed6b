"""TiDB and the SQL Server endpoint started for one benchmark run in a folder of their own, and stopped (the folder
removed) when it ends, however it ends."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from servers import SqlServer, TiDB


@contextmanager
def two_servers(prefix: str) -> Iterator[tuple[Path, TiDB, SqlServer]]:
    work = Path(tempfile.mkdtemp(prefix=prefix))
    work.chmod(0o755)  # Babelfish runs as nobody under root and must reach its data folder
    servers = []
    try:
        (work / "tidb").mkdir()
        tidb = TiDB(work / "tidb")
        tidb.start()
        servers.append(tidb)
        (work / "mssql").mkdir()
        mssql = SqlServer(work / "mssql")
        mssql.start()
        servers.append(mssql)
        yield work, tidb, mssql
    finally:
        for server in reversed(servers):
            server.stop()
        shutil.rmtree(work, ignore_errors=True)
