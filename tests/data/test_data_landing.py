"""Rows the target refuses while loading are named with the server's reason and never counted as loaded (DA11).

The target's tables are made by hand, stricter than the source (as a DBA's edited DDL may be): a CHECK
that half the authors' zip codes fail, a last name column too narrow and a zip column NOT NULL, and a
keyless table with a CHECK some rows fail. LOAD DATA LOCAL skips the refused rows (TiDB without a word)
and cuts or defaults the others, so the copy must read both from the affected-rows count and the
warnings, on each server, through LOAD DATA and through the INSERT fallback.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from data_helpers import by_table, check_constraints_created, copy_args, data, document, target_rows
from pubs_like import rows

AUTHORS = """CREATE TABLE authors (
    au_id VARCHAR(11) NOT NULL PRIMARY KEY, au_lname VARCHAR(4) NOT NULL, au_fname VARCHAR(20) NOT NULL,
    phone CHAR(12) NOT NULL, city VARCHAR(20) NULL, state CHAR(2) NULL, zip CHAR(5) NOT NULL, contract TINYINT NOT NULL,
    CONSTRAINT ck_even_zip CHECK (zip = '' OR MOD(CAST(zip AS UNSIGNED), 2) = 0)) DEFAULT CHARSET=utf8mb4"""
ROYSCHED = """CREATE TABLE roysched (title_id VARCHAR(6) NOT NULL, lorange INT NULL, hirange INT NULL, royalty INT NULL,
    CONSTRAINT ck_low_royalty CHECK (royalty < 15)) DEFAULT CHARSET=utf8mb4"""
CHECK_ERROR = {"mariadb": "(MySQL error 4025)", "mysql": "(MySQL error 3819)", "tidb": "(MySQL error 3819)"}

SOURCE = rows()
REFUSED = {r[0] for r in SOURCE["dbo.authors"] if r[6] is not None and int(r[6]) % 2}
"""Authors whose zip is odd: the target's CHECK refuses them."""
CUT = {r[0] for r in SOURCE["dbo.authors"] if r[0] not in REFUSED and len(r[1]) > 4}
DEFAULTED = {r[0] for r in SOURCE["dbo.authors"] if r[0] not in REFUSED and r[6] is None}
ROYALTIES_REFUSED = sum(1 for r in SOURCE["dbo.roysched"] if r[3] >= 15)


def _stricter_tables(target, database: str) -> None:
    with check_constraints_created(target), target.connect(database) as conn, conn.cursor() as cur:
        cur.execute(AUTHORS)
        cur.execute(ROYSCHED)


def _copied(source, target, database: str, out: Path):
    result = data(*copy_args(source, target, database, out, "--table", "authors", "--table", "roysched",
                             "--chunk-rows", "10", "--fail-on", "never"), env=target.env())
    assert result.exit_code == 0, result.output
    return result, document(out), [json.loads(line) for line in (out / "data-rejects.jsonl").read_text().splitlines()]


def _refused(rejects: list[dict], table: str) -> list[dict]:
    return [r for r in rejects if r["table"] == table and r["reason"].startswith("refused by the target: ")]


@pytest.mark.slow
def test_rows_the_target_refuses_are_named_with_the_reason_and_not_counted_as_loaded(target, target_database,
                                                                                    pubs_like, tmp_path):
    _stricter_tables(target, target_database)
    result, doc, rejects = _copied(pubs_like, target, target_database, tmp_path / "out")
    authors, roysched = by_table(doc)["dbo.authors"], by_table(doc)["dbo.roysched"]

    kept = len(SOURCE["dbo.authors"]) - len(REFUSED)
    assert (authors["rows"], authors["rejects"], authors["refused_by_target"]) == (kept, len(REFUSED), len(REFUSED))
    assert f"dbo.authors: done, {kept} rows" in result.output
    assert f"{len(REFUSED)} rejected ({len(REFUSED)} refused by the target)" in result.output
    assert {k for (k,) in target_rows(target, target_database, "SELECT au_id FROM authors")} == \
        {r[0] for r in SOURCE["dbo.authors"]} - REFUSED
    # Each refused row by its key, with the server's own reason: on TiDB, whose LOAD DATA says nothing of it, too.
    named = _refused(rejects, "dbo.authors")
    assert sorted(r["key"]["au_id"] for r in named) == sorted(REFUSED)
    assert all("ck_even_zip" in r["reason"] and r["reason"].endswith(CHECK_ERROR[target.kind]) for r in named), named
    # The rows kept but changed (a name cut to fit, a NULL zip made ''), each by the key of its row.
    warned = [r for r in rejects if r["table"] == "dbo.authors" and r["reason"].startswith("target warning: ")]
    assert {r["key"]["au_id"] for r in warned} == CUT | DEFAULTED, warned
    assert all(("au_lname" in r["reason"]) == (r["key"]["au_id"] in CUT) for r in warned)
    assert authors["warnings"] == len(CUT) + len(DEFAULTED)
    # A table without a key cannot name its refused rows: each chunk says how many, and why.
    unnamed = _refused(rejects, "dbo.roysched")
    assert all(r["key"] is None and r["key_range_end"] is None for r in unnamed)
    assert sum(r["rows"] for r in unnamed) == roysched["refused_by_target"] == ROYALTIES_REFUSED
    assert roysched["rows"] == len(SOURCE["dbo.roysched"]) - ROYALTIES_REFUSED
    assert all(CHECK_ERROR[target.kind] in r["reason"] or target.kind == "tidb" for r in unnamed)

    assert doc["summary"]["refused_by_target"] == len(REFUSED) + ROYALTIES_REFUSED
    assert {(f["rule"], f["object"]) for f in doc["findings"] if f["rule"] in ("DA11", "DA01")} == {
        ("DA11", "dbo.authors"), ("DA11", "dbo.roysched")}
    assert authors["verify"]["status"] == "different"
    assert authors["verify"]["differences"] == len(REFUSED) + len(CUT) + len(DEFAULTED)


@pytest.mark.slow
@pytest.mark.parametrize("server", ["mariadb", "mysql"])
def test_through_the_insert_fallback_the_same_rows_are_refused_and_named(server, pubs_like, request, tmp_path):
    """INSERT IGNORE stands in for LOAD DATA where the server refuses LOCAL INFILE: the same rows land, the same
    are refused, each named; MariaDB numbers the INSERT's rows otherwise than its LOAD DATA, MySQL the same."""
    target = request.getfixturevalue(server)
    database = target.create_database(f"t_landing_insert_{server}")
    _stricter_tables(target, database)
    with target.connect() as conn, conn.cursor() as cur:
        cur.execute("SET GLOBAL local_infile = 0")
    try:
        _, doc, rejects = _copied(pubs_like, target, database, tmp_path / "out")
    finally:
        with target.connect() as conn, conn.cursor() as cur:
            cur.execute("SET GLOBAL local_infile = 1")
    authors = by_table(doc)["dbo.authors"]
    assert (authors["method"], authors["rows"], authors["refused_by_target"]) == (
        "insert", len(SOURCE["dbo.authors"]) - len(REFUSED), len(REFUSED))
    named = _refused(rejects, "dbo.authors")
    assert sorted(r["key"]["au_id"] for r in named) == sorted(REFUSED)
    assert all(r["reason"].endswith(CHECK_ERROR[server]) for r in named)
    keyed = {r["key"]["au_id"] for r in rejects if r["reason"].startswith("target warning: ") and "key" in r}
    # MySQL's INSERT says "Column 'zip' cannot be null" once per statement, with no row: those keep the chunk's end.
    assert CUT <= keyed <= CUT | DEFAULTED
    assert by_table(doc)["dbo.roysched"]["refused_by_target"] == ROYALTIES_REFUSED
