-- An ETL schema written for the procedure runner's tests (not a corpus's): staging tables loaded by an outside
-- tool, procedures that move them into dimensions and facts, keep lineage and cut-off times, reseed sequences,
-- fill a date dimension, and configure the database. Every procedure is called on TiDB with the tool's own DDL.
CREATE SCHEMA Dim;
GO
CREATE SCHEMA Fct;
GO
CREATE SCHEMA Etl;
GO
CREATE SCHEMA Seq;
GO
CREATE SCHEMA Config;
GO
CREATE SEQUENCE Seq.CityKey AS int START WITH 1;
GO
CREATE SEQUENCE Seq.CustomerKey AS int START WITH 1;
GO
CREATE SEQUENCE Seq.LineageKey AS int START WITH 1;
GO
CREATE TABLE Etl.Lineage (LineageKey int NOT NULL DEFAULT (NEXT VALUE FOR Seq.LineageKey) PRIMARY KEY,
    DataLoadStarted datetime2(7) NOT NULL, TableName nvarchar(128) NOT NULL, DataLoadCompleted datetime2(7) NULL,
    WasSuccessful bit NOT NULL, SourceSystemCutoffTime datetime2(7) NOT NULL);
GO
CREATE TABLE Etl.Cutoff (TableName nvarchar(128) NOT NULL PRIMARY KEY, CutoffTime datetime2(7) NOT NULL);
GO
CREATE TABLE Dim.Date ([Date] date NOT NULL PRIMARY KEY, DayNumber int NOT NULL, [Day] nvarchar(10) NOT NULL,
    [Month] nvarchar(10) NOT NULL, ShortMonth nvarchar(3) NOT NULL, CalendarMonthNumber int NOT NULL,
    CalendarYear int NOT NULL, ISOWeekNumber int NOT NULL);
GO
CREATE TABLE Dim.City (CityKey int NOT NULL DEFAULT (NEXT VALUE FOR Seq.CityKey) PRIMARY KEY, SourceCityID int NOT NULL,
    City nvarchar(50) NOT NULL, Region nvarchar(30) NOT NULL, ValidFrom datetime2(7) NOT NULL, ValidTo datetime2(7) NOT NULL,
    LineageKey int NOT NULL);
GO
CREATE TABLE Dim.Customer (CustomerKey int NOT NULL DEFAULT (NEXT VALUE FOR Seq.CustomerKey) PRIMARY KEY,
    SourceCustomerID int NOT NULL, Customer nvarchar(100) NOT NULL, Category nvarchar(50) NOT NULL,
    ValidFrom datetime2(7) NOT NULL, ValidTo datetime2(7) NOT NULL, LineageKey int NOT NULL);
GO
CREATE TABLE Fct.Sale (SaleKey bigint IDENTITY(1,1) NOT NULL PRIMARY KEY, CityKey int NOT NULL, CustomerKey int NOT NULL,
    InvoiceDateKey date NOT NULL, SourceInvoiceID int NOT NULL, Description nvarchar(100) NOT NULL, Quantity int NOT NULL,
    UnitPrice decimal(18,2) NOT NULL, TotalExcludingTax decimal(18,2) NOT NULL, LineageKey int NOT NULL);
GO
CREATE TABLE Fct.Movement (MovementKey bigint IDENTITY(1,1) NOT NULL PRIMARY KEY, DateKey date NOT NULL,
    SourceTransactionID int NOT NULL, Quantity int NOT NULL, LineageKey int NOT NULL);
GO
CREATE TABLE Etl.City_Staging (StagingKey int IDENTITY(1,1) NOT NULL PRIMARY KEY, SourceCityID int NOT NULL,
    City nvarchar(50) NOT NULL, Region nvarchar(30) NOT NULL, ValidFrom datetime2(7) NOT NULL, ValidTo datetime2(7) NOT NULL);
GO
CREATE TABLE Etl.Customer_Staging (StagingKey int IDENTITY(1,1) NOT NULL PRIMARY KEY, SourceCustomerID int NOT NULL,
    Customer nvarchar(100) NOT NULL, Category nvarchar(50) NOT NULL, ValidFrom datetime2(7) NOT NULL, ValidTo datetime2(7) NOT NULL);
GO
CREATE TABLE Etl.Sale_Staging (StagingKey int IDENTITY(1,1) NOT NULL PRIMARY KEY, SourceCityID int NOT NULL,
    SourceCustomerID int NOT NULL, InvoiceDate date NOT NULL, SourceInvoiceID int NOT NULL, Description nvarchar(100) NOT NULL,
    Quantity int NOT NULL, UnitPrice decimal(18,2) NOT NULL, LastModified datetime2(7) NOT NULL,
    CityKey int NULL, CustomerKey int NULL, LineageKey int NULL);
GO
CREATE TABLE Etl.Movement_Staging (StagingKey int IDENTITY(1,1) NOT NULL PRIMARY KEY, DateKey date NOT NULL,
    SourceTransactionID int NOT NULL, Quantity int NOT NULL, LineageKey int NULL);
GO
CREATE PROCEDURE Etl.GetCutoff @TableName sysname
AS
BEGIN
    SET NOCOUNT ON;
    SELECT CutoffTime FROM Etl.Cutoff WHERE TableName = @TableName;
    IF @@ROWCOUNT < 1
    BEGIN
        PRINT N'Invalid ETL table name';
        THROW 51000, N'Invalid ETL table name', 1;
    END;
    RETURN 0;
END
GO
CREATE PROCEDURE Etl.NewLineage @TableName sysname, @NewCutoff datetime2(7), @LineageKey int OUTPUT
AS
BEGIN
    SET NOCOUNT ON;
    SET XACT_ABORT ON;
    DECLARE @started datetime2(7) = SYSDATETIME();
    INSERT Etl.Lineage (DataLoadStarted, TableName, DataLoadCompleted, WasSuccessful, SourceSystemCutoffTime)
    VALUES (@started, @TableName, NULL, 0, @NewCutoff);
    SET @LineageKey = (SELECT TOP (1) LineageKey FROM Etl.Lineage WHERE TableName = @TableName AND DataLoadStarted = @started
                       ORDER BY LineageKey DESC);
    RETURN 0;
END
GO
CREATE PROCEDURE Etl.FinishLineage @TableName sysname, @LineageKey int
AS
BEGIN
    UPDATE Etl.Lineage SET DataLoadCompleted = SYSDATETIME(), WasSuccessful = 1 WHERE LineageKey = @LineageKey;
    UPDATE Etl.Cutoff SET CutoffTime = (SELECT SourceSystemCutoffTime FROM Etl.Lineage WHERE LineageKey = @LineageKey)
    FROM Etl.Cutoff WHERE TableName = @TableName;
END
GO
CREATE PROCEDURE Etl.MoveCities
WITH EXECUTE AS OWNER
AS
BEGIN
    SET NOCOUNT ON;
    SET XACT_ABORT ON;
    DECLARE @EndOfTime datetime2(7) = '99991231 23:59:59.9999999';
    DECLARE @Lineage int;
    EXEC Etl.NewLineage N'City', @EndOfTime, @Lineage OUTPUT;
    BEGIN TRAN;
    WITH Firsts AS (SELECT SourceCityID, MIN(ValidFrom) AS ValidFrom FROM Etl.City_Staging GROUP BY SourceCityID)
    UPDATE c SET c.ValidTo = f.ValidFrom
    FROM Dim.City AS c INNER JOIN Firsts AS f ON c.SourceCityID = f.SourceCityID
    WHERE c.ValidTo = @EndOfTime;
    INSERT Dim.City (SourceCityID, City, Region, ValidFrom, ValidTo, LineageKey)
    SELECT SourceCityID, City, Region, ValidFrom, ValidTo, @Lineage FROM Etl.City_Staging;
    COMMIT;
    EXEC Etl.FinishLineage N'City', @Lineage;
    RETURN 0;
END
GO
CREATE PROCEDURE Etl.MoveCustomers
AS
BEGIN
    SET NOCOUNT ON;
    SET XACT_ABORT ON;
    DECLARE @EndOfTime datetime2(7) = '99991231 23:59:59.9999999', @Lineage int;
    EXEC Etl.NewLineage @TableName = N'Customer', @NewCutoff = @EndOfTime, @LineageKey = @Lineage OUTPUT;
    MERGE Dim.Customer AS d
    USING Etl.Customer_Staging AS s ON d.SourceCustomerID = s.SourceCustomerID AND d.ValidTo = @EndOfTime
    WHEN MATCHED AND (d.Customer <> s.Customer OR d.Category <> s.Category) THEN
        UPDATE SET d.ValidTo = s.ValidFrom
    WHEN NOT MATCHED THEN
        INSERT (SourceCustomerID, Customer, Category, ValidFrom, ValidTo, LineageKey)
        VALUES (s.SourceCustomerID, s.Customer, s.Category, s.ValidFrom, s.ValidTo, @Lineage);
    EXEC Etl.FinishLineage N'Customer', @Lineage;
END
GO
CREATE PROCEDURE Etl.MoveSales
AS
BEGIN
    SET NOCOUNT ON;
    SET XACT_ABORT ON;
    DECLARE @EndOfTime datetime2(7) = '99991231 23:59:59.9999999', @Lineage int;
    EXEC Etl.NewLineage N'Sale', @EndOfTime, @Lineage OUTPUT;
    BEGIN TRAN;
    UPDATE s SET s.CityKey = COALESCE((SELECT TOP (1) c.CityKey FROM Dim.City AS c WHERE c.SourceCityID = s.SourceCityID
                                       AND s.LastModified > c.ValidFrom AND s.LastModified <= c.ValidTo ORDER BY c.ValidFrom), 0),
                 s.CustomerKey = COALESCE((SELECT TOP (1) c.CustomerKey FROM Dim.Customer AS c
                                           WHERE c.SourceCustomerID = s.SourceCustomerID ORDER BY c.ValidFrom DESC), 0),
                 s.LineageKey = @Lineage
    FROM Etl.Sale_Staging AS s;
    DELETE f FROM Fct.Sale AS f WHERE f.SourceInvoiceID IN (SELECT SourceInvoiceID FROM Etl.Sale_Staging);
    INSERT Fct.Sale WITH (TABLOCK)
        (CityKey, CustomerKey, InvoiceDateKey, SourceInvoiceID, Description, Quantity, UnitPrice, TotalExcludingTax, LineageKey)
    SELECT CityKey, CustomerKey, InvoiceDate, SourceInvoiceID, Description, Quantity, UnitPrice, Quantity * UnitPrice, LineageKey
    FROM Etl.Sale_Staging;
    COMMIT;
    EXEC Etl.FinishLineage N'Sale', @Lineage;
END
GO
CREATE PROCEDURE Etl.MoveMovements
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @Lineage int;
    EXEC Etl.NewLineage N'Movement', '20300101', @Lineage OUTPUT;
    UPDATE Etl.Movement_Staging SET LineageKey = @Lineage;
    MERGE Fct.Movement AS m
    USING Etl.Movement_Staging AS ms ON m.SourceTransactionID = ms.SourceTransactionID
    WHEN MATCHED THEN UPDATE SET m.Quantity = ms.Quantity, m.LineageKey = ms.LineageKey
    WHEN NOT MATCHED THEN INSERT (DateKey, SourceTransactionID, Quantity, LineageKey)
        VALUES (ms.DateKey, ms.SourceTransactionID, ms.Quantity, ms.LineageKey);
    EXEC Etl.FinishLineage N'Movement', @Lineage;
END
GO
CREATE PROCEDURE Etl.FillDateDimension @Year int
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @d date = DATEFROMPARTS(@Year, 1, 1);
    DECLARE @last date = DATEFROMPARTS(@Year, 12, 31);
    WHILE @d <= @last
    BEGIN
        IF NOT EXISTS (SELECT 1 FROM Dim.Date WHERE [Date] = @d)
            INSERT Dim.Date ([Date], DayNumber, [Day], [Month], ShortMonth, CalendarMonthNumber, CalendarYear, ISOWeekNumber)
            VALUES (@d, DAY(@d), DATENAME(weekday, @d), DATENAME(month, @d), SUBSTRING(DATENAME(month, @d), 1, 3),
                    MONTH(@d), YEAR(@d), DATEPART(ISO_WEEK, @d));
        SET @d = DATEADD(day, 1, @d);
    END;
END
GO
CREATE PROCEDURE Etl.ClearStaging @TableName sysname
AS
BEGIN
    DECLARE @sql nvarchar(400) = N'DELETE FROM Etl.' + QUOTENAME(@TableName + N'_Staging') + N';';
    EXEC (@sql);
END
GO
CREATE PROCEDURE Etl.SalesByRegion @From date, @To date
AS
    SELECT c.Region, SUM(f.TotalExcludingTax) AS Total, COUNT(*) AS Lines
    FROM Fct.Sale AS f JOIN Dim.City AS c ON c.CityKey = f.CityKey
    WHERE f.InvoiceDateKey BETWEEN @From AND @To
    GROUP BY c.Region ORDER BY c.Region;
GO
CREATE PROCEDURE Etl.LoadSummary
AS
    SELECT TableName AS [table], CutoffTime AS [cutoff] FROM Etl.Cutoff ORDER BY TableName FOR JSON PATH, ROOT('loads');
GO
CREATE PROCEDURE Etl.StageCities @Cities nvarchar(max)
AS
    INSERT Etl.City_Staging (SourceCityID, City, Region, ValidFrom, ValidTo)
    OUTPUT inserted.StagingKey
    SELECT CityID, City, Region, ValidFrom, '99991231 23:59:59.9999999'
    FROM OPENJSON(@Cities) WITH (CityID int '$.id', City nvarchar(50) '$.name', Region nvarchar(30) '$.region',
                                 ValidFrom datetime2(7) '$.from');
GO
CREATE PROCEDURE Seq.ReseedBeyond @SequenceName sysname, @SchemaName sysname, @TableName sysname, @ColumnName sysname
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @sql nvarchar(max), @TableMax bigint, @NewValue bigint;
    DECLARE @SequenceNow bigint = (SELECT CAST(current_value AS bigint) FROM sys.sequences
                                   WHERE name = @SequenceName AND SCHEMA_NAME(schema_id) = N'Seq');
    CREATE TABLE #Max (MaxValue bigint)
    SET @sql = N'INSERT #Max (MaxValue) SELECT COALESCE(MAX(' + QUOTENAME(@ColumnName) + N'), 0) FROM '
             + QUOTENAME(@SchemaName) + N'.' + QUOTENAME(@TableName) + N';';
    EXECUTE (@sql);
    SET @TableMax = (SELECT MaxValue FROM #Max);
    DROP TABLE #Max;
    IF @SequenceNow IS NULL OR @TableMax >= @SequenceNow
    BEGIN
        SET @NewValue = @TableMax + 1;
        SET @sql = N'ALTER SEQUENCE Seq.' + QUOTENAME(@SequenceName) + N' RESTART WITH ' + CAST(@NewValue AS nvarchar(20)) + N';';
        EXECUTE (@sql);
    END;
END
GO
CREATE PROCEDURE Seq.ReseedAll
AS
BEGIN
    EXEC Seq.ReseedBeyond 'CityKey', 'Dim', 'City', 'CityKey';
    EXEC Seq.ReseedBeyond 'CustomerKey', 'Dim', 'Customer', 'CustomerKey';
    EXEC Seq.ReseedBeyond 'LineageKey', 'Etl', 'Lineage', 'LineageKey';
END
GO
CREATE PROCEDURE Config.EnableInMemory
AS
BEGIN
    IF SERVERPROPERTY(N'IsXTPSupported') = 0
    BEGIN
        PRINT N'Warning: In-memory tables cannot be created on this edition.';
        RETURN 0;
    END;
    DECLARE @sql nvarchar(max) = N'ALTER DATABASE CURRENT ADD FILEGROUP InMem CONTAINS MEMORY_OPTIMIZED_DATA;';
    EXECUTE (@sql);
END
GO
CREATE PROCEDURE Config.ApplyPartitioning
AS
BEGIN
    IF SERVERPROPERTY('EngineEdition') <> 3
    BEGIN
        PRINT N'Partitioning is applied on Enterprise edition only.';
        RETURN 0;
    END;
    IF NOT EXISTS (SELECT 1 FROM sys.indexes WHERE name = N'CX_Sale_ByDate')
    BEGIN
        DECLARE @sql nvarchar(max) = N'CREATE PARTITION FUNCTION PF_Date (date) AS RANGE RIGHT FOR VALUES (''20240101'');';
        EXECUTE (@sql);
    END;
END
GO
CREATE PROCEDURE Config.CreateRoleIfMissing @Role sysname
AS
BEGIN
    IF NOT EXISTS (SELECT 1 FROM sys.schemas WHERE name = @Role)
    BEGIN
        DECLARE @sql nvarchar(max) = N'CREATE ROLE ' + QUOTENAME(@Role) + N';';
        PRINT @sql;
    END;
END
GO
CREATE FUNCTION Etl.EndOfTime() RETURNS datetime2(7)
AS
BEGIN
    RETURN CAST('99991231 23:59:59.9999999' AS datetime2(7));
END
GO
CREATE PROCEDURE Etl.GetSaleUpdates @LastCutoff datetime2(7), @NewCutoff datetime2(7)
AS
BEGIN
    SET NOCOUNT ON;
    CREATE TABLE #Changes (SourceInvoiceID int NOT NULL, Lines int NOT NULL, Total decimal(18,2) NOT NULL,
                           FirstModified datetime2(7) NULL);
    INSERT #Changes (SourceInvoiceID, Lines, Total)
    SELECT SourceInvoiceID, COUNT(*), SUM(Quantity * UnitPrice) FROM Etl.Sale_Staging
    WHERE LastModified > @LastCutoff AND LastModified <= @NewCutoff GROUP BY SourceInvoiceID;
    UPDATE c SET c.FirstModified = (SELECT MIN(s.LastModified) FROM Etl.Sale_Staging AS s
                                    WHERE s.SourceInvoiceID = c.SourceInvoiceID)
    FROM #Changes AS c;
    SELECT SourceInvoiceID, Lines, Total, FirstModified FROM #Changes ORDER BY SourceInvoiceID;
    DROP TABLE #Changes;
    RETURN 0;
END
GO
CREATE PROCEDURE Etl.ChangedCustomers
AS
    SELECT s.SourceCustomerID, s.Customer
    FROM Etl.Customer_Staging AS s
    JOIN Dim.Customer AS d ON d.SourceCustomerID = s.SourceCustomerID AND d.ValidTo = Etl.EndOfTime()
    WHERE HASHBYTES('SHA2_256', CONCAT(s.Customer, N'|', s.Category))
       <> HASHBYTES('SHA2_256', CONCAT(d.Customer, N'|', d.Category))
    ORDER BY s.SourceCustomerID;
GO
CREATE PROCEDURE Etl.LogLoad @TableName sysname, @Rows int, @Log nvarchar(4000) OUTPUT
AS
BEGIN
    IF @Log IS NULL OR ISJSON(@Log) = 0 SET @Log = N'{"loads":[]}';
    SET @Log = JSON_MODIFY(@Log, 'append $.loads', JSON_QUERY(CONCAT(N'{"table":"', STRING_ESCAPE(@TableName, 'json'),
                                                                N'","rows":', @Rows, N'}')));
    SELECT JSON_VALUE(@Log, '$.loads[0].table') AS FirstTable;
    RETURN 0;
END
GO
CREATE PROCEDURE Etl.RunAll @Year int
AS
BEGIN
    EXEC Etl.FillDateDimension @Year;
    EXEC Etl.MoveCities;
    EXEC Etl.MoveCustomers;
    EXEC Etl.MoveSales;
    EXEC Etl.MoveMovements;
    EXEC Seq.ReseedAll;
END
GO
