"""Real servers for the tests: a MariaDB started on loopback in a temp folder, and TiDB's parser.

Nothing here is a mock. `MariaDB` runs Debian's `mariadbd` with its own data directory and port,
so tests can create databases freely, restart the server mid-run, or throttle it. `TiDBParser`
talks to `tests/tidbparser/bin/tidb-parse`, a Go program built from TiDB's own parser module.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
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

    def connect(self, database: str | None = None, **kwargs) -> pymysql.Connection:
        return pymysql.connect(host=self.host, port=self.port, user=self.user, database=database,
                               autocommit=True, charset="utf8mb4", **kwargs)

    def create_database(self, name: str) -> str:
        with self.connect() as conn, conn.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS `{name}`")
            cur.execute(f"CREATE DATABASE `{name}` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin")
        return name


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
