"""Views translated to TiDB where the query translator can, and every other module kept as source.

A view's SELECT goes through the query translator (`translate/queries.py`, `translate_sql`), the
same code that translates the captured workload, so a view and a query get the same treatment.
Views are created in dependency order. Procedures, functions, triggers and synonyms cannot run on
TiDB (https://docs.pingcap.com/tidb/stable/mysql-compatibility#unsupported-features); their
source is written as comments in 07-modules-not-migrated.sql so nothing is lost (the rules engine
inventories them with their size and effort).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..model import Database, Finding, Module, Severity
from ..model.plan import ViewPlan
from ..options import Options
from ..translate.ddl import SourceBlock, ViewDdl
from ..translate.identifiers import object_name, sql_name
from ..translate.naming import NameMap

_VIEW_HEAD = re.compile(
    r"^\s*CREATE\s+(?:OR\s+ALTER\s+)?VIEW\s+(?P<name>(?:\[[^\]]+\]|\"[^\"]+\"|[\w$#@]+)(?:\s*\.\s*(?:\[[^\]]+\]|\"[^\"]+\"|[\w$#@]+))*)"
    r"\s*(?:\((?P<cols>[^()]*)\))?\s*(?:WITH\s+(?:SCHEMABINDING|ENCRYPTION|VIEW_METADATA)(?:\s*,\s*(?:SCHEMABINDING|ENCRYPTION|VIEW_METADATA))*\s*)?"
    r"AS\b(?P<body>.*)$",
    re.I | re.S,
)
_TAIL = re.compile(r"(?:\s+WITH\s+CHECK\s+OPTION)?\s*;?\s*(?:\bGO\b\s*)?$", re.I)
_COMMENTS = re.compile(r"--[^\n]*|/\*.*?\*/", re.S)


@dataclass
class ViewOutcome:
    views: list[ViewDdl] = field(default_factory=list)
    kept: list[SourceBlock] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    translator: bool = True
    plans: list[ViewPlan] = field(default_factory=list)
    """Every view in dependency order; a translated one's `ddl` is rendered by the planner (`ViewPlan.ddl`)."""

    def keep(self, view: Module, target: str, reason: str) -> None:
        """The view stays a comment in 06-views.sql, saying why."""
        self.kept.append(_block(view, [f"not created: {reason}"]))
        self.plans.append(ViewPlan(view.qualified_name, target, kept=reason))


def split_view(definition: str) -> tuple[tuple[str, ...], str] | None:
    """(column list, SELECT text) of a CREATE VIEW statement, or None when it is not one.

    >>> split_view("CREATE VIEW [dbo].[v] (a, b) WITH SCHEMABINDING AS SELECT 1, 2 WITH CHECK OPTION")
    (('a', 'b'), 'SELECT 1, 2')
    """
    text = _COMMENTS.sub(lambda m: " " * len(m.group(0)) if m.group(0).startswith("--") else m.group(0), definition)
    start = re.search(r"\bCREATE\b", text, re.I)
    if start is None:
        return None
    m = _VIEW_HEAD.match(definition[start.start():])
    if m is None:
        return None
    cols = tuple(c.strip().strip("[]\"") for c in m["cols"].split(",")) if m["cols"] else ()
    body = _TAIL.sub("", m["body"]).strip()
    return cols, body


def order_views(views: list[Module]) -> list[Module]:
    """Views sorted so each comes after the views it selects from."""
    by_name = {v.name.casefold(): v for v in views}
    deps: dict[str, set[str]] = {}
    for v in views:
        body = (v.definition or "").casefold()
        deps[v.name.casefold()] = {
            other for other in by_name
            if other != v.name.casefold() and re.search(r"(?<![\w$#@])\[?" + re.escape(other) + r"\]?(?![\w$#@])", body)
        }
    ordered: list[Module] = []
    done: set[str] = set()

    def visit(name: str, stack: set[str]) -> None:
        if name in done or name in stack:
            return
        stack.add(name)
        for dep in sorted(deps[name]):
            visit(dep, stack)
        done.add(name)
        ordered.append(by_name[name])

    for v in views:
        visit(v.name.casefold(), set())
    return ordered


def _uses_dropped(definition: str, dropped: dict[str, set[str]]) -> str | None:
    """`table.column` of a column left out of the DDL that the view's text names, if any."""
    text = _COMMENTS.sub(" ", definition).casefold()
    for table, columns in dropped.items():
        if not re.search(r"(?<![\w$#@])\[?" + re.escape(table) + r"\]?(?![\w$#@])", text):
            continue
        for column in sorted(columns):
            if re.search(r"(?<![\w$#@])\[?" + re.escape(column.casefold()) + r"\]?(?![\w$#@])", text):
                return f"{table}.{column}"
    return None


def plan_views(database: Database, names: NameMap, options: Options,
               dropped: dict[str, set[str]] | None = None) -> ViewOutcome:
    """Views in dependency order; `dropped` maps a folded table name to the columns left out of its DDL."""
    try:
        from ..translate.queries import translate_sql
    except ImportError:
        translate_sql = None  # type: ignore[assignment]
    out = ViewOutcome(translator=translate_sql is not None)
    for view in order_views(list(database.modules_of("view"))):
        target = object_name(names, view.schema, view.name)
        where = f"{view.source}" if view.source.file else "catalog"
        split = split_view(view.definition) if view.definition else None
        if split is None:
            out.keep(view, target, "encrypted or unreadable definition" if not view.definition
                     else "not a CREATE VIEW statement")
            continue
        cols, body = split
        missing = _uses_dropped(view.definition or "", dropped or {})
        if missing:
            out.keep(view, target, f"it uses {missing}, which is left out of the DDL")
            out.findings.append(Finding(rule="TY20", severity=Severity.MEDIUM, object=view.qualified_name,
                                        message=f"view {view.qualified_name} uses column {missing}, which is left out "
                                                f"of the DDL; the view is kept as a comment in 06-views.sql",
                                        file=view.source.file, line=view.source.line))
            continue
        if translate_sql is None:
            out.keep(view, target, "the query translator is not installed")
            continue
        try:
            translated = translate_sql(body, database=database, names=names, options=options)
        except Exception as exc:  # noqa: BLE001 - one view must not stop the plan
            out.keep(view, target, f"translation failed ({type(exc).__name__}: {exc})")
            continue
        for note in translated.notes:
            out.findings.append(Finding(rule=note.code, severity=_severity(note.code, options), object=view.qualified_name,
                                        message=f"view: {note.message}", file=view.source.file, line=view.source.line))
        if translated.target_sql is None or translated.status == "unsupported":
            out.keep(view, target, f"the query cannot be translated ({translated.status})")
            continue
        notes = [f"{view.qualified_name} from {where}"]
        if translated.status == "review":
            notes.append(f"REVIEW: runs on {options.engine_name}, but the meaning may differ (see the findings)")
        body_sql = translated.target_sql.strip().rstrip(";")
        out.views.append(ViewDdl(target, body_sql, tuple(sql_name(c) for c in cols), tuple(notes)))
        review: tuple[str, ...] = ()
        if translated.status == "review":  # the notes that made it so (QY65 names them for the view's readers)
            review = tuple(sorted({n.code for n in translated.notes if n.status in ("review", None)}
                                  or {n.code for n in translated.notes}))
        out.plans.append(ViewPlan(view.qualified_name, target, review=review))
    return out


def _severity(code: str, options: Options) -> Severity:
    """The severity the catalogue gives a translator note's rule (a view's notes become findings here)."""
    from ..rules.catalogue import load_catalogue

    rule = load_catalogue(options.rules_dir).get(code)
    return rule.severity if rule is not None else Severity.MEDIUM


def _block(module: Module, notes: list[str]) -> SourceBlock:
    kind = module.kind.replace("_", " ").upper()
    where = f"{module.source}" if module.source.file else "catalog"
    lines = (module.definition or "(definition not available: encrypted or not captured)").splitlines()
    title = f"{kind} {module.qualified_name} ({where}, {module.line_count} lines)"
    return SourceBlock(title, tuple(line.rstrip() for line in lines), tuple(notes))


_KEPT_WHY = {
    "tidb": "TiDB has no stored procedures, functions, triggers or synonyms: move this logic to the application",
    "mysql": "not translated: rewrite it in MySQL's stored-program language, or move its logic to the application",
}


def kept_modules(database: Database, engine: str = "tidb") -> list[SourceBlock]:
    """Procedures, functions, triggers and synonyms, as commented source, in a stable order."""
    order = {"procedure": 0, "function": 1, "trigger": 2, "ddl_trigger": 3, "synonym": 4}
    modules = sorted((m for m in database.modules if m.kind != "view"),
                     key=lambda m: (order.get(m.kind, 9), (m.schema or "").casefold(), m.name.casefold()))
    blocks = []
    for m in modules:
        notes = [_KEPT_WHY[engine]]
        if m.kind == "trigger" and m.parent:
            notes.append(f"trigger on {m.parent}")
        if m.kind == "synonym" and m.base_object:
            notes.append(f"synonym for {m.base_object}: reference the object directly or create a view")
        blocks.append(_block(m, notes))
    return blocks
