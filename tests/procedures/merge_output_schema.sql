CREATE TABLE dbo.Product (ProductID int IDENTITY(1,1) NOT NULL PRIMARY KEY, Sku varchar(20) NOT NULL UNIQUE, Stock int NOT NULL);
GO
CREATE TABLE dbo.Price (Sku varchar(20) NOT NULL PRIMARY KEY, Amount decimal(10,2) NOT NULL);
GO
CREATE TABLE dbo.Changes (ProductID int NULL, Action nvarchar(10) NOT NULL);
GO
CREATE TYPE dbo.SkuList AS TABLE (Sku varchar(20) NOT NULL PRIMARY KEY, Qty int NOT NULL);
GO
CREATE PROCEDURE dbo.ReceiveStock @Items dbo.SkuList READONLY
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @changed TABLE (ProductID int, Action nvarchar(10));
    MERGE dbo.Product AS t
    USING @Items AS s ON t.Sku = s.Sku
    WHEN MATCHED THEN UPDATE SET Stock = t.Stock + s.Qty
    WHEN NOT MATCHED BY TARGET THEN INSERT (Sku, Stock) VALUES (s.Sku, s.Qty)
    OUTPUT inserted.ProductID, $action INTO @changed;
    INSERT INTO dbo.Changes (ProductID, Action) SELECT ProductID, Action FROM @changed;
    SELECT Action, COUNT(*) FROM @changed GROUP BY Action ORDER BY Action;
END;
GO
CREATE PROCEDURE dbo.SetPrices @Items dbo.SkuList READONLY
AS
BEGIN
    SET NOCOUNT ON;
    MERGE dbo.Price AS t
    USING @Items AS s ON t.Sku = s.Sku
    WHEN MATCHED AND s.Qty = 0 THEN DELETE
    WHEN MATCHED AND s.Qty <> t.Amount THEN UPDATE SET Amount = s.Qty
    OUTPUT $action AS Action, deleted.Sku AS OldSku, deleted.Amount AS OldAmount, inserted.Sku, inserted.Amount;
END;
GO
CREATE PROCEDURE dbo.AddPrices @Items dbo.SkuList READONLY
AS
BEGIN
    SET NOCOUNT ON;
    MERGE dbo.Price AS t
    USING @Items AS s ON t.Sku = s.Sku
    WHEN MATCHED AND s.Qty <> t.Amount THEN UPDATE SET Amount = s.Qty
    WHEN NOT MATCHED THEN INSERT (Sku, Amount) VALUES (s.Sku, s.Qty)
    OUTPUT $action, inserted.Sku, inserted.Amount, deleted.Amount;
END;
GO
CREATE PROCEDURE dbo.SyncPrices @Items dbo.SkuList READONLY
AS
BEGIN
    SET NOCOUNT ON;
    MERGE dbo.Price AS t
    USING @Items AS s ON t.Sku = s.Sku
    WHEN MATCHED THEN UPDATE SET Amount = s.Qty
    WHEN NOT MATCHED BY SOURCE THEN DELETE
    OUTPUT $action, deleted.Sku;
END;
GO
