"""Column types: reading `nvarchar(50)`, `[dbo].[Name]` or `xml(CONTENT x)` and reducing them to system types.

The model keeps what the live catalog would report (sys.columns joined to sys.types), so a script
and a server give the same `DataType`: lengths in characters, `(max)` as MAX, decimal defaulting
to (18,0), time/datetime2/datetimeoffset defaulting to scale 7, `float(n)` with n <= 24 being
`real`, and an alias type reduced to its base type with `alias="schema.name"`.
https://learn.microsoft.com/sql/t-sql/data-types/data-types-transact-sql
https://learn.microsoft.com/sql/t-sql/statements/create-type-transact-sql
"""

from __future__ import annotations

import re

from ...model import MAX, DataType
from .actions import TypeSpec
from .cursor import Cursor, ParseError
from .tokens import NUMBER, WORD, Source, tokenize

SYSTEM_TYPES = frozenset({
    "bigint", "int", "smallint", "tinyint", "bit", "decimal", "numeric", "money", "smallmoney", "float", "real",
    "date", "time", "datetime", "datetime2", "datetimeoffset", "smalldatetime", "char", "varchar", "text", "nchar",
    "nvarchar", "ntext", "binary", "varbinary", "image", "timestamp", "rowversion", "hierarchyid",
    "uniqueidentifier", "sql_variant", "xml", "geometry", "geography", "sysname", "json", "vector",
})
# ISO synonyms SQL Server accepts and stores as the system type
# (https://learn.microsoft.com/sql/t-sql/data-types/data-type-synonyms-transact-sql).
SYNONYMS = {
    "integer": "int", "dec": "decimal", "character": "char", "double precision": "float",
    "char varying": "varchar", "character varying": "varchar", "national character": "nchar",
    "national char": "nchar", "national character varying": "nvarchar", "national char varying": "nvarchar",
    "national text": "ntext", "binary varying": "varbinary",
}
_LENGTH_TYPES = frozenset({"char", "varchar", "nchar", "nvarchar", "binary", "varbinary"})
_FRACTIONAL_SECONDS = frozenset({"time", "datetime2", "datetimeoffset"})


def parse_type(cur: Cursor) -> TypeSpec:
    """Read a type at the cursor: a possibly qualified name, multi-word ISO synonyms, and `(args)`."""
    first = cur.peek()
    parts = cur.qualified_name()
    if len(parts) == 1 and first is not None and first.kind == WORD:
        word = parts[0].lower()
        if word == "double" and cur.accept("PRECISION"):
            parts = ("double precision",)
        elif word == "national" and (second := cur.accept("CHARACTER", "CHAR", "TEXT")):
            parts = (f"national {second.text.lower()}",)
            if second.value != "TEXT" and cur.accept("VARYING"):
                parts = (parts[0] + " varying",)
        elif word in ("character", "char", "binary") and cur.accept("VARYING"):
            parts = (f"{word} varying",)
    spec = TypeSpec(parts, token=first)
    if not cur.at_op("("):
        return spec
    if _system_name(parts) == "xml":
        cur.expect_op("(")
        cur.accept("CONTENT", "DOCUMENT")
        spec.xml_schema = cur.qualified_name()
        cur.expect_op(")")
        return spec
    cur.expect_op("(")
    args: list[int | str] = []
    while True:
        tok = cur.next()
        if tok.kind == NUMBER:
            args.append(int(float(tok.text)))
        elif tok.is_word("MAX"):
            args.append("max")
        else:
            raise ParseError(f"unexpected {tok.text!r} in the arguments of type {'.'.join(parts)}", tok)
        if cur.accept_op(")"):
            break
        cur.expect_op(",")
    spec.args = tuple(args)
    return spec


def _system_name(parts: tuple[str, ...]) -> str | None:
    """The system type a name spells (`[int]`, `sys.int`, `INTEGER`), or None for a user type."""
    if len(parts) == 2 and parts[0].lower() != "sys":
        return None
    if len(parts) > 2:
        return None
    name = parts[-1].lower()
    name = SYNONYMS.get(name, name)
    return name if name in SYSTEM_TYPES else None


def system_type(spec: TypeSpec) -> DataType | None:
    """The DataType of a system type spec, or None if the spec names a user-defined type."""
    name = _system_name(spec.name)
    if name is None:
        return None
    args = spec.args

    def arg(i: int, default: int | None) -> int | None:
        if len(args) > i and isinstance(args[i], int):
            return args[i]  # type: ignore[return-value]
        return default

    if name in _LENGTH_TYPES:
        length = MAX if args and args[0] == "max" else arg(0, 1)
        return DataType(name, length=length)
    if name in ("decimal", "numeric"):
        return DataType(name, precision=arg(0, 18), scale=arg(1, 0))
    if name == "float":
        bits = arg(0, 53)
        return DataType("real") if bits is not None and bits <= 24 else DataType("float")
    if name in _FRACTIONAL_SECONDS:
        return DataType(name, scale=arg(0, 7))
    if name == "sysname":
        # sysname is nvarchar(128) NOT NULL, a system-supplied alias
        # (https://learn.microsoft.com/sql/relational-databases/system-catalog-views/sys-types-transact-sql).
        return DataType("nvarchar", length=128, alias="sys.sysname")
    if name == "xml":
        xml_schema = None
        if spec.xml_schema:
            schema, coll = (spec.xml_schema[-2] if len(spec.xml_schema) > 1 else "dbo"), spec.xml_schema[-1]
            xml_schema = f"{schema}.{coll}"
        return DataType("xml", xml_schema=xml_schema)
    if name == "vector":
        return DataType("vector", length=arg(0, None))
    return DataType(name)


def not_null_by_default(data_type: DataType) -> bool:
    """Types SQL Server never lets be NULL whatever the script says: rowversion, and sysname by default."""
    return data_type.name in ("timestamp", "rowversion") or data_type.alias == "sys.sysname"


_CONVERT = re.compile(r"^(?:TRY_)?CONVERT\s*\(\s*(.+?)\s*,", re.IGNORECASE | re.DOTALL)
_CAST = re.compile(r"^(?:TRY_)?CAST\s*\(.*\bAS\s+([^()]+(?:\([^()]*\))?)\s*\)$", re.IGNORECASE | re.DOTALL)
UNKNOWN_COMPUTED = DataType("sql_variant")
"""A computed column's type when the script does not state it: SQL Server derives it from the expression."""


def computed_type(expression: str) -> DataType:
    """The type a computed column's expression states at its top (`CONVERT(bit, ...)`, `CAST(x AS int)`).

    Anything else is derived by SQL Server from the operands, which a script reader cannot do
    reliably, so it is reported as sql_variant ("any type") rather than guessed.
    """
    text = expression.strip()
    while text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
        text = text[1:-1].strip()
    m = _CONVERT.match(text) or _CAST.match(text)
    if m is None:
        return UNKNOWN_COMPUTED
    tokens = list(tokenize(Source("", m.group(1)), [], sqlcmd=False))
    try:
        spec = parse_type(Cursor(tokens))
    except ParseError:
        return UNKNOWN_COMPUTED
    return system_type(spec) or UNKNOWN_COMPUTED


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += 1 if ch == "(" else -1 if ch == ")" else 0
        if depth < 0:
            return False
    return depth == 0
