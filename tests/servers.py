"""Real servers for the tests: MariaDB, TiDB, MySQL and a SQL Server-protocol (TDS) endpoint, and TiDB's parser.

Nothing here is a mock. `MariaDB` runs Debian's `mariadbd` with its own data directory and port,
so tests can create databases freely, restart the server mid-run, or throttle it. `TiDBParser`
talks to `tests/tidbparser/bin/tidb-parse`, a Go program built from TiDB's own parser module.

`TiDB`, `MySQL` and `SqlServer` are either servers the user already runs, named by an environment
variable (`SQLSRV2TIDB_TEST_TIDB`, `SQLSRV2TIDB_TEST_MYSQL`, `SQLSRV2TIDB_TEST_MSSQL`), or servers
started here from the shared server builds beside the checkout (`../shared/servers`, or the folder
`SQLSRV2TIDB_TEST_SERVERS` names): TiDB v8.5.3 as one `tidb-server` process, MySQL 9.7 (Oracle's
server, not MariaDB), and Babelfish (PostgreSQL with SQL Server's protocol and catalog views). When
neither is there, `Unavailable` says in one line how to give one.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pymysql

HERE = Path(__file__).resolve().parent
TIDB_PARSER_DIR = HERE / "tidbparser"
TIDB_PARSER_BIN = TIDB_PARSER_DIR / "bin" / "tidb-parse"


def _find(*names: str) -> str | None:
    for name in names:
        for folder in (None, "/usr/sbin", "/usr/bin", "/usr/local/go/bin"):
            found = shutil.which(name, path=folder) if folder else shutil.which(name)
            if found:
                return found
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class MariaDB:
    """One mariadbd process with a private datadir; `root` without a password on 127.0.0.1."""

    kind = "mariadb"

    def __init__(self, basedir: Path) -> None:
        self.basedir = basedir
        self.datadir = basedir / "data"
        self.socket = basedir / "mysqld.sock"
        self.log = basedir / "mysqld.log"
        self.port = free_port()
        self.host = "127.0.0.1"
        self.user = "root"
        self.process: subprocess.Popen[bytes] | None = None
        self.server = _find("mariadbd", "mysqld")
        self.install_db = _find("mariadb-install-db", "mysql_install_db")
        if not self.server or not self.install_db:
            raise RuntimeError("MariaDB is not installed: run scripts/test, which installs it from Debian's packages")

    def _user_args(self) -> list[str]:
        return ["--user=root"] if os.geteuid() == 0 else []

    def initialize(self) -> None:
        self.datadir.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [self.install_db, "--no-defaults", f"--datadir={self.datadir}", "--auth-root-authentication-method=normal",
             "--skip-test-db", *self._user_args()],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )

    def start(self, *extra_args: str) -> None:
        args = [
            self.server, "--no-defaults", f"--datadir={self.datadir}", f"--socket={self.socket}",
            f"--port={self.port}", f"--bind-address={self.host}", f"--log-error={self.log}",
            f"--pid-file={self.basedir / 'mysqld.pid'}", "--skip-name-resolve", "--max-connections=600",
            "--innodb-buffer-pool-size=128M", "--innodb-log-file-size=48M", "--innodb-flush-log-at-trx-commit=2",
            "--character-set-server=utf8mb4", "--collation-server=utf8mb4_bin", *self._user_args(), *extra_args,
        ]
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._wait_ready()

    def _wait_ready(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        last: Exception | None = None
        while time.monotonic() < deadline:
            if self.process and self.process.poll() is not None:
                raise RuntimeError(f"mariadbd exited: {self.log.read_text(errors='replace')[-2000:]}")
            try:
                conn = pymysql.connect(unix_socket=str(self.socket), user="root", connect_timeout=2)
            except pymysql.err.OperationalError as exc:
                last = exc
                time.sleep(0.2)
                continue
            with conn.cursor() as cur:
                # skip-name-resolve: TCP clients are matched by address, so allow root over loopback.
                cur.execute("CREATE USER IF NOT EXISTS 'root'@'127.0.0.1'")
                cur.execute("GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION")
            conn.close()
            return
        raise RuntimeError(f"mariadbd did not start in {timeout}s: {last}")

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def kill(self) -> None:
        """Stop the server abruptly, as a crash or a network cut would."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def restart(self, *extra_args: str) -> None:
        self.stop()
        self.start(*extra_args)

    def url(self, database: str) -> str:
        return f"mysql://{self.user}@{self.host}:{self.port}/{database}"

    def env(self) -> dict[str, str]:
        return {}

    def connect(self, database: str | None = None, **kwargs) -> pymysql.Connection:
        return pymysql.connect(host=self.host, port=self.port, user=self.user, database=database,
                               autocommit=True, charset="utf8mb4", **kwargs)

    def create_database(self, name: str) -> str:
        with self.connect() as conn, conn.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS `{name}`")
            cur.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
        return name



def running_mariadb(prefix: str, *args: str) -> Iterator[MariaDB]:
    """A MariaDB of its own in a new temp folder (named with `prefix`), started with `args`; stopped and its
    folder removed when the generator is closed: the body of a fixture (`yield from running_mariadb(...)`)."""
    base = Path(tempfile.mkdtemp(prefix=prefix))
    server = MariaDB(base)
    try:
        server.initialize()
        server.start(*args)
        yield server
    finally:
        server.stop()
        shutil.rmtree(base, ignore_errors=True)


@dataclass(frozen=True)
class ParseResult:
    ok: bool
    statements: int
    error: str | None

    def __bool__(self) -> bool:
        return self.ok


class TiDBParser:
    """A long-lived tidb-parse process; `check(sql)` says whether TiDB's grammar accepts the text."""

    def __init__(self, binary: Path = TIDB_PARSER_BIN) -> None:
        if not binary.exists():
            build_tidb_parser()
        self.process = subprocess.Popen(
            [str(binary)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8", bufsize=1
        )

    def check(self, sql: str) -> ParseResult:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps({"sql": sql}) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        return ParseResult(answer["ok"], answer.get("statements", 0), answer.get("error"))

    def close(self) -> None:
        if self.process.stdin:
            self.process.stdin.close()
        self.process.wait(timeout=10)


def build_tidb_parser() -> Path:
    """Build the checker (scripts/test does this up front; this is for a bare `pytest`)."""
    go = _find("go")
    if go is None:
        raise RuntimeError("Go is not installed; it is needed to build tests/tidbparser (TiDB's parser)")
    TIDB_PARSER_BIN.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([go, "build", "-o", str(TIDB_PARSER_BIN), "."], cwd=TIDB_PARSER_DIR, check=True)
    return TIDB_PARSER_BIN


def _shared_servers() -> Path:
    if os.environ.get("SQLSRV2TIDB_TEST_SERVERS"):
        return Path(os.environ["SQLSRV2TIDB_TEST_SERVERS"])
    for folder in HERE.parents:  # ../shared/servers beside the checkout, or beside a folder above it
        if (folder / "shared" / "servers").is_dir():
            return folder / "shared" / "servers"
    return HERE.parent.parent / "shared" / "servers"


SHARED_SERVERS = _shared_servers()
"""The shared server builds (TiDB, Babelfish), each with a README; not part of the project."""


class Unavailable(RuntimeError):
    """A server the tests need is neither named by an environment variable nor startable here."""


def _wait(what: str, ready, process: subprocess.Popen | None, log: Path | None, timeout: float):
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:] if log and log.exists() else ""
            raise RuntimeError(f"{what} exited with code {process.returncode}: {tail}")
        try:
            return ready()
        except Exception as exc:  # noqa: BLE001 - not up yet: any connection error means wait
            last = exc
            time.sleep(0.3)
    raise RuntimeError(f"{what} did not answer in {timeout:.0f} s: {last}")


class _MySQLWire:
    """What TiDB and MySQL share as test servers: the MySQL protocol with `host`, `port`, `user` and
    `password` (which may be empty)."""

    host: str
    port: int
    user: str
    password: str

    def env(self) -> dict[str, str]:
        """Environment for a CLI run against this server (the password never goes on a command line)."""
        return {"SQLSRV2TIDB_TARGET_PASSWORD": self.password} if self.password else {}

    def connect(self, database: str | None = None, **kwargs) -> pymysql.Connection:
        return pymysql.connect(host=self.host, port=self.port, user=self.user, password=self.password,
                               database=database, autocommit=True, charset="utf8mb4", connect_timeout=5, **kwargs)

    def create_database(self, name: str) -> str:
        with self.connect() as conn, conn.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS `{name}`")
            cur.execute(f"CREATE DATABASE `{name}`")
        return name

    def version(self) -> str:
        with self.connect() as conn, conn.cursor() as cur:
            cur.execute("SELECT VERSION()")
            return cur.fetchone()[0]


class TiDB(_MySQLWire):
    """A real TiDB: the one `SQLSRV2TIDB_TEST_TIDB` names (mysql://user[:password]@host:port), else
    v8.5.3 started here as a single `tidb-server` process with unistore storage (no PD, TiKV or
    TiFlash: what those show is out of reach, and the code under test must say so)."""

    kind = "tidb"
    ENV = "SQLSRV2TIDB_TEST_TIDB"
    BINARY = SHARED_SERVERS / "tidb" / "tidb-server"

    def __init__(self, basedir: Path) -> None:
        self.basedir = basedir
        self.process: subprocess.Popen[bytes] | None = None
        self.log = basedir / "tidb.log"
        given = os.environ.get(self.ENV)
        if given:
            from urllib.parse import unquote, urlsplit

            url = urlsplit(given)
            self.host, self.port = url.hostname or "127.0.0.1", url.port or 4000
            self.user, self.password = unquote(url.username or "root"), unquote(url.password or "")
            self.started_here = False
        elif self.BINARY.exists():
            self.host, self.port, self.status_port = "127.0.0.1", free_port(), free_port()
            self.user, self.password = "root", ""
            self.started_here = True
        else:
            raise Unavailable(f"no TiDB: set {self.ENV}=mysql://root@127.0.0.1:4000 (e.g. `tiup playground`) "
                              f"or provide {self.BINARY}")

    def start(self) -> None:
        if self.started_here:
            args = [str(self.BINARY), "-store", "unistore", "-path", str(self.basedir / "data"),
                    "-host", self.host, "-P", str(self.port), "-status-host", self.host,
                    "-status", str(self.status_port), "-log-file", str(self.log),
                    "-log-slow-query", str(self.basedir / "tidb-slow.log")]
            self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=open(self.basedir / "stderr", "wb"),
                                            cwd=self.basedir)
        _wait("tidb-server", lambda: self.connect().close(), self.process, self.basedir / "stderr",
              120 if self.started_here else 15)
        # CHECK constraints kept and enforced, as the tool's ddl/02-tables.sql makes a TiDB do with its first
        # statement: every test meets the setting the DDL leaves, whichever test applied DDL before it. A test
        # that needs it OFF (TiDB's default) sets it and puts it back.
        with self.connect() as conn, conn.cursor() as cur:
            cur.execute("SET GLOBAL tidb_enable_check_constraint = ON")

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def url(self, database: str) -> str:
        """The target URL the CLI takes; a password, where there is one, goes in the environment instead."""
        return f"mysql://{self.user}@{self.host}:{self.port}/{database}"



class MySQL(_MySQLWire):
    """A real MySQL: the one `SQLSRV2TIDB_TEST_MYSQL` names (mysql://user[:password]@host:port, a MySQL
    8.0, 8.4 or 9.x of the user's), else MySQL 9.7 started here from the shared build.

    The tests connect as a user with a password, never as root: MySQL 8.4 and later authenticate such a
    user with `caching_sha2_password` (9.x has nothing else), which is what a DBA's target asks of the
    tool's drivers. The password reaches a CLI run through the environment, as a user's would."""

    kind = "mysql"
    ENV = "SQLSRV2TIDB_TEST_MYSQL"
    HOME = SHARED_SERVERS / "mysql"
    USER, PASSWORD = "sqlsrv2tidb", "Test-pass-1"

    def __init__(self, basedir: Path) -> None:
        self.basedir = basedir
        self.datadir = basedir / "server"
        given = os.environ.get(self.ENV)
        if given:
            from urllib.parse import unquote, urlsplit

            url = urlsplit(given)
            self.host, self.port = url.hostname or "127.0.0.1", url.port or 3306
            self.user, self.password = unquote(url.username or "root"), unquote(url.password or "")
            self.started_here = False
        elif (self.HOME / "start").exists():
            self.host, self.port = "127.0.0.1", free_port()
            self.user, self.password = self.USER, self.PASSWORD
            self.started_here = True
        else:
            raise Unavailable(f"no MySQL: set {self.ENV}=mysql://user:password@127.0.0.1:3306 "
                              f"or provide {self.HOME}/start")

    def start(self) -> None:
        if self.started_here:
            done = subprocess.run([str(self.HOME / "start"), str(self.datadir), str(self.port)],
                                  capture_output=True, text=True, timeout=300)
            if done.returncode != 0:
                raise RuntimeError(f"MySQL did not start: {(done.stderr or done.stdout)[-2000:]}")
            _wait("mysqld", lambda: self._root().close(), None, None, 60)
            with self._root() as conn, conn.cursor() as cur:
                cur.execute(f"CREATE USER IF NOT EXISTS '{self.user}'@'127.0.0.1' "
                            f"IDENTIFIED WITH caching_sha2_password BY '{self.password}'")
                cur.execute(f"GRANT ALL PRIVILEGES ON *.* TO '{self.user}'@'127.0.0.1' WITH GRANT OPTION")
        _wait("MySQL", lambda: self.connect().close(), None, None, 60 if self.started_here else 15)

    def _root(self) -> pymysql.Connection:
        return pymysql.connect(host=self.host, port=self.port, user="root", autocommit=True, connect_timeout=5)

    def stop(self) -> None:
        if self.started_here and (self.datadir / "mysqld.pid").exists():
            subprocess.run([str(self.HOME / "stop"), str(self.datadir)], capture_output=True, timeout=120)

    def url(self, database: str) -> str:
        """The target URL, with the password in it as a user may write it (so `parse_target` in a test
        authenticates as the CLI does); `env` holds it too, for a run that drops it from the URL."""
        from urllib.parse import quote

        secret = f":{quote(self.password, safe='')}" if self.password else ""
        return f"mysql://{quote(self.user, safe='')}{secret}@{self.host}:{self.port}/{database}"



class SqlServer:
    """A real SQL Server-protocol (TDS) endpoint reached through pyodbc + unixODBC + FreeTDS: the one
    `SQLSRV2TIDB_TEST_MSSQL` names (an ODBC connection string with a login that may create
    databases), else Babelfish started here. `babelfish` says which differences to expect (its README
    lists them: no Query Store, most DMVs missing, catalog ids and definitions in its own form)."""

    kind = "mssql"
    ENV = "SQLSRV2TIDB_TEST_MSSQL"
    HOME = SHARED_SERVERS / "babelfish"

    def __init__(self, basedir: Path) -> None:
        self.basedir = basedir
        self.datadir = basedir / "data"
        self.started_here = False
        self.pg_port: int | None = None
        self.connection: str | None = os.environ.get(self.ENV)
        if self.connection:
            return
        if not (self.HOME / "start").exists():
            raise Unavailable(f"no SQL Server endpoint: set {self.ENV}='DRIVER={{FreeTDS}};SERVER=host;PORT=1433;"
                              f"UID=...;PWD=...;TDS_Version=7.4' or provide {self.HOME}/start")
        try:
            import pyodbc
        except ImportError:
            raise Unavailable("pyodbc is not installed: run scripts/test, which installs it") from None
        if not any("FreeTDS" in d for d in pyodbc.drivers()):
            raise Unavailable("the FreeTDS ODBC driver is not installed: run scripts/test (Debian's tdsodbc)")
        self.started_here = True

    def start(self) -> None:
        if self.started_here:
            self.tds_port, self.pg_port = free_port(), free_port()
            # Under root the server runs as `nobody`, which must reach the data folder.
            self.basedir.chmod(0o755)
            done = subprocess.run([str(self.HOME / "start"), str(self.datadir), str(self.tds_port), str(self.pg_port)],
                                  capture_output=True, text=True, timeout=300)
            if done.returncode != 0:
                raise RuntimeError(f"Babelfish did not start: {(done.stderr or done.stdout)[-2000:]}")
            self.connection = done.stdout.strip().splitlines()[-1]
        version = _wait("the SQL Server endpoint", lambda: self.scalar("SELECT @@VERSION"), None, None,
                        120 if self.started_here else 15)
        self.babelfish = "Babelfish" in version

    def stop(self) -> None:
        if self.started_here and (self.datadir / "PG_VERSION").exists():
            subprocess.run([str(self.HOME / "stop"), str(self.datadir)], capture_output=True, timeout=120)
            self.started_here = False

    def kill(self) -> None:
        """Stop a Babelfish started here at once, as a crash would: no checkpoint, every session cut; the next
        start recovers from the log first (answering "the database system is starting up" meanwhile)."""
        if not (self.started_here and (self.datadir / "PG_VERSION").exists()):
            raise Unavailable("only a Babelfish the tests started can be stopped by them")
        subprocess.run([*self._as_owner(), "env", f"LD_LIBRARY_PATH={self._home() / 'lib'}",
                        str(self._home() / "bin" / "pg_ctl"), "-D", str(self.datadir), "-m", "immediate", "-w",
                        "stop"], check=True, capture_output=True, timeout=120)

    def start_again(self) -> None:
        """Start a Babelfish the tests stopped, on its data folder and ports as before."""
        done = subprocess.run([str(self.HOME / "start"), str(self.datadir), str(self.tds_port), str(self.pg_port)],
                              capture_output=True, text=True, timeout=300)
        if done.returncode != 0:
            raise RuntimeError(f"Babelfish did not start again: {(done.stderr or done.stdout)[-2000:]}")

    @staticmethod
    def _home() -> Path:
        cache = Path(os.environ.get("SQLSRV2TIDB_SERVER_CACHE") or (
            "/var/cache/sqlsrv2tidb-servers" if os.geteuid() == 0 else Path.home() / ".cache/sqlsrv2tidb-servers"))
        return cache / "babelfish-4.3"

    @staticmethod
    def _as_owner() -> list[str]:
        return ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []

    def connection_string(self, database: str = "master") -> str:
        parts = [p for p in (self.connection or "").split(";") if p and not p.upper().startswith("DATABASE=")]
        return ";".join([*parts, f"DATABASE={database}"])

    def connect(self, database: str = "master", autocommit: bool = True):
        import pyodbc

        return pyodbc.connect(self.connection_string(database), autocommit=autocommit, timeout=10)

    def scalar(self, sql: str, database: str = "master"):
        conn = self.connect(database)
        try:
            return conn.cursor().execute(sql).fetchone()[0]
        finally:
            conn.close()

    def create_database(self, name: str) -> str:
        conn = self.connect()
        try:
            cur = conn.cursor()
            cur.execute(f"IF DB_ID('{name}') IS NOT NULL DROP DATABASE [{name}]")
            cur.execute(f"CREATE DATABASE [{name}]")
        finally:
            conn.close()
        return name

    def postgres(self, sql: str) -> None:
        """Run SQL on Babelfish's PostgreSQL side (only where the server was started here)."""
        if not (self.started_here and self.pg_port):
            raise Unavailable("the PostgreSQL side of Babelfish is only reachable when the tests started it")
        home = self._home()
        subprocess.run([*self._as_owner(), "env", f"LD_LIBRARY_PATH={home / 'lib'}", str(home / "bin" / "psql"),
                        "-h", "127.0.0.1", "-p", str(self.pg_port), "-U", "postgres", "-d", "babelfish_db",
                        "-v", "ON_ERROR_STOP=1", "-q", "-c", sql], check=True, capture_output=True, timeout=60)
