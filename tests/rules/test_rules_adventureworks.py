"""AdventureWorks (tests/corpus/adventureworks-oltp): the findings name every module and feature, with file and line.

What the script declares is found here with plain regular expressions over the file, independently
of the reader, and each must come back as a finding at the line of its CREATE statement.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sqlsrv2tidb import api
from sqlsrv2tidb.capture.textfile import read_text
from sqlsrv2tidb.options import Options

AW = Path(__file__).resolve().parents[1] / "corpus" / "adventureworks-oltp" / "instawdb.sql"
NAME = r"\[?(\w+)\]?"


@pytest.fixture(scope="module")
def aw():
    lines = read_text(AW).text.split("\n")
    capture = api.read([AW])
    options = Options()
    plan = api.plan(capture, options)
    findings = [*capture.findings, *plan.findings, *api.check(capture, options, plan=plan)]
    return lines, findings


def declared(lines: list[str], pattern: str) -> dict[str, int]:
    """`schema.name` (or `name`) -> 1-based line, for each line matching `pattern`."""
    out = {}
    for number, line in enumerate(lines, 1):
        m = re.match(pattern, line, re.I)
        if m:
            out[".".join(g for g in m.groups() if g)] = number
    return out


def located(findings, codes: set[str]) -> dict[str, tuple[Path, int]]:
    return {f.object: (Path(f.file).resolve(), f.line) for f in findings if f.rule in codes and f.file}


def test_every_procedure_function_and_trigger_by_name_with_file_and_line(aw):
    lines, findings = aw
    modules = declared(lines, rf"^CREATE\s+(?:PROCEDURE|FUNCTION|TRIGGER)\s+(?:{NAME}\.)?{NAME}")
    assert len(modules) == 10 + 11 + 11  # procedures, functions, triggers (one of them a DDL trigger)
    got = located(findings, {"MO01", "MO02", "MO03", "MO04"})
    assert {name: got.get(name) for name in modules} == {name: (AW, line) for name, line in modules.items()}
    sizes = {f.object: f.details for f in findings if f.rule == "MO01"}
    assert all(d["lines"] > 0 and d["effort_days"] > 0 for d in sizes.values())
    assert next(f for f in findings if f.object == "ddlDatabaseTriggerLog").rule == "MO04"


def test_full_text_indexes_and_indexed_views_with_file_and_line(aw):
    lines, findings = aw
    fulltext = declared(lines, rf"^CREATE FULLTEXT INDEX ON {NAME}\.{NAME}\(")
    assert len(fulltext) == 3
    got = {f.details["table"]: (Path(f.file).resolve(), f.line) for f in findings if f.rule == "IX01"}
    assert got == {name: (AW, line) for name, line in fulltext.items()}

    views = declared(lines, rf"^CREATE VIEW {NAME}\.{NAME}")
    indexed = {f"{m[1]}.{m[2]}" for line in lines
               if (m := re.match(rf"^CREATE UNIQUE CLUSTERED INDEX \S+ ON {NAME}\.{NAME}\(", line))}
    indexed &= set(views)
    assert indexed == {"Production.vProductAndDescription", "Person.vStateProvinceCountryRegion"}
    assert located(findings, {"IX07"}) == {name: (AW, views[name]) for name in indexed}


def test_xml_and_hierarchyid_columns_are_reported_by_the_planner(aw):
    lines, findings = aw
    expected: dict[str, int] = {}
    table = None
    for number, line in enumerate(lines, 1):
        m = re.match(rf"^CREATE TABLE {NAME}\.{NAME}", line, re.I)
        if m:
            table = f"{m[1]}.{m[2]}"
        m = re.match(rf"^\s+{NAME}\s+\[?(xml|hierarchyid)\]?\b", line, re.I)
        if m and table:
            expected[f"{table}.{m[1]}"] = number
    assert len(expected) == 11  # 8 xml columns, 3 hierarchyid columns
    got = {f.object: (Path(f.file).resolve(), f.line) for f in findings if f.rule.startswith("TY") and f.file}
    assert {c: got.get(c) for c in expected} == {c: (AW, line) for c, line in expected.items()}
