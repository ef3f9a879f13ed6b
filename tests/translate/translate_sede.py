"""The 857 Stack Exchange Data Explorer queries of the corpus, ready to translate (tests and benchmark).

SEDE queries hold `##Name##` placeholders that the site substitutes as text before SQL Server sees
the query (`##UserId##`, `##Tag:string##`, `##Weeks?10##` with a default). They are handled so the
translator sees what SQL Server would run in a parameterised form:

- outside string literals a placeholder becomes a parameter `@Name`, declared with its SEDE type
  (`int` -> int, `string` -> nvarchar(4000), `float` -> float; untyped: from its default's form, else
  undeclared, so the translator reports an unknown type where it matters) -> `?` in the TiDB text;
- inside a string literal (`'%##Tag##%'`) it is replaced by its default, or by its name, since a
  marker inside a literal is text, not a parameter.

The schema comes from `tables_so.json` (Spider format: text, number, time, boolean, other).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from sqlsrv2tidb.model import Column, Database, DataType, Parameter, Table

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "sede-val"
_PLACEHOLDER = re.compile(r"##([A-Za-z_][\w]*)(?::(\w+))?(?:\?([^#\n]*))?##")
_TYPES = {"int": "int", "string": "nvarchar(4000)", "float": "float", "date": "datetime"}
_SPIDER = {"number": DataType("int"), "text": DataType("nvarchar", length=4000), "time": DataType("datetime"),
           "boolean": DataType("bit"), "other": DataType("uniqueidentifier")}


@dataclass(frozen=True)
class SedeQuery:
    id: int
    title: str
    original: str
    sql: str
    parameters: tuple[Parameter, ...]


@cache
def sede_database() -> Database:
    spec = json.loads((CORPUS / "tables_so.json").read_text(encoding="utf-8"))[0]
    columns: dict[int, list[Column]] = {}
    for (table, name), kind in zip(spec["column_names_original"], spec["column_types"], strict=True):
        if table >= 0:
            columns.setdefault(table, []).append(Column(name, _SPIDER[kind]))
    tables = tuple(Table("dbo", name, tuple(columns.get(i, ()))) for i, name in enumerate(spec["table_names_original"]))
    return Database(name="StackOverflow", collation="SQL_Latin1_General_CP1_CI_AS", tables=tables)


def _declared(kind: str | None, default: str | None) -> str | None:
    if kind:
        return _TYPES.get(kind.lower())
    if default is not None:
        return "int" if re.fullmatch(r"-?\d+", default.strip()) else "nvarchar(4000)"
    return None


def prepare(text: str) -> tuple[str, tuple[Parameter, ...]]:
    """The query with placeholders turned into `@Name` parameters (or text inside literals)."""
    parameters: dict[str, Parameter] = {}
    out, position = [], 0
    for literal in re.finditer(r"N?'(?:[^']|'')*'|--[^\n]*|/\*.*?\*/", text, re.S):
        out.append(_outside(text[position : literal.start()], parameters))
        out.append(_PLACEHOLDER.sub(lambda m: m[3] if m[3] is not None else m[1], literal.group(0)))
        position = literal.end()
    out.append(_outside(text[position:], parameters))
    return "".join(out), tuple(parameters.values())


def _outside(text: str, parameters: dict[str, Parameter]) -> str:
    def replace(match: re.Match[str]) -> str:
        name = match[1]
        declared = _declared(match[2], match[3])
        key = name.lower()
        if key not in parameters and declared is not None:
            parameters[key] = Parameter("@" + name, declared)
        return "@" + name

    return _PLACEHOLDER.sub(replace, text)


@cache
def sede_queries() -> tuple[SedeQuery, ...]:
    queries = []
    for line in (CORPUS / "val_original.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        sql, parameters = prepare(record["QueryBody"])
        queries.append(SedeQuery(record["QuerySetId"], record["Title"] or "", record["QueryBody"], sql, parameters))
    return tuple(queries)
