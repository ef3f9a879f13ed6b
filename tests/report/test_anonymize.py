"""`--anonymize`: no original object name, literal, window name or description left in any output file, the
tool's own settings, file names, figures and prose left as they were, and SQL still SQL."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
import sample
from typer.testing import CliRunner

from sqlsrv2tidb.cli import app
from sqlsrv2tidb.model import IntervalStat, QueryClass
from sqlsrv2tidb.model.translation import Note, TranslatedQuery
from sqlsrv2tidb.report.anonymize import Anonymizer, anonymize_outputs
from sqlsrv2tidb.report.render import render_report
from sqlsrv2tidb.report.sqlwords import BUILTIN_CALLS, KEEP_WORDS, SQL_KEYWORDS
from sqlsrv2tidb.tsql.fingerprint import fingerprint, query_id

SECRET_STRING = "Zebra-Ledger Secret"
SECRET_NUMBER = "987654321"
SERVER_QUOTED = "Rhubarb-7731"
"""A value only a server's message quotes (no SQL of the user's holds it): prose would keep it, a server's text not."""
SECRET_SQL = (f"SELECT TOP 5 k.d_order, u.display_name FROM dbo.keywords AS k JOIN dbo.users AS u ON u.user_id = k.r_id "
              f"WHERE u.email = N'{SECRET_STRING}' AND k.e_id = {SECRET_NUMBER} AND k.e_type IN (3, 42)")
SECRET_TARGET = ("SELECT `k`.`d_order`, `u`.`display_name` FROM `keywords` AS `k` JOIN `users` AS `u` ON `u`.`user_id` = `k`.`r_id` "
                 f"WHERE `u`.`email` = '{SECRET_STRING}' AND `k`.`e_id` = {SECRET_NUMBER} AND `k`.`e_type` IN (3, 42) LIMIT 5")


def _secret_out(root: Path) -> Path:
    """The keywords OUT plus a query class carrying a string and a number a company would not share."""
    capture, translation, plan, findings, options = sample.keywords_parts()
    fp = fingerprint(SECRET_SQL)
    qid = query_id(fp)
    workload = capture.workload
    capture = replace(capture, workload=replace(
        workload, queries=(*workload.queries, QueryClass(qid, fp, SECRET_SQL, kind="select")),
        intervals=(*workload.intervals, IntervalStat(qid, "2024-05-01T09:00:00Z", "2024-05-01T10:00:00Z", 7200, 7200 * 900.0))))
    translation = replace(translation, queries=(*translation.queries, TranslatedQuery(
        qid, fp, SECRET_SQL, SECRET_TARGET, "rewritten", (Note("QY01", "TOP 5 became LIMIT 5 for dbo.keywords"),), "select")))
    replay = sample.keywords_replay(capture)
    replay["error_codes"][0]["samples"].append({"query": qid, "message": f"Data too long for '{SECRET_STRING}'"})
    compare = sample.keywords_compare(capture, translation)
    retried = next(q for q in compare["queries"] if q.get("retried"))  # a server's words quote what they like
    retried["retried"] += f" near '{SERVER_QUOTED}'"
    retried["reconnected"][0]["why"] += f" near '{SERVER_QUOTED}'"
    compare["stopped"] = f"the target was unreachable: Unknown database '{SERVER_QUOTED}'"
    return sample.write_out(root, capture, translation, plan, findings, options, replay, sample.keywords_experiment(),
                            compare)


def _originals(out: Path) -> set[str]:
    doc = sample.read_json(out / "assessment.json")
    names = {doc["source"]["database"], "loadtest", "tidb.example.internal", "examples/keywords/schema.sql",
             "capture/query_store.json", "IX_reviews_entity", "FK_photos_reviews", "idx_keywords_by_display_order",
             "77-123456", "new user", SECRET_STRING, SECRET_NUMBER, SERVER_QUOTED, "nightly", "normal", "keyword rebuild", "office hours"}
    for t in doc["tables"]:
        names |= {t["schema"], t["name"], *(c["name"] for c in t["columns"])}
    names |= {q["id"] for q in doc["queries"]}
    names.discard("dbo")  # SQL Server's default schema is no secret, but it must go too: checked below
    return names | {"dbo"}


_leaks = sample.leaks
_visible = sample.visible_text


@pytest.fixture
def anonymized(tmp_path: Path) -> tuple[Path, set[str]]:
    out = _secret_out(tmp_path / "out")
    originals = _originals(out)
    render_report(out, anonymize=True, into=out)  # as `assess --anonymize` does: every file of OUT, in place
    return out, originals


def test_no_original_name_or_literal_in_any_output_file(anonymized):
    out, originals = anonymized
    assert {"keywords", "e_type", SECRET_NUMBER} <= originals
    files = sorted(p for p in out.rglob("*") if p.is_file())
    assert {p.name for p in files} >= {"assessment.json", "replay.json", "experiment.json", "compare.json", "report.html",
                                       "topology.yaml", "01-tables.sql", "02-indexes.sql", "03-foreign-keys.sql"}
    for path in files:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".html":
            text = _visible(text)
        assert _leaks(text, originals) == [], path.name


def test_pseudonyms_are_stable_and_consistent_across_files(anonymized, tmp_path):
    out, _ = anonymized
    doc = sample.read_json(out / "assessment.json")
    replay = sample.read_json(out / "replay.json")
    assert doc["anonymized"] is True
    assert [t["name"] for t in sorted(doc["tables"], key=lambda t: t["name"])] == ["table_001", "table_002", "table_003", "table_004"]
    ids = {q["id"] for q in doc["queries"]}
    assert all(re.fullmatch(r"q\d{4}", i) for i in ids)
    assert {p["id"] for p in replay["per_query"]} <= ids  # replay rows still find their query class
    keywords = next(t for t in doc["tables"] if t["distribution"]["strategy"] == "key_partition")
    assert keywords["target"] == f"`{keywords['name']}`"
    assert [f["name"] for f in doc["ddl_files"]] == ["01-tables.sql", "02-indexes.sql", "03-foreign-keys.sql"]
    again = _secret_out(tmp_path / "again")
    anonymize_outputs(again)
    for name in ("assessment.json", "replay.json", "ddl/01-tables.sql"):
        assert (again / name).read_text() == (out / name).read_text(), name
    page = (out / "report.html").read_text()
    assert "anonymized: object names and literals replaced" in page
    for t in doc["tables"]:  # the page and the files agree on every pseudonym
        assert f'<code>{t["target"]}</code>' in page and f'{t["schema"]}.{t["name"]}</button>' in page
    for q in doc["queries"]:
        assert f'id="q-{q["id"]}"' in page


def _assert_ddl_parses(out: Path, tidb_parser) -> None:
    for path in sorted((out / "ddl").glob("*.sql")):
        result = tidb_parser.check(path.read_text())
        assert result.ok, f"{path.name}: {result.error}"


@pytest.mark.tidb_parser
def test_anonymized_sql_still_parses_as_tidb(anonymized, tidb_parser):
    out, _ = anonymized
    _assert_ddl_parses(out, tidb_parser)
    doc = sample.read_json(out / "assessment.json")
    for q in doc["queries"]:
        if q["target_sql"]:
            assert tidb_parser.check(q["target_sql"]).ok, q["target_sql"]
    secret = next(q for q in doc["queries"] if "LIMIT 5" in (q["target_sql"] or ""))
    assert "IN (3, 1002)" in secret["target_sql"]  # single digits stay, other numbers get stable stand-ins
    assert re.search(r"= 'str_\d{3}'", secret["target_sql"]) and re.search(r"= N'str_\d{3}'", secret["source_sql"])


def test_sql_keeps_keywords_types_functions_and_tidb_options():
    a = Anonymizer()
    ddl = ("CREATE TABLE `Orders` (`OrderId` BIGINT NOT NULL /*T![auto_rand] AUTO_RANDOM(5) */, `Note` VARCHAR(200) "
           "DEFAULT 'pending', PRIMARY KEY (`OrderId`) /*T![clustered_index] NONCLUSTERED */) "
           "/*T! SHARD_ROW_ID_BITS=4 PRE_SPLIT_REGIONS=4 */ PARTITION BY KEY (`OrderId`) PARTITIONS 12; -- Orders of ACME")
    out = a.sql(ddl, "mysql")
    assert out == ("CREATE TABLE `obj_001` (`obj_002` BIGINT NOT NULL /*T![auto_rand] AUTO_RANDOM(5) */, `obj_003` "
                   "VARCHAR(200) DEFAULT 'str_001', PRIMARY KEY (`obj_002`) /*T![clustered_index] NONCLUSTERED */) "
                   "/*T! SHARD_ROW_ID_BITS=4 PRE_SPLIT_REGIONS=4 */ PARTITION BY KEY (`obj_002`) PARTITIONS 12; -- obj_001 of ACME")
    tsql = a.sql("SELECT TOP 10 DATEADD(day, 1, o.[Created]) FROM dbo.Orders o WITH (NOLOCK) WHERE o.Total > 250 AND o.Who = @customer", "tsql")
    assert tsql == ("SELECT TOP 10 DATEADD(day, 1, obj_004.[obj_005]) FROM obj_006.obj_001 obj_004 WITH (NOLOCK) "
                    "WHERE obj_004.obj_007 > 1001 AND obj_004.obj_008 = @p_001")
    # Not SQL (a line of a string that spans lines): read as words, never raises, and its names go too.
    assert a.sql("SELECT 'unterminated", "tsql") == "SELECT 'obj_009"
    assert a.sql("  DROP CONSTRAINT PK_Orders_Secret;';", "tsql") == "  DROP CONSTRAINT obj_010;';"
    assert a.sql("FETCH NEXT FROM OrderCursor INTO @OrderRef, @Total;", "tsql") == \
        "FETCH NEXT FROM obj_011 INTO @p_002, @obj_007;"  # a command's rest is SQL too (o.Total was obj_007)
    assert a.sql("CREATE OR REPLACE VIEW SecretView AS SELECT 1", "mysql") == "CREATE OR REPLACE VIEW obj_012 AS SELECT 1"
    assert a.sql("CREATE PARTITION FUNCTION PF_Secret(date) AS RANGE RIGHT", "tsql").split()[3] == "obj_013(date)"


def test_free_text_replaces_known_names_quoted_literals_and_paths_but_keeps_links():
    a = Anonymizer()
    a.name("keywords", "table")
    a.name("Order Details", "table")
    a.sql("SELECT 1 FROM [Order Details] WHERE who = 'ACME'", "tsql")
    text = ("Table dbo.keywords and [Order Details] hold 'ACME', not 'TABLE' (see /home/dba/project/schema.sql and "
            "https://docs.pingcap.com/tidb/stable/keywords)")
    assert a.text(text) == ("Table dbo.table_001 and [table_002] hold 'str_001', not 'TABLE' (see file_001.sql and "
                            "https://docs.pingcap.com/tidb/stable/keywords)")


def test_report_anonymize_writes_a_shareable_copy_and_leaves_out_alone(tmp_path):
    out = _secret_out(tmp_path / "out")
    render_report(out)
    originals = _originals(out)
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    result = CliRunner().invoke(app, ["report", str(out), "--anonymize", "--quiet"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"Wrote {out / 'anonymized' / 'report.html'}"
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file() and "anonymized" not in p.parts} == before
    shared = out / "anonymized"
    files = {p.relative_to(shared).as_posix() for p in shared.rglob("*") if p.is_file()}
    assert files == {"report.html", "assessment.json", "replay.json", "experiment.json", "compare.json", "topology.yaml",
                     "ddl/01-tables.sql", "ddl/02-indexes.sql", "ddl/03-foreign-keys.sql"}
    for name in sorted(files):
        text = (shared / name).read_text(encoding="utf-8")
        assert _leaks(_visible(text) if name.endswith(".html") else text, originals) == [], name
    doc = sample.read_json(shared / "assessment.json")
    page = (shared / "report.html").read_text()
    for t in doc["tables"]:  # the shared page and the shared files use the same pseudonyms
        assert f'{t["schema"]}.{t["name"]}</button>' in page
    again = CliRunner().invoke(app, ["report", str(out), "--anonymize", "--quiet"])  # a second run refreshes the copy
    assert again.exit_code == 0 and (shared / "assessment.json").read_text() == json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    shutil.rmtree(shared)
    shared.mkdir()
    (shared / "notes.txt").write_text("mine")  # a folder of the user's own is never written into
    refused = CliRunner().invoke(app, ["report", str(out), "--anonymize", "--quiet"])
    assert refused.exit_code == 2 and "already holds files this tool did not write" in refused.output
    shutil.rmtree(out)


def test_the_tools_own_settings_file_names_figures_and_prose_survive(anonymized):
    out, _ = anonymized
    indexes = (out / "ddl" / "02-indexes.sql").read_text()
    assert "SET GLOBAL tidb_ddl_enable_fast_reorg = ON;\nSET GLOBAL tidb_ddl_reorg_worker_cnt = 8;" in indexes
    doc = sample.read_json(out / "assessment.json")
    original = sample.read_json(_secret_out(out.parent / "plain") / "assessment.json")
    advice, plain = doc["deployment"], original["deployment"]
    assert advice["method"] == plain["method"] and "TiDB's published Sysbench run on 16-vCPU machines" in advice["method"]
    assert advice["topology_yaml"] == plain["topology_yaml"] and "topology.yaml --user root" in advice["topology_yaml"]
    assert [a["value"] for a in advice["assumptions"]] == [a["value"] for a in plain["assumptions"]]
    assert "22,000 QPS per 16 cores" in [a["value"] for a in advice["assumptions"]]
    assert [f["name"] for f in doc["ddl_files"]] == ["01-tables.sql", "02-indexes.sql", "03-foreign-keys.sql"]
    page = _visible((out / "report.html").read_text())
    assert "22,000 QPS per 16 cores" in page and "TiDB's published Sysbench run on 16-vCPU machines" in page
    assert "tidb_ddl_reorg_worker_cnt = 8" in page


def test_window_names_and_descriptions_are_the_users_everywhere(anonymized):
    out, _ = anonymized
    doc = sample.read_json(out / "assessment.json")
    windows = doc["workload"]["windows"]
    assert [(w["name"], w["description"]) for w in windows] == [("window_001", "(withheld)"), ("window_002", "(withheld)")]
    assert doc["workload"]["peak_window"] == "window_001" and doc["deployment"]["peak"]["window"] == "window_001"
    assert all(set(q["qps_by_window"]) == {"window_001", "window_002"} for q in doc["queries"])
    replay = sample.read_json(out / "replay.json")
    assert replay["window"]["name"] == replay["config"]["window"] == "window_001"
    page = (out / "report.html").read_text()
    assert "window_001" in _visible(page) and "(withheld)" in _visible(page)


def test_ddl_settings_and_attributes_keep_their_values():
    a = Anonymizer()
    a.name("keywords", "table")
    a.own_files(["02-tables.sql"])
    a.sql("SELECT * FROM keywords WHERE e_type = 16 AND note = 'TABLE'", "tsql")  # the user has 16 and 'TABLE' too
    ddl = ("/*T! SET SESSION tidb_scatter_region = 'TABLE' */;\n/*T! SET GLOBAL tidb_ddl_reorg_worker_cnt = 16 */;\n"
           "SET @@global.tidb_ddl_enable_fast_reorg = 1;\nALTER TABLE `keywords` ATTRIBUTES 'merge_option=deny';\n"
           "-- Run it right after 02-tables.sql, before the data load; see topology.yaml\n")
    assert a.sql(ddl, "mysql") == ddl.replace("`keywords`", "`table_001`")
    a.name("tidb_flag", "col")  # a column of the user's that only looks like a TiDB variable
    assert a.sql("UPDATE keywords SET tidb_flag = 'TABLE'", "tsql") == "UPDATE table_001 SET col_001 = 'str_001'"


def test_prose_apostrophes_numbers_and_advice_are_not_literals():
    a = Anonymizer()
    a.sql("SELECT 16, 120, 987654321, 'window' FROM t WHERE x = '+00:00x'", "tsql")  # learnt: the user's literals
    prose = ("The busiest window's rate is split; TiDB's published Sysbench run on 16-vCPU machines gives 22,000 QPS per "
             "16 cores, at most 120 MiB; run the connections with time_zone = '+00:00' and ATTRIBUTES 'merge_option=deny'")
    assert a.text(prose) == prose
    assert a.text("value 987654321 in 'window'") == "value 1003 in 'str_001'"  # the user's, even in prose
    server = "Duplicate entry '77-123456' for key 'reviews.PRIMARY' (16)"
    assert a.text(server, strict=True) == "Duplicate entry 'str_003' for key 'str_004' (1001)"


def test_the_leak_search_itself_finds_names_in_text_and_attributes():
    page = ('<html><head><style>.keywords{}</style></head><body><p title="dbo.keywords">x</p>'
            '<svg><path d="keywords"/><text>e_type</text></svg><script>keywords</script></body></html>')
    assert _leaks(_visible(page), {"keywords", "e_type", "photos"}) == ["e_type", "keywords"]
    assert _leaks(_visible("<p>keywordsX and xkeywords</p>"), {"keywords"}) == []


# --- a real project: WideWorldImporters as SSDT (long constraint names, modules with cursors and dynamic SQL)

_NAME_KEYS = {"name", "schema", "column", "table", "referenced_table", "referenced_schema", "constraint"}


def _model_names(source: Path) -> set[str]:
    """Every object name the reader found: tables, columns, keys, indexes, constraints, modules, types."""
    from sqlsrv2tidb.capture.sources import read_sources
    from sqlsrv2tidb.model.serde import to_dict

    names: set[str] = set()

    def walk(value, key=""):
        if isinstance(value, dict):
            for k, v in value.items():
                if k not in ("type", "base_type"):  # SQL Server's type names (`decimal`) are nobody's secret
                    walk(v, k)
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif isinstance(value, str) and key in _NAME_KEYS:
            names.add(value)

    walk(to_dict(read_sources([source]).database))
    return names


def _anonymized_assess(source: Path, out: Path) -> Path:
    result = CliRunner().invoke(app, ["assess", str(source), "-o", str(out), "--anonymize", "-q"])
    assert result.exit_code in (0, 1), result.output
    return out


@pytest.fixture(scope="module")
def wwi_anonymized(tmp_path_factory) -> tuple[Path, set[str]]:
    from paths import CORPUS, EXAMPLES

    work = tmp_path_factory.mktemp("anonymized")
    out = _anonymized_assess(CORPUS / "wwi-oltp-ssdt", work / "wwi")
    # Words a report about another database also shows (`Message`, `Region`, type names) are the tool's.
    other = _anonymized_assess(EXAMPLES / "keywords", work / "keywords")
    tool_words = "\n".join(_visible(p.read_text()) if p.suffix == ".html" else p.read_text()
                           for p in other.rglob("*") if p.is_file())
    names = {n for n in _model_names(CORPUS / "wwi-oltp-ssdt") if len(n) >= 5}
    names = {n for n in names if n.casefold() not in KEEP_WORDS | SQL_KEYWORDS | BUILTIN_CALLS}  # `RowCount`: SQL's
    return out, names - set(_leaks(tool_words, names))


def test_a_real_projects_names_are_gone_from_every_file(wwi_anonymized):
    out, names = wwi_anonymized
    long_names = {n for n in names if len(n) > 64}  # shortened in the DDL: known only from findings and plans
    assert len(names) > 500 and long_names
    assert {"OrderLineList", "PF_TransactionDate", "PK_Purchasing_SupplierTransactions"} <= names  # a cursor's table type, dynamic SQL
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        text = path.read_text(encoding="utf-8")
        assert _leaks(_visible(text) if path.suffix == ".html" else text, names) == [], path.name
        # nor the project's folders (`Stored Procedures/`, with a space, in the kept modules' titles)
        assert not {"wwi-oltp-ssdt", "Stored Procedures", "User Defined Types"} & set(re.findall(r"[\w-]+(?: [A-Z]\w+)*", text))


@pytest.mark.tidb_parser
def test_a_real_projects_anonymized_ddl_still_parses(wwi_anonymized, tidb_parser):
    _assert_ddl_parses(wwi_anonymized[0], tidb_parser)


def test_the_users_comments_keep_only_sql_words():
    """A comment in the user's SQL, or in a kept module's source, may name a customer or an author."""
    a = Anonymizer()
    query = a.sql("SELECT 1 -- written for Contoso by Jane Roe\n/* app=Fabrikam.Web, 'Zed' */", "tsql")
    module = a.sql("--   SET @x = 1; -- fixed by Jane Roe for ticket 4711\n", "mysql")  # as 07-modules-not-migrated.sql holds it
    for text in (query, module):
        assert not {"Contoso", "Jane", "Roe", "Fabrikam", "Web", "Zed", "4711"} & set(re.findall(r"\w+", text)), text
    assert query.startswith("SELECT 1 -- obj_") and " for " in query and "/* obj_" in query and "'str_" in query
    assert module.startswith("--   SET @")
