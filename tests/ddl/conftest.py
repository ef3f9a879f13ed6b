"""Corpus schemas read once per test session: reading the WideWorldImporters project takes seconds."""

from __future__ import annotations

from pathlib import Path

import pytest

from sqlsrv2tidb import api

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
SCHEMAS = {
    "northwind": CORPUS / "northwind",
    "adventureworks-oltp": CORPUS / "adventureworks-oltp",
    "chinook": CORPUS / "chinook" / "Chinook_SqlServer.sql",
    "chinook-identity": CORPUS / "chinook" / "Chinook_SqlServer_AutoIncrementPKs.sql",
    "wwi-oltp-ssdt": CORPUS / "wwi-oltp-ssdt",
}


@pytest.fixture(scope="session")
def corpus_captures():
    cache = {}

    def read(name: str):
        if name not in cache:
            cache[name] = api.read([SCHEMAS[name]])
        return cache[name]

    return read
