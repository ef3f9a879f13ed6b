"""SQL Server's catalog views and functions in a statement, answered from TiDB's information_schema for the
migrated names.

Code asks the catalog whether an object exists before it makes or changes one (`IF NOT EXISTS (SELECT 1
FROM sys.indexes WHERE name = N'IX_...')`, `IF OBJECT_ID(N'Sales.Orders') IS NULL`, the current value
of a sequence in sys.sequences). On TiDB the answer is in information_schema, under the names the
migration gave the objects (`ddl/`), in one database. Each catalog view a statement reads becomes a
derived table with the view's own columns, computed from information_schema and joined to the
schema's names: an object keeps its SQL Server name and schema (`schema_id` numbered as the captured
schemas are, dbo 1), `object_id` is a number of its TiDB name (the same one OBJECT_ID gives), and
what TiDB has none of reads as SQL Server's "none" (is_memory_optimized 0, a table's temporal_type as
the schema declares it). A sequence's current_value TiDB does not tell without taking a value: it is
NULL, flagged for review. Views and columns outside this list remain unsupported.
https://learn.microsoft.com/sql/relational-databases/system-catalog-views/catalog-views-transact-sql
https://docs.pingcap.com/tidb/stable/information-schema
"""

from __future__ import annotations

import zlib

import sqlglot
from sqlglot import exp

from ..model import Database
from .context import Context, applies_to
from .dialect import TiDB
from .naming import NameMap
from .templates import fill

_OBJECT_ID = "CAST(CRC32(LOWER({})) & 2147483647 AS SIGNED)"
"""An object's number: a non-negative int from its TiDB name, the same for OBJECT_ID and every view."""


def _quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "''") + "'"


def schema_ids(database: Database) -> dict[str, int]:
    """Each schema's number: dbo 1, then the others in name order (SQL Server numbers its own schemas otherwise)."""
    names = {t.schema for t in database.tables} | {s.schema for s in database.sequences} | set(database.schemas) | {
        m.schema for m in database.modules if m.schema}
    others = sorted((n for n in names if n and n.casefold() != "dbo"), key=str.casefold)
    ids = {"dbo": 1}
    for number, name in enumerate(others, start=5):
        ids[name] = number
    return ids


def _names(database: Database, names: NameMap, kinds: tuple[str, ...]) -> str:
    """A derived table of the schema's objects: (tidb, schema_id, name, temporal) per object, SQL Server's names."""
    ids = schema_ids(database)
    rows = []
    if "table" in kinds:
        for table in database.tables:
            temporal = 2 if table.temporal is not None else 1 if table.is_history_table else 0
            rows.append((names.object(table.schema, table.name).name, ids.get(table.schema, 1), table.name, temporal))
    if "view" in kinds:
        for module in database.modules_of("view"):
            rows.append((names.object(module.schema, module.name).name, ids.get(module.schema or "dbo", 1), module.name, 0))
    if "sequence" in kinds:
        for sequence in database.sequences:
            rows.append((names.object(sequence.schema, sequence.name).name, ids.get(sequence.schema, 1), sequence.name, 0))
    if not rows:
        return "(SELECT NULL AS tidb, NULL AS schema_id, NULL AS name, NULL AS temporal FROM DUAL WHERE 1 = 0)"
    selects = [f"SELECT {_quote(t.lower())} AS tidb, {s} AS schema_id, {_quote(n)} AS name, {k} AS temporal"
               for t, s, n, k in rows]
    return "(" + " UNION ALL ".join(selects) + ")"


def _view(name: str, database: Database, names: NameMap) -> str | None:
    """The TiDB query standing for catalog view `name` (lower case, without `sys.`)."""
    if name in ("tables", "views"):
        base = "BASE TABLE" if name == "tables" else "VIEW"
        kind = "table" if name == "tables" else "view"
        code, desc = ("U", "USER_TABLE") if name == "tables" else ("V", "VIEW")
        return (f"SELECT COALESCE(m.name, t.TABLE_NAME) AS name, {_OBJECT_ID.format('t.TABLE_NAME')} AS object_id, "
                f"NULL AS principal_id, COALESCE(m.schema_id, 1) AS schema_id, 0 AS parent_object_id, '{code}' AS type, "
                f"'{desc}' AS type_desc, t.CREATE_TIME AS create_date, COALESCE(t.UPDATE_TIME, t.CREATE_TIME) AS modify_date, "
                "0 AS is_ms_shipped, 0 AS is_published, 0 AS is_schema_published, 0 AS is_memory_optimized, "
                "1 AS durability, COALESCE(m.temporal, 0) AS temporal_type, 0 AS is_external, NULL AS history_table_id, "
                "0 AS is_replicated, 0 AS has_replication_filter "
                f"FROM information_schema.TABLES AS t LEFT JOIN {_names(database, names, (kind,))} AS m "
                f"ON m.tidb = LOWER(t.TABLE_NAME) WHERE t.TABLE_SCHEMA = DATABASE() AND t.TABLE_TYPE = '{base}'")
    if name == "objects":
        return (f"SELECT COALESCE(m.name, t.TABLE_NAME) AS name, {_OBJECT_ID.format('t.TABLE_NAME')} AS object_id, "
                "NULL AS principal_id, COALESCE(m.schema_id, 1) AS schema_id, 0 AS parent_object_id, "
                "CASE t.TABLE_TYPE WHEN 'VIEW' THEN 'V' WHEN 'SEQUENCE' THEN 'SO' ELSE 'U' END AS type, "
                "CASE t.TABLE_TYPE WHEN 'VIEW' THEN 'VIEW' WHEN 'SEQUENCE' THEN 'SEQUENCE_OBJECT' ELSE 'USER_TABLE' END "
                "AS type_desc, t.CREATE_TIME AS create_date, COALESCE(t.UPDATE_TIME, t.CREATE_TIME) AS modify_date, "
                "0 AS is_ms_shipped "
                f"FROM information_schema.TABLES AS t LEFT JOIN {_names(database, names, ('table', 'view', 'sequence'))} "
                "AS m ON m.tidb = LOWER(t.TABLE_NAME) WHERE t.TABLE_SCHEMA = DATABASE()")
    if name == "sequences":
        return (f"SELECT COALESCE(m.name, s.SEQUENCE_NAME) AS name, {_OBJECT_ID.format('s.SEQUENCE_NAME')} AS object_id, "
                "COALESCE(m.schema_id, 1) AS schema_id, 'SO' AS type, 'SEQUENCE_OBJECT' AS type_desc, "
                "s.START AS start_value, s.INCREMENT AS increment, s.MIN_VALUE AS minimum_value, "
                "s.MAX_VALUE AS maximum_value, s.CYCLE AS is_cycling, CASE WHEN s.CACHE = 1 THEN 1 ELSE 0 END AS is_cached, "
                "s.CACHE_VALUE AS cache_size, NULL AS current_value, 0 AS is_exhausted "
                f"FROM information_schema.SEQUENCES AS s LEFT JOIN {_names(database, names, ('sequence',))} AS m "
                "ON m.tidb = LOWER(s.SEQUENCE_NAME) WHERE s.SEQUENCE_SCHEMA = DATABASE()")
    if name == "columns":
        return (f"SELECT {_OBJECT_ID.format('c.TABLE_NAME')} AS object_id, c.COLUMN_NAME AS name, "
                "c.ORDINAL_POSITION AS column_id, COALESCE(c.CHARACTER_OCTET_LENGTH, c.NUMERIC_PRECISION) AS max_length, "
                "c.NUMERIC_PRECISION AS precision, c.NUMERIC_SCALE AS scale, "
                "CASE WHEN c.IS_NULLABLE = 'YES' THEN 1 ELSE 0 END AS is_nullable, "
                "CASE WHEN c.EXTRA LIKE '%auto_increment%' THEN 1 ELSE 0 END AS is_identity, "
                "CASE WHEN c.GENERATION_EXPRESSION IS NOT NULL AND c.GENERATION_EXPRESSION <> '' THEN 1 ELSE 0 END "
                "AS is_computed, c.COLLATION_NAME AS collation_name "
                "FROM information_schema.COLUMNS AS c WHERE c.TABLE_SCHEMA = DATABASE()")
    if name == "indexes":
        return (f"SELECT {_OBJECT_ID.format('i.TABLE_NAME')} AS object_id, i.INDEX_NAME AS name, "
                "MIN(i.SEQ_IN_INDEX) AS index_id, CASE WHEN i.INDEX_NAME = 'PRIMARY' THEN 1 ELSE 2 END AS type, "
                "CASE WHEN i.INDEX_NAME = 'PRIMARY' THEN 'CLUSTERED' ELSE 'NONCLUSTERED' END AS type_desc, "
                "CASE WHEN MAX(i.NON_UNIQUE) = 0 THEN 1 ELSE 0 END AS is_unique, "
                "CASE WHEN i.INDEX_NAME = 'PRIMARY' THEN 1 ELSE 0 END AS is_primary_key, 0 AS is_unique_constraint, "
                "0 AS is_disabled, 0 AS is_hypothetical, 0 AS has_filter "
                "FROM information_schema.STATISTICS AS i WHERE i.TABLE_SCHEMA = DATABASE() "
                "GROUP BY i.TABLE_NAME, i.INDEX_NAME")
    if name == "schemas":
        selects = [f"SELECT {number} AS schema_id, {_quote(schema)} AS name, 1 AS principal_id"
                   for schema, number in schema_ids(database).items()]
        return " UNION ALL ".join(selects)
    if name == "procedures":
        ids = schema_ids(database)
        selects = [f"SELECT {_quote(m.name)} AS name, CAST(CRC32(LOWER({_quote(m.qualified_name)})) & 2147483647 AS SIGNED) "
                   f"AS object_id, {ids.get(m.schema or 'dbo', 1)} AS schema_id, 'P' AS type, "
                   "'SQL_STORED_PROCEDURE' AS type_desc, 0 AS is_ms_shipped"
                   for m in database.modules_of("procedure")]
        return " UNION ALL ".join(selects) or ("SELECT NULL AS name, NULL AS object_id, NULL AS schema_id, NULL AS type, "
                                               "NULL AS type_desc, NULL AS is_ms_shipped FROM DUAL WHERE 1 = 0")
    if name == "syslanguages":
        selects = [f"SELECT {number} AS langid, {_quote(native)} AS name, {_quote(alias)} AS alias"
                   for number, (native, alias) in enumerate(_LANGUAGES)]
        return " UNION ALL ".join(selects)
    return None


_LANGUAGES = (
    ("us_english", "English"), ("Deutsch", "German"), ("Français", "French"), ("日本語", "Japanese"),
    ("Dansk", "Danish"), ("Español", "Spanish"), ("Italiano", "Italian"), ("Nederlands", "Dutch"),
    ("Norsk", "Norwegian"), ("Português", "Portuguese"), ("Suomi", "Finnish"), ("Svenska", "Swedish"),
    ("čeština", "Czech"), ("magyar", "Hungarian"), ("polski", "Polish"), ("română", "Romanian"),
    ("hrvatski", "Croatian"), ("slovenčina", "Slovak"), ("slovenski", "Slovenian"), ("ελληνικά", "Greek"),
    ("български", "Bulgarian"), ("русский", "Russian"), ("Türkçe", "Turkish"), ("British", "British English"),
    ("eesti", "Estonian"), ("latviešu", "Latvian"), ("lietuvių", "Lithuanian"), ("Português (Brasil)", "Brazilian"),
    ("繁體中文", "Traditional Chinese"), ("한국어", "Korean"), ("简体中文", "Simplified Chinese"), ("Arabic", "Arabic"),
    ("ไทย", "Thai"), ("norsk (bokmål)", "Bokmål"),
)
"""SQL Server's languages as sys.syslanguages lists them (name, alias), langid in this order: a fixed list of the
server's, not the database's. https://learn.microsoft.com/sql/relational-databases/system-compatibility-views/sys-syslanguages-transact-sql"""


CATALOG_VIEWS = ("tables", "views", "objects", "sequences", "columns", "indexes", "schemas", "procedures", "syslanguages")


def catalog_view(table: exp.Table, ctx: Context) -> exp.Expr | None:
    """`sys.tables AS t` -> `(SELECT ... FROM information_schema.TABLES ...) AS t`, or None for a view not answered."""
    name = table.name.lower()
    if (table.db or "").lower() != "sys" or name not in CATALOG_VIEWS:
        return None
    text = _view(name, ctx.database, ctx.names)
    if text is None:
        return None
    query = sqlglot.parse_one(text, read=TiDB)
    for node in query.walk():
        node.meta["tidb"] = True
    alias = table.args.get("alias") or exp.TableAlias(this=exp.to_identifier(name))
    derived = exp.Subquery(this=query, alias=alias.copy())
    derived.meta["tidb"] = True
    ctx.note("QY49", "rewritten", f"Catalog view sys.{name} is answered from TiDB's information_schema, for the names "
                                  "the migration gave the objects.")
    if name == "sequences":
        ctx.note("QY49", "review", "sys.sequences: TiDB does not tell a sequence's current_value without taking a "
                                   "value, so it is NULL.")
    return derived


def object_id(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    """`OBJECT_ID(N'Sales.Orders')` -> the object's number when TiDB has it, else NULL; a procedure's from the schema."""
    if not node.expressions and not isinstance(node.this, exp.Expr):
        return None
    argument = node.this if isinstance(node.this, exp.Expr) else node.expressions[0]
    if not (isinstance(argument, exp.National) or (isinstance(argument, exp.Literal) and argument.is_string)):
        ctx.note("QY49", "review", "OBJECT_ID of a name known at run time is looked up in information_schema as it is "
                                   "written: a schema-qualified SQL Server name may be another TiDB name.")
        return fill(f"(SELECT {_OBJECT_ID.format('t.TABLE_NAME')} FROM information_schema.TABLES AS t WHERE "
                    "t.TABLE_SCHEMA = DATABASE() AND LOWER(t.TABLE_NAME) = LOWER(SUBSTRING_INDEX(REPLACE(REPLACE(n, '[', ''), "
                    "']', ''), '.', -1)) LIMIT 1)", n=argument)
    parts = [p.strip().strip("[]") for p in argument.name.split(".")]
    if parts and parts[0].lower().startswith("tempdb"):
        return None
    schema, bare = (parts[-2] or None) if len(parts) > 1 else None, parts[-1]
    procedure = next((m for m in ctx.database.modules if m.kind in ("procedure", "function", "trigger")
                      and m.name.casefold() == bare.casefold()
                      and (schema is None or (m.schema or "dbo").casefold() == schema.casefold())), None)
    ctx.note("QY49", "rewritten", "OBJECT_ID is answered from TiDB's information_schema for the name the migration gave "
                                  "the object.")
    if procedure is not None:  # the application holds the procedure now: it exists
        return fill(str(zlib.crc32(procedure.qualified_name.lower().encode()) & 0x7FFFFFFF))
    target = ctx.names.object(schema, bare).name
    return fill(f"(SELECT {_OBJECT_ID.format('t.TABLE_NAME')} FROM information_schema.TABLES AS t WHERE "
                f"t.TABLE_SCHEMA = DATABASE() AND LOWER(t.TABLE_NAME) = {_quote(target.lower())} LIMIT 1)")


def schema_name(node: exp.Expr, ctx: Context) -> exp.Expr | None:
    """`SCHEMA_NAME(schema_id)` -> the captured schema's name of that number (the catalog views' numbering)."""
    args = [a for a in ([node.this] if isinstance(node.this, exp.Expr) else []) + list(node.expressions)]
    if not args:
        return fill("'dbo'")
    whens = " ".join(f"WHEN {number} THEN {_quote(name)}" for name, number in schema_ids(ctx.database).items())
    ctx.note("QY49", "rewritten", "SCHEMA_NAME answers the captured schema of the number the catalog views give.")
    return fill(f"CASE s {whens} END", s=args[0])


def schema_id(argument: exp.Expr, ctx: Context) -> exp.Expr:
    """`SCHEMA_ID(N'Sales')` -> its number (the catalog views' numbering)."""
    whens = " ".join(f"WHEN {_quote(name.lower())} THEN {number}" for name, number in schema_ids(ctx.database).items())
    ctx.note("QY49", "rewritten", "SCHEMA_ID answers the number the catalog views give the captured schema.")
    return fill(f"CASE LOWER(s) {whens} END", s=argument)


def col_length(table: exp.Expr, column: exp.Expr, ctx: Context) -> exp.Expr | None:
    """`COL_LENGTH(N'Sales.Orders', N'Comments')` -> the column's length in bytes when TiDB has the column, else NULL."""
    if not all(isinstance(a, exp.National) or (isinstance(a, exp.Literal) and a.is_string) for a in (table, column)):
        return None
    parts = [p.strip().strip("[]") for p in table.name.split(".")]
    schema, bare = (parts[-2] or None) if len(parts) > 1 else None, parts[-1]
    found = ctx.database.table(schema, bare)
    declared = next((c for c in found.columns if c.name.casefold() == column.name.casefold()), None) if found else None
    length = "c.CHARACTER_OCTET_LENGTH"
    if declared is not None:
        size = declared.type.length
        name = declared.type.name.lower()
        if name in ("nvarchar", "nchar") and isinstance(size, int):
            length = str(size * 2)
        elif isinstance(size, int):
            length = str(size)
        elif size == "max" or name in ("nvarchar", "varchar", "varbinary"):
            length = "-1"
    ctx.note("QY49", "rewritten", "COL_LENGTH is answered from TiDB's information_schema (the column exists) and the "
                                  "captured type (its length as SQL Server counts it).")
    target = ctx.names.object(schema, bare).name
    return fill(f"(SELECT {length} FROM information_schema.COLUMNS AS c WHERE c.TABLE_SCHEMA = DATABASE() AND "
                f"LOWER(c.TABLE_NAME) = {_quote(target.lower())} AND LOWER(c.COLUMN_NAME) = "
                f"{_quote(column.name.lower())} LIMIT 1)")


@applies_to(exp.ObjectId, exp.CurrentSchema, exp.Anonymous)
def catalog_functions(node: exp.Expr, ctx: Context) -> exp.Expr:
    """OBJECT_ID, SCHEMA_NAME, SCHEMA_ID and COL_LENGTH answered as the catalog views answer (module docstring)."""
    if isinstance(node, exp.ObjectId):
        found = object_id(node, ctx)
    elif isinstance(node, exp.CurrentSchema):
        found = schema_name(node, ctx)
    else:
        name = node.name.upper()
        if name == "SCHEMA_ID" and len(node.expressions) == 1:
            found = schema_id(node.expressions[0], ctx)
        elif name == "SCHEMA_ID" and not node.expressions:
            found = fill("1")
        elif name == "COL_LENGTH" and len(node.expressions) == 2:
            found = col_length(node.expressions[0], node.expressions[1], ctx)
        else:
            found = None
    return found if found is not None else node


REWRITES = (catalog_functions,)
