-- Tables the write tests store into (tests/translate/test_writes.py): one column of each type whose
-- stores SQL Server converts otherwise than TiDB and MySQL, and a source table of typed values.
CREATE TABLE dbo.w (
    id int NOT NULL PRIMARY KEY,
    i int NULL,
    b bigint NULL,
    s smallint NULL,
    t tinyint NULL,
    d datetime NULL,
    sd smalldatetime NULL,
    d2 datetime2(3) NULL,
    m money NULL,
    n decimal(4, 1) NULL,
    f float NULL,
    v varchar(30) NULL,
    tm time(3) NULL
);
GO
CREATE TABLE dbo.src (
    id int NOT NULL PRIMARY KEY,
    amount decimal(10, 2) NULL,
    ratio float NULL,
    moment datetime2(3) NULL,
    label varchar(30) NULL
);
GO
