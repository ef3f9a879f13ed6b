"""The WideWorldImporters demo and workload-driver scripts (tests/corpus/wwi-sample-scripts, see its SOURCE.md).

A folder of hand-kept scripts in mixed encodings (UTF-16LE with BOM and CRLF, UTF-8 with BOM,
ASCII) that mix DDL, DML and Azure Synapse syntax: it must read without a crash, with the counts
the scripts hold. Each count was taken from the scripts by hand (the comments say how); the
test recomputes the unreadable statements' lines from the text with a plain search.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sqlsrv2tidb.cli import app
from sqlsrv2tidb.model import load_capture

SAMPLES = Path(__file__).resolve().parents[1] / "corpus" / "wwi-sample-scripts"
POLYBASE = SAMPLES / "sample-scripts" / "load-sample-data-using-polybase" / "load-sample-data-using-polybase.sql"


@pytest.fixture(scope="module")
def read(tmp_path_factory):
    out = tmp_path_factory.mktemp("wwi-samples") / "model.json"
    result = CliRunner().invoke(app, ["schema", "--quiet", str(SAMPLES), "--json", str(out)])
    return result, load_capture(out)


def test_reads_without_a_crash(read):
    result, _ = read
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output and "Error" not in result.output
    assert "findings while reading: 16 high, 19 info, 6 low" in result.stdout


def test_tables_and_procedures(read):
    _, capture = read
    db = capture.database
    # CREATE TABLE with a column list outside comments, temporary tables aside: Supplier_PrivateDetails
    # (always-encrypted), OnDisk/InMemory.VehicleLocations (in-memory-oltp, again in the workload
    # driver's copy), wwi.dimension_Date and wwi.fact_Sale (polybase loader).
    assert sorted(t.qualified_name for t in db.tables) == [
        "InMemory.VehicleLocations", "OnDisk.VehicleLocations", "Purchasing.Supplier_PrivateDetails",
        "wwi.dimension_Date", "wwi.fact_Sale"]
    assert db.table("InMemory", "VehicleLocations").memory_optimized
    # Three procedures in VehicleLocation.sql (two again in the driver's copy); the polybase loader's
    # four have no GO between them, so the first holds the other three as text.
    assert sorted(m.qualified_name for m in db.modules) == [
        "InMemory.Insert50ThousandVehicleLocations", "InMemory.InsertVehicleLocation", "OnDisk.InsertVehicleLocation",
        "wwi.InitialSalesDataPopulation"]


def test_findings_match_the_scripts(read):
    _, capture = read
    assert Counter(f.rule for f in capture.findings) == {
        "IN02": 16,  # 13 Synapse CREATE TABLE ... WITH (...) AS SELECT, 3 procedures after the first without GO
        "IN12": 15,  # the polybase loader's 13 external tables, its external data source and file format
        "IN11": 4,   # the driver's VehicleLocation.sql defines two tables and two procedures again
        "IN13": 4,   # EXEC of three procedures (in-memory demo) and of the RLS set-up procedure
        "IN10": 2,   # EXECUTE (@SQL) twice in the driver's script
    }
    damaged = {"IN03", "IN15", "IN16", "IN17", "IN48"}
    assert not [f for f in capture.findings if f.rule in damaged]  # every file decodes whole; no statement is cut


def test_unreadable_statements_are_at_the_lines_the_script_has_them(read):
    _, capture = read
    text = POLYBASE.read_text(encoding="utf-8-sig")
    code = re.sub(r"--[^\n]*", "", text)  # the script comments out some statements line by line
    ctas = [code.count("\n", 0, m.start()) + 1
            for m in re.finditer(r"^CREATE TABLE \[wwi\]\.\[\w+\]\s*WITH\b", code, re.MULTILINE)]
    nested = [code.count("\n", 0, m.start()) + 1 for m in re.finditer(r"^CREATE PROCEDURE", code, re.MULTILINE)][1:]
    assert (len(ctas), nested) == (13, [599, 655, 735])
    found = sorted(f.line for f in capture.findings if f.rule == "IN02")
    assert [Path(f.file).name for f in capture.findings if f.rule == "IN02"] == [POLYBASE.name] * 16
    assert found == sorted(ctas + nested)
