"""The errors that stop a command, each shown to the user as one line and exit code 2.

Anything the user can fix (a missing file, an unreadable encoding, a refused connection, a bad
option) is raised as a `ToolError` with a message that names the file, object or server. The CLI
turns these into `Error: ...` on stderr; nothing else prints a traceback unless
`SQLSRV2TIDB_DEBUG=1` is set.
"""

from __future__ import annotations


class ToolError(Exception):
    """A command could not run. `str(err)` is the whole message, one line."""

    exit_code = 2


class InputError(ToolError):
    """A source file or folder is missing, unreadable or of no kind the tool reads."""


class ConnectionFailed(ToolError):
    """A server (SQL Server for capture, TiDB/MySQL for replay) could not be reached or refused us."""


class OutputError(ToolError):
    """A file in OUT could not be written (disk full, no permission); the files written before it are whole."""


class UsageError(ToolError):
    """Options that contradict each other or name something that does not exist."""


class Refused(ToolError):
    """A safety check stopped the command (e.g. writes to a target without confirmation)."""


class Interrupted(ToolError):
    """The user pressed Ctrl-C; whatever was measured so far has been written."""


class SendersLost(ToolError):
    """A replay lost one of the machines sending it (a cluster worker); what was measured has been written."""


def one_line(text: str, limit: int = 300) -> str:
    """Squash a driver's multi-line message into one readable line."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
