"""Statement-level rewrites: SELECT ... INTO, UPDATE/DELETE ... FROM ... JOIN, and OUTPUT.

These change the statement's shape, sometimes into two statements (TiDB has no CREATE TABLE ...
AS SELECT, so SELECT INTO becomes CREATE TABLE plus INSERT ... SELECT). MERGE lives in
`transforms_merge`. Each function returns the list of TiDB statements that replace the input.
"""

from __future__ import annotations

from sqlglot import exp

from .transforms import Context
from .transforms_pivot import source_columns
from .typing import _sources as sources
from .typing import dml_target, table_key


def rewrite_statement(tree: exp.Expr, ctx: Context) -> list[exp.Expr]:
    """Dispatch on the statement's kind; statements without a T-SQL-only shape pass through."""
    from .transforms_merge import merge

    if isinstance(tree, exp.Select) and tree.args.get("into") is not None:
        return select_into(tree, ctx)
    if isinstance(tree, exp.Merge):
        return merge(tree, ctx)
    if isinstance(tree, (exp.Insert, exp.Update, exp.Delete)) and tree.args.get("returning") is not None:
        return output_clause(tree, ctx)
    if isinstance(tree, exp.Update) and tree.args.get("from_") is not None:
        return [update_from(tree, ctx)]
    if isinstance(tree, exp.Delete) and tree.args.get("tables"):
        return [delete_from(tree, ctx)]
    return [tree]


def update_from(update: exp.Update, ctx: Context) -> exp.Expr:
    """`UPDATE t SET v = s.v FROM t JOIN s ON t.id = s.id` -> `UPDATE t JOIN s ON t.id = s.id SET t.v = s.v`.

    T-SQL names the target and then a FROM clause that usually repeats it; MySQL's multi-table
    UPDATE joins in place. sqlglot's MySQL writer joins the target to itself instead
    (`UPDATE t JOIN t ON TRUE ...`), which updates every row.
    https://learn.microsoft.com/sql/t-sql/queries/update-transact-sql#from-table_source
    https://docs.pingcap.com/tidb/stable/sql-statement-update
    """
    target = update.this
    source = update.args["from_"].this
    if update.args.get("limit") is not None or update.args.get("order") is not None:
        ctx.note("QY05", "unsupported", "UPDATE TOP (n) ... FROM has no TiDB form: a multi-table UPDATE takes no LIMIT.")
        return update
    found = dml_target(update, target)
    new = update.copy()
    new.set("from_", None)
    if found is not None:
        qualifier = found.alias_or_name
        new.set("this", source.copy())
    else:
        qualifier = target.alias_or_name
        joined = target.copy()
        joins = [exp.Join(this=source.copy())]
        joins[0].this.set("joins", None)
        joins.extend(j.copy() for j in source.args.get("joins") or [])
        joined.set("joins", joins)
        new.set("this", joined)
    for assignment in new.expressions:
        column = assignment.this
        if isinstance(column, exp.Column) and not column.table:
            column.set("table", exp.to_identifier(qualifier))
    ctx.note("QY05", "rewritten", "UPDATE ... FROM ... JOIN becomes MySQL's multi-table UPDATE (joins before SET).")
    return new


def delete_from(delete: exp.Delete, ctx: Context) -> exp.Expr:
    """`DELETE FROM dbo.orders FROM dbo.orders o JOIN ...` -> `DELETE o FROM orders AS o JOIN ...`.

    T-SQL binds a DELETE target that names a FROM table to that reference, aliased or not; MySQL's
    multi-table DELETE must name it by its alias (error 1109, unknown table, otherwise). A target
    absent from FROM is joined to the FROM sources, as SQL Server does.
    https://learn.microsoft.com/sql/t-sql/statements/delete-transact-sql#from-table_source
    https://docs.pingcap.com/tidb/stable/sql-statement-delete
    """
    new = delete.copy()
    targets = []
    for target in new.args["tables"]:
        bound = dml_target(new, target)
        if bound is None and isinstance(new.this, exp.Table):
            joined = target.copy()
            joined.set("joins", [exp.Join(this=new.this.copy())])
            joined.args["joins"][0].this.set("joins", None)
            joined.args["joins"].extend(j.copy() for j in new.this.args.get("joins") or [])
            new.set("this", joined)
            ctx.note("QY05", "rewritten", "DELETE ... FROM without its target in FROM joins the target to the FROM sources.")
            targets.append(target)
        elif bound is not None and bound.alias and bound.alias.lower() != target.name.lower():
            ctx.note("QY05", "rewritten", "DELETE ... FROM ... JOIN names its target by its FROM alias, as MySQL's "
                     "multi-table DELETE requires.")
            targets.append(exp.to_table(bound.args["alias"].this.copy()))
        else:
            targets.append(target)
    new.set("tables", targets)
    return new


def select_into(select: exp.Select, ctx: Context) -> list[exp.Expr]:
    """`SELECT a, b INTO #t FROM s` -> `CREATE TEMPORARY TABLE t (a INT, b VARCHAR(50)); INSERT INTO t (a, b) SELECT a, b FROM s`.

    TiDB does not support CREATE TABLE ... AS SELECT, so the new table's columns are declared from
    the projections' types; `SELECT * INTO x FROM t` uses CREATE TABLE x LIKE t.
    https://docs.pingcap.com/tidb/stable/mysql-compatibility#unsupported-features
    """
    into = select.args["into"]
    target = into.this.copy()
    query = select.copy()
    query.set("into", None)
    temporary = bool(into.args.get("temporary")) or target.this.args.get("temporary") or target.this.args.get("global_")
    properties = [exp.TemporaryProperty()] if temporary else []
    names, definitions, unknown = [], [], []
    columns = projection_columns(query, ctx)
    if columns is None:
        unknown.append("*")
        columns = []
    for name, datatype in columns:
        if not name or datatype is None:
            unknown.append(name or "an unnamed column")
            continue
        names.append(name)
        definitions.append(exp.ColumnDef(this=exp.to_identifier(name), kind=datatype.copy()))
    if unknown:
        ctx.note(
            "QY17", "unsupported",
            f"SELECT ... INTO: the type of {', '.join(unknown)} is unknown, so the new table cannot be declared "
            "(TiDB has no CREATE TABLE ... AS SELECT).",
        )
        return [select]
    create = exp.Create(this=exp.Schema(this=target, expressions=definitions), kind="TABLE",
                        properties=exp.Properties(expressions=properties) if properties else None)
    insert = exp.Insert(this=exp.Schema(this=target.copy(), expressions=[exp.to_identifier(n) for n in names]), expression=query)
    ctx.types.temp_tables[table_key(target)] = {d.name.lower(): d.args["kind"] for d in definitions}
    ctx.note("QY17", "rewritten", "SELECT ... INTO becomes CREATE TABLE with the projected types plus INSERT ... SELECT.")
    return [create, insert]


def projection_columns(query: exp.Select, ctx: Context) -> list[tuple[str, exp.DataType | None]] | None:
    """(name, SQL Server type) of each output column, `*` expanded from its sources; None if `*` cannot be."""
    out: list[tuple[str, exp.DataType | None]] = []
    for projection in query.selects:
        star = isinstance(projection, exp.Star) or (isinstance(projection, exp.Column) and projection.is_star)
        if not star:
            out.append((projection.alias_or_name, ctx.types.of(projection)))
            continue
        qualifier = projection.table.lower() if isinstance(projection, exp.Column) else ""
        for alias, source in sources(query):
            if qualifier and alias != qualifier:
                continue
            names = source_columns(source, ctx)
            if names is None:
                return None
            for name in names:
                column = exp.Column(this=exp.to_identifier(name), table=exp.to_identifier(alias))
                column.parent = query  # resolves through the query's sources without joining the tree
                out.append((name, ctx.types.of(column)))
    return out


def output_clause(statement: exp.Expr, ctx: Context) -> list[exp.Expr]:
    """`INSERT INTO t (a) OUTPUT inserted.id VALUES (1)` -> `INSERT INTO t (a) VALUES (1); SELECT LAST_INSERT_ID() AS id`.

    TiDB has no RETURNING/OUTPUT. Returning only the identity column of a one-row INSERT is the
    common case and is exact; anything else is unsupported.
    https://learn.microsoft.com/sql/t-sql/queries/output-clause-transact-sql
    """
    returning = statement.args["returning"]
    identity = _identity_column(statement, ctx) if isinstance(statement, exp.Insert) else None
    values = statement.args.get("expression") if isinstance(statement, exp.Insert) else None
    one_row = isinstance(values, exp.Values) and len(values.expressions) == 1
    outputs = returning.expressions
    if (
        identity is not None
        and one_row
        and not returning.args.get("into")
        and len(outputs) == 1
        and isinstance(outputs[0], (exp.Column, exp.Alias))
    ):
        column = outputs[0].this if isinstance(outputs[0], exp.Alias) else outputs[0]
        if isinstance(column, exp.Column) and column.table.lower() == "inserted" and column.name.lower() == identity.lower():
            new = statement.copy()
            new.set("returning", None)
            select = exp.select(exp.alias_(exp.Anonymous(this="LAST_INSERT_ID"), outputs[0].alias_or_name))
            ctx.note("QY11", "rewritten", "OUTPUT inserted.<identity> becomes a SELECT LAST_INSERT_ID() after the INSERT.")
            return [new, select]
    kind = type(statement).__name__.upper()
    ctx.note("QY11", "unsupported", f"{kind} ... OUTPUT: TiDB has no OUTPUT/RETURNING clause; read the rows in a separate SELECT.")
    return [statement]


def _identity_column(insert: exp.Insert, ctx: Context) -> str | None:
    target = insert.this.this if isinstance(insert.this, exp.Schema) else insert.this
    if not isinstance(target, exp.Table):
        return None
    table = ctx.database.table(target.db or None, target.name)
    if table is None:
        return None
    return next((c.name for c in table.columns if c.identity is not None), None)
