-- An application schema written for the procedure runner's tests (not a corpus's): a small shop whose logic
-- lives in procedures that use JSON, OUTPUT, temporal tables, user-defined functions, table-valued parameters,
-- dynamic SQL, hashing, the catalog, MERGE on a column that is no key, and a natively compiled procedure.
CREATE SCHEMA shop;
GO
CREATE SEQUENCE shop.ItemNumbers AS int START WITH 100 INCREMENT BY 1;
GO
CREATE TABLE shop.Items (
    ItemID int NOT NULL CONSTRAINT DF_Items_ItemID DEFAULT (NEXT VALUE FOR shop.ItemNumbers) PRIMARY KEY,
    Name nvarchar(50) NOT NULL,
    Price decimal(18,2) NOT NULL,
    GroupID int NULL,
    Attributes nvarchar(max) NULL,
    AddedBy int NOT NULL
);
GO
CREATE TABLE shop.Deals (DealID int NOT NULL PRIMARY KEY, ItemID int NULL, GroupID int NULL, Discount decimal(18,3) NULL,
                         StartsOn date NOT NULL, EndsOn date NOT NULL);
GO
CREATE TABLE shop.Lines (LineID int IDENTITY(1,1) NOT NULL PRIMARY KEY, OrderID int NOT NULL, ItemID int NOT NULL,
                         Qty int NOT NULL, Note nvarchar(40) NULL);
GO
CREATE TABLE shop.Archive (LineID int NOT NULL, OrderID int NOT NULL, Qty int NOT NULL, ArchivedOn date NULL);
GO
CREATE TABLE shop.Stock (Code nvarchar(10) NOT NULL, Bin nvarchar(5) NOT NULL, Qty int NOT NULL, StockID int IDENTITY(1,1) PRIMARY KEY);
GO
CREATE TABLE shop.Counted (Code nvarchar(10) NOT NULL, Bin nvarchar(5) NOT NULL, Qty int NOT NULL);
GO
-- PERIOD FOR SYSTEM_TIME spells its columns otherwise than their definitions: SQL Server's names are case-insensitive
CREATE TABLE shop.Rates (RateID int NOT NULL PRIMARY KEY, Rate decimal(9,4) NOT NULL,
    ValidFrom datetime2(7) GENERATED ALWAYS AS ROW START NOT NULL,
    ValidTo datetime2(7) GENERATED ALWAYS AS ROW END NOT NULL,
    PERIOD FOR SYSTEM_TIME (validFrom, VALIDTO)) WITH (SYSTEM_VERSIONING = ON (HISTORY_TABLE = shop.RatesHistory));
GO
CREATE TYPE shop.LineList AS TABLE (Ref int IDENTITY(1,1) NOT NULL, ItemID int NOT NULL, Qty int NOT NULL, Note nvarchar(40) NULL);
GO
CREATE FUNCTION shop.Twice (@n int) RETURNS int AS BEGIN RETURN @n * 2 END
GO
CREATE FUNCTION shop.PriceOn (@ItemID int, @On date)
RETURNS decimal(18,2)
WITH EXECUTE AS OWNER
AS
BEGIN
    DECLARE @Price decimal(18,2), @Best decimal(18,3), @Group int;
    SELECT @Price = Price, @Group = GroupID FROM shop.Items WHERE ItemID = @ItemID;
    SET @Best = (SELECT MAX(d.Discount) FROM shop.Deals AS d
                 WHERE (d.ItemID = @ItemID OR d.ItemID IS NULL) AND (d.GroupID = @Group OR d.GroupID IS NULL)
                 AND @On BETWEEN d.StartsOn AND d.EndsOn);
    IF @Best IS NOT NULL
    BEGIN
        SET @Price = ROUND(@Price * (100 - @Best) / 100.0, 2);
    END;
    RETURN @Price;
END
GO
CREATE FUNCTION shop.Digits (@n bigint)
RETURNS int
AS
BEGIN
    DECLARE @count int = 0;
    WHILE @n > 0
    BEGIN
        SET @count += 1;
        SET @n = @n / 10;
    END;
    RETURN @count;
END
GO
CREATE FUNCTION shop.ItemsOver (@Min decimal(18,2)) RETURNS TABLE AS RETURN (SELECT ItemID, Name, Price FROM shop.Items WHERE Price > @Min);
GO
CREATE PROCEDURE shop.ImportItems @Doc nvarchar(max), @UserID int
AS
BEGIN
    SET NOCOUNT ON;
    IF ISJSON(@Doc) = 0 THROW 51000, N'The items are not JSON', 1;
    INSERT INTO shop.Items (Name, Price, GroupID, Attributes, AddedBy)
    OUTPUT inserted.ItemID, inserted.Name
    SELECT Name, Price, GroupID, Attributes, @UserID
    FROM OPENJSON(@Doc, N'$.items')
    WITH (Name nvarchar(50) N'$.name', Price decimal(18,2) N'$.price', GroupID int N'$.group',
          Attributes nvarchar(max) N'$.attributes' AS JSON);
END
GO
CREATE PROCEDURE shop.RenameItem @ItemID int, @Change nvarchar(max)
AS
    UPDATE shop.Items SET Name = j.Name, Price = j.Price
    FROM OPENJSON(@Change) WITH (Name nvarchar(50) 'strict $.name', Price decimal(18,2)) AS j
    WHERE shop.Items.ItemID = @ItemID;
GO
CREATE PROCEDURE shop.KeysOf @Doc nvarchar(max)
AS
    SELECT [key], value, type FROM OPENJSON(@Doc) ORDER BY [key];
GO
CREATE PROCEDURE shop.ItemsNamed @Names nvarchar(max)
AS
    SELECT i.ItemID, i.Name FROM shop.Items AS i WHERE i.Name IN (SELECT value FROM OPENJSON(@Names)) ORDER BY i.ItemID;
GO
CREATE PROCEDURE shop.ColorOf @ItemID int
AS
    SELECT JSON_VALUE(Attributes, N'$.color') AS color, ISJSON(Attributes) AS valid FROM shop.Items WHERE ItemID = @ItemID;
GO
CREATE PROCEDURE shop.AddEvent @Events nvarchar(max) OUTPUT, @What nvarchar(40)
AS
BEGIN
    DECLARE @e nvarchar(max) = N'{ }';
    SET @e = JSON_MODIFY(@e, N'$.event', @What);
    SET @e = JSON_MODIFY(@e, N'$.path', N'a/b');
    SET @Events = JSON_MODIFY(@Events, N'append $.events', JSON_QUERY(@e));
    SELECT JSON_VALUE(@Events, N'$.events[0].event') AS first_event, ISJSON(@Events) AS valid;
END
GO
CREATE PROCEDURE shop.ItemsJson @MaxPrice decimal(18,2)
AS
    SELECT i.ItemID AS [id], i.Name AS [item.name], i.Price AS [item.price]
    FROM shop.Items AS i WHERE i.Price <= @MaxPrice ORDER BY i.ItemID
    FOR JSON PATH, ROOT('items');
GO
CREATE PROCEDURE shop.Quote @ItemID int, @On date
AS
BEGIN
    DECLARE @p decimal(18,2) = shop.PriceOn(@ItemID, @On);
    SELECT @p AS price, shop.Twice(@ItemID) AS twice;
    SELECT i.ItemID, shop.PriceOn(i.ItemID, @On) AS price FROM shop.Items AS i WHERE i.GroupID IS NOT NULL ORDER BY i.ItemID;
END
GO
CREATE PROCEDURE shop.Expensive @Min decimal(18,2)
AS
    SELECT o.ItemID, o.Name FROM shop.ItemsOver(@Min) AS o ORDER BY o.ItemID;
GO
CREATE PROCEDURE shop.CountDigits @n bigint
AS
BEGIN
    DECLARE @d int;
    SET @d = shop.Digits(@n);
    SELECT @d AS digits;
END
GO
CREATE PROCEDURE shop.DigitsOfItems
AS
    SELECT ItemID, shop.Digits(ItemID) AS digits FROM shop.Items;
GO
CREATE PROCEDURE shop.AddLines @OrderID int, @Lines shop.LineList READONLY
AS
BEGIN
    INSERT shop.Lines (OrderID, ItemID, Qty, Note) SELECT @OrderID, ItemID, Qty, Note FROM @Lines ORDER BY Ref;
    SELECT COUNT(*) AS added, SUM(Qty) AS total FROM @Lines;
END
GO
CREATE PROCEDURE shop.CopyLines @FromOrder int, @ToOrder int
AS
BEGIN
    DECLARE @copy shop.LineList;
    INSERT @copy (ItemID, Qty, Note) SELECT ItemID, Qty, N'copied' FROM shop.Lines WHERE OrderID = @FromOrder ORDER BY LineID;
    EXEC shop.AddLines @OrderID = @ToOrder, @Lines = @copy;
END
GO
CREATE PROCEDURE shop.CountRows @Table sysname, @Rows int OUTPUT
AS
BEGIN
    DECLARE @sql nvarchar(max) = N'SELECT @n = COUNT(*) FROM shop.' + QUOTENAME(@Table) + N';';
    EXEC sp_executesql @sql, N'@n int OUTPUT', @n = @Rows OUTPUT;
    RETURN @Rows;
END
GO
CREATE PROCEDURE shop.CheapestOf @Table sysname, @N int
AS
BEGIN
    DECLARE @sql nvarchar(400) = N'SELECT TOP (' + CAST(@N AS nvarchar(10)) + N') ItemID, Price FROM shop.'
        + QUOTENAME(@Table) + N' ORDER BY Price, ItemID';
    EXEC (@sql);
END
GO
CREATE PROCEDURE shop.Fingerprints @Text nvarchar(100), @Plain varchar(100)
AS
    SELECT HASHBYTES('SHA2_256', @Text) AS sha, HASHBYTES(N'MD5', @Plain) AS md5,
           STRING_ESCAPE(@Text, 'json') AS escaped, SERVERPROPERTY('IsXTPSupported') AS xtp,
           ABS(CHECKSUM(NEWID())) % 8 AS bucket;
GO
CREATE PROCEDURE shop.Catalog
AS
BEGIN
    DECLARE @found nvarchar(200) = N'';
    IF OBJECT_ID(N'shop.Items') IS NOT NULL SET @found = @found + N'items;';
    IF OBJECT_ID(N'shop.NoSuchTable') IS NULL SET @found = @found + N'no such table;';
    IF COL_LENGTH(N'shop.Items', N'Name') = 100 SET @found = @found + N'name is 100 bytes;';
    IF NOT EXISTS (SELECT 1 FROM sys.tables WHERE name = N'Items' AND is_memory_optimized <> 0)
        SET @found = @found + N'not memory optimized;';
    IF EXISTS (SELECT 1 FROM sys.sequences AS s WHERE s.name = N'ItemNumbers' AND SCHEMA_NAME(s.schema_id) = N'shop')
        SET @found = @found + N'sequence in shop;';
    SELECT @found AS found;
END
GO
CREATE PROCEDURE shop.ApplyCounts
AS
BEGIN
    MERGE shop.Stock AS s
    USING shop.Counted AS c
    ON s.Code = c.Code AND s.Bin = c.Bin
    WHEN MATCHED AND s.Qty <> c.Qty THEN UPDATE SET s.Qty = c.Qty
    WHEN NOT MATCHED BY TARGET THEN INSERT (Code, Bin, Qty) VALUES (c.Code, c.Bin, c.Qty)
    WHEN NOT MATCHED BY SOURCE THEN DELETE;
    SELECT Code, Bin, Qty FROM shop.Stock ORDER BY Code, Bin;
END
GO
CREATE PROCEDURE shop.ArchiveOrder @OrderID int, @On date
AS
BEGIN
    DELETE shop.Lines
    OUTPUT deleted.LineID, deleted.OrderID, deleted.Qty, @On INTO shop.Archive (LineID, OrderID, Qty, ArchivedOn)
    WHERE OrderID = @OrderID;
    SELECT COUNT(*) AS archived FROM shop.Archive WHERE OrderID = @OrderID;
END
GO
CREATE PROCEDURE shop.Raise @GroupID int
AS
    UPDATE shop.Items SET Price = Price + 1 OUTPUT inserted.ItemID, deleted.Price AS old_price, inserted.Price AS new_price
    WHERE GroupID = @GroupID;
GO
CREATE PROCEDURE shop.SetRate @RateID int, @Rate decimal(9,4)
AS
BEGIN
    IF EXISTS (SELECT 1 FROM shop.Rates WHERE RateID = @RateID)
        UPDATE shop.Rates SET Rate = @Rate WHERE RateID = @RateID;
    ELSE
        INSERT shop.Rates (RateID, Rate) VALUES (@RateID, @Rate);
END
GO
CREATE PROCEDURE shop.RateAt @RateID int, @At datetime2(7)
AS
    SELECT Rate FROM shop.Rates FOR SYSTEM_TIME AS OF @At WHERE RateID = @RateID;
GO
CREATE PROCEDURE shop.RateHistory @RateID int
AS
    SELECT Rate FROM shop.Rates FOR SYSTEM_TIME ALL WHERE RateID = @RateID ORDER BY ValidFrom;
GO
CREATE PROCEDURE shop.LineSpans
AS
BEGIN
    CREATE TABLE #Spans (OrderID int NOT NULL, LineID int NOT NULL, NextLineID int NULL);
    INSERT #Spans (OrderID, LineID) SELECT OrderID, LineID FROM shop.Lines;
    -- indexed for the lookups below, as procedures do: TiDB cannot index a temporary table after its CREATE
    CREATE INDEX IX_Spans ON #Spans (OrderID, LineID);
    UPDATE s SET NextLineID = (SELECT MIN(s2.LineID) FROM #Spans AS s2 WHERE s2.OrderID = s.OrderID
                                                                     AND s2.LineID > s.LineID)
    FROM #Spans AS s;
    SELECT OrderID, LineID, NextLineID FROM #Spans ORDER BY LineID;
END
GO
CREATE PROCEDURE shop.UniqueSpans
AS
BEGIN
    CREATE TABLE #Spans (OrderID int NOT NULL);
    INSERT #Spans (OrderID) SELECT OrderID FROM shop.Lines;
    CREATE UNIQUE INDEX IX_Spans ON #Spans (OrderID);
    SELECT COUNT(*) FROM #Spans;
END
GO
CREATE PROCEDURE shop.LoadWithHint
AS
    INSERT shop.Lines WITH (TABLOCK) (OrderID, ItemID, Qty) SELECT 90, ItemID, 1 FROM shop.Items WHERE GroupID = 1;
GO
CREATE PROCEDURE shop.RecordCounts @Rows shop.LineList READONLY
WITH NATIVE_COMPILATION, SCHEMABINDING
AS
BEGIN ATOMIC WITH (TRANSACTION ISOLATION LEVEL = SNAPSHOT, LANGUAGE = N'English')
    INSERT shop.Lines (OrderID, ItemID, Qty) SELECT 70, ItemID, Qty FROM @Rows;
    IF EXISTS (SELECT 1 FROM @Rows WHERE Qty < 0)
        THROW 51001, N'A negative quantity', 1;
END
GO
CREATE PROCEDURE shop.ConfigureAuditing
AS
BEGIN
    IF SERVERPROPERTY(N'IsXTPSupported') = 0
    BEGIN
        PRINT N'This edition cannot audit here.';
        RETURN 0;
    END;
    DECLARE @sql nvarchar(max) = N'CREATE SERVER AUDIT ShopAudit TO FILE (FILEPATH = N''/audit/'');';
    EXEC (@sql);
END
GO
