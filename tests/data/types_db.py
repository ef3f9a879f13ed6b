"""A source database with a column of every type the SQL Server endpoint supports, and edge values.

`every_type` has one column per type (alias type and sysname included), a first row of extreme
values, a row of NULLs and rows of ordinary values; the other tables exercise the keys the load
orders by (text, uniqueidentifier, composite, datetime2), a table without any key, and values
no TiDB column can hold (NaN, infinity), which must go to the rejects file. Babelfish has no
spatial types or hierarchyid; their read expressions are tested on their own (test_data_units.py).
Babelfish keeps microseconds, so a datetime2(7)/time(7) value's seventh digit is rounded by the
endpoint already; the normalizer's own rounding of seven digits is unit-tested.
"""

from __future__ import annotations

import random

DATABASE = "data_every_type"
ROWS = 300

COLUMNS = [
    ("b", "bit"), ("ti", "tinyint"), ("si", "smallint"), ("i", "int"), ("bi", "bigint"),
    ("d", "decimal(38,10)"), ("n", "numeric(9,3)"), ("m", "money"), ("sm", "smallmoney"),
    ("f", "float"), ("r", "real"), ("dt", "date"), ("tm", "time(7)"), ("tm3", "time(3)"),
    ("dtt", "datetime"), ("sdt", "smalldatetime"), ("dt2", "datetime2(7)"), ("dt23", "datetime2(3)"),
    ("dto", "datetimeoffset(7)"), ("c", "char(10)"), ("vc", "varchar(50)"), ("nc", "nchar(10)"),
    ("nvc", "nvarchar(50)"), ("vmax", "varchar(max)"), ("nvmax", "nvarchar(max)"), ("tx", "text"),
    ("ntx", "ntext"), ("bn", "binary(8)"), ("vb", "varbinary(50)"), ("vbm", "varbinary(max)"),
    ("img", "image"), ("u", "uniqueidentifier"), ("x", "xml"), ("sv", "sql_variant"), ("sn", "sysname"),
    ("ph", "dbo.Phone"), ("rv", "rowversion"),
]

EDGE = {
    "b": "1", "ti": "255", "si": "-32768", "i": "-2147483648", "bi": "9223372036854775807",
    "d": "-9999999999999999999999999999.9999999999", "n": "999999.999", "m": "-922337203685477.5808",
    "sm": "214748.3647", "f": "CAST(-0.0 AS float)", "r": "3.4e38", "dt": "'0001-01-01'", "tm": "'23:59:59.999999'",
    "tm3": "'23:59:59.999'", "dtt": "'9999-12-31 23:59:59.997'", "sdt": "'2079-06-06 23:59'",
    "dt2": "'9999-12-31 23:59:59.999999'", "dt23": "'0001-01-01 00:00:00'",
    "dto": "'2020-06-01 12:00:00.123456 -08:00'", "c": "'x'", "vc": "'tab\there, new\nline, back\\slash'",
    "nc": "N'ü'", "nvc": "N'😀 emoji ''quoted'' 日本'", "vmax": "REPLICATE(CAST('a' AS varchar(max)), 100000)",
    "nvmax": "REPLICATE(CAST(N'ж' AS nvarchar(max)), 70000)", "tx": "'text'", "ntx": "N'ntext ü'",
    "bn": "0x0000000000000001", "vb": "0x00FF5C0A09", "vbm": "CAST(REPLICATE(CAST('z' AS varchar(max)), 90000) AS varbinary(max))",
    "img": "0x89504E47", "u": "'00000000-0000-0000-0000-000000000000'", "x": "'<r a=\"1\">x &amp; y</r>'",
    "sv": "CAST(N'variant text' AS sql_variant)", "sn": "N'sysname'", "ph": "N'+1 555 0100'",
}


def _value(name: str, i: int, rnd: random.Random) -> str:
    pick = rnd.random
    values = {
        "b": str(i % 2), "ti": str(i % 256), "si": str(rnd.randint(-32768, 32767)), "i": str(rnd.randint(-10**9, 10**9)),
        "bi": str(rnd.randint(-10**18, 10**18)), "d": f"{rnd.uniform(-1e6, 1e6):.10f}", "n": f"{rnd.uniform(-1e5, 1e5):.3f}",
        "m": f"{rnd.uniform(-1e9, 1e9):.4f}", "sm": f"{rnd.uniform(-1e5, 1e5):.4f}", "f": repr(rnd.uniform(-1e10, 1e10)),
        "r": repr(round(pick() * 1000, 3)), "dt": f"'{rnd.randint(1, 9999):04d}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}'",
        "tm": f"'{rnd.randint(0, 23):02d}:{rnd.randint(0, 59):02d}:{rnd.randint(0, 59):02d}.{rnd.randint(0, 999999):06d}'",
        "tm3": f"'{rnd.randint(0, 23):02d}:{rnd.randint(0, 59):02d}:{rnd.randint(0, 59):02d}.{rnd.randint(0, 999):03d}'",
        "dtt": f"'{rnd.randint(1753, 9999)}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d} 10:{rnd.randint(0, 59):02d}:00.{rnd.choice(['000', '003', '007', '010'])}'",
        "sdt": f"'{rnd.randint(1900, 2078)}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d} {rnd.randint(0, 23):02d}:{rnd.randint(0, 59):02d}'",
        "dt2": f"'{rnd.randint(1, 9999):04d}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d} 12:34:56.{rnd.randint(0, 999999):06d}'",
        "dt23": f"'{rnd.randint(1000, 9999)}-01-02 03:04:05.{rnd.randint(0, 999):03d}'",
        "dto": f"'2021-{rnd.randint(1, 12):02d}-15 {rnd.randint(0, 23):02d}:30:00.{rnd.randint(0, 999999):06d} {rnd.choice(['+05:30', '-08:00', '+00:00', '+14:00'])}'",
        "c": f"'c{i}'", "vc": f"'v{i} ' + CHAR(9) + 'x  '", "nc": f"N'n{i}'", "nvc": f"N'ü{i} 日本 😀'",
        "vmax": f"'max {i}'", "nvmax": f"N'nmax {i} ж'", "tx": f"'t{i}'", "ntx": f"N'nt{i} ü'",
        "bn": f"0x{rnd.getrandbits(64):016X}", "vb": f"0x{rnd.getrandbits(8 * (1 + i % 20)):0{2 * (1 + i % 20)}X}",
        "vbm": f"0x{rnd.getrandbits(256):064X}", "img": f"0x{rnd.getrandbits(64):016X}",
        "u": f"'{_uuid(rnd)}'", "x": f"'<r i=\"{i}\"><c>{i * 2}</c></r>'",
        "sv": rnd.choice([f"CAST({i} AS sql_variant)", f"CAST(N'v{i}' AS sql_variant)"]),
        "sn": f"N'name{i}'", "ph": f"N'+49 {i:06d}'",
    }
    return values[name]


def _uuid(rnd: random.Random) -> str:
    h = f"{rnd.getrandbits(128):032X}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def create_every_type(mssql, database: str = DATABASE) -> str:
    mssql.create_database(database)
    conn = mssql.connect(database)
    try:
        cur = conn.cursor()
        if mssql.babelfish:
            cur.execute("EXEC sp_babelfish_configure 'babelfishpg_tsql.escape_hatch_rowversion', 'ignore'")
        cur.execute("CREATE TYPE dbo.Phone FROM nvarchar(20) NULL")
        cols = ", ".join(f"[{n}] {t}" for n, t in COLUMNS)
        cur.execute(f"CREATE TABLE dbo.every_type (id int NOT NULL PRIMARY KEY, {cols})")
        names = [n for n, t in COLUMNS if t != "rowversion"]
        rnd = random.Random(7)
        nulls = ", ".join("N'nulls'" if n == "sn" else "NULL" for n in names)  # sysname is NOT NULL
        rows = [f"(1, {', '.join(EDGE[n] for n in names)})", f"(2, {nulls})"]
        rows += [f"({i}, {', '.join(_value(n, i, rnd) for n in names)})" for i in range(3, ROWS + 1)]
        head = f"INSERT INTO dbo.every_type (id, {', '.join(f'[{n}]' for n in names)}) VALUES "
        for start in range(0, len(rows), 50):
            cur.execute(head + ", ".join(rows[start:start + 50]))
        _keys(cur, rnd, mssql.babelfish)
    finally:
        conn.close()
    return database


TEXT_KEYS = ["apple", "Banana", "cherry", "Äpfel", "日本", "zeta ", "Zulu", "a b", "a\tb", "_under", "~tilde", "Émile",
             "émile2", "0zero", "😀smile", "ÿ", "mañana"]


def _keys(cur, rnd: random.Random, babelfish: bool) -> None:
    """Tables keyed by text, uniqueidentifier, two columns and datetime2; an identity that starts at 0
    (a target's AUTO_INCREMENT would draw a new value for an explicit 0); one with no key; one with NaN."""
    cur.execute("CREATE TABLE dbo.text_key (code nvarchar(20) NOT NULL PRIMARY KEY, v int)")
    cur.execute("INSERT INTO dbo.text_key VALUES " + ", ".join(
        f"(N'{k.replace(chr(39), chr(39) * 2)}', {i})" for i, k in enumerate(TEXT_KEYS)))
    cur.execute("CREATE TABLE dbo.guid_key (id uniqueidentifier NOT NULL PRIMARY KEY, v int)")
    cur.execute("INSERT INTO dbo.guid_key VALUES " + ", ".join(f"('{_uuid(rnd)}', {i})" for i in range(200)))
    cur.execute("CREATE TABLE dbo.composite (a int NOT NULL, b nvarchar(5) NOT NULL, v decimal(9,2), PRIMARY KEY (a, b))")
    cur.execute("INSERT INTO dbo.composite VALUES " + ", ".join(
        f"({i // 3}, N'{chr(ord('a') + i % 3)}{'X' if i % 2 else ''}', {i}.25)" for i in range(150)))
    cur.execute("CREATE TABLE dbo.dt_key (k datetime2(7) NOT NULL PRIMARY KEY, v int)")
    cur.execute("INSERT INTO dbo.dt_key VALUES " + ", ".join(
        f"('2020-01-01 00:00:{i // 1000:02d}.{i % 1000:03d}{rnd.randint(0, 999):03d}', {i})" for i in range(0, 50_000, 250)))
    cur.execute("CREATE TABLE dbo.zero_identity (id int IDENTITY(0, 1) NOT NULL PRIMARY KEY, v nvarchar(5))")
    cur.execute("INSERT INTO dbo.zero_identity (v) VALUES (N'zero'), (N'one'), (N'two')")
    cur.execute("CREATE TABLE dbo.no_key (a int, b nvarchar(10))")
    cur.execute("INSERT INTO dbo.no_key VALUES " + ", ".join(f"({i % 7}, N'r{i % 5}')" for i in range(120)))
    cur.execute("CREATE TABLE dbo.nan_values (id int NOT NULL PRIMARY KEY, f float)")
    cur.execute("INSERT INTO dbo.nan_values VALUES (1, 1.5), (5, -2.25)")
    if babelfish:  # PostgreSQL's float keeps NaN and infinity; SQL Server refuses them on the way in
        cur.execute("INSERT INTO dbo.nan_values VALUES (2, CAST('NaN' AS float)), (3, CAST('Infinity' AS float)), "
                    "(4, CAST('-Infinity' AS float))")
