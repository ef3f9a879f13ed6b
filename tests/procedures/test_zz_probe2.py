from pathlib import Path
from procedure_helpers import OnTarget, read_script, sets, errors

SCRIPT = Path("/tmp/probe2/schema.sql").read_text()

def test_probe(tidb, tmp_path):
    capture = read_script(SCRIPT, tmp_path, "schema.sql")
    database = tidb.create_database("t_probe2")
    here = OnTarget(tidb, database, capture)
    calls = [("dbo.UpsertProduct", ("A1", "Apple", 2.5), {"ProductID": None}), ("dbo.UpsertProduct", ("A1", "Apple2", 3.0), {"ProductID": None}),
             ("dbo.UpsertProduct", ("B2", "Bean", 1.25), {"ProductID": None}),
             ("dbo.ReceiveStock", (), {"Items": [("A1", 4), ("C3", 7)]}),
             ("dbo.PriceList", (), {}), ("dbo.PriceList", (2, 2, "price"), {}),
             ("dbo.SafeDelete", (-1,), {}), ("dbo.SafeDelete", (999,), {}), ("dbo.SafeDelete", (2,), {}),
             ("dbo.NewBatch", (), {"BatchID": None}), ("dbo.Restock", (), {}), ("dbo.ProductJson", (1,), {}),
             ("dbo.ImportJson", ('[{"sku":"J1","name":"Jam","price":4.5},{"sku":"A1","name":"dup","price":1}]',), {}),
             ("dbo.TranCheck", (), {})]
    for name, pos, named in calls:
        summary = here.procedures.summary(name)
        print("\n==", name, "runs" if summary.runs else f"STOPS: {summary.stops()}")
        if not summary.runs:
            continue
        try:
            r = here.call(name, *pos, **named)
            print("   sets:", sets(r)[:3], "errors:", errors(r), "out:", r.output, "rs:", r.return_status, "notes:", r.notes[:2])
        except Exception as exc:
            print("   EXC", type(exc).__name__, str(exc)[:400])
    print(here.rows("SELECT ProductID, Sku, Name, Price, Stock FROM Product ORDER BY ProductID"))
    print(here.rows("SELECT Action, ProductID FROM AuditLog ORDER BY AuditID"))
    print(here.rows("SELECT Number, Message, Proc_ FROM ErrorLog"))
    here.close()
