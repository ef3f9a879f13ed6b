"""A small publishing database shaped like the well-known sample's, written here: its CHECKs use LIKE patterns
with character classes, the form a CHECK read from a live catalog must convert as a script's does.

The tables and constraints follow the shapes such sample schemas use (an author id `999-99-9999`, a
five-digit zip, an employee id of three letters or `X-Y`, five digits and F or M, a publisher id from a list
or `99` and two digits); every name and value here is made up, generated from a seed. The endpoint
stores each CHECK in its own spelling (SQL Server: `([au_id] like '[0-9]...')`; Babelfish:
`(au_id ~~* '[0-9]...')`), which is what a live capture reads.
"""

from __future__ import annotations

import random

DATABASE = "pubs_like"

SCHEMA = [
    """CREATE TABLE dbo.publishers (
        pub_id char(4) NOT NULL CONSTRAINT upkcl_pubs PRIMARY KEY
            CONSTRAINT ck_pub_id CHECK (pub_id IN ('1389', '0736', '0877', '1622', '1756') OR pub_id LIKE '99[0-9][0-9]'),
        pub_name varchar(40) NULL, city varchar(20) NULL, state char(2) NULL,
        country varchar(30) NULL CONSTRAINT df_pub_country DEFAULT ('USA'))""",
    """CREATE TABLE dbo.authors (
        au_id varchar(11) NOT NULL CONSTRAINT upkcl_auidind PRIMARY KEY
            CONSTRAINT ck_au_id CHECK (au_id LIKE '[0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][0-9][0-9]'),
        au_lname varchar(40) NOT NULL, au_fname varchar(20) NOT NULL,
        phone char(12) NOT NULL CONSTRAINT df_au_phone DEFAULT ('UNKNOWN'),
        city varchar(20) NULL, state char(2) NULL,
        zip char(5) NULL CONSTRAINT ck_au_zip CHECK (zip LIKE '[0-9][0-9][0-9][0-9][0-9]'),
        contract bit NOT NULL)""",
    """CREATE TABLE dbo.jobs (
        job_id smallint IDENTITY(1,1) NOT NULL PRIMARY KEY,
        job_desc varchar(50) NOT NULL DEFAULT ('New position'),
        min_lvl tinyint NOT NULL CONSTRAINT ck_jobs_min CHECK (min_lvl >= 10),
        max_lvl tinyint NOT NULL CONSTRAINT ck_jobs_max CHECK (max_lvl <= 250))""",
    """CREATE TABLE dbo.employee (
        emp_id char(9) NOT NULL CONSTRAINT pk_emp_id PRIMARY KEY
            CONSTRAINT ck_emp_id CHECK (emp_id LIKE '[A-Z][A-Z][A-Z][1-9][0-9][0-9][0-9][0-9][FM]'
                                        OR emp_id LIKE '[A-Z]-[A-Z][1-9][0-9][0-9][0-9][0-9][FM]'),
        fname varchar(20) NOT NULL, lname varchar(30) NOT NULL,
        job_id smallint NOT NULL REFERENCES dbo.jobs(job_id),
        pub_id char(4) NOT NULL REFERENCES dbo.publishers(pub_id),
        hire_date datetime NOT NULL)""",
    """CREATE TABLE dbo.roysched (
        title_id varchar(6) NOT NULL, lorange int NULL, hirange int NULL, royalty int NULL)""",
]

COUNTS = {"dbo.publishers": 8, "dbo.authors": 23, "dbo.jobs": 14, "dbo.employee": 43, "dbo.roysched": 30}
"""The rows each table holds."""

_NAMES = ["Ash", "Birch", "Cedar", "Dale", "Elm", "Fern", "Glen", "Heath", "Iris", "Juniper", "Kale", "Laurel",
          "Moss", "Nash", "Oak", "Pine", "Quill", "Reed", "Sage", "Thorn", "Umber", "Vale", "Wren", "Yew"]
_CITIES = [("Ashford", "CA"), ("Bramble", "OR"), ("Cove", "WA"), ("Dunmore", "NY"), ("Eastleigh", "MA")]


def _quoted(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


def rows(seed: int = 11) -> dict[str, list[tuple]]:
    """Each table's rows, the same for a seed: every value passes the table's CHECKs."""
    rnd = random.Random(seed)
    publishers = [(p, f"{_NAMES[i]} Press", *_CITIES[i % len(_CITIES)], "USA")
                  for i, p in enumerate(["0736", "0877", "1389", "1622", "1756", "9901", "9952", "9999"])]
    authors, ids = [], set()
    while len(authors) < COUNTS["dbo.authors"]:
        au_id = f"{rnd.randint(100, 999)}-{rnd.randint(10, 99)}-{rnd.randint(1000, 9999)}"
        if au_id in ids:
            continue
        ids.add(au_id)
        city, state = _CITIES[len(authors) % len(_CITIES)]
        zip_code = None if len(authors) % 7 == 3 else f"{rnd.randint(10000, 99999)}"
        authors.append((au_id, _NAMES[len(authors)], _NAMES[-1 - len(authors)], f"{rnd.randint(200, 999)} "
                        f"{rnd.randint(100, 999)}-{rnd.randint(1000, 9999)}", city, state, zip_code, len(authors) % 2))
    jobs = [(f"Job {i}", 10 + 15 * i, min(250, 30 + 16 * i)) for i in range(COUNTS["dbo.jobs"])]
    employees, emp_ids = [], set()
    letters = "ABCDEFGHIJKLMNOPRSTVW"
    while len(employees) < COUNTS["dbo.employee"]:
        digits = f"{rnd.randint(1, 9)}{rnd.randint(0, 9999):04d}"
        sex = rnd.choice("FM")
        if len(employees) % 5 == 4:  # the second form: a letter, a hyphen, a letter
            emp_id = f"{rnd.choice(letters)}-{rnd.choice(letters)}{digits}{sex}"
        else:
            emp_id = f"{''.join(rnd.choice(letters) for _ in range(3))}{digits}{sex}"
        if len(employees) == 7:
            emp_id = emp_id.lower()  # the endpoint's collation is case-insensitive: the CHECK takes it
        if emp_id.upper() in emp_ids:
            continue
        emp_ids.add(emp_id.upper())
        i = len(employees)
        employees.append((emp_id, _NAMES[i % len(_NAMES)], _NAMES[(i * 7) % len(_NAMES)] + "son", 1 + i % COUNTS["dbo.jobs"],
                          publishers[i % len(publishers)][0], f"2019-{1 + i % 12:02d}-{1 + i % 28:02d} 09:{i:02d}:00.000"))
    roysched = [(f"T{1000 + i // 3}", 5000 * (i % 3), 5000 * (i % 3) + 4999, 10 + 2 * (i % 3) + i % 4)
                for i in range(COUNTS["dbo.roysched"])]  # a table without a key, as royalty schedules often are
    return {"dbo.publishers": publishers, "dbo.authors": authors, "dbo.jobs": jobs, "dbo.employee": employees,
            "dbo.roysched": roysched}


def create_pubs_like(mssql, database: str = DATABASE) -> str:
    """The database on the SQL Server endpoint, its tables created and filled."""
    mssql.create_database(database)
    conn = mssql.connect(database)
    try:
        cur = conn.cursor()
        for statement in SCHEMA:
            cur.execute(statement)
        for table, values in rows().items():
            columns = " (job_desc, min_lvl, max_lvl)" if table == "dbo.jobs" else ""
            cur.execute(f"INSERT INTO {table}{columns} VALUES " + ", ".join(
                "(" + ", ".join(_quoted(v) for v in row) + ")" for row in values))
    finally:
        conn.close()
    return database
