"""Every corpus schema: each generated statement parses with TiDB's parser, and the ddl/ folder (all but the
TiDB-only 03-tidb-placement.sql, which MySQL-protocol servers other than TiDB cannot run) applies cleanly to a
fresh MariaDB database and creates every table, index and foreign key of the model."""

from __future__ import annotations

import pytest
from ddl_apply import apply, model_counts, parse_errors, server_counts
from paths import CORPUS_SCHEMAS as SCHEMAS

from sqlsrv2tidb.options import Options
from sqlsrv2tidb.plan.migration import build_plan

pytestmark = [pytest.mark.mariadb, pytest.mark.tidb_parser]


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_corpus_ddl_parses_applies_and_creates_everything(name, corpus_captures, tidb_parser, mariadb, database):
    capture = corpus_captures(name)
    assert capture.database.tables, f"{name}: the reader found no tables"
    plan = build_plan(capture, Options())

    assert parse_errors(tidb_parser, plan) == []
    with mariadb.connect(database) as conn:
        assert apply(conn, plan) == []
        on_server = server_counts(conn, database)
    expected = model_counts(capture, plan)

    assert on_server.tables == expected.tables == len(capture.database.tables)
    assert on_server.indexes == expected.indexes
    assert on_server.foreign_keys == expected.foreign_keys
    assert on_server.views == expected.views
    # Keys left out (on computed columns TiDB cannot compute, each with its TY20 finding) are few.
    left_out = sum(1 for f in plan.findings if f.rule == "TY20" and "the key is left out too" in f.message)
    assert left_out <= 0.05 * sum(expected.indexes.values())


def test_corpus_findings_carry_file_and_line(corpus_captures):
    plan = build_plan(corpus_captures("adventureworks-oltp"), Options())
    by_rule = {}
    for f in plan.findings:
        by_rule.setdefault(f.rule, []).append(f)
    # The XML and hierarchyid columns of AdventureWorks, each at its file and line.
    xml = {f.object for f in by_rule["TY07"]}
    assert {"Person.Person.AdditionalContactInfo", "Person.Person.Demographics", "Sales.Store.Demographics"} <= xml
    hierarchy = {f.object for f in by_rule["TY09"]}
    assert {"HumanResources.Employee.OrganizationNode", "Production.Document.DocumentNode"} <= hierarchy
    for f in by_rule["TY07"] + by_rule["TY09"] + by_rule["ID01"]:
        assert f.file and f.file.endswith("instawdb.sql") and f.line and f.line > 0
