"""Catalog and Query Store rows of one small database, with the Python types pyodbc returns for them.

Each rowset is keyed by its catalog_sql constant and each row by the column aliases that query
returns (a test checks that against the SQL). Values follow the documented column types
(reference /work/shared/reference/sqlserver-capture.md §1-§2): int/bigint -> int, bit -> bool,
nvarchar -> str, decimal(38,0) -> Decimal, float -> float, datetime2 -> datetime, binary ->
bytes, char(2) codes space-padded, max_length in bytes (nvarchar(n) = 2n, (max) and xml = -1).

The database holds the objects the reference's examples describe: a typed xml column, alias
types, a composite key, a filtered index with INCLUDE, a foreign key with ON DELETE CASCADE, an
IDENTITY whose sql_variant seed is cast to decimal, sequences, a temporal table with its history,
a memory-optimized table with a hash index, a view with an index, a procedure, a DML and a DDL
trigger, a function, an encrypted and a CLR module, synonyms, a partitioned table and a table type.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

CI = "SQL_Latin1_General_CP1_CI_AS"
# (max_length, precision, scale, collated) of system types as sys.columns reports them.
_SYSTEM = {
    "int": (4, 10, 0), "bigint": (8, 19, 0), "smallint": (2, 5, 0), "tinyint": (1, 3, 0), "bit": (1, 1, 0),
    "money": (8, 19, 4), "date": (3, 10, 0), "uniqueidentifier": (16, 0, 0), "xml": (-1, 0, 0),
    "geography": (-1, 0, 0),
}
_OBJECTS = {
    "Customer": 581577110, "Orders": 613577224, "OrderLine": 645577338, "Employee": 677577452,
    "EmployeeHistory": 709577566, "SessionCache": 741577680,
}


def col(oid: int, cid: int, name: str, type_name: str, *, length: int | None = None, precision: int | None = None,
        scale: int | None = None, base: str | None = None, alias_schema: str | None = None, nullable: bool = True,
        **flags: object) -> dict[str, object]:
    """A COLUMNS row. `length` is the declared length (characters for nchar/nvarchar), as in DDL."""
    base_name = base or type_name
    if base_name in ("nvarchar", "nchar"):
        max_length = -1 if length == -1 else 2 * length
    elif base_name in ("varchar", "char", "varbinary", "binary"):
        max_length = length
    elif base_name in ("decimal", "numeric"):
        max_length = 5 if precision <= 9 else 9 if precision <= 19 else 13 if precision <= 28 else 17
    elif base_name == "datetime2":
        max_length, precision = (6 if scale <= 2 else 7 if scale <= 4 else 8), 20 + scale
    else:
        max_length, precision, scale = _SYSTEM[base_name]
    collated = base_name in ("nvarchar", "nchar", "varchar", "char")
    row = {
        "object_id": oid, "column_id": cid, "column_name": name,
        "type_name": type_name, "type_schema": alias_schema or "sys", "is_user_defined": alias_schema is not None,
        "is_assembly_type": type_name in ("geography", "geometry", "hierarchyid"),
        "base_type_name": None if type_name in ("geography", "geometry", "hierarchyid") else base_name,
        "max_length": max_length, "precision": precision or 0, "scale": scale or 0,
        "collation_name": CI if collated else None,
        "is_nullable": nullable, "is_identity": False, "is_computed": False, "is_rowguidcol": False, "is_sparse": False,
        "is_column_set": False, "is_filestream": False, "xml_collection_id": 0, "xml_collection_name": None,
        "xml_collection_schema": None, "default_object_id": 0,
        "generated_always_type": 0, "encryption_type": None, "is_hidden": False, "is_masked": False,
    }
    row.update(flags)
    return row


def index(oid: int, iid: int, name: str | None, code: int, desc: str, *, unique: bool = False, pk: bool = False,
          uq: bool = False, filter_definition: str | None = None, space: tuple[int, str, str] = (1, "PRIMARY", "FG"),
          **flags: object) -> dict[str, object]:
    row = {
        "object_id": oid, "index_id": iid, "index_name": name, "type": code, "type_desc": desc,
        "is_unique": unique, "is_primary_key": pk, "is_unique_constraint": uq, "ignore_dup_key": False,
        "fill_factor": 0, "is_disabled": False, "has_filter": filter_definition is not None,
        "filter_definition": filter_definition, "data_space_id": space[0], "data_space_name": space[1],
        "data_space_type": space[2],
    }
    row.update(flags)
    return row


def index_cols(oid: int, iid: int, *cols: tuple, partition: str | None = None) -> list[dict[str, object]]:
    """(column_id, name, key_ordinal, descending, included) per column, in index_column_id order."""
    return [
        {"object_id": oid, "index_id": iid, "index_column_id": n, "column_id": cid, "column_name": name,
         "key_ordinal": key, "partition_ordinal": 1 if name == partition else 0, "is_descending_key": desc,
         "is_included_column": incl}
        for n, (cid, name, key, desc, incl) in enumerate(cols, start=1)
    ]


def catalog_rows() -> dict[str, list[dict[str, object]]]:
    c, o, ol, e, eh, sc = (_OBJECTS[n] for n in ("Customer", "Orders", "OrderLine", "Employee", "EmployeeHistory",
                                                   "SessionCache"))
    view, proc, trig, func, secret, native, clr = 805577908, 837578022, 869578136, 901578250, 933578364, 965578478, 997578592
    ddl_trigger, ps_orders = 1029578706, 65601
    employee_cols = [
        col(e, 1, "EmployeeID", "int", nullable=False),
        col(e, 2, "Name", "nvarchar", length=50, nullable=False),
        col(e, 3, "Email", "nvarchar", length=100, is_masked=True),
        col(e, 4, "SSN", "char", length=11, encryption_type=1, collation_name="Latin1_General_BIN2"),
        col(e, 5, "ValidFrom", "datetime2", scale=7, nullable=False, generated_always_type=1, is_hidden=True),
        col(e, 6, "ValidTo", "datetime2", scale=7, nullable=False, generated_always_type=2, is_hidden=True),
    ]
    return {
        "SCHEMAS": [{"schema_id": 1, "schema_name": "dbo"}, {"schema_id": 5, "schema_name": "Sales"},
                    {"schema_id": 6, "schema_name": "HR"}, {"schema_id": 7, "schema_name": "Sequences"}],
        "TABLES": [
            {"object_id": oid, "schema_name": schema, "table_name": name, "is_filetable": False,
             "lock_escalation_desc": "TABLE", "is_memory_optimized": name == "SessionCache",
             "durability": 1 if name == "SessionCache" else 0,
             "temporal_type": {"Employee": 2, "EmployeeHistory": 1}.get(name, 0),
             "history_table_id": eh if name == "Employee" else None, "is_external": False, "is_node": False,
             "is_edge": False}
            for name, oid, schema in (("Customer", c, "Sales"), ("Orders", o, "Sales"), ("OrderLine", ol, "Sales"),
                                      ("Employee", e, "HR"), ("EmployeeHistory", eh, "HR"), ("SessionCache", sc, "dbo"))
        ],
        "COLUMNS": [
            col(c, 1, "CustomerID", "int", nullable=False, is_identity=True),
            col(c, 2, "Name", "nvarchar", length=100, nullable=False),
            col(c, 3, "Phone", "Phone", base="nvarchar", length=25, alias_schema="dbo"),
            col(c, 4, "Notes", "nvarchar", length=-1),
            col(c, 5, "rowguid", "uniqueidentifier", nullable=False, is_rowguidcol=True, default_object_id=1061578820),
            col(c, 6, "Balance", "money", nullable=False, default_object_id=1093578934),
            col(c, 7, "IsActive", "Flag", base="bit", alias_schema="dbo", nullable=False),
            col(c, 8, "Photo", "varbinary", length=-1, is_sparse=True),
            col(c, 9, "CreatedAt", "datetime2", scale=3, nullable=False, default_object_id=1125579048),
            col(c, 10, "Code", "char", length=10),
            col(c, 11, "CustomerNumber", "bigint", nullable=False, default_object_id=1157579162),
            col(c, 12, "Location", "geography"),
            col(o, 1, "OrderID", "bigint", nullable=False, is_identity=True),
            col(o, 2, "CustomerID", "int", nullable=False),
            col(o, 3, "OrderDate", "date", nullable=False),
            col(o, 4, "Status", "tinyint", nullable=False, default_object_id=1189579276),
            col(o, 5, "OrderXml", "xml", xml_collection_id=65537, xml_collection_name="OrderSchema",
                xml_collection_schema="Sales"),
            col(o, 6, "Total", "decimal", precision=19, scale=4),
            col(ol, 1, "OrderID", "bigint", nullable=False),
            col(ol, 2, "OrderDate", "date", nullable=False),
            col(ol, 3, "LineNo", "smallint", nullable=False),
            col(ol, 4, "ProductID", "int", nullable=False),
            col(ol, 5, "Quantity", "int", nullable=False),
            col(ol, 6, "UnitPrice", "money", nullable=False),
            col(ol, 7, "LineTotal", "money", is_computed=True),
            col(ol, 8, "IsShipped", "bit", nullable=False, default_object_id=1221579390),
            *employee_cols,
            *[{**r, "object_id": eh, "generated_always_type": 0, "is_hidden": False} for r in employee_cols],
            col(sc, 1, "SessionID", "uniqueidentifier", nullable=False),
            col(sc, 2, "Payload", "varbinary", length=8000),
        ],
        "TYPES": [
            {"user_type_id": 257, "schema_name": "dbo", "type_name": "Phone", "base_type_name": "nvarchar",
             "max_length": 50, "precision": 0, "scale": 0, "is_nullable": True, "is_table_type": False,
             "is_assembly_type": False},
            {"user_type_id": 258, "schema_name": "dbo", "type_name": "Flag", "base_type_name": "bit", "max_length": 1,
             "precision": 1, "scale": 0, "is_nullable": False, "is_table_type": False, "is_assembly_type": False},
            {"user_type_id": 259, "schema_name": "dbo", "type_name": "OrderIdList", "base_type_name": None,
             "max_length": -1, "precision": 0, "scale": 0, "is_nullable": False, "is_table_type": True,
             "is_assembly_type": False},
        ],
        "TABLE_TYPE_COLUMNS": [
            {"table_type_id": 259,
             **{k: v for k, v in col(0, 1, "OrderID", "bigint", nullable=False).items() if k != "object_id"}},
        ],
        # The seed is a sql_variant on the server; the query casts it to decimal(38,0).
        "IDENTITY_COLUMNS": [
            {"object_id": c, "column_id": 1, "seed_value": Decimal("1"), "increment_value": Decimal("1"),
             "last_value": Decimal("20571"), "is_not_for_replication": False,
             "table_seed": Decimal("1"), "table_increment": Decimal("1")},
            {"object_id": o, "column_id": 1, "seed_value": Decimal("1000000000"), "increment_value": Decimal("1"),
             "last_value": None, "is_not_for_replication": True,
             "table_seed": Decimal("1000000000"), "table_increment": Decimal("1")},
        ],
        "COMPUTED_COLUMNS": [
            {"object_id": ol, "column_id": 7, "definition": "([Quantity]*[UnitPrice])", "is_persisted": True},
        ],
        "DEFAULT_CONSTRAINTS": [
            {"constraint_id": 1061578820, "constraint_name": "DF_Customer_rowguid", "parent_object_id": c,
             "parent_column_id": 5, "definition": "(newid())", "is_system_named": False},
            {"constraint_id": 1093578934, "constraint_name": "DF_Customer_Balance", "parent_object_id": c,
             "parent_column_id": 6, "definition": "((0))", "is_system_named": False},
            {"constraint_id": 1125579048, "constraint_name": "DF_Customer_CreatedAt", "parent_object_id": c,
             "parent_column_id": 9, "definition": "(sysutcdatetime())", "is_system_named": False},
            {"constraint_id": 1157579162, "constraint_name": "DF_Customer_CustomerNumber", "parent_object_id": c,
             "parent_column_id": 11, "definition": "(NEXT VALUE FOR [Sequences].[CustomerNumber])",
             "is_system_named": False},
            {"constraint_id": 1189579276, "constraint_name": "DF_Orders_Status", "parent_object_id": o,
             "parent_column_id": 4, "definition": "((1))", "is_system_named": False},
            {"constraint_id": 1221579390, "constraint_name": "DF__OrderLine__IsShi__4BAC3F29", "parent_object_id": ol,
             "parent_column_id": 8, "definition": "((0))", "is_system_named": True},
        ],
        "CHECK_CONSTRAINTS": [
            {"constraint_id": 1253579504, "constraint_name": "CK_Orders_Status", "parent_object_id": o,
             "parent_column_id": 4, "definition": "([Status]<=(5))", "is_disabled": False, "is_not_trusted": False,
             "is_not_for_replication": False, "is_system_named": False},
            {"constraint_id": 1285579618, "constraint_name": "CK_OrderLine_Quantity", "parent_object_id": ol,
             "parent_column_id": 0, "definition": "([Quantity]>(0) AND [UnitPrice]>=(0))", "is_disabled": False,
             "is_not_trusted": True, "is_not_for_replication": False, "is_system_named": False},
        ],
        "KEY_CONSTRAINTS": [
            {"constraint_id": 1317579732, "constraint_name": "PK_Customer", "constraint_type": "PK",
             "parent_object_id": c, "unique_index_id": 1, "is_system_named": False},
            {"constraint_id": 1349579846, "constraint_name": "PK_Orders", "constraint_type": "PK",
             "parent_object_id": o, "unique_index_id": 1, "is_system_named": False},
            {"constraint_id": 1381579960, "constraint_name": "PK_OrderLine", "constraint_type": "PK",
             "parent_object_id": ol, "unique_index_id": 1, "is_system_named": False},
            {"constraint_id": 1413580074, "constraint_name": "PK__Employee__7AD04FF1A1B2C3D4", "constraint_type": "PK",
             "parent_object_id": e, "unique_index_id": 1, "is_system_named": True},
            {"constraint_id": 1445580188, "constraint_name": "UQ_Employee_Email", "constraint_type": "UQ",
             "parent_object_id": e, "unique_index_id": 2, "is_system_named": False},
            {"constraint_id": 1477580302, "constraint_name": "PK_SessionCache", "constraint_type": "PK",
             "parent_object_id": sc, "unique_index_id": 2, "is_system_named": False},
        ],
        "INDEXES": [
            index(c, 1, "PK_Customer", 1, "CLUSTERED", unique=True, pk=True),
            index(o, 1, "PK_Orders", 1, "CLUSTERED", unique=True, pk=True, space=(ps_orders, "psOrderDate", "PS")),
            index(o, 2, "IX_Orders_Customer", 2, "NONCLUSTERED", space=(ps_orders, "psOrderDate", "PS")),
            index(ol, 1, "PK_OrderLine", 1, "CLUSTERED", unique=True, pk=True),
            index(ol, 2, "IX_OrderLine_Open", 2, "NONCLUSTERED", filter_definition="([IsShipped]=(0))"),
            index(ol, 3, "NCCI_OrderLine", 6, "NONCLUSTERED COLUMNSTORE"),
            index(e, 1, "PK__Employee__7AD04FF1A1B2C3D4", 1, "CLUSTERED", unique=True, pk=True),
            index(e, 2, "UQ_Employee_Email", 2, "NONCLUSTERED", unique=True, uq=True),
            index(eh, 1, "ix_EmployeeHistory", 1, "CLUSTERED"),
            index(sc, 2, "PK_SessionCache", 7, "NONCLUSTERED HASH", unique=True, pk=True, space=(0, None, None)),
            index(view, 1, "IX_vOpenOrders", 1, "CLUSTERED", unique=True),
        ],
        "INDEX_COLUMNS": [
            *index_cols(c, 1, (1, "CustomerID", 1, False, False)),
            *index_cols(o, 1, (1, "OrderID", 1, False, False), (3, "OrderDate", 2, False, False), partition="OrderDate"),
            *index_cols(o, 2, (2, "CustomerID", 1, False, False), (3, "OrderDate", 2, True, False)),
            *index_cols(ol, 1, (1, "OrderID", 1, False, False), (2, "OrderDate", 2, False, False),
                        (3, "LineNo", 3, False, False)),
            *index_cols(ol, 2, (4, "ProductID", 1, False, False), (5, "Quantity", 0, False, True)),
            *index_cols(ol, 3, (4, "ProductID", 0, False, True), (5, "Quantity", 0, False, True),
                        (6, "UnitPrice", 0, False, True)),
            *index_cols(e, 1, (1, "EmployeeID", 1, False, False)),
            *index_cols(e, 2, (3, "Email", 1, False, False)),
            *index_cols(eh, 1, (6, "ValidTo", 1, False, False), (5, "ValidFrom", 2, False, False)),
            *index_cols(sc, 2, (1, "SessionID", 1, False, False)),
            *index_cols(view, 1, (1, "OrderID", 1, False, False)),
        ],
        "FOREIGN_KEYS": [
            {"constraint_id": 1509580416, "constraint_name": "FK_Orders_Customer", "parent_object_id": o,
             "referenced_object_id": c, "referenced_schema": "Sales", "referenced_table": "Customer",
             "delete_referential_action": 0, "update_referential_action": 0, "is_disabled": False,
             "is_not_trusted": False, "is_not_for_replication": False, "is_system_named": False,
             "constraint_column_id": 1, "parent_column": "CustomerID", "referenced_column": "CustomerID"},
            *[{"constraint_id": 1541580530, "constraint_name": "FK_OrderLine_Orders", "parent_object_id": ol,
               "referenced_object_id": o, "referenced_schema": "Sales", "referenced_table": "Orders",
               "delete_referential_action": 1, "update_referential_action": 0, "is_disabled": False,
               "is_not_trusted": False, "is_not_for_replication": False, "is_system_named": False,
               "constraint_column_id": n, "parent_column": name, "referenced_column": name}
              for n, name in ((2, "OrderDate"), (1, "OrderID"))],
        ],
        "SEQUENCES": [
            {"object_id": 1573580644, "schema_name": "Sequences", "sequence_name": "CustomerNumber",
             "type_name": "bigint", "base_type_name": "bigint", "precision": 19, "scale": 0,
             "start_value": Decimal("1"), "increment": Decimal("1"),
             "minimum_value": Decimal("-9223372036854775808"), "maximum_value": Decimal("9223372036854775807"),
             "current_value": Decimal("20571"), "is_cycling": False, "is_cached": True, "cache_size": None,
             "is_exhausted": False},
            {"object_id": 1605580758, "schema_name": "Sequences", "sequence_name": "TicketID", "type_name": "int",
             "base_type_name": "int", "precision": 10, "scale": 0, "start_value": Decimal("100"),
             "increment": Decimal("10"), "minimum_value": Decimal("100"), "maximum_value": Decimal("1000000"),
             "current_value": Decimal("100"), "is_cycling": True, "is_cached": False, "cache_size": None,
             "is_exhausted": False},
        ],
        "MODULES": [
            _module(view, "Sales", "vOpenOrders", "V ", "VIEW",
                    "CREATE VIEW Sales.vOpenOrders\nWITH SCHEMABINDING\nAS\nSELECT o.OrderID, o.CustomerID, o.Total\n"
                    "FROM Sales.Orders AS o\nWHERE o.Status < 5;\n", schema_bound=True),
            _module(proc, "Sales", "usp_GetOrder", "P ", "SQL_STORED_PROCEDURE",
                    "CREATE PROCEDURE Sales.usp_GetOrder @OrderID bigint\nAS\nSET NOCOUNT ON;\n"
                    "SELECT OrderID, OrderDate, Total FROM Sales.Orders WHERE OrderID = @OrderID;\n"),
            _module(trig, "Sales", "trg_OrderLine_Audit", "TR", "SQL_TRIGGER",
                    "CREATE TRIGGER Sales.trg_OrderLine_Audit ON Sales.OrderLine AFTER UPDATE\nAS\n"
                    "IF UPDATE(Quantity) PRINT 'changed';\n", parent=(ol, "Sales", "OrderLine")),
            _module(func, "Sales", "ufn_LineTotal", "FN", "SQL_SCALAR_FUNCTION",
                    "CREATE FUNCTION Sales.ufn_LineTotal(@q int, @p money) RETURNS money\nAS\nBEGIN\n"
                    "    RETURN @q * @p;\nEND\n"),
            _module(secret, "dbo", "usp_Payroll", "P ", "SQL_STORED_PROCEDURE", None),
            _module(native, "dbo", "usp_TouchSession", "P ", "SQL_STORED_PROCEDURE",
                    "CREATE PROCEDURE dbo.usp_TouchSession @id uniqueidentifier\nWITH NATIVE_COMPILATION, SCHEMABINDING\n"
                    "AS BEGIN ATOMIC WITH (TRANSACTION ISOLATION LEVEL = SNAPSHOT, LANGUAGE = N'us_english')\n"
                    "    UPDATE dbo.SessionCache SET Payload = NULL WHERE SessionID = @id;\nEND\n",
                    schema_bound=True, native=True),
            {**_module(ddl_trigger, None, "ddl_audit", "TR", "DATABASE_DDL_TRIGGER",
                       "CREATE TRIGGER ddl_audit ON DATABASE FOR CREATE_TABLE, ALTER_TABLE\nAS\n"
                       "PRINT 'DDL captured';\n")},
            {**_module(clr, "dbo", "clr_Split", "FT", "CLR_TABLE_VALUED_FUNCTION", None),
             "uses_ansi_nulls": None, "uses_quoted_identifier": None, "is_schema_bound": None,
             "execute_as_principal_id": None},
        ],
        "SYNONYMS": [
            {"object_id": 1637580872, "schema_name": "dbo", "synonym_name": "Cust", "base_object_name": "[Sales].[Customer]"},
            {"object_id": 1669580986, "schema_name": "dbo", "synonym_name": "RemoteOrders",
             "base_object_name": "[ARCHIVE01].[SalesArchive].[Sales].[Orders]"},
        ],
        "PARTITION_FUNCTIONS": [
            *[{"function_id": 65536, "function_name": "pfOrderDate", "fanout": 3, "boundary_value_on_right": True,
               "parameter_type": "date", "max_length": 3, "precision": 10, "scale": 0, "boundary_id": n,
               "value_base_type": "date", "boundary_value": value}
              for n, value in ((2, "2024-01-01T00:00:00"), (1, "2023-01-01T00:00:00"))],
            *[{"function_id": 65537, "function_name": "pfTicket", "fanout": 3, "boundary_value_on_right": False,
               "parameter_type": "int", "max_length": 4, "precision": 10, "scale": 0, "boundary_id": n,
               "value_base_type": "int", "boundary_value": value} for n, value in ((1, "1000"), (2, "2000"))],
        ],
        "PARTITION_SCHEMES": [
            {"data_space_id": ps_orders, "scheme_name": "psOrderDate", "function_name": "pfOrderDate",
             "destination_id": n, "filegroup_name": fg}
            for n, fg in ((3, "FG2024"), (1, "FG2022"), (2, "FG2023"))
        ],
        "TABLE_PARTITIONING": [
            {"object_id": o, "index_id": 1, "scheme_name": "psOrderDate", "function_name": "pfOrderDate",
             "partition_column_id": 3, "partition_column": "OrderDate"},
        ],
        "FULLTEXT_INDEXES": [
            {"object_id": c, "unique_index_id": 1, "fulltext_catalog_id": 5, "is_enabled": True,
             "change_tracking_state_desc": "AUTO", "column_id": 4, "column_name": "Notes", "language_id": 1033},
        ],
        "PARTITION_STATS": [
            {"object_id": oid, "row_count": rows, "data_used_kb": kb, "total_used_kb": kb + extra,
             "total_reserved_kb": kb + extra + 64, "partition_count": parts}
            for oid, rows, kb, extra, parts in ((c, 20571, 4104, 1200, 1), (o, 1250000, 98304, 40960, 3),
                                                (ol, 5000000, 262144, 90112, 1), (e, 290, 64, 16, 1),
                                                (eh, 0, 0, 0, 1))
        ],
        "TABLE_ROWS": [
            {"object_id": oid, "row_count": rows}
            for oid, rows in ((c, 20571), (o, 1250000), (ol, 5000000), (e, 290), (eh, 0), (sc, 0))
        ],
        **statistics_rows(c),
        "EXTENDED_PROPERTIES": [
            {"object_id": c, "column_id": 0, "property_name": "MS_Description",
             "property_value": "Customers who have placed at least one order."},
            {"object_id": c, "column_id": 2, "property_name": "MS_Description", "property_value": "Legal name."},
        ],
    }


def _module(oid: int, schema: str | None, name: str, code: str, desc: str, definition: str | None, *,
            parent: tuple[int, str, str] | None = None, schema_bound: bool = False, native: bool = False) -> dict:
    return {
        "object_id": oid, "schema_name": schema, "object_name": name, "type": code, "type_desc": desc,
        "parent_object_id": parent[0] if parent else 0, "parent_schema": parent[1] if parent else None,
        "parent_name": parent[2] if parent else None, "definition": definition, "uses_ansi_nulls": True,
        "uses_quoted_identifier": True, "is_schema_bound": schema_bound, "execute_as_principal_id": None,
        "uses_native_compilation": native,
    }


SERVER = {
    "product_version": "16.0.4135.4", "product_level": "RTM", "edition": "Developer Edition (64-bit)",
    "engine_edition": 3, "collation": CI, "server_name": "SQLPROD01", "database": "Sales",
    "database_collation": CI, "is_parameterization_forced": 0, "compatibility_level": 160, "babelfish_version": None,
}

QUERY_STORE_OPTIONS = {
    "actual_state": 2, "actual_state_desc": "READ_WRITE", "desired_state_desc": "READ_WRITE", "readonly_reason": 0,
    "interval_length_minutes": 60, "flush_interval_seconds": 900, "current_storage_size_mb": 120,
    "max_storage_size_mb": 1000, "stale_query_threshold_days": 30, "query_capture_mode_desc": "AUTO",
    "size_based_cleanup_mode_desc": "AUTO", "wait_stats_capture_mode_desc": "ON",
}

ORDERS_BY_CUSTOMER = "(@P1 int)SELECT o.OrderID, o.Total FROM Sales.Orders AS o WHERE o.CustomerID = @P1"
ORDERS_BY_STATUS = "(@1 tinyint)SELECT * FROM [Sales].[Orders] WHERE [Status]=@1"
PROCEDURE_STATEMENT = "SELECT OrderID, OrderDate, Total FROM Sales.Orders WHERE OrderID = @OrderID"
INSERT_LINE = ("(@P1 bigint,@P2 date,@P3 smallint,@P4 int,@P5 int,@P6 money)INSERT INTO Sales.OrderLine "
               "(OrderID, OrderDate, LineNo, ProductID, Quantity, UnitPrice) VALUES (@P1, @P2, @P3, @P4, @P5, @P6)")
OWN_QUERY = "SELECT /* sqlsrv2tidb capture */ s.schema_id, s.name AS schema_name FROM sys.schemas AS s"

# Query Store intervals, as the query returns them: UTC datetime2 (converted from datetimeoffset).
DAY = (datetime(2024, 12, 2, 9, 0), datetime(2024, 12, 2, 10, 0))
NEXT = (datetime(2024, 12, 2, 10, 0), datetime(2024, 12, 2, 11, 0))
NIGHT = (datetime(2024, 12, 3, 1, 0), datetime(2024, 12, 3, 2, 0))


def _query(qid: int, text: str, kind: int, *, context: int = 1, procedure: tuple[int, str, str] | None = None) -> dict:
    return {
        "query_id": qid, "query_text_id": qid + 1000, "query_hash": bytes.fromhex("7D3A0C11E2F40B9A")[:7] + bytes([qid % 256]),
        "object_id": procedure[0] if procedure else 0, "object_schema": procedure[1] if procedure else None,
        "object_name": procedure[2] if procedure else None, "query_parameterization_type": kind,
        "query_parameterization_type_desc": ["None", "User", "Simple", "Forced"][kind], "context_settings_id": context,
        "query_sql_text": text, "has_restricted_text": False, "is_part_of_encrypted_module": False,
    }


def _stat(qid: int, interval: int, window: tuple[datetime, datetime], kind: int, count: int, avg_us: float,
          cpu_us: float, reads: float, rows: float, low: int, high: int) -> dict:
    return {
        "query_id": qid, "runtime_stats_interval_id": interval, "interval_start_utc": window[0],
        "interval_end_utc": window[1], "execution_type": kind, "count_executions": count,
        "avg_duration_us": avg_us, "total_duration_us": avg_us * count, "total_cpu_time_us": cpu_us * count,
        "total_logical_io_reads": reads * count, "total_logical_io_writes": 0.0, "total_rowcount": rows * count,
        "min_duration_us": low, "max_duration_us": high,
        "first_execution_utc": window[0].replace(minute=0, second=3, microsecond=117000),
        "last_execution_utc": window[1].replace(hour=window[1].hour - 1, minute=59, second=58, microsecond=903000),
    }


def _plan(pid: int, qid: int, values: list[tuple[str, str, str]] | None) -> dict:
    plist = None
    if values is not None:
        refs = "".join(f'<ColumnReference Column="{n}" ParameterDataType="{t}" ParameterCompiledValue="{v}" />'
                       for n, t, v in values)
        plist = f"<ParameterList>{refs}</ParameterList>"
    return {"plan_id": pid, "query_id": qid, "plan_group_id": 0, "compatibility_level": 160,
            "is_forced_plan": False, "query_plan_hash": bytes.fromhex("1013D8712B73894E"), "parameter_list": plist}


def query_store_rows() -> dict[str, list[dict[str, object]]]:
    """Two spellings of one parameterized query (two query_ids, as different SET options give), an
    auto-parameterized one, a statement inside a procedure, a parameterized insert, and the
    capture's own query, over a daytime hour, the next hour and a nightly hour."""
    return {
        "QUERY_STORE_QUERIES": [
            _query(101, ORDERS_BY_CUSTOMER, 1),
            _query(102, ORDERS_BY_CUSTOMER, 1, context=3),
            _query(103, ORDERS_BY_STATUS, 2),
            _query(104, PROCEDURE_STATEMENT, 0, procedure=(837578022, "Sales", "usp_GetOrder")),
            _query(105, INSERT_LINE, 1),
            _query(106, OWN_QUERY, 0),
        ],
        "QUERY_STORE_RUNTIME_STATS": [
            _stat(101, 500, DAY, 0, 3000, 850.5, 400.0, 12.0, 3.0, 120, 40211),
            _stat(101, 500, DAY, 3, 12, 30000000.0, 100.0, 2.0, 0.0, 29000000, 31000000),
            _stat(102, 500, DAY, 0, 600, 900.0, 410.0, 12.0, 3.0, 130, 9000),
            _stat(103, 500, DAY, 0, 360, 15000.0, 9000.0, 4100.0, 250.0, 9000, 88000),
            _stat(104, 500, DAY, 0, 7200, 210.0, 95.0, 4.0, 1.0, 80, 5300),
            _stat(104, 500, DAY, 4, 3, 1500.0, 700.0, 4.0, 0.0, 900, 2100),
            _stat(106, 500, DAY, 0, 1, 5000.0, 5000.0, 100.0, 40.0, 5000, 5000),
            _stat(101, 501, NEXT, 0, 1800, 800.0, 390.0, 12.0, 3.0, 118, 20000),
            _stat(104, 501, NEXT, 0, 3600, 205.0, 94.0, 4.0, 1.0, 79, 4100),
            _stat(105, 520, NIGHT, 0, 180000000, 95.0, 40.0, 6.0, 1.0, 30, 120000),
            _stat(105, 520, NIGHT, 4, 250, 400.0, 120.0, 6.0, 0.0, 200, 900),
        ],
        "QUERY_STORE_PLANS": [
            _plan(201, 101, [("@P1", "int", "(54321)")]),
            _plan(202, 102, [("@P1", "int", "(42)")]),
            _plan(203, 103, [("@1", "tinyint", "(3)")]),
            _plan(204, 104, [("@OrderID", "bigint", "(1000000005)")]),
            _plan(205, 105, [("@P1", "bigint", "(1000000001)"), ("@P2", "date", "'2024-12-03'"),
                             ("@P3", "smallint", "(1)"), ("@P4", "int", "(77)"), ("@P5", "int", "(5)"),
                             ("@P6", "money", "(19.9900)")]),
            _plan(206, 105, None),
        ],
    }


def statistics_rows(customer: int) -> dict[str, list[dict[str, object]]]:
    """Statistics of dbo.Customer as sys.dm_db_stats_properties, sys.dm_db_stats_histogram and the density
    vector of DBCC SHOW_STATISTICS return them: the primary key's (FULLSCAN) and two auto-created ones on
    Balance, sampled then again in full (the fuller one wins). RANGE_HI_KEY is already text, as the
    capture casts the sql_variant on the server."""
    def step(n, key, range_rows, eq, distinct):
        return {"object_id": customer, "stats_id": n[0], "step_number": n[1], "range_hi_key": key, "range_rows": range_rows,
                "equal_rows": eq, "distinct_range_rows": distinct,
                "average_range_rows": range_rows / distinct if distinct else 1.0}
    return {
        "STATS_PROPERTIES": [
            {"object_id": customer, "stats_id": 1, "stats_name": "PK_Customer", "column_name": "CustomerID",
             "rows": 20571, "rows_sampled": 20571, "steps": 3, "modification_counter": 12,
             "last_updated": "2024-12-01T03:00:00.123"},
            {"object_id": customer, "stats_id": 2, "stats_name": "_WA_Sys_00000006_22AA2996", "column_name": "Balance",
             "rows": 20571, "rows_sampled": 4000, "steps": 2, "modification_counter": 0,
             "last_updated": "2024-11-01T03:00:00"},
            {"object_id": customer, "stats_id": 3, "stats_name": "ST_Balance_full", "column_name": "Balance",
             "rows": 20571, "rows_sampled": 20571, "steps": 3, "modification_counter": 0,
             "last_updated": "2024-11-02T03:00:00"},
        ],
        "STATS_HISTOGRAM": [
            step((1, 1), "1", 0.0, 1.0, 0.0), step((1, 2), "10000", 9998.0, 1.0, 9998.0),
            step((1, 3), "20571", 10570.0, 1.0, 10570.0),
            step((2, 1), "0.0000", 0.0, 800.0, 0.0), step((2, 2), "500.0000", 3000.0, 200.0, 40.0),
            step((3, 1), None, 0.0, 71.0, 0.0), step((3, 2), "0.0000", 0.0, 4100.0, 0.0),
            step((3, 3), "9999.9900", 15400.0, 1000.0, 812.0),
        ],
        "STATS_DENSITY": [
            {"object_id": customer, "stats_id": 1, "all_density": 1 / 20571, "average_length": 4.0},
            {"object_id": customer, "stats_id": 3, "all_density": 1 / 814, "average_length": 8.0},
        ],
    }
