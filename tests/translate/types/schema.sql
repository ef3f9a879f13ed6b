-- The tables and the view the type-model test (tests/translate/test_type_model.py) types queries over.
CREATE TABLE dbo.t_orders (
    id int NOT NULL PRIMARY KEY,
    amount decimal(10, 2) NULL,
    price money NULL,
    qty smallint NULL,
    name varchar(10) NULL,
    note nvarchar(20) NULL,
    ratio real NULL,
    f float NULL,
    at datetime NULL,
    d2 datetime2(3) NULL,
    code char(4) NULL
);
GO
CREATE VIEW dbo.v_orders AS SELECT id, amount * 2 AS double_amount, name + '!' AS shout, qty * 2 AS qty2 FROM dbo.t_orders;
GO
CREATE FUNCTION dbo.f_rate (@id int) RETURNS decimal(6, 3) AS BEGIN RETURN 1.5 END;
GO
INSERT INTO dbo.t_orders (id, amount, price, qty, name, note, ratio, f, at, d2, code) VALUES
    (1, 10.25, 2.99, 3, 'ab', N'x', 0.1, 1.5, '2024-01-01', '2024-01-01', 'AB'),
    (2, 3.50, 1.00, 1, 'cd', N'yz', 0.5, 2.5, '2024-01-02', '2024-01-02 10:00:00.5', 'C'),
    (3, -7.25, 0.50, 2, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
    (4, 1.00, 0.10, 3, 'ef', N'w', 0.25, 0.5, '2024-01-03', '2024-01-03', 'DEF');
GO
