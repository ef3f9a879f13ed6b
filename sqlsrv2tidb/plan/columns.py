"""Column definitions for TiDB: type, collation, nullability, identity, default and computed value.

Every decision that changes or drops something becomes a finding on the column with the file and
line it was defined at. Defaults follow TiDB's rules for DEFAULT: literals, CURRENT_TIMESTAMP on
date-time columns, NEXT VALUE FOR on integers, UUID() on strings; no literal default on TEXT/BLOB
(https://docs.pingcap.com/tidb/stable/data-type-default-values). MySQL 8.0.13 and later also take an
expression in parentheses, TEXT/BLOB columns included
(https://dev.mysql.com/doc/refman/8.4/en/data-type-defaults.html). A computed column becomes a
generated column, STORED when SQL Server persisted it (https://docs.pingcap.com/tidb/stable/generated-columns),
and on MySQL also when the primary key holds it (MySQL refuses a virtual column there, error 3106).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date, timedelta

from ..model import Column, Database, Finding, Severity, Table
from ..model.plan import ColumnPlan
from ..options import Options, Version
from ..translate.ddl import ColumnDef
from ..translate.identifiers import fit, sql_name
from ..translate.naming import NameMap
from ..translate.types import MappedType, TypeInfo, TypeMapper, type_info
from .expressions import constant_value, translate_ddl_expression
from .identity import AUTO_RANDOM_BITS, IdentityPlan, SequencePlan, sequence_reference

# Severity of each type-loss rule, as in its YAML in rules/types/.
TYPE_LOSS_SEVERITY = {
    "TY01": Severity.LOW, "TY02": Severity.MEDIUM, "TY03": Severity.LOW, "TY04": Severity.MEDIUM,
    "TY05": Severity.INFO, "TY06": Severity.HIGH, "TY07": Severity.MEDIUM, "TY08": Severity.HIGH,
    "TY09": Severity.HIGH, "TY10": Severity.HIGH, "TY14": Severity.LOW,
}

UNKNOWN_TYPES = ("sql_variant",)
"""What the script reader records for a computed column whose type SQL Server derives from the expression."""

_TIME_FUNCS = ("CURRENT_TIMESTAMP", "NOW", "LOCALTIME", "LOCALTIMESTAMP", "UTC_TIMESTAMP", "SYSDATE")
EXPRESSION_DEFAULTS_SINCE = Version(8, 0, 13)
"""MySQL takes `DEFAULT (expr)`, on any column type, from 8.0.13."""
_NOT_IN_DEFAULT = re.compile(r"\bSELECT\b|@|\?|__sqlsrv2tidb_param_", re.I)
"""What MySQL refuses in an expression default: subqueries, variables, parameters."""


@dataclass
class BuiltColumn:
    column: Column
    name: str
    """The TiDB name, unquoted."""
    mapped: MappedType
    ddl: ColumnDef
    plan: ColumnPlan
    info: TypeInfo


@dataclass
class ColumnBuilder:
    database: Database
    names: NameMap
    options: Options
    mapper: TypeMapper
    sequences: dict[tuple[str, str], SequencePlan] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)

    def build(self, table: Table, identity: IdentityPlan | None, table_collation: str) -> list[BuiltColumn]:
        out = []
        for column in table.columns:
            built = self._column(table, column, identity, table_collation)
            if built is not None:
                out.append(built)
        return out

    def _finding(self, rule: str, severity: Severity, table: Table, column: Column, message: str, **details: object) -> None:
        src = column.source if column.source.file else table.source
        self.findings.append(Finding(rule=rule, severity=severity, object=f"{table.qualified_name}.{column.name}",
                                     message=message, file=src.file, line=src.line, details=dict(details)))

    def _column(self, table: Table, column: Column, identity: IdentityPlan | None,
                table_collation: str) -> BuiltColumn | None:
        key = f"{table.schema}.{table.name}.{column.name}"
        name = fit(column.name)
        if name != column.name:
            self._finding("TY21", Severity.MEDIUM, table, column,
                          f"column name is {len(column.name)} characters; {self.options.engine_name} allows 64, so it "
                          f"becomes {name} "
                          f"(queries that name it must use the new name)")
        is_identity = identity is not None and identity.column.casefold() == column.name.casefold()
        mapped = self.mapper.map_type(column.type, column_key=key)
        notes: list[str] = []
        if mapped.override:
            notes.append(f"type from {mapped.override}")
        elif column.computed is None:  # a computed value's losses are its operands' losses
            for loss in mapped.losses:
                self._finding(loss.rule, TYPE_LOSS_SEVERITY.get(loss.rule, Severity.MEDIUM), table, column, loss.message)
        target = mapped.target
        if is_identity and identity is not None:
            target = self._identity_type(table, column, identity, target)
        info = type_info(target)
        nullable = column.nullable and not is_identity
        if column.type.name.casefold() in ("rowversion", "timestamp") and not mapped.override:
            nullable = True  # nothing fills it in any more
        collate = None
        if info.is_string:
            collation = self.mapper.map_collation(column.collation) if column.collation else None
            if collation is not None and collation.target != table_collation:
                collate = collation.target
        auto = default = generated = None
        kind = None
        if is_identity and identity is not None:
            kind = identity.kind
            if identity.kind == "auto_increment":
                auto = "AUTO_INCREMENT"
            elif identity.kind == "auto_random":
                auto = f"/*T![auto_rand] AUTO_RANDOM({AUTO_RANDOM_BITS}) */"
            elif identity.sequence is not None:
                default = f"DEFAULT NEXT VALUE FOR {identity.sequence.target}"
        elif column.computed is not None:
            generated, target, info = self._computed(table, column, target, info, identity)
            if generated is None:
                return None
            nullable = True  # MariaDB allows no NOT NULL on a generated column; its value decides
        elif column.generated_always is not None:
            # A temporal table's period column: SQL Server fills it; TiDB has no system versioning.
            default = "DEFAULT CURRENT_TIMESTAMP(6)" if column.generated_always == "row_start" else "DEFAULT '9999-12-31 23:59:59.999999'"
            target, info = "DATETIME(6)", type_info("DATETIME(6)")
            notes.append(f"period column ({column.generated_always}) of a temporal table: a plain column with a default")
        elif column.default is not None:
            default = self._default(table, column, info, target)
            if default and default.startswith("DEFAULT NEXT VALUE FOR"):
                kind = "sequence"
        comment = _string_literal(column.description[:1024]) if column.description else None
        ddl = ColumnDef(sql_name(name), target, collate, nullable, auto, default, generated, comment)
        plan = ColumnPlan(name, mapped.source, target, nullable, kind,  # type: ignore[arg-type]
                          default.removeprefix("DEFAULT ") if default else None, tuple(notes))
        return BuiltColumn(column, name, mapped, ddl, plan, info)

    def _identity_type(self, table: Table, column: Column, identity: IdentityPlan, target: str) -> str:
        if identity.kind == "auto_random" or identity.widen_to_bigint:
            return "BIGINT"
        if column.type.name.casefold() in ("decimal", "numeric"):
            # AUTO_INCREMENT needs an integer type; SQL Server allows IDENTITY on decimal(p,0).
            self._finding("ID06", Severity.LOW, table, column,
                          f"IDENTITY on {column.type} becomes BIGINT AUTO_INCREMENT ({self.options.engine_name} "
                          f"increments integers only)")
            return "BIGINT"
        return target

    # Defaults -------------------------------------------------------------------------------

    def _default(self, table: Table, column: Column, info: TypeInfo, target: str) -> str | None:
        ref = sequence_reference(column.default)
        if ref is not None:
            seq = self.database.sequence(ref[0], ref[1])
            plan = self.sequences.get((seq.schema.casefold(), seq.name.casefold())) if seq else None
            if plan is None:
                self._finding("TY18", Severity.MEDIUM, table, column,
                              f"default {column.default} names a sequence that is not in the schema; the default is left out")
                return None
            if plan.form == "table":
                return None  # MySQL: a sequence table, whose finding (MY02) names this column
            if info.family != "integer":
                self._finding("TY18", Severity.MEDIUM, table, column,
                              f"default {column.default} on a {target} column: {self.options.engine_name} allows NEXT "
                              f"VALUE FOR on integer "
                              f"columns only; the default is left out")
                return None
            return f"DEFAULT NEXT VALUE FOR {plan.target}"
        assert column.default is not None
        text, notes = translate_ddl_expression(column.default, database=self.database, table=table, names=self.names,
                                               options=self.options)
        if text is None:
            why = "; ".join(notes) or f"no {self.options.engine_name} equivalent"
            self._finding("TY18", Severity.MEDIUM, table, column,
                          f"default {column.default} cannot be translated ({why}); it is left out of the DDL")
            return None
        constant = constant_value(text)
        value = constant if constant is not None else unparen(text)
        if constant is not None and constant.upper() == "NULL":
            return None
        func = re.match(r"^([A-Z_]+)\s*\((.*)\)$", value, re.I | re.S) or re.match(r"^([A-Z_]+)$", value, re.I)
        name = func[1].upper() if func else ""
        clock = name in _TIME_FUNCS and info.family == "datetime"
        if self._expression_defaults and not clock and not _NOT_IN_DEFAULT.search(value):
            # MySQL 8.0.13+: any expression in parentheses, on TEXT/BLOB columns too.
            if constant is None:
                return f"DEFAULT ({value})"
            literal = self._literal_for(constant, info, column)
            return f"DEFAULT ({literal})" if info.is_lob else f"DEFAULT {literal}"
        if info.is_lob:
            self._finding("TY17", Severity.MEDIUM if not column.nullable else Severity.LOW, table, column,
                          f"default {column.default} on a {target} column is left out: "
                          + ("MySQL before 8.0.13 allows no default on TEXT/BLOB/JSON" if self.options.mysql else
                             "TiDB before v8.0 allows no default on TEXT/BLOB/JSON and later versions only expression "
                             "defaults")
                          + "; inserts that omit the column must now supply it")
            return None
        if constant is not None:
            return "DEFAULT " + self._literal_for(constant, info, column)
        if clock:
            if name == "UTC_TIMESTAMP":
                self._finding("TY19", Severity.LOW, table, column,
                              f"default {column.default} (UTC) becomes CURRENT_TIMESTAMP, which is in the session "
                              f"time zone: run the {self.options.engine_name} connections with time_zone = '+00:00' to "
                              f"keep UTC values")
            return f"DEFAULT CURRENT_TIMESTAMP({info.fsp})" if info.fsp else "DEFAULT CURRENT_TIMESTAMP"
        if name == "UUID" and info.family == "string" and (info.length or 0) >= 36:
            return "DEFAULT (UUID())"
        if name == "UUID" and info.family == "binary" and info.length == 16:
            # UUID_TO_BIN is TiDB/MySQL 8 only; MariaDB reads the comment and leaves no default.
            return "DEFAULT (UUID_TO_BIN(UUID()))" if self.options.mysql else "/*T! DEFAULT (UUID_TO_BIN(UUID())) */"
        self._finding("TY18", Severity.MEDIUM, table, column,
                      f"default {column.default} translates to {text}, which {self.options.engine_name} does not allow "
                      f"as a default on a "
                      f"{target} column; it is left out of the DDL")
        return None

    @property
    def _expression_defaults(self) -> bool:
        return self.options.mysql and self.options.mysql_version >= EXPRESSION_DEFAULTS_SINCE

    def _literal_for(self, value: str, info: TypeInfo, column: Column) -> str:
        if info.family in ("datetime", "date") and re.match(r"^-?\s*\d+(?:\.\d*)?$", value):
            # SQL Server reads a number as days after 1900-01-01; MySQL would store a zero date.
            day = date(1900, 1, 1) + timedelta(days=int(float(value.replace(" ", ""))))
            return f"'{day.isoformat()}'" if info.family == "date" else f"'{day.isoformat()} 00:00:00'"
        if info.family == "integer" and value.startswith("'") and re.match(r"^'-?\d+'$", value):
            return value.strip("'")
        del column
        return value

    # Computed columns -----------------------------------------------------------------------

    def _computed(self, table: Table, column: Column, target: str, info: TypeInfo,
                  identity: IdentityPlan | None) -> tuple[str | None, str, TypeInfo]:
        assert column.computed is not None
        if identity is not None and identity.kind != "sequence" and re.search(
                r"(?<![\w$#@])\[?" + re.escape(identity.column) + r"\]?(?![\w$#@])", column.computed.expression, re.I):
            # https://docs.pingcap.com/tidb/stable/generated-columns#limitations (error 3109, as in MySQL)
            self._finding("TY20", Severity.MEDIUM, table, column,
                          f"computed column AS {column.computed.expression} uses the identity column {identity.column}; "
                          f"{self.options.engine_name} cannot compute a generated column from an AUTO_INCREMENT or "
                          f"AUTO_RANDOM column, so it "
                          f"is left out of the DDL: compute it in queries or the application")
            return None, target, info
        text, notes = translate_ddl_expression(column.computed.expression, database=self.database, table=table,
                                               names=self.names, options=self.options)
        if text is None:
            why = "; ".join(notes) or f"no {self.options.engine_name} equivalent"
            self._finding("TY20", Severity.MEDIUM, table, column,
                          f"computed column AS {column.computed.expression} cannot be expressed in "
                          f"{self.options.engine_name} ({why}); the "
                          f"column is left out of the DDL: compute it in queries or the application")
            return None, target, info
        if column.type.name.casefold() in UNKNOWN_TYPES or column.type.name.casefold() not in self.mapper.types:
            inferred = infer_type(text, table, self.mapper)
            if inferred is None:
                self._finding("TY20", Severity.MEDIUM, table, column,
                              f"computed column AS {column.computed.expression}: its type cannot be inferred; the "
                              f"column is left out of the DDL")
                return None, target, info
            target, info = inferred, type_info(inferred)
        in_primary_key = table.primary_key is not None and any(
            c.name.casefold() == column.name.casefold() for c in table.primary_key.columns)
        # MySQL refuses a virtual generated column in the primary key (error 3106); SQL Server keys one it computes.
        stored = column.computed.persisted or (self.options.mysql and in_primary_key)
        return f"({unparen(text)}) {'STORED' if stored else 'VIRTUAL'}", target, info


def infer_type(expression: str, table: Table, mapper: TypeMapper) -> str | None:
    """The MySQL type of a translated expression over `table`'s columns, via sqlglot's type annotation."""
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError
    from sqlglot.optimizer.annotate_types import annotate_types

    schema = {c.name.casefold(): mapper.map_type(c.type).target for c in table.columns if c.computed is None}

    def typed_column(node: exp.Expression) -> exp.Expression:
        # A column stands for a typed value; annotate_types would otherwise ask a schema for it.
        if isinstance(node, exp.Column) and node.name.casefold() in schema:
            return exp.cast(exp.null(), exp.DataType.build(schema[node.name.casefold()], dialect="mysql"))
        return node

    try:
        tree = sqlglot.parse_one(expression, read="mysql").transform(typed_column)
        typed = annotate_types(tree, dialect="mysql")
    except (SqlglotError, ValueError, KeyError):
        return None
    dtype = typed.type
    if dtype is None or dtype.this in (exp.DataType.Type.UNKNOWN, exp.DataType.Type.NULL):
        length = _string_length(typed, table, mapper)
        return _varchar(length) if length is not None else None
    if dtype.this in (exp.DataType.Type.VARCHAR, exp.DataType.Type.TEXT, exp.DataType.Type.CHAR) and not dtype.expressions:
        return _varchar(_string_length(typed, table, mapper) or 4000)
    if dtype.this == exp.DataType.Type.DECIMAL and not dtype.expressions:
        return "DECIMAL(38,6)"
    return dtype.sql(dialect="mysql")


def _varchar(length: int) -> str:
    return f"VARCHAR({length})" if length <= MAX_VARCHAR else "LONGTEXT"


MAX_VARCHAR = 16383
"""TiDB's VARCHAR limit in utf8mb4 characters (https://docs.pingcap.com/tidb/stable/tidb-limitations)."""
_UNBOUNDED = 1 << 31
"""A TEXT operand: the result can be as long as the text."""

# SQL Server's JSON_VALUE returns nvarchar(4000): https://learn.microsoft.com/sql/t-sql/functions/json-value-transact-sql
_JSON_TEXT = 4000
_SAME_LENGTH = {"UPPER", "LOWER", "TRIM", "LTRIM", "RTRIM", "REVERSE", "UCASE", "LCASE"}
_LONGEST_ARGUMENT = {"COALESCE", "IFNULL", "IF", "NULLIF", "GREATEST", "LEAST"}


def _string_length(node, table: Table, mapper: TypeMapper) -> int | None:
    """Characters a string expression can hold, when its parts say so (None: not a string expression)."""
    from sqlglot import exp

    if isinstance(node, exp.Paren):
        return _string_length(node.this, table, mapper)
    if isinstance(node, exp.Literal):
        return max(len(node.this), 1) if node.is_string else len(node.this)
    if isinstance(node, exp.National):
        return max(len(node.this), 1)
    if isinstance(node, exp.Cast):
        info = type_info(node.to.sql(dialect="mysql"))
        if info.family == "text":
            return _UNBOUNDED
        return info.length if info.family == "string" else None
    if isinstance(node, exp.Column):
        column = table.column(node.name)
        info = type_info(mapper.map_type(column.type).target) if column is not None else None
        if info is not None and info.family == "text":
            return _UNBOUNDED
        return info.length if info is not None and info.family == "string" else None
    name = node.sql_name().upper() if isinstance(node, exp.Func) and not isinstance(node, exp.Anonymous) else (
        node.name.upper() if isinstance(node, exp.Anonymous) else "")
    if name.startswith("JSON") or isinstance(node, (exp.JSONExtract, exp.JSONExtractScalar)):
        return _JSON_TEXT
    args = [a for a in node.iter_expressions()] if isinstance(node, exp.Func) else []
    lengths = [_string_length(a, table, mapper) for a in args]
    if name in ("CONCAT", "CONCAT_WS") or isinstance(node, (exp.Concat, exp.DPipe)):
        return min(sum(n for n in lengths if n is not None), _UNBOUNDED) or None
    if name in _LONGEST_ARGUMENT or isinstance(node, (exp.Coalesce, exp.If, exp.Case)):
        known = [n for n in lengths if n is not None]
        return max(known) if known else None
    if name in _SAME_LENGTH and lengths:
        return lengths[0]
    return None


def unparen(text: str) -> str:
    text = text.strip()
    while text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
        text = text[1:-1].strip()
    return text


def _balanced(text: str) -> bool:
    depth, quote = 0, None
    for ch in text:
        if quote:
            if ch == quote:
                quote = None
            continue
        if ch in "'\"`":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


def _string_literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "''") + "'"


def shrink_row(columns: list[BuiltColumn], keep: set[str], table: Table, findings: list[Finding],
               limit: int = 65000) -> list[BuiltColumn]:
    """Turn the widest VARCHAR columns into TEXT until the row fits MySQL's 65,535-byte limit.

    TiDB itself does not enforce that limit (pingcap/tidb#24728), but the same DDL must also run on
    MySQL and MariaDB, and TEXT costs TiDB nothing: both are stored inline in the row.
    `keep` holds folded names of columns used in keys, which must stay VARCHAR.
    """
    total = sum(c.info.row_bytes for c in columns)
    if total <= limit:
        return columns
    changed = []
    order = sorted((c for c in columns if c.info.family == "string" and c.name.casefold() not in keep
                    and c.column.computed is None and c.ddl.default is None),
                   key=lambda c: -c.info.row_bytes)
    for col in order:
        if total <= limit:
            break
        total -= col.info.row_bytes - 12
        new_type = "TEXT" if (col.info.length or 0) <= 16383 else "MEDIUMTEXT"
        col.ddl = replace(col.ddl, type=new_type)
        col.plan = replace(col.plan, target_type=new_type, notes=(*col.plan.notes, "TEXT to fit the 65,535-byte row"))
        col.info = type_info(new_type)
        changed.append(f"{col.name} ({col.mapped.target})")
    if changed:
        findings.append(Finding(
            rule="TY15", severity=Severity.LOW, object=table.qualified_name,
            message=f"the row would exceed MySQL's 65,535-byte limit (utf8mb4 takes 4 bytes per character), so "
                    f"{', '.join(changed)} become TEXT; TiDB stores them the same way",
            file=table.source.file, line=table.source.line,
        ))
    return columns
