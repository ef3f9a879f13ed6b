"""The golden pairs, compared: each single read query of tests/translate/golden run as T-SQL on the SQL
Server endpoint and, translated, on TiDB and MariaDB, both holding the golden rows (tests/translate/meaning.py
loads them), through `sqlsrv2tidb compare`.

Every class must be same, or differ or fail for a reason the test already knows: the pins of the meaning
check (test_meaning.PINS: Babelfish answering differently from SQL Server or refusing the statement, a
difference the translation flags for review) and the few statements that fail on both sides by design.
The char(n) padding pins (308, 309) come out the same here: compare normalizes a CHAR result's padding.
"""

from __future__ import annotations

import pytest
from compare_helpers import compare, verdicts, workload_file
from meaning import create_on_tds, create_on_tidb, skipped
from test_meaning import PINS
from translate_golden import GOLDEN, read_cases

from sqlsrv2tidb.tsql.fingerprint import fingerprint, query_id

CASES = [c for c in read_cases() if skipped(c) is None]
KNOWN = {"229": "a three-part name of a database neither server has: both fail", "230": "the same"}
"""Golden cases whose difference is known besides the meaning check's pins."""
MYSQL_WRITES = {"026"}
"""Golden cases that read on SQL Server and TiDB but write on MySQL (NEXT VALUE FOR from a sequence table)."""
MYSQL_UNSUPPORTED = {"358"}
"""HASHBYTES('MD5'): MySQL 9.6 and later keep MD5() in a component one installs (QY36): left out, unsupported."""

pytestmark = pytest.mark.answers
"""A corpus-wide run (every golden pair over the golden rows, on every target): a step of its own with the answers run (scripts/test -m answers),
keeping the README's test command under 30 minutes."""


@pytest.fixture(scope="module")
def tds_golden(mssql):
    return create_on_tds(mssql, "t_compare_golden")


def test_golden_pairs_compare(mssql, tds_golden, target, tmp_path):
    target_db = create_on_tidb(target, "t_compare_golden")
    queries = workload_file([c.source for c in CASES], tmp_path / "queries.sql")
    doc = compare([GOLDEN / "schema.sql", queries], tmp_path / "out", mssql.connection_string(tds_golden),
                  target.url(target_db), "--parameter-sets", "2", "--statement-timeout", "10")
    case_of: dict[str, list[str]] = {}
    for c in CASES:
        case_of.setdefault(query_id(fingerprint(c.source)), []).append(c.id)
    found = verdicts(doc)
    left_out = {item["id"]: item["reason"] for item in doc["left_out"]}
    # MySQL has no sequences: NEXT VALUE FOR draws from a sequence table with an UPDATE (MY21), a write compare
    # does not run. Every other class is compared on every target.
    expected_out = {query_id(fingerprint(c.source)) for c in CASES if c.id in MYSQL_WRITES | MYSQL_UNSUPPORTED} \
        if target.kind == "mysql" else set()
    assert set(left_out) == expected_out, left_out
    assert set(found) == set(case_of) - expected_out and doc["summary"]["classes"] == len(found) > 150
    unexplained = []
    for qid, q in found.items():
        assert q["verdict"] in ("same", "same up to ties", "differs", "error", "not comparable"), q
        if q["verdict"] in ("same", "same up to ties"):
            continue
        assert q["reason"], q
        if q["verdict"] == "differs":
            assert q["first_differences"] or "column" in q["reason"], q
        if q["verdict"] == "error":
            assert q["side"] in ("sql_server", "target", "both") and q["reason"], q
        known = [c for c in case_of[qid] if c in PINS or c in KNOWN]
        flagged = q["translation_status"] == "review" and q["notes"]  # the translation says its meaning may differ
        if not known and not flagged and q["verdict"] != "not comparable":
            unexplained.append((case_of[qid], q["verdict"], q["reason"][:200]))
    print(doc["summary"])
    assert not unexplained, "\n".join(map(str, unexplained))
    pinned_same = {c for qid, q in found.items() if q["verdict"] == "same" for c in case_of[qid] if c in PINS}
    # 370 (`node = '/1/10/'`): compare sends the constant as a parameter, which neither side finds: the endpoint's
    # dbo.org is empty (it has no hierarchyid), and the target's stored path is not the parameter's text (a path known
    # only at run time is not written in the stored form: the closing note of this change says so).
    assert pinned_same <= {"308", "309", "370"}, pinned_same
