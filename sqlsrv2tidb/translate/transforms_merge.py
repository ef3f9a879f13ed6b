"""MERGE rewritten to the TiDB statements that do the same, when its shape allows.

TiDB has no MERGE (https://docs.pingcap.com/tidb/stable/sql-statements-overview). The shapes with
an exact equivalent are rewritten:

- update when matched + insert when not matched, matched on the target's primary or unique key:
  INSERT ... ON DUPLICATE KEY UPDATE (https://docs.pingcap.com/tidb/stable/sql-statement-insert);
- insert only: INSERT ... SELECT ... WHERE NOT EXISTS (the ON condition);
- update only: multi-table UPDATE ... JOIN; delete only: multi-table DELETE ... JOIN.

Any other MERGE (ON on columns that are no key, a branch with AND, NOT MATCHED BY SOURCE) becomes the
statements it means, in an order that gives SQL Server's result (`_decomposed`): the UPDATE ... JOIN
and DELETE ... JOIN of the matched rows, the DELETE or UPDATE of the target rows no source row matches,
then the INSERT ... SELECT ... WHERE NOT EXISTS of the source rows no target row matches; they must
run in one transaction (the procedure runner opens one). An OUTPUT clause stays unsupported.
https://learn.microsoft.com/sql/t-sql/statements/merge-transact-sql
"""

from __future__ import annotations

from sqlglot import exp

from .context import Context
from .transforms_writes import as_written

_NOTE = "QY12"


def _unsupported(merge: exp.Merge, ctx: Context, why: str) -> list[exp.Expr]:
    ctx.note(_NOTE, "unsupported", f"MERGE cannot be rewritten: {why}. TiDB has no MERGE.")
    return [merge]


def merge(node: exp.Merge, ctx: Context) -> list[exp.Expr]:
    """`MERGE t USING (VALUES (@P1, @P2)) AS s (id, v) ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v
    WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v);` ->
    `INSERT INTO t (id, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = VALUES(v)`.
    https://learn.microsoft.com/sql/t-sql/statements/merge-transact-sql
    https://docs.pingcap.com/tidb/stable/sql-statement-insert
    """
    if node.args.get("returning") is not None:
        return _unsupported(node, ctx, "it has an OUTPUT clause")
    target, source = node.this, node.args.get("using")
    if not isinstance(target, exp.Table) or source is None:
        return _unsupported(node, ctx, "its target is not a table")
    update = insert = delete = None
    whens = node.args["whens"].expressions
    if any(w.args.get("condition") is not None or w.args.get("source") for w in whens):
        return _decomposed(node, ctx, "a WHEN branch has an AND condition or is NOT MATCHED BY SOURCE")
    for when in whens:
        then = when.args.get("then")
        if when.args.get("matched") and isinstance(then, exp.Update) and update is None:
            update = then
        elif when.args.get("matched") and isinstance(then, exp.Var) and then.name.upper() == "DELETE" and delete is None:
            delete = then
        elif not when.args.get("matched") and isinstance(then, exp.Insert) and insert is None:
            insert = then
        else:
            return _unsupported(node, ctx, "its branches are not one UPDATE/DELETE and one INSERT")
    if delete is not None and (update is not None or insert is not None):
        return _decomposed(node, ctx, "it deletes and also updates or inserts")
    target_alias = target.alias_or_name.lower()
    source_alias = (source.alias or "").lower()
    row = _single_row(source)
    if delete is not None:
        ctx.note(_NOTE, "rewritten", "MERGE that only deletes matched rows becomes a multi-table DELETE ... JOIN.")
        return [_join_statement(node, None)]
    if insert is None:
        ctx.note(_NOTE, "rewritten", "MERGE that only updates matched rows becomes a multi-table UPDATE ... JOIN.")
        return [_join_statement(node, update)]
    columns = _insert_columns(insert, target, ctx)
    if columns is None:
        return _unsupported(node, ctx, "the INSERT branch has no column list and the target's columns are unknown")
    values = list(insert.expression.expressions) if isinstance(insert.expression, exp.Tuple) else []
    if len(values) != len(columns):
        return _unsupported(node, ctx, "the INSERT branch's values do not match its columns")
    plain_target = target.copy()
    plain_target.set("alias", None)
    if update is None:
        ctx.note(_NOTE, "rewritten", "MERGE that only inserts missing rows becomes INSERT ... SELECT ... WHERE NOT EXISTS.")
        return [_insert_missing(node, plain_target, columns, values, row, source_alias)]
    pairs = _key_pairs(node.args["on"], target_alias)
    if pairs is None:
        return _decomposed(node, ctx, "ON is not a set of equalities on target columns")
    keys = [key for key, _ in pairs]
    status = _check_key(target, keys, ctx)
    if status is None:
        return _decomposed(node, ctx, f"ON matches ({', '.join(keys)}), which is not the target's primary or a unique key")
    written = {column.lower(): as_written(value) for column, value in zip(columns, values, strict=True)}
    if any(written.get(key.lower()) != value for key, value in pairs):
        return _update_then_insert(node, ctx, update, pairs, written, (plain_target, columns, values, row, source_alias))
    inserted = {}
    for column, value in zip(columns, map(as_written, values), strict=True):
        if isinstance(value, exp.Column) and value.table.lower() == source_alias:
            inserted[value.name.lower()] = column
    assignments = []
    for item in update.expressions:
        left, right = item.this, item.expression.copy()
        for ref in list(right.find_all(exp.Column)):
            qualifier = ref.table.lower()
            if qualifier == source_alias:
                if ref.name.lower() not in inserted:
                    return _unsupported(node, ctx, f"the UPDATE uses {ref.sql('sqlserver')}, which the INSERT does not write")
                replacement = exp.Anonymous(this="VALUES", expressions=[exp.column(inserted[ref.name.lower()])])
                if ref is right:
                    right = replacement
                else:
                    ref.replace(replacement)
            elif qualifier == target_alias:
                ref.set("table", None)
        assignments.append(exp.EQ(this=exp.column(left.name), expression=right))
    row_values = [_substitute(v, row, source_alias) for v in values] if row is not None else None
    insert_stmt = _insert(plain_target, columns, row_values, values, source, source_alias)
    insert_stmt.set("conflict", exp.OnConflict(duplicate=True, expressions=assignments, action=exp.var("UPDATE")))
    ctx.note(_NOTE, status, "MERGE (update or insert on the key) becomes INSERT ... ON DUPLICATE KEY UPDATE"
             + ("; it also fires on the target's other unique keys." if status == "review" else "."))
    return [insert_stmt]


def _single_row(source: exp.Expr) -> dict[str, exp.Expr] | None:
    """Column name -> value for a one-row source: `(VALUES (@a, @b)) AS s (x, y)` or `(SELECT @a AS x)`."""
    if isinstance(source, exp.Values) and len(source.expressions) == 1:
        alias = source.args.get("alias")
        names = [c.name.lower() for c in alias.columns] if alias is not None else []
        row = source.expressions[0].expressions
        return dict(zip(names, row, strict=True)) if len(names) == len(row) else None
    if isinstance(source, exp.Subquery) and isinstance(source.this, exp.Select) and not source.this.args.get("from_"):
        return {p.alias_or_name.lower(): (p.this if isinstance(p, exp.Alias) else p) for p in source.this.selects}
    return None


def _substitute(expression: exp.Expr, row: dict[str, exp.Expr] | None, alias: str) -> exp.Expr:
    result = expression.copy()
    if row is None:
        return result
    for ref in list(result.find_all(exp.Column)):
        if ref.table.lower() == alias and ref.name.lower() in row:
            value = row[ref.name.lower()].copy()
            if ref is result:
                return value
            ref.replace(value)
    return result


def _derived(source: exp.Expr, alias: str) -> exp.Expr:
    derived = source.copy()
    if isinstance(derived, exp.Values):
        return derived  # the query pass turns VALUES ... AS s(a, b) into a derived SELECT
    if isinstance(derived, exp.Table):
        return derived
    derived.set("alias", exp.TableAlias(this=exp.to_identifier(alias), columns=derived.args["alias"].columns if derived.args.get("alias") else None))
    return derived


def _insert(target: exp.Table, columns: list[str], row_values: list[exp.Expr] | None, values: list[exp.Expr],
            source: exp.Expr, alias: str) -> exp.Insert:
    schema = exp.Schema(this=target.copy(), expressions=[exp.to_identifier(c) for c in columns])
    if row_values is not None:
        return exp.Insert(this=schema, expression=exp.Values(expressions=[exp.Tuple(expressions=row_values)]))
    query = exp.select(*[v.copy() for v in values]).from_(_derived(source, alias))
    return exp.Insert(this=schema, expression=query)


def _update_then_insert(node: exp.Merge, ctx: Context, update: exp.Update, pairs: list[tuple[str, exp.Expr]],
                        written: dict[str, exp.Expr], insert_parts: tuple) -> list[exp.Expr]:
    """`MERGE t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE ... WHEN NOT MATCHED THEN INSERT (v) ...`, where
    the INSERT does not write the ON key (an IDENTITY column) -> `UPDATE t JOIN s ON ... SET ...;
    INSERT INTO t (v) SELECT ... WHERE NOT EXISTS (...)`.

    ON DUPLICATE KEY UPDATE fires only when the inserted row collides with a key, and a row that does
    not write the ON columns (or writes other values) never collides on them: every call would insert.
    The update runs first, so the insert's NOT EXISTS still sees only the rows MERGE matched. Two
    statements are not one atomic MERGE, hence review.
    https://learn.microsoft.com/sql/t-sql/statements/merge-transact-sql
    """
    table = ctx.database.table(node.this.db or None, node.this.name)
    identity = {c.name.lower() for c in table.columns if c.identity is not None} if table is not None else set()
    missing = [key for key, _ in pairs if key.lower() not in written]
    other = [key for key, value in pairs if key.lower() in written and written[key.lower()] != value]
    reasons = []
    if missing:
        kind = " (an IDENTITY column)" if {k.lower() for k in missing} <= identity else ""
        reasons.append(f"the INSERT branch does not write ({', '.join(missing)}){kind}")
    if other:
        reasons.append(f"the INSERT branch writes ({', '.join(other)}) with other values than ON compares")
    why = " and ".join(reasons) + (", so INSERT ... ON DUPLICATE KEY UPDATE would not match the rows ON matches "
                                   "(it would insert where MERGE updates)")
    assigned = {item.this.name.lower() for item in update.expressions if isinstance(item.this, exp.Column)}
    if assigned & {key.lower() for key, _ in pairs}:
        return _unsupported(node, ctx, why + ", and the UPDATE branch changes the ON columns")
    ctx.note(_NOTE, "review", f"MERGE: {why}. It becomes UPDATE ... JOIN, then INSERT ... WHERE NOT EXISTS: two "
             "statements, so run them in one transaction.")
    return [_join_statement(node, update), _insert_missing(node, *insert_parts)]


def _insert_missing(node: exp.Merge, target: exp.Table, columns: list[str], values: list[exp.Expr],
                    row: dict[str, exp.Expr] | None, alias: str) -> exp.Expr:
    """`MERGE ... WHEN NOT MATCHED THEN INSERT` -> `INSERT INTO t (...) SELECT ... WHERE NOT EXISTS (...)`."""
    on = _substitute(node.args["on"], row, alias)
    target_ref = node.this.copy()
    exists = exp.Exists(this=exp.select(exp.Literal.number(1)).from_(target_ref).where(on))
    if row is not None:
        query = exp.select(*[_substitute(v, row, alias) for v in values]).from_(exp.to_table("DUAL"))
    else:
        query = exp.select(*[v.copy() for v in values]).from_(_derived(node.args["using"], alias))
    query = query.where(exp.Not(this=exists))
    return exp.Insert(this=exp.Schema(this=target, expressions=[exp.to_identifier(c) for c in columns]), expression=query)


def _join_statement(node: exp.Merge, update: exp.Update | None) -> exp.Expr:
    """Update-only or delete-only MERGE -> multi-table UPDATE/DELETE joined on the ON condition."""
    target = node.this.copy()
    source = _derived(node.args["using"], (node.args["using"].alias or "src"))
    target.set("joins", [exp.Join(this=source, on=node.args["on"].copy())])
    alias = node.this.alias_or_name
    if update is None:
        return exp.Delete(tables=[exp.to_table(alias)], this=target)
    assignments = []
    for item in update.expressions:
        column = item.this.copy()
        if isinstance(column, exp.Column) and not column.table:
            column.set("table", exp.to_identifier(alias))
        assignments.append(exp.EQ(this=column, expression=item.expression.copy()))
    return exp.Update(this=target, expressions=assignments)


def _insert_columns(insert: exp.Insert, target: exp.Table, ctx: Context) -> list[str] | None:
    listed = insert.this
    if isinstance(listed, exp.Tuple):
        return [c.name for c in listed.expressions]
    table = ctx.database.table(target.db or None, target.name)
    if table is None:
        return None
    return [c.name for c in table.columns if c.identity is None and c.computed is None]


def _key_pairs(on: exp.Expr, target_alias: str) -> list[tuple[str, exp.Expr]] | None:
    """(target column, the value ON compares it with) for each equality of ON; None for any other shape."""
    keys = []
    parts = [on]
    while parts:
        part = parts.pop()
        if isinstance(part, exp.And):
            parts.extend([part.this, part.expression])
            continue
        if isinstance(part, exp.Paren):
            parts.append(part.this)
            continue
        if not isinstance(part, exp.EQ):
            return None
        sides = [s for s in (part.this, part.expression) if isinstance(s, exp.Column) and s.table.lower() == target_alias]
        if len(sides) != 1:
            return None
        other = part.expression if sides[0] is part.this else part.this
        keys.append((sides[0].name, other))
    return keys


def _check_key(target: exp.Table, keys: list[str], ctx: Context) -> str | None:
    """`rewritten` when the keys are the target's only unique key, `review` when other unique keys
    could also trigger ON DUPLICATE KEY, None when they are no key at all (or the table is unknown: review)."""
    table = ctx.database.table(target.db or None, target.name)
    if table is None:
        ctx.note(_NOTE, "review", "The MERGE target is not in the captured schema, so its ON columns could not be checked against its keys.")
        return "review"
    wanted = {k.lower() for k in keys}
    unique_sets = []
    if table.primary_key is not None:
        unique_sets.append({c.lower() for c in table.primary_key.column_names})
    unique_sets.extend({c.lower() for c in k.column_names} for k in table.unique_keys)
    unique_sets.extend({c.name.lower() for c in i.columns} for i in table.indexes if i.unique and not i.filter)
    if wanted not in unique_sets:
        return None
    return "rewritten" if len(unique_sets) == 1 else "review"


def _decomposed(node: exp.Merge, ctx: Context, why: str) -> list[exp.Expr]:
    """Any MERGE as the statements it means, in an order that gives SQL Server's result from the rows as they were:

    1. WHEN MATCHED [AND c] THEN UPDATE / DELETE: UPDATE (DELETE) t JOIN source ON ... [AND c], in the order of the
       branches (the second branch excluding the rows of the first);
    2. WHEN NOT MATCHED BY SOURCE [AND c] THEN DELETE / UPDATE: ... WHERE NOT EXISTS (the source row ON matches);
    3. WHEN NOT MATCHED [BY TARGET] [AND c] THEN INSERT: INSERT ... SELECT ... WHERE NOT EXISTS (the target row).

    The rows the first steps change must still be the ones ON matched: so no UPDATE may assign a column that ON or
    a later branch's condition reads (or its own, which the next branch reads as NOT), unless only the INSERT reads
    it afterwards. The INSERT is then given the source rows no target row matched, set apart before the first step
    (a temporary table LIKE the source table): a slowly changing dimension's MERGE, whose UPDATE closes the row ON
    matched (`ValidTo = ...`), and a MERGE that deletes matched rows and inserts others, need that.
    https://learn.microsoft.com/sql/t-sql/statements/merge-transact-sql
    """
    target, source = node.this, node.args.get("using")
    target_alias = target.alias_or_name.lower()
    source_alias = (source.alias or "src").lower()
    on = node.args["on"]
    matched, by_source, inserts = [], [], []
    for when in node.args["whens"].expressions:
        then = when.args.get("then")
        kind = "delete" if isinstance(then, exp.Var) and then.name.upper() == "DELETE" else \
            "update" if isinstance(then, exp.Update) else "insert" if isinstance(then, exp.Insert) else None
        if kind is None:
            return _unsupported(node, ctx, f"a WHEN branch does {then.sql('sqlserver')[:40] if then else 'nothing'}")
        branch = (kind, then, when.args.get("condition"))
        if when.args.get("matched"):
            matched.append(branch)
        elif when.args.get("source"):
            by_source.append(branch)
        else:
            inserts.append(branch)
    if len(matched) > 2 or len(by_source) > 2 or len(inserts) > 1 or any(k == "insert" for k, _, _ in matched + by_source):
        return _unsupported(node, ctx, "its WHEN branches are not those T-SQL allows")
    on_columns = {c.name.lower() for c in on.find_all(exp.Column) if c.table.lower() == target_alias}

    def reads(condition: exp.Expr | None) -> set[str]:
        return {c.name.lower() for c in condition.find_all(exp.Column) if c.table.lower() in (target_alias, "")} \
            if condition is not None else set()

    def assigned(then: exp.Expr) -> set[str]:
        return {item.this.name.lower() for item in then.expressions if isinstance(item.this, exp.Column)}

    # The INSERT's NOT EXISTS reads ON after the other steps: when they change what ON matched, the unmatched source
    # rows are set apart first.
    stage = bool(inserts) and (any(k == "delete" for k, _, _ in matched)
                               or any(assigned(then) & on_columns for k, then, _ in matched + by_source if k == "update"))
    if stage and not (isinstance(source, exp.Table) and isinstance(source.this, exp.Identifier)
                      and not source.this.args.get("temporary") and not source.this.args.get("global_")
                      and not source.args.get("joins")):
        return _unsupported(node, ctx, "its steps change the rows ON matched before the INSERT reads ON, and its "
                                       "source is no table whose unmatched rows can be set apart first")
    for group, branches in enumerate((matched, by_source)):
        for n, (kind, then, condition) in enumerate(branches):
            if kind != "update":
                continue
            later = branches[n + 1:]
            # ON is read again by a later branch of its group, by NOT MATCHED BY SOURCE after the matched branches,
            # and by the INSERT unless its rows were set apart; a later branch also reads this one's condition.
            read_later = set().union(*(reads(c) for _, _, c in later))
            if later:
                read_later |= reads(condition) | on_columns
            if (group == 0 and by_source) or (inserts and not stage):
                read_later |= on_columns
            changed = assigned(then) & read_later
            if changed:
                return _unsupported(node, ctx, f"an UPDATE branch changes ({', '.join(sorted(changed))}), "
                                               "which ON or a later branch reads")
    statements: list[exp.Expr] = []
    staged = exp.Table(this=exp.Identifier(this="sqlsrv2tidb_merge_source", temporary=True))
    if stage:
        # DROP first: a MERGE that failed half-way in this session leaves its table behind.
        statements.append(exp.Drop(tables=[staged.copy()], kind="TABLE", exists=True, temporary=True))
        statements.append(exp.Create(this=staged.copy(), kind="TABLE", properties=exp.Properties(
            expressions=[exp.TemporaryProperty(), exp.LikeProperty(this=exp.Table(this=source.this.copy(),
                                                                                    db=source.args.get("db"),
                                                                                    catalog=source.args.get("catalog")))])))
        unmatched = exp.select(exp.Star()).from_(source.copy()).where(exp.Not(this=exp.Exists(
            this=exp.select(exp.Literal.number(1)).from_(target.copy()).where(on.copy()))))
        statements.append(exp.Insert(this=staged.copy(), expression=unmatched))
    previous: exp.Expr | None = None
    for kind, then, condition in matched:
        joined = on.copy()
        if condition is not None:
            joined = exp.and_(joined, exp.Paren(this=condition.copy()))
        if previous is not None:
            joined = exp.and_(joined, exp.Not(this=exp.Paren(this=previous.copy())))
        statements.append(_matched_statement(node, kind, then, joined))
        previous = condition
    exists_source = exp.Exists(this=exp.select(exp.Literal.number(1)).from_(_derived(source, source_alias)).where(on.copy()))
    previous = None
    for kind, then, condition in by_source:
        where: exp.Expr = exp.Not(this=exists_source.copy())
        if condition is not None:
            where = exp.and_(where, exp.Paren(this=condition.copy()))
        if previous is not None:
            where = exp.and_(where, exp.Not(this=exp.Paren(this=previous.copy())))
        table = target.copy()
        if kind == "delete":  # DELETE alias FROM t AS alias: MySQL and MariaDB take no alias in the one-table form
            statements.append(exp.Delete(tables=[exp.to_table(target.alias_or_name)], this=table,
                                         where=exp.Where(this=where)))
        else:
            statements.append(exp.Update(this=table, expressions=[item.copy() for item in then.expressions],
                                         where=exp.Where(this=where)))
        previous = condition
    for _, then, condition in inserts:
        columns = _insert_columns(then, target, ctx)
        if columns is None:
            return _unsupported(node, ctx, "the INSERT branch has no column list and the target's columns are unknown")
        values = list(then.expression.expressions) if isinstance(then.expression, exp.Tuple) else []
        if len(values) != len(columns):
            return _unsupported(node, ctx, "the INSERT branch's values do not match its columns")
        plain_target = target.copy()
        plain_target.set("alias", None)
        if stage:
            query = exp.select(*[v.copy() for v in values]).from_(exp.Table(
                this=staged.this.copy(), alias=exp.TableAlias(this=exp.to_identifier(source.alias_or_name))))
            if condition is not None:
                query = query.where(condition.copy())
            statements.append(exp.Insert(this=exp.Schema(this=plain_target, expressions=[exp.to_identifier(c) for c in columns]),
                                         expression=query))
            statements.append(exp.Drop(tables=[staged.copy()], kind="TABLE", temporary=True))
            continue
        insert = _insert_missing(node, plain_target, columns, values, None, source_alias)
        if condition is not None:
            query = insert.expression
            query.set("where", exp.Where(this=exp.and_(query.args["where"].this, exp.Paren(this=condition.copy()))))
        statements.append(insert)
    ctx.note(_NOTE, "review", f"MERGE ({why}) becomes {len(statements)} statement(s), the matched rows' first, then the "
             "unmatched target rows', then the inserts: run them in one transaction (the procedure runner does); a "
             "target row several source rows match makes SQL Server fail (8672), where the UPDATE keeps one.")
    return statements


def _matched_statement(node: exp.Merge, kind: str, then: exp.Expr, on: exp.Expr) -> exp.Expr:
    """UPDATE ... JOIN or DELETE ... JOIN of the target rows the source matches on `on`."""
    target = node.this.copy()
    source = _derived(node.args["using"], (node.args["using"].alias or "src"))
    target.set("joins", [exp.Join(this=source, on=on)])
    alias = node.this.alias_or_name
    if kind == "delete":
        return exp.Delete(tables=[exp.to_table(alias)], this=target)
    assignments = []
    for item in then.expressions:
        column = item.this.copy()
        if isinstance(column, exp.Column) and not column.table:
            column.set("table", exp.to_identifier(alias))
        assignments.append(exp.EQ(this=column, expression=item.expression.copy()))
    return exp.Update(this=target, expressions=assignments)
