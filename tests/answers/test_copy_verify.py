"""The generated databases copied by the tool into MariaDB and TiDB, and verified equal, table by table.

`sqlsrv2tidb data copy --create-tables` takes the schema from the capture of the endpoint's catalog,
loads every table and verifies it (chunk checksums); `sqlsrv2tidb data verify` then compares the two
servers again on its own. The rows exercise what a copy can get wrong: trailing spaces, names in other
scripts, empty strings, datetimes with milliseconds, bodies past 4,000 characters, GUIDs, bits, NULLs.

What they found: TiDB (v8.5.3) compares utf8mb4_general_ci text only up to a U+FFFD character, so two
of WideWorldImporters' stock item names, which differ only after one, are equal there and its unique
key on StockItemName cannot be built (`test_tidb_compares_text_only_up_to_a_replacement_character`).
The copy makes that refusal a finding for that table (DA10) and loads, indexes and verifies the rest.
"""

from __future__ import annotations

import time

import pytest
from answers_db import sede_rows
from data_helpers import by_table, copy_args, loaded, target_rows


def _copied_and_verified(source, target, database: str, tmp_path) -> dict:
    """Copy (which verifies), then verify alone; both must find every table equal. Returns the copy's data.json."""
    started = time.perf_counter()
    doc = loaded(*copy_args(source, target, database, tmp_path / "copy", "--create-tables", "--jobs", "3"))
    copied = time.perf_counter() - started
    tables = by_table(doc)
    different = {name: t["verify"] for name, t in tables.items() if t["verify"]["status"] != "equal"}
    assert not different, different
    assert doc["summary"]["rejects"] == 0, [f for f in doc["findings"]]
    checked = _verified(source, target, database, tmp_path, f"copy {copied:.1f} s, {doc['summary']['rows']:,} rows")
    assert set(checked) == set(tables)
    return doc


def _verified(source, target, database: str, tmp_path, said: str) -> dict[str, dict]:
    """`data verify` alone, which must find every table equal; returns its data.json's tables."""
    started = time.perf_counter()
    doc = loaded("verify", "-o", str(tmp_path / "verify"), "--connection", source.connection, "--target",
                 target.url(database), str(source.capture))
    print(f"\n{source.name} -> {target.kind}: {said}, verify {time.perf_counter() - started:.1f} s")
    checked = by_table(doc)
    assert checked and all(t["verify"]["status"] == "equal" for t in checked.values()), \
        {n: t["verify"] for n, t in checked.items() if t["verify"]["status"] != "equal"}
    return checked


@pytest.mark.slow
@pytest.mark.answers
def test_sede_copies_into_the_target_and_verifies_equal(target, target_database, compare_sede, tmp_path):
    rows = sede_rows()
    tables = by_table(_copied_and_verified(compare_sede, target, target_database, tmp_path))
    assert len(tables) == 29
    for name, count in rows.counts.items():
        entry = tables[f"dbo.{name}".casefold()]
        assert entry["status"] == "done" and entry["rows"] == count, entry
    users = {row[0]: row for row in rows.tables["Users"]}
    tricky = [u for u in users.values() if u[3] and (u[3].endswith(" ") or not u[3].isascii() or "'" in u[3])]
    ids = ", ".join(str(u[0]) for u in tricky[:200])
    got = dict(target_rows(target, target_database, f"SELECT Id, DisplayName FROM users WHERE Id IN ({ids})"))
    assert all(got[u[0]] == u[3] for u in tricky[:200])  # trailing spaces, other scripts, apostrophes: as generated
    first = rows.tables["Posts"][0]
    assert target_rows(target, target_database, f"SELECT CreationDate FROM posts WHERE Id = {first[0]}")[0][0] == first[4]


@pytest.mark.slow
@pytest.mark.answers
def test_wwi_copies_into_the_target_and_verifies_equal(target, target_database, compare_wwi, tmp_path):
    doc = _copied_and_verified(compare_wwi, target, target_database, tmp_path)
    tables = by_table(doc)
    refused = [(f["object"], f["message"]) for f in doc["findings"] if f["rule"] == "DA10"]
    if target.kind == "tidb":
        # Every row arrives, but TiDB refuses the unique key on StockItemName after the load (see the module doc):
        # a finding for that table, and every other index, key and table as planned.
        assert [obj.casefold() for obj, _ in refused] == ["warehouse.stockitems"], refused
        assert "Duplicate entry 'IT joke mug - keyboard not found \ufffd press" in refused[0][1], refused
        assert "stockitems" in refused[0][1]
    else:
        assert refused == []
    assert len(tables) == 54
    counts = {name: compare_wwi.rows(f"SELECT COUNT_BIG(*) FROM {t['schema']}.{t['name']}")[0][0]
              for name, t in tables.items()}
    assert all(t["rows"] == counts[name] for name, t in tables.items())
    assert sum(counts.values()) > 20_000


def test_tidb_compares_text_only_up_to_a_replacement_character(target, target_database):
    """Two strings that differ only after a U+FFFD are equal under TiDB's utf8mb4_general_ci (and unicode_ci),
    not under MariaDB's (nor SQL Server's case-insensitive collations): pinned, so the WWI expectation above
    changes when TiDB does."""
    same = target_rows(target, target_database, "SELECT CAST(_utf8mb4'a \ufffd b' AS CHAR) COLLATE utf8mb4_general_ci "
                                                "= _utf8mb4'a \ufffd c', _utf8mb4'a \ufffd b' = _utf8mb4'a \ufffd c' "
                                                "COLLATE utf8mb4_bin")[0]
    assert tuple(same) == ((1, 0) if target.kind == "tidb" else (0, 0))
