"""The planted database the compare tests read on the SQL Server endpoint (the corpus databases, Northwind,
AdventureWorks, Stack Exchange and WideWorldImporters, are session fixtures of tests/conftest.py, which the
answers tests share).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "data"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "translate"))


@pytest.fixture(scope="session")
def planted_tds(mssql) -> str:
    """The planted schema and rows (tests/compare/planted) on the SQL Server endpoint, as T-SQL."""
    from compare_helpers import load_planted

    return load_planted(mssql, "t_compare_planted")
