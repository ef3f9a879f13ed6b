"""Catalog rows, shaped as SQL Server returns them, map to the schema model; live and FOR JSON forms agree."""

from __future__ import annotations

import base64
import json
import sys
from dataclasses import replace
from datetime import datetime
from decimal import Decimal
from pathlib import Path

import pytest
import sqlglot

from sqlsrv2tidb.capture import catalog_sql
from sqlsrv2tidb.capture.catalog import CATALOG_FORMAT, EXPECTED_ROWSETS, read_catalog
from sqlsrv2tidb.capture.live import RowsetError, collect, row_to_json
from sqlsrv2tidb.capture.statistics_sql import BATCHES as STATISTICS
from sqlsrv2tidb.capture.statistics_sql import standalone
from sqlsrv2tidb.model import MAX, DataType, IndexColumn, Temporal

sys.path.insert(0, str(Path(__file__).parent / "data"))
import sqlserver_rows as fx  # noqa: E402

PATH = Path("catalog.json")


def all_rows() -> dict[str, list[dict]]:
    return {**fx.catalog_rows(), **fx.query_store_rows()}


def live_document(rows: dict[str, list[dict]] | None = None, fail: set[str] = frozenset(), days: float = 7.0) -> dict:
    """The document live.collect() builds when the server returns these rows (through row_to_json)."""
    rows = all_rows() if rows is None else rows
    by_sql = {q.sql(16, days=days): q.name for q in catalog_sql.ALL_QUERIES}
    statistics = {standalone(name): name for name in STATISTICS}  # batches that return their rows as JSON
    served = {"SERVER_PROPERTIES": [fx.SERVER], "QUERY_STORE_OPTIONS": [fx.QUERY_STORE_OPTIONS], **rows}

    def fetch(sql: str) -> list[dict]:
        name = by_sql.get(sql) or statistics[sql]
        if name in fail:
            raise RowsetError(f"[42000] The SELECT permission was denied on {name}")
        if sql in statistics:
            return [{"rowset_json": json.dumps(for_json_rows(served.get(name, [])))}]
        return [row_to_json(list(r), list(r.values())) for r in served.get(name, [])]

    return collect(fetch, "sqlprod01.corp.example,1433", query_store=True, days=days)


def for_json_value(value):
    """A value as FOR JSON PATH writes it: bit true/false, datetime2 with 7 digits, binary as base64."""
    if isinstance(value, datetime):
        text = value.strftime("%Y-%m-%dT%H:%M:%S")
        return text + (f".{value.microsecond:06d}0" if value.microsecond else "")
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    return value


def for_json_rows(rows: list[dict]) -> list[dict]:
    # NULLs left out, as FOR JSON does without INCLUDE_NULL_VALUES (the harder case for the reader).
    return [{k: for_json_value(v) for k, v in r.items() if v is not None} for r in rows]


def script_document(rows: dict[str, list[dict]] | None = None) -> dict:
    """The document the capture-script's last batch returns for the same rows, parsed back from its text."""
    rows = all_rows() if rows is None else rows
    server = for_json_rows([fx.SERVER])[0]
    text = (f'{{"format":"{CATALOG_FORMAT}","generator":"capture-script","tool_version":"0.1.0","days":7,'
            f'"captured_at":"2024-12-04T08:00:00.1234567Z","server":{json.dumps(server, separators=(",", ":"))},'
            f'"query_store":{json.dumps(for_json_rows([fx.QUERY_STORE_OPTIONS])[0], separators=(",", ":"))},'
            '"rowsets":{' + ",".join(f'"{k}":{json.dumps(for_json_rows(v), separators=(",", ":"))}' for k, v in rows.items())
            + '},"errors":{}}')
    return json.loads(text)


def test_fixture_rows_have_exactly_the_columns_the_queries_return():
    served = {"SERVER_PROPERTIES": [fx.SERVER], "QUERY_STORE_OPTIONS": [fx.QUERY_STORE_OPTIONS], **all_rows()}
    for query in catalog_sql.ALL_QUERIES:
        names = sqlglot.parse_one(query.sql(16), read="tsql").named_selects
        assert served[query.name], query.name
        for row in served[query.name]:
            assert list(row) == names, query.name


def test_live_and_capture_script_documents_map_to_the_same_capture():
    live = read_catalog(live_document(), PATH)
    offline = read_catalog(script_document(), PATH)
    assert live.database.tables and live.workload.queries
    # Only `instance` differs: the live capture names the host it connected to, the script the
    # server's own name (see test_server_info_names_the_instance_without_credentials).
    same = replace(offline, server=replace(offline.server, instance=live.server.instance))
    assert replace(live, sources=()) == replace(same, sources=())


def test_tables_columns_and_types():
    db = read_catalog(live_document(), PATH).database
    assert db.name == "Sales" and db.compatibility_level == 160 and db.collation == fx.CI
    assert db.schemas == ("dbo", "HR", "Sales", "Sequences")
    customer = db.table("Sales", "Customer")
    assert customer.description == "Customers who have placed at least one order."
    name, phone, notes = customer.column("Name"), customer.column("Phone"), customer.column("Notes")
    assert name.type == DataType("nvarchar", 100) and name.description == "Legal name." and not name.nullable
    assert phone.type == DataType("nvarchar", 25, alias="dbo.Phone")  # alias type, max_length 50 bytes
    assert notes.type.length == MAX
    assert customer.column("IsActive").type == DataType("bit", alias="dbo.Flag")
    assert customer.column("Photo").type == DataType("varbinary", MAX) and customer.column("Photo").sparse
    assert customer.column("CreatedAt").type == DataType("datetime2", scale=3)
    assert customer.column("Code").type == DataType("char", 10)
    assert customer.column("Location").type == DataType("geography")
    assert customer.column("rowguid").rowguidcol and customer.column("rowguid").default == "(newid())"
    assert customer.column("CustomerNumber").default == "(NEXT VALUE FOR [Sequences].[CustomerNumber])"
    assert customer.column("Balance").default_name == "DF_Customer_Balance"
    assert customer.column("CustomerID").identity.seed == 1
    assert customer.row_count == 20571 and customer.size_bytes == (4104 + 1200) * 1024
    fulltext = [i for i in customer.indexes if i.kind == "fulltext"]
    assert fulltext and fulltext[0].columns == (IndexColumn("Notes"),)

    orders = db.table("Sales", "Orders")
    order_id = orders.column("OrderID")
    assert order_id.identity.seed == 1_000_000_000 and order_id.identity.not_for_replication
    assert orders.column("OrderXml").type == DataType("xml", xml_schema="Sales.OrderSchema")
    assert orders.column("Total").type == DataType("decimal", precision=19, scale=4)
    assert orders.partitioning.scheme == "psOrderDate" and orders.partitioning.column == "OrderDate"
    assert orders.checks[0].column == "Status" and orders.checks[0].expression == "([Status]<=(5))"
    ix = next(i for i in orders.indexes if i.name == "IX_Orders_Customer")
    assert ix.columns == (IndexColumn("CustomerID"), IndexColumn("OrderDate", descending=True)) and not ix.clustered


def test_keys_indexes_and_foreign_keys():
    db = read_catalog(live_document(), PATH).database
    line = db.table("Sales", "OrderLine")
    assert line.primary_key.name == "PK_OrderLine" and line.primary_key.clustered
    assert line.primary_key.column_names == ("OrderID", "OrderDate", "LineNo")
    fk = line.foreign_keys[0]
    assert (fk.columns, fk.ref_schema, fk.ref_table, fk.ref_columns, fk.on_delete, fk.on_update) == (
        ("OrderID", "OrderDate"), "Sales", "Orders", ("OrderID", "OrderDate"), "cascade", "no_action")
    open_ix = next(i for i in line.indexes if i.name == "IX_OrderLine_Open")
    assert open_ix.columns == (IndexColumn("ProductID"),) and open_ix.include == ("Quantity",)
    assert open_ix.filter == "([IsShipped]=(0))"
    ncci = next(i for i in line.indexes if i.name == "NCCI_OrderLine")
    assert ncci.kind == "columnstore" and [c.name for c in ncci.columns] == ["ProductID", "Quantity", "UnitPrice"]
    assert line.column("LineTotal").computed.expression == "([Quantity]*[UnitPrice])"
    assert line.column("LineTotal").computed.persisted
    shipped = line.column("IsShipped")
    assert shipped.default == "((0))" and shipped.default_name is None  # system-named: DF__OrderLine__IsShi__...
    check = line.checks[0]
    assert check.column is None and check.not_trusted

    employee = db.table("HR", "Employee")
    assert employee.primary_key.name is None and employee.primary_key.column_names == ("EmployeeID",)
    assert [k.column_names for k in employee.unique_keys] == [("Email",)]
    assert not any(i.name == "UQ_Employee_Email" for i in employee.indexes)  # it is the key, not an extra index


def test_temporal_memory_optimized_and_history():
    db = read_catalog(live_document(), PATH).database
    employee = db.table("HR", "Employee")
    assert employee.temporal == Temporal("ValidFrom", "ValidTo", "HR", "EmployeeHistory")
    assert employee.column("ValidFrom").generated_always == "row_start" and employee.column("ValidTo").hidden
    assert employee.column("Email").masked and employee.column("SSN").encrypted
    assert employee.column("SSN").collation == "Latin1_General_BIN2"
    history = db.table("HR", "EmployeeHistory")
    assert history.is_history_table and history.temporal is None and history.row_count == 0
    cache = db.table("dbo", "SessionCache")
    assert cache.memory_optimized and cache.durability == "schema_only"
    assert cache.primary_key.column_names == ("SessionID",) and not cache.primary_key.clustered
    assert cache.row_count is None  # memory-optimized tables are not in dm_db_partition_stats


def test_sequences_types_and_partitions():
    db = read_catalog(live_document(), PATH).database
    number, ticket = db.sequence("Sequences", "CustomerNumber"), db.sequence("Sequences", "TicketID")
    assert number.type == DataType("bigint") and number.cached and number.cache_size is None
    assert number.maximum == 9223372036854775807
    assert (ticket.start, ticket.increment, ticket.minimum, ticket.cycle, ticket.cached) == (100, 10, 100, True, False)
    types = {u.name: u for u in db.user_types}
    assert types["Phone"].base == DataType("nvarchar", 25) and types["Phone"].nullable
    assert types["Flag"].base == DataType("bit") and not types["Flag"].nullable
    table_type = types["OrderIdList"]
    assert table_type.is_table_type and [c.name for c in table_type.columns] == ["OrderID"]
    functions = {f.name: f for f in db.partition_functions}
    assert functions["pfOrderDate"].type == DataType("date") and functions["pfOrderDate"].range_right
    assert functions["pfOrderDate"].boundaries == ("'2023-01-01T00:00:00'", "'2024-01-01T00:00:00'")
    assert functions["pfTicket"].boundaries == ("1000", "2000") and not functions["pfTicket"].range_right
    scheme = db.partition_schemes[0]
    assert (scheme.name, scheme.function, scheme.filegroups) == ("psOrderDate", "pfOrderDate", ("FG2022", "FG2023", "FG2024"))


def test_modules_synonyms_and_encrypted_code():
    capture = read_catalog(live_document(), PATH)
    modules = {m.name: m for m in capture.database.modules}
    view = modules["vOpenOrders"]
    assert view.kind == "view" and view.is_schema_bound and view.definition.startswith("CREATE VIEW")
    assert view.definition.count("\n") == 6 and view.source.file is None and view.source.line is None
    assert view.indexes[0].name == "IX_vOpenOrders" and view.indexes[0].unique and view.indexes[0].clustered
    assert modules["usp_GetOrder"].kind == "procedure"
    trigger = modules["trg_OrderLine_Audit"]
    assert trigger.kind == "trigger" and trigger.parent == "Sales.OrderLine"
    assert modules["ddl_audit"].kind == "ddl_trigger" and modules["ddl_audit"].schema is None
    assert modules["ufn_LineTotal"].function_kind == "scalar"
    assert modules["usp_TouchSession"].native_compilation
    assert modules["clr_Split"].is_clr and modules["clr_Split"].function_kind == "table"
    assert modules["usp_Payroll"].definition is None
    cust = modules["Cust"]
    assert cust.kind == "synonym" and cust.base_object == "[Sales].[Customer]"
    assert cust.definition == "CREATE SYNONYM [dbo].[Cust] FOR [Sales].[Customer]"
    encrypted = [f for f in capture.findings if f.rule == "IN23"]
    assert [f.object for f in encrypted] == ["dbo.usp_Payroll"]  # the CLR function has no SQL text by nature
    assert {f.rule for f in capture.findings} == {"IN23"}


def test_server_info_names_the_instance_without_credentials():
    server = read_catalog(live_document(), PATH).server
    assert server.product_version == "16.0.4135.4" and server.engine_edition == 3
    assert server.instance == "sqlprod01.corp.example,1433/Sales"
    offline = read_catalog(script_document(), PATH).server
    assert offline.instance == "SQLPROD01/Sales"  # the script only knows the server's own name


def test_a_rowset_the_login_could_not_read_is_a_finding_and_the_rest_is_kept():
    doc = live_document(fail={"CHECK_CONSTRAINTS"})
    assert "CHECK_CONSTRAINTS" in doc["errors"] and "CHECK_CONSTRAINTS" not in doc["rowsets"]
    capture = read_catalog(doc, PATH)
    lost = [f for f in capture.findings if f.rule == "IN22"]
    assert len(lost) == 1 and "permission" in lost[0].message and lost[0].object == "CHECK_CONSTRAINTS"
    assert capture.database.table("Sales", "Orders").checks == ()
    assert len(capture.database.tables) == 6


def test_missing_core_rowsets_and_malformed_rows_are_findings():
    rows = all_rows()
    rows["TABLES"].append({"object_id": None, "table_name": "Broken"})
    rows["INDEXES"].append(fx.index(581577110, 9, "IX_Vector", 8, "VECTOR"))
    rows["INDEX_COLUMNS"].append({"object_id": 581577110, "index_id": 9, "index_column_id": 1, "column_id": 4,
                                  "column_name": "Notes", "key_ordinal": 0, "partition_ordinal": 0,
                                  "is_descending_key": False, "is_included_column": False})
    doc = live_document(rows)
    del doc["rowsets"]["COLUMNS"]
    capture = read_catalog(doc, PATH)
    rules = sorted(f.rule for f in capture.findings)
    assert "IN26" in rules and "IN25" in rules and "IN24" in rules
    unknown = next(f for f in capture.findings if f.rule == "IN24")
    assert "8" in unknown.message and "VECTOR" in unknown.message
    assert capture.database.table("Sales", "Customer").columns == ()


def test_every_expected_rowset_has_a_query_and_fixture_rows():
    assert set(EXPECTED_ROWSETS) == {q.name for q in (*catalog_sql.SCHEMA_QUERIES, *catalog_sql.QUERY_STORE_ROWSETS)} \
        | set(STATISTICS)
    assert set(EXPECTED_ROWSETS) <= set(all_rows())


@pytest.mark.parametrize("major", [11, 12, 13, 14, 16])
def test_every_version_keeps_the_same_row_shape(major):
    for query in catalog_sql.ALL_QUERIES:
        assert sqlglot.parse_one(query.sql(major), read="tsql").named_selects == \
            sqlglot.parse_one(query.sql(16), read="tsql").named_selects, query.name
    assert "t.is_node" not in catalog_sql.TABLES.sql(13) and "t.is_node" in catalog_sql.TABLES.sql(14)
    assert ("t.temporal_type" in catalog_sql.TABLES.sql(major)) == (major >= 13)


@pytest.mark.parametrize("bad", [None, "garbage", []])
def test_a_damaged_field_never_stops_the_reader(bad):
    """Every field of the first row of every rowset, damaged in turn: findings at most, never a crash."""
    base = live_document()
    for name, rows in base["rowsets"].items():
        if not rows:
            continue
        for field in rows[0]:
            doc = {**base, "rowsets": {**base["rowsets"], name: [{**rows[0], field: bad}, *rows[1:]]}}
            capture = read_catalog(doc, PATH)
            assert capture.database.name == "Sales", (name, field)


def test_a_document_of_the_wrong_shape_is_one_clear_error():
    from sqlsrv2tidb.errors import InputError

    base = live_document()
    for broken in ({**base, "rowsets": []}, {**base, "rowsets": {**base["rowsets"], "TABLES": {"a": 1}}},
                   {**base, "format": "sqlsrv2tidb.catalog/9"}):
        with pytest.raises(InputError) as err:
            read_catalog(broken, PATH)
        assert str(err.value).startswith("catalog.json: ")


def test_without_view_database_state_row_counts_come_from_sys_partitions():
    capture = read_catalog(live_document(fail={"PARTITION_STATS"}), PATH)
    orders = capture.database.table("Sales", "Orders")
    assert orders.row_count == 1_250_000 and orders.size_bytes is None
    assert [f.object for f in capture.findings if f.rule == "IN22"] == ["PARTITION_STATS"]


def test_sysname_and_a_zero_identity_seed():
    rows = all_rows()
    rows["COLUMNS"].append(fx.col(581577110, 13, "CreatedBy", "sysname", base="nvarchar", length=128))
    rows["IDENTITY_COLUMNS"][0] = {**rows["IDENTITY_COLUMNS"][0], "seed_value": Decimal("0")}
    customer = read_catalog(live_document(rows), PATH).database.table("Sales", "Customer")
    # sysname is SQL Server's own alias of nvarchar(128): is_user_defined = 0, base type nvarchar.
    assert customer.column("CreatedBy").type == DataType("nvarchar", 128, alias="sys.sysname")  # as scripts read it
    assert customer.column("CustomerID").identity.seed == 0


def test_without_query_store_the_capture_reads_no_workload():
    by_sql = {q.sql(16): q.name for q in catalog_sql.ALL_QUERIES}
    asked = []

    def fetch(sql: str) -> list[dict]:
        asked.append(by_sql.get(sql, "statistics"))
        return [fx.SERVER] if asked[-1] == "SERVER_PROPERTIES" else []

    doc = collect(fetch, "db1", query_store=False, days=7)
    assert not any(name.startswith("QUERY_STORE") for name in asked) and doc["query_store"] is None
    capture = read_catalog(doc, PATH)
    assert capture.workload.is_empty and capture.workload.notes == ("Query Store was not read (capture --no-query-store)",)
    assert capture.findings == ()


def _babelfish_keys(rows: dict[str, list[dict]]) -> dict[str, list[dict]]:
    """The key constraints as Babelfish reports them: unique_index_id is not the index's index_id."""
    return {**rows, "KEY_CONSTRAINTS": [{**k, "unique_index_id": 24000 + i}
                                        for i, k in enumerate(rows["KEY_CONSTRAINTS"])]}


def test_key_columns_come_from_the_index_the_constraint_names_or_its_flag_and_name():
    same = read_catalog(live_document(), PATH).database
    babelfish = read_catalog(live_document(_babelfish_keys(all_rows())), PATH)
    for table in same.tables:
        other = babelfish.database.table(table.schema, table.name)
        assert (other.primary_key, other.unique_keys) == (table.primary_key, table.unique_keys), table.name
    assert babelfish.database.table("HR", "Employee").unique_keys[0].column_names == ("Email",)
    assert not [f for f in babelfish.findings if f.rule == "IN30"]


def test_a_key_whose_columns_cannot_be_resolved_is_a_finding_never_an_empty_key():
    from sqlsrv2tidb import api
    from sqlsrv2tidb.options import Options

    rows = _babelfish_keys(all_rows())
    # No index of Sales.Orders carries the primary-key flag: the constraint's columns are unknowable.
    rows["INDEXES"] = [{**i, "is_primary_key": False} if i["object_id"] == 613577224 else i for i in rows["INDEXES"]]
    capture = read_catalog(live_document(rows), PATH)
    orders = capture.database.table("Sales", "Orders")
    assert orders.primary_key is None
    unresolved = [f for f in capture.findings if f.rule == "IN30"]
    assert [(f.object, f.severity.value) for f in unresolved] == [("Sales.Orders", "high")]
    assert "PK_Orders" in unresolved[0].message and "unique_index_id 24001" in unresolved[0].message
    plan = api.plan(capture, Options())
    ddl = next(t.ddl for t in plan.tables if t.name == "Orders")
    assert "PRIMARY KEY ()" not in ddl and "PRIMARY KEY" not in ddl


def test_the_planner_never_writes_a_key_without_columns():
    from sqlsrv2tidb import api
    from sqlsrv2tidb.model import Key
    from sqlsrv2tidb.options import Options

    capture = read_catalog(live_document(), PATH)
    db = capture.database
    broken = replace(db, tables=tuple(replace(t, primary_key=Key("PK_Orders", ())) if t.name == "Orders" else t
                                      for t in db.tables))
    plan = api.plan(replace(capture, database=broken), Options())
    assert "PRIMARY KEY ()" not in next(t.ddl for t in plan.tables if t.name == "Orders")
    assert [f.object for f in plan.findings if f.rule == "IN30"] == ["Sales.Orders"]


def test_a_null_identity_seed_is_taken_from_ident_seed():
    rows = all_rows()
    # Babelfish leaves seed_value/increment_value NULL for tables outside dbo; IDENT_SEED/INCR answer.
    rows["IDENTITY_COLUMNS"][1] = {**rows["IDENTITY_COLUMNS"][1], "seed_value": None, "increment_value": None,
                                   "table_increment": Decimal("5")}
    order_id = read_catalog(live_document(rows), PATH).database.table("Sales", "Orders").column("OrderID")
    assert (order_id.identity.seed, order_id.identity.increment) == (1_000_000_000, 5)


def test_a_server_without_query_store_says_so_in_one_line_and_one_finding():
    from sqlsrv2tidb.capture.live import capture_notes

    babelfish = {**fx.SERVER, "product_version": "12.0.2000.8", "babelfish_version": "4.3.0"}
    from sqlsrv2tidb.capture.statistics_sql import BATCHES, standalone

    by_sql = {q.sql(12): q.name for q in catalog_sql.ALL_QUERIES} | {standalone(name): name for name in BATCHES}
    asked = []

    def fetch(sql: str) -> list[dict]:
        asked.append(by_sql[sql])
        if by_sql[sql] == "PARTITION_STATS":
            raise RowsetError('[42000] relation "sys.dm_db_partition_stats" does not exist')
        if by_sql[sql] in BATCHES:  # Babelfish has FOR JSON but no statistics views: it is asked, and says so
            raise RowsetError('[42000] relation "sys.stats_columns" does not exist')
        return [babelfish] if by_sql[sql] == "SERVER_PROPERTIES" else all_rows().get(by_sql[sql], [])

    doc = collect(fetch, "db1", query_store=True, days=7)
    assert not any(name.startswith("QUERY_STORE") for name in asked)
    assert doc["errors"]["QUERY_STORE_OPTIONS"] == "Babelfish 4.3.0 has no Query Store"
    assert capture_notes(doc) == [
        "No workload captured: Babelfish 4.3.0 has no Query Store; the schema was captured. Give the workload as an "
        "Extended Events XML export, a Query Store export or a workload spec.",
        'Table sizes not read ([42000] relation "sys.dm_db_partition_stats" does not exist); row counts come from '
        "sys.partitions.",
        'Column statistics not read ([42000] relation "sys.stats_columns" does not exist); `data synthesize` will take '
        "every column's values from its type."]
    capture = read_catalog(doc, PATH)
    about_the_server = sorted((f.rule, f.severity.value) for f in capture.findings
                              if f.rule in ("IN21", "IN22", "IN31", "IN49"))
    assert about_the_server == [("IN22", "low"), ("IN31", "medium"), ("IN49", "info")]
    assert capture.workload.is_empty and capture.database.table("Sales", "Orders").row_count == 1_250_000


def test_babelfish_sysname_and_an_index_over_an_expression():
    rows = all_rows()
    # Babelfish: sysname is its own base type, 256 bytes; a full-text index is an index on an expression.
    rows["COLUMNS"].append({**fx.col(581577110, 13, "CreatedBy", "sysname", base="nvarchar", length=128),
                            "base_type_name": "sysname", "max_length": 256})
    rows["INDEXES"].append(fx.index(581577110, 9, "ft_indexcustomer", 2, "NONCLUSTERED"))
    rows["INDEX_COLUMNS"].append({"object_id": 581577110, "index_id": 9, "index_column_id": 1, "column_id": 0,
                                  "column_name": None, "key_ordinal": 1, "partition_ordinal": 0,
                                  "is_descending_key": False, "is_included_column": False})
    capture = read_catalog(live_document(rows), PATH)
    customer = capture.database.table("Sales", "Customer")
    assert customer.column("CreatedBy").type == DataType("nvarchar", 128, alias="sys.sysname")
    assert [i.kind for i in customer.indexes] == ["fulltext"]  # from sys.fulltext_indexes, as before
    left_out = [f for f in capture.findings if f.rule == "IN25"]
    assert [f.object for f in left_out] == ["Sales.Customer.ft_indexcustomer"] and "expression" in left_out[0].message


def test_statistics_map_to_each_column_from_the_fullest_statistics_object():
    for doc in (live_document(), script_document()):
        customer = read_catalog(doc, PATH).database.table("Sales", "Customer")
        stats = customer.statistics
        assert stats.rows == 20571 and [c.column for c in stats.columns] == ["Balance", "CustomerID"]
        key = stats.column("CustomerID")
        assert [s.range_hi_key for s in key.histogram] == ["1", "10000", "20571"]
        assert key.distinct == 20571 and key.null_fraction == 0 and key.min == "1" and key.max == "20571"
        assert key.rows_sampled == 20571 and key.avg_width == 4.0
        balance = stats.column("balance")
        assert balance.stats_name == "ST_Balance_full"  # full scan over the sampled auto-created one
        assert balance.null_fraction == 71 / 20571 and balance.distinct == 2 + 812 and balance.avg_width == 8.0


def test_statistics_the_server_refuses_are_one_line_and_the_capture_goes_on():
    capture = read_catalog(live_document(fail={"STATS_PROPERTIES", "STATS_HISTOGRAM", "STATS_DENSITY"}), PATH)
    said = [f for f in capture.findings if f.rule == "IN49"]
    assert len(said) == 1 and "permission was denied" in said[0].message and "\n" not in said[0].message
    assert capture.database.table("Sales", "Customer").statistics is None
    assert not [f for f in capture.findings if f.rule == "IN22"]
