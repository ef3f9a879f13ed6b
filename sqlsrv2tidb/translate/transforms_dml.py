"""Statement-level rewrites: SELECT ... INTO, UPDATE/DELETE ... FROM ... JOIN or through a CTE, CTEs before an
INSERT, and OUTPUT.

These change the statement's shape, sometimes into two statements (TiDB has no CREATE TABLE ...
AS SELECT, so SELECT INTO becomes CREATE TABLE plus INSERT ... SELECT). MERGE lives in
`transforms_merge`. Each function returns the list of TiDB statements that replace the input.
"""

from __future__ import annotations

from sqlglot import exp

from ..model import Table
from .context import Context
from .scopes import dml_target, sources, table_key
from .temporary_tables import collation_properties
from .transforms_merge import merge
from .transforms_pivot import source_columns


def rewrite_statement(tree: exp.Expr, ctx: Context) -> list[exp.Expr]:
    """Dispatch on the statement's kind; statements without a T-SQL-only shape pass through."""
    if isinstance(tree, exp.Select) and tree.args.get("into") is not None:
        return select_into(tree, ctx)
    if isinstance(tree, exp.Merge):
        return merge(tree, ctx)
    if isinstance(tree, (exp.Insert, exp.Update, exp.Delete)) and tree.args.get("returning") is not None:
        return output_clause(tree, ctx)
    if isinstance(tree, exp.Insert) and tree.args.get("with_") is not None:
        return [ctes_of_insert(tree, ctx)]
    cte = _cte_target(tree) if isinstance(tree, (exp.Update, exp.Delete)) else None
    if cte is not None:
        return [through_cte(tree, cte, ctx)]
    if isinstance(tree, exp.Update) and tree.args.get("from_") is not None:
        return [update_from(tree, ctx)]
    if isinstance(tree, exp.Delete) and tree.args.get("tables"):
        return [delete_from(tree, ctx)]
    return [tree]


def ctes_of_insert(insert: exp.Insert, ctx: Context) -> exp.Expr:
    """`WITH x AS (...) INSERT INTO t (a) SELECT a FROM x` -> `INSERT INTO t (a) WITH x AS (...) SELECT a FROM x`.

    T-SQL puts the CTEs before the INSERT; TiDB and MySQL read them only as part of its SELECT.
    https://docs.pingcap.com/tidb/stable/sql-statement-with
    """
    query = insert.expression
    if not isinstance(query, exp.Select) or query.args.get("with_") is not None:
        ctx.note("QY62", "unsupported", "WITH ... INSERT: TiDB reads CTEs only inside the INSERT's SELECT, and this INSERT has none.")
        return insert
    query.set("with_", insert.args["with_"])
    insert.set("with_", None)
    ctx.note("QY62", "rewritten", "WITH ... INSERT ... SELECT becomes INSERT ... WITH ... SELECT: TiDB reads CTEs only inside the SELECT.")
    return insert


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
            targets.append(exp.Table(this=bound.args["alias"].this.copy()))
        else:
            targets.append(target)
    new.set("tables", targets)
    return new


def _cte_target(statement: exp.Update | exp.Delete) -> exp.CTE | None:
    """The CTE of the statement's own WITH clause that it updates or deletes from, if any."""
    with_ = statement.args.get("with_")
    targets = statement.args.get("tables") or [statement.this] if isinstance(statement, exp.Delete) else [statement.this]
    if with_ is None:
        return None
    names = {t.name.lower() for t in targets if isinstance(t, exp.Table) and not t.db}
    return next((cte for cte in with_.expressions if cte.alias.lower() in names), None)


def through_cte(statement: exp.Update | exp.Delete, cte: exp.CTE, ctx: Context) -> exp.Expr:
    """`WITH x AS (SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS rn FROM dbo.t) DELETE FROM x WHERE rn > 10` ->
    `DELETE t FROM t JOIN (SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS rn, t.id AS __k1 FROM t) AS x
    ON t.id = x.__k1 WHERE x.rn > 10`; `WITH x AS (SELECT TOP 10 ...) UPDATE x SET c = ...` likewise.

    T-SQL updates and deletes the base table's rows through a CTE over one table; TiDB cannot modify a
    CTE (nor a view). The CTE's query becomes a derived table joined to its base table on the primary
    key, so exactly the rows the CTE yields change, and the assignments name the base table's columns.
    https://learn.microsoft.com/sql/t-sql/queries/with-common-table-expression-transact-sql
    https://docs.pingcap.com/tidb/stable/sql-statement-with
    """
    body, why = cte.this, None
    base = body.args.get("from_").this if isinstance(body, exp.Select) and body.args.get("from_") else None
    table = ctx.database.table(base.db or None, base.name) if isinstance(base, exp.Table) else None
    if not isinstance(body, exp.Select) or table is None or body.args.get("joins") or base.args.get("joins"):
        why = "its query does not read one table of the captured schema"
    elif body.args.get("group") or body.args.get("distinct") or body.args.get("having") or any(
        isinstance(n, exp.AggFunc) and not n.find_ancestor(exp.Window) for p in body.selects for n in p.walk()
    ):
        why = "its query aggregates (SQL Server cannot modify it either)"
    elif table.primary_key is None:
        why = f"{table.name} has no primary key to join its rows on"
    elif statement.args.get("limit") is not None or statement.args.get("from_") is not None or (
        isinstance(statement, exp.Delete) and statement.args.get("tables")
    ):
        why = "the statement has TOP or its own FROM clause"
    elif base.name.lower() == cte.alias.lower():
        why = "the CTE has its base table's name"
    outputs = _cte_outputs(cte, body, table) if why is None else None
    if why is None and outputs is None:
        why = "its columns cannot be matched to the base table's"
    assignments = []
    if why is None and isinstance(statement, exp.Update):
        for item in statement.expressions:
            column = item.this
            source = outputs.get(column.name.lower()) if isinstance(column, exp.Column) else None
            if source is None:
                why = f"{item.this.sql('sqlserver')} is not a column of {table.name}"
                break
            assignments.append(exp.EQ(this=exp.column(source, base.name), expression=_through(item.expression, cte.alias)))
    if why is not None:
        ctx.note("QY05", "unsupported", f"{type(statement).__name__.upper()} through the CTE {cte.alias}: TiDB cannot modify "
                 f"a CTE, and it cannot be rewritten as a join because {why}.")
        return statement
    derived = body.copy()
    names = cte.args["alias"].columns if cte.args.get("alias") else []
    for projection, name in zip(list(derived.selects), names, strict=False):  # WITH x (a, b) AS (...): the names move in
        bare = projection.this if isinstance(projection, exp.Alias) else projection
        projection.replace(exp.alias_(bare.copy(), name.copy()))
    qualifier = base.alias_or_name
    keys = list(table.primary_key.column_names)
    for i, key in enumerate(keys, start=1):
        derived.append("expressions", exp.alias_(exp.column(key, qualifier), f"__k{i}"))
    target = exp.Table(this=base.this.copy(), db=base.args["db"].copy() if base.args.get("db") else None)
    on = exp.and_(*[exp.EQ(this=exp.column(key, base.name), expression=exp.column(f"__k{i}", cte.alias))
                    for i, key in enumerate(keys, start=1)])
    target.set("joins", [exp.Join(this=exp.Subquery(this=derived, alias=exp.TableAlias(this=exp.to_identifier(cte.alias))),
                                  on=on)])
    where = statement.args.get("where")
    where = exp.Where(this=_through(where.this, cte.alias)) if where is not None else None
    if isinstance(statement, exp.Delete):
        new: exp.Expr = exp.Delete(tables=[exp.to_table(base.name)], this=target, where=where)
    else:
        new = exp.Update(this=target, expressions=assignments, where=where)
    others = [c.copy() for c in statement.args["with_"].expressions if c is not cte]
    if others:
        new.set("with_", exp.With(expressions=others, recursive=statement.args["with_"].args.get("recursive")))
    ctx.note("QY05", "rewritten", f"{type(statement).__name__.upper()} through the CTE {cte.alias} becomes a multi-table "
             f"{type(statement).__name__.upper()} of {table.name} joined to the CTE's query on its primary key; TiDB "
             "cannot modify a CTE.")
    return new


def _cte_outputs(cte: exp.CTE, body: exp.Select, table: Table) -> dict[str, str] | None:
    """CTE output name (lower case) -> the base table column it shows as is; other outputs are left out."""
    names = [c.name for c in cte.args["alias"].columns] if cte.args.get("alias") and cte.args["alias"].columns else None
    outputs: dict[str, str] = {}
    position = 0
    for projection in body.selects:
        if isinstance(projection, exp.Star) or (isinstance(projection, exp.Column) and projection.is_star):
            if names is not None:
                return None
            outputs.update({c.name.lower(): c.name for c in table.columns})
            continue
        value = projection.this if isinstance(projection, exp.Alias) else projection
        name = names[position] if names is not None and position < len(names) else projection.alias_or_name
        position += 1
        if isinstance(value, exp.Column) and table.column(value.name) is not None:
            outputs[name.lower()] = table.column(value.name).name
    return outputs


def _through(expression: exp.Expr, alias: str) -> exp.Expr:
    """An expression of the statement over the CTE, its CTE columns named through the derived table."""
    result = expression.copy()
    for column in list(result.find_all(exp.Column)):
        scope = column.find_ancestor(exp.Select, exp.Subquery)
        if scope is None and (not column.table or column.table.lower() == alias.lower()):
            column.set("table", exp.to_identifier(alias))
    return result


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
    if temporary:
        properties += collation_properties(ctx, definitions)
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
