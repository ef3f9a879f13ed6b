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

from collections.abc import Iterator
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
_BRANCHES = (exp.Coalesce, exp.Greatest, exp.Least)

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

    @contextmanager
    def remembering(self) -> Iterator[None]:
        """Resolve each column reference once while the tree's scopes stay as they are (the scalar
        rewrites ask the type of one operand several times); `forget` after any change to the tree."""
        self._resolved = {}
        try:
            yield
        finally:
            self._resolved = None

    def forget(self) -> None:
        if self._resolved:
            self._resolved.clear()

    def of(self, node: exp.Expr | None) -> exp.DataType | None:
        if node is None:
            return None
        return self._of(node)

    def category(self, node: exp.Expr | None) -> Category | None:
        return category(self.of(node))

    def _of(self, node: exp.Expr) -> exp.DataType | None:  # noqa: C901 - one dispatch table
        remembered = node.meta.get(_TSQL_TYPE) if node.meta else None
        if remembered is not None:
            return remembered
        if isinstance(node, exp.National):
            return rules.string_literal(node.name, national=True)
        if isinstance(node, exp.Literal):
            return _literal_type(node)
        if isinstance(node, exp.Null):
            return None
        if isinstance(node, (exp.Cast, exp.TryCast)):
            return node.to
        if isinstance(node, exp.Convert):
            return node.this if isinstance(node.this, exp.DataType) else None
        if isinstance(node, exp.Column):
            return self.column(node)
        if isinstance(node, exp.Parameter):
            return self.variables.get(parameter_name(node).lower())
        if isinstance(node, exp.Add):
            return self._add(node)
        if isinstance(node, (exp.Sub, exp.Mul, exp.Div, exp.Mod)):
            return self._arithmetic(node)
        if isinstance(node, (exp.Case, exp.If)):
            branches = [node.args.get("true")] if isinstance(node, exp.If) else [i.args.get("true") for i in node.args.get("ifs") or []]
            branches.append(node.args.get("default") if isinstance(node, exp.Case) else node.args.get("false"))
            return self.combined([b for b in branches if b is not None])
        if isinstance(node, exp.Coalesce) and node.args.get("is_null"):
            return self._of(node.this)  # ISNULL has its first argument's type
        if isinstance(node, exp.Nullif):
            return self._of(node.this)  # NULLIF has its first argument's type
        if isinstance(node, _BRANCHES):
            return self.combined([a for a in [node.this, *node.expressions] if a is not None])
        if isinstance(node, exp.Sum):
            return rules.sum_type(self._of(node.this))
        if isinstance(node, exp.Avg):
            return rules.average_type(self._of(node.this))
        if isinstance(node, exp.Round):
            return rules.round_type(self._of(node.this))
        if isinstance(node, exp.Pow):
            return rules.power_type(self._of(node.this))
        if isinstance(node, (exp.DateAdd, exp.DateSub)):
            moved = self._of(node.this)  # DATEADD reads a string as a datetime and returns one
            return DATETIME if moved is None or rules.category(moved) == "string" else moved
        if isinstance(node, _SAME_AS_ARGUMENT):
            return self._of(node.this) if node.this is not None else None
        if isinstance(node, _STRING_RESULT):
            return STRING
        if isinstance(node, _INTEGER_RESULT):
            return BIGINT if isinstance(node, exp.Count) and node.args.get("big_int") else INTEGER
        if isinstance(node, _FLOAT_RESULT):
            return FLOAT
        if isinstance(node, _DATETIME_RESULT):
            return DATETIME
        if isinstance(node, exp.CurrentDate):
            return DATE
        if isinstance(node, exp.Uuid):
            return UUID
        if isinstance(node, exp.Subquery):
            return self._of(node.this)
        if isinstance(node, exp.Select):
            return self._of(node.selects[0]) if len(node.selects) == 1 else None
        if isinstance(node, exp.SetOperation):
            return self._column_at(node, 0)
        if isinstance(node, exp.Anonymous):
            return _ANONYMOUS.get(node.name.upper())
        if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Anonymous):
            return function_type(self.database, node.this.name or None, node.expression.name)
        if isinstance(node, exp.NextValueFor):
            return self._sequence_type(node.this)
        return None

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
