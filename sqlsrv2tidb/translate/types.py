"""SQL Server column types and collations mapped to TiDB, from data a user can read and override.

The mapping itself lives in `rules/mappings/types.yaml` and `rules/mappings/collations.yaml`
(found through `resources`, so a `--rules` folder can replace them); this module only applies it.
Every mapping that loses something (precision, a time zone, methods, size) says so as a `TypeLoss`
naming a TY rule, and the planner turns each into a finding on the column. A `--config` file can
override a type for every column (`types:`) or for one column (`columns:`).

    >>> m = TypeMapper.builtin()
    >>> m.map_type(DataType("datetime2", scale=7)).target
    'DATETIME(6)'
    >>> [loss.rule for loss in m.map_type(DataType("datetimeoffset")).losses]
    ['TY02', 'TY01']
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ..errors import InputError
from ..model import DataType
from ..resources import find_file

TYPE_LOSS_RULES = ("TY01", "TY02", "TY03", "TY04", "TY05", "TY06", "TY07", "TY08", "TY09", "TY10", "TY14", "TY27")
"""The codes the type map may raise; a mapping file naming any other code is rejected."""

MAX_FSP = 6
"""TiDB keeps at most microseconds: https://docs.pingcap.com/tidb/stable/data-type-date-and-time"""


@dataclass(frozen=True)
class TypeLoss:
    rule: str
    message: str


@dataclass(frozen=True)
class MappedType:
    source: str
    """The SQL Server type as the user knows it: `nvarchar(50)`, or `dbo.Name (nvarchar(50))` for an alias."""
    target: str
    losses: tuple[TypeLoss, ...] = ()
    override: str | None = None
    """Where an override came from: `columns: dbo.t.c` or `types: uniqueidentifier`; None for the built-in map."""

    @property
    def info(self) -> TypeInfo:
        return type_info(self.target)


@dataclass(frozen=True)
class TypeInfo:
    """What the DDL generator needs to know about a TiDB type to respect MySQL/TiDB limits."""

    family: str
    """string, text, binary, blob, integer, decimal, float, datetime, date, time, json, other."""
    row_bytes: int
    """Bytes the column counts against MySQL's 65,535-byte row limit (TEXT/BLOB count 12)."""
    key_bytes: int | None
    """Bytes one value takes in an index key; None for TEXT/BLOB/JSON, which need a prefix length."""
    length: int | None = None
    fsp: int | None = None

    @property
    def is_string(self) -> bool:
        return self.family in ("string", "text")

    @property
    def is_lob(self) -> bool:
        """TEXT, BLOB and JSON: no literal DEFAULT, and an index needs a prefix length."""
        return self.family in ("text", "blob", "json")


_INT_BYTES = {"TINYINT": 1, "SMALLINT": 2, "MEDIUMINT": 3, "INT": 4, "INTEGER": 4, "BIGINT": 8}
_LOB = {"TINYTEXT": "text", "TEXT": "text", "MEDIUMTEXT": "text", "LONGTEXT": "text",
        "TINYBLOB": "blob", "BLOB": "blob", "MEDIUMBLOB": "blob", "LONGBLOB": "blob", "JSON": "json"}
_SINGLE_BYTE = re.compile(r"\bCHARACTER\s+SET\s+(?:ascii|latin1)\b", re.I)
"""A string type whose characters take one byte each (the hierarchyid path's ASCII)."""
_TYPE_RE = re.compile(r"^\s*([A-Za-z]+)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?", re.S)


@functools.lru_cache(maxsize=512)
def type_info(target: str) -> TypeInfo:
    """Sizes of a TiDB type written as DDL text (utf8mb4 strings take 4 bytes per character).

    https://dev.mysql.com/doc/refman/8.0/en/storage-requirements.html
    """
    m = _TYPE_RE.match(target)
    name = m[1].upper() if m else target.strip().upper()
    a = int(m[2]) if m and m[2] else None
    if name in _INT_BYTES:
        return TypeInfo("integer", _INT_BYTES[name], _INT_BYTES[name])
    if name in ("BOOL", "BOOLEAN"):
        return TypeInfo("integer", 1, 1)
    if name in ("DECIMAL", "NUMERIC", "DEC"):
        size = (a or 10) // 2 + 1
        return TypeInfo("decimal", size, size)
    if name in ("FLOAT", "REAL"):
        return TypeInfo("float", 4, 4)
    if name == "DOUBLE":
        return TypeInfo("float", 8, 8)
    if name in ("DATETIME", "TIMESTAMP"):
        fsp = a or 0
        return TypeInfo("datetime", 5 + (fsp + 1) // 2, 5 + (fsp + 1) // 2, fsp=fsp)
    if name == "DATE":
        return TypeInfo("date", 3, 3)
    if name == "TIME":
        fsp = a or 0
        return TypeInfo("time", 3 + (fsp + 1) // 2, 3 + (fsp + 1) // 2, fsp=fsp)
    if name in ("CHAR", "VARCHAR"):
        n = a if a is not None else 1
        extra = 2 if name == "VARCHAR" else 0
        width = 1 if _SINGLE_BYTE.search(target) else 4
        return TypeInfo("string", n * width + extra, n * width, length=n)
    if name in ("BINARY", "VARBINARY"):
        n = a if a is not None else 1
        extra = 2 if name == "VARBINARY" else 0
        return TypeInfo("binary", n + extra, n, length=n)
    if name in _LOB:
        return TypeInfo(_LOB[name], 12, None)
    if name == "BIT":
        return TypeInfo("integer", 8, 8)
    if name in ("YEAR",):
        return TypeInfo("integer", 1, 1)
    return TypeInfo("other", 8, 8)


CASE_INSENSITIVE_COLLATION = "case_insensitive_collation"
"""The name in `Options.skip_rewrites` that leaves out the mapping of SQL Server's case-insensitive
collations to a case-insensitive TiDB one: such a column then gets TiDB's own utf8mb4 default,
`utf8mb4_bin`, and compares case-sensitively (what a migration that keeps no collation gets)."""
TIDB_DEFAULT_COLLATION = "utf8mb4_bin"


@dataclass(frozen=True)
class CollationMapping:
    source: str
    target: str
    kind: str
    """case_insensitive, case_sensitive, binary or unknown."""
    assumed: bool = False
    """True when no collation was given anywhere and SQL Server's install default was assumed."""
    override: bool = False
    switched_off: bool = False
    """A case-insensitive collation given TiDB's default because `case_insensitive_collation` is skipped."""


def _load_yaml(relative: str, override: Path | None) -> tuple[Path, Any]:
    path = find_file("rules", relative, override)
    try:
        return path, yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise InputError(f"{path}: not valid YAML ({getattr(exc, 'problem', exc)})") from None


class TypeMapper:
    """Applies the type and collation maps, with the user's overrides on top.

    `type_overrides` maps a folded SQL Server type or alias name (`uniqueidentifier`, `dbo.name`)
    to TiDB DDL text; `column_overrides` maps a folded `schema.table.column`.
    """

    def __init__(
        self,
        rules_dir: Path | None = None,
        *,
        type_overrides: dict[str, str] | None = None,
        column_overrides: dict[str, str] | None = None,
        collation_overrides: dict[str, str] | None = None,
        skip_rewrites: frozenset[str] = frozenset(),
        engine: str = "tidb",
    ) -> None:
        """`engine`: `tidb`, or `mysql` for MySQL's own collation targets (the `mysql:` section of collations.yaml)."""
        self.types_file, self.types = _load_yaml("mappings/types.yaml", rules_dir)
        self.collations_file, self.collations = _load_yaml("mappings/collations.yaml", rules_dir)
        self.type_overrides = {k.casefold(): v for k, v in (type_overrides or {}).items()}
        self.column_overrides = {k.casefold(): v for k, v in (column_overrides or {}).items()}
        self.collation_overrides = {k.casefold(): v for k, v in (collation_overrides or {}).items()}
        self.used_overrides: set[str] = set()
        self.keep_case_insensitive = CASE_INSENSITIVE_COLLATION not in skip_rewrites
        self.engine = engine
        self._validate()

    @classmethod
    def builtin(cls, engine: str = "tidb") -> TypeMapper:
        return _builtin(engine)

    def _validate(self) -> None:
        if not isinstance(self.types, dict):
            raise InputError(f"{self.types_file}: expected a mapping of SQL Server type names")
        for name, entry in self.types.items():
            if not isinstance(entry, dict) or not isinstance(entry.get("target"), str):
                raise InputError(f"{self.types_file}: entry {name!r} needs a `target` type")
            for loss in [*entry.get("losses", ()), *(x for v in entry.get("variants", ()) for x in v.get("losses", ()))]:
                if loss.get("rule") not in TYPE_LOSS_RULES:
                    raise InputError(f"{self.types_file}: entry {name!r} names unknown rule {loss.get('rule')!r}")

    # Types ----------------------------------------------------------------------------------

    def map_type(self, dt: DataType, *, column_key: str | None = None) -> MappedType:
        """The TiDB type of a column of SQL Server type `dt`; `column_key` is `schema.table.column`."""
        source = str(dt) if not dt.alias else f"{dt.alias} ({dt})"
        if column_key is not None and column_key.casefold() in self.column_overrides:
            key = column_key.casefold()
            self.used_overrides.add(f"columns:{key}")
            return MappedType(source, self.column_overrides[key], override=f"columns: {column_key}")
        for key in self._type_keys(dt):
            if key in self.type_overrides:
                self.used_overrides.add(f"types:{key}")
                return MappedType(source, self.type_overrides[key], override=f"types: {key}")
        entry = self.types.get(dt.name.casefold())
        if entry is None:
            return MappedType(source, "LONGTEXT", (TypeLoss("TY08", f"{dt} is not a type sqlsrv2tidb knows; it is kept as LONGTEXT"),))
        params = self._params(dt, entry)
        target, losses = entry["target"], list(entry.get("losses", ()))
        for variant in entry.get("variants", ()):
            if _matches(variant.get("when", {}), dt, params):
                target = variant["target"]
                losses = list(variant.get("losses", ())) + losses
                break
        found = tuple(
            TypeLoss(loss["rule"], self._loss_message(loss).format(type=str(dt), **params))
            for loss in losses
            if _matches(loss.get("when", {}), dt, params)
        )
        return MappedType(source, target.format(**params), found)

    def _loss_message(self, loss: dict[str, Any]) -> str:
        """The loss as the target engine has it: TiDB's text, or for MySQL its `mysql_message` (where MySQL differs)
        or TiDB's with MySQL named (the same limit: DATETIME's microseconds, CHAR's 255, no XML type, ...)."""
        if self.engine != "mysql":
            return str(loss["message"])
        return str(loss.get("mysql_message") or str(loss["message"]).replace("TiDB", "MySQL"))

    @staticmethod
    def _type_keys(dt: DataType) -> list[str]:
        keys = []
        if dt.alias:
            keys.append(dt.alias.casefold())
            keys.append(dt.alias.split(".")[-1].casefold())
        keys.append(dt.name.casefold())
        return keys

    @staticmethod
    def _params(dt: DataType, entry: dict[str, Any]) -> dict[str, Any]:
        defaults = entry.get("defaults", {})
        length = dt.length if dt.length is not None else defaults.get("length")
        precision = dt.precision if dt.precision is not None else defaults.get("precision")
        scale = dt.scale if dt.scale is not None else defaults.get("scale")
        if dt.name.casefold() in ("decimal", "numeric") and dt.precision is not None and dt.scale is None:
            scale = 0
        fsp = min(scale, MAX_FSP) if isinstance(scale, int) else 0
        return {"length": length, "precision": precision, "scale": scale, "fsp": fsp}

    # Collations -----------------------------------------------------------------------------

    @property
    def charset(self) -> str:
        return str(self.collations.get("charset", "utf8mb4"))

    def map_collation(self, name: str | None) -> CollationMapping:
        """The TiDB collation for a SQL Server collation (None: SQL Server's install default)."""
        assumed = name is None
        source = name or str(self.collations.get("assumed_source", "SQL_Latin1_General_CP1_CI_AS"))
        kind = "unknown"
        for rule in self.collations.get("classes", ()):
            if re.search(rule["pattern"], source, re.I):
                kind = rule["class"]
                break
        if kind == "case_insensitive" and not self.keep_case_insensitive:
            return CollationMapping(source, TIDB_DEFAULT_COLLATION, kind, assumed, switched_off=True)
        for key in (source.casefold(), kind):
            if key in self.collation_overrides:
                self.used_overrides.add(f"collations:{key}")
                return CollationMapping(source, self.collation_overrides[key], kind, assumed, override=True)
        target = self._engine_section.get("targets", {}).get(kind, "utf8mb4_bin")
        return CollationMapping(source, target, kind, assumed)

    @property
    def _engine_section(self) -> dict[str, Any]:
        """The collation targets of the target engine: the top level for TiDB, `mysql:` for MySQL."""
        if self.engine == "mysql" and isinstance(self.collations.get("mysql"), dict):
            return self.collations["mysql"]
        return self.collations

    @property
    def allowed_collations(self) -> tuple[str, ...]:
        return tuple(self._engine_section.get("allowed", ()))


@functools.cache
def _builtin(engine: str) -> TypeMapper:
    """The built-in maps, read once per engine (no overrides: safe to share)."""
    return TypeMapper(engine=engine)


def _matches(when: dict[str, Any], dt: DataType, params: dict[str, Any]) -> bool:
    for key, value in when.items():
        if key == "max":
            if bool(dt.is_max) != bool(value):
                return False
        elif key == "length_gt":
            if dt.is_max or params.get("length") is None or params["length"] <= value:
                return False
        elif key == "scale_gt":
            if params.get("scale") is None or params["scale"] <= value:
                return False
        elif key == "precision_le":
            if params.get("precision") is None or params["precision"] > value:
                return False
        else:
            raise InputError(f"types.yaml: unknown condition {key!r}")
    return True


def validate_tidb_type(text: str) -> str | None:
    """Why `text` is not a usable TiDB column type, or None when it is (checked with sqlglot's MySQL parser)."""
    from sqlglot import exp
    from sqlglot.errors import ParseError

    try:
        parsed = exp.DataType.build(text, dialect="mysql")
    except (ParseError, ValueError) as exc:
        return str(exc).splitlines()[0]
    name = _TYPE_RE.match(text)
    if name is None or name[1].upper() not in TIDB_TYPE_NAMES or parsed.this == exp.DataType.Type.USERDEFINED:
        return f"{text!r} is not a TiDB column type"
    if name[1].upper() in ("VARCHAR", "VARBINARY") and not name[2]:
        return f"{name[1].upper()} needs a length"
    return None


# https://docs.pingcap.com/tidb/stable/data-type-overview
TIDB_TYPE_NAMES = frozenset(
    "TINYINT SMALLINT MEDIUMINT INT INTEGER BIGINT DECIMAL NUMERIC DEC FLOAT DOUBLE REAL BIT BOOL BOOLEAN "
    "DATE DATETIME TIMESTAMP TIME YEAR CHAR VARCHAR BINARY VARBINARY TINYTEXT TEXT MEDIUMTEXT LONGTEXT "
    "TINYBLOB BLOB MEDIUMBLOB LONGBLOB ENUM SET JSON".split()
)
