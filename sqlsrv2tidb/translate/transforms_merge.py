"""MERGE rewritten to the TiDB statements that do the same, when its shape allows.

TiDB has no MERGE (https://docs.pingcap.com/tidb/stable/sql-statements-overview). The shapes with
an exact equivalent are rewritten:

- update when matched + insert when not matched, matched on the target's primary or unique key:
  INSERT ... ON DUPLICATE KEY UPDATE (https://docs.pingcap.com/tidb/stable/sql-statement-insert);
- insert only: INSERT ... SELECT ... WHERE NOT EXISTS (the ON condition);
- update only: multi-table UPDATE ... JOIN; delete only: multi-table DELETE ... JOIN.

Conditional branches, NOT MATCHED BY SOURCE, several actions of one kind, or OUTPUT stay
unsupported. https://learn.microsoft.com/sql/t-sql/statements/merge-transact-sql
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
    for when in node.args["whens"].expressions:
        if when.args.get("condition") is not None:
            return _unsupported(node, ctx, "a WHEN branch has an extra condition")
        if when.args.get("source"):
            return _unsupported(node, ctx, "it has WHEN NOT MATCHED BY SOURCE")
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
        return _unsupported(node, ctx, "it deletes and also updates or inserts")
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
        return _unsupported(node, ctx, "ON is not a set of equalities on target columns")
    keys = [key for key, _ in pairs]
    status = _check_key(target, keys, ctx)
    if status is None:
        return _unsupported(node, ctx, f"ON matches ({', '.join(keys)}), which is not the target's primary or a unique key")
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
