"""A corpus schema in the SQL Server endpoint, filled with rows the tests generate (the corpus holds none, or few).

One loader for every such corpus; what differs between them is a `GeneratedCorpus` (AdventureWorks in
adventureworks.py, WideWorldImporters in wideworldimporters.py):

1. The schema is the corpus as sqlsrv2tidb reads it (`api.read`): each table with its columns, identity,
   primary and unique keys; with `defaults`, its sequences and column defaults too. A type the endpoint
   lacks is a stand-in of the bytes TiDB's column would hold (`STAND_IN`). Computed columns are left to
   the target, as `data copy` leaves them, unless the corpus keeps them (`computed`): each is then added
   alone, and one the endpoint refuses is left out with its message in `LoadResult.left_out`.
2. Reference rows: the corpus's own scripts that insert fixed lists (`reference`) run next, batch by batch;
   their rows are kept as published, and a batch the endpoint refuses fails the load.
3. Every other table gets rows from the data stage's generator (`sqlsrv2tidb.data.synth.Synthesizer`),
   working from types, CHECK constraints and the histograms the corpus gives (`shape`), at the corpus's row
   counts and seed: the same rows on every run. A foreign key takes a key its parent really holds, the
   reference rows' keys included (`_AfterReference`).
4. Once every row is in, the foreign keys are added; the endpoint checks each as it is added, so a row
   pointing nowhere fails the load.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tds_insert import insert_rows, q

from sqlsrv2tidb import api
from sqlsrv2tidb.data.synth import Synthesizer
from sqlsrv2tidb.data.tables import TableSpec, TargetColumn, build_spec, target_name
from sqlsrv2tidb.model import MAX, DataType, Table, TableStatistics
from sqlsrv2tidb.model.statistics import ColumnStatistics
from sqlsrv2tidb.options import Options

STAND_IN = {"hierarchyid": DataType("varbinary", 892), "geography": DataType("varbinary", MAX),
            "geometry": DataType("varbinary", MAX)}
"""The endpoint has none of these types: their columns hold the bytes TiDB would (AdventureWorks's Document key is one)."""

_GO = re.compile(r"(?im)^[ \t]*GO[ \t]*$")


@dataclass(frozen=True)
class GeneratedCorpus:
    """What one corpus needs to be filled: where its schema is, how many rows, and what shapes them."""

    name: str
    source: Path
    """The script or SSDT folder sqlsrv2tidb reads the schema from."""
    database: str
    rows: Mapping[str, int]
    """Rows per table, by table name (`Orders`) or schema-qualified name (`Sales.Orders`)."""
    default_rows: int = 40
    seed: int = 11
    reference: tuple[Path, ...] = ()
    """Scripts of the corpus that insert fixed lists, run in order once the tables exist; the tables they
    fill are not generated."""
    functions: tuple[Path, ...] = ()
    """Functions and procedures the reference scripts call, created before they run."""
    settle: tuple[str, ...] = ()
    """Statements run after the reference scripts, making what they picked at random the same on every load."""
    shape: Callable[[Table], tuple[ColumnStatistics, ...]] = field(default=lambda table: ())
    """Histograms the generator follows for a table's columns (plausible values where queries filter)."""
    defaults: bool = False
    """Create the corpus's sequences and column defaults (reference scripts may rely on them)."""
    computed: bool = False
    """Add the computed columns the endpoint accepts (else all are left to the target)."""
    left_out: Mapping[str, str] = field(default_factory=dict)
    """Tables (schema-qualified) not created, each with why."""


@dataclass
class LoadResult:
    database: str
    rows: dict[str, int] = field(default_factory=dict)
    """Rows per table (schema-qualified), reference and generated alike."""
    reference_tables: set[str] = field(default_factory=set)
    left_out: dict[str, str] = field(default_factory=dict)
    """Objects not created on the endpoint (a table, a computed column, a sequence), each with why."""


def corpus_tables(corpus: GeneratedCorpus) -> tuple[Any, list[Table]]:
    """The corpus as sqlsrv2tidb reads it, and the tables to create: stand-in types, row counts, shapes."""
    capture = api.read([corpus.source])
    out = []
    for table in capture.database.tables:
        if table.qualified_name in corpus.left_out:
            continue
        columns = tuple(replace(c, type=STAND_IN[c.type.name.casefold()]) if c.type.name.casefold() in STAND_IN else c
                        for c in table.columns if c.computed is None)
        kept = {c.name.casefold() for c in columns}
        indexes = tuple(ix for ix in table.indexes if ix.unique and ix.kind == "rowstore" and ix.filter is None
                        and all(c.name.casefold() in kept for c in ix.columns))
        rows = corpus.rows.get(table.qualified_name, corpus.rows.get(table.name, corpus.default_rows))
        table = replace(table, columns=columns, indexes=indexes, row_count=rows)
        shaped = corpus.shape(table)
        if shaped:
            table = replace(table, statistics=TableStatistics(rows=rows, columns=shaped))
        out.append(table)
    return capture, out


def create_generated(mssql, corpus: GeneratedCorpus, database: str | None = None) -> LoadResult:
    """Create `database` (the corpus's own name by default) on the endpoint and fill it; see the module doc."""
    database = database or corpus.database
    capture, tables = corpus_tables(corpus)
    result = LoadResult(database, left_out=dict(corpus.left_out))
    mssql.create_database(database)
    conn = mssql.connect(database)
    try:
        cur = conn.cursor()
        schemas = {t.schema for t in tables} | ({s.schema for s in capture.database.sequences} if corpus.defaults else set())
        for schema in sorted(schemas - {"dbo"}):
            cur.execute(f"CREATE SCHEMA {q(schema)}")
        if corpus.defaults:
            _sequences(cur, capture.database.sequences, result)
        for table in tables:
            _create_table(cur, table, corpus.defaults)
        if corpus.computed:
            _computed_columns(cur, capture.database.tables, {t.qualified_name for t in tables}, result)
        for path in corpus.functions:
            _run_script(cur, path)
        for path in corpus.reference:
            _run_script(cur, path)
        for sql in corpus.settle:
            cur.execute(sql)
        held = _held_rows(cur, tables)
        result.reference_tables = set(held)
        synthesizer = _AfterReference(_specs(capture, tables), seed=corpus.seed, scale=1.0, cursor=cur, held=held)
        for spec in synthesizer.specs.values():
            label = spec.table.qualified_name
            if label in held:
                result.rows[label] = held[label]
                continue
            columns = [(c.source.name, c.source.type.name) for c in spec.columns]
            rows = (row for batch in synthesizer.rows(spec, batch=400) for row in batch)
            result.rows[label] = insert_rows(cur, f"{q(spec.table.schema)}.{q(spec.table.name)}", columns, rows,
                                             identity=any(c.source.identity for c in spec.columns), batch=400)
        _foreign_keys(cur, tables)
    finally:
        conn.close()
    return result


class _AfterReference(Synthesizer):
    """The data stage's generator, except that a table the reference scripts filled offers its children the
    keys its rows really hold (read from the endpoint), not keys it would have generated."""

    def __init__(self, specs: list[TableSpec], *, seed: int, scale: float, cursor, held: dict[str, int]) -> None:
        super().__init__(specs, seed=seed, scale=scale)
        self._cursor, self._held = cursor, held
        self._read: dict[tuple[str, tuple[str, ...]], list[tuple[Any, ...]]] = {}

    def keys(self, spec: TableSpec, columns: tuple[str, ...]) -> list[tuple[Any, ...]]:
        if spec.table.qualified_name not in self._held:
            return super().keys(spec, columns)
        cache = (spec.table.qualified_name, columns)
        if cache not in self._read:
            names = ", ".join(q(c) for c in columns)
            table = f"{q(spec.table.schema)}.{q(spec.table.name)}"
            rows = self._cursor.execute(f"SELECT DISTINCT {names} FROM {table} WHERE "
                                        + " AND ".join(f"{q(c)} IS NOT NULL" for c in columns)).fetchall()
            self._read[cache] = sorted((tuple(r) for r in rows),
                                       key=lambda key: tuple((v.casefold(), v) if isinstance(v, str) else (v,) for v in key))
        return self._read[cache]


def _specs(capture, tables: list[Table]) -> list[TableSpec]:
    capture = replace(capture, database=replace(capture.database, tables=tuple(tables)))
    plan = api.plan(capture, Options())
    specs = []
    for table in tables:
        planned = plan.table(table.schema, table.name)
        targets = [TargetColumn(c.name, c.target_type) for c in planned.columns]
        specs.append(build_spec(table, target_name(plan, table), targets))
    return specs


def _column(column, defaults: bool) -> str:
    text = "xml" if column.type.name.casefold() == "xml" else str(column.type)  # schema collections are not created
    identity = f" IDENTITY({column.identity.seed}, {column.identity.increment})" if column.identity else ""
    default = f" DEFAULT {column.default}" if defaults and column.default else ""
    return f"{q(column.name)} {text}{identity}{default} {'NULL' if column.nullable else 'NOT NULL'}"


def _create_table(cur, table: Table, defaults: bool) -> None:
    """The table with its keys; a temporal table's period columns are plain columns here, and a memory-optimized
    table an ordinary one (the endpoint has neither), holding the same rows."""
    name = f"{q(table.schema)}.{q(table.name)}"
    parts = [_column(c, defaults) for c in table.columns]
    if table.primary_key:
        parts.append(f"PRIMARY KEY ({', '.join(q(c) for c in table.primary_key.column_names)})")
    parts += [f"UNIQUE ({', '.join(q(c) for c in k.column_names)})" for k in table.unique_keys]
    cur.execute(f"CREATE TABLE {name} ({', '.join(parts)})")
    for n, ix in enumerate(table.indexes):
        cur.execute(f"CREATE UNIQUE INDEX {q(f'UX_{table.name}_{n}')} ON {name} ({', '.join(q(c.name) for c in ix.columns)})")


def _sequences(cur, sequences, result: LoadResult) -> None:
    for s in sequences:
        start = f" START WITH {s.start}" if s.start is not None else ""
        try:
            cur.execute(f"CREATE SEQUENCE {q(s.schema)}.{q(s.name)} AS {s.type}{start} INCREMENT BY {s.increment}")
        except Exception as exc:  # noqa: BLE001 - what the endpoint refuses is left out, with its message
            result.left_out[s.qualified_name] = f"the endpoint refuses it: {exc}"


def _computed_columns(cur, read: tuple[Table, ...], created: set[str], result: LoadResult) -> None:
    for table in read:
        if table.qualified_name not in created:
            continue
        for column in table.columns:
            if column.computed is None:
                continue
            persisted = " PERSISTED" if column.computed.persisted else ""
            try:
                cur.execute(f"ALTER TABLE {q(table.schema)}.{q(table.name)} ADD {q(column.name)} AS "
                            f"{column.computed.expression}{persisted}")
            except Exception as exc:  # noqa: BLE001 - what the endpoint refuses is left out, with its message
                result.left_out[f"{table.qualified_name}.{column.name}"] = f"the endpoint refuses it: {exc}"


def _run_script(cur, path: Path) -> None:
    """A corpus script, batch by batch (its PRINTs included); a refused batch fails the load, naming the file."""
    text = path.read_text(encoding="utf-8-sig")
    for n, batch in enumerate(b for b in _GO.split(text) if b.strip()):
        try:
            cur.execute(batch)
            while cur.nextset():
                pass
        except Exception as exc:
            raise RuntimeError(f"{path.name}, batch {n + 1}: {exc}") from exc


def _held_rows(cur, tables: list[Table]) -> dict[str, int]:
    """Tables that hold rows before anything is generated (the reference scripts'), with their counts."""
    held = {}
    for table in tables:
        count = cur.execute(f"SELECT COUNT_BIG(*) FROM {q(table.schema)}.{q(table.name)}").fetchone()[0]
        if count:
            held[table.qualified_name] = count
    return held


def _foreign_keys(cur, tables: list[Table]) -> None:
    for table in tables:
        for fk in table.foreign_keys:
            ref = next((t for t in tables if t.schema == fk.ref_schema and t.name == fk.ref_table), None)
            if ref is None or not all(table.column(c) for c in fk.columns):
                continue
            cur.execute(f"ALTER TABLE {q(table.schema)}.{q(table.name)} ADD FOREIGN KEY "
                        f"({', '.join(q(c) for c in fk.columns)}) REFERENCES {q(fk.ref_schema)}.{q(fk.ref_table)} "
                        f"({', '.join(q(c) for c in fk.ref_columns)})")
