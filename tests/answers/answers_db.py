"""The generated databases on the SQL Server endpoint that the answers and compare tests read: Stack Exchange
(tests/answers/sede) and WideWorldImporters (tests/data/wideworldimporters.py), each with a capture of its
catalog (data_helpers.SourceDb), built once per run by the session fixtures `compare_sede` and `compare_wwi`
(tests/conftest.py).
"""

from __future__ import annotations

import sys
import time
from functools import cache
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
for _folder in (TESTS / "answers" / "sede", TESTS / "data"):
    if str(_folder) not in sys.path:
        sys.path.insert(0, str(_folder))

from data_helpers import SourceDb, captured  # noqa: E402
from rows import SedeRows, generate, load  # noqa: E402

SEDE_DATABASE = "compare_sede"
WWI_DATABASE = "compare_wwi"
SEDE_SCALE, SEDE_SEED = 1.0, 1
"""What the fixture loads: the generator's defaults (about 56,000 rows)."""


@cache
def sede_rows() -> SedeRows:
    """The rows the fixture loads (generated once per run)."""
    return generate(SEDE_SCALE, SEDE_SEED)


def load_sede(mssql, database: str = SEDE_DATABASE) -> tuple[SedeRows, dict[str, float]]:
    """The SEDE schema and generated rows in a new `database`; returns the rows and each step's seconds."""
    rows = sede_rows()
    mssql.create_database(database)
    return rows, load(mssql.connection_string(), database, rows, create=False)


def sede_source(mssql, folder: Path, database: str = SEDE_DATABASE) -> SourceDb:
    started = time.perf_counter()
    rows, seconds = load_sede(mssql, database)
    print(f"\n{database}: {sum(rows.counts.values()):,} rows loaded in {time.perf_counter() - started:.1f} s")
    return captured(mssql, database, folder)


def wwi_source(mssql, folder: Path, database: str = WWI_DATABASE) -> SourceDb:
    from corpus_rows import create_generated
    from wideworldimporters import WIDEWORLDIMPORTERS

    started = time.perf_counter()
    result = create_generated(mssql, WIDEWORLDIMPORTERS, database)
    print(f"\n{database}: {sum(result.rows.values()):,} rows loaded in {time.perf_counter() - started:.1f} s")
    return captured(mssql, database, folder)
