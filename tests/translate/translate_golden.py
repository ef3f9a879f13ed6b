"""The golden file of T-SQL -> TiDB pairs: reading it, writing it, and the schema it runs against.

Format of `golden/queries.sql`, one case per block, blocks separated by blank lines:

    -- 12 [rewritten QY02] DATEDIFF(hour) counts hour boundaries crossed
    -- parse-only: MariaDB has no REGEXP_INSTR                       (optional)
    SELECT DATEDIFF(hour, o.ordered_at, o.shipped_at) FROM dbo.orders AS o;
    -- =>
    -- parameters: @P1, @P2                                            (when the TiDB text has `?`)
    SELECT (TO_SECONDS(o.shipped_at) DIV 3600 - TO_SECONDS(o.ordered_at) DIV 3600) FROM orders AS o;

The header holds the expected status and the sorted note codes; the T-SQL input runs up to `-- =>`;
the expected TiDB text follows (`-- (no TiDB statement)` when unsupported, `-- (nothing to run)` for an
empty translation). Run `UPDATE_GOLDEN=1 pytest tests/translate/test_golden.py` to rewrite the
expectations from the translator's output, then review the diff.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

from sqlsrv2tidb import api
from sqlsrv2tidb.model import Capture
from sqlsrv2tidb.model.translation import TranslatedQuery
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.translate.emit import split_target_sql
from sqlsrv2tidb.translate.naming import NameMap
from sqlsrv2tidb.translate.queries import translate_sql

GOLDEN = Path(__file__).resolve().parent / "golden"
QUERIES = GOLDEN / "queries.sql"
NONE = "-- (no TiDB statement)"
EMPTY = "-- (nothing to run)"
_HEADER = re.compile(r"^-- (\d+) \[(\w+)((?: [A-Z]{2}\d{2})*)\] (.*)$")


@dataclass(frozen=True)
class Case:
    number: int
    status: str
    codes: tuple[str, ...]
    title: str
    source: str
    expected: str | None
    parameters: tuple[str, ...] = ()
    parse_only: str | None = None

    @property
    def id(self) -> str:
        return f"{self.number:03d}"


def read_cases(path: Path = QUERIES) -> list[Case]:
    text = path.read_text(encoding="utf-8")
    cases = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = block.strip().split("\n")
        match = _HEADER.match(lines[0])
        if match is None:
            if all(line.startswith("--") for line in lines):
                continue  # a comment block (section title)
            raise ValueError(f"{path}: block without a case header: {lines[0]!r}")
        parse_only = None
        body = lines[1:]
        if body and body[0].startswith("-- parse-only:"):
            parse_only = body[0].removeprefix("-- parse-only:").strip()
            body = body[1:]
        arrow = body.index("-- =>")
        source = "\n".join(body[:arrow]).strip()
        rest = body[arrow + 1 :]
        parameters: tuple[str, ...] = ()
        if rest and rest[0].startswith("-- parameters:"):
            parameters = tuple(p.strip() for p in rest[0].removeprefix("-- parameters:").split(","))
            rest = rest[1:]
        expected_text = "\n".join(rest).strip()
        expected = None if expected_text == NONE else "" if expected_text == EMPTY else expected_text.rstrip(";")
        cases.append(Case(int(match[1]), match[2], tuple(match[3].split()), match[4], source, expected, parameters, parse_only))
    return cases


def render_case(case: Case) -> str:
    codes = "".join(f" {c}" for c in case.codes)
    lines = [f"-- {case.number} [{case.status}{codes}] {case.title}"]
    if case.parse_only:
        lines.append(f"-- parse-only: {case.parse_only}")
    lines.append(case.source.rstrip())
    lines.append("-- =>")
    if case.parameters:
        lines.append(f"-- parameters: {', '.join(case.parameters)}")
    if case.expected is None:
        lines.append(NONE)
    elif case.expected == "":
        lines.append(EMPTY)
    else:
        lines.append(case.expected + ";")
    return "\n".join(lines)


def write_cases(cases: list[Case], path: Path = QUERIES) -> None:
    """Rewrite the case blocks in place, keeping the section comments between them."""
    by_number = {c.number: c for c in cases}
    blocks = []
    for block in re.split(r"\n\s*\n", path.read_text(encoding="utf-8").strip()):
        match = _HEADER.match(block.strip().split("\n")[0])
        blocks.append(render_case(by_number[int(match[1])]) if match else block.strip())
    path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")


@cache
def golden_capture() -> Capture:
    return api.read([GOLDEN / "schema.sql"])


def translate_case(case: Case) -> TranslatedQuery:
    capture = golden_capture()
    return translate_sql(case.source, database=capture.database, names=NameMap.for_database(capture.database),
                         options=Options())


def actual_case(case: Case) -> Case:
    result = translate_case(case)
    return replace(
        case, status=result.status, codes=tuple(sorted({n.code for n in result.notes})),
        expected=result.target_sql, parameters=result.parameters,
    )


def ddl_statements(capture: Capture | None = None, options: Options | None = None) -> list[str]:
    """The golden schema's DDL (or `capture`'s) from the project's DDL generator, as statements MariaDB runs.

    TiDB-only files (placement statements) are skipped; TiDB's `/*T! ... */` options are comments
    to MariaDB, and statements that are nothing but such a comment are dropped.
    """
    plan = api.plan(capture or golden_capture(), options or Options())
    statements = []
    for ddl in plan.files:
        if "tidb-placement" in ddl.name:
            continue
        for piece in re.split(r";\s*\n", ddl.content):
            stripped = re.sub(r"/\*.*?\*/|--[^\n]*", "", piece, flags=re.S).strip().rstrip(";")
            if stripped:
                statements.append(piece.strip().rstrip(";"))
    return statements


def split_statements(sql: str) -> list[str]:
    """The statements of a translation (the translator joins them with `;` and a newline)."""
    return split_target_sql(sql)
