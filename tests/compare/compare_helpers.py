"""What the compare tests share: the golden cases as a workload file, and running `sqlsrv2tidb compare`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from typer.testing import CliRunner

from sqlsrv2tidb.cli import app

TESTS = Path(__file__).resolve().parents[1]
for folder in ("translate", "data"):
    if str(TESTS / folder) not in sys.path:
        sys.path.insert(0, str(TESTS / folder))

from meaning import load_on_tds  # noqa: E402


def compare(sources: list[Path], out: Path, connection: str, target_url: str, *extra: str) -> dict:
    """Run `sqlsrv2tidb compare`, which must succeed, and return the compare.json it wrote."""
    result = CliRunner().invoke(app, ["compare", *map(str, sources), "-o", str(out), "--connection", connection,
                                      "--target", target_url, "-q", *extra])
    assert result.exit_code in (0, 1), result.output
    return json.loads((out / "compare.json").read_text(encoding="utf-8"))


def workload_file(statements: list[str], path: Path) -> Path:
    """Statements as a T-SQL script, one batch each: the capture reads each as a query class."""
    path.write_text("".join(s.strip().rstrip(";") + "\nGO\n" for s in statements), encoding="utf-8")
    return path


def verdicts(doc: dict) -> dict[str, dict]:
    return {q["id"]: q for q in doc["queries"]}


PLANTED = Path(__file__).resolve().parent / "planted"


def load_planted(mssql, name: str) -> str:
    """The planted schema and rows (tests/compare/planted) in a new database on the SQL Server endpoint."""
    return load_on_tds(mssql, name, PLANTED)
