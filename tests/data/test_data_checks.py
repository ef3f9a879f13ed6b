"""CHECK constraints through `data copy --create-tables`: converted from the live catalog, kept, and enforced.

The pubs-like database's CHECKs are LIKE patterns with character classes, read from the endpoint's catalog in its
own spelling (Babelfish: `(au_id ~~* '[0-9]...')`); converted as a script's are, every row lands and verifies on
each target, and each target keeps the CHECKs and refuses a row that breaks one. On TiDB that needs the GLOBAL
`tidb_enable_check_constraint`, OFF by default: the copy turns it on, says so, and these tests put it back as
they found it (the suite's TiDB is shared). Measured here too: a table created while it is ON keeps enforcing
after it is set OFF, which is why the setting need not stay ON in production (rule TB11).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pymysql
import pytest
from data_helpers import by_table, copy_args, data, document
from pubs_like import COUNTS

CHECK_ERRORS = {"tidb": 3819, "mysql": 3819, "mariadb": 4025}
"""What each server answers an INSERT that breaks a CHECK (MySQL's ER_CHECK_CONSTRAINT_VIOLATED, MariaDB's
ER_CONSTRAINT_FAILED)."""
PUBS_CHECKS = 6
"""ck_pub_id, ck_au_id, ck_au_zip, ck_jobs_min, ck_jobs_max, ck_emp_id."""


def _setting(tidb) -> int:
    with tidb.connect() as conn, conn.cursor() as cur:
        cur.execute("SELECT @@GLOBAL.tidb_enable_check_constraint")
        return int(cur.fetchone()[0])


def _set(tidb, on: bool) -> None:
    with tidb.connect() as conn, conn.cursor() as cur:
        cur.execute(f"SET GLOBAL tidb_enable_check_constraint = {'ON' if on else 'OFF'}")


@pytest.fixture
def checks_off(target):
    """On TiDB, the setting OFF (its default) for the test, and put back as it was found afterwards."""
    if target.kind != "tidb":
        yield
        return
    found = _setting(target)
    _set(target, False)
    try:
        yield
    finally:
        _set(target, bool(found))


def _refused(target, database: str, sql: str) -> int | None:
    """The error code the target answers `sql` with, None when it takes it."""
    with target.connect(database) as conn, conn.cursor() as cur:
        try:
            cur.execute(sql)
        except pymysql.MySQLError as exc:
            return exc.args[0]
    return None


@pytest.mark.slow
def test_catalog_checks_with_bracket_patterns_keep_every_row_and_refuse_a_row_that_breaks_them(
        target, target_database, pubs_like, checks_off, tmp_path):
    out = tmp_path / "out"
    result = data(*copy_args(pubs_like, target, target_database, out, "--create-tables"), env=target.env())
    assert result.exit_code == 0, result.output
    doc = document(out)
    tables = by_table(doc)
    assert {n: (t["status"], t["rows"], t["rejects"], t["verify"]["status"]) for n, t in tables.items()} == {
        n: ("done", rows, 0, "equal") for n, rows in COUNTS.items()}
    checks = doc["check_constraints"]
    assert (checks["planned"], checks["present"], checks["missing"]) == (PUBS_CHECKS, PUBS_CHECKS, [])
    assert not [f for f in doc["findings"] if f["rule"] in ("DA11", "DA12")]
    if target.kind == "tidb":  # OFF before the copy: it turned the server's setting on, and said so
        assert checks["setting"] == {"name": "tidb_enable_check_constraint", "found": "OFF", "turned_on": True,
                                     "refused": None}
        said = [n for n in doc["notes"] if n.startswith("SET GLOBAL tidb_enable_check_constraint = ON")]
        assert len(said) == 1 and "the whole server" in said[0], doc["notes"]
        assert _setting(target) == 1
    else:
        assert checks["setting"] is None
    # The copied CHECKs hold on the target: each refuses a row SQL Server would refuse, and takes one it takes.
    code = CHECK_ERRORS[target.kind]
    assert _refused(target, target_database, "INSERT INTO authors (au_id, au_lname, au_fname, phone, contract) "
                                             "VALUES ('12-345-6789', 'X', 'Y', 'UNKNOWN', 0)") == code
    assert _refused(target, target_database, "INSERT INTO publishers (pub_id) VALUES ('9a99')") == code
    assert _refused(target, target_database, "INSERT INTO publishers (pub_id) VALUES ('9998')") is None
    assert _refused(target, target_database, "INSERT INTO employee VALUES ('AB123456M', 'A', 'B', 1, '0736', "
                                             "'2020-01-01')") == code
    assert _refused(target, target_database, "INSERT INTO employee VALUES ('q-x12345f', 'A', 'B', 1, '0736', "
                                             "'2020-01-01')") is None  # the source's LIKE ignores case: so does this


@pytest.mark.slow
def test_without_the_right_to_turn_checks_on_the_copy_says_they_are_not_enforced(tidb, tidb_database, pubs_like,
                                                                                  tmp_path):
    """DA12: a login that may create tables but not SET GLOBAL: one line says the CHECKs will not be enforced and
    why, each missing constraint is named, and the target takes a row that breaks one."""
    found = _setting(tidb)
    _set(tidb, False)
    try:
        with tidb.connect() as conn, conn.cursor() as cur:
            cur.execute("DROP USER IF EXISTS 'no_super'@'%'")
            cur.execute("CREATE USER 'no_super'@'%'")
            cur.execute(f"GRANT ALL PRIVILEGES ON `{tidb_database}`.* TO 'no_super'@'%'")
        out = tmp_path / "out"
        result = data("copy", "-o", str(out), "--connection", pubs_like.connection, "--target",
                      f"mysql://no_super@{tidb.host}:{tidb.port}/{tidb_database}", "--confirm-database", tidb_database,
                      "--create-tables", "--table", "publishers", "--table", "authors", str(pubs_like.capture))
        assert result.exit_code == 0, result.output
        assert _setting(tidb) == 0
    finally:
        _set(tidb, bool(found))
    doc = document(out)
    checks = doc["check_constraints"]
    assert checks["setting"]["found"] == "OFF" and not checks["setting"]["turned_on"]
    assert "1227" in checks["setting"]["refused"] or "denied" in checks["setting"]["refused"].lower()
    assert sorted(checks["missing"]) == ["authors.ck_au_id", "authors.ck_au_zip", "publishers.ck_pub_id"]
    (line,) = [n for n in doc["notes"] if "will not be enforced" in n]
    assert line.startswith("the 3 CHECK constraint(s) of the tables created will not be enforced")
    (finding,) = [f for f in doc["findings"] if f["rule"] == "DA12"]
    assert finding["details"]["constraints"] == checks["missing"]
    assert all(t["verify"]["status"] == "equal" for t in doc["tables"])
    assert _refused(tidb, tidb_database, "INSERT INTO publishers (pub_id) VALUES ('9a99')") is None


def test_a_table_created_while_checks_are_on_enforces_them_after_they_are_set_off(tidb, tidb_database):
    """What decides whether the setting must stay ON in production, measured: it need not. A table created while
    it is ON refuses a breaking row through INSERT (3819), INSERT IGNORE and LOAD DATA (skipped) once it is OFF, in
    sessions opened after; a CHECK added while it is OFF is dropped (warning 1105), as at CREATE."""
    found = _setting(tidb)
    try:
        _set(tidb, True)
        with tidb.connect(tidb_database) as conn, conn.cursor() as cur:
            cur.execute("CREATE TABLE kept (id INT PRIMARY KEY, n INT, CONSTRAINT ck_kept CHECK (n > 0))")
        _set(tidb, False)
        with tidb.connect(tidb_database, local_infile=True) as conn, conn.cursor() as cur:
            with pytest.raises(pymysql.MySQLError, match="3819"):
                cur.execute("INSERT INTO kept VALUES (1, -1)")
            assert cur.execute("INSERT IGNORE INTO kept VALUES (2, -2), (3, 3)") == 1
            with tempfile.TemporaryDirectory() as folder:
                rows = Path(folder) / "rows.tsv"
                rows.write_text("4\t-4\n5\t5\n")
                assert cur.execute(f"LOAD DATA LOCAL INFILE '{rows}' INTO TABLE kept (id, n)") == 1
            cur.execute("SELECT id FROM kept ORDER BY id")
            assert [r[0] for r in cur.fetchall()] == [3, 5]
            cur.execute("ALTER TABLE kept ADD CONSTRAINT ck_later CHECK (id < 100)")
            cur.execute("SHOW WARNINGS")
            assert [w[1] for w in cur.fetchall()] == [1105]
            cur.execute("SELECT constraint_name FROM information_schema.tidb_check_constraints "
                        "WHERE constraint_schema = DATABASE()")
            assert [r[0] for r in cur.fetchall()] == ["ck_kept"]
    finally:
        _set(tidb, bool(found))
