"""The queries inside a schema's modules (views, procedures, functions, triggers), as statements to translate.

TiDB runs no procedures, functions or triggers, so their code moves to the application; the queries
in it are what the application will send, so the execution check runs them. Each query of a module
becomes a sample: its module's parameters are bound as parameters (`@CustomerID int` -> `?`), and the
module's DECLAREs and temp tables that come before it are put in front, as the batch SQL Server would
have run, so local variables and table variables exist when the query runs.

Left out, and counted: statements of triggers that read `inserted`/`deleted` (they only exist while a
trigger runs), and cursor declarations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlglot import exp

from sqlsrv2tidb.model import Database, Parameter
from sqlsrv2tidb.plan.views import split_view
from sqlsrv2tidb.translate.statements import Statement, parse_statements
from sqlsrv2tidb.tsql.fingerprint import parse_declarations

_QUERIES = (exp.Query, exp.Insert, exp.Update, exp.Delete, exp.Merge)
_HEAD = re.compile(r"^\s*CREATE\s+(?:OR\s+ALTER\s+)?(?:PROCEDURE|PROC|FUNCTION|TRIGGER)\s+"
                   r"(?:\[[^\]]+\]|\"[^\"]+\"|[\w$#@]+)(?:\s*\.\s*(?:\[[^\]]+\]|\"[^\"]+\"|[\w$#@]+))*", re.I)
_COMMENTS = re.compile(r"--[^\n]*|/\*.*?\*/", re.S)


@dataclass(frozen=True)
class ModuleQuery:
    module: str
    position: int
    sql: str
    parameters: tuple[Parameter, ...]


@dataclass
class Extraction:
    queries: list[ModuleQuery]
    left_out: dict[str, int]


def split_module(definition: str) -> tuple[str, str] | None:
    """(header after the name, body) of CREATE PROCEDURE/FUNCTION/TRIGGER; the body starts after the
    `AS` that is neither `@p AS type` nor `EXECUTE AS`, or at BEGIN/RETURN for functions without AS."""
    blank = _COMMENTS.sub(lambda m: " " * len(m.group(0)), definition)
    head = _HEAD.search(blank)
    if head is None:
        return None
    depth = 0
    for m in re.finditer(r"'(?:[^']|'')*'|[()]|\b(AS|BEGIN|RETURN)\b|(@\w+)\s*$", blank[head.end():], re.I):
        text = m.group(0)
        if text == "(":
            depth += 1
        elif text == ")":
            depth -= 1
        elif depth == 0 and m.group(1):
            before = blank[head.end(): head.end() + m.start()].rstrip()
            if m.group(1).upper() == "AS" and (re.search(r"@\w+$", before) or re.search(r"\bEXEC(UTE)?$", before, re.I)):
                continue
            start = head.end() + m.start()
            body_start = start + (2 if m.group(1).upper() == "AS" else 0)
            return definition[head.end():start], definition[body_start:]
    return None


def _parameters(header: str, aliases: dict[str, str], tables: dict[str, str]) -> tuple[tuple[Parameter, ...], list[str]]:
    """The module's scalar parameters, and a DECLARE for each table-valued one (the rows its caller passes)."""
    text = header.strip()
    if text.startswith("("):
        depth = 0
        for i, ch in enumerate(text):
            depth += {"(": 1, ")": -1}.get(ch, 0)
            if depth == 0:
                text = text[1:i]
                break
    text = re.split(r"\b(?:RETURNS|WITH|ON|FOR|AFTER|INSTEAD)\b", text, maxsplit=1, flags=re.I)[0]
    out, declares = [], []
    for p in parse_declarations(text):
        type_text = re.sub(r"^as\s+", "", p.type).replace("[", "").replace("]", "")
        if type_text in tables:
            declares.append(f"DECLARE {p.name} TABLE ({tables[type_text]})")
            continue
        out.append(Parameter(p.name, aliases.get(type_text, aliases.get(type_text.split(".")[-1], type_text))))
    return tuple(out), declares


_RETURNS_TABLE = re.compile(r"\bRETURNS\s+(@\w+)\s+TABLE\s*\((.*)\)\s*(?:WITH\b[^()]*)?$", re.I | re.S)


def _returned_table(header: str) -> list[str]:
    """A multi-statement function's `RETURNS @t TABLE (...)`: the table its body fills, as a DECLARE."""
    m = _RETURNS_TABLE.search(_COMMENTS.sub(" ", header).strip())
    return [f"DECLARE {m[1]} TABLE ({m[2].strip()})"] if m else []


def _scaffolding(statement: Statement) -> bool:
    """DECLAREs of variables and table variables, and CREATE TABLE #temp: kept in front of later queries."""
    head = statement.sql.lstrip().split(None, 1)[0].upper() if statement.sql.strip() else ""
    if head == "DECLARE":
        return not re.search(r"\bCURSOR\b", statement.sql, re.I)
    return bool(re.match(r"\s*CREATE\s+TABLE\s+#", statement.sql, re.I))


def _returned_query(statement: Statement) -> str | None:
    """`RETURN (SELECT ...)` / `RETURN SELECT ...` of an inline function: the query."""
    m = re.match(r"\s*RETURN\s*(.*?)\s*;?\s*$", statement.sql, re.I | re.S)
    if m is None:
        return None
    text = m[1]
    while text.startswith("(") and text.endswith(")"):
        text = text[1:-1].strip()
    return text if re.match(r"(WITH|SELECT)\b", text, re.I) else None


def _update_function(sql: str) -> bool:
    """`IF UPDATE(col)` in a trigger: the statement splitter reads the UPDATE() test as a statement."""
    return bool(re.match(r"\s*UPDATE\s*\(", sql, re.I))


def module_queries(database: Database) -> Extraction:
    """Every query of the database's modules; parameters of alias types get their base type."""
    aliases, tables = {}, {}
    for user_type in database.user_types:
        if user_type.base is not None:
            aliases[user_type.qualified_name.lower()] = aliases[user_type.name.lower()] = str(user_type.base).lower()
        if user_type.is_table_type:
            tables[user_type.qualified_name.lower()] = ", ".join(f"[{c.name}] {c.type}" for c in user_type.columns)
    out = Extraction([], {"trigger statements reading inserted/deleted": 0, "modules without a readable body": 0})
    for module in sorted(database.modules, key=lambda m: (m.kind, m.qualified_name.lower())):
        if not module.definition:
            continue
        name = f"{module.kind} {module.qualified_name}"
        if module.kind == "view":
            split = split_view(module.definition)
            if split is not None:
                out.queries.append(ModuleQuery(name, 1, split[1], ()))
            continue
        split = split_module(module.definition)
        if split is None:
            out.left_out["modules without a readable body"] += 1
            continue
        header, body = split
        parameters, context = _parameters(header, aliases, tables)
        context += _returned_table(header)
        position = 0
        for statement in parse_statements(body):
            if _scaffolding(statement):
                context.append(statement.sql.strip().rstrip(";"))
                continue
            query = _returned_query(statement) if statement.control_flow else None
            if query is None and (not isinstance(statement.tree, _QUERIES) or _update_function(statement.sql)):
                continue
            sql = query or statement.sql.strip().rstrip(";")
            if module.kind == "trigger" and re.search(r"\b(inserted|deleted)\b", _COMMENTS.sub(" ", sql), re.I):
                out.left_out["trigger statements reading inserted/deleted"] += 1
                continue
            position += 1
            out.queries.append(ModuleQuery(name, position, ";\n".join([*context, sql]), parameters))
    return out
