"""Rewrites for a MySQL target where MySQL and TiDB differ in what they accept (`--target-engine mysql`).

`transforms.translate_tree` swaps `next_value` in for TiDB's NEXTVAL rewrite, and `queries` runs
`statements` over a translation's statements: the one place the engine switches the translator's
rewrites. TiDB's own rewrites stay: what they produce runs on MySQL 8 too.

- NEXT VALUE FOR: MySQL has no sequences (`mysql_sequences` says what each became), so a statement
  that draws a value has no MySQL form and says where the value now comes from (MY21).
- UPDATE or DELETE that reads its own target in a subquery: MySQL refuses it (error 1093) where SQL
  Server and TiDB read the rows as they were before the statement; reading the table through a derived
  table, which MySQL materializes first, keeps that meaning (MY22).
  https://dev.mysql.com/doc/refman/8.4/en/subquery-restrictions.html
- a temporary table read twice in one statement: MySQL cannot open a TEMPORARY table twice (error
  1137, "Can't reopen table"). A SET of several variables that each read it once becomes one SET per
  variable, which reads the same values; any other statement has no MySQL form (MY23).
  https://dev.mysql.com/doc/refman/8.4/en/temporary-table-problems.html
- UPDATE whose SET reads a column an earlier assignment of the same SET changes: SQL Server (and TiDB)
  compute every assignment from the row as it was; MySQL assigns a single-table UPDATE left to right,
  each later expression reading the new value (`SET a = b, b = a` leaves both equal), and a multi-table
  UPDATE in no set order. The assignments of a single-table UPDATE are put in an order where each reads
  a column before it changes; where none exists (a swap), or the UPDATE joins, it is flagged (MY24).
  https://dev.mysql.com/doc/refman/8.4/en/update.html
"""

from __future__ import annotations

from collections import Counter

from sqlglot import exp

from .context import Context, applies_to
from .mysql_sequences import key, mysql_forms

_TEMPORARY_PREFIXES = ("tmp_", "gtmp_", "var_")
"""What `transforms_names` makes of #temp, ##global temp and @table variable names: session temporary tables."""


@applies_to(exp.NextValueFor)
def next_value(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`NEXT VALUE FOR dbo.Seq` on MySQL: no form; the note says where the sequence's values come from now.
    https://dev.mysql.com/doc/refman/8.4/en/information-functions.html#function_last-insert-id
    """
    if not isinstance(node, exp.NextValueFor):
        return node
    ref = node.this
    schema = ref.table if isinstance(ref, exp.Column) and ref.table else None
    seq = ctx.database.sequence(schema, ref.name)
    form = mysql_forms(ctx.database).get(key(seq.schema, seq.name)) if seq is not None else None
    if form is None:
        where = "the sequence is not in the schema"
    elif form.kind == "auto_increment":
        where = (f"{seq.qualified_name} became the AUTO_INCREMENT of {'.'.join(form.column or ())}: insert the row "
                 "without it and read LAST_INSERT_ID()")
    else:
        where = (f"{seq.qualified_name} became a one-row table (ddl/01-sequences.sql): draw each value with its UPDATE "
                 "... LAST_INSERT_ID(next_value) and SELECT LAST_INSERT_ID(), one statement per value")
    ctx.note("MY21", "unsupported", f"NEXT VALUE FOR {ref.sql('tsql')}: MySQL has no sequences; {where}.")
    return node


def statements(trees: list[exp.Expr], ctx: Context) -> list[exp.Expr]:
    """A translation's statements as MySQL takes them (see the module's list)."""
    out: list[exp.Expr] = []
    for tree in trees:
        if isinstance(tree, (exp.Update, exp.Delete)):
            tree = _read_target_through_derived_table(tree, ctx)
        if isinstance(tree, exp.Update):
            tree = _assignments_read_before_written(tree, ctx)
        twice = _temporary_tables_read_twice(tree)
        if twice and isinstance(tree, exp.Set) and len(tree.expressions) > 1 and all(
                not _temporary_tables_read_twice(item) for item in tree.expressions):
            ctx.note("MY23", "rewritten", f"SET of {len(tree.expressions)} variables that each read temporary table "
                     f"{', '.join(twice)} becomes one SET per variable: MySQL cannot open a temporary table twice in "
                     "one statement.")
            out.extend(exp.Set(expressions=[item]) for item in tree.expressions)
            continue
        if twice:
            ctx.note("MY23", "unsupported", f"The statement reads temporary table {', '.join(twice)} more than once, which "
                     "MySQL refuses (error 1137, \"Can't reopen table\"): make it an ordinary table for the session's "
                     "work, or split the statement.")
        out.append(tree)
    return out


def _temporary_tables_read_twice(tree: exp.Expr) -> list[str]:
    names = Counter(t.name for t in tree.find_all(exp.Table) if t.name.lower().startswith(_TEMPORARY_PREFIXES))
    return sorted(name for name, n in names.items() if n > 1)


def _targets(tree: exp.Update | exp.Delete) -> set[str]:
    """The folded names of the tables the statement changes."""
    target = tree.this if isinstance(tree, exp.Update) else (tree.this or None)
    found = {target.name.casefold()} if isinstance(target, exp.Table) else set()
    for table in tree.args.get("tables") or ():
        if isinstance(table, exp.Table):
            found.add(table.name.casefold())
    return found


def _read_target_through_derived_table(tree: exp.Update | exp.Delete, ctx: Context) -> exp.Expr:
    """`UPDATE c ... WHERE id = (SELECT id FROM c ...)` -> `... (SELECT id FROM (SELECT * FROM c) AS c ...)`."""
    targets = _targets(tree) - {t for t in _targets(tree) if t.startswith(_TEMPORARY_PREFIXES)}
    if not targets:
        return tree
    wrapped = []
    for subquery in list(tree.find_all(exp.Subquery, exp.Exists, exp.In)):
        query = subquery.this if not isinstance(subquery, exp.In) else subquery.args.get("query")
        if isinstance(query, exp.Subquery):
            query = query.this
        if not isinstance(query, exp.Query):
            continue
        for table in list(query.find_all(exp.Table)):
            if table.name.casefold() not in targets or isinstance(table.parent, exp.Subquery) and \
                    table.parent.meta_get("mysql_target_copy"):
                continue
            alias = table.alias or table.name
            copy = exp.Subquery(this=exp.select("*").from_(exp.Table(this=table.this.copy(), db=table.args.get("db"))),
                                alias=exp.TableAlias(this=exp.to_identifier(alias)))
            copy.meta["mysql_target_copy"] = True
            table.replace(copy)
            wrapped.append(table.name)
    if wrapped:
        ctx.note("MY22", "rewritten", f"The statement changes {', '.join(sorted(set(wrapped)))} and reads it in a "
                 "subquery, which MySQL refuses (error 1093): the subquery reads it through a derived table, which "
                 "MySQL materializes first, so it sees the rows as they were before the statement, as SQL Server does.")
    return tree


def _assignments_read_before_written(update: exp.Update, ctx: Context) -> exp.Update:
    """`UPDATE w SET d = d2, sd = d` -> `UPDATE w SET sd = d, d = d2` (MySQL assigns left to right)."""
    items = update.expressions
    assigned = [item.this.name.lower() if isinstance(item, exp.EQ) and isinstance(item.this, exp.Column) else None
                for item in items]
    reads = [{c.name.lower() for c in item.expression.find_all(exp.Column)} if isinstance(item, exp.EQ) else set()
             for item in items]
    # item i must come before item j when i reads the column j assigns
    before = {j: {i for i in range(len(items)) if i != j and assigned[j] is not None and assigned[j] in reads[i]}
              for j in range(len(items))}
    if not any(before[j] - set(range(j)) for j in range(len(items))):
        return update  # left to right already reads every column before it changes
    joined = bool(update.this.args.get("joins")) if isinstance(update.this, exp.Table) else True
    order: list[int] = []
    waiting = list(range(len(items)))
    while waiting and not joined:
        ready = next((j for j in waiting if before[j] <= set(order)), None)
        if ready is None:
            break
        order.append(ready)
        waiting.remove(ready)
    if joined or waiting:
        why = "a multi-table UPDATE assigns in no set order" if joined else "no order of them reads each column first"
        ctx.note("MY24", "review", "An assignment of this UPDATE reads a column another one changes: SQL Server computes "
                 f"each from the row as it was, MySQL from the row as assigned so far, and {why}.")
        return update
    update.set("expressions", [items[i] for i in order])
    ctx.note("MY24", "rewritten", "An assignment of this UPDATE reads a column a later one changes: MySQL assigns left "
             "to right, so they are put in an order where each column is read before it changes, as SQL Server reads "
             "the row as it was.")
    return update
