"""A capture of procedure calls (Extended Events rpc_completed, each call's own argument values) replayed through the
procedure runner at its captured rate, and compared with EXEC on the SQL Server endpoint.

First on a schema of this test's own, on MariaDB and TiDB: reading procedures are sent without --allow-writes and a
writing one is left out saying so; with --allow-writes every class is sent, a key the procedure inserts gets a fresh
value, and no call fails. Then Northwind on the SQL Server endpoint (fixture `compare_northwind`): its calls replayed
on TiDB holding the same rows, every class sent with no error, and compared with the same answers.
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from procedure_helpers import read_script
from typer.testing import CliRunner

from sqlsrv2tidb.cli import app

SCRIPT = """
CREATE TABLE dbo.Orders (OrderID int NOT NULL PRIMARY KEY, Customer nvarchar(10) NOT NULL, Amount money NOT NULL);
GO
CREATE PROCEDURE dbo.OrdersOf @Customer nvarchar(10)
AS
BEGIN
    SET NOCOUNT ON;
    SELECT OrderID, Amount FROM dbo.Orders WHERE Customer = @Customer ORDER BY OrderID;
END
GO
CREATE PROCEDURE dbo.Largest @Below money
AS
BEGIN
    DECLARE @id int, @best money = 0, @amount money;
    DECLARE c CURSOR LOCAL FAST_FORWARD FOR SELECT OrderID, Amount FROM dbo.Orders WHERE Amount < @Below;
    OPEN c;
    FETCH NEXT FROM c INTO @id, @amount;
    WHILE @@FETCH_STATUS = 0
    BEGIN
        IF @amount > @best SET @best = @amount;
        FETCH NEXT FROM c INTO @id, @amount;
    END
    CLOSE c;
    DEALLOCATE c;
    SELECT @best AS best;
END
GO
CREATE PROCEDURE dbo.AddOrder @OrderID int, @Customer nvarchar(10), @Amount money
AS
BEGIN
    SET NOCOUNT ON;
    BEGIN TRY
        BEGIN TRAN;
        INSERT INTO dbo.Orders (OrderID, Customer, Amount) VALUES (@OrderID, @Customer, @Amount);
        COMMIT;
    END TRY
    BEGIN CATCH
        IF @@TRANCOUNT > 0 ROLLBACK;
        THROW;
    END CATCH
END
GO
"""


def calls_xml(calls: list[str], path: Path, per_second: float, start: datetime | None = None) -> Path:
    """rpc_completed events, one per call, `per_second` apart, as a server-side Extended Events session writes them."""
    start = start or datetime(2024, 12, 2, 9, 0, 0)
    rng = random.Random(7)
    events = []
    for n, statement in enumerate(calls):
        at = start + timedelta(seconds=n / per_second)
        text = statement.replace("&", "&amp;").replace("<", "&lt;")
        events.append(f'  <event name="rpc_completed" package="sqlserver" timestamp="{at.isoformat()}Z">\n'
                      f'    <data name="duration"><value>{rng.randint(300, 2000)}</value></data>\n'
                      f'    <data name="statement"><value>{text}</value></data>\n'
                      f'    <action name="session_id"><value>{51 + n % 4}</value></action>\n  </event>')
    path.write_text("<events>\n" + "\n".join(events) + "\n</events>\n", encoding="utf-8")
    return path


def replay(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["replay", *args, "-q"])
    return result.exit_code, result.output


def _own_calls() -> list[str]:
    rng = random.Random(3)
    calls = []
    for n in range(90):
        kind = n % 3
        if kind == 0:
            calls.append(f"exec dbo.OrdersOf @Customer=N'{rng.choice('AB')}'")
        elif kind == 1:
            calls.append(f"exec dbo.Largest @Below={rng.randint(5, 12)}")
        else:
            calls.append(f"exec dbo.AddOrder @OrderID={1000 + n}, @Customer=N'{rng.choice('AB')}', @Amount={n}.50")
    return calls


def test_a_capture_of_calls_is_replayed_through_the_runner(target, target_database, tmp_path):
    read_script(SCRIPT, tmp_path)
    conn = target.connect(target_database)
    with conn.cursor() as cur:
        cur.execute("CREATE TABLE Orders (OrderID int NOT NULL PRIMARY KEY, Customer varchar(10) NOT NULL, "
                    "Amount decimal(19, 4) NOT NULL)")
        cur.execute("INSERT INTO Orders VALUES (1, 'A', 10), (2, 'A', 5.5), (3, 'B', 7)")
    conn.commit()
    conn.close()
    capture = calls_xml(_own_calls(), tmp_path / "calls.xml", per_second=3)
    url = target.url(target_database)
    code, output = replay(str(tmp_path / "schema.sql"), str(capture), "--target", url, "-o", str(tmp_path / "read"),
                          "--duration", "4", "--warmup", "0")
    assert code in (0, 1), output
    doc = json.loads((tmp_path / "read" / "replay.json").read_text())
    sent = {q["procedure_call"]["procedures"][0]: q for q in doc["per_query"]}
    assert set(sent) == {"dbo.OrdersOf", "dbo.Largest"}
    (writer,) = doc["skipped"]
    assert writer["reason"].startswith("changes data")
    # Sent at the captured rate of the classes sent (two of three: 2 calls per second), each a call through the runner.
    assert doc["target_qps"] == pytest.approx(doc["captured_qps"]) and doc["captured_qps"] == pytest.approx(2, rel=0.05)
    assert doc["errors"] == 0 and all(q["statements"] > 0 and q["errors"] == 0 for q in sent.values())
    largest = sent["dbo.Largest"]["procedure_call"]
    assert largest["round_trips_per_call"] == 2  # the cursor's query and the SELECT; the loop is the client's
    assert largest["statements_per_call"] > 5 and largest["sql_server_ms_per_call"] is not None
    assert {p["procedure"] for p in doc["procedures"]} == {"dbo.OrdersOf", "dbo.Largest"}

    code, output = replay(str(tmp_path / "schema.sql"), str(capture), "--target", url, "-o", str(tmp_path / "all"),
                          "--duration", "4", "--warmup", "0", "--allow-writes", "--confirm-database", target_database)
    assert code in (0, 1), output
    doc = json.loads((tmp_path / "all" / "replay.json").read_text())
    assert doc["skipped"] == [] and len(doc["per_query"]) == 3
    assert doc["errors"] == 0, doc["error_codes"]
    writer = next(q for q in doc["per_query"] if q["procedure_call"]["procedures"] == ["dbo.AddOrder"])
    assert writer["values"]["fresh_keys"] == ["OrderID"] and writer["procedure_call"]["writes"] is True
    conn = target.connect(target_database)
    with conn.cursor() as cur:
        cur.execute("SELECT COUNT(*) FROM Orders")
        (rows,) = cur.fetchone()
    conn.close()
    assert rows == 3 + writer["statements"]


NORTHWIND_CALLS = [
    "exec dbo.CustOrderHist @CustomerID=N'{c}'", "exec dbo.CustOrdersOrders @CustomerID=N'{c}'",
    "exec dbo.CustOrdersDetail @OrderID={o}", "exec dbo.SalesByCategory @CategoryName=N'{k}', @OrdYear=N'{y}'",
    "exec [dbo].[Ten Most Expensive Products]",
]


@pytest.mark.slow
def test_northwind_calls_replay_on_tidb_and_answer_as_on_sql_server(compare_northwind, tidb, tmp_path):
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "data"))
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "compare"))
    from compare_helpers import compare
    from data_helpers import copy_args, loaded

    database = tidb.create_database("t_northwind_calls")
    loaded(*copy_args(compare_northwind, tidb, database, tmp_path / "data", "--create-tables"))
    customers = [r[0] for r in compare_northwind.rows("SELECT TOP 20 CustomerID FROM Customers ORDER BY CustomerID")]
    orders = [r[0] for r in compare_northwind.rows("SELECT TOP 20 OrderID FROM Orders ORDER BY OrderID")]
    categories = [r[0] for r in compare_northwind.rows("SELECT CategoryName FROM Categories")]
    rng = random.Random(11)
    calls = [NORTHWIND_CALLS[n % len(NORTHWIND_CALLS)].format(c=rng.choice(customers), o=rng.choice(orders),
                                                              k=rng.choice(categories), y=rng.choice(("1996", "1997", "1998")))
             for n in range(240)]
    capture = calls_xml(calls, tmp_path / "calls.xml", per_second=4)
    sources = [str(compare_northwind.capture), str(capture)]
    code, output = replay(*sources, "--target", tidb.url(database), "-o", str(tmp_path / "replay"), "--duration", "6",
                          "--warmup", "0")
    assert code in (0, 1), output
    doc = json.loads((tmp_path / "replay" / "replay.json").read_text())
    assert doc["skipped"] == [] and len(doc["per_query"]) == len(NORTHWIND_CALLS)  # every class sent
    assert doc["target_qps"] == pytest.approx(doc["captured_qps"]) and doc["captured_qps"] == pytest.approx(4, rel=0.05)
    assert doc["errors"] == 0, doc["error_codes"]
    assert all(q["statements"] > 0 and q["procedure_call"]["failed_calls"] == 0 for q in doc["per_query"])
    print({p["procedure"]: (p["calls"], p["round_trips_per_call"], p["target_ms_per_call"], p["sql_server_ms_per_call"])
           for p in doc["procedures"]})
    compared = compare(sources, tmp_path / "compare", compare_northwind.connection, tidb.url(database),
                       "--parameter-sets", "3")
    assert compared["summary"]["classes"] == len(NORTHWIND_CALLS) and compared["left_out"] == []
    verdicts = {q["procedure_call"]["procedures"][0]: q["verdict"] for q in compared["queries"]}
    assert set(verdicts.values()) == {"same"}, compared["queries"]
    rows = [q["rows"]["target"] for q in compared["queries"]]
    assert sum(1 for r in rows if r) >= 4  # the answers compared hold rows
