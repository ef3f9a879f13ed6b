"""AdventureWorks in the SQL Server endpoint, filled with rows the tests generate (its data is not in the corpus).

The corpus script (instawdb.sql) as sqlsrv2tidb reads it, created and filled by the generated-corpus
loader (corpus_rows.py): tables with their keys, rows from the data stage's generator working from types
and CHECK constraints alone, as it does for a capture without statistics (a few hundred to 1,500 rows per
table), foreign keys added once the rows are in. Left out: computed columns, left to the target as the
copy leaves them. The endpoint has no hierarchyid or geography: those columns are varbinary here.
"""

from __future__ import annotations

from corpus_rows import GeneratedCorpus, create_generated
from paths import CORPUS

ADVENTUREWORKS = GeneratedCorpus(
    name="adventureworks",
    source=CORPUS / "adventureworks-oltp" / "instawdb.sql",
    database="data_adventureworks",
    rows={"SalesOrderDetail": 1500, "SalesOrderHeader": 400, "Person": 300, "BusinessEntity": 400,
          "BusinessEntityAddress": 300, "Address": 300, "EmailAddress": 300, "Password": 300, "PersonPhone": 300,
          "Customer": 250, "Product": 150, "TransactionHistory": 500, "WorkOrder": 300, "WorkOrderRouting": 300,
          "SpecialOfferProduct": 150, "ProductInventory": 200, "PurchaseOrderDetail": 400, "PurchaseOrderHeader": 150},
    default_rows=40,
    seed=11,
)


def create_adventureworks(mssql, database: str = ADVENTUREWORKS.database) -> str:
    return create_generated(mssql, ADVENTUREWORKS, database).database
