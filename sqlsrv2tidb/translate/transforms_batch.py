"""Batch-level T-SQL: variables, session settings, transactions, and statements TiDB lacks.

A captured batch is not only queries. DECLARE/SET of local variables become session user
variables (`SET @x = 5`), because a TiDB session has no batch scope and user variables are the
only variables outside stored programs; SET options become their TiDB setting or nothing;
cursors, TRY/CATCH, RAISERROR/THROW and control flow have no TiDB counterpart and are reported,
never dropped. `statement(tree, ctx)` returns the TiDB statements (possibly none), or None when
the tree is an ordinary query for the rest of the pipeline. EXEC, which may hold a batch of its
own, is `batch.execute`, beside the walk over a batch's statements.
https://docs.pingcap.com/tidb/stable/user-defined-variables
"""

from __future__ import annotations

import re

from sqlglot import exp

from .context import Context
from .scopes import parameter_name, table_key
from .temporary_tables import collation_properties
from .transforms import translate_tree
from .transforms_conversions import _DATE_TYPES

_ISOLATION = {
    # SQL Server level -> (TiDB level, status, note)
    "READ UNCOMMITTED": ("READ COMMITTED", "rewritten", "READ UNCOMMITTED becomes READ COMMITTED: TiDB never reads uncommitted rows."),
    "READ COMMITTED": ("READ COMMITTED", "translated", ""),
    "REPEATABLE READ": ("REPEATABLE READ", "review", "TiDB's REPEATABLE READ is snapshot isolation, not SQL Server's locking repeatable read."),
    "SNAPSHOT": ("REPEATABLE READ", "rewritten", "SNAPSHOT becomes REPEATABLE READ, which is snapshot isolation in TiDB."),
    "SERIALIZABLE": ("REPEATABLE READ", "review", "TiDB has no SERIALIZABLE: REPEATABLE READ (snapshot isolation) allows write skew."),
}
_NO_EFFECT = {
    "NOCOUNT", "ANSI_NULLS", "QUOTED_IDENTIFIER", "ANSI_WARNINGS", "ANSI_PADDING", "ARITHABORT", "CONCAT_NULL_YIELDS_NULL",
    "NUMERIC_ROUNDABORT", "ANSI_NULL_DFLT_ON", "ANSI_DEFAULTS", "STATISTICS", "SHOWPLAN_XML", "SHOWPLAN_TEXT",
    "SHOWPLAN_ALL", "FMTONLY", "NOEXEC", "PARSEONLY", "TEXTSIZE", "CURSOR_CLOSE_ON_COMMIT", "DEADLOCK_PRIORITY",
    "QUERY_GOVERNOR_COST_LIMIT", "CONTEXT_INFO", "REMOTE_PROC_TRANSACTIONS",
}
_CHANGES_MEANING = {
    "XACT_ABORT": "SET XACT_ABORT has no TiDB equivalent: a failed statement does not roll back the transaction.",
    "ROWCOUNT": "SET ROWCOUNT limits later statements in SQL Server; TiDB has no such setting (use LIMIT).",
    "DATEFORMAT": "SET DATEFORMAT has no TiDB equivalent: date strings are read as year-month-day.",
    "DATEFIRST": "SET DATEFIRST has no TiDB equivalent: week-day numbers follow Sunday = 1.",
    "LANGUAGE": "SET LANGUAGE has no TiDB equivalent: month and day names are English.",
    "IMPLICIT_TRANSACTIONS": "SET IMPLICIT_TRANSACTIONS ON corresponds to autocommit = 0 in TiDB.",
}


def statement(tree: exp.Expr, ctx: Context) -> list[exp.Expr] | None:
    """TiDB statements for a batch-level T-SQL statement, or None for an ordinary query."""
    if isinstance(tree, exp.Declare):
        return declare(tree, ctx)
    if isinstance(tree, exp.Set):
        return set_variables(tree, ctx)
    if isinstance(tree, exp.Command):
        return command(tree, ctx)
    if isinstance(tree, (exp.IfBlock, exp.WhileBlock, exp.Block)):
        ctx.note("QY31", "unsupported", "IF/WHILE/BEGIN...END control flow: TiDB has no procedural SQL outside stored programs (which it lacks).")
        return []
    if isinstance(tree, exp.Anonymous) and tree.name.upper() == "RAISERROR":
        ctx.note("QY32", "unsupported", "RAISERROR has no TiDB equivalent: raise the error in the application.")
        return []
    if isinstance(tree, exp.Use):
        name = tree.this.name if tree.this is not None else ""
        if ctx.database.name and name.lower() != ctx.database.name.lower():
            ctx.note("QY29", "review", f"USE {name}: the statements after it name another database; replay runs against the target database.")
        else:
            ctx.note("QY39", "rewritten", f"USE {name} is dropped: replay connects to the target database directly.")
        return []
    if isinstance(tree, (exp.Transaction, exp.Commit, exp.Rollback)):
        if isinstance(tree, exp.Rollback) and tree.this is not None:
            return [exp.Command(this="ROLLBACK", expression=exp.Literal.string(f"TO SAVEPOINT {tree.this.name}"))]
        return [tree.__class__()]
    if isinstance(tree, exp.Select) and tree.selects and all(_is_assignment(p) for p in tree.selects):
        return assign_from_select(tree, ctx)
    if isinstance(tree, exp.Create) and tree.kind and tree.kind.upper() in ("PROCEDURE", "FUNCTION", "TRIGGER"):
        ctx.note("QY24", "unsupported", f"CREATE {tree.kind.upper()}: TiDB has no stored procedures, functions or triggers.")
        return []
    if isinstance(tree, exp.Create) and tree.kind and tree.kind.upper() == "TABLE":
        return create_table(tree, ctx)
    if isinstance(tree, exp.Drop):
        return drop(tree, ctx)
    if isinstance(tree, exp.Create) and (tree.kind or "").upper() == "INDEX" and not ctx.options.mysql \
            and _on_local_temporary_table(tree):
        return temporary_index(tree, ctx)
    if isinstance(tree, exp.Alter) or (isinstance(tree, exp.Create) and tree.kind and tree.kind.upper() != "VIEW"):
        ctx.note("QY48", "review", "DDL in the workload is translated as written; the schema itself comes from the DDL generator (ddl/).")
    return None


def _on_local_temporary_table(tree: exp.Create) -> bool:
    index = tree.this
    table = index.args.get("table") if isinstance(index, exp.Index) else None
    return isinstance(table, exp.Table) and isinstance(table.this, exp.Identifier) \
        and bool(table.this.args.get("temporary"))


def temporary_index(tree: exp.Create, ctx: Context) -> list[exp.Expr]:
    """`CREATE INDEX ... ON #t (...)` is left out; a UNIQUE one is unsupported.

    TiDB indexes a local temporary table only in its CREATE TEMPORARY TABLE: CREATE INDEX and ALTER TABLE on one
    fail (error 8200). A nonunique index changes no answer, only how fast a lookup is, so leaving it out keeps
    the batch's meaning; a unique index also refuses duplicate rows, which nothing else on TiDB would.
    https://docs.pingcap.com/tidb/stable/temporary-tables#limitations-of-local-temporary-tables
    """
    index = tree.this
    table = index.args["table"]
    name = f"{index.name} ON #{table.name}"
    if tree.args.get("unique"):
        ctx.note("QY79", "unsupported", f"UNIQUE index {name}: TiDB indexes a local temporary table only in its "
                 "CREATE TEMPORARY TABLE (error 8200), and a unique index refuses duplicate rows: declare the key in "
                 "the table's definition.")
        return []
    ctx.note("QY79", "rewritten", f"Index {name} is left out: TiDB indexes a local temporary table only in its CREATE "
             "TEMPORARY TABLE (error 8200); an index that is not unique changes no answer, only how fast lookups are.")
    return []


def _is_assignment(projection: exp.Expr) -> bool:
    return isinstance(projection, exp.EQ) and isinstance(projection.this, exp.Parameter) and not isinstance(projection.this.this, exp.Parameter)


def declare(tree: exp.Declare, ctx: Context) -> list[exp.Expr]:
    """`DECLARE @x int = 5, @s nvarchar(10)` -> `SET @x = 5, @s = NULL`; `DECLARE @t TABLE (...)` -> a temporary table.

    A DECLAREd variable starts as NULL; user variables keep their value for the session, so each
    one is set explicitly.
    https://learn.microsoft.com/sql/t-sql/language-elements/declare-local-variable-transact-sql
    https://docs.pingcap.com/tidb/stable/user-defined-variables
    """
    assignments: list[exp.Expr] = []
    out: list[exp.Expr] = []
    for item in tree.expressions:
        names = item.this if isinstance(item.this, list) else [item.this]
        kind = item.args.get("kind")
        for name_node in names:
            name = parameter_name(name_node) if isinstance(name_node, exp.Parameter) else name_node.name
            if isinstance(kind, exp.Schema):
                out.extend(_table_variable(name, kind, ctx))
                continue
            ctx.local_variables.add(name.lower())
            if isinstance(kind, exp.DataType):
                ctx.types.variables[name.lower()] = kind
            default = item.args.get("default")
            if ctx.options.mysql and isinstance(kind, exp.DataType) and kind.this in _DATE_TYPES \
                    and isinstance(default, exp.Literal) and default.is_string:
                # SQL Server converts the string to the variable's type as it assigns it ('99991231 23:59:59.9999999'
                # is a datetime2); a user variable keeps the string, which MySQL then refuses as a DATETIME
                # (error 1292), where TiDB reads it with a warning. (TiDB's translations keep the string as recorded.)
                default = exp.Cast(this=default.copy(), to=kind.copy())
            value = _translated_expression(default, ctx) if isinstance(default, exp.Expr) else exp.Null()
            assignments.append(exp.EQ(this=exp.Parameter(this=exp.var(name)), expression=value))
    if assignments:
        ctx.note("QY26", "rewritten", "Local variables become session user variables (@name), set explicitly because they start as NULL.")
        out.insert(0, exp.Set(expressions=[exp.SetItem(this=a) for a in assignments]))
    return out


def declare_columns(table: exp.Table, schema: exp.Schema, ctx: Context) -> None:
    """Tell the type model the columns of a temp table or table variable the batch makes: their declared types, and
    which an INSERT without a column list leaves out (IDENTITY; a computed column has no declared type at all)."""
    key = table_key(table)
    columns = [c for c in schema.expressions if isinstance(c, exp.ColumnDef)]
    ctx.types.temp_tables[key] = {c.name.lower(): c.args["kind"] for c in columns if c.args.get("kind")}
    ctx.types.temp_generated[key] = frozenset(
        c.name.lower() for c in columns if any(isinstance(k.args.get("kind"), exp.GeneratedAsIdentityColumnConstraint)
                                               for k in c.args.get("constraints") or ()))


def _table_variable(name: str, schema: exp.Schema, ctx: Context) -> list[exp.Expr]:
    table = exp.Table(this=exp.Parameter(this=exp.var(name)))
    declare_columns(table, schema, ctx)
    ctx.note("QY16", "rewritten", f"Table variable @{name} becomes temporary table var_{name}, dropped first because a session keeps it.")
    drop_stmt = exp.Drop(tables=[table.copy()], kind="TABLE", exists=True, temporary=True)
    create = exp.Create(this=exp.Schema(this=table, expressions=[e.copy() for e in schema.expressions]), kind="TABLE",
                        properties=exp.Properties(expressions=[exp.TemporaryProperty(),
                                                               *collation_properties(ctx, schema.expressions)]))
    return [_finish(drop_stmt, ctx), _finish(create, ctx)]


def _finish(tree: exp.Expr, ctx: Context) -> exp.Expr:
    translated = translate_tree(tree, ctx)
    return _identity_columns(translated[0]) if translated else tree


def _translated_expression(node: exp.Expr, ctx: Context) -> exp.Expr:
    wrapper = exp.select(node.copy())
    result = translate_tree(wrapper, ctx)
    return result[0].selects[0] if result and isinstance(result[0], exp.Select) else node


def set_variables(tree: exp.Set, ctx: Context) -> list[exp.Expr]:
    """`SET @x = (SELECT MAX(a) FROM t)` -> the same, on a user variable; `SET NOCOUNT ON` -> nothing.
    https://docs.pingcap.com/tidb/stable/sql-statement-set-variable
    """
    items = []
    for item in tree.expressions:
        assignment = item.this if isinstance(item, exp.SetItem) else item
        if not (isinstance(assignment, exp.EQ) and isinstance(assignment.this, exp.Parameter)):
            return session_option(assignment.sql("sqlserver"), ctx)
        name = parameter_name(assignment.this)
        if name.lower() not in ctx.local_variables:
            ctx.local_variables.add(name.lower())
            ctx.note("QY26", "rewritten", f"@{name} is set without a DECLARE in this batch: it becomes a session user variable.")
        value = _translated_expression(assignment.expression, ctx)
        items.append(exp.SetItem(this=exp.EQ(this=exp.Parameter(this=exp.var(name)), expression=value)))
    return [exp.Set(expressions=items)]


def assign_from_select(tree: exp.Select, ctx: Context) -> list[exp.Expr]:
    """`SELECT @n = COUNT(*) FROM t` -> `SET @n = (SELECT COUNT(*) FROM t)`.

    TiDB does not support SELECT ... INTO @variable. T-SQL assigns from the last row when the query
    returns several; a subquery must return one, so anything but an aggregate without GROUP BY or a
    TOP 1 is flagged. https://docs.pingcap.com/tidb/stable/mysql-compatibility
    """
    single = (
        not tree.args.get("group")
        and all(any(isinstance(n, exp.AggFunc) for n in p.expression.walk()) for p in tree.selects)
    ) or _limit_one(tree) or tree.args.get("from_") is None
    order = tree.args.get("order")
    items = []
    for projection in tree.selects:
        name = parameter_name(projection.this)
        ctx.local_variables.add(name.lower())
        if tree.args.get("from_") is None:
            value = _translated_expression(projection.expression, ctx)
        else:
            query = tree.copy()
            query.set("expressions", [projection.expression.copy()])
            if not single:
                # The variable ends with the last row's value: reverse the order and take the first.
                if order is not None:
                    query.set("order", exp.Order(expressions=[_reversed(o) for o in order.expressions]))
                query.set("limit", exp.Limit(expression=exp.Literal.number(1)))
            translated = translate_tree(query, ctx)
            value = exp.Subquery(this=translated[0]) if translated else exp.Null()
        items.append(exp.SetItem(this=exp.EQ(this=exp.Parameter(this=exp.var(name)), expression=value)))
    if single:
        ctx.note("QY26", "rewritten", "SELECT @var = ... becomes SET @var = (SELECT ...).")
    elif order is not None:
        ctx.note("QY26", "rewritten", "SELECT @var = ... ORDER BY keeps the last row's value: it becomes SET @var = "
                 "(SELECT ... ORDER BY <reversed> LIMIT 1).")
    else:
        ctx.note("QY26", "review", "SELECT @var = ... over several rows keeps an arbitrary last row's value; the rewrite "
                 "takes one row (LIMIT 1).")
    return [exp.Set(expressions=items)]


def _reversed(ordered: exp.Expr) -> exp.Expr:
    if not isinstance(ordered, exp.Ordered):
        return exp.Ordered(this=ordered.copy(), desc=True, nulls_first=False)
    return exp.Ordered(this=ordered.this.copy(), desc=not ordered.args.get("desc"),
                       nulls_first=not ordered.args.get("nulls_first"))


def _limit_one(tree: exp.Select) -> bool:
    limit = tree.args.get("limit")
    return isinstance(limit, exp.Limit) and limit.expression.is_int and int(limit.expression.name) == 1


def session_option(text: str, ctx: Context) -> list[exp.Expr]:
    """`SET NOCOUNT ON` -> nothing; `SET LOCK_TIMEOUT 5000` -> `SET innodb_lock_wait_timeout = 5`;
    `SET TRANSACTION ISOLATION LEVEL SNAPSHOT` -> `SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ`.
    https://docs.pingcap.com/tidb/stable/system-variables
    """
    words = re.sub(r"\s+", " ", text.strip().rstrip(";")).split(" ")
    body = " ".join(words[1:] if words and words[0].upper() == "SET" else words)
    upper = body.upper()
    if upper.startswith("TRANSACTION ISOLATION LEVEL"):
        level = upper.removeprefix("TRANSACTION ISOLATION LEVEL").strip()
        target, status, message = _ISOLATION.get(level, ("REPEATABLE READ", "review", f"Isolation level {level} is unknown."))
        if message:
            ctx.note("QY39", status, message)  # type: ignore[arg-type]
        return [exp.Command(this="SET", expression=exp.Literal.string(f"SESSION TRANSACTION ISOLATION LEVEL {target}"))]
    option = re.split(r"[\s,=]", upper, maxsplit=1)[0]
    if option == "IDENTITY_INSERT":
        ctx.note("QY22", "rewritten", "SET IDENTITY_INSERT is not needed: TiDB accepts explicit values in AUTO_INCREMENT columns "
                 "(AUTO_RANDOM columns need @@allow_auto_random_explicit_insert).")
        return []
    if option == "LOCK_TIMEOUT":
        match = re.search(r"-?\d+", body)
        millis = int(match[0]) if match else -1
        if millis < 0:
            ctx.note("QY39", "review", "SET LOCK_TIMEOUT -1 (wait forever) has no TiDB equivalent; the TiDB default applies.")
            return []
        if millis == 0:
            ctx.note("QY39", "review", "SET LOCK_TIMEOUT 0 (fail at once on a locked row) becomes innodb_lock_wait_timeout = 1, "
                     "TiDB's shortest wait: statements wait a second instead of failing at once.")
        else:
            ctx.note("QY39", "rewritten", "SET LOCK_TIMEOUT (milliseconds) becomes innodb_lock_wait_timeout (whole seconds, "
                     "rounded up).")
        seconds = max(1, -(-millis // 1000))
        return [exp.Command(this="SET", expression=exp.Literal.string(f"SESSION innodb_lock_wait_timeout = {seconds}"))]
    if option in _CHANGES_MEANING:
        ctx.note("QY39", "review", _CHANGES_MEANING[option])
        return []
    if option in _NO_EFFECT or all(w.strip(",") in _NO_EFFECT for w in upper.split() if w not in ("ON", "OFF")):
        ctx.note("QY39", "rewritten", f"SET {option} is dropped: it has no effect on TiDB.")
        return []
    ctx.note("QY39", "review", f"SET {option} has no TiDB equivalent and is dropped.")
    return []


def command(tree: exp.Command, ctx: Context) -> list[exp.Expr]:
    """Statements sqlglot keeps as raw commands: `WAITFOR DELAY '00:00:02'` -> `DO SLEEP(2)`,
    `SAVE TRANSACTION s` -> `SAVEPOINT s`; THROW, cursors and TRY...CATCH -> unsupported; PRINT -> nothing.
    https://learn.microsoft.com/sql/t-sql/language-elements/waitfor-transact-sql
    https://docs.pingcap.com/tidb/stable/sql-statement-savepoint
    """
    word = (tree.this if isinstance(tree.this, str) else tree.name).upper()
    rest = tree.expression.name if isinstance(tree.expression, exp.Expr) else str(tree.expression or "")
    if word == "SET":
        return session_option("SET " + rest, ctx)
    if word == "WAITFOR":
        match = re.fullmatch(r"DELAY\s+N?'(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d+))?'", rest.strip(), re.IGNORECASE)
        if match:
            seconds = int(match[1]) * 3600 + int(match[2]) * 60 + int(match[3]) + float("0." + (match[4] or "0"))
            ctx.note("QY34", "rewritten", "WAITFOR DELAY becomes DO SLEEP(seconds).")
            return [exp.Command(this="DO", expression=exp.Literal.string(f"SLEEP({seconds:g})"))]
        ctx.note("QY34", "unsupported", f"WAITFOR {rest.split(' ')[0]}: TiDB can only sleep for a fixed time (DO SLEEP).")
        return []
    if word == "THROW":
        ctx.note("QY32", "unsupported", "THROW has no TiDB equivalent outside stored programs: raise the error in the application.")
        return []
    if word == "PRINT":
        ctx.note("QY47", "rewritten", "PRINT is dropped: TiDB has no message channel; the message never reached the result set.")
        return []
    if word == "SAVE":
        name = rest.split()[-1] if rest.split() else "sp"
        ctx.note("QY39", "rewritten", "SAVE TRANSACTION becomes SAVEPOINT.")
        return [exp.Command(this="SAVEPOINT", expression=exp.Literal.string(name))]
    if word in ("DECLARE", "OPEN", "FETCH", "CLOSE", "DEALLOCATE") and (word != "DECLARE" or "CURSOR" in rest.upper()):
        ctx.note("QY33", "unsupported", "Cursors have no TiDB equivalent outside stored programs: iterate in the application.")
        return []
    if word in ("BEGIN",) and rest.upper().startswith(("TRY", "CATCH")):
        ctx.note("QY31", "unsupported", "TRY...CATCH has no TiDB equivalent: handle errors in the application.")
        return []
    if word == "ALTER" and re.match(r"\s*SEQUENCE\b", rest, re.IGNORECASE) and not ctx.options.mysql:
        altered = alter_sequence(rest, ctx)
        if altered is not None:
            return [altered]
    ctx.note("QY49", "unsupported", f"{word} {rest[:40]}: no TiDB equivalent.")
    return []


_ALTER_SEQUENCE = re.compile(r"^\s*SEQUENCE\s+(?P<name>(?:\[[^\]]+\]|\w+)(?:\s*\.\s*(?:\[[^\]]+\]|\w+)){0,2})\s+"
                             r"(?P<options>(?:RESTART(?:\s+WITH\s+-?\d+)?|INCREMENT\s+BY\s+-?\d+|(?:MINVALUE|MAXVALUE)\s+-?\d+|"
                             r"NO\s+(?:MINVALUE|MAXVALUE|CYCLE|CACHE)|CYCLE|CACHE(?:\s+\d+)?|\s)+?)\s*;?\s*$",
                             re.IGNORECASE | re.DOTALL)


def alter_sequence(rest: str, ctx: Context) -> exp.Expr | None:
    """`ALTER SEQUENCE Sequences.[OrderID] RESTART WITH 42` -> `ALTER SEQUENCE OrderID RESTART WITH 42`: TiDB's
    sequences take the same options, the name as the DDL made it.
    https://docs.pingcap.com/tidb/stable/sql-statement-alter-sequence
    https://learn.microsoft.com/sql/t-sql/statements/alter-sequence-transact-sql
    """
    m = _ALTER_SEQUENCE.match(rest)
    if m is None:
        return None
    parts = [part.strip().strip("[]") for part in m["name"].split(".")]
    schema, name = (parts[-2] if len(parts) > 1 else None), parts[-1]
    options = " ".join(m["options"].split())
    options = re.sub(r"\bNO\s+CACHE\b", "NOCACHE", options, flags=re.IGNORECASE)
    ctx.note("QY49", "rewritten", "ALTER SEQUENCE keeps its options on TiDB's sequence of the same name.")
    return exp.Command(this="ALTER", expression=exp.Literal.string(f"SEQUENCE {ctx.names.object(schema, name).quoted()} {options}"))


def create_table(tree: exp.Create, ctx: Context) -> list[exp.Expr] | None:
    """`CREATE TABLE #t (id int IDENTITY PRIMARY KEY, ...)` -> `CREATE TEMPORARY TABLE tmp_t (id INT AUTO_INCREMENT PRIMARY KEY, ...)`.
    https://docs.pingcap.com/tidb/stable/temporary-tables
    """
    schema = tree.this
    table = schema.this if isinstance(schema, exp.Schema) else schema
    if isinstance(table, exp.Table) and isinstance(schema, exp.Schema):
        declare_columns(table, schema, ctx)
        ident = table.this
        if isinstance(ident, exp.Identifier) and (ident.args.get("temporary") or ident.args.get("global_")):
            properties = tree.args.get("properties")
            kept = [p for p in properties.expressions if not isinstance(p, exp.TemporaryProperty)] if properties else []
            if not any(isinstance(p, (exp.CharacterSetProperty, exp.CollateProperty)) for p in kept):
                kept += collation_properties(ctx, schema.expressions)
            tree = tree.copy()
            tree.set("properties", exp.Properties(expressions=[exp.TemporaryProperty(), *kept]))
        else:
            ctx.note("QY48", "review", "CREATE TABLE in the workload is translated as written; the schema itself comes from the DDL generator (ddl/).")
    translated = translate_tree(tree, ctx)
    return [_identity_columns(t) for t in translated]


def _identity_columns(tree: exp.Expr) -> exp.Expr:
    """IDENTITY(1,1) -> AUTO_INCREMENT; CLUSTERED/NONCLUSTERED and filegroups have no TiDB meaning here."""
    for constraint in list(tree.find_all(exp.GeneratedAsIdentityColumnConstraint)):
        parent = constraint.parent
        if isinstance(parent, exp.ColumnConstraint):
            parent.set("kind", exp.AutoIncrementColumnConstraint())
    for node in list(tree.find_all(exp.ClusteredColumnConstraint, exp.NonClusteredColumnConstraint)):
        parent = node.parent
        if isinstance(parent, exp.ColumnConstraint):
            parent.pop()
    for prop in list(tree.find_all(exp.OnProperty)):
        prop.pop()
    for key in tree.find_all(exp.PrimaryKey):
        key.set("options", None)
    return tree


def drop(tree: exp.Drop, ctx: Context) -> list[exp.Expr] | None:
    """`DROP TABLE #t` -> `DROP TEMPORARY TABLE tmp_t` (never a permanent table of the same name).
    https://docs.pingcap.com/tidb/stable/sql-statement-drop-table
    """
    tables = tree.args.get("tables") or ([tree.this] if tree.this is not None else [])
    session = [t for t in tables if isinstance(t, exp.Table) and isinstance(t.this, exp.Identifier)
               and (t.this.args.get("temporary") or t.this.args.get("global_"))]
    if session and len(session) == len(tables):
        tree = tree.copy()
        tree.set("temporary", True)
        return translate_tree(tree, ctx)
    if tree.kind and tree.kind.upper() in ("PROCEDURE", "FUNCTION", "TRIGGER"):
        ctx.note("QY24", "unsupported", f"DROP {tree.kind.upper()}: TiDB has no stored procedures, functions or triggers.")
        return []
    ctx.note("QY48", "review", "DDL in the workload is translated as written; the schema itself comes from the DDL generator (ddl/).")
    return None

