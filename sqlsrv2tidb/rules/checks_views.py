"""Queries and code that go through views: writes TiDB refuses, and reads of views whose answers may differ.

Writes: TiDB views are read-only, so INSERT/UPDATE/DELETE/MERGE on a view fails. SQL Server updates
a view when the change maps to one base table, or runs the view's INSTEAD OF trigger; TiDB does
neither (https://docs.pingcap.com/tidb/stable/views#limitations). The writers are found in module
bodies, in INSTEAD OF triggers on views and in the captured workload.

Reads: a view's SELECT is translated like a query (plan/views.py); when that translation is marked
review, the view runs on TiDB but may answer otherwise, and so may every query that reads it,
however plain its own text: the doubt lives in the view. A view that reads such a view inherits it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from sqlglot.tokens import TokenType

from ..model import Database, Module, SourceRef
from .context import RuleContext
from .references import dotted_name, tokens_of
from .registry import Hit, rule

_DML_WORDS = {"UPDATE", "INSERT", "DELETE", "MERGE"}


def dml_targets(sql: str) -> list[tuple[str, list[str], int]]:
    """(statement keyword, target name parts, line) for each INSERT/UPDATE/DELETE/MERGE in `sql`."""
    tokens = tokens_of(sql)
    if tokens is None:
        return []
    out = []
    for i, tok in enumerate(tokens):
        word = tok.text.upper()
        if word not in _DML_WORDS or (i > 0 and tokens[i - 1].token_type == TokenType.DOT):
            continue
        j = i + 1
        if j < len(tokens) and tokens[j].text.upper() == "TOP":  # UPDATE TOP (n) v
            depth = 0
            j += 1
            while j < len(tokens):
                if tokens[j].token_type == TokenType.L_PAREN:
                    depth += 1
                elif tokens[j].token_type == TokenType.R_PAREN:
                    depth -= 1
                    if depth <= 0:
                        j += 1
                        break
                j += 1
        if j < len(tokens) and tokens[j].text.upper() in ("INTO", "FROM"):
            j += 1
        parts = []
        while j < len(tokens) and tokens[j].token_type in (TokenType.VAR, TokenType.IDENTIFIER):
            parts.append(tokens[j].text)
            if j + 1 < len(tokens) and tokens[j + 1].token_type == TokenType.DOT:
                j += 2
                continue
            break
        if parts:
            out.append((word, parts, tok.line))
    return out


def view_resolver(database: Database) -> Callable[[list[str]], Module | None] | None:
    """The view a written name (its dotted parts) means, or None when the database has no views."""
    views: dict[str, list[Module]] = {}
    for view in database.modules_of("view"):
        views.setdefault(view.name.casefold(), []).append(view)
    if not views:
        return None
    tables = {t.name.casefold() for t in database.tables}

    def resolve(parts: list[str]) -> Module | None:
        """Schema-qualified, or unqualified in dbo or without a namesake table."""
        hits = views.get(parts[-1].casefold(), [])
        if len(parts) >= 2:
            hits = [v for v in hits if (v.schema or "dbo").casefold() == parts[-2].casefold()]
        elif parts[-1].casefold() in tables or len(hits) > 1:
            hits = [v for v in hits if (v.schema or "dbo").casefold() == "dbo"]
        return hits[0] if len(hits) == 1 else None

    return resolve


@rule("MO10")
def modified_views(ctx: RuleContext) -> Iterator[Hit]:
    resolve = view_resolver(ctx.database)
    if resolve is None:
        return

    # Only text with a write statement aimed at one of the views' names is worth tokenizing.
    def name_pattern(view: Module) -> str:
        schema = re.escape(view.schema or "dbo")
        name = re.escape(view.name)
        qualified = rf"[\[\"]?{schema}[\]\"]?\s*\.\s*[\[\"]?{name}"
        return qualified if resolve([view.name]) is not view else rf"(?:{qualified}|[\[\"]?{name})"

    targets = "|".join(name_pattern(v) for v in ctx.database.modules_of("view"))
    mentions = re.compile(
        r"\b(?:UPDATE|INSERT|DELETE|MERGE)\s+(?:TOP\s*\([^)]*\)\s*)?(?:(?:INTO|FROM)\s+)?"
        rf"(?:{targets})(?![\w\.])",
        re.I,
    )

    writers: dict[str, list[str]] = {}
    first: dict[str, SourceRef] = {}
    for module in ctx.database.modules:
        if module.kind == "trigger" and module.parent:
            view = resolve(module.parent.split("."))
            if view is not None:
                writers.setdefault(view.qualified_name, []).append(f"INSTEAD OF trigger {module.qualified_name}")
        if module.kind == "view" or not module.definition or not mentions.search(module.definition):
            continue
        for word, parts, line in dml_targets(module.definition):
            view = resolve(parts)
            if view is not None:
                writers.setdefault(view.qualified_name, []).append(f"{word} in {module.qualified_name}")
                if module.source.line is not None:
                    first.setdefault(view.qualified_name, SourceRef(module.source.file, module.source.line + line - 1))
    for query in ctx.capture.workload.queries:
        if query.kind not in ("insert", "update", "delete", "merge") or not mentions.search(query.text):
            continue
        for word, parts, _ in dml_targets(query.text)[:1]:
            view = resolve(parts)
            if view is not None:
                writers.setdefault(view.qualified_name, []).append(f"{word} in workload query {query.id}")
    for name, how in sorted(writers.items()):
        view = resolve(name.split("."))
        if view is None:
            continue
        uniq = sorted(set(how))
        yield Hit(
            object=name,
            message=f"view {name} is written to ({'; '.join(uniq[:4])}{'; ...' if len(uniq) > 4 else ''}): "
                    "TiDB views are read-only; write to the base tables instead",
            source=first.get(name, view.source),
            details={"writers": uniq, "view_source": str(view.source)},
        )


_READ_AFTER = frozenset({"FROM", "JOIN", "APPLY"})


def objects_read(sql: str) -> list[list[str]]:
    """The dotted names after FROM, JOIN and APPLY in `sql` (what a query reads; a comma-joined
    second source is not seen); none when the text does not tokenize."""
    tokens = tokens_of(sql)
    if tokens is None:
        return []
    out = []
    for i in range(1, len(tokens)):
        if tokens[i - 1].text.upper() in _READ_AFTER and tokens[i].token_type in (TokenType.VAR, TokenType.IDENTIFIER):
            out.append(dotted_name(tokens, i)[0])
    return out


@rule("QY65")
def reads_of_reviewed_views(ctx: RuleContext) -> Iterator[Hit]:
    if ctx.plan is None or ctx.translation is None or not ctx.plan.views:
        return
    resolve = view_resolver(ctx.database)
    if resolve is None:
        return
    # Why each view may answer otherwise, in dependency order, so a view reading one inherits it.
    doubt: dict[str, str] = {}
    for planned in ctx.plan.views:
        if planned.review:
            doubt[planned.source.casefold()] = f"its translation is marked review ({', '.join(planned.review)})"
            continue
        module = ctx.module(planned.source)
        for parts in objects_read(module.definition or "") if module is not None else []:
            read = resolve(parts)
            if read is not None and read.qualified_name.casefold() in doubt and read is not module:
                doubt[planned.source.casefold()] = f"it reads view {read.qualified_name}, whose translation is marked review"
                break
    if not doubt:
        return
    for query in ctx.translation.queries:
        reasons: dict[str, str] = {}
        for parts in objects_read(query.source_sql):
            view = resolve(parts)
            if view is not None and view.qualified_name.casefold() in doubt:
                reasons.setdefault(view.qualified_name, doubt[view.qualified_name.casefold()])
        if not reasons:
            continue
        cls = ctx.capture.workload.query(query.id)
        views = "; ".join(f"view {name}: {why}" for name, why in reasons.items())
        yield Hit(
            object=f"query {query.id}",
            message=f"reads a view whose answers may differ on TiDB ({views}); its own translation "
                    f"({query.status}) does not show it: compare its answers, and see the view's findings",
            source=cls.source if cls is not None else None,
            details={"views": sorted(reasons), "status": query.status},
        )
