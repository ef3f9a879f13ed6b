-- Rows for the golden schema, in T-SQL; the golden test translates them like any workload and runs them.
SET IDENTITY_INSERT dbo.customers ON;
INSERT INTO dbo.customers (id, first_name, last_name, email, code, created_at, birth_date, score, balance, active, notes, ref)
VALUES (1, N'Ann', N'Lee', N'ann@example.com', 'A1', '2024-01-31 10:59:00', '1990-05-01', 10, 100.50, 1, N'first', NEWID()),
       (2, N'bob', N'Smith ', N'bob@example.com', 'B2', '2024-02-29 23:00:00', NULL, 7, 0, 1, NULL, NEWID()),
       (3, N'Cid', NULL, NULL, NULL, '2023-12-31 23:59:59.999999', '2001-01-01', NULL, NULL, 0, N'[x] & <y>', NULL);
SET IDENTITY_INSERT dbo.customers OFF;
INSERT INTO dbo.products (id, name, category, price, weight) VALUES
    (1, N'Apple', 'fruit', 1.25, 0.2), (2, N'Banana', 'fruit', 0.5, 0.15), (3, N'Carrot', 'veg', 0.3, NULL), (4, N'[Special]', NULL, 9.99, 1.0);
SET IDENTITY_INSERT dbo.orders ON;
INSERT INTO dbo.orders (id, customer_id, status, amount, qty, ordered_at, shipped_at) VALUES
    (1, 1, 'new', 10.00, 3, '2024-03-01 10:59:00', '2024-03-01 11:01:00'),
    (2, 1, 'paid', 25.50, 7, '2024-03-31 23:00:00', '2024-04-01 01:00:00'),
    (3, 2, 'paid', 5.25, 2, '2024-12-31 12:00:00', NULL),
    (4, 3, 'void', 0.00, 1, '2023-06-15 08:00:00', '2023-06-20 08:00:00');
SET IDENTITY_INSERT dbo.orders OFF;
INSERT INTO dbo.order_lines (order_id, line_no, product_id, qty, price) VALUES
    (1, 1, 1, 2, 1.25), (1, 2, 2, 1, 0.50), (2, 1, 3, 7, 0.30), (3, 1, 1, 2, 1.25), (4, 1, 4, 1, 9.99);
INSERT INTO dbo.kv (k, v, hits) VALUES (1, N'one', 1), (2, N'two', 0);
INSERT INTO dbo.events (kind, at, payload) VALUES ('login', '2024-05-01 09:00:00.123', N'{"u":1}'), ('logout', '2024-05-01 17:30:00', NULL);
INSERT INTO dbo.quarterly (product_id, q1, q2, q3, q4) VALUES (1, 10, 20, NULL, 40), (2, 1, NULL, 3, 4);
INSERT INTO sales.customers (id, region) VALUES (1, 'EU'), (2, 'US');
INSERT INTO dbo.promotions (id, price, qty, rate) VALUES (1, 7.70, 25, 0.05), (2, 16.25, 10, 0.05), (3, 14.00, 12, 0.10);
INSERT INTO dbo.org (id, node) VALUES (1, '/'), (2, '/1/'), (3, '/1/1/'), (4, '/1/10/'), (5, '/2/'), (6, '/1/2/');
