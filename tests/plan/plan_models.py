"""Hand-built schema and workload models for the planner's tests, shaped as the readers produce them."""

from __future__ import annotations

from sqlsrv2tidb.model import (
    Capture,
    Column,
    Database,
    DataType,
    ForeignKey,
    Identity,
    Index,
    IndexColumn,
    IntervalStat,
    Key,
    QueryClass,
    SourceRef,
    Table,
    Window,
    Workload,
)

SCHEMA_FILE = "schema.sql"


def col(name: str, type_name: str, nullable: bool = False, line: int | None = None, **kw) -> Column:
    type_kw = {k: kw.pop(k) for k in ("length", "precision", "scale", "alias") if k in kw}
    return Column(name, DataType(type_name, **type_kw), nullable=nullable,
                  source=SourceRef(SCHEMA_FILE, line) if line else SourceRef(), **kw)


def pk(*names: str, clustered: bool = True, name: str | None = None) -> Key:
    return Key(name, tuple(IndexColumn(n) for n in names), clustered=clustered)


def keywords(*, unique: bool = False, fk: bool = False) -> Table:
    """Seed 000's table: composite primary key (e_type, e_id, s_type, r_id), two secondary indexes."""
    return Table(
        "dbo", "keywords",
        (col("e_type", "smallint"), col("e_id", "int"), col("s_type", "smallint"), col("r_id", "int"),
         col("d_order", "int"), col("p_count", "smallint"), col("p_display_order", "int", True)),
        primary_key=pk("e_type", "e_id", "s_type", "r_id", name="PK_keywords"),
        unique_keys=(Key("UQ_keywords_d_order", (IndexColumn("d_order"),)),) if unique else (),
        indexes=(Index("idx_keywords_by_display_order", tuple(IndexColumn(c) for c in ("e_type", "e_id", "s_type", "d_order", "r_id"))),),
        foreign_keys=(ForeignKey("FK_keywords_entities", ("e_id",), "dbo", "entities", ("e_id",)),) if fk else (),
        source=SourceRef(SCHEMA_FILE, 68),
    )


def entities() -> Table:
    return Table("dbo", "entities", (col("e_id", "int"), col("name", "nvarchar", length=100)), primary_key=pk("e_id"),
                 source=SourceRef(SCHEMA_FILE, 10))


def events() -> Table:
    """An IDENTITY-keyed append-only table: the monotonic-key hotspot."""
    return Table("dbo", "events",
                 (Column("id", DataType("bigint"), False, identity=Identity(1, 1)), col("payload", "nvarchar", True, length=200)),
                 primary_key=pk("id", name="PK_events"), source=SourceRef(SCHEMA_FILE, 90))


def insert_workload(table: str, qps: float, *, window: str = "nightly", seconds: int = 3600,
                    kind: str = "insert", rows: float | None = None) -> Workload:
    start, end = "2024-12-02T01:00:00Z", f"2024-12-02T0{1 + seconds // 3600}:00:00Z"
    text = (f"INSERT INTO {table} (a) VALUES (@P1)" if kind == "insert"
            else f"UPDATE {table} SET a = @P1 WHERE b = @P2")
    q = QueryClass("q1", text.replace("@P1", "?").replace("@P2", "?"), text, kind=kind)  # type: ignore[arg-type]
    stat = IntervalStat("q1", start, end, int(qps * seconds), total_rows=rows * seconds if rows is not None else None)
    return Workload(queries=(q,), intervals=(stat,), windows=(Window(window, start, end),))


def capture(*tables: Table, workload: Workload | None = None, **db) -> Capture:
    return Capture(Database(name=db.pop("name", "poc"), tables=tables, **db), workload or Workload())
