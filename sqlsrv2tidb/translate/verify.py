"""Checks the TiDB SQL the translator writes: TiDB's grammar, and only functions the target has.

The target is TiDB, or MySQL (`--target-engine mysql`), whose function list is TiDB's with MySQL's
differences (`mysql_functions`); the grammar checked is TiDB's for both, which MySQL 8 reads the same
way in everything the translator writes.

sqlglot's `unsupported_messages` stay empty for much output MySQL would reject, so the output is
checked on its own. Two ways, with the same findings:

- on the tree about to be written (`tree_findings`): calls of functions TiDB does not have
  (`tidb_functions`) and constructs sqlglot's MySQL reader accepts but TiDB's grammar rejects
  (`grammar_gaps`). This is what the re-read of the text used to be for, without reading again
  what was just written (a quarter of the translator's time);
- by reading the written text back with TiDB's dialect (`check_text`), for a statement whose tree
  holds a node the tree check cannot vouch for: a class outside `WRITTEN_AND_REREAD` (the classes
  whose TiDB text the re-read accepted in every statement of the development corpora, some 1,500),
  or raw text a node writes as-is (a `Var` or a function name that is not one word). Such a text
  may be one sqlglot writes without complaint and cannot read (invalid SQL), so it is re-read.

`tests/translate/test_translation_record.py` holds every translation of those corpora byte for byte,
notes included, so the two ways are proven to flag the same statements there.
https://docs.pingcap.com/tidb/stable/functions-and-operators-overview
"""

from __future__ import annotations

import re

import sqlglot
from sqlglot import exp
from sqlglot.errors import ErrorLevel, ParseError, SqlglotError, TokenError

from . import mysql_functions, tidb_functions
from .context import Context
from .dialect import TiDB
from .statements import parse_error
from .walk import breadth_first

_MARKER = re.compile(r"__sqlsrv2tidb_param_.+?__")
_WORD = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")

# Node classes whose TiDB text the re-read accepted in every statement of the development corpora
# (golden pairs, SEDE, AdventureWorks and WideWorldImporters modules). A tree with any other class
# is re-read as text.
WRITTEN_AND_REREAD: frozenset[str] = frozenset("""
Abs Add Alias All And Anonymous Ascii AutoIncrementColumnConstraint Avg Between CTE Case Cast Ceil Chr
Coalesce Collate Column ColumnConstraint ColumnDef Commit Compress Concat Count Create CurrentTimestamp
CurrentUser DataType DataTypeParam Date DateAdd DateDiff DateSub Day DayOfMonth DayOfWeek DayOfYear Delete
DenseRank Distinct Div Dot Drop EQ Except Exists Exp Fetch Floor From GT GTE Greatest Group GroupConcat
Grouping Having Hour Identifier If In Insert IntDiv Intersect Is JSONExtract JSONExtractScalar JSONPath
JSONPathKey JSONPathRoot Join LT LTE LastDay Left Length Like Limit LimitOptions Literal Ln Lock Log Lower
Max Min Mod Month Mul NEQ National Neg Not NotNullColumnConstraint Ntile Null Nullif Offset OnConflict
OpenJSON OpenJSONColumnDef Or Order Ordered Parameter Paren PercentileCont Pow PrimaryKeyColumnConstraint
Properties Quarter Rand Rank RegexpLike Repeat Replace Reverse Right Rollback Rollup Round RowNumber Schema
Select Set SetItem Sign Space Sqrt Star Stddev StrPosition Stuff Sub Subquery Substring Sum Table TableAlias
TableSample TemporaryProperty TimeToStr TimestampAdd TimestampDiff Transaction Trim TruncateTable
TsOrDsToDate Tuple Union Update Upper UtcTimestamp Uuid Values Var Week Where Window WindowSpec With
WithinGroup Year
""".split())


def _builtin(engine: str):
    return mysql_functions.is_builtin if engine == "mysql" else tidb_functions.is_builtin


def tree_findings(tree: exp.Expr, engine: str = "tidb") -> tuple[list[str], list[str]] | None:
    """Grammar gaps and unknown function names (for the target `engine`) of a tree about to be written, in
    one walk; None when the tree check cannot vouch for the text this tree is written as (re-read it instead)."""
    gaps: list[str] = []
    missing: list[str] = []
    for node in breadth_first(tree):
        cls = type(node)
        kind = _KINDS.get(cls)
        if kind is None:
            kind = _KINDS[cls] = _kind(cls)
        if not kind:
            continue  # most nodes: a vouched class with nothing to check
        if kind & _UNVOUCHED:
            return None
        if kind & _VAR and not _WORD.match(node.name):
            return None  # raw text, written as it is
        if kind & _FUNC:
            if isinstance(node, exp.Anonymous) and not (isinstance(node.this, str) and _WORD.match(node.this)):
                return None
            if not isinstance(node.parent, exp.Dot) and (name := _unknown_function(node, engine)) is not None:
                missing.append(name)
        if kind & _GAP:
            gap = _gap(node)
            if gap is not None:
                gaps.append(gap)
    return gaps, missing


_UNVOUCHED, _VAR, _FUNC, _GAP = 1, 2, 4, 8
_KINDS: dict[type, int] = {}
"""What `tree_findings` checks of a node, by its class (learned once per class): whether the class is
vouched for at all, whether its text is raw (Var), whether it is a call, whether it may be a grammar gap."""


def _kind(cls: type) -> int:
    if cls.__name__ not in WRITTEN_AND_REREAD:
        return _UNVOUCHED
    return ((_VAR if issubclass(cls, exp.Var) else 0) | (_FUNC if issubclass(cls, exp.Func) else 0)
            | (_GAP if issubclass(cls, (exp.Limit, exp.Offset, exp.Fetch, exp.Group)) or cls in _UNIT_ARGS else 0))


def needs_reread(tree: exp.Expr) -> bool:
    """True when the tree check cannot vouch for the text this tree is written as."""
    return tree_findings(tree) is None


def report(gaps: set[str], missing: set[str], ctx: Context) -> bool:
    """Notes for what the checks found, in the order the text re-read has always given them."""
    for gap in sorted(gaps):
        ctx.note("QY50", "unsupported", f"The translation is not valid TiDB SQL: {gap}.")
    if gaps:
        return False
    for name in sorted(missing):
        ctx.note("QY36", "unsupported", f"{name}() is not a {ctx.options.engine_name} function.")
    return not missing


def check_text(sql: str, ctx: Context) -> bool:
    """Read the output back as TiDB SQL; flag what TiDB's grammar rejects and calls of functions TiDB does not have."""
    try:
        trees = sqlglot.parse(sql, read=TiDB, error_level=ErrorLevel.RAISE)
    except (ParseError, TokenError) as exc:
        ctx.note("QY50", "unsupported", f"The translation is not valid TiDB SQL: {parse_error(exc)}")
        return False
    gaps = {gap for tree in trees if tree is not None for gap in grammar_gaps(tree)}
    missing = {name for tree in trees if tree is not None for name in unknown_functions(tree, ctx.options.target_engine)}
    return report(gaps, missing, ctx)


_WRITTEN_AS: dict[type, str | None] = {}
# Syntax that is written like a call but is no function: EXISTS(...), a ROW constructor, ...
_SYNTAX = {"EXISTS", "ROW", "VALUES", "ANY", "ALL", "SOME", "NOT", "IN", "INTERVAL"}
_CALL = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\(")


def unknown_functions(tree: exp.Expr, engine: str = "tidb") -> list[str]:
    """Names of the calls in `tree` that the target `engine` has no function for (a method call `a.b()` aside)."""
    return [name for node in tree.find_all(exp.Func)
            if not isinstance(node.parent, exp.Dot) and (name := _unknown_function(node, engine)) is not None]


def _unknown_function(node: exp.Func, engine: str = "tidb") -> str | None:
    """The name a function call is written with when TiDB has no such function, else None.

    sqlglot reads names it knows from other dialects (`DATE_FROM_PARTS`) as typed nodes, so the
    name checked is the one the TiDB writer spells, learned once per node class."""
    is_builtin = _builtin(engine)
    if isinstance(node, exp.Anonymous):
        return None if is_builtin(node.name) else node.name.upper()
    cls = type(node)
    if cls not in _WRITTEN_AS:
        try:
            match = _CALL.match(node.sql(dialect=TiDB))
        except (SqlglotError, ValueError, KeyError, TypeError):
            match = None
        _WRITTEN_AS[cls] = match[1].upper() if match else None
    name = _WRITTEN_AS[cls]
    return name if name is not None and name not in _SYNTAX and not is_builtin(name) else None


# Time units of TiDB's grammar (INTERVAL, DATE_ADD, TIMESTAMPDIFF, EXTRACT); sqlglot reads any word there.
# https://docs.pingcap.com/tidb/stable/date-and-time-functions
_TIME_UNITS = frozenset("""
MICROSECOND SECOND MINUTE HOUR DAY WEEK MONTH QUARTER YEAR SECOND_MICROSECOND MINUTE_MICROSECOND MINUTE_SECOND
HOUR_MICROSECOND HOUR_SECOND HOUR_MINUTE DAY_MICROSECOND DAY_SECOND DAY_MINUTE DAY_HOUR YEAR_MONTH
""".split())
_UNIT_ARGS = {exp.Interval: "unit", exp.DateAdd: "unit", exp.DateSub: "unit", exp.TimestampAdd: "unit",
              exp.TimestampDiff: "unit", exp.Extract: "this"}


def grammar_gaps(tree: exp.Expr) -> list[str]:
    """Constructs sqlglot's MySQL reader accepts but TiDB's grammar rejects, described for a note.

    sqlglot is more lenient than TiDB's parser in a few places the rewrites can reach: LIMIT/OFFSET
    take only a number or a `?` marker (a T-SQL FETCH count is written as LIMIT), GROUP BY takes
    ROLLUP only as the `WITH ROLLUP` modifier (no CUBE, no GROUPING SETS), and a time unit must be
    one TiDB knows (no NANOSECOND). A tree about to be written holds parameters as markers, which
    are written as `?`.
    https://docs.pingcap.com/tidb/stable/sql-statement-select
    https://docs.pingcap.com/tidb/stable/group-by-modifier
    """
    return [gap for node in tree.walk() if (gap := _gap(node)) is not None]


def _gap(node: exp.Expr) -> str | None:
    if isinstance(node, (exp.Limit, exp.Offset, exp.Fetch)):
        value = node.args.get("count") if isinstance(node, exp.Fetch) else node.expression
        if value is not None and not _is_marker(value):
            kind = "LIMIT" if isinstance(node, exp.Fetch) else type(node).__name__.upper()
            return f"{kind} takes only a number or a `?` marker in TiDB, not `{_MARKER.sub('?', value.sql(dialect=TiDB))}`"
    elif isinstance(node, exp.Group) and (
        node.args.get("cube") or node.args.get("grouping_sets")
        or any(isinstance(e, (exp.Rollup, exp.Cube, exp.GroupingSets)) for e in node.expressions)
    ):
        return "GROUP BY takes ROLLUP only as WITH ROLLUP in TiDB (no CUBE, no GROUPING SETS)"
    elif type(node) in _UNIT_ARGS:
        unit = node.args.get(_UNIT_ARGS[type(node)])
        if isinstance(unit, exp.Var) and unit.name.upper() not in _TIME_UNITS:
            return f"TiDB has no {unit.name.upper()} time unit"
    return None


def _is_marker(value: exp.Expr) -> bool:
    """A number, a `?` marker, or a parameter that will be written as one."""
    return (isinstance(value, exp.Placeholder) or (isinstance(value, exp.Literal) and value.is_int)
            or (isinstance(value, exp.Var) and _MARKER.fullmatch(value.name) is not None))
