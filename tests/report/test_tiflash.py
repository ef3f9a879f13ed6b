"""A columnstore index asks for TiFlash: the DDL, the sizing, topology.yaml and the report say the same thing.

TiDB refuses `ALTER TABLE ... SET TIFLASH REPLICA n` on a cluster with fewer than n TiFlash servers, so the
statements sit in ddl/08-tiflash-replicas.sql, which says what it needs, and the suggested cluster has them.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from sqlsrv2tidb.cli import app

TABLES = """CREATE TABLE dbo.Sales (
    SaleID int IDENTITY(1,1) NOT NULL,
    Amount decimal(18,2) NOT NULL,
    CONSTRAINT PK_Sales PRIMARY KEY CLUSTERED (SaleID)
)
GO
CREATE TABLE dbo.Notes (NoteID int NOT NULL PRIMARY KEY, Body nvarchar(200) NULL)
GO
"""
SCHEMA = TABLES + "CREATE NONCLUSTERED COLUMNSTORE INDEX NCCI_Sales ON dbo.Sales (SaleID, Amount)\nGO\n"
FILE = "08-tiflash-replicas.sql"


def _assess(tmp_path: Path, schema: str = SCHEMA, config: dict | None = None, *args: str) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    source = tmp_path / "schema.sql"
    source.write_text(schema, encoding="utf-8")
    extra = []
    if config is not None:
        (tmp_path / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
        extra = ["--config", str(tmp_path / "config.yaml")]
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["assess", str(source), "-o", str(out), "--quiet", *extra, *args])
    assert result.exit_code == 0, result.output
    return out


def _text(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


@pytest.mark.parametrize(("replicas", "machines"), [(1, None), (2, 12)])
def test_the_tiflash_file_the_topology_and_the_report_agree(tmp_path, replicas, machines):
    config = {"ddl": {"tiflash_replicas": replicas}}
    if machines:
        config["deployment"] = {"machines": machines}  # a dedicated layout
    out = _assess(tmp_path, config=config)
    ddl = (out / "ddl" / FILE).read_text(encoding="utf-8")
    assert f"ALTER TABLE Sales SET TIFLASH REPLICA {replicas};" in ddl and "Notes" not in ddl
    assert "NEEDS TIFLASH" in ddl and f"at least {replicas} TiFlash server(s)" in ddl
    assert f"the tiflash replica count: {replicas} should be less than the total tiflash server count: 0" in ddl
    assert "TIFLASH" not in (out / "ddl" / "03-tidb-placement.sql").read_text(encoding="utf-8")

    doc = json.loads((out / "assessment.json").read_text(encoding="utf-8"))
    advice = doc["deployment"]
    assert advice["nodes"]["tiflash"] == replicas
    assert advice["tiflash"] == {"servers": replicas, "replicas": replicas, "tables": ["dbo.Sales"], "file": FILE}
    topology = yaml.safe_load((out / "topology.yaml").read_text(encoding="utf-8"))
    assert topology == yaml.safe_load(advice["topology_yaml"])
    tiflash_hosts = [s["host"] for s in topology["tiflash_servers"]]
    assert len(tiflash_hosts) == len(set(tiflash_hosts)) == replicas
    others = {s["host"] for k in ("pd_servers", "tidb_servers", "tikv_servers") for s in topology[k]}
    assert not others & set(tiflash_hosts), "TiFlash gets machines of its own"
    assert advice["machines"] == len(others | set(tiflash_hosts)) + (1 if advice["layout"] == "dedicated" else 0)
    assert advice["layout"] == ("dedicated" if machines else "co-located")
    assert any(FILE in n and "TiFlash server" in n for n in advice["notes"])

    page = _text((out / "report.html").read_text(encoding="utf-8"))
    assert f"TiFlash {replicas} own machine {FILE} gives 1 table(s) {replicas} TiFlash replica(s) each" in page
    assert f"PD, {replicas} TiFlash" in page  # the summary's suggested cluster
    assert f"{FILE} TiFlash replicas (needs TiFlash servers)" in page


def test_no_columnstore_or_no_replicas_means_no_tiflash_anywhere(tmp_path):
    plain = _assess(tmp_path / "plain", TABLES)
    off = _assess(tmp_path / "off", config={"ddl": {"tiflash_replicas": 0}})
    for out in (plain, off):
        assert not (out / "ddl" / FILE).exists()
        doc = json.loads((out / "assessment.json").read_text(encoding="utf-8"))
        assert doc["deployment"]["nodes"]["tiflash"] == 0
        assert "tiflash_servers" not in yaml.safe_load((out / "topology.yaml").read_text(encoding="utf-8"))
        assert "TiFlash server" not in " ".join(doc["deployment"]["notes"])
