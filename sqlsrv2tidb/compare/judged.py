"""Resuming a comparison: the classes the compare.json in OUT already judged are kept, not run again.

`compare --resume` (and `assess` run again into the same OUT) reads the compare.json an earlier run
left there. A class is kept when that run judged it against the same two servers, with the same
parameter sets, seed and statement timeout, from the same text on both sides (the T-SQL with its
batch, and the target's statement): its entry goes into the new file as it was. A class is judged
again when any of these changed, when that run did not reach it (it stopped or was interrupted
first), or when its verdict was an error because a server could not be reached (it may be back).
The new file's summary and findings are computed over kept and new classes alike.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .classes import Chosen

COMPARED_ALIKE = ("parameter_sets", "seed", "timeout_s")
"""The settings under which a kept verdict would come out the same."""


@dataclass(frozen=True)
class Judged:
    """What an earlier run into the same OUT judged, by class id, and why none of it is kept when that is so."""

    entries: dict[str, dict[str, Any]] = field(default_factory=dict)
    not_kept: str | None = None
    server: str = ""
    """The target's kind as that run found it."""

    def kept(self, chosen: Chosen) -> dict[str, Any] | None:
        """The earlier entry of a class when it still holds: judged from the same text (the T-SQL as run, with its
        batch, and the translation), and not for want of a server."""
        entry = self.entries.get(chosen.query.id)
        if entry is None or entry.get("unreachable"):
            return None
        if entry.get("sql_server_sql") != chosen.source.text or entry.get("target_sql") != chosen.query.target_sql:
            return None
        return entry


def earlier(path: Path, *, source: str, target: str, settings: dict[str, Any]) -> Judged:
    """The judgments of the compare.json at `path`, when it is of the same servers and settings."""
    if not path.is_file():
        return Judged()
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return Judged(not_kept=f"{path} could not be read ({exc}): every class is judged again")
    if not isinstance(doc, dict) or not isinstance(doc.get("queries"), list):
        return Judged(not_kept=f"{path} is not a compare.json: every class is judged again")
    before = doc.get("settings") if isinstance(doc.get("settings"), dict) else {}
    changed = [k for k in COMPARED_ALIKE if before.get(k) != settings.get(k)]
    if (doc.get("source") or {}).get("name") != source:
        changed.insert(0, "SQL Server")
    if doc.get("target") != target:
        changed.insert(0, "target")
    if changed:
        return Judged(not_kept=f"the classes {path} holds were judged with another {', '.join(changed)}: "
                               "every class is judged again")
    return Judged({str(q["id"]): q for q in doc["queries"] if isinstance(q, dict) and "id" in q},
                  server=str(doc.get("server") or ""))
