"""Northwind and Chinook, with their rows, in the SQL Server endpoint: the databases the data tests copy.

The corpus scripts are run as published, batch by batch, minus what a test server cannot or must
not run: their own CREATE/DROP DATABASE and USE batches (the test creates the database), and on
Babelfish the batches its README lists as unsupported. Northwind's script loads its rows with
foreign keys unchecked, which Babelfish has no statement for, so the load runs with PostgreSQL's
replication role (triggers and foreign-key checks off) and the role is reset afterwards.

When the shared corpus loader (a session fixture in tests/conftest.py) lands, `load_corpus` is
the one place to switch to it.
"""

from __future__ import annotations

import re
from pathlib import Path

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
_GO = re.compile(r"(?im)^\s*GO\s*$")
_SKIP = re.compile(r"(?is)^\s*(?:USE\b|CREATE\s+DATABASE|IF\s+EXISTS\s*\(\s*SELECT\s+name\s+FROM\s+master|"
                   r"if\s+exists\s*\(select\s+\*\s+from\s+sysdatabases|DECLARE\s+@device_directory|"
                   r"if\s+CAST\(SERVERPROPERTY|exec\s+sp_dboption|ALTER\s+DATABASE|drop\s+database)")


def batches(path: Path, encoding: str) -> list[str]:
    text = path.read_text(encoding=encoding)
    return [b for b in _GO.split(text) if b.strip() and not _SKIP.match(_strip_comments(b))]


def _strip_comments(batch: str) -> str:
    return re.sub(r"/\*.*?\*/|--[^\n]*", "", batch, flags=re.S).strip()


def run_batches(mssql, database: str, parts: list[str]) -> list[str]:
    """Run each batch; returns the errors of batches the endpoint refused (tests say which they expect)."""
    conn = mssql.connect(database)
    errors = []
    try:
        cursor = conn.cursor()
        for batch in parts:
            try:
                cursor.execute(batch)
                while cursor.nextset():
                    pass
            except Exception as exc:  # noqa: BLE001 - a refused batch is reported, the rest still runs
                errors.append(f"{_strip_comments(batch)[:80]!r}: {exc}")
    finally:
        conn.close()
    return errors


def load_chinook(mssql, database: str = "chinook_rows") -> str:
    mssql.create_database(database)
    errors = run_batches(mssql, database, batches(CORPUS / "chinook" / "Chinook_SqlServer.sql", "utf-8"))
    assert not errors, errors
    return database


def load_northwind(mssql, database: str = "northwind_rows") -> str:
    mssql.create_database(database)
    parts = batches(CORPUS / "northwind" / "instnwnd.sql", "utf-16")
    replica = mssql.babelfish and mssql.started_here
    if replica:
        mssql.postgres("ALTER ROLE babel_login SET session_replication_role = replica")
    try:
        errors = run_batches(mssql, database, parts)
    finally:
        if replica:
            mssql.postgres("ALTER ROLE babel_login RESET session_replication_role")
    unexpected = [e for e in errors if "NOCHECK" not in e.upper() and "sysobjects" not in e]
    assert not unexpected, unexpected
    return database
