"""Rewrites of T-SQL functions and operators that TiDB spells or evaluates differently.

Like `transforms_scalar`, these run bottom-up with types available: LIKE patterns, CONVERT with a
style code, COLLATE, and the T-SQL built-ins sqlglot leaves as anonymous calls (NCHAR, CHOOSE, STR,
PATINDEX, ISNUMERIC, ...). Each docstring shows the T-SQL input and the TiDB output.
"""

from __future__ import annotations

import re

from sqlglot import exp

from .context import Context, applies_to
from .expression_types import STRING, remember_type
from .templates import call, fill, paren
from .transforms_builtins import isnull_type, random_order, replicate_count, start_positions
from .transforms_conversions import TRY_NUMBER_NOTE, try_number
from .type_rules import TEMPORAL as _TEMPORAL
from .types import TypeMapper

# SQL Server's default for a new instance, assumed when the capture does not say (as the DDL generator does).
# https://learn.microsoft.com/sql/relational-databases/collations/set-or-change-the-server-collation
ASSUMED_COLLATION = "SQL_Latin1_General_CP1_CI_AS"
_LIKE_DOCS = "https://learn.microsoft.com/sql/t-sql/language-elements/like-transact-sql"


def _like_pieces(pattern: str) -> list[tuple[str, str]] | None:
    """Split a T-SQL LIKE pattern into (kind, text): `any` (%), `one` (_), `class` ([..]), `char`."""
    pieces: list[tuple[str, str]] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "%":
            pieces.append(("any", ch))
        elif ch == "_":
            pieces.append(("one", ch))
        elif ch == "[":
            end = pattern.find("]", i + 2)
            if end < 0:
                return None
            pieces.append(("class", pattern[i + 1 : end]))
            i = end
        else:
            pieces.append(("char", ch))
        i += 1
    return pieces


def _like_literal(pieces: list[tuple[str, str]]) -> str | None:
    """A MySQL LIKE pattern (backslash escapes) when every class is one literal character."""
    out = []
    for kind, text in pieces:
        if kind == "class":
            if len(text) != 1 or text in ("^",):
                return None
            kind, text = "char", text
        if kind == "char":
            out.append("\\" + text if text in ("%", "_", "\\") else text)
        else:
            out.append(text)
    return "".join(out)


def _regex(pieces: list[tuple[str, str]]) -> str:
    out = ["^"]
    for kind, text in pieces:
        if kind == "any":
            out.append("(.|\n)*")
        elif kind == "one":
            out.append("(.|\n)")
        elif kind == "class":
            negate = text.startswith("^")
            body = text[1:] if negate else text
            body = body.replace("\\", "\\\\").replace("[", "\\[")
            out.append("[" + ("^" if negate else "") + body + "]")
        else:
            out.append(re.escape(text))
    out.append("$")
    return "".join(out)


@applies_to(exp.Like, exp.ILike)
def like_pattern(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`a LIKE '[a-c]%'` -> `a REGEXP '^[a-c](.|\\n)*$'`; `a LIKE 'x[_]%'` -> `a LIKE 'x\\_%'`;
    `a NOT LIKE '[0-9]%'` -> `NOT a REGEXP '^[0-9](.|\\n)*$'` (the negation is kept).

    SQL Server patterns have character classes (`[a-c]`, `[^0-9]`) and no escape character; MySQL
    patterns have no classes and treat a backslash as an escape. Literal one-character classes
    become LIKE escapes, real classes become an anchored REGEXP, and backslashes are doubled.
    https://learn.microsoft.com/sql/t-sql/language-elements/like-transact-sql
    https://docs.pingcap.com/tidb/stable/string-functions#regular-expression-compatibility-with-mysql

    A CHECK read from a live catalog comes in the server's own spelling, which must convert the same
    way as a script's: SQL Server's `([au_id] like '[0-9]...')`, Babelfish's `(au_id ~~* '[0-9]...')`
    (an ILIKE: its case-insensitive LIKE, made `a REGEXP '(?i)^[0-9]...$'`, the `(?i)` flag that TiDB,
    MySQL and MariaDB all read), and `LOWER(a) LIKE LOWER('[A-Z]...')` (the pattern folded the same way
    as the value: `LOWER(a) REGEXP '^[a-z]...$'`).
    """
    if not isinstance(node, (exp.Like, exp.ILike)):
        return node
    pattern = _folded_pattern(node.expression)
    if isinstance(node.parent, exp.Escape):
        if "[" in pattern.name:
            ctx.note("QY06", "review", f"LIKE with ESCAPE and character classes is kept as written ({_LIKE_DOCS}).")
        return node
    if not (isinstance(pattern, (exp.Literal, exp.National)) and (pattern.is_string or isinstance(pattern, exp.National))):
        if not isinstance(pattern, exp.Literal):
            ctx.note(
                "QY06", "translated",
                "LIKE with a computed pattern: a value holding `[...]` classes or a backslash matches differently on TiDB.",
            )
        return node
    text = pattern.name
    if "[" not in text and "\\" not in text:
        return node
    pieces = _like_pieces(text)
    if pieces is None:
        return node  # an unclosed bracket is a literal `[` in SQL Server too
    negate = bool(node.args.get("negate"))  # NOT LIKE: the rewritten test must stay negated
    insensitive = isinstance(node, exp.ILike)
    literal = _like_literal(pieces)
    if literal is not None:
        ctx.note("QY06", "rewritten", "LIKE pattern: bracket escapes and backslashes rewritten to MySQL's backslash escapes.")
        return type(node)(this=node.this, expression=exp.Literal.string(literal), negate=negate or None)
    classes = [t for k, t in pieces if k == "class"]
    letters = not insensitive and any(c.isalpha() for cls in classes for c in cls)
    status = "review" if letters else "rewritten"
    ctx.note(
        "QY06", status,
        "LIKE with character classes becomes an anchored REGEXP"
        + ("; letter classes follow TiDB's regular expression case rules, not the SQL Server collation." if letters
           else " (case-insensitive, as the source's LIKE)." if insensitive else "."),
    )
    regexp = exp.RegexpLike(this=node.this, expression=exp.Literal.string(("(?i)" if insensitive else "") + _regex(pieces)))
    return exp.Not(this=regexp) if negate else regexp


def _folded_pattern(pattern: exp.Expr) -> exp.Expr:
    """`LOWER('[A-Z]%')` -> `'[a-z]%'`: a pattern folded to one case is a literal of that case (its classes'
    ranges fold with it); any other pattern is returned as it is."""
    if isinstance(pattern, (exp.Lower, exp.Upper)) and isinstance(pattern.this, (exp.Literal, exp.National)) \
            and (pattern.this.is_string or isinstance(pattern.this, exp.National)):
        text = pattern.this.name
        return exp.Literal.string(text.lower() if isinstance(pattern, exp.Lower) else text.upper())
    return pattern


# CONVERT(varchar, date, style) -> DATE_FORMAT patterns, and their length.
# https://learn.microsoft.com/sql/t-sql/functions/cast-and-convert-transact-sql#date-and-time-styles
_STYLES: dict[int, tuple[str, int]] = {
    1: ("%m/%d/%y", 8), 101: ("%m/%d/%Y", 10), 2: ("%y.%m.%d", 8), 102: ("%Y.%m.%d", 10),
    3: ("%d/%m/%y", 8), 103: ("%d/%m/%Y", 10), 4: ("%d.%m.%y", 8), 104: ("%d.%m.%Y", 10),
    5: ("%d-%m-%y", 8), 105: ("%d-%m-%Y", 10), 6: ("%d %b %y", 9), 106: ("%d %b %Y", 11),
    7: ("%b %d, %y", 10), 107: ("%b %d, %Y", 12), 8: ("%H:%i:%s", 8), 108: ("%H:%i:%s", 8),
    24: ("%H:%i:%s", 8), 10: ("%m-%d-%y", 8), 110: ("%m-%d-%Y", 10), 11: ("%y/%m/%d", 8),
    111: ("%Y/%m/%d", 10), 12: ("%y%m%d", 6), 112: ("%Y%m%d", 8), 20: ("%Y-%m-%d %H:%i:%s", 19),
    120: ("%Y-%m-%d %H:%i:%s", 19), 21: ("%Y-%m-%d %H:%i:%s.%f", 23), 121: ("%Y-%m-%d %H:%i:%s.%f", 23),
    25: ("%Y-%m-%d %H:%i:%s.%f", 23), 23: ("%Y-%m-%d", 10), 126: ("%Y-%m-%dT%H:%i:%s.%f", 23),
    13: ("%d %b %Y %H:%i:%s:%f", 24), 113: ("%d %b %Y %H:%i:%s:%f", 24), 14: ("%H:%i:%s:%f", 12),
    114: ("%H:%i:%s:%f", 12),
}
# Styles whose SQL Server output the pattern does not reproduce exactly (padding, optional parts).
_INEXACT_STYLES = {126}
_STRING_TYPES = (exp.DType.VARCHAR, exp.DType.NVARCHAR, exp.DType.CHAR, exp.DType.NCHAR, exp.DType.TEXT)
_DATE_TYPES = (exp.DType.DATETIME, exp.DType.DATETIME2, exp.DType.DATE, exp.DType.SMALLDATETIME, exp.DType.TIME)


def _cast(value: exp.Expr, to: exp.DataType, from_try: bool) -> exp.Cast:
    """CAST(value AS to); one from TRY_CONVERT is marked, its bad values being TRY_CONVERT's note."""
    cast = exp.Cast(this=value, to=to)
    if from_try:
        cast.meta["from_try"] = True
    return cast


@applies_to(exp.Convert)
def convert_style(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`CONVERT(varchar(10), d, 120)` -> `LEFT(DATE_FORMAT(d, '%Y-%m-%d %H:%i:%s'), 10)`.

    A style code picks a date format in SQL Server; TiDB's CAST has none. Strings with a style
    read back into dates become STR_TO_DATE with the same pattern.
    https://learn.microsoft.com/sql/t-sql/functions/cast-and-convert-transact-sql
    """
    if not isinstance(node, exp.Convert) or not isinstance(node.this, exp.DataType):
        return node
    safe = bool(node.args.get("safe"))
    style = node.args.get("style")
    while isinstance(style, exp.Paren):
        style = style.this
    target, value = node.this, node.expression
    guarded = try_number(value, target, ctx) if safe else None
    if guarded is not None:  # a style means nothing to a number
        ctx.note("QY07", "rewritten", TRY_NUMBER_NOTE)
        return remember_type(guarded, target)
    if safe:
        ctx.note("QY07", "review", "TRY_CAST/TRY_CONVERT becomes CAST: TiDB does not return NULL for a value that does not convert.")
    if style is None:
        return _cast(value, target, safe)
    if not style.is_int:
        ctx.note("QY20", "review", "CONVERT with a computed style code is kept as a plain CAST.")
        return _cast(value, target, safe)
    code = int(style.name)
    source = ctx.types.category(value)
    if target.this in _STRING_TYPES and source in ("binary",) and code in (1, 2):
        ctx.note("QY20", "rewritten", f"CONVERT(..., {code}) of binary becomes HEX().")
        hexed = call("HEX", value)
        return call("CONCAT", exp.Literal.string("0x"), hexed) if code == 1 else hexed
    money = (ctx.types.of(value) or exp.DataType(this=exp.DType.UNKNOWN)).this in (exp.DType.MONEY, exp.DType.SMALLMONEY)
    if money and target.this in _STRING_TYPES and code in (1, 2):
        # money style 1 has commas and two decimals (1,234,567.89), style 2 four decimals (1234567.8900)
        ctx.note("QY20", "rewritten", f"CONVERT(text, money, {code}) writes {'commas and two decimals: FORMAT(x, 2)' if code == 1 else 'four decimals'}.")
        written = call("FORMAT", value, exp.Literal.number(2)) if code == 1 else \
            exp.Cast(this=value.copy(), to=exp.DataType.build("decimal(19, 4)"))
        cast = _cast(written, target if target.expressions else exp.DataType.build("varchar(30)"), safe)
        cast.meta["converted"] = True
        return cast
    if code in (0, 100) and source in _TEMPORAL and target.this in _STRING_TYPES:
        return _cast(value, target, safe)  # style 0 and 100 are the default a conversion to text writes (string_conversions)
    if code == 0 or (source in ("integer", "decimal", "float", "string") and target.this in _STRING_TYPES and code in (0, 1, 2, 3, 126, 128, 129)):
        if code not in (0,):
            ctx.note("QY20", "review", f"CONVERT style {code} for numbers (commas, scientific notation) is kept as CAST.")
        return _cast(value, target, safe)
    if code not in _STYLES:
        ctx.note("QY20", "unsupported", f"CONVERT style {code} has no TiDB date format.")
        return node
    pattern, width = _STYLES[code]
    if target.this in _DATE_TYPES and source in _TEMPORAL:
        return _cast(value, target, safe)  # a style only says how a string is read: a date converts as it is
    if target.this in _DATE_TYPES:
        ctx.note("QY20", "rewritten", f"CONVERT(date type, string, {code}) becomes STR_TO_DATE with the style's pattern.")
        return call("STR_TO_DATE", value, exp.Literal.string(pattern.replace(".%f", ".%f")))
    if target.this not in _STRING_TYPES:
        ctx.note("QY20", "review", f"CONVERT style {code} to a non-string type is kept as CAST.")
        return _cast(value, target, safe)
    formatted: exp.Expr = call("DATE_FORMAT", value, exp.Literal.string(pattern))
    length = _length(target)
    if pattern.endswith("%f") or (length is not None and length < width):
        formatted = call("LEFT", formatted, exp.Literal.number(min(width, length or width)))
    status = "review" if code in _INEXACT_STYLES or (source is None and "%f" in pattern) else "rewritten"
    ctx.note("QY20", status, f"CONVERT(string, date, {code}) becomes DATE_FORMAT with the style's pattern.")
    return formatted


def _length(datatype: exp.DataType) -> int | None:
    if not datatype.expressions:
        return 30  # CONVERT(varchar, ...) without a length means 30 characters
    text = datatype.expressions[0].name
    return int(text) if text.isdigit() else None


@applies_to(exp.Collate)
def collate(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`a COLLATE Latin1_General_CI_AS` -> `a COLLATE utf8mb4_general_ci`.

    SQL Server collation names do not exist in TiDB; case-insensitive ones map to
    utf8mb4_general_ci and case-sensitive or binary ones to utf8mb4_bin. Accent sensitivity and
    sort order are not the same. https://docs.pingcap.com/tidb/stable/character-set-and-collation
    """
    if not isinstance(node, exp.Collate):
        return node
    name = node.expression.name
    if name.upper() == "DATABASE_DEFAULT":
        ctx.note("QY27", "rewritten", "COLLATE DATABASE_DEFAULT is dropped: each TiDB column keeps its own collation.")
        return node.this
    if ctx.options.mysql:  # MySQL's own map (rules/mappings/collations.yaml, `mysql:`), as its DDL has it
        target = TypeMapper.builtin("mysql").map_collation(name).target
    else:
        target = "utf8mb4_general_ci" if "_CI" in name.upper() else "utf8mb4_bin"
    ctx.note("QY27", "review", f"COLLATE {name} becomes {target}; accent sensitivity and sort order differ.")
    return exp.Collate(this=node.this, expression=exp.var(target))


def _anonymous(node: exp.Expr) -> tuple[str, list[exp.Expr]] | None:
    if isinstance(node, exp.Anonymous):
        return node.name.upper(), list(node.expressions)
    return None


@applies_to(exp.Chr, exp.Round, exp.NumberToStr, exp.DateFromParts, exp.Unicode, exp.Anonymous)
def builtin_functions(node: exp.Expr, ctx: Context) -> exp.Expr:  # noqa: C901 - one table of small cases
    """T-SQL built-ins sqlglot passes through: `NCHAR(65)` -> `CHAR(65 USING utf8mb4)`,
    `CHOOSE(i, a, b)` -> `CASE i WHEN 1 THEN a WHEN 2 THEN b END`, `ROUND(x, 2, 1)` -> `TRUNCATE(x, 2)`,
    `DATEFROMPARTS(y, m, d)` -> `MAKEDATE(y, 1) + INTERVAL ...`, `STR(x, 10, 2)` -> `LPAD(ROUND(x, 2), 10, ' ')`.
    https://docs.pingcap.com/tidb/stable/functions-and-operators-overview
    """
    if isinstance(node, exp.Chr):
        return exp.Chr(expressions=node.expressions, charset=exp.var("utf8mb4"))
    if isinstance(node, exp.Round) and node.args.get("truncate") is not None:
        mode = node.args["truncate"]
        if mode.is_int and int(mode.name) != 0:
            ctx.note("QY36", "rewritten", "ROUND(x, n, 1) truncates: it becomes TRUNCATE(x, n).")
            return call("TRUNCATE", node.this, node.args.get("decimals") or exp.Literal.number(0))
        return exp.Round(this=node.this, decimals=node.args.get("decimals"))
    if isinstance(node, exp.NumberToStr):
        return _format_number(node, ctx)
    if isinstance(node, exp.DateFromParts):
        ctx.note("QY36", "rewritten", "DATEFROMPARTS becomes MAKEDATE() plus intervals.")
        return paren(fill("DATE_ADD(DATE_ADD(MAKEDATE(y, 1), INTERVAL m - 1 MONTH), INTERVAL d - 1 DAY)",
                          y=node.args["year"], m=node.args["month"], d=node.args["day"]))
    if isinstance(node, exp.Unicode):
        ctx.note("QY36", "review", "UNICODE() becomes ORD(), which returns the UTF-8 bytes of a non-ASCII character, not its code point.")
        return call("ORD", node.this)
    found = _anonymous(node)
    if found is None:
        return node
    name, args = found
    if name == "NCHAR" and len(args) == 1:
        return exp.Chr(expressions=args, charset=exp.var("utf8mb4"))
    if name == "CHOOSE" and len(args) >= 2:
        ifs = [exp.If(this=exp.Literal.number(i), true=a) for i, a in enumerate(args[1:], start=1)]
        return exp.Case(this=args[0], ifs=ifs)
    if name == "DATEFROMPARTS" and len(args) == 3:
        ctx.note("QY36", "rewritten", "DATEFROMPARTS becomes MAKEDATE() plus intervals.")
        return paren(fill("DATE_ADD(DATE_ADD(MAKEDATE(y, 1), INTERVAL m - 1 MONTH), INTERVAL d - 1 DAY)", y=args[0], m=args[1], d=args[2]))
    if name == "STR" and 1 <= len(args) <= 3:
        width = args[1] if len(args) > 1 else exp.Literal.number(10)
        digits = args[2] if len(args) > 2 else exp.Literal.number(0)
        ctx.note("QY36", "review", "STR() becomes LPAD(ROUND()); SQL Server prints ** when the number does not fit.")
        return call("LPAD", exp.Round(this=args[0], decimals=digits), width, exp.Literal.string(" "))
    if name == "ISNUMERIC" and len(args) == 1:
        ctx.note("QY36", "review", "ISNUMERIC() becomes a REGEXP test for a number; SQL Server also accepts currency signs.")
        test = exp.RegexpLike(this=args[0], expression=exp.Literal.string(r"^[[:space:]]*[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?[[:space:]]*$"))
        return exp.Coalesce(this=test, expressions=[exp.Literal.number(0)])
    if name == "PATINDEX" and len(args) == 2:
        return _patindex(node, args, ctx)
    if name in _STATISTICS and len(args) == 1:
        return call(_STATISTICS[name], *args)
    if name == "DB_NAME" and not args:
        return call("DATABASE")
    if name in ("SUSER_NAME", "USER_NAME", "SUSER_SNAME") and not args:
        ctx.note("QY36", "review", f"{name}() becomes CURRENT_USER(): TiDB users are not SQL Server logins.")
        return call("CURRENT_USER")
    if name == "NEWSEQUENTIALID":
        ctx.note("QY36", "review", "NEWSEQUENTIALID() becomes UUID(): TiDB's UUIDs are not ordered.")
        return exp.Uuid()
    if name == "GETDATE":
        return exp.CurrentTimestamp(this=exp.Literal.number(3))
    return node


# T-SQL's statistical aggregates under their TiDB names.
# https://docs.pingcap.com/tidb/stable/aggregate-group-by-functions
_STATISTICS = {"VAR": "VAR_SAMP", "VARP": "VAR_POP", "STDEV": "STDDEV_SAMP", "STDEVP": "STDDEV_POP"}


def _patindex(node: exp.Expr, args: list[exp.Expr], ctx: Context) -> exp.Expr:
    """`PATINDEX('%[0-9]%', s)` -> `REGEXP_INSTR(s, '[0-9]')`: the position of the first match, 0 if none."""
    pattern = args[0]
    pieces = _like_pieces(pattern.name) if isinstance(pattern, (exp.Literal, exp.National)) else None
    if pieces is None:
        ctx.note("QY36", "unsupported", "PATINDEX() with a computed pattern has no TiDB equivalent.")
        return node
    leading = bool(pieces) and pieces[0][0] == "any"
    trailing = bool(pieces) and pieces[-1][0] == "any"
    core = pieces[1 if leading else 0 : -1 if trailing and len(pieces) > 1 else None]
    regex = _regex(core)
    regex = regex[1:] if leading else regex
    regex = regex[:-1] if trailing else regex
    letters = any(k == "class" and any(c.isalpha() for c in t) for k, t in pieces)
    ctx.note("QY36", "review" if letters else "rewritten",
             "PATINDEX() becomes REGEXP_INSTR() with the pattern as a regular expression.")
    return call("REGEXP_INSTR", args[1], exp.Literal.string(regex))


def _format_number(node: exp.NumberToStr, ctx: Context) -> exp.Expr:
    """`FORMAT(n, 'N2')` -> `FORMAT(n, 2)`; the custom formats of zeros (`'00000'`: at least five digits), of grouped
    digits (`'#,##0.00'`) and of fixed decimals (`'0.00'`) with TiDB's FORMAT and LPAD. Other .NET formats, and
    any culture but the default (en-US, whose separators TiDB's FORMAT writes), have no TiDB counterpart.
    https://learn.microsoft.com/dotnet/standard/base-types/custom-numeric-format-strings
    """
    fmt = node.args.get("format")
    text = fmt.name if isinstance(fmt, exp.Literal) and fmt.is_string else None
    match = re.fullmatch(r"([NnFf])(\d*)", text) if text is not None else None
    custom = _custom_number(node.this, text) if text is not None and match is None else None
    if (match is None and custom is None) or node.args.get("culture") is not None:
        ctx.note("QY36", "unsupported", f"FORMAT() with {fmt.sql('sqlserver') if fmt else 'this'} format has no TiDB equivalent.")
        return node
    if custom is not None:
        ctx.note("QY36", "rewritten", f"FORMAT(x, '{text}') is written with TiDB's FORMAT and LPAD (en-US separators).")
        return custom
    digits = exp.Literal.number(int(match[2]) if match[2] else 2)
    if match[1] in "Ff":
        return exp.Round(this=node.this, decimals=digits)
    return call("FORMAT", node.this, digits)


def _custom_number(value: exp.Expr, text: str) -> exp.Expr | None:
    """A custom numeric format of zeros, grouped digits or fixed decimals, else None."""
    if re.fullmatch(r"0+", text):
        width = len(text)
        return paren(fill(f"CONCAT(CASE WHEN ROUND(n) < 0 THEN '-' ELSE '' END, LPAD(ABS(ROUND(n)), "
                          f"GREATEST(CHAR_LENGTH(ABS(ROUND(n))), {width}), '0'))", n=value))
    grouped = re.fullmatch(r"#,##0(?:\.(0+))?", text)
    if grouped:
        return call("FORMAT", value, exp.Literal.number(len(grouped[1] or "")))
    fixed = re.fullmatch(r"0\.(0+)", text)
    if fixed:
        return call("REPLACE", call("FORMAT", value, exp.Literal.number(len(fixed[1]))), exp.Literal.string(","),
                    exp.Literal.string(""))
    return None


@applies_to(exp.NextValueFor)
def next_value(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`NEXT VALUE FOR dbo.Seq` -> `NEXTVAL(Seq)`, the sequence named as the DDL names it.
    https://docs.pingcap.com/tidb/stable/sql-statement-create-sequence
    """
    if not isinstance(node, exp.NextValueFor):
        return node
    if node.args.get("order"):
        ctx.note("QY36", "unsupported", "NEXT VALUE FOR ... OVER (ORDER BY ...) has no TiDB equivalent.")
        return node
    ref = node.this
    schema = ref.table if isinstance(ref, exp.Column) else None
    name = ctx.names.object(schema or None, ref.name)
    target = exp.column(name.name, name.database) if name.database else exp.column(name.name)
    return call("NEXTVAL", target)


_XML_METHODS = {"VALUE", "QUERY", "NODES", "EXIST", "MODIFY"}


@applies_to(exp.Dot)
def user_functions(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`dbo.fn(x)` stays as written and is flagged: TiDB has no user-defined functions. A method call on
    a value rather than a schema (`x.value(...)`, `(SELECT ... FOR XML ..., TYPE).value(...)`) is an
    XML data type method, flagged as such; `(... FOR XML PATH(''), TYPE).value('.', 'nvarchar(max)')`,
    the string-aggregation idiom, becomes its subquery for the FOR XML rewrite.
    https://docs.pingcap.com/tidb/stable/mysql-compatibility#unsupported-features
    https://learn.microsoft.com/sql/t-sql/xml/xml-data-type-methods
    """
    if not (isinstance(node, exp.Dot) and isinstance(node.expression, exp.Anonymous)):
        return node
    method = node.expression.name.upper()
    owner = node.this
    if method in _XML_METHODS and not is_schema_name(owner, ctx):
        text = _xml_text(node)
        if text is not None:
            return text
        what = "a subquery" if isinstance(owner, exp.Subquery) else f"`{owner.sql('sqlserver')[:60]}`"
        ctx.note("QY09", "unsupported", f"XML method .{method.lower()}() on {what}: TiDB has no XML data type or XQuery.")
        return node
    ctx.note("QY36", "unsupported", f"User-defined function {node.sql('sqlserver').split('(')[0]}(): TiDB has none.")
    return node


def is_schema_name(owner: exp.Expr, ctx: Context) -> bool:
    """`dbo` in `dbo.fn(...)`: a bare name that is a schema of the database (or dbo), not a column."""
    if not isinstance(owner, (exp.Identifier, exp.Column, exp.Var)) or (isinstance(owner, exp.Column) and owner.table):
        return False
    schemas = {"dbo", *(s.lower() for s in ctx.database.schemas), *(t.schema.lower() for t in ctx.database.tables)}
    return owner.name.lower() in schemas


def _xml_text(node: exp.Dot) -> exp.Expr | None:
    """`(SELECT ... FOR XML PATH(''), TYPE).value('.', 'nvarchar(max)')` -> the subquery without TYPE, marked
    so the FOR XML rewrite knows its text is not entity-escaped; None for any other shape."""
    subquery, call_ = node.this, node.expression
    args = call_.expressions
    clause = subquery.this.args.get("for_") if isinstance(subquery, exp.Subquery) and isinstance(subquery.this, exp.Select) else None
    if clause is None or call_.name.upper() != "VALUE" or len(args) != 2 or args[0].name != ".":
        return None
    if not re.fullmatch(r"n?varchar\s*\(\s*(max|\d+)\s*\)", args[1].name.strip(), re.IGNORECASE):
        return None
    options = clause.expressions
    typed = [o for o in options if isinstance(o.this, exp.Var) and o.this.name.upper() == "TYPE"]
    if len(typed) != 1:
        return None
    text = subquery.copy()
    text.this.args["for_"].set("expressions", [o.copy() for o in options if o is not typed[0]])
    text.this.meta["xml_text"] = True
    return text


@applies_to(exp.EQ, exp.NEQ, exp.Like, exp.GT, exp.LT, exp.GTE, exp.LTE)
def connection_collation(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`@name = 'smith'` (no column on either side) under a *_CI_* database collation: flagged.

    Without a column, a comparison uses the connection's collation; TiDB's default is utf8mb4_bin,
    which is case-sensitive, where SQL Server used the database's case-insensitive collation.
    Comparisons with columns keep the column's collation, which the DDL generator maps to a _ci one.
    https://docs.pingcap.com/tidb/stable/character-set-and-collation
    """
    if not isinstance(node, (exp.EQ, exp.NEQ, exp.Like, exp.GT, exp.LT, exp.GTE, exp.LTE)):
        return node
    collation = ctx.database.collation or ASSUMED_COLLATION
    if "_CI" not in collation.upper() or ctx.options.mysql or any(True for _ in node.find_all(exp.Column)):
        return node  # MySQL's connections compare case-insensitively already (utf8mb4_0900_ai_ci)
    sides = (node.this, node.expression)
    if any(ctx.types.category(s) == "string" for s in sides) and not all(isinstance(s, exp.Literal) and not any(c.isalpha() for c in s.name) for s in sides):
        ctx.note("QY28", "review", f"A string comparison without a column uses the connection collation: case-sensitive "
                 f"utf8mb4_bin on TiDB, {collation} on SQL Server. Set collation_connection to a _ci collation.")
    return node


_REGEX_SPECIAL = frozenset("\\.^$|?*+()[]{}")


@applies_to(exp.Replace)
def replace_without_case(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`REPLACE(Title, 'sql', 'SQL')` under a case-insensitive collation -> `REGEXP_REPLACE(Title, '(?i)sql', 'SQL')`.

    REPLACE finds its pattern by the input's collation in SQL Server, so under a `_CI_` collation
    REPLACE('ABC', 'b', 'x') is 'AxC'; TiDB's (and MySQL's) REPLACE matches bytes, case-sensitively, and
    leaves 'ABC'. A literal pattern with letters becomes a case-insensitive regular expression (its special
    characters escaped), which TiDB, MySQL and MariaDB all read; a pattern that is no literal is flagged.
    https://learn.microsoft.com/sql/t-sql/functions/replace-transact-sql#remarks
    https://docs.pingcap.com/tidb/stable/string-functions#regexp_replace
    """
    if not isinstance(node, exp.Replace) or node.meta_get("tidb"):
        return node
    collation = ctx.database.collation or ASSUMED_COLLATION
    column = ctx.types.schema_column(node.this) if isinstance(node.this, exp.Column) else None
    if column is not None and column.collation:
        collation = column.collation
    if "_CI" not in collation.upper():
        return node
    pattern, replacement = node.expression, node.args.get("replacement")
    if not _is_text_literal(pattern):
        ctx.note("QY76", "review", "REPLACE matches its pattern without case under SQL Server's case-insensitive "
                 "collation; TiDB's REPLACE matches case: the pattern here is no literal, so it is kept.")
        return node
    text = pattern.name
    if text.lower() == text.upper():
        return node  # no letters: case changes nothing
    if not _is_text_literal(replacement) or set(replacement.name) & {"$", "\\"}:
        ctx.note("QY76", "review", "REPLACE matches its pattern without case in SQL Server; TiDB's matches case, and "
                 "this replacement cannot be written for a regular expression, so it is kept.")
        return node
    escaped = "".join("\\" + c if c in _REGEX_SPECIAL else c for c in text)
    ctx.note("QY76", "rewritten", "REPLACE matches its pattern without case under SQL Server's case-insensitive "
             "collation: it becomes REGEXP_REPLACE with (?i), since TiDB's REPLACE matches case.")
    return remember_type(call("REGEXP_REPLACE", node.this, exp.Literal.string("(?i)" + escaped), replacement),
                         ctx.types.of(node.this) or STRING)


def _is_text_literal(node: exp.Expr | None) -> bool:
    return isinstance(node, exp.National) or (isinstance(node, exp.Literal) and node.is_string)


@applies_to(exp.Ordered, exp.Max, exp.Min)
def text_order(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`ORDER BY DisplayName`, `MAX(DisplayName)`: noted (status unchanged), since text sorts by the collation.

    SQL Server's collations sort punctuation and symbols before digits and letters, tell accented letters
    apart (`_AS`) and order other scripts by their own rules; TiDB's utf8mb4_general_ci, which a
    case-insensitive collation becomes, sorts by code point weights with accents folded, and text that is
    no column sorts by the connection's utf8mb4_bin. The same rows may come in another order ('>1'
    before '1' in SQL Server, after it on TiDB), which `compare` shows as the same rows in another order,
    and MIN or MAX of text may pick another value; this note says why.
    https://learn.microsoft.com/sql/relational-databases/collations/collation-and-unicode-support
    https://docs.pingcap.com/tidb/stable/character-set-and-collation
    """
    if isinstance(node, exp.Ordered) and not isinstance(node.parent, exp.Order):
        return node
    if ctx.types.category(node.this) == "string":
        ctx.note("QY75", "translated", "Text ordered, or its MIN or MAX taken, follows TiDB's collation, which sorts "
                 "punctuation, symbols, accented letters and other scripts otherwise than SQL Server's: the same rows "
                 "may come in another order, and MIN or MAX pick another value.")
    return node


REWRITES = (
    like_pattern,
    convert_style,
    collate,
    builtin_functions,
    start_positions,
    replicate_count,
    isnull_type,
    random_order,
    next_value,
    user_functions,
    connection_collation,
    replace_without_case,
    text_order,
)
