"""Corpus schemas read once per test session: reading the WideWorldImporters project takes seconds."""

from __future__ import annotations

import pytest
from paths import CORPUS_SCHEMAS as SCHEMAS

from sqlsrv2tidb import api


@pytest.fixture(scope="session")
def corpus_captures():
    cache = {}

    def read(name: str):
        if name not in cache:
            cache[name] = api.read([SCHEMAS[name]])
        return cache[name]

    return read
