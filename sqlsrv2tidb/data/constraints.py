"""The CHECK constraints of the tables `--create-tables` creates: switched on where TiDB needs it, and looked for
once the tables are there.

TiDB keeps a CHECK only when its table is created while the GLOBAL `tidb_enable_check_constraint` is ON, and the
variable is OFF by default (https://docs.pingcap.com/tidb/stable/system-variables#tidb_enable_check_constraint-new-in-v720).
A CREATE TABLE run while it is OFF succeeds with warning 1105 and keeps no CHECK at all; turning the variable on
later does not bring them back. A table created while it is ON enforces its CHECKs whatever the variable says
afterwards (measured on v8.5.3, tests/data/test_data_checks.py), so the variable must be ON when the tables are
created, and whenever a CHECK is added later. MySQL enforces CHECKs from 8.0.16, MariaDB from 10.2.

So before creating tables that have CHECKs on TiDB, the variable is read; OFF, it is turned on when the login may
(SUPER or SYSTEM_VARIABLES_ADMIN). That is a setting of the whole server, not data: the run says so in a line of
its own and in data.json (`check_constraints`), and leaves it ON, as ddl/02-tables.sql does (a CHECK added later
is kept only while it is ON). When the login may not, one line says that the CHECK constraints will not be
enforced and why. After the CREATEs, every CHECK the plan gave a created table is looked for in the server's
catalog (TiDB: information_schema.TIDB_CHECK_CONSTRAINTS; MySQL and MariaDB: TABLE_CONSTRAINTS), on every
engine, and each one the target does not have is named.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import ConnectionFailed
from .targetdb import TargetDb, TargetLost

SETTING = "tidb_enable_check_constraint"
DOCS = "https://docs.pingcap.com/tidb/stable/system-variables#tidb_enable_check_constraint-new-in-v720"


@dataclass
class CheckConstraints:
    """What became of the CHECK constraints of the tables a load created (data.json's `check_constraints`)."""

    planned: int = 0
    """CHECK constraints the created tables' DDL declares."""
    missing: list[str] = field(default_factory=list)
    """`table.constraint` of each the target does not have after its CREATE TABLE."""
    setting: str | None = None
    """TiDB: `tidb_enable_check_constraint` as this run found it (ON or OFF); None on another engine."""
    turned_on: bool = False
    """This run turned the server's setting on."""
    refused: str | None = None
    """Why the setting could not be turned on (the server's message)."""

    def to_json(self) -> dict[str, Any]:
        return {"planned": self.planned, "present": self.planned - len(self.missing), "missing": self.missing,
                "setting": None if self.setting is None else {"name": SETTING, "found": self.setting,
                                                              "turned_on": self.turned_on, "refused": self.refused},
                "notes": self.notes()}

    def notes(self) -> list[str]:
        """The lines data.json's notes and the progress give."""
        out = []
        if self.turned_on:
            out.append(f"SET GLOBAL {SETTING} = ON: this load turned on TiDB's CHECK constraints for the whole "
                       f"server (it was OFF), so that the {self.planned} CHECK constraint(s) of the tables it creates are "
                       "kept and enforced; a server setting, not data, left ON as ddl/02-tables.sql leaves it")
        if self.refused is not None:
            out.append(f"the {self.planned} CHECK constraint(s) of the tables created will not be enforced: TiDB keeps "
                       f"a CHECK only when {SETTING} is ON as its table is created, it is OFF, and this login may not "
                       f"turn it on ({self.refused}); a DBA can run SET GLOBAL {SETTING} = ON and load again "
                       "with --truncate")
        if self.missing and self.refused is None:
            out.append(f"{len(self.missing)} of the {self.planned} CHECK constraint(s) of the tables created are not on "
                       f"the target, so it does not enforce them: {', '.join(self.missing[:10])}"
                       + (f" and {len(self.missing) - 10} more" if len(self.missing) > 10 else ""))
        return out


def switch_on(db: TargetDb, planned: int) -> CheckConstraints:
    """On TiDB, before tables with `planned` CHECKs are created: `tidb_enable_check_constraint` read, and turned on
    when it is OFF and the login may."""
    found = CheckConstraints(planned=planned)
    if db.kind != "tidb" or not planned:
        return found
    found.setting = "ON" if int(db.fetch(f"SELECT @@GLOBAL.{SETTING}")[0][0]) else "OFF"
    if found.setting == "OFF":
        try:
            db.execute(f"SET GLOBAL {SETTING} = ON")
            found.turned_on = True
        except TargetLost:
            raise
        except ConnectionFailed as exc:
            found.refused = str(exc).removeprefix(f"{db.target.display}: ").removeprefix("SET: ")
    return found


def look_for(db: TargetDb, planned: Mapping[str, Sequence[str]], found: CheckConstraints) -> CheckConstraints:
    """Name each CHECK of `planned` (target table name -> its constraint names) the target does not have."""
    if not planned:
        return found
    if db.kind == "tidb":
        sql = ("SELECT TABLE_NAME, CONSTRAINT_NAME FROM information_schema.TIDB_CHECK_CONSTRAINTS "
               "WHERE CONSTRAINT_SCHEMA = DATABASE()")
    else:
        sql = ("SELECT TABLE_NAME, CONSTRAINT_NAME FROM information_schema.TABLE_CONSTRAINTS "
               "WHERE TABLE_SCHEMA = DATABASE() AND CONSTRAINT_TYPE = 'CHECK'")
    present = {(str(t).casefold(), str(c).casefold()) for t, c in db.fetch(sql)}
    found.missing = [f"{table}.{name}" for table, names in sorted(planned.items()) for name in names
                     if (table.casefold(), name.casefold()) not in present]
    return found
