"""Writes a schema-and-data script of a given size: a pubs-like schema followed by INSERT rows.

The shape is what SSMS "Generate Scripts" (schema and data) writes, with the rows in the style of
both SSMS (`INSERT [dbo].[t] ([a], ...) VALUES (N'...', CAST(N'...' AS DateTime))`) and pubs's own
install script (`insert authors values('...', ...)`), `SET IDENTITY_INSERT` around a table's rows,
one batch per table, and no GO between rows: the reader must stream inside a batch, not only
between batches. The values are drawn from a seeded generator, so a size gives the same file.

    python3 benchmarks/scripts/make_script.py OUT.sql --mb 50 [--encoding utf-8|utf-16] [--style ssms] [--seed 1]

Styles: `ssms` as above; `go-each`, a GO after every INSERT (as newer SSMS writes); `multirow`, INSERT
INTO ... VALUES with 1,000 rows each and `;` (as hand-written seed scripts do), with the table's
CREATE TABLE in the same batch before its rows.

Generated files are not checked in (benchmarks/.work/ is ignored).
"""

from __future__ import annotations

import argparse
import random
import re
from pathlib import Path

SCHEMA = """\
SET NOCOUNT ON
GO
USE [master]
GO
CREATE DATABASE [pubs]
GO
USE [pubs]
GO
EXEC sp_addtype N'id', N'varchar(11)', N'not null'
EXEC sp_addtype N'tid', N'varchar(6)', N'not null'
EXEC sp_addtype N'empid', N'char(9)', N'not null'
GO
SET ANSI_NULLS ON
GO
SET QUOTED_IDENTIFIER ON
GO
CREATE TABLE [dbo].[authors](
    [au_id] [dbo].[id] NOT NULL,
    [au_lname] [varchar](40) NOT NULL,
    [au_fname] [varchar](20) NOT NULL,
    [phone] [char](12) NOT NULL DEFAULT ('UNKNOWN'),
    [address] [varchar](40) NULL,
    [city] [varchar](20) NULL,
    [state] [char](2) NULL,
    [zip] [char](5) NULL,
    [contract] [bit] NOT NULL,
 CONSTRAINT [UPKCL_auidind] PRIMARY KEY CLUSTERED ([au_id] ASC)
) ON [PRIMARY]
GO
CREATE NONCLUSTERED INDEX [aunmind] ON [dbo].[authors] ([au_lname] ASC, [au_fname] ASC)
GO
CREATE TABLE [dbo].[publishers](
    [pub_id] [char](4) NOT NULL,
    [pub_name] [varchar](40) NULL,
    [city] [varchar](20) NULL,
    [state] [char](2) NULL,
    [country] [varchar](30) NULL DEFAULT ('USA'),
 CONSTRAINT [UPKCL_pubind] PRIMARY KEY CLUSTERED ([pub_id] ASC)
) ON [PRIMARY]
GO
CREATE TABLE [dbo].[titles](
    [title_id] [dbo].[tid] NOT NULL,
    [title] [varchar](80) NOT NULL,
    [type] [char](12) NOT NULL DEFAULT ('UNDECIDED'),
    [pub_id] [char](4) NULL,
    [price] [money] NULL,
    [advance] [money] NULL,
    [royalty] [int] NULL,
    [ytd_sales] [int] NULL,
    [notes] [varchar](200) NULL,
    [pubdate] [datetime] NOT NULL DEFAULT (getdate()),
 CONSTRAINT [UPKCL_titleidind] PRIMARY KEY CLUSTERED ([title_id] ASC)
) ON [PRIMARY]
GO
CREATE TABLE [dbo].[titleauthor](
    [au_id] [dbo].[id] NOT NULL,
    [title_id] [dbo].[tid] NOT NULL,
    [au_ord] [tinyint] NULL,
    [royaltyper] [int] NULL,
 CONSTRAINT [UPKCL_taind] PRIMARY KEY CLUSTERED ([au_id] ASC, [title_id] ASC)
) ON [PRIMARY]
GO
CREATE TABLE [dbo].[stores](
    [stor_id] [char](4) NOT NULL,
    [stor_name] [varchar](40) NULL,
    [stor_address] [varchar](40) NULL,
    [city] [varchar](20) NULL,
    [state] [char](2) NULL,
    [zip] [char](5) NULL,
 CONSTRAINT [UPK_storeid] PRIMARY KEY CLUSTERED ([stor_id] ASC)
) ON [PRIMARY]
GO
CREATE TABLE [dbo].[sales](
    [stor_id] [char](4) NOT NULL,
    [ord_num] [varchar](20) NOT NULL,
    [ord_date] [datetime] NOT NULL,
    [qty] [smallint] NOT NULL,
    [payterms] [varchar](12) NOT NULL,
    [title_id] [dbo].[tid] NOT NULL,
 CONSTRAINT [UPKCL_sales] PRIMARY KEY CLUSTERED ([stor_id] ASC, [ord_num] ASC, [title_id] ASC)
) ON [PRIMARY]
GO
CREATE TABLE [dbo].[roysched](
    [title_id] [dbo].[tid] NOT NULL,
    [lorange] [int] NULL,
    [hirange] [int] NULL,
    [royalty] [int] NULL
) ON [PRIMARY]
GO
CREATE TABLE [dbo].[discounts](
    [discounttype] [varchar](40) NOT NULL,
    [stor_id] [char](4) NULL,
    [lowqty] [smallint] NULL,
    [highqty] [smallint] NULL,
    [discount] [decimal](4, 2) NOT NULL
) ON [PRIMARY]
GO
CREATE TABLE [dbo].[jobs](
    [job_id] [smallint] IDENTITY(1,1) NOT NULL,
    [job_desc] [varchar](50) NOT NULL DEFAULT ('New Position - title not formalized yet'),
    [min_lvl] [tinyint] NOT NULL CHECK ([min_lvl] >= 10),
    [max_lvl] [tinyint] NOT NULL CHECK ([max_lvl] <= 250),
PRIMARY KEY CLUSTERED ([job_id] ASC)
) ON [PRIMARY]
GO
CREATE TABLE [dbo].[pub_info](
    [pub_id] [char](4) NOT NULL,
    [logo] [image] NULL,
    [pr_info] [text] NULL,
 CONSTRAINT [UPKCL_pubinfo] PRIMARY KEY CLUSTERED ([pub_id] ASC)
) ON [PRIMARY] TEXTIMAGE_ON [PRIMARY]
GO
CREATE TABLE [dbo].[employee](
    [emp_id] [dbo].[empid] NOT NULL,
    [fname] [varchar](20) NOT NULL,
    [minit] [char](1) NULL,
    [lname] [varchar](30) NOT NULL,
    [job_id] [smallint] NOT NULL DEFAULT ((1)),
    [job_lvl] [tinyint] NULL DEFAULT ((10)),
    [pub_id] [char](4) NOT NULL DEFAULT ('9952'),
    [hire_date] [datetime] NOT NULL DEFAULT (getdate()),
 CONSTRAINT [PK_emp_id] PRIMARY KEY NONCLUSTERED ([emp_id] ASC)
) ON [PRIMARY]
GO
ALTER TABLE [dbo].[titles] WITH CHECK ADD FOREIGN KEY([pub_id]) REFERENCES [dbo].[publishers] ([pub_id])
GO
ALTER TABLE [dbo].[titleauthor] WITH CHECK ADD FOREIGN KEY([au_id]) REFERENCES [dbo].[authors] ([au_id])
GO
ALTER TABLE [dbo].[titleauthor] WITH CHECK ADD FOREIGN KEY([title_id]) REFERENCES [dbo].[titles] ([title_id])
GO
ALTER TABLE [dbo].[sales] WITH CHECK ADD FOREIGN KEY([stor_id]) REFERENCES [dbo].[stores] ([stor_id])
GO
ALTER TABLE [dbo].[employee] WITH CHECK ADD FOREIGN KEY([job_id]) REFERENCES [dbo].[jobs] ([job_id])
GO
CREATE VIEW [dbo].[titleview]
AS
select title, au_ord, au_lname, price, ytd_sales, pub_id
from authors, titles, titleauthor
where authors.au_id = titleauthor.au_id
   AND titles.title_id = titleauthor.title_id
GO
CREATE PROCEDURE [dbo].[byroyalty] @percentage int
AS
select au_id from titleauthor
where titleauthor.royaltyper = @percentage
GO
CREATE PROCEDURE [dbo].[reptq1] AS
select
    case when grouping(pub_id) = 1 then 'ALL' else pub_id end as pub_id,
    avg(price) as avg_price
from titles
where price is NOT NULL
group by pub_id with rollup
order by pub_id
GO
"""

_WORDS = ("Bennet Blotchet-Halls Carson DeFrance del Castillo Dull Green Greene Gringlesby Hunter Karsen Locksley "
          "MacFeather McBadden O'Leary Panteley Ringer Smith Straight Stringer White Yokomoto").split()
_CITIES = ("Berkeley Oakland Lawrence 'Salt Lake City' Nashville Corvallis Gary Rockville Vacaville Walnut Creek "
           "Menlo Park San Jose Palo Alto Covelo Ann Arbor").split()


def _authors(rng: random.Random, n: int) -> str:
    last, first = rng.choice(_WORDS).replace("'", "''"), rng.choice(_WORDS).replace("'", "''")
    return (f"INSERT [dbo].[authors] ([au_id], [au_lname], [au_fname], [phone], [address], [city], [state], [zip], "
            f"[contract]) VALUES (N'{n % 1000:03d}-{n // 1000 % 100:02d}-{n % 10000:04d}', N'{last}', N'{first}', "
            f"N'{rng.randint(200, 999)} {rng.randint(200, 999)}-{rng.randint(1000, 9999)}', "
            f"N'{rng.randint(1, 99999)} {rng.choice(_WORDS).replace(chr(39), chr(39) * 2)} St.', N'{rng.choice(_CITIES).strip(chr(39))}', N'CA', "
            f"N'{rng.randint(10000, 99999)}', {rng.randint(0, 1)})\n")


def _sales(rng: random.Random, n: int) -> str:
    return (f"INSERT [dbo].[sales] ([stor_id], [ord_num], [ord_date], [qty], [payterms], [title_id]) VALUES "
            f"(N'{rng.randint(6000, 8100)}', N'ORD{n}', CAST(N'19{rng.randint(90, 99)}-0{rng.randint(1, 9)}-"
            f"{rng.randint(10, 28)}T00:00:00.000' AS DateTime), {rng.randint(1, 75)}, N'Net 60', "
            f"N'BU{rng.randint(1000, 9999)}')\n")


def _titles(rng: random.Random, n: int) -> str:
    notes = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(3, 14))).replace("'", "''")
    return (f"insert titles\n   values ('T{n % 100000:05d}', 'The {notes}', 'business', '1389', "
            f"${rng.randint(2, 30)}.99, {rng.randint(1000, 15000)}.00, {rng.choice((10, 12, 14, 16, 24))}, "
            f"{rng.randint(100, 22246)},\n'{notes}; and more.', '06/{rng.randint(10, 30)}/91')\n")


def _jobs(rng: random.Random, n: int) -> str:
    return f"INSERT [dbo].[jobs] ([job_id], [job_desc], [min_lvl], [max_lvl]) VALUES ({n % 32000}, N'Job {n}', 10, 10)\n"


_TABLES = (("authors", _authors, False), ("sales", _sales, False), ("titles", _titles, False), ("jobs", _jobs, True))


_VALUES = re.compile(r"\)\s+VALUES\s+\(|\s+values\s*\(", re.IGNORECASE)


def _multirow(lines: list[str]) -> str:
    """SSMS lines of one table as one INSERT INTO ... VALUES (...), (...); statement."""
    head, first = _VALUES.split(lines[0], maxsplit=1)
    sep = _VALUES.search(lines[0])
    assert sep is not None
    rows = [first.rstrip("\n")] + [_VALUES.split(line, maxsplit=1)[1].rstrip("\n") for line in lines[1:]]
    head = head.replace("INSERT [", "INSERT INTO [", 1).replace("insert ", "INSERT INTO ", 1)
    return head + sep.group().rstrip("(") + "\n(" + "\n, (".join(rows) + ";\n"


def write_script(path: Path, megabytes: float, encoding: str = "utf-8", seed: int = 1, style: str = "ssms") -> int:
    """Write the script (about `megabytes` MB of text); returns the number of INSERT rows."""
    rng = random.Random(seed)
    target = int(megabytes * 1_000_000)
    rows = 0
    written = 0
    codec = "utf-16" if encoding == "utf-16" else "utf-8"  # utf-16 writes the BOM SSMS writes
    newline = "\r\n" if encoding == "utf-16" else "\n"  # and its CRLF
    with path.open("w", encoding=codec, newline=newline) as fh:
        fh.write(SCHEMA)
        written += len(SCHEMA)
        block = 0
        while written < target:
            name, row, identity = _TABLES[block % len(_TABLES)]
            block += 1
            head = f"PRINT 'Inserting {name}'\nGO\n" + (f"SET IDENTITY_INSERT [dbo].[{name}] ON\n" if identity else "")
            if style == "multirow":
                head += f"CREATE TABLE [dbo].[{name}_copy{block}] (id int PRIMARY KEY);\n"
            fh.write(head)
            written += len(head)
            limit = min(target, written + max(target // 8, 100_000))  # a table's rows: one batch of an eighth of the file
            pending: list[str] = []
            while written < limit:
                line = row(rng, rows)
                rows += 1
                if style == "multirow":
                    pending.append(line.replace("\n   values", " values"))
                    if len(pending) < 1000:
                        continue
                    line, pending = _multirow(pending), []
                elif style == "go-each":
                    line += "GO\n"
                fh.write(line)
                written += len(line)
            if pending:
                line = _multirow(pending)
                fh.write(line)
                written += len(line)
            tail = (f"SET IDENTITY_INSERT [dbo].[{name}] OFF\n" if identity else "") + "GO\n"
            fh.write(tail)
            written += len(tail)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--mb", type=float, default=50)
    parser.add_argument("--encoding", choices=("utf-8", "utf-16"), default="utf-8")
    parser.add_argument("--style", choices=("ssms", "go-each", "multirow"), default="ssms")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    rows = write_script(args.out, args.mb, args.encoding, args.seed, args.style)
    print(f"{args.out}: {args.out.stat().st_size / 1e6:.1f} MB, {rows} INSERT rows")


if __name__ == "__main__":
    main()
