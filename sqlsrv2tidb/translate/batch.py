"""A batch's statements translated in order, the statements inside EXEC of literal SQL included.

A batch is walked statement by statement: batch-level statements (DECLARE, SET, transactions, DDL)
go to `transforms_batch`, queries through the rewrite pipeline (`transforms`). `EXEC sp_executesql
N'...'` and `EXEC ('...')` with literal text hold a batch of their own, which is walked here the
same way; so the walk and EXEC live together, and `transforms_batch` never calls back into it.
"""

from __future__ import annotations

import re

from sqlglot import exp

from ..errors import one_line
from . import transforms_batch
from .context import Context
from .scopes import parameter_name
from .statements import Statement, parse_statements
from .transforms import translate_tree


def translate_statements(statements: list[Statement], ctx: Context) -> list[exp.Expr]:
    """Translate a batch's statements in order; the context carries variables and temp tables along."""
    _declare_ahead(statements, ctx)
    out: list[exp.Expr] = []
    for statement in statements:
        if statement.error is not None:
            code, message = unreadable(statement)
            ctx.note(code, "unsupported", message)
            continue
        if statement.control_flow:
            ctx.note("QY31", "unsupported", "Control flow (IF, WHILE, BEGIN...END, TRY...CATCH, GOTO, RETURN): TiDB has no "
                     "procedural SQL outside stored programs, so the batch cannot run as one unit.")
            continue
        tree = statement.tree
        if tree is None:
            continue
        if isinstance(tree, (exp.Execute, exp.ExecuteSql)):
            handled: list[exp.Expr] | None = execute(tree, ctx)
        else:
            handled = transforms_batch.statement(tree, ctx)
        if handled is not None:
            out.extend(handled)
            ctx.previous = tree
            continue
        previous = _as_previous(tree)  # what the next statement reads of this one, taken before it is rewritten
        out.extend(translate_tree(tree, ctx, in_place=True))
        ctx.previous = previous
    return out


def _as_previous(tree: exp.Expr) -> exp.Expr:
    """What a statement that follows reads of this one (`Context.previous`: whether it was a query, and an
    INSERT's target table): a stand-in of its kind, so the statement itself is rewritten in place, not copied."""
    if isinstance(tree, exp.Insert):
        return exp.Insert(this=tree.this.copy() if tree.this is not None else None)
    if isinstance(tree, exp.Query):
        return exp.Select()
    return tree.__class__()


# Statements sqlglot cannot read whose kind is still clear from their text: each gets the note of
# what it is (dynamic SQL, a procedure call, OUTPUT) rather than "could not be read". First match wins.
_UNREADABLE: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"^\s*(?:INSERT\b.*?\b)?EXEC(?:UTE)?\s*\(", re.IGNORECASE | re.DOTALL), "QY25",
     "EXEC (...) of SQL built at run time: dynamic SQL is unknown until it runs; capture the statements it executes instead."),
    (re.compile(r"^\s*INSERT\b.*?\bEXEC(?:UTE)?\b", re.IGNORECASE | re.DOTALL), "QY24",
     "INSERT ... EXEC of a stored procedure: TiDB has no stored procedures; run the procedure's query in the INSERT ... "
     "SELECT, or its logic in the application."),
    (re.compile(r"^\s*EXEC(?:UTE)?\b", re.IGNORECASE), "QY24",
     "EXEC of a stored procedure: TiDB has no stored procedures; move its logic to the application."),
    (re.compile(r"\bOUTPUT\b", re.IGNORECASE), "QY11",
     "A statement with an OUTPUT clause: TiDB has no OUTPUT/RETURNING; read the rows in a separate SELECT."),
)


def unreadable(statement: Statement) -> tuple[str, str]:
    """The note code and message for a statement sqlglot could not read."""
    text = re.sub(r"N?'(?:[^']|'')*'", "''", statement.sql)  # words inside string literals say nothing
    for pattern, code, message in _UNREADABLE:
        if pattern.search(text):
            return code, f"{message} ({statement.error})"
    return "QY01", f"T-SQL that could not be read: {statement.error} in `{one_line(statement.sql, 120)}`"


def _declare_ahead(statements: list[Statement], ctx: Context) -> None:
    """Know every DECLAREd variable's type before translating the statements that use it."""
    for statement in statements:
        if isinstance(statement.tree, exp.Declare):
            for item in statement.tree.expressions:
                kind = item.args.get("kind")
                for name in item.this if isinstance(item.this, list) else [item.this]:
                    if isinstance(name, exp.Parameter) and isinstance(kind, exp.DataType):
                        ctx.types.variables.setdefault(name.this.name.lower(), kind)


def inner_statements(text: str, values: dict[str, exp.Expr], ctx: Context) -> list[exp.Expr]:
    """The statements of dynamic SQL given as a literal (sp_executesql, EXEC ('...')), with the
    values passed to its parameters put in their place."""
    statements = parse_statements(text)
    bound = []
    for statement in statements:
        tree = statement.tree
        if tree is not None and values:
            tree = tree.copy()
            for node in list(tree.find_all(exp.Parameter)):
                name = node.this.name.lower() if not isinstance(node.this, exp.Parameter) else ""
                if name in values:
                    node.replace(values[name].copy())
            statement = Statement(statement.sql, tree=tree)
        bound.append(statement)
    return translate_statements(bound, ctx)


def execute(tree: exp.Expr, ctx: Context) -> list[exp.Expr]:
    """`EXEC dbo.p @a = 1` -> unsupported (TiDB has no procedures); `EXEC sp_executesql N'...', N'@a int', @a = 1`
    and `EXEC ('SELECT ...')` with literal text -> the inner statement, translated, with the values bound.
    https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-executesql-transact-sql
    https://docs.pingcap.com/tidb/stable/mysql-compatibility#unsupported-features
    """
    target = tree.this
    if isinstance(tree, exp.ExecuteSql) or (isinstance(target, exp.Table) and target.name.lower() == "sp_executesql"):
        args = tree.expressions
        text = args[0] if args else None
        if not isinstance(text, (exp.National, exp.Literal)) or not (isinstance(text, exp.National) or text.is_string):
            ctx.note("QY25", "unsupported", "sp_executesql with SQL text built at run time: the statement is unknown until it runs.")
            return []
        values = {}
        for arg in args[2:]:
            if isinstance(arg, exp.EQ) and isinstance(arg.this, exp.Parameter):
                values[parameter_name(arg.this).lower()] = arg.expression
        ctx.note("QY25", "rewritten", "sp_executesql with literal SQL runs the statement directly, with the values bound in place.")
        return inner_statements(text.name, values, ctx)
    if isinstance(target, exp.Subquery):
        inner = target.this
        if isinstance(inner, exp.Table) and isinstance(inner.this, exp.Identifier) and inner.this.quoted and " " in inner.name:
            ctx.note("QY25", "rewritten", "EXEC ('literal SQL') runs the statement directly.")
            return inner_statements(inner.name, {}, ctx)
        ctx.note("QY25", "unsupported", "EXEC (@sql): dynamic SQL is unknown until it runs; capture the statements it executes instead.")
        return []
    name = target.sql("sqlserver") if target is not None else "?"
    module = ctx.database.modules and next(
        (m for m in ctx.database.modules if m.kind == "procedure" and m.qualified_name.lower().endswith(name.lower().split(".")[-1])), None
    )
    size = f" ({module.line_count} lines)" if module else ""
    ctx.note("QY24", "unsupported", f"EXEC {name}{size}: TiDB has no stored procedures; move its logic to the application.")
    return []
