"""The planted meaning changes (tests/compare/planted), through `compare`: each comes out **same** when the
translator's rewrite for it is on and **differs** when it is left out (`Options.skip_rewrites`), on MariaDB
and on TiDB against the SQL Server endpoint.

TOP ... WITH TIES cannot be shown here: the endpoint (Babelfish) refuses the statement in any spelling, so
compare reports it as an error on the SQL Server side, with Babelfish's message, and says the target ran the
translation; test_planted_fixtures holds the target to SQL Server's documented rows for it instead.
"""

from __future__ import annotations

import json

import pytest
from compare_helpers import workload_file
from test_planted_fixtures import PLANTED, QUERIES, TIES, planted_on

from sqlsrv2tidb import api
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.target import parse_target
from sqlsrv2tidb.translate.types import CASE_INSENSITIVE_COLLATION


def _compared(mssql, database: str, target, target_db: str, query, options: Options, out) -> dict:
    queries = workload_file([query.read_text(encoding="utf-8")], out.parent / f"{out.name}.sql")
    api.run_compare([PLANTED / "schema.sql", queries], out, options,
                    login=api.SourceLogin(mssql.connection_string(database)),
                    target=parse_target(target.url(target_db)),
                    settings=api.CompareSettings(parameter_sets=1, timeout=20))
    doc = json.loads((out / "compare.json").read_text(encoding="utf-8"))
    assert doc["summary"]["classes"] == 1, doc
    return doc["queries"][0]


@pytest.mark.parametrize("query", QUERIES, ids=[q.stem for q in QUERIES])
def test_a_planted_change_is_same_with_its_rewrite_and_differs_without(mssql, planted_tds, target, query, tmp_path):
    name = query.stem
    collation = name == CASE_INSENSITIVE_COLLATION
    kept = _compared(mssql, planted_tds, target, planted_on(target, True), query, Options(), tmp_path / "on")
    lost = _compared(mssql, planted_tds, target, planted_on(target, not collation), query,
                     Options(skip_rewrites=frozenset({name})), tmp_path / "off")
    print(f"\n{name}: with the rewrite {kept['verdict']} ({kept['reason']}); without {lost['verdict']} ({lost['reason']})")
    if name == TIES and getattr(mssql, "babelfish", False):
        for q in (kept, lost):
            assert q["verdict"] == "error" and q["side"] == "sql_server", q
            assert "Target list missing from TOP clause" in q["reason"] and "the target runs the translation" in q["reason"]
        return
    assert kept["verdict"] == "same", kept
    assert lost["verdict"] == "differs", lost
    assert lost["first_differences"] and lost["reason"], lost
