"""The golden pairs, compared: each single read query of tests/translate/golden run as T-SQL on the SQL
Server endpoint and, translated, on TiDB, both holding the golden rows (tests/translate/meaning.py)."""

from __future__ import annotations

from compare_helpers import compare, verdicts, workload_file
from meaning import create_on_tds, create_on_tidb, skipped
from translate_golden import GOLDEN, read_cases

CASES = [c for c in read_cases() if skipped(c) is None]


def test_golden_pairs_compare_on_tidb(mssql, tidb, tmp_path):
    tds_db = create_on_tds(mssql, "t_compare_golden")
    tidb_db = create_on_tidb(tidb, "t_compare_golden")
    queries = workload_file([c.source for c in CASES], tmp_path / "queries.sql")
    doc = compare([GOLDEN / "schema.sql", queries], tmp_path / "out", mssql.connection_string(tds_db),
                  tidb.url(tidb_db), "--parameter-sets", "2", "--statement-timeout", "20")
    found = verdicts(doc)
    print(doc["summary"])
    for q in found.values():
        if q["verdict"] != "same":
            print(q["id"], q["verdict"], q.get("side"), q["reason"][:300], "|", q["sql_server_sql"][:120])
    assert len(found) > 100
