"""The values a procedure works out on the client: what an application computes itself, without a round trip.

A procedure's variables live on the client once its logic moves to the application. `SET @i = @i +
1`, `IF @Status IS NULL` and `WHILE @@FETCH_STATUS = 0` are worked out there, by the rules of T-SQL,
as an application would; everything else (a function, a subquery, EXISTS, a conversion, arithmetic
on money) is asked of the target as `SELECT <expression>`, translated like any statement, and costs
a round trip. The small tree here (`Local`) is the part the client may compute; `evaluate` raises
`NotLocal` when the values met at run time leave T-SQL's rules to the server (a number compared with
a string, an integer that overflows), and the caller asks the target instead.

Three-valued logic: a comparison with NULL is unknown (None), NOT unknown is unknown, and IF or
WHILE takes only true. Strings compare equal under the database's case rules and without trailing
spaces (PAD SPACE), as SQL Server compares them; other string comparisons go to the server.
https://learn.microsoft.com/sql/t-sql/language-elements/comparison-operators-transact-sql
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlglot import exp

from ..translate.scopes import parameter_name
from . import client_functions
from .client_functions import NotLocal
from .failures import TsqlError
from .values import assign, base_type

__all__ = ["NotLocal", "Local", "Scope", "evaluate", "local_form", "runtime_name"]


@dataclass(frozen=True)
class Const:
    value: Any


@dataclass(frozen=True)
class Var:
    name: str
    """Lower case, without `@`."""


@dataclass(frozen=True)
class Runtime:
    """A value the runner keeps: `rowcount`, `error`, `trancount`, `fetch_status`, `error_message`, ..."""

    name: str


@dataclass(frozen=True)
class Unary:
    op: str
    operand: Local


@dataclass(frozen=True)
class Binary:
    op: str
    left: Local
    right: Local


@dataclass(frozen=True)
class IsNull:
    operand: Local
    negated: bool = False


@dataclass(frozen=True)
class FirstNotNull:
    """ISNULL(a, b) and COALESCE(a, b, ...)."""

    operands: tuple[Local, ...]


@dataclass(frozen=True)
class InList:
    operand: Local
    items: tuple[Local, ...]
    negated: bool = False


@dataclass(frozen=True)
class Converted:
    """CAST(x AS type) / CONVERT(type, x) without a style, where the client converts as SQL Server does: an integer to
    text, text of digits or an integer to an integer type."""

    operand: Local
    type: str


@dataclass(frozen=True)
class Call:
    """A function the client works out by SQL Server's rules (`client_functions`): QUOTENAME, REPLACE, JSON_MODIFY..."""

    name: str
    arguments: tuple[Local, ...]


@dataclass(frozen=True)
class Case:
    """CASE WHEN condition THEN value ... ELSE value END (a simple CASE is read as its searched form)."""

    whens: tuple[tuple[Local, Local], ...]
    otherwise: Local


Local = Const | Var | Runtime | Unary | Binary | IsNull | FirstNotNull | InList | Converted | Call | Case

RUNTIME_GLOBALS = {
    "ROWCOUNT": "rowcount", "ERROR": "error", "TRANCOUNT": "trancount", "FETCH_STATUS": "fetch_status",
    "CURSOR_ROWS": "cursor_rows", "NESTLEVEL": "nestlevel",
}
"""@@ names whose value the runner keeps (the others are the translator's)."""
RUNTIME_FUNCTIONS = {
    "ERROR_NUMBER": "error_number", "ERROR_MESSAGE": "error_message", "ERROR_SEVERITY": "error_severity",
    "ERROR_STATE": "error_state", "ERROR_LINE": "error_line", "ERROR_PROCEDURE": "error_procedure",
    "XACT_STATE": "xact_state",
}
RUNTIME_TYPES = {
    "rowcount": "int", "error": "int", "trancount": "int", "fetch_status": "int", "cursor_rows": "int",
    "nestlevel": "int", "error_number": "int", "error_message": "nvarchar(4000)", "error_severity": "int",
    "error_state": "int", "error_line": "int", "error_procedure": "nvarchar(128)", "xact_state": "smallint",
}
RUNTIME_PREFIX = "sqlsrv2tidb_"
"""Variables standing for the runner's own values in translated statements: `@sqlsrv2tidb_rowcount`."""

_COMPARISONS: dict[type, str] = {exp.EQ: "=", exp.NEQ: "<>", exp.GT: ">", exp.GTE: ">=", exp.LT: "<", exp.LTE: "<="}
_ARITHMETIC: dict[type, str] = {exp.Add: "+", exp.Sub: "-", exp.Mul: "*", exp.Div: "/", exp.Mod: "%"}


def runtime_name(node: exp.Expr) -> str | None:
    """The runner's name for `@@ROWCOUNT`, `ERROR_MESSAGE()`, `XACT_STATE()`..., else None."""
    if isinstance(node, exp.Parameter) and isinstance(node.this, exp.Parameter):
        return RUNTIME_GLOBALS.get(parameter_name(node.this).upper())
    if isinstance(node, exp.Anonymous) and not node.expressions:
        return RUNTIME_FUNCTIONS.get(node.name.upper())
    return None


def local_form(node: exp.Expr) -> Local | None:
    """The expression as the client works it out, or None when only the server can."""
    while isinstance(node, exp.Paren):
        node = node.this
    runtime = runtime_name(node)
    if runtime is not None:
        return Runtime(runtime)
    if isinstance(node, exp.Null):
        return Const(None)
    if isinstance(node, exp.Boolean):
        return Const(bool(node.this))
    if isinstance(node, exp.National):
        return Const(node.name)
    if isinstance(node, exp.Literal):
        if node.is_string:
            return Const(node.name)
        return Const(_number(node.name))
    if isinstance(node, exp.HexString):
        try:
            return Const(bytes.fromhex(node.name if len(node.name) % 2 == 0 else "0" + node.name))
        except ValueError:
            return None
    if isinstance(node, exp.Parameter) and not isinstance(node.this, exp.Parameter):
        name = parameter_name(node).lower()
        if name.startswith(RUNTIME_PREFIX):  # the runner's own value put in the statement (`unit.with_runtime`)
            return Runtime(name[len(RUNTIME_PREFIX):])
        return Var(name)
    if isinstance(node, exp.Neg):
        inner = local_form(node.this)
        if isinstance(inner, Const) and isinstance(inner.value, (int, Decimal)) and not isinstance(inner.value, bool):
            return Const(-inner.value)
        return Unary("-", inner) if inner is not None else None
    if isinstance(node, exp.Not):
        if isinstance(node.this, exp.Is):
            inner = local_form(node.this)
            return IsNull(inner.operand, True) if isinstance(inner, IsNull) else None
        inner = local_form(node.this)
        return Unary("NOT", inner) if inner is not None else None
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
        inner = local_form(node.this)
        return IsNull(inner) if inner is not None else None
    op = _COMPARISONS.get(type(node)) or _ARITHMETIC.get(type(node)) or (
        "AND" if isinstance(node, exp.And) else "OR" if isinstance(node, exp.Or) else None)
    if op is not None:
        left, right = local_form(node.this), local_form(node.expression)
        return Binary(op, left, right) if left is not None and right is not None else None
    if isinstance(node, exp.Coalesce):
        parts = [local_form(n) for n in [node.this, *node.expressions]]
        return FirstNotNull(tuple(parts)) if all(p is not None for p in parts) else None  # type: ignore[arg-type]
    if isinstance(node, exp.In) and node.expressions and not node.args.get("query"):
        operand = local_form(node.this)
        items = [local_form(n) for n in node.expressions]
        if operand is None or any(i is None for i in items):
            return None
        return InList(operand, tuple(items))  # type: ignore[arg-type]
    if isinstance(node, (exp.Cast, exp.Convert)) and not isinstance(node, exp.TryCast) and not node.args.get("style"):
        target, operand = (node.to, node.this) if isinstance(node, exp.Cast) else (node.this, node.expression)
        inner = local_form(operand) if isinstance(operand, exp.Expr) else None
        if inner is None or not isinstance(target, exp.DataType):
            return None
        type_text = target.sql("tsql")
        if base_type(type_text)[0] in _CONVERTIBLE:
            return Converted(inner, type_text)
        return None
    if isinstance(node, exp.Between):
        operand, low, high = local_form(node.this), local_form(node.args["low"]), local_form(node.args["high"])
        if operand is None or low is None or high is None:
            return None
        return Binary("AND", Binary(">=", operand, low), Binary("<=", operand, high))
    if isinstance(node, exp.Case):
        return _case(node)
    return _call(node)


def _case(node: exp.Case) -> Local | None:
    operand = local_form(node.this) if node.this is not None else None
    if node.this is not None and operand is None:
        return None
    whens = []
    for when in node.args.get("ifs") or []:
        condition, value = local_form(when.this), local_form(when.args["true"])
        if condition is None or value is None:
            return None
        whens.append((Binary("=", operand, condition) if operand is not None else condition, value))
    default = node.args.get("default")
    otherwise = local_form(default) if default is not None else Const(None)
    return Case(tuple(whens), otherwise) if otherwise is not None else None


_TYPED_CALLS: dict[type, str] = {
    exp.Replace: "REPLACE", exp.Upper: "UPPER", exp.Lower: "LOWER", exp.Length: "LEN", exp.Chr: "CHAR",
    exp.Substring: "SUBSTRING", exp.Left: "LEFT", exp.Right: "RIGHT", exp.Repeat: "REPLICATE",
}


def _call(node: exp.Expr) -> Local | None:
    """A call of one of `client_functions.FUNCTIONS`, its arguments worked out on the client too."""
    name: str | None = None
    arguments: list[exp.Expr] = []
    if isinstance(node, exp.Anonymous) and isinstance(node.this, str):
        name, arguments = node.this.upper(), list(node.expressions)
    elif isinstance(node, exp.Concat):
        name, arguments = "CONCAT", list(node.expressions)
    elif isinstance(node, exp.Trim) and node.args.get("expression") is None:
        position = (node.args.get("position") or "").upper()
        name, arguments = {"LEADING": "LTRIM", "TRAILING": "RTRIM"}.get(position, "TRIM"), [node.this]
    elif isinstance(node, exp.JSONExtractScalar) or (isinstance(node, exp.JSONExtract) and node.args.get("json_query")):
        name = "JSON_VALUE" if isinstance(node, exp.JSONExtractScalar) else "JSON_QUERY"
        path = node.expression
        if isinstance(path, exp.JSONPath):
            path = exp.Literal.string(path.sql("tsql")[1:-1].replace("''", "'"))
        arguments = [node.this, path]
    elif type(node) in _TYPED_CALLS:
        name = _TYPED_CALLS[type(node)]
        arguments = [a for a in (node.this, node.args.get("start"), node.args.get("length"), node.args.get("expression"),
                                 node.args.get("replacement"), node.args.get("times")) if isinstance(a, exp.Expr)]
    if name is None or name not in client_functions.FUNCTIONS:
        return None
    fewest, most, _ = client_functions.FUNCTIONS[name]
    if not fewest <= len(arguments) <= most:
        return None
    parts = [local_form(a) for a in arguments]
    if any(p is None for p in parts):
        return None
    return Call(name, tuple(parts))  # type: ignore[arg-type]


_TEXT_TYPES = {"char", "varchar", "nchar", "nvarchar"}
_INTEGER_TYPES = {"tinyint", "smallint", "int", "bigint"}
_CONVERTIBLE = _TEXT_TYPES | _INTEGER_TYPES


def _number(text: str) -> int | Decimal:
    try:
        return int(text)
    except ValueError:
        return Decimal(text)


Lookup = Callable[[str], Any]


@dataclass(frozen=True)
class Scope:
    """What an expression reads: the variables, the runner's own values, and whether text compares without case."""

    variables: Mapping[str, Any]
    runtime: Lookup
    case_insensitive: bool = True


_INT_RANGE = (-(2**31), 2**31 - 1)


def evaluate(node: Local, scope: Scope) -> Any:
    """The value of `node` by T-SQL's rules (True, False or None for a condition); NotLocal when the
    values met call for the server's rules."""
    if isinstance(node, Const):
        return node.value
    if isinstance(node, Var):
        if node.name not in scope.variables:
            raise TsqlError(137, f'Must declare the scalar variable "@{node.name}".', 15)
        return scope.variables[node.name]
    if isinstance(node, Runtime):
        return scope.runtime(node.name)
    if isinstance(node, IsNull):
        return (evaluate(node.operand, scope) is None) != node.negated
    if isinstance(node, FirstNotNull):
        for operand in node.operands:
            value = evaluate(operand, scope)
            if value is not None:
                return value
        return None
    if isinstance(node, InList):
        value = evaluate(node.operand, scope)
        found: bool | None = False
        for item in node.items:
            result = _compare("=", value, evaluate(item, scope), scope)
            if result:
                found = True
                break
            if result is None:
                found = None
        return (None if found is None else not found) if node.negated else found
    if isinstance(node, Unary):
        value = evaluate(node.operand, scope)
        if node.op == "NOT":
            return None if value is None else not _truth(value)
        if value is None:
            return None
        if isinstance(value, int) and not isinstance(value, bool):
            return -value
        raise NotLocal
    if isinstance(node, Converted):
        return _convert(evaluate(node.operand, scope), node.type)
    if isinstance(node, Call):
        return client_functions.call(node.name, [evaluate(a, scope) for a in node.arguments], scope.case_insensitive)
    if isinstance(node, Case):
        for condition, value in node.whens:
            if evaluate(condition, scope) is True:
                return evaluate(value, scope)
        return evaluate(node.otherwise, scope)
    if isinstance(node, Binary):
        if node.op in ("AND", "OR"):
            return _logic(node.op, evaluate(node.left, scope), lambda: evaluate(node.right, scope))
        left, right = evaluate(node.left, scope), evaluate(node.right, scope)
        if node.op in ("=", "<>", ">", ">=", "<", "<="):
            return _compare(node.op, left, right, scope)
        return _arithmetic(node.op, left, right)
    raise NotLocal


def _convert(value: Any, type_text: str) -> Any:
    base, size, _ = base_type(type_text)
    if value is None:
        return None
    if base in _TEXT_TYPES and type(value) is int:  # money and decimals are written by styles the server keeps
        text = str(value)
        length = 30 if size is None else None if size == "max" else int(size)  # CAST's default length is 30
        if length is not None and len(text) > length:
            raise NotLocal  # too long: SQL Server writes `*` or fails, by type
        return assign(text, f"{base}({size or 30})")
    if base in _INTEGER_TYPES and (type(value) is int or (isinstance(value, str) and value.strip().lstrip("+-").isdigit())):
        return assign(value, base)
    raise NotLocal


def _truth(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    raise NotLocal


def _logic(op: str, left: Any, right: Callable[[], Any]) -> bool | None:
    if left is not None:
        left = _truth(left)
    if op == "AND" and left is False:
        return False
    if op == "OR" and left is True:
        return True
    value = right()
    value = None if value is None else _truth(value)
    if op == "AND":
        return False if value is False else (None if left is None or value is None else True)
    return True if value is True else (None if left is None or value is None else False)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, Decimal, float)):
        return "number"
    if isinstance(value, str):
        return "text"
    if isinstance(value, (bytes, bytearray)):
        return "binary"
    if isinstance(value, datetime):
        return "datetime"
    if isinstance(value, date):
        return "date"
    return "other"


def _compare(op: str, left: Any, right: Any, scope: Scope) -> bool | None:
    if left is None or right is None:
        return None
    kind = _kind(left)
    if kind != _kind(right) or kind in ("bool", "other"):
        raise NotLocal  # T-SQL converts by type precedence; the server knows how
    if kind == "text":
        if op not in ("=", "<>"):
            raise NotLocal  # ordering follows the collation
        a, b = left.rstrip(" "), right.rstrip(" ")
        if scope.case_insensitive:
            a, b = a.casefold(), b.casefold()
        return (a == b) == (op == "=")
    if op == "=":
        return bool(left == right)
    if op == "<>":
        return bool(left != right)
    if op == ">":
        return bool(left > right)
    if op == ">=":
        return bool(left >= right)
    if op == "<":
        return bool(left < right)
    return bool(left <= right)


def _arithmetic(op: str, left: Any, right: Any) -> Any:
    if left is None or right is None:
        return None
    if isinstance(left, str) and isinstance(right, str) and op == "+":
        return left + right
    if not (type(left) is int and type(right) is int):
        raise NotLocal  # decimal, money and float keep their scale and precision by rules the server applies
    if op == "+":
        value = left + right
    elif op == "-":
        value = left - right
    elif op == "*":
        value = left * right
    else:
        if right == 0:
            raise TsqlError(8134, "Divide by zero error encountered.")
        quotient = abs(left) // abs(right)
        sign = -1 if (left < 0) != (right < 0) else 1
        value = sign * quotient if op == "/" else left - right * sign * quotient
    if not _INT_RANGE[0] <= value <= _INT_RANGE[1]:
        raise NotLocal  # int overflows, bigint may not: the server knows the operands' types
    return value
