-- A small publishing schema for the write tests (tests/compare/test_compare_writes.py): the project's own, written
-- for them. Each object is there for a way a write can mean something else on the target: an IDENTITY numbering
-- orders, a CHECK, a unique key, a foreign key that cascades, a trigger that writes another table, one that refuses
-- a row, a procedure that writes two tables and returns the key it made.
CREATE TABLE dbo.authors (
  au_id varchar(11) NOT NULL PRIMARY KEY,
  au_lname varchar(40) NOT NULL,
  city varchar(20) NULL,
  contract bit NOT NULL
);
GO
CREATE TABLE dbo.titles (
  title_id varchar(6) NOT NULL PRIMARY KEY,
  title varchar(80) NOT NULL,
  price money NULL,
  royalty int NULL,
  ytd_sales int NULL,
  CONSTRAINT ck_titles_royalty CHECK (royalty >= 0 AND royalty <= 100)
);
GO
CREATE TABLE dbo.orders (
  order_id int IDENTITY(1,1) NOT NULL PRIMARY KEY,
  title_id varchar(6) NOT NULL REFERENCES dbo.titles (title_id),
  qty smallint NOT NULL CONSTRAINT ck_orders_qty CHECK (qty > 0),
  ordered datetime NOT NULL,
  discount decimal(4,1) NULL
);
GO
CREATE TABLE dbo.order_lines (
  order_id int NOT NULL REFERENCES dbo.orders (order_id) ON DELETE CASCADE,
  line int NOT NULL,
  note varchar(20) NULL,
  PRIMARY KEY (order_id, line)
);
GO
CREATE TABLE dbo.audit_log (
  id int IDENTITY(1,1) NOT NULL PRIMARY KEY,
  title_id varchar(6) NULL,
  old_price money NULL,
  new_price money NULL
);
GO
CREATE VIEW dbo.cheap_titles AS SELECT title_id, title, price FROM dbo.titles WHERE price < 15
GO
CREATE TRIGGER dbo.trg_titles_price ON dbo.titles AFTER UPDATE AS
BEGIN
  SET NOCOUNT ON;
  IF UPDATE(price)
    INSERT INTO dbo.audit_log (title_id, old_price, new_price)
    SELECT i.title_id, d.price, i.price FROM inserted i JOIN deleted d ON d.title_id = i.title_id
    WHERE ISNULL(i.price, -1) <> ISNULL(d.price, -1);
END
GO
CREATE TRIGGER dbo.trg_lines_note ON dbo.order_lines AFTER INSERT, UPDATE AS
BEGIN
  SET NOCOUNT ON;
  IF EXISTS (SELECT 1 FROM inserted WHERE note = 'forbidden')
  BEGIN
    RAISERROR ('a forbidden note', 16, 1);
    ROLLBACK TRANSACTION;
    RETURN;
  END
END
GO
CREATE PROCEDURE dbo.place_order @title_id varchar(6), @qty smallint, @ordered datetime, @sales int = NULL OUTPUT
AS
BEGIN
  SET NOCOUNT ON;
  DECLARE @id int;
  INSERT INTO dbo.orders (title_id, qty, ordered) VALUES (@title_id, @qty, @ordered);
  SET @id = SCOPE_IDENTITY();
  INSERT INTO dbo.order_lines (order_id, line, note) VALUES (@id, 1, 'placed');
  UPDATE dbo.titles SET ytd_sales = ytd_sales + @qty WHERE title_id = @title_id;
  SELECT @id AS order_id, (SELECT COUNT(*) FROM dbo.order_lines WHERE order_id = @id) AS lines;
  SELECT @sales = ytd_sales FROM dbo.titles WHERE title_id = @title_id;
  RETURN @qty * 10;
END
GO
