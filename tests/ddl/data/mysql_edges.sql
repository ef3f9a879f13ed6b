-- A schema written for the MySQL target's edges: sequences in every form, CHECKs MySQL refuses,
-- a computed primary key, expression defaults, filtered and covering indexes, collations.
CREATE SEQUENCE [Seq].[TicketNo] AS int START WITH 1000 INCREMENT BY 1;
GO
CREATE SEQUENCE [Seq].[Shared] AS bigint START WITH 1 INCREMENT BY 5;
GO
CREATE SEQUENCE [Seq].[Countdown] AS int START WITH 100 INCREMENT BY -1 MINVALUE 1 MAXVALUE 100;
GO
CREATE SEQUENCE [Seq].[Slot] AS tinyint START WITH 1 INCREMENT BY 1 MINVALUE 1 MAXVALUE 3 CYCLE;
GO
CREATE SEQUENCE [Seq].[Batch] AS int START WITH 1 INCREMENT BY 1 MINVALUE 1 MAXVALUE 2;
GO
CREATE SEQUENCE [Seq].[Audit] AS int START WITH 7;
GO
CREATE TABLE [dbo].[Tickets] (
    [TicketNo] int NOT NULL CONSTRAINT [DF_Tickets_No] DEFAULT (NEXT VALUE FOR [Seq].[TicketNo]),
    [Title] nvarchar(200) COLLATE Latin1_General_CS_AS NOT NULL,
    [Tag] nvarchar(40) COLLATE Latin1_General_CI_AI NULL,
    [Body] nvarchar(max) NOT NULL CONSTRAINT [DF_Tickets_Body] DEFAULT (N''),
    [Opened] date NOT NULL DEFAULT (getdate()),
    [Code] nvarchar(10) NOT NULL DEFAULT (upper(N'new')),
    CONSTRAINT [PK_Tickets] PRIMARY KEY CLUSTERED ([TicketNo])
);
GO
CREATE TABLE [dbo].[Invoices] (
    [InvoiceID] bigint NOT NULL DEFAULT (NEXT VALUE FOR [Seq].[Shared]),
    [Total] decimal(12,2) NOT NULL,
    CONSTRAINT [PK_Invoices] PRIMARY KEY ([InvoiceID])
);
GO
CREATE TABLE [dbo].[Credits] (
    [CreditID] bigint NOT NULL DEFAULT (NEXT VALUE FOR [Seq].[Shared]),
    [Amount] decimal(12,2) NOT NULL,
    CONSTRAINT [PK_Credits] PRIMARY KEY ([CreditID])
);
GO
CREATE TABLE [dbo].[Launches] (
    [LaunchID] int IDENTITY(1,1) NOT NULL,
    [Countdown] int NOT NULL DEFAULT (NEXT VALUE FOR [Seq].[Countdown]),
    [Slot] tinyint NOT NULL DEFAULT (NEXT VALUE FOR [Seq].[Slot]),
    CONSTRAINT [PK_Launches] PRIMARY KEY ([LaunchID]),
    CONSTRAINT [CK_Launches_ID] CHECK ([LaunchID] > 0),
    CONSTRAINT [CK_Launches_Slot] CHECK ([Slot] BETWEEN 1 AND 3)
);
GO
CREATE TABLE [dbo].[Regions] (
    [RegionCode] char(2) NOT NULL,
    [Name] nvarchar(50) NOT NULL,
    CONSTRAINT [PK_Regions] PRIMARY KEY ([RegionCode])
);
GO
CREATE TABLE [dbo].[Stores] (
    [StoreID] uniqueidentifier NOT NULL CONSTRAINT [DF_Stores_ID] DEFAULT (newid()),
    [RegionCode] char(2) NULL,
    [Name] nvarchar(100) NOT NULL,
    [Active] bit NOT NULL DEFAULT ((1)),
    [Opened] datetime2(3) NOT NULL DEFAULT (sysdatetime()),
    CONSTRAINT [PK_Stores] PRIMARY KEY CLUSTERED ([StoreID]),
    CONSTRAINT [CK_Stores_Region] CHECK ([RegionCode] <> 'XX'),
    CONSTRAINT [FK_Stores_Regions] FOREIGN KEY ([RegionCode]) REFERENCES [dbo].[Regions] ([RegionCode]) ON UPDATE CASCADE
);
GO
CREATE NONCLUSTERED INDEX [IX_Stores_Name] ON [dbo].[Stores] ([Name] DESC) INCLUDE ([Active]);
GO
CREATE UNIQUE NONCLUSTERED INDEX [UX_Stores_ActiveName] ON [dbo].[Stores] ([Name]) WHERE ([Active] = (1));
GO
CREATE TABLE [dbo].[Readings] (
    [SensorID] int NOT NULL,
    [Minute] int NOT NULL,
    [Hour] AS ([Minute] / 60),
    [Value] decimal(9,3) NOT NULL,
    CONSTRAINT [PK_Readings] PRIMARY KEY ([SensorID], [Hour], [Minute])
);
GO
