"""Checks on code kept in the database: procedures, functions, triggers, CLR, synonyms, table types.

TiDB runs none of it (https://docs.pingcap.com/tidb/stable/mysql-compatibility#unsupported-features),
so every module is inventoried by name with its size and an effort scaled by that size: the
application has to take the logic over. Module bodies and views are also searched for names that
reach into other databases or other servers, which a single TiDB database cannot serve.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator

from ..model import Module, SourceRef
from ..procedures.catalog import procedures_of
from ..workload_rates import executions_in
from .context import RuleContext
from .references import ExternalReference, find_external_references
from .registry import Hit, rule

_KIND_WORDS = {
    "procedure": "stored procedure",
    "function": "function",
    "trigger": "trigger",
    "ddl_trigger": "DDL trigger",
    "view": "view",
    "synonym": "synonym",
}
_FUNCTION_KINDS = {
    "scalar": "scalar function",
    "inline_table": "inline table-valued function",
    "table": "multi-statement table-valued function",
    "aggregate": "CLR aggregate",
}


def module_effort_days(lines: int) -> float:
    """Person-days to rewrite a module of `lines` lines in the application.

    The catalogue's buckets by size (up to 30 lines simple, 0.25 day; up to 150 medium, 1 day;
    up to 500 significant, 3 days), then 3 days per 500 lines, in quarter days. Unknown size
    (an encrypted module) counts as significant.
    """
    if lines <= 0:
        return 3.0
    if lines <= 30:
        return 0.25
    if lines <= 150:
        return 1.0
    if lines <= 500:
        return 3.0
    return math.ceil(3.0 * lines / 500 * 4) / 4


def straight_port_days(lines: int) -> float:
    """Person-days to port a procedure the procedure runner runs as it stands: its statements move into the
    application as they are (each already translated) and its control flow becomes the application's, a
    quarter of a rewrite by its size, in quarter days (at least a quarter)."""
    return max(0.25, math.ceil(module_effort_days(lines)) / 4 if lines > 0 else 0.75)


def effort_bucket(days: float) -> str:
    return "simple" if days <= 0.25 else "medium" if days <= 1.0 else "significant"


def _size(module: Module) -> dict[str, object]:
    lines = module.line_count
    days = module_effort_days(lines)
    details: dict[str, object] = {"kind": module.kind, "lines": lines, "effort_days": days,
                                  "effort": effort_bucket(days)}
    if module.definition is None:
        details["definition"] = "not available (WITH ENCRYPTION, or not readable with the capture's permissions)"
    return details


def _size_text(module: Module) -> str:
    return f"{module.line_count} lines" if module.definition is not None else "definition not available"


def _executions(ctx: RuleContext, module: Module) -> dict[str, object]:
    """How often the captured workload ran this module, so the report can rank rewrites."""
    workload = ctx.capture.workload
    if workload.is_empty:
        return {}
    names = {module.name.casefold(), module.qualified_name.casefold()}
    pattern = re.compile(rf"^\s*EXEC(?:UTE)?\s+(?:@\w+\s*=\s*)?(?:\[?\w+\]?\.)?\[?{re.escape(module.name)}\]?\b", re.I)
    ids = {q.id for q in workload.queries
           if (q.procedure or "").casefold().strip("[]") in names or pattern.match(q.text)}
    if not ids:
        return {}
    totals = executions_in(workload, None)
    return {"workload_query_classes": len(ids), "executions": int(sum(totals.get(i, 0) for i in ids))}


def _runner(ctx: RuleContext, module: Module) -> tuple[dict[str, object], str]:
    """What the procedure runner makes of a procedure (docs/procedures.md), and how the finding says it: one it
    runs as it stands is a straight port, with the effort of one; else what stops it."""
    summary = procedures_of(ctx.database, ctx.options).summary(module.qualified_name)
    if summary is None:
        return {}, ""
    runner: dict[str, object] = {"runs": summary.runs, "statements": summary.statements,
                                 "target_statements": summary.sent, "status": summary.status}
    if not summary.runs:
        runner["stops"] = summary.stops()
        return {"runner": runner}, f"; the procedure runner cannot run it ({summary.stops()})"
    days = straight_port_days(module.line_count)
    return ({"runner": runner, "effort_days": days, "effort": effort_bucket(days), "straight_port": True},
            f"; the procedure runner runs it on the target as it stands ({summary.statements} statement(s), "
            f"{summary.sent} sent to the target in one pass): a straight port")


def _inventory(ctx: RuleContext, kind: str) -> Iterator[Hit]:
    for module in ctx.database.modules_of(kind):  # type: ignore[arg-type]
        if module.is_clr:
            continue  # CLR modules are MO05: their size is compiled code we never see
        what = _KIND_WORDS[kind]
        if kind == "function" and module.function_kind:
            what = _FUNCTION_KINDS.get(module.function_kind, what)
        details = {**_size(module), **_executions(ctx, module)}
        ran = ""
        if kind == "procedure" and module.definition is not None:
            found, ran = _runner(ctx, module)
            details.update(found)
        extra = ""
        if module.native_compilation:
            details["natively_compiled"] = True
            extra = ", natively compiled"
        if kind == "trigger" and module.parent:
            details["table"] = module.parent
            timing = "INSTEAD OF" if re.search(r"\bINSTEAD\s+OF\b", module.definition or "", re.I) else "AFTER"
            details["timing"] = timing
            extra = f" on {module.parent} ({timing})"
        yield Hit(
            object=module.qualified_name,
            message=f"{what} {module.qualified_name}{extra} ({_size_text(module)}): TiDB has none; "
                    f"its logic moves to the application{ran} (about {details['effort_days']:g} day(s))",
            source=module.source,
            details=details,
        )


@rule("MO01")
def stored_procedures(ctx: RuleContext) -> Iterator[Hit]:
    yield from _inventory(ctx, "procedure")


@rule("MO02")
def user_defined_functions(ctx: RuleContext) -> Iterator[Hit]:
    yield from _inventory(ctx, "function")


@rule("MO03")
def dml_triggers(ctx: RuleContext) -> Iterator[Hit]:
    yield from _inventory(ctx, "trigger")


@rule("MO04")
def ddl_triggers(ctx: RuleContext) -> Iterator[Hit]:
    yield from _inventory(ctx, "ddl_trigger")


@rule("MO05")
def clr_modules(ctx: RuleContext) -> Iterator[Hit]:
    for module in ctx.database.modules:
        if not (module.is_clr or module.function_kind == "aggregate"):
            continue
        what = _FUNCTION_KINDS.get(module.function_kind or "", _KIND_WORDS.get(module.kind, module.kind))
        external = re.search(r"\bEXTERNAL\s+NAME\s+([^\s;]+)", module.definition or "", re.I)
        details: dict[str, object] = {"kind": module.kind, "effort_days": 3.0, "effort": "significant"}
        if external:
            details["external_name"] = external[1]
        yield Hit(
            object=module.qualified_name,
            message=f"CLR {what} {module.qualified_name}"
                    f"{f' (EXTERNAL NAME {external[1]})' if external else ''}: .NET code that TiDB cannot run; "
                    "reimplement it in the application",
            source=module.source,
            details={**details, **_executions(ctx, module)},
        )


def _module_references(ctx: RuleContext, kinds: set[str]) -> Iterator[tuple[Module, list[ExternalReference]]]:
    for module in ctx.database.modules:
        if module.kind == "synonym" or not module.definition:
            continue
        if module.kind == "view" and ctx.plan is not None:
            continue  # the planner translates views, and the translator notes these names itself (QY29/QY30)
        refs = [r for r in find_external_references(module.definition, ctx.database.name) if r.kind in kinds]
        if refs:
            yield module, refs


def _at(module: Module, ref: ExternalReference) -> SourceRef:
    """The file and line of a reference: the module's CREATE line plus the line inside its body."""
    if module.source.line is None:
        return module.source
    return SourceRef(module.source.file, module.source.line + ref.line - 1)


def _synonym_parts(module: Module) -> list[str]:
    return [p.strip("[]\" ") for p in (module.base_object or "").split(".")]


@rule("MO06")
def cross_database_references(ctx: RuleContext) -> Iterator[Hit]:
    for module, refs in _module_references(ctx, {"cross_database"}):
        names = sorted({r.text for r in refs}, key=str.casefold)
        databases = sorted({r.database or "" for r in refs}, key=str.casefold)
        system = sorted({r.database or "" for r in refs if r.system_database}, key=str.casefold)
        note = f"; {', '.join(system)} {'is a' if len(system) == 1 else 'are'} SQL Server system database(s)" if system else ""
        yield Hit(
            object=module.qualified_name,
            message=f"{_KIND_WORDS[module.kind]} {module.qualified_name} reads or calls objects in "
                    f"{', '.join(databases)} ({', '.join(names[:5])}{', ...' if len(names) > 5 else ''}){note}",
            source=_at(module, refs[0]),
            details={"references": names, "databases": databases, "lines": [r.line for r in refs]},
        )
    current = (ctx.database.name or "").casefold()
    for syn in ctx.database.modules_of("synonym"):
        parts = _synonym_parts(syn)
        if len(parts) == 3 and parts[0] and parts[0].casefold() != current:
            yield Hit(
                object=syn.qualified_name,
                message=f"synonym {syn.qualified_name} points into database {parts[0]} ({syn.base_object})",
                source=syn.source,
                details={"references": [".".join(parts)], "databases": [parts[0]]},
            )


@rule("MO07")
def linked_server_references(ctx: RuleContext) -> Iterator[Hit]:
    for module, refs in _module_references(ctx, {"linked_server", "remote_query"}):
        names = sorted({r.text for r in refs}, key=str.casefold)
        servers = sorted({r.server for r in refs if r.server}, key=str.casefold)
        yield Hit(
            object=module.qualified_name,
            message=f"{_KIND_WORDS[module.kind]} {module.qualified_name} queries another server "
                    f"({', '.join(names[:5])}{', ...' if len(names) > 5 else ''}); TiDB has no linked servers",
            source=_at(module, refs[0]),
            details={"references": names, "servers": servers, "lines": [r.line for r in refs]},
        )
    for syn in ctx.database.modules_of("synonym"):
        parts = _synonym_parts(syn)
        if len(parts) == 4:
            yield Hit(
                object=syn.qualified_name,
                message=f"synonym {syn.qualified_name} points at server {parts[0]} ({syn.base_object}); "
                        "TiDB has no linked servers",
                source=syn.source,
                details={"references": [".".join(parts)], "servers": [parts[0]]},
            )


@rule("MO08")
def synonyms(ctx: RuleContext) -> Iterator[Hit]:
    for syn in ctx.database.modules_of("synonym"):
        target = syn.base_object or "an unknown object"
        yield Hit(
            object=syn.qualified_name,
            message=f"synonym {syn.qualified_name} for {target}: TiDB has no synonyms; "
                    "name the object itself (or a view over it) in the code that uses the synonym",
            source=syn.source,
            details={"base_object": syn.base_object},
        )


_STRINGS_AND_COMMENTS = re.compile(r"N?'(?:[^']|'')*'|--[^\n]*|/\*.*?\*/", re.S)


def _code_only(sql: str) -> str:
    """`sql` without string literals and comments (dynamic SQL text is not a parameter list)."""
    return _STRINGS_AND_COMMENTS.sub(" ", sql)


@rule("MO09")
def table_types(ctx: RuleContext) -> Iterator[Hit]:
    for utype in ctx.database.user_types:
        if not utype.is_table_type:
            continue
        pattern = re.compile(rf"(?:\[?{re.escape(utype.schema)}\]?\s*\.\s*)?\[?{re.escape(utype.name)}\]?\s+READONLY\b",
                             re.I)
        users = sorted((m.qualified_name for m in ctx.database.modules
                        if m.definition and pattern.search(_code_only(m.definition))), key=str.casefold)
        used = f"; used as a table-valued parameter by {', '.join(users)}" if users else ""
        yield Hit(
            object=utype.qualified_name,
            message=f"table type {utype.qualified_name} ({len(utype.columns)} columns){used}: TiDB has no table "
                    "types or table-valued parameters",
            source=utype.source,
            details={"columns": [c.name for c in utype.columns], "used_by": users},
        )
