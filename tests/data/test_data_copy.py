"""`data copy` from the real TDS endpoint into real MariaDB and TiDB: whole databases, every type, keys.

Each copy is verified by the command itself (chunk checksums over normalized values); the tests
also read the target directly, so a conversion that is wrong the same way on both sides of the
checksum (a UTC offset applied twice, say) is still caught.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal

import pytest
from data_helpers import by_table, copy_args, data, document, loaded, target_rows

# Babelfish returns table names in lower case; a real SQL Server keeps the script's case.
fold = str.casefold


def _source_counts(source) -> dict[str, int]:
    tables = source.rows("SELECT s.name, t.name FROM sys.tables t JOIN sys.schemas s ON s.schema_id = t.schema_id")
    return {fold(f"{s}.{t}"): source.rows(f"SELECT COUNT_BIG(*) FROM [{s}].[{t}]")[0][0] for s, t in tables}


@pytest.mark.slow
def test_northwind_and_chinook_arrive_whole_and_verify_equal(target, target_database, northwind, chinook, tmp_path):
    second = target.create_database(target_database[:50] + "_ch")
    for source, database, foreign_keys in ((northwind, target_database, 13), (chinook, second, 11)):
        out = tmp_path / source.name
        doc = loaded(*copy_args(source, target, database, out, "--create-tables", "--jobs", "3"))
        tables = by_table(doc)
        expected = _source_counts(source)
        assert set(tables) == set(expected)
        for name, count in expected.items():
            entry = tables[name]
            assert entry["status"] == "done" and entry["rows"] == count, entry
            assert entry["verify"]["status"] == "equal" and entry["verify"]["target_rows"] == count, entry
            assert target_rows(target, database, f"SELECT COUNT(*) FROM `{entry['target']}`")[0][0] == count
        assert doc["summary"]["equal"] == len(expected) and doc["summary"]["rejects"] == 0
        assert doc["settings"]["method"] == "load data" and doc["server"]["kind"] in ("tidb", "mysql")
        # --create-tables applied the indexes and foreign keys after the load.
        assert target_rows(target, database, "SELECT COUNT(*) FROM information_schema.referential_constraints "
                                             "WHERE constraint_schema = DATABASE()")[0][0] == foreign_keys
    # Northwind's pictures (image) and notes (ntext) arrived byte for byte.
    photo = northwind.rows("SELECT CAST(Photo AS varbinary(max)) FROM dbo.Employees WHERE EmployeeID = 1")[0][0]
    assert target_rows(target, target_database, "SELECT Photo FROM employees WHERE EmployeeID = 1")[0][0] == photo


@pytest.mark.slow
def test_adventureworks_filled_with_generated_rows_arrives_whole(target, target_database, adventureworks, tmp_path):
    out = tmp_path / "out"
    doc = loaded(*copy_args(adventureworks, target, target_database, out, "--create-tables", "--jobs", "4"))
    counts = _source_counts(adventureworks)
    assert len(doc["tables"]) == len(counts) == 71
    for name, entry in by_table(doc).items():
        assert entry["rows"] == counts[name] and entry["verify"]["status"] == "equal", (name, entry["verify"])
    assert doc["summary"]["rows"] == sum(counts.values()) and not doc["findings"]


@pytest.mark.slow
def test_every_type_arrives_as_the_type_map_says(target, target_database, every_type, tmp_path):
    out = tmp_path / "out"
    result = data(*copy_args(every_type, target, target_database, out, "--create-tables"))
    assert result.exit_code == 0, result.output
    tables = by_table(document(out))
    for name, entry in tables.items():
        assert entry["verify"]["status"] == "equal", (name, entry["verify"])
    assert tables["dbo.every_type"]["rows"] == 300 and tables["dbo.every_type"]["rejects"] == 0
    with target.connect(target_database) as conn, conn.cursor() as cur:
        cur.execute("SELECT * FROM every_type WHERE id = 1")
        edge = dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))
        cur.execute("SELECT * FROM every_type WHERE id = 2")
        nulls = dict(zip([d[0] for d in cur.description], cur.fetchone(), strict=True))
    assert edge["b"] == 1 and edge["ti"] == 255 and edge["bi"] == 9223372036854775807
    assert edge["d"] == Decimal("-9999999999999999999999999999.9999999999")
    assert edge["m"] == Decimal("-922337203685477.5808") and edge["sm"] == Decimal("214748.3647")
    assert edge["f"] == 0.0 and str(edge["f"]) == "0.0"  # -0.0 is stored as 0
    assert edge["dt"] == date(1, 1, 1)  # a date before 1000
    assert edge["tm"] == timedelta(seconds=86399, microseconds=999999)
    assert edge["dtt"] == datetime(9999, 12, 31, 23, 59, 59, 997000)
    assert edge["dt2"] == datetime(9999, 12, 31, 23, 59, 59, 999999)
    assert edge["dto"] == datetime(2020, 6, 1, 20, 0, 0, 123456)  # 12:00 at -08:00, in UTC
    assert edge["c"] == "x" and edge["nc"] == "ü"  # char/nchar padding is not kept, as TiDB reads CHAR
    assert edge["vc"] == "tab\there, new\nline, back\\slash" and edge["nvc"] == "😀 emoji 'quoted' 日本"
    assert edge["vmax"] == "a" * 100_000 and edge["nvmax"] == "ж" * 70_000  # not cut at the client's text size
    assert edge["bn"] == b"\x00" * 7 + b"\x01" and edge["vb"] == b"\x00\xff\x5c\x0a\x09" and len(edge["vbm"]) == 90_000
    assert edge["img"] == b"\x89PNG" and edge["u"] == "00000000-0000-0000-0000-000000000000"
    assert edge["x"] == '<r a="1">x &amp; y</r>' and edge["sv"] == "variant text" and edge["ph"] == "+1 555 0100"
    assert len(edge["rv"]) == 8
    assert all(v is None for k, v in nulls.items() if k not in ("id", "sn", "rv"))
    # Keys in a text order both servers agree on, and a GUID key, arrived whole.
    assert target_rows(target, target_database, "SELECT COUNT(*) FROM text_key")[0][0] == 17
    assert tables["dbo.guid_key"]["verify"]["method"] == "key ranges"
    zero = target_rows(target, target_database, "SELECT id, v FROM zero_identity ORDER BY id")
    assert [tuple(r) for r in zero] == [(0, "zero"), (1, "one"), (2, "two")]  # an explicit 0 is not a new identity
    assert tables["dbo.text_key"]["verify"]["method"] == "key ranges"


@pytest.mark.slow
def test_values_the_target_cannot_hold_go_to_the_rejects_file(mariadb, database, every_type, tmp_path):
    """DA01: NaN and infinity (which Babelfish's float keeps) are rejected with table, key and reason."""
    if not every_type.mssql.babelfish:
        pytest.skip("SQL Server itself refuses NaN and infinity, so its rows hold none")
    out = tmp_path / "out"
    doc = loaded(*copy_args(every_type, mariadb, database, out, "--create-tables", "--table", "nan_values"))
    entry = by_table(doc)["dbo.nan_values"]
    assert entry["rows"] == 2 and entry["rejects"] == 3 and entry["verify"]["status"] == "equal"
    assert entry["verify"]["rejected"] == 3
    import json

    rejects = [json.loads(line) for line in (out / "data-rejects.jsonl").read_text().splitlines()]
    assert sorted(r["key"]["id"] for r in rejects) == [2, 3, 4]
    assert all(r["table"] == "dbo.nan_values" and r["column"] == "f" and "DOUBLE" in r["reason"] for r in rejects)
    assert [f["rule"] for f in doc["findings"]] == ["DA01"]


@pytest.mark.slow
def test_a_table_without_a_key_is_copied_in_physical_order(mariadb, database, every_type, tmp_path):
    """DA04: a heap is read as it lies, verified by whole-row hashes (duplicates counted)."""
    out = tmp_path / "out"
    doc = loaded(*copy_args(every_type, mariadb, database, out, "--create-tables", "--table", "no_key"))
    entry = by_table(doc)["dbo.no_key"]
    assert entry["chunking"] == "physical order (no key)" and entry["rows"] == 120
    assert entry["verify"]["status"] == "equal" and entry["verify"]["method"].startswith("hash buckets of whole rows")
    assert "DA04" in {f["rule"] for f in doc["findings"]}
    with mariadb.connect(database) as conn, conn.cursor() as cur:
        cur.execute("DELETE FROM no_key WHERE a = 0 LIMIT 1")  # one of several equal rows goes missing
    again = data("verify", "-o", str(tmp_path / "again"), "--connection", every_type.connection, "--target",
                 mariadb.url(database), "--table", "no_key", str(every_type.capture))
    assert again.exit_code == 0, again.output
    check = by_table(document(tmp_path / "again"))["dbo.no_key"]["verify"]
    assert check["status"] == "different" and check["differences"] == 1
    assert check["first_differences"][0]["kind"] == "missing on target"


def test_nothing_is_written_without_the_target_database_named(mariadb, database, chinook, tmp_path):
    for extra, said in (([], f"--confirm-database {database}"), (["--confirm-database", "other"], "does not name")):
        args = ["copy", "-o", str(tmp_path / "out"), "--connection", chinook.connection, "--target",
                mariadb.url(database), "--create-tables", *extra, str(chinook.capture)]
        result = data(*args)
        assert result.exit_code == 2 and result.stderr.count("\n") == 1 and said in result.stderr, result.output
    assert not (tmp_path / "out").exists()
    assert target_rows(mariadb, database, "SELECT COUNT(*) FROM information_schema.tables "
                                          "WHERE table_schema = DATABASE()")[0][0] == 0


@pytest.mark.slow
def test_rows_already_in_the_target_are_never_written_over(mariadb, database, chinook, tmp_path):
    first = data(*copy_args(chinook, mariadb, database, tmp_path / "a", "--create-tables", "--table", "genre"))
    assert first.exit_code == 0, first.output
    again = data(*copy_args(chinook, mariadb, database, tmp_path / "b", "--table", "genre"))
    assert again.exit_code == 2 and "already holds rows in genre" in again.stderr and "--truncate" in again.stderr
    emptied = data(*copy_args(chinook, mariadb, database, tmp_path / "b", "--table", "genre", "--truncate"))
    assert emptied.exit_code == 0, emptied.output
    assert by_table(document(tmp_path / "b"))["dbo.genre"]["verify"]["status"] == "equal"


@pytest.mark.slow
def test_passwords_never_reach_a_file_or_the_output(mariadb, database, chinook, tmp_path):
    secret = "L0ad3r-s3cret;x"
    with mariadb.connect() as conn, conn.cursor() as cur:
        cur.execute("CREATE USER IF NOT EXISTS 'loader'@'127.0.0.1' IDENTIFIED BY %s", (secret,))
        cur.execute(f"GRANT ALL PRIVILEGES ON `{database}`.* TO 'loader'@'127.0.0.1'")
    url = f"mysql://loader@{mariadb.host}:{mariadb.port}/{database}"
    out = tmp_path / "out"
    result = data(*["copy", "-o", str(out), "--connection", chinook.connection, "--target", url, "--confirm-database",
                    database, "--create-tables", "--table", "artist", str(chinook.capture)],
                  env={"SQLSRV2TIDB_TARGET_PASSWORD": secret})
    assert result.exit_code == 0, result.output
    source_password = next(p.split("=", 1)[1] for p in chinook.connection.split(";") if p.upper().startswith("PWD="))
    written = "".join(p.read_text(encoding="utf-8") for p in out.iterdir())
    for text in (written, result.output):
        assert secret not in text and source_password not in text
    assert document(out)["target"] == url


@pytest.mark.slow
def test_without_local_infile_the_rows_go_in_as_inserts(mariadb, database, chinook, tmp_path):
    with mariadb.connect() as conn, conn.cursor() as cur:
        cur.execute("SET GLOBAL local_infile = 0")
    try:
        out = tmp_path / "out"
        result = data(*copy_args(chinook, mariadb, database, out, "--create-tables", "--table", "track",
                                 "--table", "genre", "--chunk-rows", "700"))
    finally:
        with mariadb.connect() as conn, conn.cursor() as cur:
            cur.execute("SET GLOBAL local_infile = 1")
    assert result.exit_code == 0, result.output
    doc = document(out)
    assert doc["settings"]["method"] == "insert"
    assert all(t["verify"]["status"] == "equal" and t["method"] == "insert" for t in doc["tables"])
    assert by_table(doc)["dbo.track"]["rows"] == 3503


@pytest.mark.slow
def test_foreign_keys_already_on_the_target_order_the_load(mariadb, database, northwind, tmp_path):
    """DA07: with 05-foreign-keys.sql applied first, parents load first and Employees (which references
    itself) loads with foreign_key_checks off on its own session."""
    from typer.testing import CliRunner

    from sqlsrv2tidb.cli import app

    ddl = CliRunner().invoke(app, ["ddl", str(northwind.capture), "-o", str(tmp_path / "ddl"), "-q"])
    assert ddl.exit_code == 0, ddl.output
    with mariadb.connect(database) as conn, conn.cursor() as cur:
        for name in ("01-sequences.sql", "02-tables.sql", "04-indexes.sql", "05-foreign-keys.sql"):
            from sqlsrv2tidb.translate.ddl import is_comment_only, split_statements

            for statement in split_statements((tmp_path / "ddl" / "ddl" / name).read_text()):
                if not is_comment_only(statement):
                    cur.execute(statement)
    out = tmp_path / "out"
    doc = loaded(*copy_args(northwind, mariadb, database, out, "--jobs", "4"))
    tables = by_table(doc)
    assert all(t["verify"]["status"] == "equal" for t in doc["tables"])
    assert tables["dbo.employees"]["foreign_key_checks"] == "off"
    assert tables["dbo.orders"]["foreign_key_checks"] == "on"
    assert {f["object"] for f in doc["findings"] if f["rule"] == "DA07"} == {"dbo.employees"}
