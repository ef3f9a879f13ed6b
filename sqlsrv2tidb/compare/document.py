"""compare.json and the findings of a comparison (format: docs/compare.md).

A class whose answers differ is a high finding (RP09) on its query: the translation runs, but it
does not mean what the T-SQL meant, and nothing else in the run says so. A write class (with
--allow-writes) is an entry like a read's, with `write`, its `statement_kind`, what each side refused
(`refused`), the rows each statement affected (`rows_affected`) and the rows it left, table by table
(`end_state`); `summary.writes` counts them, and names the tables whose IDENTITY values the writes took on
SQL Server (taken for good, though every write was rolled back). A class the target
refuses or times out on is a medium one (RP10). Classes kept from an earlier run into the same OUT
(judged.py) are listed, counted and found as if judged now; `summary.kept` says how many they are. An error on the SQL Server side only, a side that
could not be reached (a server away, not a refusal), and a class that is not comparable, are in
compare.json and the report but raise no finding: none says anything about the translation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from ..model import Finding, Severity
from .classes import Left
from .runner import DIFFERS, ERROR, LEFT_OUT, VERDICTS, ClassResult
from .sides import BOTH, TARGET

FORMAT = "sqlsrv2tidb.compare/1"
FILE = "compare.json"


def findings(results: Sequence[ClassResult], kept: Sequence[dict[str, Any]] = ()) -> list[Finding]:
    """The findings of the classes judged now and of those kept from an earlier run (their compare.json entries)."""
    judged = [(r.compared.query.id, r.verdict, r.reason, r.side, r.unreachable) for r in results]
    judged += [(str(q["id"]), q.get("verdict"), str(q.get("reason") or ""), q.get("side"), bool(q.get("unreachable")))
               for q in kept]
    found = []
    for qid, verdict, reason, side, unreachable in judged:
        obj = f"query {qid}"
        if verdict == DIFFERS:
            found.append(Finding("RP09", Severity.HIGH, obj, f"SQL Server and the target answer differently: {reason}",
                                 details={"compare": "compare.json"}))
        elif verdict == ERROR and side in (TARGET, BOTH) and not unreachable:
            found.append(Finding("RP10", Severity.MEDIUM, obj, reason, details={"compare": "compare.json"}))
    return found


def document(*, source: str, target: str, server: str, settings: dict[str, Any], results: Sequence[ClassResult],
             left: Sequence[Left], found: Sequence[Finding], seconds: float, reconnects: int = 0,
             stopped: str | None = None, kept: Sequence[dict[str, Any]] = (),
             order: Sequence[str] = ()) -> dict[str, Any]:
    """compare.json; `kept` are the entries of classes an earlier run judged (judged.py), listed with the new ones
    in `order` (class ids; the rest after them)."""
    left = [*left, *(Left(r.compared.query.id, r.reason) for r in results if r.verdict == LEFT_OUT)]
    results = [r for r in results if r.verdict != LEFT_OUT]
    entries = [*kept, *(r.to_json() for r in results)]
    place = {qid: n for n, qid in enumerate(order)}
    entries.sort(key=lambda q: place.get(str(q["id"]), len(place)))
    counts = Counter(str(q.get("verdict")) for q in entries)
    writes = [q for q in entries if q.get("write")]
    written = Counter(str(q.get("verdict")) for q in writes)
    unsent = [item for item in left if "--allow-writes" in item.reason]
    consumed = sorted({e["table"] for q in writes for e in q.get("end_state", ())
                       if (e.get("identity_values_taken") or {}).get("sql_server")})
    doc: dict[str, Any] = {
        "format": FORMAT,
        "source": {"name": source},
        "target": target,
        "server": server,
        "settings": settings,
        "summary": {"classes": len(entries), **{v.replace(" ", "_"): counts.get(v, 0) for v in VERDICTS},
                    "left_out": len(left), "seconds": round(seconds, 3), "reconnects": reconnects,
                    "kept": len(kept),
                    "writes": {"classes": len(writes), **{v.replace(" ", "_"): written.get(v, 0) for v in VERDICTS},
                               "left_out_without_allow_writes": len(unsent),
                               "identity_consumed_on_sql_server": consumed}},
        "queries": entries,
        "left_out": [{"id": item.id, "reason": item.reason} for item in left],
        "findings": [{"rule": f.rule, "severity": f.severity.value, "object": f.object, "message": f.message}
                     for f in found],
    }
    if stopped:
        doc["stopped"] = stopped
    return doc
