"""Source databases on the SQL Server endpoint for the data tests, each built once per run.

`chinook` and `northwind` are the corpus databases with their own rows (corpus_load.py);
`adventureworks` is the corpus schema with rows the tests generate (adventureworks.py);
`every_type` is a table per kind of column the endpoint supports, filled with edge values
(types_db.py); `pubs_like` a small publishing schema whose CHECKs use LIKE bracket patterns (pubs_like.py). Each comes with a capture folder read once from the live catalog, so a test can
give it as SOURCES instead of paying for the catalog read again. What the tests share besides
fixtures is in data_helpers.py.
"""

from __future__ import annotations

import pytest
from corpus_load import load_chinook, load_northwind
from data_helpers import SourceDb, captured
from types_db import create_every_type


@pytest.fixture(scope="session")
def chinook(mssql, tmp_path_factory) -> SourceDb:
    return captured(mssql, load_chinook(mssql), tmp_path_factory.mktemp("chinook") / "capture")


@pytest.fixture(scope="session")
def northwind(mssql, tmp_path_factory) -> SourceDb:
    return captured(mssql, load_northwind(mssql), tmp_path_factory.mktemp("northwind") / "capture")


@pytest.fixture(scope="session")
def adventureworks(mssql, tmp_path_factory) -> SourceDb:
    """AdventureWorks's schema with rows the tests generate (adventureworks.py)."""
    from adventureworks import create_adventureworks

    return captured(mssql, create_adventureworks(mssql), tmp_path_factory.mktemp("adventureworks") / "capture")


@pytest.fixture(scope="session")
def every_type(mssql, tmp_path_factory) -> SourceDb:
    return captured(mssql, create_every_type(mssql), tmp_path_factory.mktemp("every_type") / "capture")


@pytest.fixture(scope="session")
def pubs_like(mssql, tmp_path_factory) -> SourceDb:
    from pubs_like import create_pubs_like

    return captured(mssql, create_pubs_like(mssql), tmp_path_factory.mktemp("pubs_like") / "capture")
