"""Which query classes go out as server-side prepared statements and which as text (`--protocol`).

What SQL Server saw decides by default (`auto`): a class the application sent as an RPC call with
parameters (sp_executesql, sp_prepexec/sp_execute; `QueryClass.call == "rpc"`) is what a MySQL
application sends as a prepared statement, which TiDB serves from its plan cache; an ad-hoc batch
is text. `text` and `prepared` send every class one way, to compare the two.

Prepared statements go through `binary` on mysqlclient's connection. Asked for explicitly without
it, the run stops before connecting, saying what to install; under `auto` the RPC classes go as text
and the result says so, per class and in the notes.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UsageError
from .selection import Chosen

INSTALL = "pip install 'sqlsrv2tidb[fast]' (mysqlclient, built against Debian's libmariadb-dev)"


@dataclass(frozen=True)
class Choice:
    """How each class is sent: class id → `prepared` or `text`, with why, and notes for replay.json."""

    protocols: dict[str, str]
    why: dict[str, str]
    notes: tuple[str, ...] = ()

    @property
    def any_prepared(self) -> bool:
        return "prepared" in self.protocols.values()


def unavailable(driver: str) -> str | None:
    """Why prepared statements cannot be sent with `driver` here, or None when they can."""
    if driver != "mysqlclient":
        return f"the {driver} driver sends no server-side prepared statements; mysqlclient does (--driver mysqlclient)"
    from . import binary

    try:
        binary.library()
    except binary.Unavailable as exc:
        return f"{exc}: {INSTALL}"
    return None


def check_requested(protocol: str, driver: str) -> None:
    """Refuse an explicit `--protocol prepared` the driver cannot send, before anything connects."""
    reason = unavailable(driver) if protocol == "prepared" else None
    if reason is not None:
        raise UsageError(f"--protocol prepared: {reason}")


def choose(protocol: str, chosen: tuple[Chosen, ...], driver: str, markers: dict[str, int]) -> Choice:
    """Decide per class; `markers` counts each class's parameter markers. Raises UsageError for an
    explicit `--protocol prepared` the driver cannot send."""
    protocols: dict[str, str] = {}
    why: dict[str, str] = {}
    for c in chosen:
        qid = c.query.id
        rpc = c.source is not None and c.source.call == "rpc" and markers.get(qid, 0) > 0
        if protocol == "prepared" or (protocol == "auto" and rpc):
            protocols[qid] = "prepared"
            why[qid] = "captured as an RPC call with parameters" if protocol == "auto" else "--protocol prepared"
        else:
            protocols[qid] = "text"
            why[qid] = "--protocol text" if protocol == "text" else (
                "captured as SQL text" if c.source is None or c.source.call != "rpc" else "no parameters to bind")
    if "prepared" not in protocols.values():
        return Choice(protocols, why)
    check_requested(protocol, driver)
    reason = unavailable(driver)
    if reason is None:
        return Choice(protocols, why)
    fallen = [qid for qid, p in protocols.items() if p == "prepared"]
    for qid in fallen:
        protocols[qid] = "text"
        why[qid] = f"captured as an RPC call, sent as text: {reason}"
    note = (f"{len(fallen)} query class(es) captured as RPC calls with parameters were sent as text, not as prepared "
            f"statements: {reason}; TiDB's plan cache served none of them")
    return Choice(protocols, why, (note,))
