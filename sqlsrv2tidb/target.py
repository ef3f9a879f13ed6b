"""The replay target: a MySQL-protocol URL whose password never reaches a file, a log or the report.

`mysql://user[:password]@host[:port]/database`. The password may instead come from the
environment variable `SQLSRV2TIDB_TARGET_PASSWORD` or an interactive prompt. `Target.display`
is the only form written anywhere (`replay.json`, progress lines, errors).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from urllib.parse import parse_qs, unquote, urlsplit

from .errors import UsageError

PASSWORD_ENV = "SQLSRV2TIDB_TARGET_PASSWORD"


class Secret:
    """A string that prints as `***`, so it cannot leak through repr, logs or tracebacks' locals."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__

    def __bool__(self) -> bool:
        return bool(self._value)


@dataclass(frozen=True)
class Target:
    host: str
    port: int
    user: str
    database: str
    password: Secret = field(default_factory=lambda: Secret(""), repr=False, compare=False)
    params: dict[str, str] = field(default_factory=dict)

    @property
    def display(self) -> str:
        """The URL without the password: safe to print and store."""
        return f"mysql://{self.user}@{self.host}:{self.port}/{self.database}"


def parse_target(url: str, *, prompt: bool = False) -> Target:
    """Read a target URL; the password comes from the URL, else the environment, else a prompt."""
    parts = urlsplit(url)
    if parts.scheme not in ("mysql", "tidb", "mariadb"):
        raise UsageError(f"--target must look like mysql://user@host:port/database, got scheme {parts.scheme!r}")
    database = unquote(parts.path.lstrip("/"))
    if not parts.hostname or not database:
        raise UsageError("--target must name a host and a database: mysql://user@host:port/database")
    try:
        port = parts.port or 4000
    except ValueError:
        raise UsageError("--target has an invalid port") from None
    password = unquote(parts.password) if parts.password is not None else os.environ.get(PASSWORD_ENV)
    if password is None and prompt:
        import getpass

        password = getpass.getpass(f"Password for {parts.username or 'root'}@{parts.hostname}: ")
    params = {k: v[-1] for k, v in parse_qs(parts.query).items()}
    return Target(
        host=parts.hostname,
        port=port,
        user=unquote(parts.username or "root"),
        database=database,
        password=Secret(password or ""),
        params=params,
    )
