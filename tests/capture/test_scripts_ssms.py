"""A script in the shape SSMS "Generate Scripts" writes (database, options, existence checks, data), saved as UTF-16."""

from __future__ import annotations

from pathlib import Path

from sqlsrv2tidb import api
from sqlsrv2tidb.model import DataType, IndexColumn

SSMS_SCRIPT = """\
USE [master]
GO
/****** Object:  Database [Shop]    Script Date: 12/1/2024 9:00:00 AM ******/
CREATE DATABASE [Shop]
 CONTAINMENT = NONE
 ON  PRIMARY
( NAME = N'Shop', FILENAME = N'C:\\Data\\Shop.mdf' , SIZE = 8192KB , MAXSIZE = UNLIMITED, FILEGROWTH = 65536KB )
 LOG ON
( NAME = N'Shop_log', FILENAME = N'C:\\Data\\Shop_log.ldf' , SIZE = 8192KB , MAXSIZE = 2048GB , FILEGROWTH = 65536KB )
 COLLATE SQL_Latin1_General_CP1_CI_AS
 WITH CATALOG_COLLATION = DATABASE_DEFAULT, LEDGER = OFF
GO
ALTER DATABASE [Shop] SET COMPATIBILITY_LEVEL = 160
GO
IF (1 = FULLTEXTSERVICEPROPERTY('IsFullTextInstalled'))
begin
EXEC [Shop].[dbo].[sp_fulltext_database] @action = 'enable'
end
GO
ALTER DATABASE [Shop] SET QUERY_STORE (OPERATION_MODE = READ_WRITE, CLEANUP_POLICY = (STALE_QUERY_THRESHOLD_DAYS = 30))
GO
USE [Shop]
GO
/****** Object:  UserDefinedDataType [dbo].[Phone]    Script Date: 12/1/2024 9:00:00 AM ******/
CREATE TYPE [dbo].[Phone] FROM [nvarchar](25) NULL
GO
/****** Object:  Table [dbo].[Customers]    Script Date: 12/1/2024 9:00:00 AM ******/
SET ANSI_NULLS ON
GO
SET QUOTED_IDENTIFIER ON
GO
IF NOT EXISTS (SELECT * FROM sys.objects WHERE object_id = OBJECT_ID(N'[dbo].[Customers]') AND type in (N'U'))
BEGIN
CREATE TABLE [dbo].[Customers](
\t[CustomerID] [int] IDENTITY(1,1) NOT NULL,
\t[Name] [nvarchar](100) NOT NULL,
\t[Phone] [dbo].[Phone] NULL,
\t[Notes] [nvarchar](max) NULL,
 CONSTRAINT [PK_Customers] PRIMARY KEY CLUSTERED
(
\t[CustomerID] ASC
)WITH (PAD_INDEX = OFF, STATISTICS_NORECOMPUTE = OFF, IGNORE_DUP_KEY = OFF, ALLOW_ROW_LOCKS = ON, ALLOW_PAGE_LOCKS = ON, OPTIMIZE_FOR_SEQUENTIAL_KEY = OFF) ON [PRIMARY]
) ON [PRIMARY] TEXTIMAGE_ON [PRIMARY]
END
GO
/****** Object:  Table [dbo].[Orders]    Script Date: 12/1/2024 9:00:00 AM ******/
CREATE TABLE [dbo].[Orders](
\t[OrderID] [bigint] IDENTITY(1,1) NOT NULL,
\t[CustomerID] [int] NOT NULL,
\t[Total] [money] NULL,
\t[Placed] [datetime2](3) NOT NULL,
 CONSTRAINT [PK_Orders] PRIMARY KEY NONCLUSTERED
(
\t[OrderID] ASC
)WITH (PAD_INDEX = OFF, STATISTICS_NORECOMPUTE = OFF, IGNORE_DUP_KEY = OFF, ALLOW_ROW_LOCKS = ON, ALLOW_PAGE_LOCKS = ON) ON [PRIMARY]
) ON [PRIMARY]
GO
/****** Object:  Index [CX_Orders_Placed]    Script Date: 12/1/2024 9:00:00 AM ******/
CREATE CLUSTERED INDEX [CX_Orders_Placed] ON [dbo].[Orders]
(
\t[Placed] DESC
)WITH (PAD_INDEX = OFF, STATISTICS_NORECOMPUTE = OFF, SORT_IN_TEMPDB = OFF, DROP_EXISTING = OFF, ONLINE = OFF, ALLOW_ROW_LOCKS = ON, ALLOW_PAGE_LOCKS = ON) ON [PRIMARY]
GO
SET ANSI_PADDING ON
GO
/****** Object:  Index [IX_Orders_Customer]    Script Date: 12/1/2024 9:00:00 AM ******/
CREATE NONCLUSTERED INDEX [IX_Orders_Customer] ON [dbo].[Orders]
(
\t[CustomerID] ASC
)
INCLUDE([Total])
WHERE ([Total]>(0))
WITH (PAD_INDEX = OFF, STATISTICS_NORECOMPUTE = OFF, SORT_IN_TEMPDB = OFF, DROP_EXISTING = OFF, ONLINE = OFF, ALLOW_ROW_LOCKS = ON, ALLOW_PAGE_LOCKS = ON) ON [PRIMARY]
GO
ALTER TABLE [dbo].[Orders] ADD  CONSTRAINT [DF_Orders_Total]  DEFAULT ((0)) FOR [Total]
GO
ALTER TABLE [dbo].[Orders]  WITH CHECK ADD  CONSTRAINT [FK_Orders_Customers] FOREIGN KEY([CustomerID])
REFERENCES [dbo].[Customers] ([CustomerID])
ON DELETE CASCADE
GO
ALTER TABLE [dbo].[Orders] CHECK CONSTRAINT [FK_Orders_Customers]
GO
ALTER TABLE [dbo].[Orders]  WITH NOCHECK ADD  CONSTRAINT [CK_Orders_Total] CHECK  (([Total]>=(0)))
GO
ALTER TABLE [dbo].[Orders] NOCHECK CONSTRAINT [CK_Orders_Total]
GO
/****** Object:  View [dbo].[BigOrders]    Script Date: 12/1/2024 9:00:00 AM ******/
SET ANSI_NULLS ON
GO
SET QUOTED_IDENTIFIER ON
GO
IF NOT EXISTS (SELECT * FROM sys.views WHERE object_id = OBJECT_ID(N'[dbo].[BigOrders]'))
EXEC dbo.sp_executesql @statement = N'CREATE VIEW [dbo].[BigOrders]
AS
SELECT OrderID, Total FROM dbo.Orders WHERE Total > 1000
'
GO
EXEC sys.sp_addextendedproperty @name=N'MS_Description', @value=N'Orders of all customers' , @level0type=N'SCHEMA',@level0name=N'dbo', @level1type=N'TABLE',@level1name=N'Orders'
GO
SET IDENTITY_INSERT [dbo].[Customers] ON
GO
INSERT [dbo].[Customers] ([CustomerID], [Name], [Phone], [Notes]) VALUES (1, N'Contoso', N'555-0100', NULL)
GO
INSERT [dbo].[Customers] ([CustomerID], [Name], [Phone], [Notes]) VALUES (2, N'Fabrikam', NULL, N'It''s new')
GO
SET IDENTITY_INSERT [dbo].[Customers] OFF
GO
USE [master]
GO
ALTER DATABASE [Shop] SET  READ_WRITE
GO
"""


def test_ssms_generated_script_in_utf16_reads_completely(tmp_path: Path):
    path = tmp_path / "Shop.sql"
    path.write_bytes(b"\xff\xfe" + SSMS_SCRIPT.replace("\n", "\r\n").encode("utf-16-le"))
    capture = api.read([path])
    db = capture.database
    assert not capture.findings
    assert (db.name, db.collation) == ("Shop", "SQL_Latin1_General_CP1_CI_AS")
    customers, orders = db.table("dbo", "Customers"), db.table("dbo", "Orders")
    assert customers.source.line == 34 and customers.scripted_rows == 2
    assert customers.column("Phone").type == DataType("nvarchar", length=25, alias="dbo.Phone")
    assert customers.column("Notes").type.is_max
    assert not orders.primary_key.clustered and orders.primary_key.name == "PK_Orders"
    ix = {i.name: i for i in orders.indexes}
    assert ix["CX_Orders_Placed"].clustered and ix["CX_Orders_Placed"].columns == (IndexColumn("Placed", True),)
    assert ix["IX_Orders_Customer"].include == ("Total",) and ix["IX_Orders_Customer"].filter == "([Total]>(0))"
    assert orders.column("Total").default == "((0))" and orders.column("Placed").type == DataType("datetime2", scale=3)
    fk = orders.foreign_keys[0]
    assert (fk.on_delete, fk.disabled, fk.not_trusted) == ("cascade", False, False)
    check = orders.checks[0]
    assert (check.expression, check.disabled, check.not_trusted) == ("(([Total]>=(0)))", True, True)
    view = db.modules_of("view")[0]
    assert view.qualified_name == "dbo.BigOrders" and view.source.line == 93
    assert view.definition.startswith("CREATE VIEW [dbo].[BigOrders]\nAS\nSELECT")
    assert orders.description == "Orders of all customers"
