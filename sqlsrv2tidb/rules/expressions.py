"""Why a T-SQL computed-column or CHECK expression cannot become a TiDB generated column or CHECK.

TiDB, like MySQL, accepts only deterministic built-in functions there: no stored or user-defined
functions, no subqueries, no variables, nothing that reads the clock, the session or a random
source. SQL Server allows user-defined functions in both, methods of CLR types
(`OrganizationNode.GetLevel()`), and the clock in non-persisted computed columns. Those are what
this module names; the DDL generator translates everything else.
TiDB generated columns: https://docs.pingcap.com/tidb/stable/generated-columns (rules enforced
since https://github.com/pingcap/tidb/pull/12251); CHECK:
https://dev.mysql.com/doc/refman/8.0/en/create-table-check-constraints.html

    >>> [p.reason for p in expression_problems("isnull('AW'+[dbo].[ufnLeadingZeros]([CustomerID]),'')")]
    ['user_function']
    >>> expression_problems("isnull([UnitPrice]*((1.0)-[UnitPriceDiscount])*[OrderQty],(0.0))")
    []
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

Reason = Literal["user_function", "type_method", "subquery", "nondeterministic", "variable", "unknown_function"]

# What sqlglot's T-SQL reader turns the clock, session, random and id functions into.
_NONDETERMINISTIC_NODES: tuple[type[exp.Expr], ...] = tuple(
    getattr(exp, name)
    for name in (
        "CurrentTimestamp", "CurrentDate", "CurrentTime", "CurrentDatetime", "CurrentTimestampLTZ",
        "CurrentUser", "CurrentSchema", "Uuid", "Rand", "Randn",
    )
    if hasattr(exp, name)
)
# The same, for the functions it leaves unnamed (exp.Anonymous).
_NONDETERMINISTIC_NAMES = {
    "getdate", "getutcdate", "sysdatetime", "sysutcdatetime", "sysdatetimeoffset", "current_timestamp",
    "newid", "newsequentialid", "rand", "crypt_gen_random", "user_name", "user_id", "suser_name", "suser_sname",
    "suser_id", "suser_sid", "current_user", "session_user", "system_user", "host_name", "host_id", "app_name",
    "original_login", "session_context", "context_info", "db_name", "db_id", "@@spid",
}
# T-SQL built-ins with a TiDB equivalent that sqlglot leaves unnamed; the DDL generator maps them.
_KNOWN_BUILTINS = {
    "checksum", "binary_checksum", "datalength", "soundex", "difference", "quotename", "stuff", "space",
    "replicate", "reverse", "patindex", "str", "unicode", "nchar", "char", "ascii", "choose", "isjson",
}


@dataclass(frozen=True)
class ExpressionProblem:
    reason: Reason
    detail: str
    """The offending call or construct, as written (`dbo.ufnLeadingZeros`, `getdate()`)."""

    def describe(self) -> str:
        return {
            "user_function": f"calls the user-defined function {self.detail}",
            "type_method": f"calls the CLR type method {self.detail}",
            "subquery": "contains a subquery",
            "nondeterministic": f"uses the non-deterministic {self.detail}",
            "variable": f"reads the variable {self.detail}",
            "unknown_function": f"calls {self.detail}, which has no known TiDB equivalent",
        }[self.reason]


def expression_problems(expression: str, column_names: frozenset[str] = frozenset()) -> list[ExpressionProblem]:
    """What in `expression` TiDB cannot evaluate in a generated column or CHECK; [] when nothing.

    `column_names` (case-folded) tells a method call on a column (`[Node].[GetLevel]()`) from a
    schema-qualified function (`[dbo].[ufnX](...)`).
    """
    try:
        tree = sqlglot.parse_one(expression, read="tsql")
    except SqlglotError:
        return _textual(expression)
    problems: list[ExpressionProblem] = []
    seen: set[tuple[str, str]] = set()

    def add(reason: Reason, detail: str) -> None:
        if (reason, detail.casefold()) not in seen:
            seen.add((reason, detail.casefold()))
            problems.append(ExpressionProblem(reason, detail))

    for node in tree.walk():
        if isinstance(node, (exp.Subquery, exp.Select)):
            add("subquery", "subquery")
        elif isinstance(node, exp.Dot) and isinstance(node.expression, exp.Anonymous):
            owner = node.this.sql(dialect="tsql").replace("[", "").replace("]", "")
            name = node.expression.name
            if owner.split(".")[-1].casefold() in column_names:
                add("type_method", f"{owner}.{name}()")
            else:
                add("user_function", f"{owner}.{name}")
        elif isinstance(node, _NONDETERMINISTIC_NODES):
            add("nondeterministic", _called(node))
        elif isinstance(node, exp.Parameter) and not isinstance(node.parent, exp.Parameter):
            add("variable", node.sql(dialect="tsql"))
        elif isinstance(node, exp.Anonymous) and not isinstance(node.parent, exp.Dot):
            name = node.name.casefold()
            if name in _NONDETERMINISTIC_NAMES:
                add("nondeterministic", f"{node.name}()")
            elif name not in _KNOWN_BUILTINS:
                add("unknown_function", f"{node.name}()")
    return problems


def _called(node: exp.Expr) -> str:
    sql = node.sql(dialect="tsql")
    return sql if sql.endswith(")") else f"{sql}()"


def _textual(expression: str) -> list[ExpressionProblem]:
    """For expressions sqlglot cannot parse: the two problems that show in plain text."""
    import re

    lowered = expression.casefold()
    problems = []
    for name in sorted(_NONDETERMINISTIC_NAMES - {"@@spid"}):
        if re.search(rf"\b{re.escape(name)}\s*\(", lowered):
            problems.append(ExpressionProblem("nondeterministic", f"{name}()"))
    if re.search(r"\bselect\b", lowered):
        problems.append(ExpressionProblem("subquery", "subquery"))
    return problems
