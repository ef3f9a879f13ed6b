"""Every corpus schema: each generated statement parses with TiDB's parser, and the ddl/ folder applies cleanly,
file by file in name order, to a fresh database on each real target, creating every table, index, foreign key
and view of the model. MariaDB takes everything but the TiDB-only files (03-tidb-placement.sql and the TiFlash
file); TiDB takes everything but the TiFlash file, which it refuses without TiFlash servers, as the file says.
MySQL gets the plan written for MySQL (`--target-engine mysql`), which has no TiDB-only file at all, and
its sequences as AUTO_INCREMENT columns or sequence tables."""

from __future__ import annotations

import pytest
from ddl_apply import (
    TIDB_ONLY,
    TIFLASH,
    TIFLASH_REFUSED,
    apply,
    model_counts,
    parse_errors,
    refusals,
    server_counts,
)
from engines import options_for
from paths import CORPUS_SCHEMAS as SCHEMAS

from sqlsrv2tidb.options import Options
from sqlsrv2tidb.plan.migration import build_plan

pytestmark = [pytest.mark.mariadb, pytest.mark.tidb_parser]


@pytest.mark.parametrize("name", list(SCHEMAS))
def test_corpus_ddl_parses_applies_and_creates_everything(name, corpus_captures, tidb_parser, target,
                                                         target_database):
    capture = corpus_captures(name)
    assert capture.database.tables, f"{name}: the reader found no tables"
    plan = build_plan(capture, options_for(target))

    if target.kind == "mariadb":  # the parser's verdict does not depend on the server: check it once
        assert parse_errors(tidb_parser, plan) == []
    with target.connect(target_database) as conn:
        assert apply(conn, plan, target.kind) == []
        on_server = server_counts(conn, target_database)
        expected = model_counts(capture, plan)

        assert on_server.tables == expected.tables == len(capture.database.tables) + len(
            plan.settings.get("sequence_tables", ()))
        assert on_server.indexes == expected.indexes
        assert on_server.foreign_keys == expected.foreign_keys
        assert on_server.views == expected.views
        # Keys left out (on computed columns TiDB cannot compute, each with its TY20 finding) are few.
        left_out = sum(1 for f in plan.findings if f.rule == "TY20" and "the key is left out too" in f.message)
        assert left_out <= 0.05 * sum(expected.indexes.values())

        if target.kind == "mysql":
            assert not {TIDB_ONLY, TIFLASH} & {f.name for f in plan.files}
            assert not any("/*T!" in f.content for f in plan.files), "a TiDB-only option in MySQL's DDL"
            return
        # Only tables that had a columnstore index get a TiFlash replica, in a file of their own that says what
        # it needs; a cluster without TiFlash servers (like this one) refuses each statement in exactly the
        # words the file quotes.
        tiflash = next((f for f in plan.files if f.name == TIFLASH), None)
        columnstore = {t.qualified_name for t in capture.database.tables
                       if any(ix.kind == "columnstore" for ix in t.indexes)}
        assert (tiflash is not None) == bool(columnstore)
        if tiflash is not None:
            assert set(plan.settings["tiflash_tables"]) == columnstore
            assert "NEEDS TIFLASH" in tiflash.content and TIFLASH_REFUSED.format(n=1) in tiflash.content
            if target.kind == "tidb":
                assert refusals(conn, plan, TIFLASH) == [(1105, TIFLASH_REFUSED.format(n=1))] * len(columnstore)


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
