"""compare.json and the findings of a comparison (format: docs/compare.md).

A class whose answers differ is a high finding (RP09) on its query: the translation runs, but it
does not mean what the T-SQL meant, and nothing else in the run says so. A class the target
refuses or times out on is a medium one (RP10). An error on the SQL Server side only, a side that
could not be reached (a server away, not a refusal), and a class that is not comparable, are in
compare.json and the report but raise no finding: none says anything about the translation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from ..model import Finding, Severity
from .classes import Left
from .runner import DIFFERS, ERROR, VERDICTS, ClassResult
from .sides import BOTH, TARGET

FORMAT = "sqlsrv2tidb.compare/1"
FILE = "compare.json"


def findings(results: Sequence[ClassResult]) -> list[Finding]:
    found = []
    for r in results:
        obj = f"query {r.compared.query.id}"
        if r.verdict == DIFFERS:
            found.append(Finding("RP09", Severity.HIGH, obj, f"SQL Server and the target answer differently: {r.reason}",
                                 details={"compare": "compare.json"}))
        elif r.verdict == ERROR and r.side in (TARGET, BOTH) and not r.unreachable:
            found.append(Finding("RP10", Severity.MEDIUM, obj, r.reason, details={"compare": "compare.json"}))
    return found


def document(*, source: str, target: str, server: str, settings: dict[str, Any], results: Sequence[ClassResult],
             left: Sequence[Left], found: Sequence[Finding], seconds: float, reconnects: int = 0,
             stopped: str | None = None) -> dict[str, Any]:
    counts = Counter(r.verdict for r in results)
    doc: dict[str, Any] = {
        "format": FORMAT,
        "source": {"name": source},
        "target": target,
        "server": server,
        "settings": settings,
        "summary": {"classes": len(results), **{v.replace(" ", "_"): counts.get(v, 0) for v in VERDICTS},
                    "left_out": len(left), "seconds": round(seconds, 3), "reconnects": reconnects},
        "queries": [r.to_json() for r in results],
        "left_out": [{"id": item.id, "reason": item.reason} for item in left],
        "findings": [{"rule": f.rule, "severity": f.severity.value, "object": f.object, "message": f.message}
                     for f in found],
    }
    if stopped:
        doc["stopped"] = stopped
    return doc
