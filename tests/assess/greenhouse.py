"""A database the project has not seen, made here: a plant nursery's growers, plants, batches and readings.

It is what a new user points `assess --connection` at: a schema of its own making (an identity, a
unique key with a NULL, money, bit, datetime2(3), uniqueidentifier with a default, nvarchar(max), a
composite key, foreign keys, a view), its own rows (names with letters beyond ASCII, NULLs, long text),
and a workload script of reads and one write beside it, as a DBA without Query Store would give it.
`readings` holds enough rows (30,000) for a copy to be stopped half-way. Table names are lower case, as
Babelfish reports every name, so a real SQL Server given to the suite reads the same.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from pathlib import Path

SCHEMA = (
    """CREATE TABLE dbo.growers (GrowerId int IDENTITY(1,1) NOT NULL PRIMARY KEY, Name nvarchar(80) NOT NULL,
       Region varchar(20) NOT NULL, Joined date NOT NULL, Email varchar(120) NULL,
       CONSTRAINT uq_growers_email UNIQUE (Email))""",
    """CREATE TABLE dbo.plants (PlantCode char(6) NOT NULL PRIMARY KEY, Species nvarchar(100) NOT NULL,
       Hardy bit NOT NULL, PricePerUnit money NOT NULL, Notes nvarchar(max) NULL)""",
    """CREATE TABLE dbo.batches (BatchId bigint NOT NULL PRIMARY KEY,
       GrowerId int NOT NULL REFERENCES dbo.growers(GrowerId), PlantCode char(6) NOT NULL REFERENCES dbo.plants(PlantCode),
       Sown datetime2(3) NOT NULL, Trays smallint NOT NULL, Yield decimal(9,2) NULL,
       Tag uniqueidentifier NOT NULL DEFAULT NEWID())""",
    "CREATE INDEX ix_batches_sown ON dbo.batches (Sown)",
    """CREATE TABLE dbo.readings (BatchId bigint NOT NULL REFERENCES dbo.batches(BatchId), TakenAt datetime NOT NULL,
       Temperature float NOT NULL, Humidity real NULL, PRIMARY KEY (BatchId, TakenAt))""",
    """CREATE VIEW dbo.grower_batches AS SELECT g.GrowerId, g.Name, COUNT(*) AS Batches
       FROM dbo.growers g JOIN dbo.batches b ON b.GrowerId = g.GrowerId GROUP BY g.GrowerId, g.Name""",
)

WORKLOAD = (
    "SELECT g.Region, COUNT(*) AS growers FROM dbo.growers g GROUP BY g.Region ORDER BY g.Region",
    "SELECT TOP 10 b.BatchId, b.Sown, p.Species FROM dbo.batches b JOIN dbo.plants p ON p.PlantCode = b.PlantCode "
    "WHERE b.Trays > 100 ORDER BY b.Sown DESC, b.BatchId",
    "SELECT Name, Batches FROM dbo.grower_batches WHERE Batches > 10 ORDER BY Name",
    "SELECT p.Species, COUNT(*) AS readings, MAX(r.Temperature) AS warmest FROM dbo.readings r "
    "JOIN dbo.batches b ON b.BatchId = r.BatchId JOIN dbo.plants p ON p.PlantCode = b.PlantCode "
    "GROUP BY p.Species ORDER BY p.Species",
    "SELECT GrowerId, Name, Email FROM dbo.growers WHERE Email LIKE 'g1%' ORDER BY GrowerId",
    "UPDATE dbo.batches SET Trays = Trays + 1 WHERE BatchId = 1002",
)
READS = 5
READINGS_PER_BATCH = 50
BATCHES = 600
TABLES = {"dbo.growers": 40, "dbo.plants": 8, "dbo.batches": BATCHES, "dbo.readings": BATCHES * READINGS_PER_BATCH}


def create_greenhouse(mssql, name: str = "assess_greenhouse") -> str:
    """The database on the endpoint, schema and rows; its name."""
    mssql.create_database(name)
    conn = mssql.connect(name)
    try:
        cur = conn.cursor()
        for statement in SCHEMA:
            cur.execute(statement)
        rnd = random.Random(7)
        growers = []
        for i in range(1, TABLES["dbo.growers"] + 1):
            growers.append((f"Grower {i} Ågård" if i % 7 == 0 else f"Grower {i}", rnd.choice(["North", "South", "Coast"]),
                            date(2015, 1, 1) + timedelta(days=rnd.randint(0, 3000)),
                            None if i == 5 else f"g{i}@example.org"))
        cur.executemany("INSERT INTO dbo.growers (Name, Region, Joined, Email) VALUES (?, ?, ?, ?)", growers)
        species = ["Tomato", "Basil", "Pepper", "Lettuce", "Fern", "Orchid", "Cactus", "Mint"]
        cur.executemany("INSERT INTO dbo.plants VALUES (?, ?, ?, ?, ?)",
                        [(f"P{i:05d}", s, i % 2, f"{1 + i * 0.75:.2f}", None if i % 3 else "a long note " * 400)
                         for i, s in enumerate(species)])
        batch_ids, batch = [], 1000
        rows = []
        for n in range(BATCHES):
            batch += rnd.randint(1, 3)
            batch_ids.append(batch)
            sown = datetime(2023, 1, 1) + timedelta(minutes=rnd.randint(0, 500_000), milliseconds=rnd.randint(0, 999))
            rows.append(f"({batch}, {rnd.randint(1, 40)}, 'P{rnd.randint(0, 7):05d}', '{sown.isoformat(sep=' ')[:23]}', "
                        f"{rnd.randint(1, 200)}, {'NULL' if n % 11 == 0 else f'{rnd.randint(0, 99_999) / 100:.2f}'})")
        for start in range(0, len(rows), 200):
            cur.execute("INSERT INTO dbo.batches (BatchId, GrowerId, PlantCode, Sown, Trays, Yield) VALUES "
                        + ", ".join(rows[start:start + 200]))
        readings = [f"({b}, '{(datetime(2024, 3, 1, 8) + timedelta(hours=6 * k)).isoformat(sep=' ')}', "
                    f"{rnd.uniform(5, 35):.6f}, {'NULL' if k % 9 == 0 else f'{rnd.uniform(20, 90):.2f}'})"
                    for b in batch_ids for k in range(READINGS_PER_BATCH)]
        for start in range(0, len(readings), 1000):
            cur.execute("INSERT INTO dbo.readings VALUES " + ", ".join(readings[start:start + 1000]))
    finally:
        conn.close()
    return name


def workload_file(path: Path) -> Path:
    """The workload script a DBA gives beside --connection: one statement a batch."""
    path.write_text("".join(f"{s}\nGO\n" for s in WORKLOAD), encoding="utf-8")
    return path
