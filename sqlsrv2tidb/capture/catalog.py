"""Maps a capture folder's catalog.json (`sqlsrv2tidb.catalog/1`) to the model.

The live capture and the offline capture-script both store raw catalog rowsets, keyed by the
query constants of capture/catalog_sql.py, and this one mapper turns either into a Capture at
read time: schema, ServerInfo, and the workload from the Query Store rowsets. The two writers
differ only in value forms (pyodbc types serialised vs FOR JSON: ISO times with 7 fractional
digits, NULL columns left out), which the readers in querystore.py absorb.

Catalog semantics kept here (reference §1): max_length is in bytes, so nchar/nvarchar lengths are
halved and -1 is (max); char(2) type codes are space-padded; columns join types on user_type_id
and alias types resolve to their base type; key columns come from the enforcing index.
Objects read from a catalog have no file or line (`SourceRef()`); a module's line numbers count
within its own definition.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..model import (
    MAX,
    Capture,
    CheckConstraint,
    Column,
    Computed,
    Database,
    DataType,
    Finding,
    ForeignKey,
    Identity,
    Index,
    IndexColumn,
    Key,
    Module,
    PartitionFunction,
    PartitionScheme,
    Sequence,
    ServerInfo,
    Severity,
    Table,
    TablePartitioning,
    Temporal,
    UserType,
    Workload,
)
from .catalog_sql import QUERY_STORE_ROWSETS, SCHEMA_QUERIES
from .querystore import as_bool, as_int, as_text, assess_options, workload_from_rows
from .statistics_rows import ROWSETS as STATISTICS_ROWSETS
from .statistics_rows import statistics_by_table
from .textfile import TextFile

CATALOG_FORMAT = "sqlsrv2tidb.catalog/1"
EXPECTED_ROWSETS = (*(q.name for q in (*SCHEMA_QUERIES, *QUERY_STORE_ROWSETS)), *STATISTICS_ROWSETS)
"""Every rowset the mapper reads; both writers produce all of them."""
REQUIRED_ROWSETS = ("TABLES", "COLUMNS")
_QUERY_STORE = {q.name for q in QUERY_STORE_ROWSETS} | {"QUERY_STORE_OPTIONS"}
_MARK = re.compile(r'"format"\s*:\s*"sqlsrv2tidb\.catalog/')
SAVE_HINT = "save the capture-script's whole output, e.g. sqlcmd -y 0 -h -1 -f o:65001 -i capture.sql -o catalog.json"

_LENGTH_IN_BYTES = {"char", "varchar", "binary", "varbinary"}
_LENGTH_IN_PAIRS = {"nchar", "nvarchar"}
_FRACTIONAL = {"time", "datetime2", "datetimeoffset"}
_NUMERIC_BOUNDARY = {"tinyint", "smallint", "int", "bigint", "decimal", "numeric", "float", "real", "money",
                     "smallmoney", "bit"}
_INDEX_KINDS = {1: "rowstore", 2: "rowstore", 3: "xml", 4: "spatial", 5: "columnstore", 6: "columnstore", 7: "hash"}
_ACTIONS = {0: "no_action", 1: "cascade", 2: "set_null", 3: "set_default"}
# sys.objects.type -> (kind, function_kind, is_clr); https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-objects-transact-sql
_MODULE_TYPES: dict[str, tuple[str, str | None, bool]] = {
    "V": ("view", None, False), "P": ("procedure", None, False), "PC": ("procedure", None, True),
    "FN": ("function", "scalar", False), "IF": ("function", "inline_table", False), "TF": ("function", "table", False),
    "FS": ("function", "scalar", True), "FT": ("function", "table", True), "AF": ("function", "aggregate", True),
    "TR": ("trigger", None, False), "TA": ("trigger", None, True),
}


def query_store_absent(server: dict[str, Any]) -> str | None:
    """Why the server has no Query Store at all (Babelfish, or SQL Server before 2016), else None."""
    babelfish = as_text(server.get("babelfish_version"))
    if babelfish:
        return f"Babelfish {babelfish} has no Query Store"
    version = as_text(server.get("product_version")) or ""
    major = version.split(".")[0]
    if major.isdigit() and 0 < int(major) < 13:
        return f"Query Store needs SQL Server 2016 or later; this is {version}"
    return None


def looks_like_catalog(head: str) -> bool:
    """The capture document, even with client noise (headers, messages) around it."""
    return bool(_MARK.search(head))


def parse_catalog_text(tf: TextFile) -> dict[str, Any]:
    """The JSON document in a catalog.json or a saved capture-script output.

    FOR JSON never writes a raw line break, so line breaks inside the document are a client's
    wrapping of one long value: they are dropped and the parse is tried again.
    """
    text = tf.text
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        raise InputError(f"{tf.path}: no JSON document in the capture output; {SAVE_HINT}")
    body = text[start : end + 1]
    try:
        data = json.loads(body)
    except json.JSONDecodeError as first:
        try:
            data = json.loads(body.replace("\r", "").replace("\n", ""))
        except json.JSONDecodeError:
            line = text.count("\n", 0, start + first.pos) + 1
            raise InputError(f"{tf.path}:{line}: capture JSON is cut off or damaged ({first.msg}); {SAVE_HINT}") from None
    if not isinstance(data, dict) or data.get("format") != CATALOG_FORMAT:
        raise InputError(f"{tf.path}: not a {CATALOG_FORMAT} document (format {data.get('format') if isinstance(data, dict) else None!r})")
    return data


def data_type(row: dict[str, Any]) -> DataType:
    """A column's (or alias type's) DataType from sys.types names and the column's max_length/precision/scale."""
    type_name = as_text(row.get("type_name")) or "sql_variant"
    base = as_text(row.get("base_type_name"))
    if type_name == "sysname":  # nvarchar(128) by definition; Babelfish gives it as its own base type
        return DataType("nvarchar", 128, alias="sys.sysname")
    assembly = bool(as_bool(row.get("is_assembly_type")))
    alias = None
    name = type_name
    if assembly:
        if as_bool(row.get("is_user_defined")):
            name = f"{row.get('type_schema')}.{type_name}"
    elif base and base != type_name:
        name = base
        schema = as_text(row.get("type_schema"))
        alias = f"{schema}.{type_name}" if as_bool(row.get("is_user_defined")) and schema else type_name
    max_length = as_int(row.get("max_length"))
    length = precision = scale = None
    if name in _LENGTH_IN_BYTES and max_length is not None:
        length = MAX if max_length == -1 else max_length
    elif name in _LENGTH_IN_PAIRS and max_length is not None:
        length = MAX if max_length == -1 else max_length // 2
    elif name in ("decimal", "numeric"):
        precision, scale = as_int(row.get("precision")), as_int(row.get("scale"))
    elif name in _FRACTIONAL:
        scale = as_int(row.get("scale"))
    xml_schema = None
    if name == "xml" and (as_int(row.get("xml_collection_id")) or 0) and row.get("xml_collection_name"):
        xml_schema = f"{row.get('xml_collection_schema')}.{row['xml_collection_name']}"
    return DataType(name, length, precision, scale, alias, xml_schema)


class _Mapper:
    def __init__(self, data: dict[str, Any], path: Path) -> None:
        self.where = str(path)
        self.findings: list[Finding] = []
        rowsets = data.get("rowsets")
        if not isinstance(rowsets, dict):
            raise InputError(f"{path}: capture has no rowsets object; {SAVE_HINT}")
        self.rowsets = rowsets
        errors = data.get("errors") or {}
        self.errors: dict[str, str] = errors if isinstance(errors, dict) else {}
        missing = [n for n in REQUIRED_ROWSETS if n not in rowsets and n not in self.errors]
        if missing:
            self.finding("IN26", Severity.HIGH, "catalog", f"capture lacks the {', '.join(missing)} rowset(s); "
                         "the schema cannot be read from it (was the output cut short?)")
        unread = sorted(n for n in self.errors if n in STATISTICS_ROWSETS)
        if unread:
            self.finding("IN49", Severity.INFO, "statistics", "SQL Server's column statistics could not be read "
                         f"({unread[0]}: {self.errors[unread[0]]}); `data synthesize` will take every column's values "
                         "from its type")
        for name, message in sorted(self.errors.items()):
            if name == "PARTITION_STATS" and "TABLE_ROWS" in rowsets:
                self.finding("IN22", Severity.LOW, name, "sys.dm_db_partition_stats could not be read on the server, so "
                             f"table sizes are unknown; row counts come from sys.partitions: {message}")
            elif name == "COMPUTED_COLUMNS":
                tables = {r.get("object_id"): f"{r.get('schema_name')}.{r.get('table_name')}" for r in self.rows("TABLES")}
                computed = sorted(f"{tables.get(r.get('object_id'), r.get('object_id'))}.{r.get('column_name')}"
                                  for r in self.rows("COLUMNS") if as_bool(r.get("is_computed")))
                listed = f" ({len(computed)}: {', '.join(computed[:20])}{', ...' if len(computed) > 20 else ''})" if computed else ""
                self.finding("IN22", Severity.HIGH, name, "catalog rowset COMPUTED_COLUMNS could not be read on the server, "
                             f"so the computed columns{listed} are read as plain columns without their expressions: "
                             f"{message}", columns=computed)
            elif name not in _QUERY_STORE and name not in STATISTICS_ROWSETS:
                self.finding("IN22", Severity.HIGH, name, f"catalog rowset {name} could not be read on the server, "
                             f"so that part of the schema is missing: {message}")

    def finding(self, rule: str, severity: Severity, obj: str, message: str, **details: Any) -> None:
        self.findings.append(Finding(rule, severity, obj, message, self.where, None, details))

    def rows(self, name: str) -> list[dict[str, Any]]:
        value = self.rowsets.get(name) or []
        if not isinstance(value, list):
            raise InputError(f"{self.where}: rowset {name} is not a list of rows")
        return [r for r in value if isinstance(r, dict)]

    def each(self, name: str, func: Callable[[dict[str, Any]], None]) -> None:
        """Apply `func` to every row; a row that does not fit becomes a finding, the rest go on."""
        for row in self.rows(name):
            try:
                func(row)
            except (ValueError, KeyError, TypeError) as exc:
                self.finding("IN25", Severity.LOW, name, f"{name} row skipped ({exc}): {_short(row)}")


def _short(row: dict[str, Any]) -> str:
    text = json.dumps(row, default=str, ensure_ascii=False)
    return text if len(text) <= 160 else text[:159] + "…"


def _key(row: dict[str, Any], *names: str) -> tuple[int, ...]:
    values = tuple(as_int(row.get(n)) for n in names)
    if any(v is None for v in values):
        raise ValueError(f"no {'/'.join(names)}")
    return values  # type: ignore[return-value]


def _named(row: dict[str, Any], name: str) -> str | None:
    """A constraint's name, or None when SQL Server generated it (scripts that name none read the same)."""
    return None if as_bool(row.get("is_system_named")) else as_text(row.get(name))


def _literal(value: str, base: str | None) -> str:
    if (base or "").lower() in _NUMERIC_BOUNDARY:
        return value
    prefix = "N" if (base or "").lower() in ("nchar", "nvarchar") else ""
    return f"{prefix}'{value.replace(chr(39), chr(39) * 2)}'"


def _column(m: _Mapper, row: dict[str, Any], extras: dict[str, dict]) -> Column:
    key = (as_int(row.get("object_id")), as_int(row.get("column_id")))
    ident, comp, default = extras["identity"].get(key), extras["computed"].get(key), extras["default"].get(key)
    generated = as_int(row.get("generated_always_type")) or 0
    if generated > 2:
        m.finding("IN24", Severity.LOW, str(row["column_name"]),
                  f"generated-always column kind {generated} (ledger or transaction id) is kept as a plain column")
    return Column(
        name=str(row["column_name"]), type=data_type(row), nullable=as_bool(row.get("is_nullable")) is not False,
        identity=_identity(ident) if ident else None,
        default=as_text(default.get("definition")) if default else None,
        default_name=_named(default, "constraint_name") if default else None,
        computed=Computed(str(comp.get("definition")), bool(as_bool(comp.get("is_persisted")))) if comp else None,
        collation=as_text(row.get("collation_name")), rowguidcol=bool(as_bool(row.get("is_rowguidcol"))),
        sparse=bool(as_bool(row.get("is_sparse"))),
        generated_always={1: "row_start", 2: "row_end"}.get(generated),  # type: ignore[arg-type]
        hidden=bool(as_bool(row.get("is_hidden"))), masked=bool(as_bool(row.get("is_masked"))),
        encrypted=bool(as_int(row.get("encryption_type"))), description=extras["description"].get(key),
    )


def _identity(row: dict[str, Any]) -> Identity:
    seed, increment = as_int(row.get("seed_value")), as_int(row.get("increment_value"))
    seed = as_int(row.get("table_seed")) if seed is None else seed
    increment = as_int(row.get("table_increment")) if increment is None else increment
    return Identity(1 if seed is None else seed, increment or 1, bool(as_bool(row.get("is_not_for_replication"))))


def _key_columns(rows: list[dict[str, Any]]) -> tuple[IndexColumn, ...]:
    keyed = sorted((r for r in rows if _order(r, "key_ordinal") > 0), key=lambda r: _order(r, "key_ordinal"))
    return tuple(IndexColumn(str(r["column_name"]), bool(as_bool(r.get("is_descending_key")))) for r in keyed)


def _enforcing_index(constraint: dict[str, Any], indexes: dict[int, dict[str, Any]], has_columns: set[int],
                     is_pk: bool) -> int | None:
    """The index_id of the index that enforces a PRIMARY KEY or UNIQUE constraint.

    SQL Server gives it as sys.key_constraints.unique_index_id (reference §1.10). A server that
    numbers the two views differently (Babelfish) is matched by the index's own flag
    (is_primary_key / is_unique_constraint) and name, which SQL Server gives the constraint's.
    """
    flag = "is_primary_key" if is_pk else "is_unique_constraint"
    iid = _order(constraint, "unique_index_id")
    if as_bool(indexes[iid].get(flag)) if iid in indexes else iid in has_columns:
        return iid  # SQL Server: the constraint names its index (also when INDEXES itself was not readable)
    flagged = {i: row for i, row in indexes.items() if as_bool(row.get(flag))}
    name = (as_text(constraint.get("constraint_name")) or "").casefold()
    named = [i for i, row in flagged.items() if (as_text(row.get("index_name")) or "").casefold() == name]
    if len(named) == 1:
        return named[0]
    if is_pk and len(flagged) == 1:
        return next(iter(flagged))
    return None


def _index(m: _Mapper, row: dict[str, Any], columns: list[dict[str, Any]]) -> Index:
    code = as_int(row.get("type"))
    kind = _INDEX_KINDS.get(code or 0)
    if kind is None:
        m.finding("IN24", Severity.LOW, str(row.get("index_name")),
                  f"index type {code} ({row.get('type_desc')}) is not known to this version; read as a rowstore index")
        kind = "rowstore"
    if any(r.get("column_name") is None for r in columns):
        # column_id 0: an expression, not a column (Babelfish's full-text index); SQL Server has none
        raise ValueError("a key column without a name (an expression), which no TiDB index can hold")
    if kind in ("rowstore", "hash"):
        keys = _key_columns(columns)
        include = tuple(str(r["column_name"]) for r in columns if as_bool(r.get("is_included_column")))
    else:  # XML, spatial and columnstore indexes list their columns without key ordinals
        keys = () if code == 5 else tuple(IndexColumn(str(r["column_name"])) for r in columns)
        include = ()
    return Index(
        name=as_text(row.get("index_name")), columns=keys, kind=kind,  # type: ignore[arg-type]
        unique=bool(as_bool(row.get("is_unique"))), clustered=code in (1, 5), include=include,
        filter=as_text(row.get("filter_definition")) if as_bool(row.get("has_filter")) else None,
        disabled=bool(as_bool(row.get("is_disabled"))),
    )


def _grouped(m: _Mapper, name: str, *fields: str) -> dict[Any, list[dict[str, Any]]]:
    """The rows of a rowset grouped by one id (an int key) or several (a tuple key)."""
    out: dict[Any, list[dict[str, Any]]] = defaultdict(list)

    def take(row: dict[str, Any]) -> None:
        key = _key(row, *fields)
        out[key[0] if len(fields) == 1 else key].append(row)

    m.each(name, take)
    return out


def _order(row: dict[str, Any], field: str) -> int:
    """A sort position that never fails: a damaged ordinal sorts first (and is reported elsewhere)."""
    try:
        return as_int(row.get(field)) or 0
    except ValueError:
        return 0


def _number(value: Any) -> int | None:
    try:
        return as_int(value)
    except ValueError:
        return None


def _sorted(rows: list[dict[str, Any]], field: str) -> list[dict[str, Any]]:
    return sorted(rows, key=lambda r: _order(r, field))


def _foreign_key(parts: list[dict[str, Any]]) -> ForeignKey:
    parts = _sorted(parts, "constraint_column_id")
    first = parts[0]
    return ForeignKey(
        _named(first, "constraint_name"), tuple(str(r["parent_column"]) for r in parts),
        str(first["referenced_schema"]), str(first["referenced_table"]),
        tuple(str(r["referenced_column"]) for r in parts),
        on_delete=_ACTIONS.get(as_int(first.get("delete_referential_action")) or 0, "no_action"),  # type: ignore[arg-type]
        on_update=_ACTIONS.get(as_int(first.get("update_referential_action")) or 0, "no_action"),  # type: ignore[arg-type]
        disabled=bool(as_bool(first.get("is_disabled"))), not_trusted=bool(as_bool(first.get("is_not_trusted"))),
    )


class _Tables:
    """The table rowsets grouped by table, so each table is built (or skipped) on its own."""

    def __init__(self, m: _Mapper) -> None:
        self.m = m
        self.columns = _grouped(m, "COLUMNS", "object_id")
        self.extras: dict[str, dict] = {"identity": {}, "computed": {}, "default": {}, "description": {}}
        for name, kind, fields in (("IDENTITY_COLUMNS", "identity", ("object_id", "column_id")),
                                   ("COMPUTED_COLUMNS", "computed", ("object_id", "column_id")),
                                   ("DEFAULT_CONSTRAINTS", "default", ("parent_object_id", "parent_column_id")),
                                   ("EXTENDED_PROPERTIES", "description", ("object_id", "column_id"))):
            for key, rows in _grouped(m, name, *fields).items():
                self.extras[kind][key] = as_text(rows[0].get("property_value")) if kind == "description" else rows[0]
        self.index_columns = {k: _sorted(v, "index_column_id") for k, v in
                              _grouped(m, "INDEX_COLUMNS", "object_id", "index_id").items()}
        self.indexed: dict[int, set[int]] = defaultdict(set)
        for oid, iid in self.index_columns:
            self.indexed[oid].add(iid)
        self.indexes = _grouped(m, "INDEXES", "object_id")
        self.keys, self.checks = _grouped(m, "KEY_CONSTRAINTS", "parent_object_id"), _grouped(m, "CHECK_CONSTRAINTS", "parent_object_id")
        self.foreign_keys = _grouped(m, "FOREIGN_KEYS", "parent_object_id")
        self.fulltext = _grouped(m, "FULLTEXT_INDEXES", "object_id")
        self.partitioning = _grouped(m, "TABLE_PARTITIONING", "object_id")
        self.stats = _grouped(m, "PARTITION_STATS", "object_id") or _grouped(m, "TABLE_ROWS", "object_id")
        self.rows = {oid: rows[0] for oid, rows in _grouped(m, "TABLES", "object_id").items()}
        self.statistics = statistics_by_table(m.rowsets)

    def build(self) -> tuple[list[Table], dict[int, list[Index]]]:
        tables = _built(self.m, "TABLES", {oid: [row] for oid, row in self.rows.items()},
                        lambda rows: self.table(_order(rows[0], "object_id"), rows[0]))
        tables.sort(key=lambda t: (t.schema.casefold(), t.name.casefold()))
        views: dict[int, list[Index]] = {}
        for oid, rows in self.indexes.items():
            if oid not in self.rows:
                built = _built(self.m, "INDEXES", {oid: rows}, lambda rows, oid=oid: [
                    _index(self.m, i, self.index_columns.get((oid, _order(i, "index_id")), []))
                    for i in _sorted(rows, "index_id")])
                views[oid] = built[0] if built else []
        return tables, views

    def table(self, oid: int, row: dict[str, Any]) -> Table:
        if not row.get("table_name") or not row.get("schema_name"):
            raise ValueError("no schema_name/table_name")
        column_rows = _sorted(self.columns.get(oid, []), "column_id")
        cols = [_column(self.m, c, self.extras) for c in column_rows]
        names = {as_int(c.get("column_id")): str(c["column_name"]) for c in column_rows}
        by_id = {_order(i, "index_id"): i for i in self.indexes.get(oid, [])}
        primary, uniques = None, []
        table_name = f"{row['schema_name']}.{row['table_name']}"
        for kc in sorted(self.keys.get(oid, []), key=lambda r: str(r.get("constraint_name"))):
            is_pk = (as_text(kc.get("constraint_type")) or "").strip() == "PK"
            iid = _enforcing_index(kc, by_id, self.indexed.get(oid, set()), is_pk)
            columns = _key_columns(self.index_columns.get((oid, iid), [])) if iid is not None else ()
            kind = "primary key" if is_pk else "unique constraint"
            if not columns:
                self.m.finding("IN30", Severity.HIGH, table_name,
                               f"the columns of {kind} {kc.get('constraint_name')} on {table_name} could not be resolved: "
                               f"no index of the table enforces it (unique_index_id {kc.get('unique_index_id')}), so the "
                               f"table is read without that {kind}; check it on the server and add it to the DDL by hand",
                               constraint=as_text(kc.get("constraint_name")))
                continue
            key = Key(_named(kc, "constraint_name"), columns, clustered=as_int(by_id.get(iid, {}).get("type")) == 1)
            if is_pk:
                primary = key
            else:
                uniques.append(key)
        indexes = []
        for iid, i in sorted(by_id.items()):
            if as_bool(i.get("is_primary_key")) or as_bool(i.get("is_unique_constraint")):
                continue
            try:
                indexes.append(_index(self.m, i, self.index_columns.get((oid, iid), [])))
            except (ValueError, KeyError, TypeError) as exc:
                self.m.finding("IN25", Severity.LOW, f"{table_name}.{i.get('index_name')}",
                               f"index {i.get('index_name')} of {table_name} left out: {exc}")
        if oid in self.fulltext:
            ft = _sorted([r for r in self.fulltext[oid] if r.get("column_name")], "column_id")
            indexes.append(Index(None, tuple(IndexColumn(str(r["column_name"])) for r in ft), kind="fulltext",
                                 disabled=as_bool(self.fulltext[oid][0].get("is_enabled")) is False))
        by_fk: dict[int, list[dict]] = defaultdict(list)
        for r in self.foreign_keys.get(oid, []):
            by_fk[_order(r, "constraint_id")].append(r)
        foreign = sorted((_foreign_key(parts) for parts in by_fk.values()), key=lambda f: (f.name or "", f.columns))
        checks = sorted((CheckConstraint(_named(c, "constraint_name"), str(c.get("definition")),
                                         names.get(as_int(c.get("parent_column_id")) or 0),
                                         bool(as_bool(c.get("is_disabled"))), bool(as_bool(c.get("is_not_trusted"))))
                         for c in self.checks.get(oid, [])), key=lambda c: (c.name or "", c.expression))
        temporal_type = as_int(row.get("temporal_type")) or 0
        temporal = None
        if temporal_type == 2:  # 2 SYSTEM_VERSIONED_TEMPORAL_TABLE, 1 its HISTORY_TABLE
            history = self.rows.get(as_int(row.get("history_table_id")) or 0, {})
            temporal = Temporal(next((c.name for c in cols if c.generated_always == "row_start"), None),
                                next((c.name for c in cols if c.generated_always == "row_end"), None),
                                as_text(history.get("schema_name")), as_text(history.get("table_name")))
        part = (self.partitioning.get(oid) or [None])[0]
        stat = (self.stats.get(oid) or [{}])[0]
        used_kb = as_int(stat.get("total_used_kb"))
        statistics = self.statistics.get(oid)
        if statistics is not None:
            counted = as_int(stat.get("row_count"))
            if counted is None:  # no row count rowset: the statistics' own count, the best there is
                counted = max((int(c.rows) for c in statistics.columns if c.rows is not None), default=None)
            statistics = replace(statistics, rows=counted)
        return Table(
            schema=str(row["schema_name"]), name=str(row["table_name"]), columns=tuple(cols),
            primary_key=primary, unique_keys=tuple(uniques), indexes=tuple(indexes),
            foreign_keys=tuple(foreign), checks=tuple(checks),
            memory_optimized=bool(as_bool(row.get("is_memory_optimized"))),
            durability="schema_only" if as_int(row.get("durability")) == 1 else "schema_and_data",
            temporal=temporal, is_history_table=temporal_type == 1,
            partitioning=TablePartitioning(str(part["scheme_name"]), str(part["partition_column"])) if part else None,
            row_count=as_int(stat.get("row_count")), size_bytes=used_kb * 1024 if used_kb is not None else None,
            description=self.extras["description"].get((oid, 0)), statistics=statistics,
        )


def _bracket(name: str) -> str:
    return "[" + name.replace("]", "]]") + "]"


def _modules(m: _Mapper, view_indexes: dict[int, list[Index]]) -> list[Module]:
    modules: list[Module] = []

    def take(row: dict[str, Any]) -> None:
        code = (as_text(row.get("type")) or "").strip()  # char(2): 'P ', 'V ', 'TR'
        if code not in _MODULE_TYPES:
            raise ValueError(f"unknown module type {code!r}")
        kind, function_kind, clr = _MODULE_TYPES[code]
        if as_text(row.get("type_desc")) == "DATABASE_DDL_TRIGGER":
            kind = "ddl_trigger"
        schema, name = as_text(row.get("schema_name")), str(row["object_name"])
        definition = as_text(row.get("definition"))
        if definition is None and not clr:
            m.finding("IN23", Severity.MEDIUM, f"{schema}.{name}" if schema else name,
                      f"the source of {kind} {name} could not be read (created WITH ENCRYPTION, or hidden from a login "
                      "without VIEW DEFINITION), so it can be neither translated nor checked")
        parent_name = as_text(row.get("parent_name"))
        parent = f"{row.get('parent_schema')}.{parent_name}" if kind == "trigger" and parent_name else None
        modules.append(Module(
            schema, name, kind, definition, function_kind, clr,  # type: ignore[arg-type]
            is_schema_bound=bool(as_bool(row.get("is_schema_bound"))),
            native_compilation=bool(as_bool(row.get("uses_native_compilation"))), parent=parent,
            indexes=tuple(view_indexes.get(as_int(row.get("object_id")) or 0, ())),
        ))

    def synonym(row: dict[str, Any]) -> None:
        schema, name, base = str(row["schema_name"]), str(row["synonym_name"]), str(row["base_object_name"])
        modules.append(Module(schema, name, "synonym", f"CREATE SYNONYM {_bracket(schema)}.{_bracket(name)} FOR {base}",
                              base_object=base))

    m.each("MODULES", take)
    m.each("SYNONYMS", synonym)
    modules.sort(key=lambda x: ((x.schema or "").casefold(), x.name.casefold(), x.kind))
    return modules


def _sequences(m: _Mapper) -> list[Sequence]:
    out: list[Sequence] = []

    def take(row: dict[str, Any]) -> None:
        declared = as_text(row.get("type_name")) or "bigint"
        base = as_text(row.get("base_type_name")) or declared
        decimal = base in ("decimal", "numeric")
        out.append(Sequence(
            str(row["schema_name"]), str(row["sequence_name"]),
            DataType(base, precision=as_int(row.get("precision")) if decimal else None,
                     scale=as_int(row.get("scale")) if decimal else None, alias=declared if declared != base else None),
            start=as_int(row.get("start_value")), increment=as_int(row.get("increment")) or 1,
            minimum=as_int(row.get("minimum_value")), maximum=as_int(row.get("maximum_value")),
            cycle=bool(as_bool(row.get("is_cycling"))), cached=as_bool(row.get("is_cached")) is not False,
            cache_size=as_int(row.get("cache_size")),
        ))

    m.each("SEQUENCES", take)
    return sorted(out, key=lambda s: (s.schema.casefold(), s.name.casefold()))


def _built(m: _Mapper, name: str, groups: dict[Any, list[dict[str, Any]]], build: Callable[[list[dict]], Any]) -> list:
    """Build one object per group of rows; a group that does not fit becomes a finding."""
    out = []
    for rows in groups.values():
        try:
            out.append(build(rows))
        except (ValueError, KeyError, TypeError) as exc:
            m.finding("IN25", Severity.LOW, name, f"{name} rows skipped ({exc}): {_short(rows[0])}")
    return out


def _partition_function(rows: list[dict[str, Any]]) -> PartitionFunction:
    first = rows[0]
    bounded = [r for r in _sorted(rows, "boundary_id") if r.get("boundary_value") is not None]
    return PartitionFunction(
        str(first["function_name"]), data_type({**first, "type_name": first.get("parameter_type")}),
        tuple(_literal(str(r["boundary_value"]), as_text(r.get("value_base_type"))) for r in bounded),
        range_right=bool(as_bool(first.get("boundary_value_on_right"))))


def _partitions(m: _Mapper) -> tuple[list[PartitionFunction], list[PartitionScheme]]:
    functions = _built(m, "PARTITION_FUNCTIONS", _grouped(m, "PARTITION_FUNCTIONS", "function_id"), _partition_function)
    schemes = _built(m, "PARTITION_SCHEMES", _grouped(m, "PARTITION_SCHEMES", "data_space_id"), lambda rows: PartitionScheme(
        str(rows[0]["scheme_name"]), str(rows[0]["function_name"]),
        tuple(str(r["filegroup_name"]) for r in _sorted(rows, "destination_id") if r.get("filegroup_name") is not None)))
    return sorted(functions, key=lambda f: f.name.casefold()), sorted(schemes, key=lambda s: s.name.casefold())


def _user_types(m: _Mapper) -> list[UserType]:
    columns = _grouped(m, "TABLE_TYPE_COLUMNS", "table_type_id")
    no_extras: dict[str, dict] = {"identity": {}, "computed": {}, "default": {}, "description": {}}
    out: list[UserType] = []

    def take(row: dict[str, Any]) -> None:
        uid = _key(row, "user_type_id")[0]
        table = bool(as_bool(row.get("is_table_type")))
        base = None
        if not table and row.get("base_type_name"):
            base = data_type({**row, "type_name": row["base_type_name"], "is_user_defined": False})
        cols = tuple(_column(m, c, no_extras) for c in _sorted(columns.get(uid, []), "column_id")) if table else ()
        out.append(UserType(str(row["schema_name"]), str(row["type_name"]), base,
                            nullable=as_bool(row.get("is_nullable")) is not False, is_table_type=table, columns=cols))

    m.each("TYPES", take)
    return sorted(out, key=lambda u: (u.schema.casefold(), u.name.casefold()))


def _workload(m: _Mapper, data: dict[str, Any], database: str | None) -> Workload:
    options = data.get("query_store")
    days = data.get("days")
    if options is None and not any(n in m.rowsets or n in m.errors for n in _QUERY_STORE):
        return Workload(notes=("Query Store was not read (capture --no-query-store)",))
    notes: list[str] = []
    if isinstance(options, dict) and options.get("actual_state") is not None:
        try:
            notes, findings = assess_options(options, m.where)
            m.findings.extend(findings)
        except ValueError as exc:
            m.finding("IN25", Severity.LOW, "Query Store", f"Query Store options unreadable ({exc}): {_short(options)}")
    failed = {n: msg for n, msg in m.errors.items() if n in _QUERY_STORE}
    absent = query_store_absent(data.get("server") if isinstance(data.get("server"), dict) else {})
    if failed and absent:
        m.finding("IN31", Severity.MEDIUM, "Query Store",
                  f"{absent}, so the capture has the schema and no workload; give the workload as an Extended Events "
                  "XML export, a Query Store export or a workload spec", rowsets=sorted(failed))
    elif failed:
        first = next(iter(sorted(failed.items())))
        m.finding("IN21", Severity.MEDIUM, "Query Store",
                  f"Query Store could not be read ({first[1]}); the schema was captured, the workload was not. "
                  "Grant VIEW DATABASE STATE, or export the workload another way", rowsets=sorted(failed))
    queries = {_order(r, "query_id"): r for r in m.rows("QUERY_STORE_QUERIES")}
    plans: dict[Any, list[str]] = defaultdict(list)
    for r in m.rows("QUERY_STORE_PLANS"):
        if r.get("parameter_list"):
            plans[_order(r, "query_id")].append(str(r["parameter_list"]))
    rows = [(None, {**queries.get(_order(r, "query_id"), {}), **r}) for r in m.rows("QUERY_STORE_RUNTIME_STATS")]
    if isinstance(days, (int, float)) and not isinstance(days, bool):
        notes.append(f"Query Store window: the last {days:g} day(s) before the capture")
    workload, findings = workload_from_rows(rows, plans=plans, database=database, file=m.where, notes=tuple(notes))
    m.findings.extend(findings)
    if not rows and not failed:
        m.finding("IN29", Severity.INFO, "Query Store", "Query Store holds no runtime statistics for the captured "
                  "window; the capture has a schema but no workload")
    return workload


def read_catalog(data: dict, path: Path) -> Capture:
    """Map a catalog document (live capture or capture-script output) to a Capture."""
    if not isinstance(data, dict) or data.get("format") != CATALOG_FORMAT:
        raise InputError(f"{path}: not a {CATALOG_FORMAT} document")
    m = _Mapper(data, path)
    server = data.get("server") if isinstance(data.get("server"), dict) else {}
    database_name = as_text(server.get("database"))
    tables, view_indexes = _Tables(m).build()
    functions, schemes = _partitions(m)
    schemas = {str(r["schema_name"]) for r in m.rows("SCHEMAS") if r.get("schema_name")}
    schemas |= {t.schema for t in tables}
    database = Database(
        name=database_name, collation=as_text(server.get("database_collation")),
        compatibility_level=_number(server.get("compatibility_level")),
        schemas=tuple(sorted(schemas, key=str.casefold)), tables=tuple(tables), sequences=tuple(_sequences(m)),
        user_types=tuple(_user_types(m)), modules=tuple(_modules(m, view_indexes)),
        partition_functions=tuple(functions), partition_schemes=tuple(schemes),
    )
    instance = as_text(server.get("instance"))
    if instance is None and server.get("server_name"):
        instance = f"{server['server_name']}/{database_name}"
    info = ServerInfo(as_text(server.get("product_version")), as_text(server.get("edition")),
                      _number(server.get("engine_edition")), as_text(server.get("collation")), instance)
    workload = _workload(m, data, database_name)
    return Capture(database=database, workload=workload, findings=tuple(m.findings), sources=(str(path),), server=info)
