"""Statements SQL Server refuses: never translated into a statement TiDB runs with a meaning of its own.

A captured or scripted statement can be one SQL Server rejects (a query typed into a tool and never
run, a script of an older version). Translated as it stands, it would run on TiDB and answer
something: `ORDER BY 'Vote count'` sorts by a constant there, so `LIMIT 10` returns any ten rows;
a derived table without an alias fails on TiDB too, but for another reason. Each statement is read
for these before any rewrite, and one that SQL Server refuses is `unsupported`, saying which error
SQL Server gives.

- A constant in an ORDER BY list: Msg 408 ("A constant expression was encountered in the ORDER BY
  list"); an integer is a position, not a constant. In a window's ORDER BY every constant is refused
  (Msg 5309). `ORDER BY (SELECT NULL)` is a subquery, not a constant, and is accepted.
  https://learn.microsoft.com/sql/t-sql/queries/select-order-by-clause-transact-sql#arguments
- A derived table without an alias: a syntax error (Msg 102).
  https://learn.microsoft.com/sql/t-sql/queries/from-transact-sql#derived_table
"""

from __future__ import annotations

from sqlglot import exp

from .context import Context

CODE = "QY71"


def refused(tree: exp.Expr, nodes: list[exp.Expr], ctx: Context) -> bool:
    """Note (unsupported) and return True when SQL Server refuses the statement; `nodes` is every node of `tree`."""
    for node in nodes:
        reason = refusal(node)
        if reason is not None:
            say_refused(reason, ctx)
            return True
    return False


def say_refused(reason: str, ctx: Context) -> None:
    ctx.note(CODE, "unsupported", f"SQL Server refuses this statement ({reason}); TiDB would run it with a "
             "meaning of its own, so it is not translated.")


REFUSABLE = (exp.Ordered, exp.Subquery)
"""The node classes `refusal` finds a reason in."""


def refusal(node: exp.Expr) -> str | None:
    """Why SQL Server refuses a statement for this node of it, or None."""
    if isinstance(node, exp.Ordered) and isinstance(node.parent, exp.Order):
        key = node.this
        in_window = isinstance(node.parent.parent, exp.Window)
        if _constant(key, positions_allowed=not in_window):
            text = key.sql("tsql")
            if in_window:
                return f"Msg 5309: a window function's ORDER BY holds the constant {text}"
            return f"Msg 408: the ORDER BY list holds the constant {text}"
    if isinstance(node, exp.Subquery) and isinstance(node.parent, (exp.From, exp.Join)) and not node.alias \
            and isinstance(node.this, (exp.Select, exp.SetOperation)):  # not a parenthesized join, `(a JOIN b ON ...)`
        return "Msg 102: a derived table needs an alias"
    return None


def _constant(key: exp.Expr, positions_allowed: bool) -> bool:
    while isinstance(key, exp.Paren):
        key = key.this
    if isinstance(key, exp.National) or isinstance(key, exp.Null):
        return True
    if isinstance(key, exp.Literal):
        return key.is_string or not (positions_allowed and key.is_int)
    if isinstance(key, exp.Neg):
        return isinstance(key.this, exp.Literal)
    return False
