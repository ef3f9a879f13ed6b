"""SQL Server's JSON functions over columns, written with TiDB's JSON functions.

JSON_VALUE returns a scalar as text and NULL for an object, an array or a JSON null; JSON_QUERY returns
an object or array and NULL for a scalar; JSON_MODIFY sets, adds, deletes (a NULL in lax mode) or appends
(`append $.path`); ISJSON (without a type) is 1 for an object or an array only; STRING_ESCAPE(x, 'json')
escapes as JSON, `/` included. TiDB's JSON_EXTRACT, JSON_SET, JSON_REMOVE and JSON_ARRAY_APPEND answer
each of these, with two differences noted for review: TiDB keeps JSON in a binary form, so a document it
wrote back is spaced and ordered its way (`{"a": 1}`, keys sorted) and a number keeps its value, not its
text (`1.50` reads back as `1.5`); and strict-mode paths, which make SQL Server fail, are read as lax.
Values the procedure runner holds are not sent here: it works those out itself, by SQL Server's rules
(`procedures.json_text`).
https://learn.microsoft.com/sql/relational-databases/json/json-data-sql-server
https://docs.pingcap.com/tidb/stable/json-functions
"""

from __future__ import annotations

from sqlglot import exp

from .context import Context, applies_to
from .expression_types import remember_type
from .templates import fill

_DOCS = "https://learn.microsoft.com/sql/relational-databases/json/json-path-expressions-sql-server"
_TEXT = "review"
JSON_TEXT = "sqlsrv2tidb_json_text"
"""Marks an expression whose text is JSON already (JSON_QUERY, JSON_MODIFY): another JSON_MODIFY inserts it as JSON."""


def path_text(node: exp.Expr | None) -> str | None:
    """The text of a JSON path argument written as a literal (sqlglot reads a simple one into a JSONPath), else None."""
    if isinstance(node, exp.JSONPath):
        return node.sql("tsql")[1:-1].replace("''", "'")
    if isinstance(node, exp.National) or (isinstance(node, exp.Literal) and node.is_string):
        return node.name
    return None


def _path(node: exp.Expr | None, ctx: Context, modify: bool = False) -> tuple[exp.Expr, bool] | None:
    """TiDB's path for a SQL Server path, and whether it appends (`append $.a`); None (and a note) when it cannot be read."""
    text = path_text(node)
    if text is None:
        if node is None:
            return exp.Literal.string("$"), False
        ctx.note("QY36", "review", "A JSON path built at run time is passed to TiDB as it is: SQL Server's `lax`, "
                                   "`strict` and `append` words would not be understood there.")
        return node, False
    words = text.strip().split(None, 1)
    append = False
    if modify and words and words[0].lower() == "append":
        append, words = True, (words[1].split(None, 1) if len(words) > 1 else [])
    if words and words[0].lower() in ("lax", "strict"):
        if words[0].lower() == "strict":
            ctx.note("QY36", "review", f"A strict JSON path ({text}) makes SQL Server fail where the value is missing; "
                                       f"TiDB answers NULL as in lax mode ({_DOCS}).")
        words = words[1:] if len(words) > 1 else []
    rest = " ".join(words).strip()
    if not rest.startswith("$"):
        ctx.note("QY36", "unsupported", f"`{text}` is not a JSON path ({_DOCS}).")
        return None
    return exp.Literal.string(rest), append


def _normalised(ctx: Context, what: str) -> None:
    ctx.note("QY36", _TEXT, f"{what} is answered from TiDB's binary JSON: objects come back with TiDB's spacing and its "
                            "order of keys, and numbers as their value (1.50 reads 1.5), where SQL Server keeps the "
                            "text as written.")


@applies_to(exp.JSONExtractScalar, exp.JSONExtract)
def json_value_and_query(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`JSON_VALUE(doc, '$.a')` -> the scalar at `$.a` as text (NULL for an object, array or null);
    `JSON_QUERY(doc, '$.a')` -> the object or array at `$.a` (NULL for a scalar).
    https://learn.microsoft.com/sql/t-sql/functions/json-value-transact-sql
    https://learn.microsoft.com/sql/t-sql/functions/json-query-transact-sql
    """
    if node.meta_get("tidb"):
        return node
    query = isinstance(node, exp.JSONExtract) and not isinstance(node, exp.JSONExtractScalar)
    if query and not node.args.get("json_query"):
        return node
    found = _path(node.expression, ctx)
    if found is None:
        return node
    path, _ = found
    if query:
        _normalised(ctx, "JSON_QUERY")
        out = fill("CASE WHEN JSON_TYPE(JSON_EXTRACT(d, p)) IN ('OBJECT', 'ARRAY') THEN JSON_EXTRACT(d, p) END",
                   d=node.this, p=path)
        out.meta[JSON_TEXT] = True
        return remember_type(out, exp.DataType.build("nvarchar(max)", dialect="tsql"))
    ctx.note("QY36", _TEXT, "JSON_VALUE is answered from TiDB's binary JSON: a number comes back as its value (1.50 "
                            "reads 1.5), where SQL Server returns it as written.")
    out = fill("CASE JSON_TYPE(JSON_EXTRACT(d, p)) WHEN 'OBJECT' THEN NULL WHEN 'ARRAY' THEN NULL WHEN 'NULL' THEN NULL "
               "ELSE JSON_UNQUOTE(JSON_EXTRACT(d, p)) END", d=node.this, p=path)
    return remember_type(out, exp.DataType.build("nvarchar(4000)", dialect="tsql"))


@applies_to(exp.Anonymous)
def json_functions(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`JSON_MODIFY(doc, '$.a', v)` -> JSON_SET (JSON_REMOVE where v is NULL, JSON_ARRAY_APPEND for `append`);
    `ISJSON(doc)` -> 1 for a valid object or array; `STRING_ESCAPE(s, 'json')` -> JSON_QUOTE's escapes and `\\/`.
    https://learn.microsoft.com/sql/t-sql/functions/json-modify-transact-sql
    https://learn.microsoft.com/sql/t-sql/functions/isjson-transact-sql
    https://learn.microsoft.com/sql/t-sql/functions/string-escape-transact-sql
    """
    name = node.name.upper()
    args = node.expressions
    if name == "ISJSON" and len(args) == 1:
        out = fill("CASE WHEN d IS NULL THEN NULL WHEN JSON_VALID(d) AND d REGEXP '^[[:space:]]*[[{]' THEN 1 ELSE 0 END",
                   d=args[0])
        return remember_type(out, exp.DataType.build("int"))
    if name == "STRING_ESCAPE" and len(args) == 2:
        kind = path_text(args[1])
        if kind is None or kind.lower() != "json":
            ctx.note("QY36", "unsupported", "STRING_ESCAPE knows only the type 'json'.")
            return node
        out = fill("(REPLACE(SUBSTRING(JSON_QUOTE(s), 2, CHAR_LENGTH(JSON_QUOTE(s)) - 2), '/', '\\\\/'))", s=args[0])
        return remember_type(out, exp.DataType.build("nvarchar(max)", dialect="tsql"))
    if name == "JSON_MODIFY" and len(args) == 3:
        return _json_modify(node, args, ctx)
    return node


def _json_modify(node: exp.Expr, args: list[exp.Expr], ctx: Context) -> exp.Expr:
    found = _path(args[1], ctx, modify=True)
    if found is None:
        return node
    path, append = found
    document, value = args[0], args[2]
    _normalised(ctx, "JSON_MODIFY")
    if value.meta_get(JSON_TEXT):
        value = fill("CAST(v AS JSON)", v=value)  # JSON already (JSON_QUERY, JSON_MODIFY): inserted as JSON, not a string
    if append:
        out = fill("JSON_ARRAY_APPEND(d, p, v)", d=document, p=path, v=value)
    elif isinstance(value, exp.Null):
        out = fill("JSON_REMOVE(d, p)", d=document, p=path)
    else:
        out = fill("CASE WHEN v IS NULL THEN JSON_REMOVE(d, p) ELSE JSON_SET(d, p, v) END", d=document, p=path, v=value)
    text = fill("CAST(j AS CHAR)", j=out)
    text.meta[JSON_TEXT] = True
    return remember_type(text, exp.DataType.build("nvarchar(max)", dialect="tsql"))


REWRITES = (json_value_and_query, json_functions)
