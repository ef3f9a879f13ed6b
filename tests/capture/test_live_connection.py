"""The live capture through the real driver stack (pyodbc + unixODBC + FreeTDS), up to the connection.

No SQL Server can run here, so the tests stop where a server would answer: a loopback port where
nothing listens, a driver name unixODBC does not know, a DSN that is not defined. Each must end
in one line naming the host or driver, exit code 2, and never the password.
"""

from __future__ import annotations

import socket
import sys

import pyodbc
import pytest
from typer.testing import CliRunner

from sqlsrv2tidb.capture.live import (
    RowsetError,
    Session,
    capture_to_folder,
    connect_error,
    parse_connection,
    scrub,
)
from sqlsrv2tidb.cli import app
from sqlsrv2tidb.errors import ConnectionFailed, UsageError

SECRET = "Tr0ub4dor&3;x}"


@pytest.fixture
def dead_port() -> int:
    """A loopback port that nothing listens on (bound, read, released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _capture(args: list[str], env: dict[str, str] | None = None, stdin: str | None = None):
    return CliRunner().invoke(app, ["capture", *args], env=env, input=stdin)


def test_a_refused_connection_names_the_host_and_never_the_password(tmp_path, dead_port):
    out = tmp_path / "cap"
    connection = f"DRIVER={{FreeTDS}};SERVER=127.0.0.1,{dead_port};DATABASE=Sales;UID=sa;PWD={{{SECRET.replace('}', '}}')}}}"
    result = _capture(["--connection", connection, "-o", str(out), "--timeout", "2", "-q"])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: cannot reach SQL Server at ")
    assert f"127.0.0.1,{dead_port}" in result.stderr and ("08001" in result.stderr or "08S01" in result.stderr)
    assert SECRET not in result.output and "Tr0ub4dor" not in result.output and "Traceback" not in result.output
    assert not out.exists()  # nothing left behind for a capture that never started


def test_the_password_from_the_environment_or_a_prompt_stays_secret(tmp_path, dead_port):
    connection = f"DRIVER={{FreeTDS}};SERVER=127.0.0.1;PORT={dead_port};DATABASE=Sales;UID=capture_reader"
    from_env = _capture(["--connection", connection, "-o", str(tmp_path / "a"), "--timeout", "2", "-q",
                         "--password-env", "SALES_PW"], env={"SALES_PW": SECRET})
    assert from_env.exit_code == 2 and f"127.0.0.1,{dead_port}" in from_env.stderr
    prompted = _capture(["--connection", connection, "-o", str(tmp_path / "b"), "--timeout", "2", "-q",
                         "--password-prompt"], stdin=SECRET + "\n")
    assert prompted.exit_code == 2 and f"127.0.0.1,{dead_port}" in prompted.stderr
    assert "Password for capture_reader on 127.0.0.1" in prompted.stderr
    for result in (from_env, prompted):
        assert SECRET not in result.output and "Traceback" not in result.output


def test_an_unknown_odbc_driver_is_named(tmp_path):
    result = _capture(["--connection", "DRIVER={ODBC Driver 99 for SQL Server};SERVER=db1;UID=sa;PWD=hunter22",
                       "-o", str(tmp_path / "cap"), "-q"])
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert "ODBC driver 'ODBC Driver 99 for SQL Server' is not installed" in result.stderr
    assert "FreeTDS" in result.stderr  # the drivers that are installed
    assert "hunter22" not in result.output


def test_an_undefined_dsn_is_named(tmp_path):
    result = _capture(["--connection", "DSN=SalesProd;UID=sa;PWD=hunter22", "-o", str(tmp_path / "cap"), "-q"])
    assert result.exit_code == 2
    assert "ODBC data source 'SalesProd' is not defined" in result.stderr and "IM002" in result.stderr
    assert "hunter22" not in result.output


def test_pyodbc_missing_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyodbc", None)  # makes `import pyodbc` fail as on a machine without it
    with pytest.raises(ConnectionFailed) as err:
        capture_to_folder("DRIVER={FreeTDS};SERVER=db1", tmp_path / "cap", password_env="X", prompt=False,
                          query_store=True, days=7, timeout=2)
    assert "sqlsrv2tidb[sqlserver]" in str(err.value) and "unixODBC" in str(err.value)
    assert not (tmp_path / "cap").exists()


def test_a_folder_of_other_files_is_refused_before_connecting(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    result = _capture(["--connection", "DRIVER={FreeTDS};SERVER=127.0.0.1,9;UID=sa", "-o", str(out), "-q"])
    assert result.exit_code == 2 and "already holds files this tool did not write" in result.stderr
    assert (out / "notes.txt").read_text() == "keep me"


def test_connection_strings_are_parsed_as_odbc_defines_them():
    conn = parse_connection("Driver={ODBC Driver 18 for SQL Server}; Server=tcp:sql1.corp,1444;"
                            "Database=Sales;Uid=reader;Pwd={a;b}}c};Encrypt=yes")
    assert conn.password == "a;b}c" and conn.get("driver") == "ODBC Driver 18 for SQL Server"
    assert conn.host == "sql1.corp,1444"
    assert conn.odbc() == ("Driver={ODBC Driver 18 for SQL Server};Server=tcp:sql1.corp,1444;Database=Sales;"
                           "Uid=reader;Encrypt=yes;PWD={a;b}}c}")
    assert parse_connection("SERVER=h;PORT=1500;Password=x").host == "h,1500"
    assert "a;b" not in repr(conn) and "a;b" not in str(conn)
    with pytest.raises(UsageError) as err:
        parse_connection("SERVER=h;PWD={never closed")
    assert "PWD" in str(err.value) and "never closed" not in str(err.value)


def test_driver_messages_are_scrubbed():
    assert scrub("bad login: UID=sa;PWD=pa55word;Server=x", "pa55word") == "bad login: UID=sa;PWD=***;Server=x"
    assert scrub("Password={x;y} rejected; x;y was wrong", "x;y") == "Password=*** rejected; *** was wrong"


def test_login_failure_and_lost_connections_are_classified():
    conn = parse_connection("DRIVER={FreeTDS};SERVER=db1,1433;UID=reader;PWD=s3cr3tpw")
    login = pyodbc.InterfaceError("28000", "[28000] [FreeTDS][SQL Server]Login failed for user 'reader'. (18456)")
    message = str(connect_error(login, conn, ["FreeTDS"]))
    assert message.startswith("login failed for reader on SQL Server at db1,1433") and "s3cr3tpw" not in message
    session = Session(None, conn)
    denied = pyodbc.ProgrammingError("42000", "[42000] VIEW DATABASE STATE permission denied in database 'Sales'. (300)")
    assert isinstance(session.failure(denied), RowsetError)
    lost = pyodbc.OperationalError("08S01", "[08S01] Communication link failure")
    assert isinstance(session.failure(lost), ConnectionFailed)
    cut = pyodbc.Error("01000", "[01000] [FreeTDS][SQL Server]Unexpected EOF from the server (20017) (SQLExecDirectW)")
    assert str(session.failure(cut)).startswith("lost the connection to SQL Server at db1,1433")
    # A server that answers but cannot serve for now: a new session later is the answer, as for a lost one.
    for away in (pyodbc.Error("42000", "[42000] [FreeTDS][SQL Server]Database 'Sales' is being recovered. Waiting "
                                       "until recovery is finished. (922) (SQLExecDirectW)"),
                 pyodbc.Error("HY000", "[HY000] [FreeTDS][SQL Server]the database system is in recovery mode (0)"),
                 pyodbc.Error("42000", "[42000] Cannot open database \"Sales\" requested by the login. (4060)")):
        failure = session.failure(away)
        assert isinstance(failure, ConnectionFailed) and "db1,1433 is not available" in str(failure), failure
