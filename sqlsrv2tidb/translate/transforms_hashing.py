"""HASHBYTES, CHECKSUM and BINARY_CHECKSUM: SQL Server's hashes written with TiDB's functions.

HASHBYTES hashes the bytes SQL Server stores: an nvarchar is UTF-16LE, so `HASHBYTES('SHA2_256', N'abc')`
is the hash of `61 00 62 00 63 00`, and the result is varbinary. TiDB's SHA2 and MD5 hash the text's
UTF-8 bytes and answer in hexadecimal, and TiDB has no UTF-16 character set, so the UTF-16LE bytes are
built here: an ASCII text by putting a zero byte after each of its bytes, any other by a recursive common
table expression that turns each character's code point into its UTF-16LE code units. sqlglot reads
`HASHBYTES('MD5', x)` as TiDB's `MD5(x)`, which would silently hash other bytes and answer in hex.

CHECKSUM and BINARY_CHECKSUM have no TiDB counterpart with the same values: `CHECKSUM(NEWID())`, the
common idiom for a random integer, becomes a random integer of int's range; any other CHECKSUM
becomes CRC32 over the values, shifted into int's range (other values, the same use: detecting a change,
spreading rows), flagged for review.
https://learn.microsoft.com/sql/t-sql/functions/hashbytes-transact-sql
https://learn.microsoft.com/sql/t-sql/functions/checksum-transact-sql
https://docs.pingcap.com/tidb/stable/encryption-and-compression-functions
"""

from __future__ import annotations

from sqlglot import exp

from ..options import Version
from .context import Context, applies_to
from .expression_types import remember_type
from .templates import call, fill

_ALGORITHMS = {"MD5": "UNHEX(MD5(b))", "SHA1": "UNHEX(SHA1(b))", "SHA2_256": "UNHEX(SHA2(b, 256))",
               "SHA2_512": "UNHEX(SHA2(b, 512))"}
_SIZES = {"MD5": 16, "SHA1": 20, "SHA2_256": 32, "SHA2_512": 64}
_DOCS = "https://learn.microsoft.com/sql/t-sql/functions/hashbytes-transact-sql"
_LEGACY_HASHING = Version(9, 6, 0)
"""MySQL moved MD5() and SHA1() into a component one installs."""


def _code_point(o: str) -> str:
    """The code point of a character from ORD() (its UTF-8 bytes as one number), as SQL."""
    return (f"(CASE WHEN {o} < 128 THEN {o} WHEN {o} < 57344 THEN (({o} >> 8) & 31) << 6 | ({o} & 63) "
            f"WHEN {o} < 15728640 THEN (({o} >> 16) & 15) << 12 | (({o} >> 8) & 63) << 6 | ({o} & 63) "
            f"ELSE (({o} >> 24) & 7) << 18 | (({o} >> 16) & 63) << 12 | (({o} >> 8) & 63) << 6 | ({o} & 63) END)")


def _unit(u: str) -> str:
    """One UTF-16 code unit as four hexadecimal digits, low byte first."""
    return f"CONCAT(LPAD(HEX(({u}) & 255), 2, '0'), LPAD(HEX(({u}) >> 8), 2, '0'))"


def _utf16le_hex_template() -> str:
    """Each step reads the next character's code point (`c`) and writes the one read before it as UTF-16LE."""
    u = "sqlsrv2tidb_u"
    cp = _code_point(f"ORD(SUBSTRING(x, {u}.sqlsrv2tidb_i + 1, 1))")
    c = f"{u}.sqlsrv2tidb_c"
    pair = f"CONCAT({_unit(f'55296 + (({c} - 65536) >> 10)')}, {_unit(f'56320 + (({c} - 65536) & 1023)')})"
    written = f"(CASE WHEN {u}.sqlsrv2tidb_i = 0 THEN '' WHEN {c} < 65536 THEN {_unit(c)} ELSE {pair} END)"
    recursive = (f"(WITH RECURSIVE {u} (sqlsrv2tidb_i, sqlsrv2tidb_c, sqlsrv2tidb_h) AS (SELECT 0, 0, CAST('' AS CHAR(60000)) "
                 f"UNION ALL SELECT {u}.sqlsrv2tidb_i + 1, {cp}, CONCAT({u}.sqlsrv2tidb_h, {written}) "
                 f"FROM {u} WHERE {u}.sqlsrv2tidb_i <= CHAR_LENGTH(x)) "
                 f"SELECT sqlsrv2tidb_h FROM {u} ORDER BY sqlsrv2tidb_i DESC LIMIT 1)")
    return (f"UNHEX(CASE WHEN CHAR_LENGTH(x) = LENGTH(x) THEN REGEXP_REPLACE(HEX(x), '(..)', '\\\\100') "
            f"ELSE {recursive} END)")


_UTF16LE = _utf16le_hex_template()
"""The UTF-16LE bytes of a text `x`: ASCII (as many bytes as characters) by a zero after each byte, any other text
character by character."""


def utf16le(node: exp.Expr) -> exp.Expr:
    """The UTF-16LE bytes of a text expression, as SQL Server stores an nvarchar."""
    return fill(_UTF16LE, x=node)


def _algorithm(node: exp.Expr) -> str | None:
    if isinstance(node, exp.National) or (isinstance(node, exp.Literal) and node.is_string):
        return node.name.upper()
    return None


def _hashbytes(algorithm: str | None, value: exp.Expr, node: exp.Expr, ctx: Context) -> exp.Expr:
    if algorithm not in _ALGORITHMS:
        what = f"'{algorithm}'" if algorithm else "an algorithm named at run time"
        ctx.note("QY36", "unsupported", f"HASHBYTES with {what}: TiDB has MD5, SHA1 and SHA2 (256 and 512) only ({_DOCS}).")
        return node
    if ctx.options.mysql and algorithm in ("MD5", "SHA1") and ctx.options.mysql_version >= _LEGACY_HASHING:
        ctx.note("QY36", "unsupported", f"HASHBYTES('{algorithm}'): MySQL 9.6 and later have MD5 and SHA1 only in the "
                                        "legacy hashing component (https://dev.mysql.com/doc/refman/9.6/en/"
                                        "legacy-hashing-component.html).")
        return node
    datatype = ctx.types.of(value)
    name = datatype.this if datatype is not None else None
    if name in (exp.DType.NVARCHAR, exp.DType.NCHAR) or isinstance(value, exp.National) or (
            name is None and _national(value)):
        data = utf16le(value)
        ctx.note("QY36", "rewritten", f"HASHBYTES('{algorithm}', nvarchar) hashes the text's UTF-16LE bytes, as SQL Server "
                                      "stores it; TiDB stores UTF-8, so the bytes are built first.")
    elif name in (exp.DType.VARBINARY, exp.DType.BINARY, exp.DType.VARCHAR, exp.DType.CHAR, exp.DType.TEXT):
        data = value
        if name in (exp.DType.VARCHAR, exp.DType.CHAR, exp.DType.TEXT):
            ctx.note("QY36", "review", f"HASHBYTES('{algorithm}', varchar) hashes the text's bytes: the same for ASCII, "
                                       "but SQL Server hashes other characters in its code page (1252) and TiDB in UTF-8.")
    else:
        ctx.note("QY36", "review", f"HASHBYTES('{algorithm}', ...) of a value whose type is not known: hashed as TiDB "
                                   "stores it (SQL Server hashes an nvarchar's UTF-16LE bytes).")
        data = value
    out = fill(_ALGORITHMS[algorithm], b=data)
    return remember_type(out, exp.DataType.build(f"varbinary({_SIZES[algorithm]})", dialect="tsql"))


def _national(node: exp.Expr) -> bool:
    """A concatenation with an N'...' literal in it is nvarchar (its type wins by precedence)."""
    return any(isinstance(n, exp.National) for n in node.walk())


@applies_to(exp.MD5, exp.SHA, exp.SHA2, exp.Anonymous)
def hashbytes(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`HASHBYTES('SHA2_256', N'a' + FullName)` -> `UNHEX(SHA2(<UTF-16LE bytes of CONCAT('a', FullName)>, 256))`.

    T-SQL has no MD5, SHA or SHA2 function: sqlglot's reader makes them of HASHBYTES('MD5' | 'SHA1' | 'SHA2_256'
    | 'SHA2_512', x) (and leaves HASHBYTES(N'...', x) as a call). The result is the hash's bytes (varbinary),
    not its hexadecimal text. https://learn.microsoft.com/sql/t-sql/functions/hashbytes-transact-sql
    """
    if isinstance(node, exp.Anonymous):
        if node.name.upper() != "HASHBYTES" or len(node.expressions) != 2:
            return node
        return _hashbytes(_algorithm(node.expressions[0]), node.expressions[1], node, ctx)
    if node.meta_get("tidb"):
        return node
    if isinstance(node, exp.MD5):
        return _hashbytes("MD5", node.this, node, ctx)
    if isinstance(node, exp.SHA):
        return _hashbytes("SHA1", node.this, node, ctx)
    length = node.args.get("length")
    bits = length.name if isinstance(length, exp.Literal) else ""
    return _hashbytes(f"SHA2_{bits}" if bits in ("256", "512") else None, node.this, node, ctx)


_RANDOM_INT = "CAST(FLOOR(RAND() * 4294967296) - 2147483648 AS SIGNED)"


@applies_to(exp.Anonymous)
def checksum(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`CHECKSUM(NEWID())` -> a random integer of int's range; `CHECKSUM(a, b)` -> CRC32 of the values, in int's range.

    CHECKSUM over NEWID() is T-SQL's idiom for a random number (`ABS(CHECKSUM(NEWID())) % 8`); the values of
    any other CHECKSUM or BINARY_CHECKSUM are SQL Server's own hash, which no TiDB function gives: CRC32
    serves the same uses (detecting that a row changed, spreading rows) with other values.
    https://learn.microsoft.com/sql/t-sql/functions/checksum-transact-sql
    """
    name = node.name.upper()
    if name not in ("CHECKSUM", "BINARY_CHECKSUM") or not node.expressions:
        return node
    args = node.expressions
    if name == "CHECKSUM" and len(args) == 1 and isinstance(args[0], exp.Uuid):
        ctx.note("QY36", "rewritten", "CHECKSUM(NEWID()) is a random integer: it becomes one of int's range "
                                      "(FLOOR(RAND() * 2^32) - 2^31).")
        return remember_type(fill(_RANDOM_INT), exp.DataType.build("int"))
    if any(isinstance(a, exp.Star) for a in args):
        ctx.note("QY36", "unsupported", f"{name}(*): TiDB cannot hash a whole row by a star.")
        return node
    values = call("CONCAT_WS", fill("CHAR(31)"), *[fill("COALESCE(CAST(a AS CHAR), CHAR(0))", a=a) for a in args])
    ctx.note("QY36", "review", f"{name} becomes CRC32 over the values, in int's range: other values than SQL Server's, "
                               "for the same uses (detecting a change, spreading rows); stored checksums must be "
                               "computed again.")
    out = fill("CAST(CRC32(v) AS SIGNED) - 2147483648", v=values)
    return remember_type(out, exp.DataType.build("int"))


REWRITES = (hashbytes, checksum)
