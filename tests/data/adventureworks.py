"""AdventureWorks in the SQL Server endpoint, filled with rows the tests generate (its data is not in the corpus).

The schema is the corpus script's (instawdb.sql) as sqlsrv2tidb reads it: each table is created
with its columns, identity, primary and unique keys, and, once the rows are in, its foreign keys
(which the endpoint checks as they are added, so a row pointing nowhere fails the fixture). Left
out: computed columns, left to the target as the copy leaves them. The endpoint has no hierarchyid or
geography: those columns are varbinary here, holding bytes as TiDB's column would.

The rows come from the data stage's own generator (synth.py) working from types and CHECK
constraints alone, as it does for a capture without statistics; a few hundred to 1,500 rows per
table. When the shared corpus loader (tests/conftest.py) lands, its AdventureWorks schema replaces
the CREATE TABLE part here.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date, datetime, time
from decimal import Decimal
from pathlib import Path

from sqlsrv2tidb import api
from sqlsrv2tidb.data.synth import Synthesizer
from sqlsrv2tidb.data.tables import TargetColumn, build_spec, target_name
from sqlsrv2tidb.model import MAX, DataType, Table
from sqlsrv2tidb.options import Options

SCRIPT = Path(__file__).resolve().parent.parent / "corpus" / "adventureworks-oltp" / "instawdb.sql"
DATABASE = "data_adventureworks"
STAND_IN = {"hierarchyid": DataType("varbinary", 892), "geography": DataType("varbinary", MAX),
            "geometry": DataType("varbinary", MAX)}
"""The endpoint has none of these types: their columns hold the bytes TiDB would (Document's key is one)."""
ROWS = {"SalesOrderDetail": 1500, "SalesOrderHeader": 400, "Person": 300, "BusinessEntity": 400,
        "BusinessEntityAddress": 300, "Address": 300, "EmailAddress": 300, "Password": 300, "PersonPhone": 300,
        "Customer": 250, "Product": 150, "TransactionHistory": 500, "WorkOrder": 300, "WorkOrderRouting": 300,
        "SpecialOfferProduct": 150, "ProductInventory": 200, "PurchaseOrderDetail": 400, "PurchaseOrderHeader": 150}
DEFAULT_ROWS = 40


def _tables() -> list[Table]:
    capture = api.read([SCRIPT])
    out = []
    for table in capture.database.tables:
        columns = tuple(replace(c, type=STAND_IN[c.type.name.casefold()]) if c.type.name.casefold() in STAND_IN else c
                        for c in table.columns if c.computed is None)
        kept = {c.name.casefold() for c in columns}
        indexes = tuple(ix for ix in table.indexes if ix.unique and ix.kind == "rowstore" and ix.filter is None
                        and all(c.name.casefold() in kept for c in ix.columns))
        out.append(replace(table, columns=columns, indexes=indexes, checks=table.checks,
                           row_count=ROWS.get(table.name, DEFAULT_ROWS)))
    return out


def _type(table: Table, column) -> str:
    text = str(column.type)
    if column.type.name.casefold() == "xml":
        text = "xml"  # the schema collections are not created here
    identity = f" IDENTITY({column.identity.seed}, {column.identity.increment})" if column.identity else ""
    return f"{q(column.name)} {text}{identity} {'NULL' if column.nullable else 'NOT NULL'}"


def q(name: str) -> str:
    """Double quotes, not brackets: Babelfish refuses [Primary], a column of ProductProductPhoto."""
    return '"' + name.replace('"', '""') + '"'


def _literal(value, sql_type: str) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, (bytes, bytearray)):
        return "0x" + bytes(value).hex()
    if isinstance(value, datetime):
        text = value.isoformat(timespec="milliseconds" if sql_type in ("datetime", "smalldatetime") else "microseconds")
        return f"'{text[:16] + ':00' if sql_type == 'smalldatetime' else text}'"
    if isinstance(value, (date, time)):
        return f"'{value.isoformat()}'"
    return "N'" + str(value).replace("'", "''") + "'"


def create_adventureworks(mssql, database: str = DATABASE) -> str:
    tables = _tables()
    capture = api.read([SCRIPT])
    capture = replace(capture, database=replace(capture.database, tables=tuple(tables)))
    plan = api.plan(capture, Options())
    specs = []
    for table in tables:
        planned = plan.table(table.schema, table.name)
        targets = [TargetColumn(c.name, c.target_type) for c in planned.columns]
        specs.append(build_spec(table, target_name(plan, table), targets))
    synth = Synthesizer(specs, seed=11, scale=1.0)
    mssql.create_database(database)
    conn = mssql.connect(database)
    try:
        cur = conn.cursor()
        for schema in sorted({t.schema for t in tables} - {"dbo"}):
            cur.execute(f"CREATE SCHEMA {q(schema)}")
        for table in tables:
            name = f"{q(table.schema)}.{q(table.name)}"
            parts = [_type(table, c) for c in table.columns]
            if table.primary_key:
                parts.append(f"PRIMARY KEY ({', '.join(q(c) for c in table.primary_key.column_names)})")
            parts += [f"UNIQUE ({', '.join(q(c) for c in k.column_names)})" for k in table.unique_keys]
            cur.execute(f"CREATE TABLE {name} ({', '.join(parts)})")
            for n, ix in enumerate(table.indexes):
                cur.execute(f"CREATE UNIQUE INDEX {q(f'UX_{table.name}_{n}')} ON {name} ({', '.join(q(c.name) for c in ix.columns)})")
        for spec in specs:
            _insert(cur, spec, synth)
        for table in tables:
            for fk in table.foreign_keys:
                ref = next((t for t in tables if t.schema == fk.ref_schema and t.name == fk.ref_table), None)
                if ref is None or not all(table.column(c) for c in fk.columns):
                    continue
                cur.execute(f"ALTER TABLE {q(table.schema)}.{q(table.name)} ADD FOREIGN KEY "
                            f"({', '.join(q(c) for c in fk.columns)}) REFERENCES {q(fk.ref_schema)}.{q(fk.ref_table)} "
                            f"({', '.join(q(c) for c in fk.ref_columns)})")
    finally:
        conn.close()
    return database


def _insert(cur, spec, synth: Synthesizer) -> None:
    table = spec.table
    name = f"{q(table.schema)}.{q(table.name)}"
    columns = [c.source for c in spec.columns]
    head = f"INSERT INTO {name} ({', '.join(q(c.name) for c in columns)}) VALUES "
    identity = any(c.identity for c in columns)
    for batch in synth.rows(spec, batch=400):
        values = ", ".join("(" + ", ".join(_literal(v, c.type.name.casefold()) for v, c in zip(row, columns, strict=True))
                           + ")" for row in batch)
        sql = head + values
        if identity:
            sql = f"SET IDENTITY_INSERT {name} ON; {sql}; SET IDENTITY_INSERT {name} OFF;"
        cur.execute(sql)
