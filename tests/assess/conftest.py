"""The database a new user points `assess --connection` at (greenhouse.py), made once per run on the endpoint."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "data"))


@pytest.fixture(scope="session")
def greenhouse(mssql) -> str:
    from greenhouse import create_greenhouse

    return create_greenhouse(mssql)
