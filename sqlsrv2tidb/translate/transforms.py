"""The translator's own AST rewrites, composed into one pipeline per statement.

Each rewrite is a small function `rewrite(node, ctx) -> node` over sqlglot trees: it returns the
node unchanged when it does not apply, a new node when it does, and records why in `ctx` (a
`Note` with a rule code and the status it implies). The tree passed in is the rewrite's only
input besides the read-only context, so each can be tested alone; `ctx` only collects notes.
The context is its own module (`context`), so the rewrite modules import it and not this one.

The pipeline runs in three passes over a copy of the statement:

1. scalar rewrites bottom-up (`transforms_scalar`): operators and functions whose meaning
   depends on operand types, so they run while column references still resolve against the
   SQL Server schema;
2. query rewrites (`transforms_query`, `transforms_dml`): clauses TiDB lacks (APPLY, PIVOT,
   FOR XML, TOP PERCENT, OUTPUT, MERGE, UPDATE ... FROM, hints);
3. names (`transforms_names`): tables through the NameMap, temp tables and table variables,
   variables and parameters.

Nothing is dropped silently: what no rewrite can keep is a note with status `unsupported`.

`Options.skip_rewrites` leaves named rewrites out (`SKIPPABLE`): a bottom-up rewrite by its function
name, TOP PERCENT / WITH TIES (`top_percent_or_ties`) and the DDL's case-insensitive collation
(`case_insensitive_collation`, applied by `types.TypeMapper`). It exists to show what a statement
means on TiDB without one rewrite; with nothing skipped the pipeline is the same tuple as always.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from sqlglot import exp
from sqlglot.expressions.core import POSITION_META_KEYS

from ..errors import UsageError
from . import (
    transforms_catalog,
    transforms_dml,
    transforms_functions,
    transforms_hashing,
    transforms_hierarchy,
    transforms_json,
    transforms_mysql,
    transforms_names,
    transforms_query,
    transforms_scalar,
    transforms_server,
)
from .context import Context
from .refusals import REFUSABLE, refusal, say_refused
from .scopes import parameter_name
from .transforms_grouping import GROUP_KEY, tag_group_expressions
from .transforms_writes import convert_written_values
from .types import CASE_INSENSITIVE_COLLATION
from .walk import depth_first

Rewrite = Callable[[exp.Expr, Context], exp.Expr]


def bottom_up(tree: exp.Expr, rewrites: tuple[Rewrite, ...], ctx: Context, nodes: list[exp.Expr] | None = None) -> exp.Expr:
    """Apply `rewrites` to every node, children before parents, replacing nodes in place.

    Children first, so a parent sees its operands already rewritten (a nested `a + b + c` is one
    CONCAT), while the nodes above are still the original ones (column references resolve). Each
    rewrite's result takes the node's place at once, so the next rewrite of the same node still
    resolves its operands' columns (CONVERT -> CAST, then the CAST's own rewrite, types its operand).
    A node meets only the rewrites declared for its class (`context.applies_to`), in pipeline order,
    the class looked up again after a rewrite replaced it. Each expression is typed, and each column
    resolved, once in the pass (`Types.remembering`). `nodes`: the tree's nodes in depth-first order,
    when the caller walked it already.
    """
    with ctx.types.remembering():
        return _bottom_up(tree, rewrites, ctx, depth_first(tree) if nodes is None else nodes)


def _bottom_up(tree: exp.Expr, rewrites: tuple[Rewrite, ...], ctx: Context, nodes: list[exp.Expr]) -> exp.Expr:
    plans = _PLANS.setdefault(rewrites, {})
    done = len(rewrites)
    root = tree
    for node in reversed(nodes):
        if (node is not root and node.parent is None) or node.meta_get("tidb"):
            continue  # detached by an earlier rewrite, or TiDB SQL a rewrite already produced
        current = node
        position = 0
        while True:
            cls = type(current)
            plan = plans.get(cls)
            if plan is None:
                plan = plans[cls] = _plan(rewrites, cls)
            position = plan[position]
            if position == done:
                break
            rewrite = rewrites[position]
            position += 1
            parent, key, index = current.parent, current.arg_key, current.index
            new = rewrite(current, ctx)
            if new is current:
                continue
            if current.meta_get(GROUP_KEY) and new is not None:
                new.meta.setdefault(GROUP_KEY, current.meta[GROUP_KEY])  # one rewrite per GROUP BY expression
            if current is root:
                root = new
            elif parent is not None:
                parent.set(key, new, index)
            current = new
    return root


_PLANS: dict[tuple[Rewrite, ...], dict[type, tuple[int, ...]]] = {}


def _plan(rewrites: tuple[Rewrite, ...], cls: type) -> tuple[int, ...]:
    """For each position in the pipeline, the position of the next rewrite that applies to `cls`
    (the pipeline's length when none does)."""
    applies = [issubclass(cls, getattr(rewrite, "node_types", (exp.Expr,))) for rewrite in rewrites]
    plan = [len(rewrites)] * (len(rewrites) + 1)
    for i in range(len(rewrites) - 1, -1, -1):
        plan[i] = i if applies[i] else plan[i + 1]
    return tuple(plan)


_PIPELINE: tuple[Rewrite, ...] = (*transforms_hierarchy.REWRITES, *transforms_functions.REWRITES, *transforms_scalar.REWRITES, *transforms_hashing.REWRITES,
                                  *transforms_json.REWRITES, *transforms_server.REWRITES, *transforms_catalog.REWRITES)

SKIPPABLE: tuple[str, ...] = (*(rewrite.__name__ for rewrite in _PIPELINE), transforms_query.top_percent_or_ties.__name__,
                              CASE_INSENSITIVE_COLLATION)
"""The names `Options.skip_rewrites` accepts."""


@cache
def check_skip_rewrites(names: frozenset[str]) -> frozenset[str]:
    """`names` when each is in `SKIPPABLE`; else a one-line error naming the unknown ones and the accepted ones."""
    unknown = sorted(names - set(SKIPPABLE))
    if unknown:
        raise UsageError(f"no translator rewrite named {', '.join(map(repr, unknown))} to skip; "
                         f"the names are: {', '.join(SKIPPABLE)}")
    return names


_MYSQL_PIPELINE: tuple[Rewrite, ...] = tuple(
    transforms_mysql.next_value if rewrite is transforms_functions.next_value else rewrite for rewrite in _PIPELINE)
"""The pipeline for a MySQL target: TiDB's, with MySQL's NEXT VALUE FOR (it has no sequences)."""


@cache
def _pipeline_without(names: frozenset[str], mysql: bool = False) -> tuple[Rewrite, ...]:
    check_skip_rewrites(names)
    return tuple(rewrite for rewrite in (_MYSQL_PIPELINE if mysql else _PIPELINE) if rewrite.__name__ not in names)


def translate_tree(tree: exp.Expr, ctx: Context, *, in_place: bool = False) -> list[exp.Expr]:
    """Run every pass over one parsed statement; the result may be several TiDB statements.

    The passes work on a copy, since the batch reads the statement as it was written afterwards
    (what @@ROWCOUNT or SCOPE_IDENTITY() follow); `in_place` when nothing will (the last statement)."""
    if not in_place:
        tree = tree.copy()
    if isinstance(tree, (exp.Insert, exp.Update, exp.Merge)):
        convert_written_values(tree, ctx)  # on the T-SQL tree, before the walk: the values inside are rewritten too
    nodes = depth_first(tree)  # one walk for the refusals, parameters, GROUP BY and the scalar rewrites
    _drop_positions(nodes)
    used, grouped, reason = parameters_and_grouping(nodes, ctx)
    if reason is not None:
        say_refused(reason, ctx)
        return [tree]
    if grouped:
        tag_group_expressions(tree, nodes)  # meta only: `nodes` still lists the tree
    skipped, mysql = ctx.options.skip_rewrites, ctx.options.mysql
    pipeline = _pipeline_without(skipped, mysql) if skipped else _MYSQL_PIPELINE if mysql else _PIPELINE
    tree = bottom_up(tree, pipeline, ctx, nodes)
    statements = transforms_dml.rewrite_statement(tree, ctx)
    out: list[exp.Expr] = []
    kept: set[str] = set()  # the parameters the names pass wrote a marker for
    for statement in statements:
        statement = transforms_query.rewrite_queries(statement, ctx)
        statement = transforms_names.rewrite_names(statement, ctx, kept)
        out.append(statement)
    if not used:
        return out
    dropped = sorted(used - kept)
    if dropped and not ctx.unsupported:
        ctx.note("QY26", "review", f"{', '.join(ctx.parameters.get(name, '@' + name) for name in dropped)} of the T-SQL statement no longer appears "
                 "in its TiDB form: a rewrite dropped it, so check that the statement still means the same.")
    return out


def _drop_positions(nodes: list[exp.Expr]) -> None:
    """Forget where the parser found each node in the text: nothing after the parse reads it, and every copy a
    rewrite makes deep-copied it (Python's deepcopy of a dict per identifier and literal)."""
    for node in nodes:
        meta = node._meta
        if meta is not None and "start" in meta:
            for key in POSITION_META_KEYS:
                meta.pop(key, None)
            if not meta:
                node._meta = None


def parameters_and_grouping(nodes: list[exp.Expr], ctx: Context) -> tuple[set[str], bool, str | None]:
    """Lower-case names (no `@`) of the parameters a statement uses: variables it neither declares
    nor names a table variable by, and not @@ functions (each must reach the TiDB text as a `?`);
    whether it has a GROUP BY, whose expressions are tagged before the rewrites; and why SQL Server
    refuses it, if it does (`refusals`). `nodes`: every node of the statement, read in one loop."""
    names = set()
    grouped = False
    for node in nodes:
        if isinstance(node, REFUSABLE):
            reason = refusal(node)
            if reason is not None:
                return names, grouped, reason
            continue
        if isinstance(node, exp.Group):
            grouped = True
        if not isinstance(node, exp.Parameter):
            continue
        if isinstance(node.this, exp.Parameter) or isinstance(node.parent, (exp.Parameter, exp.Table)):
            continue
        name = parameter_name(node).lower()
        if name and name not in ctx.local_variables:
            names.add(name)
    return names, grouped, None
