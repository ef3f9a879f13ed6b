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
-- Rows tied on points, for TOP and ROW_NUMBER() over ties and for text that differs only by trailing spaces
-- (test_compare_ties.py). The rows are inserted in another order than their keys, so that a server that
-- reads the table in the order rows were inserted (the endpoint's heap) and one that reads it in key order
-- (the targets' clustered primary key) keep, and number, different ones of the tied rows.
CREATE TABLE dbo.scores (
    id INT NOT NULL,
    player NVARCHAR(20) NOT NULL,
    points INT NOT NULL,
    code VARCHAR(10) NOT NULL,
    CONSTRAINT PK_scores PRIMARY KEY (id)
);
GO
