"""Small hand-built schema models for unit tests of single checks (no reader involved)."""

from __future__ import annotations

from typing import Any

from sqlsrv2tidb.model import (
    Capture,
    Column,
    Database,
    DataType,
    Index,
    IndexColumn,
    Key,
    Module,
    SourceRef,
    Table,
)
from sqlsrv2tidb.options import Options, Version
from sqlsrv2tidb.rules.engine import run_rules


def col(name: str, type_name: str = "int", length: int | None = None, **kw: Any) -> Column:
    return Column(name, DataType(type_name, length=length), **kw)


def table(name: str, *columns: Column, schema: str = "dbo", pk: tuple[str, ...] = ("id",), **kw: Any) -> Table:
    columns = columns or (col("id"),)
    key = Key(f"PK_{name}", tuple(IndexColumn(c) for c in pk), clustered=True) if pk else None
    return Table(schema, name, tuple(columns), primary_key=key, source=SourceRef("schema.sql", 1), **kw)


def index(name: str, *columns: str, **kw: Any) -> Index:
    return Index(name, tuple(IndexColumn(c.removesuffix(" DESC"), c.endswith(" DESC")) for c in columns), **kw)


def module(name: str, kind: str, definition: str | None, schema: str = "dbo", line: int = 10, **kw: Any) -> Module:
    return Module(schema, name, kind, definition, source=SourceRef("schema.sql", line), **kw)  # type: ignore[arg-type]


def findings(db: Database, version: str = "8.5", capture: Capture | None = None, **options: Any):
    capture = capture or Capture(database=db)
    return run_rules(capture, Options(tidb_version=Version.parse(version), **options))


def codes(db: Database, version: str = "8.5", **options: Any) -> set[str]:
    return {f.rule for f in findings(db, version, **options)}
