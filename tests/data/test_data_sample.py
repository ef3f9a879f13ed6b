"""`data copy --sample`: a part of each table whose foreign keys all point at rows that came along."""

from __future__ import annotations

import pytest
from data_helpers import by_table, copy_args, data, document, loaded, target_rows

from sqlsrv2tidb import api


def _dangling(target, database: str, capture) -> dict[str, int]:
    """Per foreign key of the source schema between tables the target has: rows whose reference finds no parent."""
    present = {r[0].casefold() for r in target_rows(target, database, "SHOW TABLES")}
    found = {}
    for table in api.read([capture]).database.tables:
        for fk in table.foreign_keys:
            if not {table.name.casefold(), fk.ref_table.casefold()} <= present:
                continue
            on = " AND ".join(f"c.`{a}` = p.`{b}`" for a, b in zip(fk.columns, fk.ref_columns, strict=True))
            not_null = " AND ".join(f"c.`{a}` IS NOT NULL" for a in fk.columns)
            sql = (f"SELECT COUNT(*) FROM `{table.name}` c LEFT JOIN `{fk.ref_table}` p ON {on} "
                   f"WHERE {not_null} AND p.`{fk.ref_columns[0]}` IS NULL")
            found[f"{table.name}->{fk.ref_table}"] = target_rows(target, database, sql)[0][0]
    return found


@pytest.mark.slow
def test_a_ten_percent_sample_keeps_every_foreign_key_valid(target, target_database, northwind, chinook, tmp_path):
    second = target.create_database(target_database[:50] + "_ch")
    # A table no other table references takes exactly its own share; its parents take more.
    for source, database, leaf in ((northwind, target_database, "order details"), (chinook, second, "playlisttrack")):
        out = tmp_path / source.name
        doc = loaded(*copy_args(source, target, database, out, "--sample", "10%", "--create-tables", "--seed", "7"))
        assert all(t["verify"]["status"] == "equal" for t in doc["tables"]), [t["verify"] for t in doc["tables"]]
        assert set(_dangling(target, database, source.capture).values()) == {0}
        tables = by_table(doc)
        total = source.rows(f"SELECT COUNT_BIG(*) FROM [dbo].[{leaf}]")[0][0]
        assert 0.08 * total <= tables[f"dbo.{leaf}"]["rows"] <= 0.12 * total, (tables[f"dbo.{leaf}"]["rows"], total)
        assert doc["settings"]["sample"] == "10%"
        assert all(t["rows"] <= source.rows(f"SELECT COUNT_BIG(*) FROM [dbo].[{t['name']}]")[0][0]
                   for t in tables.values())


@pytest.mark.slow
def test_a_sample_of_rows_per_table_is_the_same_on_every_run(mariadb, database, chinook, tmp_path):
    first = data(*copy_args(chinook, mariadb, database, tmp_path / "a", "--sample", "50", "--create-tables",
                            "--table", "track", "--table", "album", "--table", "artist", "--table", "genre",
                            "--table", "mediatype"))
    assert first.exit_code == 0, first.output
    ids = target_rows(mariadb, database, "SELECT trackid FROM track ORDER BY trackid")
    assert len(ids) == 50
    again = data(*copy_args(chinook, mariadb, database, tmp_path / "b", "--sample", "50", "--truncate",
                            "--table", "track", "--table", "album", "--table", "artist", "--table", "genre",
                            "--table", "mediatype"))
    assert again.exit_code == 0, again.output
    assert target_rows(mariadb, database, "SELECT trackid FROM track ORDER BY trackid") == ids
    tables = by_table(document(tmp_path / "b"))
    # Albums: the 50 sampled plus those the sampled tracks need; artists: those the albums need.
    albums = target_rows(mariadb, database, "SELECT COUNT(*) FROM album")[0][0]
    assert 50 <= albums == tables["dbo.album"]["rows"]
    assert set(_dangling(mariadb, database, chinook.capture).values()) == {0}
