"""The corpus queries that read Northwind and AdventureWorks, compared: the queries of their views,
procedures and functions (tests/translate/module_queries.py) as a capture's query classes, run on the SQL
Server endpoint holding the rows (Northwind's own; AdventureWorks's generated, tests/data/adventureworks.py)
and on the target after `data copy --create-tables` put the same rows there. AdventureWorks's modules are
not created on the endpoint: its queries are read from the corpus script.

Every class must be same, or differ or fail with a reason: its row counts and first differing rows, its side
and error. The views are on the target (`--create-tables` creates them after the load), so a query that reads
one runs there, and a difference may come from the view's own translation. Procedure parameters get values as replay makes them (from the target's rows where a parameter is
compared with a column), the same on both sides.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from compare_helpers import compare
from data_helpers import copy_args, loaded
from module_queries import module_queries
from paths import CORPUS_SCHEMAS

from sqlsrv2tidb import api

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "answers"))
from answers_run import Query, capture_with, explanation  # noqa: E402
from departures import departing_views  # noqa: E402

MODULES = {"adventureworks": CORPUS_SCHEMAS["adventureworks-oltp"]}
"""Where a corpus's modules are read from when the endpoint's catalog has none."""

pytestmark = pytest.mark.answers
"""A corpus-wide run (the corpus modules' queries over their rows, on every target): a step of its own with the answers run (scripts/test -m answers),
keeping the README's test command under 30 minutes."""


@pytest.mark.parametrize("corpus", ["northwind", "adventureworks"])  # Chinook has no views or procedures: no queries
def test_corpus_module_queries_compare(corpus, request, target, target_database, tmp_path):
    source = request.getfixturevalue(f"compare_{corpus}")
    copied = loaded(*copy_args(source, target, target_database, tmp_path / "data", "--create-tables"))
    assert not copied["views"]["not_created"], copied["views"]
    modules = api.read([MODULES[corpus]]).database if corpus in MODULES else api.read([source.capture]).database
    queries = [Query(f"{q.module} #{q.position}", q.sql, q.parameters) for q in module_queries(modules).queries]
    capture, labels = capture_with(source.capture, queries, tmp_path)
    count = len(labels)
    doc = compare([capture], tmp_path / "out", source.connection, target.url(target_database), "--parameter-sets", "2",
                  "--statement-timeout", "20")
    print(corpus, target.kind, doc["summary"])
    through_views = {f["object"] for f in doc["findings"] if f["rule"] == "QY65"}
    departing = departing_views(modules)
    for q in doc["queries"]:
        if q["verdict"] != "same":
            print(" ", q["id"], q["verdict"], q.get("side"), q["reason"][:240])
    assert doc["summary"]["classes"] + doc["summary"]["left_out"] == count > 0
    assert doc["summary"]["classes"] > 0
    for q in doc["queries"]:
        assert q["verdict"] in ("same", "same up to ties", "differs", "error", "not comparable"), q
        if q["verdict"] != "same":
            assert q["reason"], q
        if q["verdict"] == "differs":
            assert q["first_differences"] or "column" in q["reason"], q
            # Every difference these corpora show is one the translation flags, the query's own or that of a view
            # it reads (QY65 in compare.json's findings), or a rewrite whose answer the endpoint departs from
            # (Northwind's subtotals: a real converted to money), its own or a view's it reads.
            assert explanation(q, through_views, departing, target.kind), q
        if q["verdict"] == "error":
            assert q["side"] in ("sql_server", "target", "both"), q
    assert doc["summary"]["same"] > 0
