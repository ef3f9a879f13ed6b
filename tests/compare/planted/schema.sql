-- The planted schema: one table whose rows make each planted meaning change show in an answer.
-- Runs as written on SQL Server (and on the suite's TDS endpoint); the target gets the tool's DDL of it.
CREATE TABLE dbo.visits (
    id INT NOT NULL,
    started_at DATETIME NOT NULL,
    ended_at DATETIME NOT NULL,
    first_name NVARCHAR(30) NOT NULL,
    middle_name NVARCHAR(30) NULL,
    qty INT NOT NULL,
    boxes INT NOT NULL,
    code VARCHAR(20) NOT NULL,
    city NVARCHAR(30) NOT NULL,
    score INT NOT NULL,
    CONSTRAINT PK_visits PRIMARY KEY (id)
);
GO
