"""SQL Server types of expressions, from the captured schema, literals, casts and declarations.

The same T-SQL text means different things depending on its operands' types: `a + b` concatenates
strings but adds numbers, `a / b` truncates when both are integers, `d + 1` adds a day to a
datetime, `AVG(int)` returns an integer, and a decimal quotient has the scale SQL Server's formula
gives it. MySQL and TiDB decide none of these by type, so the translator must know the types to
rewrite the operator. sqlglot leaves this out of scope (https://github.com/tobymao/sqlglot/issues/2881),
so it lives here: `Types.of(node)` applies SQL Server's rules (`type_rules`: precedence, precision and
scale, aggregates) to a tree.

`Types.of(node)` answers with a sqlglot `DataType` in SQL Server's terms, with the precision and scale
of a decimal, or None when it cannot tell (a column of an unknown table, an undeclared variable);
callers turn None into a note and a `review` status rather than guessing. Column references are
resolved through the FROM and JOIN sources of every enclosing query (tables from the schema, temp
tables and table variables the batch created, derived tables and CTEs by their projections). A
rewrite that replaces an expression with TiDB SQL of another type (money computed as DECIMAL(19, 4))
records SQL Server's type on the new node (`remember_type`), so the expressions above it keep theirs.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from sqlglot import exp

from ..model import Database, Table
from . import type_rules as rules
from .dialect import SqlServer
from .scopes import parameter_name
from .source_types import MISSING, SchemaColumn, SourceTypes, function_type, type_of_declaration
from .type_rules import NUMERIC, TEMPORAL, Category, category, dominant

__all__ = ["MISSING", "NUMERIC", "TEMPORAL", "Category", "SchemaColumn", "Types", "category", "dominant", "is_string",
           "remember_type", "surely_text", "type_of_declaration"]

STRING = rules.STRING
INTEGER = rules.INTEGER
BIGINT = rules.BIGINT
DECIMAL = rules.decimal(38, 0)
FLOAT = rules.DOUBLE
DATETIME = rules.DATETIME
DATE = rules.DATE
UUID = exp.DataType.build("uniqueidentifier", dialect=SqlServer)
_TSQL_TYPE = "tsql_type"

_STRING_RESULT = (
    exp.Concat, exp.ConcatWs, exp.DPipe, exp.Upper, exp.Lower, exp.Trim, exp.Substring, exp.Left, exp.Right,
    exp.Replace, exp.Repeat, exp.Stuff, exp.Reverse, exp.GroupConcat, exp.TimeToStr, exp.Pad,
    exp.Chr, exp.CurrentUser, exp.Initcap, exp.SessionUser, exp.NumberToStr, exp.Hex, exp.Collate,
)
_INTEGER_RESULT = (
    exp.Length, exp.StrPosition, exp.Count, exp.DateDiff, exp.Extract, exp.Year, exp.Month, exp.Day,
    exp.DayOfWeek, exp.DayOfMonth, exp.DayOfYear, exp.Week, exp.Quarter, exp.Unicode, exp.Ascii, exp.Sign,
    exp.RowNumber, exp.Rank, exp.DenseRank, exp.Ntile, exp.IntDiv, exp.Predicate, exp.Not, exp.Connector,
    exp.Hour, exp.Minute, exp.Second, exp.TimestampDiff,
)
_FLOAT_RESULT = (
    exp.Sqrt, exp.Ln, exp.Log, exp.Exp, exp.Rand, exp.Stddev, exp.StddevPop, exp.StddevSamp,
    exp.Variance, exp.VariancePop, exp.Atan2, exp.Cos, exp.Sin, exp.Tan, exp.Acos, exp.Asin, exp.Atan,
    exp.Pi, exp.PercentRank, exp.CumeDist, exp.Radians, exp.Degrees,
)
_DATETIME_RESULT = (
    exp.CurrentTimestamp, exp.UtcTimestamp, exp.TimeStrToTime, exp.StrToTime, exp.StrToDate, exp.LastDay, exp.TimestampAdd,
)
_SAME_AS_ARGUMENT = (
    exp.Max, exp.Min, exp.Abs, exp.Floor, exp.Ceil, exp.FirstValue, exp.LastValue,
    exp.Lag, exp.Lead, exp.NthValue, exp.AnyValue, exp.Paren, exp.Neg, exp.Window, exp.Alias,
    exp.Ordered, exp.Distinct, exp.TsOrDsToDate,
)
_OPERATORS: dict[type, rules.Operator] = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/", exp.Mod: "%"}

# T-SQL functions sqlglot keeps as anonymous calls, by result category.
_ANONYMOUS: dict[str, exp.DataType] = {
    **dict.fromkeys(
        ("STR", "FORMAT", "QUOTENAME", "DB_NAME", "OBJECT_NAME", "USER_NAME", "HOST_NAME", "APP_NAME",
         "SCHEMA_NAME", "SUSER_SNAME", "NCHAR", "SOUNDEX", "TRANSLATE", "CONCAT_WS", "STRING_ESCAPE",
         "DATENAME", "FORMATMESSAGE", "ERROR_MESSAGE", "ERROR_PROCEDURE", "COMPRESS", "TRIM", "LTRIM", "RTRIM", "DATE_FORMAT",
         "LEFT", "RIGHT", "HEX", "LPAD", "RPAD", "CONCAT", "INSERT", "DATABASE", "CURRENT_USER", "VERSION"),
        STRING,
    ),
    **dict.fromkeys(
        ("DATALENGTH", "PATINDEX", "OBJECT_ID", "DB_ID", "ISNUMERIC", "ISDATE", "ERROR_NUMBER", "ERROR_SEVERITY",
         "ERROR_STATE", "ERROR_LINE", "@@ROWCOUNT",
         "@@SPID", "@@TRANCOUNT", "@@ERROR", "DIFFERENCE", "CHECKSUM", "BINARY_CHECKSUM", "DATEPART",
         "GROUPING", "GROUPING_ID", "@@FETCH_STATUS", "LENGTH", "ROW_COUNT", "CONNECTION_ID", "TO_SECONDS",
         "TO_DAYS", "DAYOFWEEK", "MICROSECOND", "CHAR_LENGTH", "REGEXP_INSTR", "ORD"),
        INTEGER,
    ),
    "LAST_INSERT_ID": BIGINT,
    **dict.fromkeys(("STR_TO_DATE", "NOW"), DATETIME),  # {fn NOW()}, the ODBC escape, is a datetime
    **dict.fromkeys(("SCOPE_IDENTITY", "@@IDENTITY", "IDENT_CURRENT"), DECIMAL),
    **dict.fromkeys(("EOMONTH", "DATEFROMPARTS", "MAKEDATE"), DATE),
    **dict.fromkeys(("DATETIMEFROMPARTS", "SMALLDATETIMEFROMPARTS", "DATETIME2FROMPARTS", "TODATETIMEOFFSET",
                     "SWITCHOFFSET", "DATEADD"), DATETIME),
    **dict.fromkeys(("SQUARE", "ATN2", "LOG10", "RADIANS", "DEGREES"), FLOAT),
    "NEWID": UUID,
    "NEWSEQUENTIALID": UUID,
}


def is_string(datatype: exp.DataType | None) -> bool:
    return category(datatype) == "string"


def remember_type(node: exp.Expr, datatype: exp.DataType | None) -> exp.Expr:
    """Mark TiDB SQL a rewrite wrote in place of a T-SQL expression with that expression's SQL Server type."""
    if datatype is not None:
        node.meta[_TSQL_TYPE] = datatype
    return node


@dataclass
class Types(SourceTypes):
    """Resolves expression types in one statement; `variables` maps a variable name (lower case, no `@`) to its type.
    Column references are typed through their sources (`source_types`)."""

    database: Database
    variables: dict[str, exp.DataType] = field(default_factory=dict)
    default_table: Table | None = None
    """The table of a column expression (DEFAULT, CHECK, computed) when there is no FROM clause."""
    temp_tables: dict[str, dict[str, exp.DataType]] = field(default_factory=dict)
    """Columns of `#temp` tables and `@table` variables the batch created, by lower-case name."""
    temp_generated: dict[str, frozenset[str]] = field(default_factory=dict)
    """Of those, the columns an INSERT does not list (identity and computed ones), by the same name."""
    _open: set[int] = field(default_factory=set, init=False, repr=False, compare=False)
    """Sources being typed: a CTE or view met again inside itself is unknown, not a loop."""
    _resolved: dict[int, tuple[exp.Column, object]] | None = field(default=None, init=False, repr=False, compare=False)
    """Column references resolved while `remembering`: id -> (the reference, what it resolved to)."""
    _typed: dict[int, tuple[exp.Expr, exp.DataType | None]] | None = field(default=None, init=False, repr=False,
                                                                          compare=False)
    """Expressions typed while `remembering`: id -> (the expression, its type)."""
    _scopes: dict[int, tuple[exp.Expr, list]] | None = field(default=None, init=False, repr=False, compare=False)
    """The sources of each query or DML scope met while `remembering`: id -> (the scope, its sources)."""
    _columns: dict[int, tuple[exp.Expr, dict[str, object]]] | None = field(default=None, init=False, repr=False,
                                                                           compare=False)
    """The columns of each row source looked up while `remembering`: id -> (the source, name -> what it is)."""

    @contextmanager
    def remembering(self) -> Iterator[None]:
        """Type each expression and resolve each column reference once while the rewrites of one pass run (they
        ask the type of one operand many times). A rewrite keeps the SQL Server type of what it replaces (a new
        node it writes carries it, `remember_type`), and the passes under this never change a FROM clause, so an
        answer stays true while they rewrite; a node met for the first time is typed as it is then."""
        self._resolved, self._typed, self._scopes, self._columns = {}, {}, {}, {}
        try:
            yield
        finally:
            self._resolved = self._typed = self._scopes = self._columns = None

    def of(self, node: exp.Expr | None) -> exp.DataType | None:
        if node is None:
            return None
        return self._of(node)

    def category(self, node: exp.Expr | None) -> Category | None:
        return category(self.of(node))

    def _of(self, node: exp.Expr) -> exp.DataType | None:
        typed = self._typed
        if typed is None:
            return self._type_of(node)
        hit = typed.get(id(node))
        if hit is not None and hit[0] is node:
            return hit[1]
        found = self._type_of(node)
        typed[id(node)] = (node, found)
        return found

    def _type_of(self, node: exp.Expr) -> exp.DataType | None:
        remembered = node.meta_get(_TSQL_TYPE)
        if remembered is not None:
            return remembered
        cls = type(node)
        rule = _RULES.get(cls)
        if rule is None:
            rule = _RULES[cls] = _rule_for(cls)
        return rule(self, node)

    def _case(self, node: exp.Expr) -> exp.DataType | None:
        if isinstance(node, exp.If):
            branches = [node.args.get("true"), node.args.get("false")]
        else:
            branches = [i.args.get("true") for i in node.args.get("ifs") or []]
            branches.append(node.args.get("default"))
        return self.combined([b for b in branches if b is not None])

    def _coalesce(self, node: exp.Expr) -> exp.DataType | None:
        if node.args.get("is_null"):
            return self._of(node.this)  # ISNULL has its first argument's type
        return self.combined([a for a in [node.this, *node.expressions] if a is not None])

    def _moved(self, node: exp.Expr) -> exp.DataType | None:
        moved = self._of(node.this)  # DATEADD reads a string as a datetime and returns one
        return DATETIME if moved is None or rules.category(moved) == "string" else moved

    def _sequence_type(self, name: exp.Expr) -> exp.DataType | None:
        """NEXT VALUE FOR has its sequence's type (bigint unless the sequence says otherwise)."""
        if not isinstance(name, (exp.Column, exp.Table)):
            return None
        sequence = self.database.sequence(name.table if isinstance(name, exp.Column) else name.db or None, name.name) \
            or self.database.sequence(None, name.name)
        return type_of_declaration(str(sequence.type)) if sequence is not None else None

    def _add(self, node: exp.Add) -> exp.DataType | None:
        left, right = self._of(node.this), self._of(node.expression)
        lc, rc = category(left), category(right)
        if isinstance(node.this, exp.Null) or isinstance(node.expression, exp.Null):
            return right if isinstance(node.this, exp.Null) else left
        if lc == "string" and rc == "string":
            return rules.concatenation(left, right)
        # Text that cannot be a number only runs on SQL Server as a concatenation.
        if (lc == "string" and rc is None and surely_text(node.this)) or (
            rc == "string" and lc is None and surely_text(node.expression)
        ):
            return STRING
        if lc in TEMPORAL or rc in TEMPORAL:
            return left if lc in TEMPORAL else right
        if lc is None or rc is None:
            return None
        return self._numeric(node, left, right) or dominant([left, right])

    def _arithmetic(self, node: exp.Binary) -> exp.DataType | None:
        left, right = self._of(node.this), self._of(node.expression)
        if left is None or right is None:
            return None
        if isinstance(node, exp.Sub) and category(left) in TEMPORAL and category(right) in TEMPORAL:
            return DATETIME
        return self._numeric(node, left, right) or dominant([left, right])

    def _numeric(self, node: exp.Binary, left: exp.DataType, right: exp.DataType) -> exp.DataType | None:
        """SQL Server's result of arithmetic on two numbers, an integer constant counted by its own digits."""
        return rules.arithmetic(_OPERATORS[type(node)], left, right, constant_shape(node.this), constant_shape(node.expression))

    def shape(self, node: exp.Expr) -> rules.Shape | None:
        """(precision, scale) of an exact numeric expression as SQL Server computes with it (a constant by
        its digits, an integer or money as the decimal it converts to); None for float or unknown."""
        return constant_shape(node) or rules.shape(self.of(node))


_Rule = Callable[[Types, exp.Expr], "exp.DataType | None"]


_ORDERED_RULES: tuple[tuple[tuple[type, ...], _Rule], ...] = (
    ((exp.National,), lambda t, n: rules.string_literal(n.name, national=True)),
    ((exp.Literal,), lambda t, n: _literal_type(n)),
    ((exp.Null,), lambda t, n: None),
    ((exp.Cast, exp.TryCast), lambda t, n: n.to),
    ((exp.Convert,), lambda t, n: n.this if isinstance(n.this, exp.DataType) else None),
    ((exp.Column,), lambda t, n: t.column(n)),
    ((exp.Parameter,), lambda t, n: t.variables.get(parameter_name(n).lower())),
    ((exp.Add,), lambda t, n: t._add(n)),
    ((exp.Sub, exp.Mul, exp.Div, exp.Mod), lambda t, n: t._arithmetic(n)),
    ((exp.Case, exp.If), lambda t, n: t._case(n)),
    ((exp.Coalesce,), lambda t, n: t._coalesce(n)),
    ((exp.Nullif,), lambda t, n: t._of(n.this)),  # NULLIF has its first argument's type
    ((exp.Greatest, exp.Least), lambda t, n: t.combined([a for a in [n.this, *n.expressions] if a is not None])),
    ((exp.Sum,), lambda t, n: rules.sum_type(t._of(n.this))),
    ((exp.Avg,), lambda t, n: rules.average_type(t._of(n.this))),
    ((exp.Round,), lambda t, n: rules.round_type(t._of(n.this))),
    ((exp.Pow,), lambda t, n: rules.power_type(t._of(n.this))),
    ((exp.DateAdd, exp.DateSub), lambda t, n: t._moved(n)),
    (_SAME_AS_ARGUMENT, lambda t, n: t._of(n.this) if n.this is not None else None),
    (_STRING_RESULT, lambda t, n: STRING),
    ((exp.Count,), lambda t, n: BIGINT if n.args.get("big_int") else INTEGER),
    (_INTEGER_RESULT, lambda t, n: INTEGER),
    (_FLOAT_RESULT, lambda t, n: FLOAT),
    (_DATETIME_RESULT, lambda t, n: DATETIME),
    ((exp.CurrentDate,), lambda t, n: DATE),
    ((exp.Uuid,), lambda t, n: UUID),
    ((exp.Subquery,), lambda t, n: t._of(n.this)),
    ((exp.Select,), lambda t, n: t._of(n.selects[0]) if len(n.selects) == 1 else None),
    ((exp.SetOperation,), lambda t, n: t._column_at(n, 0)),
    ((exp.Anonymous,), lambda t, n: _ANONYMOUS.get(n.name.upper())),
    ((exp.Dot,), lambda t, n: function_type(t.database, n.this.name or None, n.expression.name)
     if isinstance(n.expression, exp.Anonymous) else None),
    ((exp.NextValueFor,), lambda t, n: t._sequence_type(n.this)),
)
"""SQL Server's type of each kind of expression, the first matching class winning (a subclass before its parent)."""
_RULES: dict[type, _Rule] = {}
"""The rule of each node class, found once per class."""


def _rule_for(cls: type) -> _Rule:
    for classes, rule in _ORDERED_RULES:
        if issubclass(cls, classes):
            return rule
    return lambda t, n: None


def _literal_type(node: exp.Literal) -> exp.DataType:
    return rules.string_literal(node.name, national=False) if node.is_string else rules.literal_type(node.name)


def constant_shape(node: exp.Expr) -> rules.Shape | None:
    """The decimal a numeric constant converts to in decimal arithmetic: its own digits (`250` is
    numeric(3, 0), not int's numeric(10, 0)); None when `node` is no numeric constant."""
    while isinstance(node, (exp.Paren, exp.Neg)):
        node = node.this
    if isinstance(node, exp.Literal) and not node.is_string:
        return rules.literal_shape(node.name)
    return None


def surely_text(node: exp.Expr) -> bool:
    """A string that SQL Server could not convert to a number: `' '`, `'site://u/'`, `'a' + x`."""
    if isinstance(node, (exp.Literal, exp.National)) and (node.is_string or isinstance(node, exp.National)):
        try:
            float(node.name)
        except ValueError:
            return True
        return False
    if isinstance(node, exp.Paren):
        return surely_text(node.this)
    if isinstance(node, (exp.Add, exp.Concat)):
        return any(surely_text(part) for part in node.iter_expressions())
    return False
