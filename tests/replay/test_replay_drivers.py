"""Each driver's `run` against the suite's MariaDB: the same statement text, values and errors everywhere.

mysqlclient's `run` bypasses the cursor (see `drivers._mysqlclient_sender`), so these check that it
sends exactly what the cursor would: `%%` as `%`, values escaped by the connection, every result set
read so the next statement can go, and the driver's own exceptions for the error classifier.
"""

from __future__ import annotations

import pytest

from sqlsrv2tidb.replay import drivers
from sqlsrv2tidb.target import parse_target

pytestmark = pytest.mark.mariadb

BLOCKING = ["pymysql", "mysqlclient"]


@pytest.fixture
def conn(mariadb, database, request):
    connection = drivers.connect(parse_target(mariadb.url(database)), request.param)
    connection.driver = request.param
    with mariadb.connect(database) as setup, setup.cursor() as cur:
        cur.execute("CREATE TABLE notes (id INT PRIMARY KEY, body VARCHAR(100), price DECIMAL(9,2))")
    yield connection
    connection.close()


def _stored(mariadb, database) -> list[tuple]:
    with mariadb.connect(database) as check, check.cursor() as cur:
        cur.execute("SELECT id, body, price FROM notes ORDER BY id")
        return [tuple(row) for row in cur.fetchall()]


@pytest.mark.parametrize("conn", BLOCKING, indirect=True)
def test_values_are_escaped_and_percent_signs_kept(conn, mariadb, database):
    from decimal import Decimal

    conn.run("INSERT INTO notes VALUES (%s, CONCAT(%s, '100%%'), %s)", (1, "it's \\ \"quoted\" ", Decimal("9.5")))
    conn.run("INSERT INTO notes VALUES (%s, %s, %s)", (2, None, 0))
    conn.run("INSERT INTO notes VALUES (3, 'no values, 50%%', 1)", ())
    assert _stored(mariadb, database) == [
        (1, "it's \\ \"quoted\" 100%", Decimal("9.50")),
        (2, None, Decimal("0.00")),
        (3, "no values, 50%", Decimal("1.00")),
    ]


@pytest.mark.parametrize("conn", BLOCKING, indirect=True)
def test_a_result_is_read_whole_and_the_connection_goes_on(conn, mariadb, database):
    conn.run("INSERT INTO notes VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)", ())
    conn.run("SELECT * FROM notes", ())  # three rows left unread would put the next statement out of sync
    conn.run("SELECT * FROM notes WHERE id = %s", (2,))
    conn.run("UPDATE notes SET body = %s WHERE id = %s", ("z", 3))
    assert _stored(mariadb, database)[2][1] == "z"
    assert conn.fetch("SELECT COUNT(*) FROM notes") == [(3,)]


@pytest.mark.parametrize("conn", BLOCKING, indirect=True)
def test_server_errors_are_the_drivers_own_and_classified(conn):
    errors = drivers.driver_errors(conn.driver)
    with pytest.raises(errors) as duplicate:
        conn.run("INSERT INTO notes VALUES (%s, 'a', 1)", (1,))
        conn.run("INSERT INTO notes VALUES (%s, 'a', 1)", (1,))
    assert drivers.classify(duplicate.value)[::2] == (1062, "statement")
    with pytest.raises(errors) as missing:
        conn.run("SELECT * FROM no_such_table WHERE id = %s", (1,))
    assert drivers.classify(missing.value)[::2] == (1146, "statement")
    conn.run("SELECT 1", ())  # still usable after both errors


@pytest.mark.parametrize("conn", ["mysqlclient"], indirect=True)
def test_mysqlclient_writes_each_value_as_its_own_literal_would(conn, mariadb, database):
    """The sender's shortcut for plain ints must give the text `literal` gives, and leave every other type to it."""
    import datetime
    from decimal import Decimal

    values = (0, -1, 2**63 - 1, -(2**63), True, False, 1.5, Decimal("-3.25"), "a'b", b"\x00\x01", None,
              datetime.datetime(2024, 1, 6, 10, 30, 0, 123000), datetime.date(2024, 1, 6))
    sent: list[bytes] = []
    real_query = conn.raw.query
    conn.raw.query = lambda text: (sent.append(text), real_query(text))[1]  # MySQLdb's Connection is a Python class
    sender = drivers._mysqlclient_sender(conn.raw)
    sender("SELECT " + ", ".join(["%s"] * len(values)), values)
    expected = b"SELECT " + b", ".join(conn.raw.literal(v) for v in values)
    assert sent == [expected]
    assert b"SELECT 0, -1, 9223372036854775807, -9223372036854775808, 1, 0, " in expected
