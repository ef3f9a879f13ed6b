"""What a live capture and the script reader must agree on, and how Babelfish's catalog differs from SQL Server's.

`schema_view` reduces a Capture's schema to plain, comparable data: tables with their columns
(type, nullability, identity, default, computed expression), keys, indexes, foreign keys and
checks; alias types; views and modules. The TDS tests compare the view of a live capture with the
view of the script reader's reading of the very script the server ran.

On Babelfish the two differ in ways SQL Server's catalog would not, each listed once in
`BABELFISH_DIFFERENCES` with what Babelfish reports. Each is a function turning the script's view
into what Babelfish's catalog says about the same objects, so a test asserts the exact difference
and nothing else can hide behind it. On a real SQL Server none is applied.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp

from sqlsrv2tidb.model import Capture, Table

View = dict[str, Any]


def expression(text: str | None) -> str | None:
    """A DEFAULT, CHECK or computed-column expression in one canonical form.

    SQL Server stores expressions its own way (`((0))`, `([Qty]>(0))`), unlike the script's text,
    so both sides are parsed (T-SQL) and written back without brackets, redundant parentheses
    (the tree keeps the precedence) or case differences in names. Text sqlglot cannot parse is
    compared with its blanks evened out.
    """
    if text is None:
        return None
    try:
        tree = sqlglot.parse_one(text, read="tsql")
    except sqlglot.errors.ParseError:
        return " ".join(text.split())
    while isinstance(tree, exp.Paren):
        tree = tree.this
    for paren in list(tree.find_all(exp.Paren)):
        paren.replace(paren.this)
    for identifier in tree.find_all(exp.Identifier):
        identifier.set("this", identifier.name.lower())
        identifier.set("quoted", False)
    return tree.sql(dialect="tsql")


def _cols(columns) -> tuple:
    return tuple((c.name, c.descending) for c in columns)


def _table(t: Table) -> dict[str, Any]:
    return {
        "columns": tuple({
            "name": c.name, "type": str(c.type), "alias": c.type.alias, "nullable": c.nullable,
            "identity": (c.identity.seed, c.identity.increment, c.identity.not_for_replication) if c.identity else None,
            "default": expression(c.default), "default_name": c.default_name,
            "computed": expression(c.computed.expression) if c.computed else None, "rowguidcol": c.rowguidcol,
            "description": c.description,
        } for c in t.columns),
        "primary_key": (t.primary_key.name, _cols(t.primary_key.columns), t.primary_key.clustered)
        if t.primary_key else None,
        "unique_keys": sorted((k.name or "", _cols(k.columns), k.clustered) for k in t.unique_keys),
        "indexes": sorted((i.name or "", _cols(i.columns), i.unique, i.clustered, i.include, i.filter, i.kind)
                          for i in t.indexes),
        "foreign_keys": sorted((f.name or "", f.columns, f.ref_schema, f.ref_table, f.ref_columns, f.on_delete,
                                f.on_update) for f in t.foreign_keys),
        "checks": sorted((c.name or "", expression(c.expression), c.column) for c in t.checks),
        "description": t.description,
    }


def schema_view(capture: Capture) -> View:
    db = capture.database
    return {
        "tables": {(t.schema, t.name): _table(t) for t in db.tables},
        "user_types": {(u.schema, u.name): (str(u.base) if u.base else None, u.nullable, u.is_table_type)
                       for u in db.user_types},
        "modules": {(m.schema, m.name, m.kind): {
            "function_kind": m.function_kind, "parent": m.parent, "definition": _code(m.definition),
            "indexes": sorted((i.name or "", _cols(i.columns), i.unique, i.clustered) for i in m.indexes),
        } for m in db.modules},
    }


def _code(text: str | None) -> str | None:
    """A module's text with line endings and trailing blanks evened out."""
    if text is None:
        return None
    return "\n".join(line.rstrip() for line in text.replace("\r\n", "\n").strip().split("\n"))


def differences(live: View, expected: View) -> list[str]:
    """Every place the two views differ, one readable line each (empty when they agree)."""
    out: list[str] = []

    def walk(path: str, a: Any, b: Any) -> None:
        if a == b:
            return
        if isinstance(a, dict) and isinstance(b, dict):
            for key in sorted(set(a) | set(b), key=repr):
                if key not in a:
                    out.append(f"{path}{key!r}: only in the script: {b[key]!r}"[:600])
                elif key not in b:
                    out.append(f"{path}{key!r}: only in the live capture: {a[key]!r}"[:600])
                else:
                    walk(f"{path}{key!r} ", a[key], b[key])
        elif isinstance(a, tuple) and isinstance(b, tuple) and len(a) == len(b) and a and isinstance(a[0], dict):
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                walk(f"{path}[{i}] ", x, y)
        else:
            out.append(f"{path}: live {a!r} != expected {b!r}"[:600])

    walk("", live, expected)
    return out


# --- Babelfish's differences -----------------------------------------------------------------

@dataclass(frozen=True)
class BabelfishDifference:
    name: str
    reports: str
    """What Babelfish's catalog reports, and what SQL Server's would."""
    apply: Callable[[View], View]
    """The script's view turned into what Babelfish reports for the same objects."""


def _map_tables(view: View, func: Callable[[tuple, dict], dict]) -> View:
    return {**view, "tables": {key: func(key, table) for key, table in view["tables"].items()}}


def _lower_names(view: View) -> View:
    def cols(columns: tuple) -> tuple:
        return tuple((n.lower(), d) for n, d in columns)

    def table(_key: tuple, t: dict) -> dict:
        return {
            **t,
            "columns": tuple({**c, "name": c["name"].lower(),
                              "alias": _lower_last(c["alias"]), "default_name": _lower(c["default_name"])}
                             for c in t["columns"]),
            "primary_key": (_lower(t["primary_key"][0]), cols(t["primary_key"][1]), t["primary_key"][2])
            if t["primary_key"] else None,
            "unique_keys": sorted((n.lower(), cols(c), cl) for n, c, cl in t["unique_keys"]),
            "indexes": sorted((n.lower(), cols(c), u, cl, tuple(i.lower() for i in inc), f, k)
                              for n, c, u, cl, inc, f, k in t["indexes"]),
            "foreign_keys": sorted((n.lower(), tuple(c.lower() for c in cs), rs, rt.lower(),
                                    tuple(c.lower() for c in rc), d, u) for n, cs, rs, rt, rc, d, u in t["foreign_keys"]),
            "checks": sorted((n.lower(), e, _lower(c)) for n, e, c in t["checks"]),
        }

    lowered = _map_tables(view, table)
    return {
        **lowered,
        "tables": {(s, n.lower()): t for (s, n), t in lowered["tables"].items()},
        "user_types": {(s, n.lower()): v for (s, n), v in view["user_types"].items()},
        "modules": {(s, n.lower(), k): {**m, "parent": _lower_last(m["parent"]),
                                        "indexes": sorted((i.lower(), cols(c), u, cl) for i, c, u, cl in m["indexes"])}
                    for (s, n, k), m in view["modules"].items()},
    }


def _lower(name: str | None) -> str | None:
    return name.lower() if name is not None else None


def _lower_last(qualified: str | None) -> str | None:
    """`Schema.Name` -> `Schema.name`: Babelfish keeps a schema's case and folds the object's."""
    if qualified is None or "." not in qualified:
        return _lower(qualified)
    schema, name = qualified.rsplit(".", 1)
    return f"{schema}.{name.lower()}"


def _unnamed_constraints(view: View) -> View:
    def table(_key: tuple, t: dict) -> dict:
        pk = t["primary_key"]
        return {
            **t,
            "columns": tuple({**c, "default_name": None} for c in t["columns"]),
            "primary_key": (None, pk[1], pk[2]) if pk else None,
            "unique_keys": sorted(("", c, cl) for _, c, cl in t["unique_keys"]),
            "foreign_keys": sorted(("", *rest) for _, *rest in t["foreign_keys"]),
        }

    return _map_tables(view, table)


def _nonclustered(view: View) -> View:
    def table(_key: tuple, t: dict) -> dict:
        pk = t["primary_key"]
        return {
            **t,
            "primary_key": (pk[0], pk[1], False) if pk else None,
            "unique_keys": sorted((n, c, False) for n, c, _ in t["unique_keys"]),
            "indexes": sorted((n, c, u, False, inc, f, k) for n, c, u, _, inc, f, k in t["indexes"]),
        }

    out = _map_tables(view, table)
    return {**out, "modules": {k: {**m, "indexes": sorted((i, c, u, False) for i, c, u, _ in m["indexes"])}
                               for k, m in view["modules"].items()}}


def babelfish_identifier(name: str) -> str:
    """A name longer than PostgreSQL's 63 bytes, as Babelfish keeps it: its first 31 characters and its md5."""
    return name if len(name.encode()) <= 63 else name[:31] + hashlib.md5(name.encode()).hexdigest()


def babelfish_index_name(name: str, table: str) -> str:
    """Babelfish's name for index `name` of `table`: the folded names and the md5 of the index's, as one identifier."""
    name = babelfish_identifier(name.lower())
    return babelfish_identifier(name + table.lower() + hashlib.md5(name.encode()).hexdigest())


def _hashed_index_names(view: View) -> View:
    def table(key: tuple, t: dict) -> dict:
        return {**t, "indexes": sorted((babelfish_index_name(n, key[1]) if n else n, *rest)
                                       for n, *rest in t["indexes"])}

    return _map_tables(view, table)


def _checks_on_first_column(view: View) -> View:
    def table(_key: tuple, t: dict) -> dict:
        names = [c["name"] for c in t["columns"]]
        return {**t, "checks": sorted((n, e, next(iter(check_columns(e, names)), None)) for n, e, _ in t["checks"])}

    return _map_tables(view, table)


def _postgres_check(text: str) -> str:
    """A CHECK expression (in `expression`'s form) as PostgreSQL deparses it: BETWEEN spelled out,
    LIKE case-insensitive (`~~*`), a negative integer as a cast text literal."""
    tree = exp.Paren(this=sqlglot.parse_one(text, read="tsql"))  # a parent, so the root can be replaced too
    for neg in list(tree.find_all(exp.Neg)):
        if isinstance(neg.this, exp.Literal) and neg.this.name.isdigit():
            neg.replace(exp.cast(exp.Literal.string(f"-{neg.this.name}"), "INTEGER"))
    for like in list(tree.find_all(exp.Like)):
        like.replace(exp.ILike(this=like.this.copy(), expression=like.expression.copy()))
    for between in list(tree.find_all(exp.Between)):
        between.replace(exp.and_(exp.GTE(this=between.this.copy(), expression=between.args["low"].copy()),
                                 exp.LTE(this=between.this.copy(), expression=between.args["high"].copy())))
    return tree.this.sql(dialect="tsql")


def _postgres_checks(view: View) -> View:
    def table(_key: tuple, t: dict) -> dict:
        return {**t, "checks": sorted((n, _postgres_check(e), c) for n, e, c in t["checks"])}

    return _map_tables(view, table)


def _module_text(text: str | None) -> str | None:
    """Module text with brackets dropped and blanks around punctuation evened out."""
    if text is None:
        return None
    text = " ".join(text.replace("[", "").replace("]", "").split())
    return re.sub(r" ?([().,=]) ?", r"\1", text)


def _respelled_modules(view: View) -> View:
    return {**view, "modules": {k: {**m, "definition": _module_text(m["definition"])} for k, m in view["modules"].items()}}


def _table_functions_scalar(view: View) -> View:
    modules, types = {}, dict(view["user_types"])
    for (schema, name, kind), m in view["modules"].items():
        if kind == "function" and m["function_kind"] == "table":
            variable = re.search(r"RETURNS\s+(@\w+)\s+TABLE", m["definition"] or "", re.I)
            if variable:
                types[(schema, f"{variable.group(1)}_{name}".lower())] = (None, False, True)
            m = {**m, "function_kind": "scalar"}
        modules[(schema, name, kind)] = m
    return {**view, "modules": modules, "user_types": types}


def _columns(view: View, func: Callable[[dict], dict]) -> View:
    return _map_tables(view, lambda _k, t: {**t, "columns": tuple(func(c) for c in t["columns"])})


def _no_rowguidcol(view: View) -> View:
    return _columns(view, lambda c: {**c, "rowguidcol": False})


def _no_not_for_replication(view: View) -> View:
    return _columns(view, lambda c: {**c, "identity": (*c["identity"][:2], False) if c["identity"] else None})


def _smallint_identity(view: View) -> View:
    return _columns(view, lambda c: {**c, "type": "smallint"} if c["identity"] and c["type"] == "tinyint" else c)


def _microseconds(view: View) -> View:
    return _columns(view, lambda c: {**c, "type": re.sub(r"^(time|datetime2|datetimeoffset)\(7\)$", r"\1(6)", c["type"])}
                    if c["type"] else c)


def _computed_unreadable(view: View) -> View:
    computed = [c["computed"] for t in view["tables"].values() for c in t["columns"] if c["computed"]]
    if not any("ISNULL(" in e.upper() for e in computed):
        return view
    return _columns(view, lambda c: {**c, "computed": None})


def _no_fulltext(view: View) -> View:
    return _map_tables(view, lambda _k, t: {**t, "indexes": [i for i in t["indexes"] if i[6] != "fulltext"]})


BABELFISH_DIFFERENCES: tuple[BabelfishDifference, ...] = (
    BabelfishDifference(
        "names-folded",
        "sys.* views give table, column, index, constraint, alias-type and module names in PostgreSQL's "
        "lowercase form (schema names keep their case; INFORMATION_SCHEMA keeps every name's case); SQL Server "
        "gives names as created",
        _lower_names),
    BabelfishDifference(
        "constraints-system-named",
        "PRIMARY KEY, UNIQUE, FOREIGN KEY and DEFAULT constraints all have is_system_named = 1 (defaults get "
        "generated names), so the reader, which leaves out names SQL Server generated, reads them unnamed; SQL "
        "Server gives is_system_named = 0 for a name the script gave",
        _unnamed_constraints),
    BabelfishDifference(
        "no-clustered-indexes",
        "every index and key is NONCLUSTERED (PostgreSQL has no clustered indexes); SQL Server reports the "
        "clustered one",
        _nonclustered),
    BabelfishDifference(
        "index-names-hashed",
        "an index's name is its folded name, its table's and the md5 of its name (IFK_AlbumArtistId on Album: "
        "ifk_albumartistidalbum5017b0b3...), cut as any name over 63 bytes is (first 31 characters and the md5 "
        "of the whole); SQL Server gives the name as created",
        _hashed_index_names),
    BabelfishDifference(
        "checks-on-first-column",
        "every CHECK constraint is column-level on the first column its expression names (parent_column_id), "
        "also one written at table level over several columns; SQL Server gives 0 for a table-level CHECK",
        _checks_on_first_column),
    BabelfishDifference(
        "checks-postgres-form",
        "CHECK definitions are PostgreSQL's deparsed expressions: lowercase names and extra parentheses (which "
        "the comparison's canonical form absorbs, as it does SQL Server's `([Qty]>(0))`), BETWEEN written as "
        ">= AND <=, LIKE as the case-insensitive ~~* (ILIKE), a negative integer as CAST('-18' AS int)",
        _postgres_checks),
    BabelfishDifference(
        "module-types-respelled",
        "sys.sql_modules.definition has the declared types of parameters, return values and variables "
        "rewritten ([int] -> ` int `, [nvarchar](15) -> ` nvarchar (15)`, [dbo].[Flag] -> `[dbo]. Flag`); "
        "the rest of the text is as written. SQL Server keeps the text as written. Compared with brackets "
        "and blanks around punctuation evened out on both sides",
        _respelled_modules),
    BabelfishDifference(
        "table-functions-scalar",
        "a multi-statement table-valued function has sys.objects.type FN (scalar) instead of TF, and its "
        "RETURNS @table is listed in sys.types as a user table type named @variable_function",
        _table_functions_scalar),
    BabelfishDifference(
        "rowguidcol-not-reported",
        "ROWGUIDCOL is accepted and dropped: sys.columns.is_rowguidcol is 0",
        _no_rowguidcol),
    BabelfishDifference(
        "not-for-replication-not-reported",
        "IDENTITY ... NOT FOR REPLICATION is accepted and dropped: sys.identity_columns.is_not_for_replication is 0",
        _no_not_for_replication),
    BabelfishDifference(
        "tinyint-identity-smallint",
        "a tinyint IDENTITY column is a smallint one (PostgreSQL has no one-byte integer to back the sequence)",
        _smallint_identity),
    BabelfishDifference(
        "time-microseconds",
        "time, datetime2 and datetimeoffset hold at most 6 fractional digits (PostgreSQL's microseconds): a "
        "declared scale 7 is reported as 6",
        _microseconds),
    BabelfishDifference(
        "computed-columns-unreadable",
        "sys.computed_columns fails for a computed column using ISNULL (`unrecognized node type: 36`), so the "
        "whole rowset is unread and every computed column is read as a plain column (the reader says so, IN22)",
        _computed_unreadable),
    BabelfishDifference(
        "fulltext-index-as-expression-index",
        "a full-text index is an ordinary index (ft_index<table>) on an expression, not in "
        "sys.fulltext_indexes; the reader leaves an index over an expression out and says so (IN25)",
        _no_fulltext),
)

BOTH_SIDES = frozenset({"module-types-respelled"})
"""Differences that are a normal form rather than a rewrite: applied to the live view as well."""


def compared(live: View, script: View, babelfish: bool) -> tuple[View, View, list[str]]:
    """(live, expected) views to compare, and the Babelfish differences that changed the script's.

    A computed column's type is the server's inference, which a script does not state: it is
    left out on both sides for the columns the script computes.
    """
    computed = {(schema, table.lower(), c["name"].lower()) for (schema, table), t in script["tables"].items()
                for c in t["columns"] if c["computed"]}
    live = _map_tables(live, lambda key, t: {**t, "columns": tuple(
        {**c, "type": None} if (key[0], key[1].lower(), c["name"].lower()) in computed else c for c in t["columns"])})
    script = _columns(script, lambda c: {**c, "type": None} if c["computed"] else c)
    if not babelfish:
        return live, script, []
    applied = []
    for difference in BABELFISH_DIFFERENCES:
        if difference.name in BOTH_SIDES:  # a normal form: it counts where it makes unequal views equal
            normal_live, normal_script = difference.apply(live), difference.apply(script)
            if (live != script) and differences(normal_live, normal_script) != differences(live, script):
                applied.append(difference.name)
            live, script = normal_live, normal_script
            continue
        changed = difference.apply(script)
        if changed != script:
            applied.append(difference.name)
        script = changed
    return live, script, applied


def check_columns(expression: str, columns: list[str]) -> list[str]:
    """The table's columns an expression names, in the order it first names them."""
    folded = {c.lower(): c for c in columns}
    seen: list[str] = []
    for word in re.findall(r"\[([^\]]+)\]|\b([A-Za-z_]\w*)\b", expression):
        name = (word[0] or word[1]).lower()
        if name in folded and folded[name] not in seen:
            seen.append(folded[name])
    return seen
