"""DDL written for MySQL (`--target-engine mysql`), applied to the real MySQL and then used as an application would.

MySQL has no sequences, refuses some CHECKs TiDB takes, keeps no virtual column in a primary key, and takes
expression defaults: `data/mysql_edges.sql` holds each case. The plan must create every table and key, and
what it promises in its findings (an AUTO_INCREMENT that starts where the sequence did, a sequence table whose
draw statement hands out the sequence's values, a CHECK left out with its reason) must hold on the server.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pymysql
import pytest
from ddl_apply import TIDB_ONLY, TIFLASH, apply, model_counts, server_counts
from engines import options_for

from sqlsrv2tidb import api
from sqlsrv2tidb.options import Options, Version
from sqlsrv2tidb.plan.migration import build_plan

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_ddl_render import kitchen_sink  # noqa: E402

EDGES = Path(__file__).resolve().parent / "data" / "mysql_edges.sql"


def _findings(plan, rule: str) -> dict[str, str]:
    return {f.object: f.message for f in plan.findings if f.rule == rule}


def test_the_edges_schema_creates_every_table_and_key_and_keeps_its_promises(mysql, mysql_database):
    capture = api.read([EDGES])
    plan = build_plan(capture, options_for(mysql))
    assert {f.name for f in plan.files} == {"01-sequences.sql", "02-tables.sql", "04-indexes.sql",
                                           "05-foreign-keys.sql", "06-views.sql", "07-modules-not-migrated.sql"}
    assert not any("/*T!" in f.content or "SEQUENCE " in f.content.replace("-- ", "") for f in plan.files
                   if f.name != "07-modules-not-migrated.sql")
    with mysql.connect(mysql_database) as conn:
        assert apply(conn, plan, "mysql") == []
        on_server, expected = server_counts(conn, mysql_database), model_counts(capture, plan)
        assert on_server == expected
        assert sorted(plan.settings["sequence_tables"]) == ["Audit", "Batch", "Countdown", "Shared", "Slot"]
        with conn.cursor() as cur:
            # The one-column sequence is the column's AUTO_INCREMENT, from the sequence's START WITH.
            cur.execute("INSERT INTO Tickets (Title) VALUES ('First')")
            cur.execute("SELECT TicketNo, Body, Code, Opened = CURDATE() FROM Tickets")
            assert cur.fetchone() == (1000, "", "NEW", 1)  # and the expression defaults, TEXT's included

            def draw(table: str, statement: str) -> int:
                cur.execute(statement)
                cur.execute("SELECT LAST_INSERT_ID()")
                return cur.fetchone()[0]

            shared = _findings(plan, "MY02")["Seq.Shared"]
            statement = shared.split("`")[1].split(";")[0]
            assert [draw("Shared", statement) for _ in range(3)] == [1, 6, 11]  # INCREMENT BY 5
            slot = _findings(plan, "MY02")["Seq.Slot"].split("`")[1].split(";")[0]
            assert [draw("Slot", slot) for _ in range(5)] == [1, 2, 3, 1, 2]  # CYCLE within MAXVALUE 3
            countdown = _findings(plan, "MY02")["Seq.Countdown"].split("`")[1].split(";")[0]
            assert [draw("Countdown", countdown) for _ in range(2)] == [100, 99]
            batch = _findings(plan, "MY02")["Seq.Batch"].split("`")[1].split(";")[0]
            assert [draw("Batch", batch) for _ in range(2)] == [1, 2]
            with pytest.raises(pymysql.err.OperationalError) as past_the_end:
                draw("Batch", batch)  # MAXVALUE 2 without CYCLE: the third draw fails, as in SQL Server
            assert past_the_end.value.args[0] == 3819  # a CHECK constraint is violated

            # A sequence table's columns have no default: the application draws first.
            cur.execute(f"{statement}")
            cur.execute("INSERT INTO Invoices (InvoiceID, Total) VALUES (LAST_INSERT_ID(), 9.5)")
            with pytest.raises(pymysql.err.OperationalError) as no_default:
                cur.execute("INSERT INTO Credits (Amount) VALUES (1)")
            assert no_default.value.args[0] == 1364

            # A CHECK MySQL refuses is left out with its reason; the others are enforced.
            refused = _findings(plan, "MY07")
            assert set(refused) == {"dbo.Launches.CK_Launches_ID", "dbo.Stores.CK_Stores_Region"}
            assert "AUTO_INCREMENT column" in refused["dbo.Launches.CK_Launches_ID"]
            assert "FK_Stores_Regions" in refused["dbo.Stores.CK_Stores_Region"]
            with pytest.raises(pymysql.err.OperationalError) as broken:
                cur.execute("INSERT INTO Launches (Countdown, Slot) VALUES (1, 9)")
            assert broken.value.args[0] == 3819

            # A computed key column is STORED: MySQL keeps no virtual column in a primary key.
            cur.execute("INSERT INTO Readings (SensorID, Minute, Value) VALUES (1, 125, 2.5)")
            cur.execute("SELECT Hour FROM Readings")
            assert cur.fetchone() == (2,)
            cur.execute("SELECT extra FROM information_schema.columns WHERE table_schema = %s AND table_name = "
                        "'Readings' AND column_name = 'Hour'", (mysql_database,))
            assert cur.fetchone() == ("STORED GENERATED",)

            # Collations: case-insensitive ones pad with spaces as SQL Server does; CS ones sort as SQL Server's.
            cur.execute("SELECT column_name, collation_name FROM information_schema.columns WHERE table_schema = %s "
                        "AND table_name = 'Tickets' AND collation_name IS NOT NULL ORDER BY column_name", (mysql_database,))
            assert dict(cur.fetchall()) == {"Body": "utf8mb4_general_ci", "Code": "utf8mb4_general_ci",
                                            "Tag": "utf8mb4_general_ci", "Title": "utf8mb4_0900_as_cs"}
            cur.execute("INSERT INTO Regions VALUES ('NO', 'Nord')")
            cur.execute("SELECT COUNT(*) FROM Regions WHERE Name = 'NORD  '")  # PAD SPACE, as SQL Server compares
            assert cur.fetchone() == (1,)
            # A user variable has the connection's collation: MySQL 8's default one cannot meet the column's (what
            # MY10 tells the application), the tables' one can, and is what the tool's own connections set.
            cur.execute("SET NAMES utf8mb4 COLLATE utf8mb4_0900_ai_ci")
            cur.execute("SET @name = 'NORD'")
            with pytest.raises(pymysql.err.OperationalError) as mixed:
                cur.execute("SELECT COUNT(*) FROM Regions WHERE Name = @name")
            assert mixed.value.args[0] == 1267
            cur.execute("SET NAMES utf8mb4 COLLATE utf8mb4_general_ci")
            cur.execute("SET @name = 'NORD'")
            cur.execute("SELECT COUNT(*) FROM Regions WHERE Name = @name")
            assert cur.fetchone() == (1,)
            cur.execute("INSERT INTO Tickets (Title) VALUES ('b'), ('B'), ('a')")
            cur.execute("SELECT Title FROM Tickets WHERE TicketNo > 1000 ORDER BY Title")
            assert [r[0] for r in cur.fetchall()] == ["a", "b", "B"]  # linguistic, lower case first, as Latin1_General_CS_AS


def test_the_kitchen_sink_runs_on_mysql(mysql, mysql_database):
    """The schema of every feature the generator handles (test_ddl_render) as MySQL's DDL, applied and used."""
    plan = build_plan(kitchen_sink(), options_for(mysql, tikv_nodes=4))
    assert not {TIDB_ONLY, TIFLASH} & {f.name for f in plan.files}
    assert not plan.settings["sequence_tables"]  # Sequences.OrderID numbers Orders.OrderID alone
    with mysql.connect(mysql_database) as conn:
        assert apply(conn, plan, "mysql") == []
        with conn.cursor() as cur:
            cur.execute("SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = %s",
                        (mysql_database,))
            assert sorted(cur.fetchall()) == [
                ("AuditLog", "BASE TABLE"), ("CustomerOrders", "VIEW"), ("Customers", "BASE TABLE"),
                ("Order Lines", "BASE TABLE"), ("Orders", "BASE TABLE"), ("keywords", "BASE TABLE"),
            ]
            cur.execute("INSERT INTO Customers (Name, Email) VALUES ('Ann', 'ann@example.com')")
            cur.execute("SELECT CustomerID, Balance, NameUpper, Flag, Notes FROM Customers")
            assert cur.fetchone() == (100, 0, "ANN", 0, "")  # AUTO_INCREMENT=100; a TEXT default kept on MySQL
            cur.execute("INSERT INTO Orders (CustomerID, Status) VALUES (100, 'new')")
            cur.execute("SELECT OrderID FROM Orders")
            assert cur.fetchone() == (1,)  # the sequence became Orders.OrderID's AUTO_INCREMENT
            cur.execute("DELETE FROM Customers")
            cur.execute("SELECT COUNT(*) FROM Orders")
            assert cur.fetchone() == (0,)  # ON DELETE CASCADE kept
    assert "MY01" in {f.rule for f in plan.findings} and not {"ID01", "ID03", "DI02"} & {f.rule for f in plan.findings}
    assert plan.table("dbo", "AuditLog").distribution.strategy == "none"


def test_a_tidb_design_asked_for_in_config_is_not_applied_on_mysql():
    table_config = {"tables": {"dbo.keywords": {"distribution": "key_partition"}, "Sales.Customers": {"identity": "sequence"}}}
    plan = build_plan(kitchen_sink(), Options(target_engine="mysql", mysql_version=Version.parse("8.4"),
                                              config=table_config, config_file="c.yaml"))
    refused = {f.object: f.message for f in plan.findings if f.rule == "DI04"}
    assert set(refused) == {"dbo.keywords", "Sales.Customers"}
    assert all("the target is MySQL" in m for m in refused.values())
    assert "AUTO_INCREMENT" in plan.table("Sales", "Customers").ddl and "PARTITION" not in plan.table("dbo", "keywords").ddl


def test_the_commands_write_for_the_engine_and_version_given(tmp_path):
    """`ddl`, `translate` and `assess` with --target-engine mysql: MySQL's DDL, its translation, a report naming it."""
    from typer.testing import CliRunner

    from sqlsrv2tidb.cli import app

    runner = CliRunner()
    workload = tmp_path / "workload.sql"
    workload.write_text("SELECT NEXT VALUE FOR Seq.Audit;\nGO\nSELECT Title FROM dbo.Tickets WHERE TicketNo = 1000;\nGO\n",
                        encoding="utf-8")
    ddl = runner.invoke(app, ["ddl", str(EDGES), "-o", str(tmp_path / "ddl"), "--target-engine", "mysql",
                              "--mysql-version", "8.0.15", "-q"])
    assert ddl.exit_code == 0, ddl.stderr
    tables = (tmp_path / "ddl" / "ddl" / "02-tables.sql").read_text(encoding="utf-8")
    assert "for MySQL 8.0.15 (InnoDB)" in tables and "/*T!" not in tables
    doc = json.loads((tmp_path / "ddl" / "assessment.json").read_text(encoding="utf-8"))
    assert doc["options"]["assessed_for"] == "MySQL 8.0.15" and doc["plan_settings"]["target_engine"] == "mysql"
    rules = {f["rule"] for f in doc["findings"]}
    assert {"MY01", "MY02", "MY06"} <= rules and "MY07" not in rules  # 8.0.15 ignores CHECK: nothing refused
    assert not {"ID01", "ID03", "TY12", "DI05", "TB10", "IX05"} & rules  # TiDB's rules stay out

    series = runner.invoke(app, ["ddl", str(EDGES), "-o", str(tmp_path / "series"), "--target-engine", "mysql",
                                 "--mysql-version", "8.0", "-q"])
    assert series.exit_code == 0, series.stderr
    doc = json.loads((tmp_path / "series" / "assessment.json").read_text(encoding="utf-8"))
    assert doc["options"]["assessed_for"] == "MySQL 8.0"  # the series as released today, not 8.0.0
    assert "MY06" not in {f["rule"] for f in doc["findings"]}  # its CHECKs are enforced, as since 8.0.16

    translated = runner.invoke(app, ["translate", str(EDGES), str(workload), "-o", str(tmp_path / "tr"),
                                     "--target-engine", "mysql", "-q"])
    assert translated.exit_code == 0, translated.stderr
    queries = json.loads((tmp_path / "tr" / "assessment.json").read_text(encoding="utf-8"))["queries"]
    by_text = {q["source_sql"].strip().rstrip(";"): q for q in queries}
    assert by_text["SELECT NEXT VALUE FOR Seq.Audit"]["status"] == "unsupported"
    assert [n["code"] for n in by_text["SELECT NEXT VALUE FOR Seq.Audit"]["notes"]] == ["MY21"]
    tickets = next(q for q in queries if "Tickets" in q["source_sql"])
    assert tickets["status"] == "translated" and "FROM Tickets" in tickets["target_sql"]

    assessed = runner.invoke(app, ["assess", str(EDGES), str(workload), "-o", str(tmp_path / "as"),
                                   "--target-engine", "mysql", "--mysql-version", "9.7", "-q"])
    assert assessed.exit_code == 0, assessed.stderr
    page = (tmp_path / "as" / "report.html").read_text(encoding="utf-8")
    assert "target MySQL 9.7" in page and "MySQL designs" in page and "Target MySQL version" in page
    assert "TiDB settings the files apply" not in page and not (tmp_path / "as" / "topology.yaml").exists()


def test_an_unknown_engine_or_an_old_mysql_is_one_line(tmp_path):
    from typer.testing import CliRunner

    from sqlsrv2tidb.cli import app

    runner = CliRunner()
    for args, message in ((["--target-engine", "oracle"], "Error: --target-engine must be one of tidb, mysql, got 'oracle'"),
                          (["--target-engine", "mysql", "--mysql-version", "5.7"],
                           "Error: --mysql-version 5.7: MySQL before 8.0 is past its end of life; give 8.0 or later")):
        result = runner.invoke(app, ["ddl", str(EDGES), "-o", str(tmp_path / "o"), *args, "-q"])
        assert result.exit_code == 2 and result.stderr == message + "\n"


@pytest.mark.parametrize("name", ["adventureworks-oltp", "wwi-oltp-ssdt"])
def test_each_engine_gets_its_own_rules(name, corpus_captures):
    """A MySQL assessment raises MySQL's rules and none about TiDB's design; a TiDB assessment no MySQL rule."""
    from sqlsrv2tidb.rules.catalogue import load_catalogue

    capture = corpus_captures(name)
    catalogue = load_catalogue(None)
    for options in (Options(), Options(target_engine="mysql", mysql_version=Version.parse("8.4"))):
        plan = build_plan(capture, options)
        found = {f.rule for f in [*plan.findings, *api.check(capture, options, plan=plan)]}
        engine_rules = {code for code in found if catalogue[code].category not in ("input", "types", "queries")}
        if options.mysql:
            assert engine_rules and all(code.startswith("MY") or code in ("DI04",) for code in engine_rules), engine_rules
        else:
            assert engine_rules and not any(code.startswith("MY") for code in engine_rules), engine_rules
