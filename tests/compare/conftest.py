"""The corpus databases the compare tests read, on the SQL Server endpoint, each with a capture of its catalog.

The same loaders as tests/data's fixtures (corpus_load.py), into databases of their own names, so the
two test folders never load into, or empty, each other's databases.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "data"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "translate"))
from corpus_load import load_northwind  # noqa: E402
from data_helpers import SourceDb, captured  # noqa: E402


@pytest.fixture(scope="session")
def compare_northwind(mssql, tmp_path_factory) -> SourceDb:
    return captured(mssql, load_northwind(mssql, "compare_northwind"), tmp_path_factory.mktemp("northwind") / "capture")


@pytest.fixture(scope="session")
def compare_adventureworks(mssql, tmp_path_factory) -> SourceDb:
    """AdventureWorks's tables with generated rows (tests/data/adventureworks.py); its modules are not created."""
    from adventureworks import create_adventureworks

    return captured(mssql, create_adventureworks(mssql, "compare_adventureworks"),
                    tmp_path_factory.mktemp("adventureworks") / "capture")


@pytest.fixture(scope="session")
def planted_tds(mssql) -> str:
    """The planted schema and rows (tests/compare/planted) on the SQL Server endpoint, as T-SQL."""
    from compare_helpers import load_planted

    return load_planted(mssql, "t_compare_planted")
