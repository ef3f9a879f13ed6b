"""hierarchyid's methods written over the path the target stores (`model/hierarchy_path.py`).

The DDL keeps a hierarchyid column as its path in a form that sorts as SQL Server sorts the node
(`/1/3/` is stored `/a1/a3/`), so a node's ancestors are the prefixes of its path that end in `/`,
and each method becomes a few string functions both TiDB and MySQL have:

    node.GetLevel()               ->  CHAR_LENGTH(node) - CHAR_LENGTH(REPLACE(node, '/', '')) - 1
    node.GetAncestor(n)           ->  the path up to its (level - n + 1)th `/` (NULL above the root)
    node.IsDescendantOf(p)        ->  LEFT(node, CHAR_LENGTH(p)) = p       (a node descends from itself)
    node.GetReparentedValue(o, n) ->  CONCAT(n, SUBSTRING(node, CHAR_LENGTH(o) + 1))
    node.GetDescendant(NULL, NULL)->  CONCAT(node, 'a1/')                  (its first child, /.../1/)
    node.ToString(), CAST(node AS nvarchar)  ->  the stored path with each letter replaced back
    hierarchyid::GetRoot()        ->  '/'
    hierarchyid::Parse('/1/'), CAST('/1/' AS hierarchyid), node = '/1/'  ->  '/a1/' (a constant is encoded here)

What cannot be written so is unsupported with its reason: GetDescendant between two children (it
makes a new label) and Parse of a text known only at run time (the runner's parameters arrive as
constants, so a procedure's `hierarchyid::Parse(@path)` is one).
https://learn.microsoft.com/sql/t-sql/data-types/hierarchyid-data-type-method-reference
"""

from __future__ import annotations

from sqlglot import exp

from ..model.hierarchy_path import LEVEL, NotAPath, encode, replacements
from .context import Context, applies_to
from .expression_types import remember_type
from .templates import call, fill
from .transforms_functions import is_schema_name

HIERARCHYID = exp.DataType(this=exp.DType.USERDEFINED, kind="hierarchyid")
_TEXT = exp.DataType.build("nvarchar(4000)", dialect="tsql")
_SMALLINT = exp.DataType.build("smallint")
_BIT = exp.DataType.build("bit", dialect="tsql")
_METHODS = {"GETANCESTOR", "GETLEVEL", "ISDESCENDANTOF", "TOSTRING", "GETREPARENTEDVALUE", "GETDESCENDANT"}
_ONLY_HIERARCHYID = _METHODS - {"TOSTRING"}  # ToString is also a spatial method
_LEVEL = f"CHAR_LENGTH(x) - CHAR_LENGTH(REPLACE(x, '{LEVEL}', '')) - 1"
_NOTE = "QY80"
_WRITTEN = "hierarchyid_path"
"""Meta of a constant this module wrote as a stored path, so no later rewrite reads it as a path again."""


def is_hierarchyid(datatype: exp.DataType | None) -> bool:
    return datatype is not None and datatype.this == exp.DType.USERDEFINED and (datatype.args.get("kind") or "").lower() == "hierarchyid"


def _owner(dot: exp.Dot) -> exp.Expr:
    """The value a method is called on, a column where the parser left a dotted name (`e.node` in `e.node.GetLevel()`)."""
    owner = dot.this
    parts: list[exp.Identifier] = []
    while isinstance(owner, exp.Dot) and isinstance(owner.expression, exp.Identifier):
        parts.insert(0, owner.expression)
        owner = owner.this
    if isinstance(owner, exp.Identifier):
        parts.insert(0, owner)
        names = [p.copy() for p in parts]
        column = exp.Column(this=names[-1], table=names[-2] if len(names) > 1 else None,
                            db=names[-3] if len(names) > 2 else None)
        dot.set("this", column)
        return column
    return owner


def to_string(value: exp.Expr) -> exp.Expr:
    """The text `ToString()` gives for a stored path: each letter and `:` replaced back (REPLACE, as every engine
    compares its arguments byte for byte)."""
    out: exp.Expr = value
    for stored, text in replacements():
        out = call("REPLACE", out, exp.Literal.string(stored), exp.Literal.string(text))
    return remember_type(out, _TEXT)


def _level(value: exp.Expr) -> exp.Expr:
    return remember_type(fill(_LEVEL, x=value), _SMALLINT)


def _ancestor(value: exp.Expr, n: exp.Expr) -> exp.Expr:
    """The path up to the (level - n + 1)th `/`, and the `/` itself; NULL when n is more than the node's level."""
    level = f"({_LEVEL})"
    count = f"{level} - n + 1"
    if isinstance(n, exp.Literal) and not n.is_string and n.name.isdigit():
        steps = int(n.name) - 1
        count = level if steps == 0 else f"{level} - {steps}" if steps > 0 else f"{level} + 1"
    return remember_type(fill(f"CASE WHEN n > {level} THEN NULL ELSE CONCAT(SUBSTRING_INDEX(x, '{LEVEL}', {count}), "
                              f"'{LEVEL}') END", x=value, n=n), HIERARCHYID)


def _constant(node: exp.Expr) -> str | None:
    """The text of a string constant (`'/1/'`, `N'/1/'`), else None (also for a path this module wrote already)."""
    if (isinstance(node, exp.National) or (isinstance(node, exp.Literal) and node.is_string)) \
            and not is_hierarchyid(node.meta_get(_WRITTEN)):
        return node.name
    return None


def _encoded(text: str, where: str, ctx: Context) -> exp.Expr | None:
    try:
        stored = encode(text)
    except NotAPath as error:
        ctx.note(_NOTE, "unsupported", f"{where}: {error}; SQL Server refuses it too.")
        return None
    literal = exp.Literal.string(stored)
    literal.meta[_WRITTEN] = HIERARCHYID
    return remember_type(literal, HIERARCHYID)


def _stored(text: str, what: str, ctx: Context) -> exp.Expr | None:
    """`_encoded`, with a note that `what` (the constant as the statement uses it) is now the stored path."""
    written = _encoded(text, what, ctx)
    if written is not None:
        ctx.note(_NOTE, "rewritten", f"{what} is the stored path {written.sql()}.")
    return written


@applies_to(exp.Dot)
def hierarchy_methods(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`node.GetAncestor(1)`, `node.GetLevel()`, ... over the stored path (module doc)."""
    if not (isinstance(node, exp.Dot) and isinstance(node.expression, exp.Anonymous)):
        return node
    method = node.expression.name.upper()
    if method not in _METHODS or is_schema_name(node.this, ctx):
        return node
    owner = _owner(node)
    kind = ctx.types.of(owner)
    if not is_hierarchyid(kind):
        if method not in _ONLY_HIERARCHYID and kind is not None:
            return node  # a spatial ToString(), or a user function's
        if method == "TOSTRING" and kind is None:
            ctx.note(_NOTE, "review", f"{owner.sql('sqlserver')[:60]}.ToString(): the value's type is not known here; "
                     "written as a hierarchyid's path (a spatial value's ToString() is its WKT, which TiDB has no way to give).")
    args = node.expression.expressions
    written = _method(method, owner, args, ctx)
    if written is None:
        return node
    ctx.note(_NOTE, "rewritten", "hierarchyid methods are written with string functions over the path the DDL stores "
             "(sorted as SQL Server sorts the nodes).")
    return written


def _method(method: str, owner: exp.Expr, args: list[exp.Expr], ctx: Context) -> exp.Expr | None:
    if method == "GETLEVEL" and not args:
        return _level(owner)
    if method == "TOSTRING" and not args:
        return to_string(owner)
    if method == "GETANCESTOR" and len(args) == 1:
        return _ancestor(owner, args[0])
    if method == "ISDESCENDANTOF" and len(args) == 1:
        return remember_type(exp.Paren(this=fill("LEFT(x, CHAR_LENGTH(p)) = p", x=owner, p=_argument(args[0], ctx))), _BIT)
    if method == "GETREPARENTEDVALUE" and len(args) == 2:
        old, new = (_argument(a, ctx) for a in args)
        return remember_type(fill("CONCAT(n, SUBSTRING(x, CHAR_LENGTH(o) + 1))", x=owner, o=old, n=new), HIERARCHYID)
    if method == "GETDESCENDANT" and len(args) == 2 and all(isinstance(a, exp.Null) for a in args):
        return remember_type(fill("CONCAT(x, 'a1/')", x=owner), HIERARCHYID)
    if method == "GETDESCENDANT":
        ctx.note(_NOTE, "unsupported", "hierarchyid GetDescendant() between children makes a new label, which the stored "
                 "path cannot compute in SQL: pick the child's path in the application (its ToString()) and Parse it.")
        return None
    ctx.note(_NOTE, "unsupported", f"hierarchyid {method}() with {len(args)} arguments is not a method SQL Server has.")
    return None


def _argument(node: exp.Expr, ctx: Context) -> exp.Expr:
    """A hierarchyid argument: a string constant is read as a path, as SQL Server converts it."""
    text = _constant(node)
    if text is not None:
        return _encoded(text, f"'{text}' as a hierarchyid", ctx) or node
    return node


@applies_to(exp.ScopeResolution)
def hierarchy_static(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`hierarchyid::GetRoot()` -> `'/'`; `hierarchyid::Parse('/1/')` -> the stored path of the constant."""
    if not (isinstance(node, exp.ScopeResolution) and isinstance(node.expression, exp.Anonymous)
            and (node.this is not None and node.this.name.lower() == "hierarchyid")):
        return node
    method, args = node.expression.name.upper(), node.expression.expressions
    if method == "GETROOT" and not args:
        ctx.note(_NOTE, "rewritten", "hierarchyid::GetRoot() is the path '/'.")
        return remember_type(exp.Literal.string(LEVEL), HIERARCHYID)
    if method == "PARSE" and len(args) == 1:
        text = _constant(args[0])
        if text is None:
            ctx.note(_NOTE, "unsupported", f"hierarchyid::Parse({args[0].sql('sqlserver')[:60]}): a path known only at run time "
                     "cannot be written in the stored form in SQL; pass it as a constant or Parse it in the application.")
            return node
        return _stored(text, f"hierarchyid::Parse('{text}')", ctx) or node
    return node


@applies_to(exp.Cast)
def hierarchy_casts(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`CAST('/1/' AS hierarchyid)` -> the stored path; `CAST(node AS nvarchar(...))` -> its ToString()."""
    if not isinstance(node, exp.Cast):
        return node
    to = node.args.get("to")
    if is_hierarchyid(to):
        text = _constant(node.this)
        if text is None:
            if is_hierarchyid(ctx.types.of(node.this)):
                return node.this
            ctx.note(_NOTE, "unsupported", f"{node.sql('sqlserver')[:80]}: text known only at run time cannot be written in the "
                     "stored hierarchyid form in SQL.")
            return node
        return _stored(text, f"CAST('{text}' AS hierarchyid)", ctx) or node
    if to is not None and to.is_type(*exp.DataType.TEXT_TYPES) and is_hierarchyid(ctx.types.of(node.this)):
        ctx.note(_NOTE, "rewritten", "A hierarchyid cast to text is its ToString() path.")
        return to_string(node.this)
    return node


_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)


@applies_to(*_COMPARISONS)
def hierarchy_comparisons(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`node = '/1/2/'`: SQL Server converts the text to a hierarchyid, so the constant becomes the stored path."""
    if not isinstance(node, _COMPARISONS):
        return node
    for side, other in (("this", node.expression), ("expression", node.this)):
        text = _constant(node.args[side])
        if text is not None and is_hierarchyid(ctx.types.of(other)):
            written = _stored(text, f"'{text}' compared with a hierarchyid", ctx)
            if written is not None:
                node.set(side, written)
    return node


def written_path(value: exp.Expr, value_type: exp.DataType | None, where: str, ctx: Context) -> exp.Expr | None:
    """A value an INSERT, UPDATE or MERGE stores into a hierarchyid column: a string constant as its stored path
    (SQL Server converts the text); None where nothing changes (a hierarchyid already, or a method's result, which
    the rewrites write), and unsupported for text known only at run time."""
    text = _constant(value)
    if text is not None:
        return _stored(text, f"'{text}' stored into the hierarchyid column {where}", ctx)
    if is_hierarchyid(value_type) or not isinstance(value_type, exp.DataType) or not value_type.is_type(*exp.DataType.TEXT_TYPES):
        return None
    ctx.note(_NOTE, "unsupported", f"Text stored into the hierarchyid column {where} is known only at run time: it cannot be "
             "written in the stored form in SQL; pass the path as a constant or hierarchyid::Parse it in the application.")
    return None


REWRITES = (hierarchy_methods, hierarchy_static, hierarchy_casts, hierarchy_comparisons)
