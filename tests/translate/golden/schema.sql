-- The golden schema: the SQL Server tables the golden queries (queries.sql) refer to.
-- Applied to MariaDB through the project's DDL generator (api.plan), with rows from rows.sql.
CREATE TABLE dbo.customers (
    id INT IDENTITY(1,1) NOT NULL,
    first_name NVARCHAR(50) NOT NULL,
    last_name NVARCHAR(50) NULL,
    email NVARCHAR(256) NULL,
    code CHAR(5) NULL,
    created_at DATETIME2(7) NOT NULL,
    birth_date DATE NULL,
    score INT NULL,
    balance MONEY NULL,
    active BIT NOT NULL,
    notes NVARCHAR(MAX) NULL,
    ref UNIQUEIDENTIFIER NULL,
    CONSTRAINT PK_customers PRIMARY KEY CLUSTERED (id),
    CONSTRAINT UQ_customers_email UNIQUE (email)
);
GO
CREATE TABLE dbo.products (
    id INT NOT NULL,
    name NVARCHAR(100) NOT NULL,
    category VARCHAR(20) NULL,
    price MONEY NOT NULL,
    weight FLOAT NULL,
    CONSTRAINT PK_products PRIMARY KEY (id)
);
GO
CREATE TABLE dbo.orders (
    id INT IDENTITY(1,1) NOT NULL,
    customer_id INT NOT NULL,
    status VARCHAR(10) NOT NULL,
    amount DECIMAL(10,2) NOT NULL,
    qty INT NOT NULL,
    ordered_at DATETIME NOT NULL,
    shipped_at DATETIME NULL,
    CONSTRAINT PK_orders PRIMARY KEY (id),
    CONSTRAINT FK_orders_customers FOREIGN KEY (customer_id) REFERENCES dbo.customers (id)
);
GO
CREATE TABLE dbo.order_lines (
    order_id INT NOT NULL,
    line_no SMALLINT NOT NULL,
    product_id INT NOT NULL,
    qty INT NOT NULL,
    price DECIMAL(10,2) NOT NULL,
    CONSTRAINT PK_order_lines PRIMARY KEY (order_id, line_no)
);
GO
CREATE TABLE dbo.kv (
    k INT NOT NULL,
    v NVARCHAR(50) NULL,
    hits INT NOT NULL DEFAULT 0,
    CONSTRAINT PK_kv PRIMARY KEY (k)
);
GO
CREATE TABLE dbo.events (
    id BIGINT IDENTITY(1,1) NOT NULL,
    kind VARCHAR(20) NOT NULL,
    at DATETIME2(3) NOT NULL,
    payload NVARCHAR(400) NULL,
    CONSTRAINT PK_events PRIMARY KEY (id)
);
GO
CREATE TABLE dbo.quarterly (
    product_id INT NOT NULL,
    q1 DECIMAL(10,2) NULL,
    q2 DECIMAL(10,2) NULL,
    q3 DECIMAL(10,2) NULL,
    q4 DECIMAL(10,2) NULL,
    CONSTRAINT PK_quarterly PRIMARY KEY (product_id)
);
GO
CREATE SCHEMA sales;
GO
CREATE TABLE sales.customers (
    id INT NOT NULL,
    region VARCHAR(10) NOT NULL,
    CONSTRAINT PK_sales_customers PRIMARY KEY (id)
);
GO
CREATE SEQUENCE dbo.ticket_seq AS BIGINT START WITH 1 INCREMENT BY 1;
GO
CREATE TABLE dbo.promotions (
    id INT NOT NULL,
    price MONEY NOT NULL,
    qty SMALLINT NOT NULL,
    rate REAL NOT NULL,
    CONSTRAINT PK_promotions PRIMARY KEY (id)
);
GO
CREATE TABLE dbo.org (
    id INT NOT NULL,
    node hierarchyid NULL,
    CONSTRAINT PK_org PRIMARY KEY (id)
);
GO
