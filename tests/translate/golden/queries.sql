-- Golden pairs: T-SQL as captured -> the TiDB SQL the translator writes, with the status and note codes.
-- Format and regeneration: tests/translate/translate_golden.py. Every TiDB text parses with TiDB's parser
-- and runs on MariaDB against golden/schema.sql (applied through the DDL generator) unless marked parse-only.

-- ==================== Plain queries that keep their text

-- 1 [translated] Plain queries that keep their text
SELECT id, first_name FROM dbo.customers WHERE id = 1
-- =>
SELECT id, first_name FROM customers WHERE id = 1;

-- 2 [translated] Plain queries that keep their text
SELECT TOP 10 id, amount FROM dbo.orders ORDER BY amount DESC
-- =>
SELECT id, amount FROM orders ORDER BY amount DESC LIMIT 10;

-- 3 [translated] Plain queries that keep their text
SELECT TOP (5) * FROM dbo.products
-- =>
SELECT * FROM products LIMIT 5;

-- 4 [translated] Plain queries that keep their text
(@P1 int)SELECT TOP (@P1) id FROM dbo.orders ORDER BY id
-- =>
-- parameters: @P1
SELECT id FROM orders ORDER BY id LIMIT ?;

-- 5 [translated] Plain queries that keep their text
SELECT id FROM dbo.orders ORDER BY id OFFSET 1 ROWS FETCH NEXT 2 ROWS ONLY
-- =>
SELECT id FROM orders ORDER BY id LIMIT 2 OFFSET 1;

-- 6 [translated] Plain queries that keep their text
(@P1 int,@P2 int)SELECT id FROM dbo.orders ORDER BY id OFFSET @P1 ROWS FETCH NEXT @P2 ROWS ONLY
-- =>
-- parameters: @P2, @P1
SELECT id FROM orders ORDER BY id LIMIT ? OFFSET ?;

-- 7 [translated] Plain queries that keep their text
SELECT id FROM dbo.orders ORDER BY id OFFSET 2 ROWS
-- =>
SELECT id FROM orders ORDER BY id LIMIT 18446744073709551615 OFFSET 2;

-- 8 [translated] Plain queries that keep their text
SELECT [first_name] AS [First Name], [last_name] FROM [dbo].[customers]
-- =>
SELECT `first_name` AS `First Name`, `last_name` FROM `customers`;

-- 9 [translated] Plain queries that keep their text
SELECT c.id, COUNT(*) AS n FROM dbo.customers c JOIN dbo.orders o ON o.customer_id = c.id GROUP BY c.id HAVING COUNT(*) > 1
-- =>
SELECT c.id, COUNT(*) AS n FROM customers AS c JOIN orders AS o ON o.customer_id = c.id GROUP BY c.id HAVING COUNT(*) > 1;

-- 10 [translated] Plain queries that keep their text
SELECT DISTINCT status FROM dbo.orders
-- =>
SELECT DISTINCT status FROM orders;

-- 11 [translated] Plain queries that keep their text
WITH big AS (SELECT customer_id, SUM(amount) AS total FROM dbo.orders GROUP BY customer_id) SELECT * FROM big WHERE total > 10
-- =>
WITH big AS (SELECT customer_id, SUM(amount) AS total FROM orders GROUP BY customer_id) SELECT * FROM big WHERE total > 10;

-- 12 [translated] Plain queries that keep their text
;WITH n AS (SELECT 1 AS i UNION ALL SELECT i + 1 FROM n WHERE i < 5) SELECT i FROM n
-- =>
WITH RECURSIVE n AS (SELECT 1 AS i UNION ALL SELECT i + 1 FROM n WHERE i < 5) SELECT i FROM n;

-- 13 [translated] Plain queries that keep their text
SELECT id, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY ordered_at DESC) AS rn FROM dbo.orders
-- =>
SELECT id, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY ordered_at DESC) AS rn FROM orders;

-- 14 [translated] Plain queries that keep their text
SELECT customer_id, SUM(amount) OVER (ORDER BY ordered_at ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM dbo.orders
-- =>
SELECT customer_id, SUM(amount) OVER (ORDER BY ordered_at ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM orders;

-- 15 [translated] Plain queries that keep their text
SELECT id FROM dbo.customers WHERE EXISTS (SELECT 1 FROM dbo.orders o WHERE o.customer_id = customers.id)
-- =>
SELECT id FROM customers WHERE EXISTS(SELECT 1 FROM orders AS o WHERE o.customer_id = customers.id);

-- 16 [translated] Plain queries that keep their text
SELECT id FROM dbo.customers WHERE id IN (SELECT customer_id FROM dbo.orders WHERE status = 'paid')
-- =>
SELECT id FROM customers WHERE id IN (SELECT customer_id FROM orders WHERE status = 'paid');

-- 17 [translated] Plain queries that keep their text
SELECT id FROM dbo.customers UNION SELECT customer_id FROM dbo.orders
-- =>
SELECT id FROM customers UNION SELECT customer_id FROM orders;

-- 18 [translated] Plain queries that keep their text
SELECT id FROM dbo.customers EXCEPT SELECT customer_id FROM dbo.orders
-- =>
SELECT id FROM customers EXCEPT SELECT customer_id FROM orders;

-- 19 [translated] Plain queries that keep their text
SELECT c.id FROM dbo.customers c LEFT JOIN dbo.orders o ON o.customer_id = c.id WHERE o.id IS NULL
-- =>
SELECT c.id FROM customers AS c LEFT JOIN orders AS o ON o.customer_id = c.id WHERE o.id IS NULL;

-- 20 [translated] Plain queries that keep their text
SELECT COALESCE(last_name, N'?'), NULLIF(score, 0), CASE WHEN score > 5 THEN 'high' ELSE 'low' END FROM dbo.customers
-- =>
SELECT COALESCE(last_name, N'?'), NULLIF(score, 0), CASE WHEN score > 5 THEN 'high' ELSE 'low' END FROM customers;

-- 21 [translated] Plain queries that keep their text
SELECT ABS(-1), ROUND(amount, 1), CEILING(amount), FLOOR(amount), POWER(2, 3), SQRT(16.0), SIGN(-3) FROM dbo.orders
-- =>
SELECT ABS(-1), ROUND(amount, 1), CEIL(amount), FLOOR(amount), POWER(2, 3), SQRT(16.0), SIGN(-3) FROM orders;

-- 22 [rewritten QY76] Plain queries that keep their text
SELECT UPPER(first_name), LOWER(last_name), LTRIM(RTRIM(code)), REPLACE(first_name, 'n', 'N'), SUBSTRING(first_name, 1, 2), LEFT(first_name, 1), RIGHT(first_name, 1), REVERSE(first_name) FROM dbo.customers
-- =>
SELECT UPPER(first_name), LOWER(last_name), LTRIM(RTRIM(code)), REGEXP_REPLACE(first_name, '(?i)n', 'N'), SUBSTRING(first_name, 1, 2), LEFT(first_name, 1), RIGHT(first_name, 1), REVERSE(first_name) FROM customers;

-- 23 [translated] Plain queries that keep their text
SELECT CHARINDEX('n', first_name), REPLICATE('-', 3), SPACE(2) FROM dbo.customers
-- =>
SELECT LOCATE('n', first_name), REPEAT('-', 3), REPEAT(' ', 2) FROM customers;

-- 24 [translated] Plain queries that keep their text
SELECT COUNT_BIG(*) FROM dbo.orders
-- =>
SELECT COUNT(*) FROM orders;

-- 25 [translated] Plain queries that keep their text
SELECT id FROM dbo.orders WHERE ordered_at BETWEEN '2024-01-01' AND '2024-12-31'
-- =>
SELECT id FROM orders WHERE ordered_at BETWEEN '2024-01-01' AND '2024-12-31';

-- 26 [translated] Plain queries that keep their text
SELECT NEXT VALUE FOR dbo.ticket_seq
-- =>
SELECT NEXTVAL(ticket_seq);

-- ==================== Names: schemas merge into one database

-- 27 [translated] Names: schemas merge into one database
SELECT id, region FROM sales.customers
-- =>
SELECT id, region FROM sales_customers;

-- 28 [translated] Names: schemas merge into one database
SELECT c.first_name, s.region FROM dbo.customers c JOIN sales.customers s ON s.id = c.id
-- =>
SELECT c.first_name, s.region FROM customers AS c JOIN sales_customers AS s ON s.id = c.id;

-- 29 [translated] Names: schemas merge into one database
SELECT sales.customers.region FROM sales.customers
-- =>
SELECT sales_customers.region FROM sales_customers;

-- 30 [translated] Names: schemas merge into one database
SELECT dbo.customers.first_name FROM dbo.customers
-- =>
SELECT customers.first_name FROM customers;

-- ==================== String + becomes CONCAT

-- 31 [rewritten QY03] String + becomes CONCAT
SELECT first_name + ' ' + last_name AS full_name FROM dbo.customers
-- =>
SELECT CONCAT(first_name, ' ', last_name) AS full_name FROM customers;

-- 32 [rewritten QY03] String + becomes CONCAT
SELECT N'Customer: ' + first_name FROM dbo.customers
-- =>
SELECT CONCAT(N'Customer: ', first_name) FROM customers;

-- 33 [rewritten QY03] String + becomes CONCAT
SELECT first_name + last_name FROM dbo.customers
-- =>
SELECT CONCAT(first_name, last_name) FROM customers;

-- 34 [rewritten QY03] String + becomes CONCAT
SELECT 'site://u/' + CAST(id AS nvarchar(10)) FROM dbo.customers
-- =>
SELECT CONCAT('site://u/', CAST(id AS CHAR(10))) FROM customers;

-- 35 [rewritten QY03] String + becomes CONCAT
SELECT code + '-' + CONVERT(varchar(10), id) FROM dbo.customers
-- =>
SELECT CONCAT(RPAD(code, 5, ' '), '-', CAST(id AS CHAR(10))) FROM customers;

-- 36 [rewritten QY03] String + becomes CONCAT
SELECT ISNULL(last_name, '') + ', ' + first_name FROM dbo.customers
-- =>
SELECT CONCAT(COALESCE(last_name, ''), ', ', first_name) FROM customers;

-- 37 [rewritten QY03] String + becomes CONCAT
(@P1 nvarchar(50))SELECT id FROM dbo.customers WHERE first_name = @P1 + '%'
-- =>
-- parameters: @P1
SELECT id FROM customers WHERE first_name = CONCAT(?, '%');

-- 38 [rewritten QY03 QY06] String + becomes CONCAT
(@P1 nvarchar(50))SELECT id FROM dbo.customers WHERE first_name LIKE '%' + @P1 + '%'
-- =>
-- parameters: @P1
SELECT id FROM customers WHERE first_name LIKE CONCAT('%', ?, '%');

-- 39 [translated] String + becomes CONCAT
SELECT c.id + 1, score + c.id, amount + 1.5 FROM dbo.customers c JOIN dbo.orders o ON o.customer_id = c.id
-- =>
SELECT c.id + 1, score + c.id, amount + 1.5 FROM customers AS c JOIN orders AS o ON o.customer_id = c.id;

-- 40 [translated] String + becomes CONCAT
SELECT '5' + 1
-- =>
SELECT '5' + 1;

-- 41 [rewritten QY03] String + becomes CONCAT
SELECT id FROM dbo.customers WHERE first_name + last_name = 'AnnLee'
-- =>
SELECT id FROM customers WHERE CONCAT(first_name, last_name) = 'AnnLee';

-- 42 [rewritten QY03] String + becomes CONCAT
SELECT x.a + x.b FROM (SELECT N'a' AS a, N'b' AS b) AS x
-- =>
SELECT CONCAT(x.a, x.b) FROM (SELECT N'a' AS a, N'b' AS b) AS x;

-- 43 [review QY04 QY26] String + becomes CONCAT
SELECT id FROM dbo.orders WHERE qty + @undeclared > 3
-- =>
-- parameters: @undeclared
SELECT id FROM orders WHERE qty + ? > 3;

-- 44 [translated] String + becomes CONCAT
SELECT CONCAT(first_name, NULL, last_name) FROM dbo.customers
-- =>
SELECT CONCAT(COALESCE(first_name, ''), COALESCE(NULL, ''), COALESCE(last_name, '')) FROM customers;

-- ==================== Datetime arithmetic and DATEDIFF boundaries

-- 45 [rewritten QY02] Datetime arithmetic and DATEDIFF boundaries
SELECT DATEDIFF(hour, ordered_at, shipped_at) FROM dbo.orders
-- =>
SELECT (TO_SECONDS(shipped_at) DIV 3600 - TO_SECONDS(ordered_at) DIV 3600) FROM orders;

-- 46 [rewritten QY02] Datetime arithmetic and DATEDIFF boundaries
SELECT DATEDIFF(month, ordered_at, shipped_at) FROM dbo.orders
-- =>
SELECT ((YEAR(shipped_at) - YEAR(ordered_at)) * 12 + MONTH(shipped_at) - MONTH(ordered_at)) FROM orders;

-- 47 [rewritten QY02] Datetime arithmetic and DATEDIFF boundaries
SELECT DATEDIFF(year, birth_date, GETDATE()) FROM dbo.customers
-- =>
SELECT (YEAR(CURRENT_TIMESTAMP(3)) - YEAR(birth_date)) FROM customers;

-- 48 [rewritten QY02] Datetime arithmetic and DATEDIFF boundaries
SELECT DATEDIFF(day, ordered_at, shipped_at) FROM dbo.orders
-- =>
SELECT DATEDIFF(shipped_at, ordered_at) FROM orders;

-- 49 [rewritten QY02] Datetime arithmetic and DATEDIFF boundaries
SELECT DATEDIFF(dd, 0, ordered_at) FROM dbo.orders
-- =>
SELECT DATEDIFF(ordered_at, CAST('1900-01-01' AS DATETIME(3))) FROM orders;

-- 50 [rewritten QY02] Datetime arithmetic and DATEDIFF boundaries
SELECT DATEDIFF(week, ordered_at, shipped_at) FROM dbo.orders
-- =>
SELECT (FLOOR(DATEDIFF(shipped_at, '1900-01-07') / 7) - FLOOR(DATEDIFF(ordered_at, '1900-01-07') / 7)) FROM orders;

-- 51 [rewritten QY02] Datetime arithmetic and DATEDIFF boundaries
SELECT DATEDIFF(minute, ordered_at, shipped_at), DATEDIFF(second, ordered_at, shipped_at) FROM dbo.orders
-- =>
SELECT (TO_SECONDS(shipped_at) DIV 60 - TO_SECONDS(ordered_at) DIV 60), (TO_SECONDS(shipped_at) - TO_SECONDS(ordered_at)) FROM orders;

-- 52 [rewritten QY02] Datetime arithmetic and DATEDIFF boundaries
SELECT DATEDIFF(quarter, ordered_at, shipped_at) FROM dbo.orders
-- =>
SELECT ((YEAR(shipped_at) - YEAR(ordered_at)) * 4 + QUARTER(shipped_at) - QUARTER(ordered_at)) FROM orders;

-- 53 [rewritten QY02] Datetime arithmetic and DATEDIFF boundaries
SELECT DATEDIFF(millisecond, ordered_at, shipped_at) FROM dbo.orders
-- =>
SELECT ((TO_SECONDS(shipped_at) * 1000 + MICROSECOND(shipped_at) DIV 1000) - (TO_SECONDS(ordered_at) * 1000 + MICROSECOND(ordered_at) DIV 1000)) FROM orders;

-- 54 [rewritten QY02] Datetime arithmetic and DATEDIFF boundaries
SELECT DATEDIFF_BIG(microsecond, ordered_at, shipped_at) FROM dbo.orders
-- =>
SELECT TIMESTAMPDIFF(MICROSECOND, ordered_at, shipped_at) FROM orders;

-- 55 [rewritten QY02] Datetime arithmetic and DATEDIFF boundaries
SELECT id FROM dbo.orders WHERE DATEDIFF(day, ordered_at, GETDATE()) < 30
-- =>
SELECT id FROM orders WHERE DATEDIFF(CURRENT_TIMESTAMP(3), ordered_at) < 30;

-- 56 [translated] Datetime arithmetic and DATEDIFF boundaries
SELECT DATEADD(day, 7, ordered_at), DATEADD(month, -1, ordered_at), DATEADD(hour, 2, ordered_at) FROM dbo.orders
-- =>
SELECT DATE_ADD(ordered_at, INTERVAL 7 DAY), DATE_ADD(ordered_at, INTERVAL -1 MONTH), DATE_ADD(ordered_at, INTERVAL 2 HOUR) FROM orders;

-- 57 [rewritten QY02] Datetime arithmetic and DATEDIFF boundaries
SELECT DATEADD(day, DATEDIFF(day, 0, ordered_at), 0) FROM dbo.orders
-- =>
SELECT DATE_ADD(CAST('1900-01-01' AS DATETIME(3)), INTERVAL (DATEDIFF(ordered_at, CAST('1900-01-01' AS DATETIME(3)))) DAY) FROM orders;

-- 58 [rewritten QY38] Datetime arithmetic and DATEDIFF boundaries
SELECT ordered_at + 1, ordered_at - 7 FROM dbo.orders
-- =>
SELECT DATE_ADD(ordered_at, INTERVAL 1 DAY), DATE_SUB(ordered_at, INTERVAL 7 DAY) FROM orders;

-- 59 [rewritten QY38] Datetime arithmetic and DATEDIFF boundaries
SELECT id FROM dbo.orders WHERE ordered_at > GETDATE() - 30
-- =>
SELECT id FROM orders WHERE ordered_at > DATE_SUB(CURRENT_TIMESTAMP(3), INTERVAL 30 DAY);

-- 60 [translated] Datetime arithmetic and DATEDIFF boundaries
SELECT DATEPART(year, ordered_at), DATEPART(month, ordered_at), DATEPART(day, ordered_at), DATEPART(hour, ordered_at) FROM dbo.orders
-- =>
SELECT YEAR(ordered_at), MONTH(ordered_at), DAYOFMONTH(ordered_at), HOUR(ordered_at) FROM orders;

-- 61 [review QY42] Datetime arithmetic and DATEDIFF boundaries
SELECT DATEPART(weekday, ordered_at), DATEPART(week, ordered_at) FROM dbo.orders
-- =>
SELECT DAYOFWEEK(ordered_at), ((DAYOFYEAR(ordered_at) + DAYOFWEEK(MAKEDATE(YEAR(ordered_at), 1)) - 2) DIV 7 + 1) FROM orders;

-- 62 [rewritten QY42] Datetime arithmetic and DATEDIFF boundaries
SELECT DATEPART(millisecond, at), DATEPART(iso_week, at) FROM dbo.events
-- =>
SELECT (MICROSECOND(at) DIV 1000), WEEK(at, 3) FROM events;

-- 63 [translated] Datetime arithmetic and DATEDIFF boundaries
SELECT YEAR(ordered_at), MONTH(ordered_at), DAY(ordered_at) FROM dbo.orders
-- =>
SELECT YEAR(ordered_at), MONTH(ordered_at), DAY(ordered_at) FROM orders;

-- 64 [translated] Datetime arithmetic and DATEDIFF boundaries
SELECT DATENAME(month, ordered_at), DATENAME(weekday, ordered_at) FROM dbo.orders
-- =>
SELECT DATE_FORMAT(CAST(ordered_at AS DATETIME(6)), '%M'), DATE_FORMAT(CAST(ordered_at AS DATETIME(6)), '%W') FROM orders;

-- 65 [translated] Datetime arithmetic and DATEDIFF boundaries
SELECT EOMONTH(ordered_at) FROM dbo.orders
-- =>
SELECT LAST_DAY(DATE(ordered_at)) FROM orders;

-- 66 [rewritten QY36] Datetime arithmetic and DATEDIFF boundaries
SELECT DATEFROMPARTS(2024, 2, 29)
-- =>
SELECT DATE_ADD(DATE_ADD(MAKEDATE(2024, 1), INTERVAL (2 - 1) MONTH), INTERVAL (29 - 1) DAY);

-- ==================== Current time functions

-- 67 [translated] Current time functions
SELECT GETDATE(), CURRENT_TIMESTAMP, SYSDATETIME()
-- =>
SELECT CURRENT_TIMESTAMP(3), CURRENT_TIMESTAMP(3), CURRENT_TIMESTAMP(6);

-- 68 [translated] Current time functions
SELECT GETUTCDATE(), SYSUTCDATETIME()
-- =>
SELECT UTC_TIMESTAMP(3), UTC_TIMESTAMP(6);

-- 69 [review QY19] Current time functions
SELECT SYSDATETIMEOFFSET()
-- =>
SELECT CURRENT_TIMESTAMP(6);

-- 70 [translated] Current time functions
SELECT id FROM dbo.events WHERE at < SYSUTCDATETIME()
-- =>
SELECT id FROM events WHERE at < UTC_TIMESTAMP(6);

-- ==================== Integer division, AVG, LEN

-- 71 [rewritten QY37 QY60] Integer division, AVG, LEN
SELECT qty / 2, amount / 2, qty / 2.0 FROM dbo.orders
-- =>
SELECT qty DIV 2, CAST(TRUNCATE(CAST(amount AS DECIMAL(65, 10)) / 2, 6) AS DECIMAL(14, 6)), CAST(TRUNCATE(CAST(qty AS DECIMAL(65, 10)) / 2.0, 6) AS DECIMAL(17, 6)) FROM orders;

-- 72 [rewritten QY37] Integer division, AVG, LEN
SELECT SUM(qty) / COUNT(*) FROM dbo.orders
-- =>
SELECT SUM(qty) DIV COUNT(*) FROM orders;

-- 73 [translated] Integer division, AVG, LEN
SELECT CAST(qty AS float) / 3 FROM dbo.orders
-- =>
SELECT CAST(qty AS DOUBLE) / 3 FROM orders;

-- 74 [rewritten QY41 QY66] Integer division, AVG, LEN
SELECT AVG(qty), AVG(amount), AVG(CAST(qty AS decimal(10, 2))) FROM dbo.orders
-- =>
SELECT (SUM(qty) DIV COUNT(qty)), CAST(TRUNCATE(CAST(SUM(amount) AS DECIMAL(65, 10)) / COUNT(amount), 6) AS DECIMAL(38, 6)), CAST(TRUNCATE(CAST(SUM(CAST(qty AS DECIMAL(10, 2))) AS DECIMAL(65, 10)) / COUNT(CAST(qty AS DECIMAL(10, 2))), 6) AS DECIMAL(38, 6)) FROM orders;

-- 75 [rewritten QY41] Integer division, AVG, LEN
SELECT customer_id, AVG(qty) OVER (PARTITION BY customer_id) FROM dbo.orders
-- =>
SELECT customer_id, (SUM(qty) OVER (PARTITION BY customer_id) DIV COUNT(qty) OVER (PARTITION BY customer_id)) FROM orders;

-- 76 [rewritten QY35] Integer division, AVG, LEN
SELECT LEN(first_name), LEN(last_name), LEN(id) FROM dbo.customers
-- =>
SELECT CHAR_LENGTH(RTRIM(first_name)), CHAR_LENGTH(RTRIM(last_name)), CHAR_LENGTH(id) FROM customers;

-- 77 [rewritten QY35] Integer division, AVG, LEN
SELECT id FROM dbo.customers WHERE LEN(ISNULL(last_name, '')) = 0
-- =>
SELECT id FROM customers WHERE CHAR_LENGTH(RTRIM(COALESCE(last_name, ''))) = 0;

-- 78 [review QY43] Integer division, AVG, LEN
SELECT DATALENGTH(notes) FROM dbo.customers
-- =>
SELECT LENGTH(notes) FROM customers;

-- ==================== LIKE patterns

-- 79 [review QY06] LIKE patterns
SELECT id FROM dbo.customers WHERE first_name LIKE '[A-C]%'
-- =>
SELECT id FROM customers WHERE first_name REGEXP '^[A-C](.|\n)*$';

-- 80 [rewritten QY06] LIKE patterns
SELECT id FROM dbo.customers WHERE code LIKE '[0-9]%'
-- =>
SELECT id FROM customers WHERE code REGEXP '^[0-9](.|\n)*$';

-- 81 [review QY06] LIKE patterns
SELECT id FROM dbo.customers WHERE first_name LIKE '[^a]%'
-- =>
SELECT id FROM customers WHERE first_name REGEXP '^[^a](.|\n)*$';

-- 82 [rewritten QY06] LIKE patterns
SELECT id FROM dbo.products WHERE name LIKE '[[]%'
-- =>
SELECT id FROM products WHERE name LIKE '[%';

-- 83 [rewritten QY06] LIKE patterns
SELECT id FROM dbo.customers WHERE email LIKE '%[_]%'
-- =>
SELECT id FROM customers WHERE email LIKE '%\\_%';

-- 84 [rewritten QY06] LIKE patterns
SELECT id FROM dbo.customers WHERE notes LIKE '%\%'
-- =>
SELECT id FROM customers WHERE notes LIKE '%\\\\%';

-- 85 [translated] LIKE patterns
SELECT id FROM dbo.customers WHERE first_name NOT LIKE '_n%'
-- =>
SELECT id FROM customers WHERE first_name NOT LIKE '_n%';

-- 86 [rewritten QY06] LIKE patterns
SELECT id FROM dbo.customers WHERE code LIKE 'A[0-9]'
-- =>
SELECT id FROM customers WHERE code REGEXP '^A[0-9]$';

-- ==================== TRY_CAST, CONVERT styles, CAST types

-- 87 [rewritten QY07] TRY_CAST, CONVERT styles, CAST types
SELECT TRY_CAST(code AS int) FROM dbo.customers
-- =>
SELECT CASE WHEN TRIM(code) = '' THEN 0 WHEN code REGEXP '^ *[-+]?[0-9]+ *$' THEN CASE WHEN CAST(TRIM(code) AS DECIMAL(65, 0)) BETWEEN -2147483648 AND 2147483647 THEN CAST(TRIM(code) AS SIGNED) END END FROM customers;

-- 88 [review QY07] TRY_CAST, CONVERT styles, CAST types
SELECT TRY_CONVERT(date, code) FROM dbo.customers
-- =>
SELECT CAST(code AS DATE) FROM customers;

-- 89 [rewritten QY20] TRY_CAST, CONVERT styles, CAST types
SELECT CONVERT(varchar(10), ordered_at, 120) FROM dbo.orders
-- =>
SELECT LEFT(DATE_FORMAT(ordered_at, '%Y-%m-%d %H:%i:%s'), 10) FROM orders;

-- 90 [rewritten QY20] TRY_CAST, CONVERT styles, CAST types
SELECT CONVERT(varchar(19), ordered_at, 120), CONVERT(varchar(8), ordered_at, 112), CONVERT(varchar(10), ordered_at, 101) FROM dbo.orders
-- =>
SELECT DATE_FORMAT(ordered_at, '%Y-%m-%d %H:%i:%s'), DATE_FORMAT(ordered_at, '%Y%m%d'), DATE_FORMAT(ordered_at, '%m/%d/%Y') FROM orders;

-- 91 [rewritten QY20] TRY_CAST, CONVERT styles, CAST types
SELECT CONVERT(varchar(10), ordered_at, 103), CONVERT(varchar(10), ordered_at, 104), CONVERT(varchar(8), ordered_at, 108) FROM dbo.orders
-- =>
SELECT DATE_FORMAT(ordered_at, '%d/%m/%Y'), DATE_FORMAT(ordered_at, '%d.%m.%Y'), DATE_FORMAT(ordered_at, '%H:%i:%s') FROM orders;

-- 92 [rewritten QY20] TRY_CAST, CONVERT styles, CAST types
SELECT CONVERT(varchar(23), at, 121) FROM dbo.events
-- =>
SELECT LEFT(DATE_FORMAT(at, '%Y-%m-%d %H:%i:%s.%f'), 23) FROM events;

-- 93 [rewritten QY20] TRY_CAST, CONVERT styles, CAST types
SELECT CONVERT(datetime, '31/12/2024', 103), CONVERT(date, '20240131', 112)
-- =>
SELECT STR_TO_DATE('31/12/2024', '%d/%m/%Y'), STR_TO_DATE('20240131', '%Y%m%d');

-- 94 [review QY51] TRY_CAST, CONVERT styles, CAST types
SELECT CONVERT(int, code), CONVERT(nvarchar(20), amount) FROM dbo.customers c JOIN dbo.orders o ON o.customer_id = c.id
-- =>
SELECT CAST(code AS SIGNED), CAST(amount AS CHAR(20)) FROM customers AS c JOIN orders AS o ON o.customer_id = c.id;

-- 95 [review QY20] TRY_CAST, CONVERT styles, CAST types
SELECT CONVERT(varchar(30), ordered_at, 126) FROM dbo.orders
-- =>
SELECT LEFT(DATE_FORMAT(ordered_at, '%Y-%m-%dT%H:%i:%s.%f'), 23) FROM orders;

-- 96 [rewritten QY40] TRY_CAST, CONVERT styles, CAST types
SELECT CAST(created_at AS datetime2(7)), CAST(created_at AS time(7)) FROM dbo.customers
-- =>
SELECT CAST(created_at AS DATETIME(6)), CAST(created_at AS TIME(6)) FROM customers;

-- 97 [rewritten QY64] TRY_CAST, CONVERT styles, CAST types
SELECT CAST(amount AS money), CAST(amount AS float), CAST(amount AS real), CAST(id AS tinyint) FROM dbo.orders
-- =>
SELECT CAST(amount AS DECIMAL(19, 4)), CAST(amount AS DOUBLE), CAST((amount * 536870913E0) - ((amount * 536870913E0) - amount) AS FLOAT), CAST(id AS UNSIGNED) FROM orders;

-- 98 [translated] TRY_CAST, CONVERT styles, CAST types
SELECT CAST(score AS bit), CAST(id AS nvarchar(max)), CAST(ref AS nvarchar(36)) FROM dbo.customers
-- =>
SELECT (score <> 0), CAST(id AS CHAR), CAST(ref AS CHAR(36)) FROM customers;

-- 99 [translated] TRY_CAST, CONVERT styles, CAST types
SELECT CAST('2024-01-01' AS datetime), CAST(1 AS decimal)
-- =>
SELECT CAST('2024-01-01' AS DATETIME(3)), CAST(1 AS DECIMAL(18, 0));

-- 100 [review QY40] TRY_CAST, CONVERT styles, CAST types
SELECT CAST(created_at AS datetimeoffset) FROM dbo.customers
-- =>
SELECT TIMESTAMP(created_at) FROM customers;

-- ==================== Functions mapped to TiDB's

-- 101 [translated] Functions mapped to TiDB's
SELECT ISNULL(score, 0), IIF(score > 5, 'high', 'low'), NEWID() FROM dbo.customers
-- =>
SELECT COALESCE(score, 0), IF(score > 5, 'high', 'low'), UUID() FROM customers;

-- 102 [translated] Functions mapped to TiDB's
SELECT CHOOSE(2, 'a', 'b', 'c')
-- =>
SELECT CASE 2 WHEN 1 THEN 'a' WHEN 2 THEN 'b' WHEN 3 THEN 'c' END;

-- 103 [rewritten QY36] Functions mapped to TiDB's
SELECT ROUND(amount, 0, 1) FROM dbo.orders
-- =>
SELECT TRUNCATE(amount, 0) FROM orders;

-- 104 [review QY36] Functions mapped to TiDB's
SELECT NCHAR(65), CHAR(66), UNICODE(N'A'), ASCII('A')
-- =>
SELECT CHAR(65 USING utf8mb4), CHAR(66 USING utf8mb4), ORD(N'A'), ASCII('A');

-- 105 [review QY36] Functions mapped to TiDB's
SELECT STR(amount, 8, 2) FROM dbo.orders
-- =>
SELECT LPAD(ROUND(amount, 2), 8, ' ') FROM orders;

-- 106 [review QY36] Functions mapped to TiDB's
SELECT ISNUMERIC(code) FROM dbo.customers
-- =>
SELECT COALESCE(code REGEXP '^[[:space:]]*[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?[[:space:]]*$', 0) FROM customers;

-- 107 [translated] Functions mapped to TiDB's
SELECT FORMAT(amount, 'N2'), FORMAT(ordered_at, 'yyyy-MM-dd') FROM dbo.orders
-- =>
SELECT FORMAT(amount, 2), DATE_FORMAT(ordered_at, '%Y-%m-%d') FROM orders;

-- 108 [rewritten QY36] Functions mapped to TiDB's
SELECT PATINDEX('%[0-9]%', code) FROM dbo.customers
-- =>
SELECT REGEXP_INSTR(code, '[0-9]') FROM customers;

-- 109 [translated] Functions mapped to TiDB's
SELECT DB_NAME(), SUSER_SNAME()
-- =>
SELECT DATABASE(), CURRENT_USER();

-- 110 [unsupported QY36] Functions mapped to TiDB's
SELECT dbo.fn_discount(amount) FROM dbo.orders
-- =>
-- (no TiDB statement)

-- 111 [review QY21] Functions mapped to TiDB's
SELECT STRING_AGG(first_name, ', ') FROM dbo.customers
-- =>
SELECT GROUP_CONCAT(first_name SEPARATOR ', ') FROM customers;

-- 112 [review QY21] Functions mapped to TiDB's
SELECT customer_id, STRING_AGG(status, ',') WITHIN GROUP (ORDER BY ordered_at) FROM dbo.orders GROUP BY customer_id
-- =>
SELECT customer_id, GROUP_CONCAT(status ORDER BY ordered_at SEPARATOR ',') FROM orders GROUP BY customer_id;

-- ==================== Identity and row counts

-- 113 [rewritten QY18 QY78] Identity and row counts
INSERT INTO dbo.orders (customer_id, status, amount, qty, ordered_at) VALUES (1, 'new', 1, 1, GETDATE()); SELECT SCOPE_IDENTITY()
-- =>
INSERT INTO orders (customer_id, status, amount, qty, ordered_at) VALUES (1, 'new', 1, 1, DATE_ADD(CURRENT_TIMESTAMP(3), INTERVAL (((MICROSECOND(CURRENT_TIMESTAMP(3)) * 3 + 5000) DIV 10000 * 10 + 1) DIV 3 * 1000 - MICROSECOND(CURRENT_TIMESTAMP(3))) MICROSECOND));
SELECT LAST_INSERT_ID();

-- 114 [rewritten QY18] Identity and row counts
INSERT INTO dbo.events (kind, at) VALUES ('x', SYSDATETIME()); SELECT @@IDENTITY
-- =>
INSERT INTO events (kind, at) VALUES ('x', CURRENT_TIMESTAMP(6));
SELECT LAST_INSERT_ID();

-- 115 [rewritten QY23] Identity and row counts
UPDATE dbo.kv SET hits = hits + 1 WHERE k = 1; SELECT @@ROWCOUNT
-- =>
UPDATE kv SET hits = hits + 1 WHERE k = 1;
SELECT ROW_COUNT();

-- 116 [review QY23] Identity and row counts
SELECT k FROM dbo.kv; SELECT @@ROWCOUNT
-- =>
SELECT k FROM kv;
SELECT ROW_COUNT();

-- 117 [review QY44] Identity and row counts
SELECT @@SPID, @@VERSION
-- =>
SELECT CONNECTION_ID(), VERSION();

-- 118 [unsupported QY44] Identity and row counts
SELECT @@TRANCOUNT
-- =>
-- (no TiDB statement)

-- ==================== Table hints and query options

-- 119 [rewritten QY13] Table hints and query options
SELECT id FROM dbo.orders WITH (NOLOCK) WHERE status = 'new'
-- =>
SELECT id FROM orders WHERE status = 'new';

-- 120 [rewritten QY13] Table hints and query options
SELECT o.id FROM dbo.orders o WITH (NOLOCK) JOIN dbo.customers c WITH (NOLOCK) ON c.id = o.customer_id
-- =>
SELECT o.id FROM orders AS o JOIN customers AS c ON c.id = o.customer_id;

-- 121 [review QY13] Table hints and query options
SELECT v FROM dbo.kv WITH (UPDLOCK, ROWLOCK) WHERE k = 1
-- =>
SELECT v FROM kv WHERE k = 1 FOR UPDATE;

-- 122 [review QY13] Table hints and query options
SELECT v FROM dbo.kv WITH (HOLDLOCK) WHERE k = 1
-- =>
SELECT v FROM kv WHERE k = 1;

-- 123 [review QY13] Table hints and query options
SELECT id FROM dbo.orders WITH (READPAST) WHERE status = 'new'
-- =>
SELECT id FROM orders WHERE status = 'new';

-- 124 [rewritten QY13] Table hints and query options
UPDATE dbo.kv WITH (ROWLOCK) SET v = N'x' WHERE k = 1
-- =>
UPDATE kv SET v = N'x' WHERE k = 1;

-- 125 [rewritten QY13] Table hints and query options
SELECT id FROM dbo.orders WITH (INDEX(PK_orders)) WHERE id > 1
-- =>
SELECT id FROM orders WHERE id > 1;

-- 126 [rewritten QY13] Table hints and query options
SELECT id FROM dbo.orders WHERE id > 1 OPTION (RECOMPILE)
-- =>
SELECT id FROM orders WHERE id > 1;

-- 127 [rewritten QY13] Table hints and query options
SELECT o.id FROM dbo.orders o INNER HASH JOIN dbo.customers c ON c.id = o.customer_id
-- =>
SELECT o.id FROM orders AS o INNER JOIN customers AS c ON c.id = o.customer_id;

-- 128 [review QY13] Table hints and query options
SELECT k FROM dbo.kv WITH (TABLOCKX)
-- =>
SELECT k FROM kv;

-- ==================== TOP PERCENT and WITH TIES

-- 129 [rewritten QY14] TOP PERCENT and WITH TIES
SELECT TOP 50 PERCENT id, amount FROM dbo.orders ORDER BY amount DESC
-- =>
SELECT id, amount FROM (SELECT id, amount, amount AS __o1, ROW_NUMBER() OVER (ORDER BY amount DESC) AS __row, COUNT(*) OVER () AS __rows FROM orders) AS __top WHERE __row <= CEIL(__rows * 50 / 100) ORDER BY __o1 DESC;

-- 130 [rewritten QY14 QY75] TOP PERCENT and WITH TIES
SELECT TOP 1 WITH TIES customer_id, status FROM dbo.orders ORDER BY status
-- =>
SELECT customer_id, status FROM (SELECT customer_id, status, status AS __o1, RANK() OVER (ORDER BY status) AS __rank FROM orders) AS __top WHERE __rank <= 1 ORDER BY __o1;

-- 131 [rewritten QY14] TOP PERCENT and WITH TIES
SELECT TOP 10 PERCENT * FROM dbo.orders ORDER BY amount
-- =>
SELECT id, customer_id, status, amount, qty, ordered_at, shipped_at FROM (SELECT id, customer_id, status, amount, qty, ordered_at, shipped_at, amount AS __o1, ROW_NUMBER() OVER (ORDER BY amount) AS __row, COUNT(*) OVER () AS __rows FROM orders) AS __top WHERE __row <= CEIL(__rows * 10 / 100) ORDER BY __o1;

-- ==================== UPDATE and DELETE with joins

-- 132 [rewritten QY05] UPDATE and DELETE with joins
UPDATE dbo.orders SET status = 'vip' FROM dbo.orders JOIN dbo.customers ON customers.id = orders.customer_id WHERE customers.score > 5
-- =>
UPDATE orders JOIN customers ON customers.id = orders.customer_id SET orders.status = 'vip' WHERE customers.score > 5;

-- 133 [rewritten QY05] UPDATE and DELETE with joins
UPDATE o SET o.amount = o.amount * 1.1 FROM dbo.orders AS o INNER JOIN dbo.customers AS c ON c.id = o.customer_id WHERE c.active = 1
-- =>
UPDATE orders AS o INNER JOIN customers AS c ON c.id = o.customer_id SET o.amount = o.amount * 1.1 WHERE c.active = 1;

-- 134 [rewritten QY05] UPDATE and DELETE with joins
UPDATE dbo.orders SET qty = l.qty FROM dbo.order_lines l WHERE l.order_id = orders.id AND l.line_no = 1
-- =>
UPDATE orders, order_lines AS l SET orders.qty = l.qty WHERE l.order_id = orders.id AND l.line_no = 1;

-- 135 [rewritten QY05] UPDATE and DELETE with joins
UPDATE k SET v = p.name FROM dbo.kv k JOIN dbo.products p ON p.id = k.k
-- =>
UPDATE kv AS k JOIN products AS p ON p.id = k.k SET k.v = p.name;

-- 136 [translated] UPDATE and DELETE with joins
DELETE o FROM dbo.orders o JOIN dbo.customers c ON c.id = o.customer_id WHERE c.active = 0
-- =>
DELETE o FROM orders AS o JOIN customers AS c ON c.id = o.customer_id WHERE c.active = 0;

-- 137 [translated] UPDATE and DELETE with joins
DELETE FROM dbo.order_lines FROM dbo.order_lines JOIN dbo.orders ON orders.id = order_lines.order_id WHERE orders.status = 'void'
-- =>
DELETE order_lines FROM order_lines JOIN orders ON orders.id = order_lines.order_id WHERE orders.status = 'void';

-- 138 [translated] UPDATE and DELETE with joins
DELETE TOP (10) FROM dbo.events WHERE kind = 'x'
-- =>
DELETE FROM events WHERE kind = 'x' LIMIT 10;

-- 139 [translated] UPDATE and DELETE with joins
UPDATE TOP (1) dbo.kv SET hits = 0
-- =>
UPDATE kv SET hits = 0 LIMIT 1;

-- 140 [translated] UPDATE and DELETE with joins
UPDATE dbo.kv SET hits += 1, v = N'x' WHERE k = 2
-- =>
UPDATE kv SET hits = hits + (1), v = N'x' WHERE k = 2;

-- 141 [rewritten QY37] UPDATE and DELETE with joins
UPDATE dbo.customers SET score = score / 2 WHERE id = 1
-- =>
UPDATE customers SET score = score DIV 2 WHERE id = 1;

-- ==================== CROSS and OUTER APPLY

-- 142 [rewritten QY10] CROSS and OUTER APPLY
SELECT c.id, o.amount FROM dbo.customers c CROSS APPLY (SELECT TOP 1 amount FROM dbo.orders o WHERE o.customer_id = c.id ORDER BY o.ordered_at DESC) o
-- =>
SELECT c.id, o.amount FROM customers AS c JOIN (SELECT amount, o.customer_id AS __k1, ROW_NUMBER() OVER (PARTITION BY o.customer_id ORDER BY o.ordered_at DESC) AS __rn FROM orders AS o) AS o ON o.__k1 = c.id AND o.__rn <= 1;

-- 143 [rewritten QY10] CROSS and OUTER APPLY
SELECT c.id, o.amount FROM dbo.customers c OUTER APPLY (SELECT TOP 1 amount FROM dbo.orders o WHERE o.customer_id = c.id ORDER BY amount DESC) o
-- =>
SELECT c.id, o.amount FROM customers AS c LEFT JOIN (SELECT amount, o.customer_id AS __k1, ROW_NUMBER() OVER (PARTITION BY o.customer_id ORDER BY amount DESC) AS __rn FROM orders AS o) AS o ON o.__k1 = c.id AND o.__rn <= 1;

-- 144 [rewritten QY10] CROSS and OUTER APPLY
SELECT c.id, x.total FROM dbo.customers c CROSS APPLY (SELECT o.customer_id, SUM(o.amount) AS total FROM dbo.orders o WHERE o.customer_id = c.id GROUP BY o.customer_id) x
-- =>
SELECT c.id, x.total FROM customers AS c JOIN (SELECT o.customer_id, SUM(o.amount) AS total, o.customer_id AS __k1 FROM orders AS o GROUP BY o.customer_id) AS x ON x.__k1 = c.id;

-- 145 [rewritten QY10] CROSS and OUTER APPLY
SELECT c.id, l.qty FROM dbo.customers c CROSS APPLY (SELECT TOP 2 ol.qty FROM dbo.orders o JOIN dbo.order_lines ol ON ol.order_id = o.id WHERE o.customer_id = c.id ORDER BY ol.qty DESC) l
-- =>
SELECT c.id, l.qty FROM customers AS c JOIN (SELECT ol.qty, o.customer_id AS __k1, ROW_NUMBER() OVER (PARTITION BY o.customer_id ORDER BY ol.qty DESC) AS __rn FROM orders AS o JOIN order_lines AS ol ON ol.order_id = o.id) AS l ON l.__k1 = c.id AND l.__rn <= 2;

-- 146 [rewritten QY10] CROSS and OUTER APPLY
SELECT c.id, x.n FROM dbo.customers c CROSS APPLY (SELECT 1 AS n) x
-- =>
SELECT c.id, x.n FROM customers AS c CROSS JOIN (SELECT 1 AS n) AS x;

-- 147 [unsupported QY10] CROSS and OUTER APPLY
SELECT c.id, x.n FROM dbo.customers c OUTER APPLY (SELECT COUNT(*) AS n FROM dbo.orders o WHERE o.customer_id = c.id) x
-- =>
-- (no TiDB statement)

-- 148 [rewritten QY81] CROSS and OUTER APPLY
SELECT c.id, s.value FROM dbo.customers c CROSS APPLY STRING_SPLIT(c.notes, ',') s
-- =>
SELECT c.id, SUBSTRING_INDEX(SUBSTRING_INDEX(c.notes, ',', s_sqlsrv2tidb_split.n), ',', -1) AS value FROM customers AS c JOIN (WITH RECURSIVE sqlsrv2tidb_split(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM sqlsrv2tidb_split WHERE n < 1000) SELECT n FROM sqlsrv2tidb_split) AS s_sqlsrv2tidb_split ON s_sqlsrv2tidb_split.n <= CHAR_LENGTH(c.notes) - CHAR_LENGTH(REPLACE(c.notes, ',', '')) + 1;

-- 149 [unsupported QY10] CROSS and OUTER APPLY
SELECT c.id, v.x FROM dbo.customers c CROSS APPLY (VALUES (c.first_name), (c.last_name)) v(x)
-- =>
-- (no TiDB statement)

-- 150 [unsupported QY10 QY36] CROSS and OUTER APPLY
SELECT c.id, f.y FROM dbo.customers c OUTER APPLY dbo.fn_orders(c.id) f
-- =>
-- (no TiDB statement)

-- 151 [unsupported QY10] CROSS and OUTER APPLY
SELECT c.id, o.amount FROM dbo.customers c CROSS APPLY (SELECT amount FROM dbo.orders o WHERE o.customer_id > c.id) o
-- =>
-- (no TiDB statement)

-- ==================== PIVOT and UNPIVOT

-- 152 [rewritten QY08] PIVOT and UNPIVOT
SELECT * FROM (SELECT customer_id, status, amount FROM dbo.orders) s PIVOT (SUM(amount) FOR status IN ([new], [paid], [void])) p
-- =>
SELECT * FROM (SELECT customer_id, SUM(CASE WHEN status = 'new' THEN amount END) AS new, SUM(CASE WHEN status = 'paid' THEN amount END) AS paid, SUM(CASE WHEN status = 'void' THEN amount END) AS void FROM (SELECT customer_id, status, amount FROM orders) AS s GROUP BY customer_id) AS p;

-- 153 [rewritten QY08] PIVOT and UNPIVOT
SELECT customer_id, [new], [paid] FROM (SELECT customer_id, status, qty FROM dbo.orders) s PIVOT (COUNT(qty) FOR status IN ([new], [paid])) AS p
-- =>
SELECT customer_id, `new`, `paid` FROM (SELECT customer_id, COUNT(CASE WHEN status = 'new' THEN qty END) AS new, COUNT(CASE WHEN status = 'paid' THEN qty END) AS paid FROM (SELECT customer_id, status, qty FROM orders) AS s GROUP BY customer_id) AS p;

-- 154 [rewritten QY08] PIVOT and UNPIVOT
SELECT * FROM dbo.quarterly PIVOT (MAX(q1) FOR product_id IN ([1], [2])) p
-- =>
SELECT * FROM (SELECT q2, q3, q4, MAX(CASE WHEN product_id = 1 THEN q1 END) AS `1`, MAX(CASE WHEN product_id = 2 THEN q1 END) AS `2` FROM quarterly AS __pivot_source GROUP BY q2, q3, q4) AS p;

-- 155 [rewritten QY08] PIVOT and UNPIVOT
SELECT product_id, quarter, amount FROM dbo.quarterly UNPIVOT (amount FOR quarter IN (q1, q2, q3, q4)) u
-- =>
SELECT product_id, quarter, amount FROM (SELECT product_id, 'q1' AS quarter, q1 AS amount FROM quarterly WHERE NOT q1 IS NULL UNION ALL SELECT product_id, 'q2', q2 FROM quarterly WHERE NOT q2 IS NULL UNION ALL SELECT product_id, 'q3', q3 FROM quarterly WHERE NOT q3 IS NULL UNION ALL SELECT product_id, 'q4', q4 FROM quarterly WHERE NOT q4 IS NULL) AS u;

-- 156 [unsupported QY08 QY15] PIVOT and UNPIVOT
SELECT * FROM (SELECT * FROM #unknown) s PIVOT (SUM(v) FOR k IN ([a])) p
-- =>
-- (no TiDB statement)

-- ==================== FOR XML and FOR JSON

-- 157 [review QY03 QY09 QY75] FOR XML and FOR JSON
SELECT STUFF((SELECT ',' + name FROM dbo.products ORDER BY name FOR XML PATH('')), 1, 1, '')
-- =>
SELECT INSERT((SELECT GROUP_CONCAT(CONCAT(',', name) ORDER BY name SEPARATOR '') FROM products), 1, 1, '');

-- 158 [review QY03 QY09] FOR XML and FOR JSON
SELECT c.id, STUFF((SELECT ', ' + o.status FROM dbo.orders o WHERE o.customer_id = c.id FOR XML PATH('')), 1, 2, '') AS statuses FROM dbo.customers c
-- =>
SELECT c.id, INSERT((SELECT GROUP_CONCAT(CONCAT(', ', o.status) SEPARATOR '') FROM orders AS o WHERE o.customer_id = c.id), 1, 2, '') AS statuses FROM customers AS c;

-- 159 [unsupported QY09] FOR XML and FOR JSON
SELECT id, name FROM dbo.products FOR XML RAW
-- =>
-- (no TiDB statement)

-- 160 [unsupported QY09] FOR XML and FOR JSON
SELECT id, name FROM dbo.products FOR JSON PATH
-- =>
-- (no TiDB statement)

-- 161 [unsupported QY09] FOR XML and FOR JSON
SELECT id, name FROM dbo.products FOR XML PATH('product'), ROOT('products')
-- =>
-- (no TiDB statement)

-- ==================== OUTPUT

-- 162 [rewritten QY11] OUTPUT
INSERT INTO dbo.events (kind, at) OUTPUT inserted.id VALUES ('signup', GETDATE())
-- =>
INSERT INTO events (kind, at) VALUES ('signup', CURRENT_TIMESTAMP(3));
SELECT LAST_INSERT_ID() AS id;

-- 163 [rewritten QY11] OUTPUT
(@P1 varchar(20))INSERT INTO dbo.events (kind, at) OUTPUT INSERTED.id VALUES (@P1, SYSDATETIME())
-- =>
-- parameters: @P1
INSERT INTO events (kind, at) VALUES (?, CURRENT_TIMESTAMP(6));
SELECT LAST_INSERT_ID() AS id;

-- 164 [unsupported QY11] OUTPUT
DELETE FROM dbo.events OUTPUT deleted.id WHERE kind = 'x'
-- =>
-- (no TiDB statement)

-- 165 [unsupported QY11] OUTPUT
UPDATE dbo.kv SET hits = hits + 1 OUTPUT inserted.hits WHERE k = 1
-- =>
-- (no TiDB statement)

-- 166 [unsupported QY11] OUTPUT
INSERT INTO dbo.kv (k, v) OUTPUT inserted.k, inserted.v VALUES (9, N'nine')
-- =>
-- (no TiDB statement)

-- ==================== MERGE

-- 167 [rewritten QY12] MERGE
(@P1 int,@P2 nvarchar(50))MERGE dbo.kv AS t USING (SELECT @P1 AS k, @P2 AS v) AS s ON t.k = s.k WHEN MATCHED THEN UPDATE SET t.v = s.v WHEN NOT MATCHED THEN INSERT (k, v) VALUES (s.k, s.v);
-- =>
-- parameters: @P1, @P2
INSERT INTO kv (k, v) VALUES (?, ?) ON DUPLICATE KEY UPDATE v = VALUES(v);

-- 168 [rewritten QY12 QY45] MERGE
MERGE INTO dbo.kv AS t USING (VALUES (1, N'uno'), (3, N'tres')) AS s (k, v) ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = s.v, hits = t.hits + 1 WHEN NOT MATCHED BY TARGET THEN INSERT (k, v, hits) VALUES (s.k, s.v, 0);
-- =>
INSERT INTO kv (k, v, hits) SELECT s.k, s.v, 0 FROM (SELECT 1 AS k, N'uno' AS v UNION ALL SELECT 3, N'tres') AS s ON DUPLICATE KEY UPDATE v = VALUES(v), hits = hits + 1;

-- 169 [rewritten QY12] MERGE
MERGE dbo.kv AS t USING dbo.products AS p ON t.k = p.id WHEN NOT MATCHED THEN INSERT (k, v) VALUES (p.id, p.name);
-- =>
INSERT INTO kv (k, v) SELECT p.id, p.name FROM products AS p WHERE NOT EXISTS(SELECT 1 FROM kv AS t WHERE t.k = p.id);

-- 170 [rewritten QY12] MERGE
MERGE dbo.kv AS t USING dbo.products AS p ON t.k = p.id WHEN MATCHED THEN UPDATE SET t.v = p.name;
-- =>
UPDATE kv AS t JOIN products AS p ON t.k = p.id SET t.v = p.name;

-- 171 [rewritten QY12] MERGE
MERGE dbo.kv AS t USING dbo.products AS p ON t.k = p.id WHEN MATCHED THEN DELETE;
-- =>
DELETE t FROM kv AS t JOIN products AS p ON t.k = p.id;

-- 172 [review QY12] MERGE
MERGE dbo.kv AS t USING dbo.products AS p ON t.k = p.id WHEN MATCHED AND p.price > 1 THEN UPDATE SET t.v = p.name WHEN NOT MATCHED THEN INSERT (k, v) VALUES (p.id, p.name);
-- =>
UPDATE kv AS t JOIN products AS p ON t.k = p.id AND (p.price > 1) SET t.v = p.name;
INSERT INTO kv (k, v) SELECT p.id, p.name FROM products AS p WHERE NOT EXISTS(SELECT 1 FROM kv AS t WHERE t.k = p.id);

-- 173 [review QY12] MERGE
MERGE dbo.kv AS t USING dbo.products AS p ON t.k = p.id WHEN NOT MATCHED BY SOURCE THEN DELETE;
-- =>
DELETE t FROM kv AS t WHERE NOT EXISTS(SELECT 1 FROM products AS p WHERE t.k = p.id);

-- 174 [review QY12] MERGE
-- parse-only: SQL Server fails too: the source rows ON matches to none are inserted with keys kv holds already (2627)
MERGE dbo.kv AS t USING dbo.products AS p ON t.v = p.name WHEN MATCHED THEN UPDATE SET t.hits = 1 WHEN NOT MATCHED THEN INSERT (k, v) VALUES (p.id, p.name);
-- =>
UPDATE kv AS t JOIN products AS p ON t.v = p.name SET t.hits = 1;
INSERT INTO kv (k, v) SELECT p.id, p.name FROM products AS p WHERE NOT EXISTS(SELECT 1 FROM kv AS t WHERE t.v = p.name);

-- ==================== Temp tables, table variables, SELECT INTO

-- 175 [rewritten QY15] Temp tables, table variables, SELECT INTO
CREATE TABLE #work (id INT NOT NULL PRIMARY KEY, total DECIMAL(10, 2), note NVARCHAR(MAX)); INSERT INTO #work (id, total) SELECT customer_id, SUM(amount) FROM dbo.orders GROUP BY customer_id; SELECT * FROM #work WHERE total > 1
-- =>
CREATE TEMPORARY TABLE tmp_work (id INT NOT NULL PRIMARY KEY, total DECIMAL(10, 2), note LONGTEXT) DEFAULT CHARACTER SET=utf8mb4 COLLATE=utf8mb4_general_ci;
INSERT INTO tmp_work (id, total) SELECT customer_id, SUM(amount) FROM orders GROUP BY customer_id;
SELECT * FROM tmp_work WHERE total > 1;

-- 176 [rewritten QY15 QY40] Temp tables, table variables, SELECT INTO
CREATE TABLE #seq (n INT IDENTITY(1,1) PRIMARY KEY, at DATETIME2(7)); INSERT INTO #seq (at) VALUES (SYSDATETIME()); SELECT n FROM #seq
-- =>
CREATE TEMPORARY TABLE tmp_seq (n INT AUTO_INCREMENT PRIMARY KEY, at DATETIME(6));
INSERT INTO tmp_seq (at) VALUES (CURRENT_TIMESTAMP(6));
SELECT n FROM tmp_seq;

-- 177 [rewritten QY15 QY17] Temp tables, table variables, SELECT INTO
SELECT * INTO #paid FROM dbo.orders WHERE status = 'paid'; SELECT COUNT(*) FROM #paid
-- =>
CREATE TEMPORARY TABLE tmp_paid (id INT, customer_id INT, status VARCHAR(10), amount DECIMAL(10, 2), qty INT, ordered_at DATETIME(3), shipped_at DATETIME(3)) DEFAULT CHARACTER SET=utf8mb4 COLLATE=utf8mb4_general_ci;
INSERT INTO tmp_paid (id, customer_id, status, amount, qty, ordered_at, shipped_at) SELECT * FROM orders WHERE status = 'paid';
SELECT COUNT(*) FROM tmp_paid;

-- 178 [rewritten QY15 QY17] Temp tables, table variables, SELECT INTO
SELECT customer_id, SUM(amount) AS total INTO #totals FROM dbo.orders GROUP BY customer_id; SELECT t.total FROM #totals t JOIN dbo.customers c ON c.id = t.customer_id
-- =>
CREATE TEMPORARY TABLE tmp_totals (customer_id INT, total DECIMAL(38, 2));
INSERT INTO tmp_totals (customer_id, total) SELECT customer_id, SUM(amount) AS total FROM orders GROUP BY customer_id;
SELECT t.total FROM tmp_totals AS t JOIN customers AS c ON c.id = t.customer_id;

-- 179 [rewritten QY03 QY15 QY17] Temp tables, table variables, SELECT INTO
SELECT c.first_name + ' ' + c.last_name AS name, o.amount INTO #named FROM dbo.customers c JOIN dbo.orders o ON o.customer_id = c.id
-- =>
CREATE TEMPORARY TABLE tmp_named (name VARCHAR(4000), amount DECIMAL(10, 2)) DEFAULT CHARACTER SET=utf8mb4 COLLATE=utf8mb4_general_ci;
INSERT INTO tmp_named (name, amount) SELECT CONCAT(c.first_name, ' ', c.last_name) AS name, o.amount FROM customers AS c JOIN orders AS o ON o.customer_id = c.id;

-- 180 [unsupported QY15 QY17] Temp tables, table variables, SELECT INTO
SELECT id, mystery INTO #bad FROM dbo.orders
-- =>
-- (no TiDB statement)

-- 181 [unsupported QY15 QY31] Temp tables, table variables, SELECT INTO
IF OBJECT_ID('tempdb..#work') IS NOT NULL CREATE TABLE #work (id INT); DROP TABLE #work
-- =>
-- (no TiDB statement)

-- 182 [rewritten QY15] Temp tables, table variables, SELECT INTO
CREATE TABLE #work (id INT); DROP TABLE #work
-- =>
CREATE TEMPORARY TABLE tmp_work (id INT);
DROP TEMPORARY TABLE tmp_work;

-- 183 [rewritten QY15] Temp tables, table variables, SELECT INTO
DROP TABLE IF EXISTS #work
-- =>
DROP TEMPORARY TABLE IF EXISTS tmp_work;

-- 184 [review QY15] Temp tables, table variables, SELECT INTO
CREATE TABLE ##shared (id INT); INSERT INTO ##shared VALUES (1); SELECT id FROM ##shared
-- =>
CREATE TEMPORARY TABLE gtmp_shared (id INT);
INSERT INTO gtmp_shared VALUES (1);
SELECT id FROM gtmp_shared;

-- 185 [rewritten QY16] Temp tables, table variables, SELECT INTO
DECLARE @ids TABLE (id INT PRIMARY KEY); INSERT INTO @ids (id) SELECT id FROM dbo.customers WHERE active = 1; SELECT o.id FROM dbo.orders o JOIN @ids i ON i.id = o.customer_id
-- =>
DROP TEMPORARY TABLE IF EXISTS var_ids;
CREATE TEMPORARY TABLE var_ids (id INT PRIMARY KEY);
INSERT INTO var_ids (id) SELECT id FROM customers WHERE active = 1;
SELECT o.id FROM orders AS o JOIN var_ids AS i ON i.id = o.customer_id;

-- 186 [rewritten QY17] Temp tables, table variables, SELECT INTO
SELECT id INTO dbo.archive_orders FROM dbo.orders WHERE status = 'void'
-- =>
CREATE TABLE archive_orders (id INT);
INSERT INTO archive_orders (id) SELECT id FROM orders WHERE status = 'void';

-- 187 [translated] Temp tables, table variables, SELECT INTO
TRUNCATE TABLE dbo.events
-- =>
TRUNCATE TABLE events;

-- ==================== Local variables and batches

-- 188 [rewritten QY14 QY26] Local variables and batches
DECLARE @n INT = 5; SELECT TOP (@n) id FROM dbo.orders ORDER BY id
-- =>
SET @n = 5;
SELECT id FROM (SELECT id, id AS __o1, ROW_NUMBER() OVER (ORDER BY id) AS __row FROM orders) AS __top WHERE __row <= @n ORDER BY __o1;

-- 189 [rewritten QY26] Local variables and batches
DECLARE @since DATETIME = '2024-01-01'; SELECT COUNT(*) FROM dbo.orders WHERE ordered_at >= @since
-- =>
SET @since = '2024-01-01';
SELECT COUNT(*) FROM orders WHERE ordered_at >= @since;

-- 190 [rewritten QY26] Local variables and batches
DECLARE @name NVARCHAR(50); SET @name = N'Ann'; SELECT id FROM dbo.customers WHERE first_name = @name
-- =>
SET @name = NULL;
SET @name = N'Ann';
SELECT id FROM customers WHERE first_name = @name;

-- 191 [rewritten QY26] Local variables and batches
DECLARE @total DECIMAL(10, 2); SELECT @total = SUM(amount) FROM dbo.orders; SELECT @total
-- =>
SET @total = NULL;
SET @total = (SELECT SUM(amount) FROM orders);
SELECT @total;

-- 192 [rewritten QY26] Local variables and batches
DECLARE @last INT; SELECT @last = id FROM dbo.orders WHERE status = 'paid' ORDER BY id; SELECT @last
-- =>
SET @last = NULL;
SET @last = (SELECT id FROM orders WHERE status = 'paid' ORDER BY id DESC LIMIT 1);
SELECT @last;

-- 193 [review QY26 QY37 QY61] Local variables and batches
DECLARE @a INT = 1, @b INT = 2; SELECT @a + @b, @a / @b
-- =>
SET @a = 1, @b = 2;
SELECT @a + @b, @a DIV @b;

-- 194 [rewritten QY03 QY26] Local variables and batches
DECLARE @prefix NVARCHAR(10) = N'Mr '; SELECT @prefix + first_name FROM dbo.customers
-- =>
SET @prefix = N'Mr ';
SELECT CONCAT(@prefix, first_name) FROM customers;

-- 195 [rewritten QY26] Local variables and batches
DECLARE @i INT = 0; SET @i += 1; SELECT @i
-- =>
SET @i = 0;
SET @i = @i + (1);
SELECT @i;

-- 196 [rewritten QY26] Local variables and batches
SELECT @x = 1
-- =>
SET @x = 1;

-- 197 [rewritten QY39] Local variables and batches
SET NOCOUNT ON; SELECT k FROM dbo.kv
-- =>
SELECT k FROM kv;

-- 198 [rewritten QY39] Local variables and batches
SET ANSI_NULLS ON
-- =>
-- (nothing to run)

-- 199 [review QY39] Local variables and batches
SET XACT_ABORT ON
-- =>
-- (nothing to run)

-- 200 [rewritten QY39] Local variables and batches
SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED; SELECT id FROM dbo.orders
-- =>
SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;
SELECT id FROM orders;

-- 201 [rewritten QY39] Local variables and batches
SET TRANSACTION ISOLATION LEVEL SNAPSHOT
-- =>
SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ;

-- 202 [review QY39] Local variables and batches
SET TRANSACTION ISOLATION LEVEL SERIALIZABLE
-- =>
SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ;

-- 203 [rewritten QY39] Local variables and batches
SET LOCK_TIMEOUT 1500
-- =>
SET SESSION innodb_lock_wait_timeout = 2;

-- 204 [rewritten QY22] Local variables and batches
SET IDENTITY_INSERT dbo.customers ON
-- =>
-- (nothing to run)

-- 205 [translated] Local variables and batches
BEGIN TRAN; UPDATE dbo.kv SET hits = hits + 1 WHERE k = 1; COMMIT TRAN
-- =>
BEGIN;
UPDATE kv SET hits = hits + 1 WHERE k = 1;
COMMIT;

-- 206 [translated] Local variables and batches
BEGIN TRANSACTION; DELETE FROM dbo.events WHERE kind = 'zzz'; ROLLBACK
-- =>
BEGIN;
DELETE FROM events WHERE kind = 'zzz';
ROLLBACK;

-- 207 [rewritten QY39] Local variables and batches
BEGIN TRAN; SAVE TRANSACTION before_delete; DELETE FROM dbo.events WHERE kind = 'zzz'; ROLLBACK TRANSACTION before_delete; COMMIT
-- =>
BEGIN;
SAVEPOINT before_delete;
DELETE FROM events WHERE kind = 'zzz';
ROLLBACK TO SAVEPOINT before_delete;
COMMIT;

-- 208 [translated] Local variables and batches
SELECT v FROM dbo.kv
GO
SELECT k FROM dbo.kv
-- =>
SELECT v FROM kv;
SELECT k FROM kv;

-- 209 [rewritten QY39] Local variables and batches
USE shop
-- =>
-- (nothing to run)

-- 210 [rewritten QY47] Local variables and batches
PRINT 'done'
-- =>
-- (nothing to run)

-- ==================== Procedures, dynamic SQL, control flow, errors

-- 211 [unsupported QY24] Procedures, dynamic SQL, control flow, errors
EXEC dbo.usp_close_orders @days = 30
-- =>
-- (no TiDB statement)

-- 212 [unsupported QY24] Procedures, dynamic SQL, control flow, errors
EXECUTE dbo.usp_report
-- =>
-- (no TiDB statement)

-- 213 [rewritten QY25] Procedures, dynamic SQL, control flow, errors
EXEC sp_executesql N'SELECT id FROM dbo.orders WHERE customer_id = @c', N'@c int', @c = 1
-- =>
SELECT id FROM orders WHERE customer_id = 1;

-- 214 [rewritten QY25] Procedures, dynamic SQL, control flow, errors
EXEC ('SELECT COUNT(*) FROM dbo.orders')
-- =>
SELECT COUNT(*) FROM orders;

-- 215 [unsupported QY25 QY26] Procedures, dynamic SQL, control flow, errors
DECLARE @sql NVARCHAR(MAX) = N'SELECT 1'; EXEC (@sql)
-- =>
-- (no TiDB statement)

-- 216 [unsupported QY25 QY26] Procedures, dynamic SQL, control flow, errors
DECLARE @sql NVARCHAR(MAX) = N'SELECT 1'; EXEC sp_executesql @sql
-- =>
-- (no TiDB statement)

-- 217 [unsupported QY31] Procedures, dynamic SQL, control flow, errors
IF EXISTS (SELECT 1 FROM dbo.kv WHERE k = 1) UPDATE dbo.kv SET hits = 0 WHERE k = 1 ELSE INSERT INTO dbo.kv (k) VALUES (1)
-- =>
-- (no TiDB statement)

-- 218 [unsupported QY31] Procedures, dynamic SQL, control flow, errors
WHILE 1 = 0 BEGIN SELECT 1 END
-- =>
-- (no TiDB statement)

-- 219 [unsupported QY31 QY37 QY61] Procedures, dynamic SQL, control flow, errors
BEGIN TRY SELECT 1/0 END TRY BEGIN CATCH SELECT ERROR_MESSAGE() END CATCH
-- =>
-- (no TiDB statement)

-- 220 [unsupported QY32] Procedures, dynamic SQL, control flow, errors
RAISERROR('Order %d not found', 16, 1, 5)
-- =>
-- (no TiDB statement)

-- 221 [unsupported QY32] Procedures, dynamic SQL, control flow, errors
THROW 50001, 'bad order', 1
-- =>
-- (no TiDB statement)

-- 222 [unsupported QY33] Procedures, dynamic SQL, control flow, errors
DECLARE c CURSOR FOR SELECT id FROM dbo.orders; OPEN c; FETCH NEXT FROM c; CLOSE c; DEALLOCATE c
-- =>
-- (no TiDB statement)

-- 223 [rewritten QY34] Procedures, dynamic SQL, control flow, errors
WAITFOR DELAY '00:00:01'
-- =>
DO SLEEP(1);

-- 224 [unsupported QY34] Procedures, dynamic SQL, control flow, errors
WAITFOR TIME '23:00'
-- =>
-- (no TiDB statement)

-- ==================== Collations and comparisons

-- 225 [review QY27] Collations and comparisons
SELECT id FROM dbo.customers WHERE first_name = 'ann' COLLATE Latin1_General_CS_AS
-- =>
SELECT id FROM customers WHERE first_name = 'ann' COLLATE utf8mb4_bin;

-- 226 [review QY27 QY75] Collations and comparisons
SELECT id FROM dbo.customers ORDER BY first_name COLLATE SQL_Latin1_General_CP1_CI_AS
-- =>
SELECT id FROM customers ORDER BY first_name COLLATE utf8mb4_general_ci;

-- 227 [rewritten QY27] Collations and comparisons
SELECT first_name COLLATE DATABASE_DEFAULT FROM dbo.customers
-- =>
SELECT first_name FROM customers;

-- 228 [review QY28] Collations and comparisons
(@P1 nvarchar(10),@P2 nvarchar(10))SELECT CASE WHEN @P1 = @P2 THEN 1 ELSE 0 END
-- =>
-- parameters: @P1, @P2
SELECT CASE WHEN ? = ? THEN 1 ELSE 0 END;

-- ==================== Cross-database and linked servers

-- 229 [review QY29] Cross-database and linked servers
-- parse-only: names database archive, which the golden schema does not have
SELECT id FROM archive.dbo.orders
-- =>
SELECT id FROM archive.orders;

-- 230 [review QY29] Cross-database and linked servers
-- parse-only: names database archive, which the golden schema does not have
SELECT o.id FROM dbo.orders o JOIN archive.dbo.customers c ON c.id = o.customer_id
-- =>
SELECT o.id FROM orders AS o JOIN archive.customers AS c ON c.id = o.customer_id;

-- 231 [unsupported QY30] Cross-database and linked servers
SELECT id FROM remote1.shop.dbo.orders
-- =>
-- (no TiDB statement)

-- 232 [unsupported QY30] Cross-database and linked servers
SELECT * FROM OPENQUERY(remote1, 'SELECT 1')
-- =>
-- (no TiDB statement)

-- 233 [unsupported QY30] Cross-database and linked servers
SELECT * FROM OPENROWSET('SQLNCLI', 'Server=x;', 'SELECT 1')
-- =>
-- (no TiDB statement)

-- 234 [rewritten QY49] Cross-database and linked servers
SELECT name FROM sys.tables
-- =>
SELECT name FROM (SELECT COALESCE(m.name, t.TABLE_NAME) AS name, CAST(CRC32(LOWER(t.TABLE_NAME)) & 2147483647 AS SIGNED) AS object_id, NULL AS principal_id, COALESCE(m.schema_id, 1) AS schema_id, 0 AS parent_object_id, 'U' AS type, 'USER_TABLE' AS type_desc, t.CREATE_TIME AS create_date, COALESCE(t.UPDATE_TIME, t.CREATE_TIME) AS modify_date, 0 AS is_ms_shipped, 0 AS is_published, 0 AS is_schema_published, 0 AS is_memory_optimized, 1 AS durability, COALESCE(m.temporal, 0) AS temporal_type, 0 AS is_external, NULL AS history_table_id, 0 AS is_replicated, 0 AS has_replication_filter FROM information_schema.TABLES AS t LEFT JOIN (SELECT 'customers' AS tidb, 1 AS schema_id, 'customers' AS name, 0 AS temporal UNION ALL SELECT 'products' AS tidb, 1 AS schema_id, 'products' AS name, 0 AS temporal UNION ALL SELECT 'orders' AS tidb, 1 AS schema_id, 'orders' AS name, 0 AS temporal UNION ALL SELECT 'order_lines' AS tidb, 1 AS schema_id, 'order_lines' AS name, 0 AS temporal UNION ALL SELECT 'kv' AS tidb, 1 AS schema_id, 'kv' AS name, 0 AS temporal UNION ALL SELECT 'events' AS tidb, 1 AS schema_id, 'events' AS name, 0 AS temporal UNION ALL SELECT 'quarterly' AS tidb, 1 AS schema_id, 'quarterly' AS name, 0 AS temporal UNION ALL SELECT 'sales_customers' AS tidb, 5 AS schema_id, 'customers' AS name, 0 AS temporal UNION ALL SELECT 'promotions' AS tidb, 1 AS schema_id, 'promotions' AS name, 0 AS temporal UNION ALL SELECT 'org' AS tidb, 1 AS schema_id, 'org' AS name, 0 AS temporal) AS m ON m.tidb = LOWER(t.TABLE_NAME) WHERE t.TABLE_SCHEMA = SCHEMA() AND t.TABLE_TYPE = 'BASE TABLE') AS tables;

-- 235 [review QY49] Cross-database and linked servers
SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES
-- =>
SELECT TABLE_NAME FROM INFORMATION_SCHEMA.TABLES;

-- ==================== Derived tables with column lists

-- 236 [rewritten QY45] Derived tables with column lists
SELECT v.a, v.b FROM (VALUES (1, N'x'), (2, N'y')) AS v(a, b)
-- =>
SELECT v.a, v.b FROM (SELECT 1 AS a, N'x' AS b UNION ALL SELECT 2, N'y') AS v;

-- 237 [rewritten QY45] Derived tables with column lists
SELECT d.n FROM (SELECT id FROM dbo.customers) AS d(n)
-- =>
SELECT d.n FROM (SELECT id AS n FROM customers) AS d;

-- ==================== Parameters from Query Store

-- 238 [translated] Parameters from Query Store
(@P1 int)SELECT first_name FROM dbo.customers WHERE id = @P1
-- =>
-- parameters: @P1
SELECT first_name FROM customers WHERE id = ?;

-- 239 [translated] Parameters from Query Store
(@P1 int,@P2 nvarchar(50))UPDATE dbo.customers SET first_name = @P2 WHERE id = @P1
-- =>
-- parameters: @P2, @P1
UPDATE customers SET first_name = ? WHERE id = ?;

-- 240 [translated] Parameters from Query Store
(@P1 int)SELECT id FROM dbo.orders WHERE customer_id = @P1 OR qty = @P1
-- =>
-- parameters: @P1, @P1
SELECT id FROM orders WHERE customer_id = ? OR qty = ?;

-- 241 [translated] Parameters from Query Store
(@P1 datetime,@P2 datetime)SELECT COUNT(*) FROM dbo.orders WHERE ordered_at >= @P1 AND ordered_at < @P2
-- =>
-- parameters: @P1, @P2
SELECT COUNT(*) FROM orders WHERE ordered_at >= ? AND ordered_at < ?;

-- 242 [rewritten QY03] Parameters from Query Store
(@P1 nvarchar(50))SELECT id FROM dbo.customers WHERE last_name = @P1 + N'x'
-- =>
-- parameters: @P1
SELECT id FROM customers WHERE last_name = CONCAT(?, N'x');

-- 243 [translated] Parameters from Query Store
(@P1 int,@P2 int)SELECT TOP 1 id FROM dbo.orders WHERE customer_id = @P1 AND qty > @P2 ORDER BY id
-- =>
-- parameters: @P1, @P2
SELECT id FROM orders WHERE customer_id = ? AND qty > ? ORDER BY id LIMIT 1;

-- 244 [rewritten QY13] Parameters from Query Store
(@status varchar(10))SELECT COUNT(*) FROM dbo.orders WITH (NOLOCK) WHERE status = @status
-- =>
-- parameters: @status
SELECT COUNT(*) FROM orders WHERE status = ?;

-- 245 [translated] Parameters from Query Store
(@P1 smallint,@P2 int,@P3 smallint,@P4 int)INSERT INTO dbo.order_lines (order_id, line_no, product_id, qty, price) VALUES (@P2, @P1, @P4, @P3, 1)
-- =>
-- parameters: @P2, @P1, @P4, @P3
INSERT INTO order_lines (order_id, line_no, product_id, qty, price) VALUES (?, ?, ?, ?, 1);

-- ==================== Statements that cannot be read

-- 246 [unsupported QY01] Statements that cannot be read
SELECT FROM WHERE
-- =>
-- (no TiDB statement)

-- 247 [unsupported QY01] Statements that cannot be read
SELECT id FROM dbo.orders WHERE (status = 'x'
-- =>
-- (no TiDB statement)

-- ==================== NOT LIKE keeps its negation when the pattern is rewritten

-- 248 [rewritten QY06] NOT LIKE with a character class becomes NOT ... REGEXP
SELECT id FROM dbo.customers WHERE code NOT LIKE '[0-9]%'
-- =>
SELECT id FROM customers WHERE NOT code REGEXP '^[0-9](.|\n)*$';

-- 249 [rewritten QY06] NOT LIKE with a bracket escape keeps NOT LIKE
SELECT id FROM dbo.customers WHERE first_name NOT LIKE '%[_]%'
-- =>
SELECT id FROM customers WHERE first_name NOT LIKE '%\\_%';

-- 250 [review QY06] NOT LIKE with a negated class
SELECT id FROM dbo.products WHERE name NOT LIKE '[^A-Z]%' AND category NOT LIKE 'v[e]g'
-- =>
SELECT id FROM products WHERE NOT name REGEXP '^[^A-Z](.|\n)*$' AND category NOT LIKE 'veg';

-- ==================== UPDATE and DELETE targets bind to their FROM reference

-- 251 [rewritten QY05] UPDATE target named by table, aliased once in FROM
UPDATE dbo.orders SET status = 'x' FROM dbo.orders o JOIN dbo.customers c ON c.id = o.customer_id WHERE c.first_name = N'Ann' AND o.qty = 3
-- =>
UPDATE orders AS o JOIN customers AS c ON c.id = o.customer_id SET o.status = 'x' WHERE c.first_name = N'Ann' AND o.qty = 3;

-- 252 [rewritten QY05] UPDATE target named without schema, aliased in FROM
UPDATE orders SET qty = qty + 1 FROM dbo.orders AS o WHERE o.id = 2
-- =>
UPDATE orders AS o SET o.qty = qty + 1 WHERE o.id = 2;

-- 253 [rewritten QY05] UPDATE target that appears twice: the reference without an alias
UPDATE dbo.orders SET qty = o2.qty FROM dbo.orders JOIN dbo.orders o2 ON o2.id = orders.id + 1
-- =>
UPDATE orders JOIN orders AS o2 ON o2.id = orders.id + 1 SET orders.qty = o2.qty;

-- 254 [rewritten QY05] Aliased UPDATE ... FROM columns keep their types
UPDATE o SET qty = o.qty + 1 FROM dbo.orders o JOIN dbo.customers c ON c.id = o.customer_id WHERE c.active = 1
-- =>
UPDATE orders AS o JOIN customers AS c ON c.id = o.customer_id SET o.qty = o.qty + 1 WHERE c.active = 1;

-- 255 [rewritten QY05] DELETE FROM target aliased in FROM is named by its alias
DELETE FROM dbo.orders FROM dbo.orders o JOIN dbo.customers c ON c.id = o.customer_id WHERE c.first_name = N'Ann'
-- =>
DELETE o FROM orders AS o JOIN customers AS c ON c.id = o.customer_id WHERE c.first_name = N'Ann';

-- 256 [rewritten QY05] DELETE target absent from FROM joins the FROM sources
DELETE dbo.order_lines FROM dbo.orders o WHERE o.id = order_lines.order_id AND o.status = 'void'
-- =>
DELETE order_lines FROM order_lines, orders AS o WHERE o.id = order_lines.order_id AND o.status = 'void';

-- ==================== Conversions to integers truncate decimals and floats

-- 257 [rewritten QY51] CAST of a decimal to int truncates
SELECT id, CAST(amount AS int), CONVERT(int, amount * 1.5) FROM dbo.orders
-- =>
SELECT id, CAST(TRUNCATE(amount, 0) AS SIGNED), CAST(TRUNCATE(amount * 1.5, 0) AS SIGNED) FROM orders;

-- 258 [rewritten QY51] CAST of a float to bigint truncates
SELECT CAST(weight * 10 AS bigint), CAST(1.9 AS int) FROM dbo.products
-- =>
SELECT CAST(TRUNCATE(weight * 10, 0) AS SIGNED), CAST(TRUNCATE(1.9, 0) AS SIGNED) FROM products;

-- 259 [translated] CAST of money to int rounds, as CAST does
SELECT CAST(price AS int), CAST(balance AS smallint) FROM dbo.products, dbo.customers
-- =>
SELECT CAST(price AS SIGNED), CAST(balance AS SIGNED) FROM products, customers;

-- 260 [translated] CAST of an integer is kept
SELECT CAST(qty AS bigint), CONVERT(smallint, id) FROM dbo.orders
-- =>
SELECT CAST(qty AS SIGNED), CAST(id AS SIGNED) FROM orders;

-- 261 [review QY26 QY51] CAST of an operand of unknown type to int is flagged
(@P1 int)SELECT CAST(@rate * 100 AS int) FROM dbo.orders WHERE id = @P1
-- =>
-- parameters: @rate, @P1
SELECT CAST(? * 100 AS SIGNED) FROM orders WHERE id = ?;

-- 262 [rewritten QY51] A computed float from a CTE truncates (SEDE 72370)
WITH r AS (SELECT customer_id, CAST(COUNT(shipped_at) AS float) / CAST(COUNT(*) AS float) AS rate FROM dbo.orders GROUP BY customer_id) SELECT CAST(100 * rate AS int) AS pct, COUNT(*) AS n FROM r GROUP BY CAST(100 * rate AS int)
-- =>
WITH r AS (SELECT customer_id, CAST(COUNT(shipped_at) AS DOUBLE) / CAST(COUNT(*) AS DOUBLE) AS rate FROM orders GROUP BY customer_id) SELECT CAST(TRUNCATE(100 * rate, 0) AS SIGNED) AS pct, COUNT(*) AS n FROM r GROUP BY CAST(TRUNCATE(100 * rate, 0) AS SIGNED);

-- ==================== Datetimes read as numbers count days since 1900-01-01

-- 263 [rewritten QY38] datetime - datetime converted to int is a day count (SEDE 120018)
SELECT CONVERT(int, shipped_at - ordered_at) AS days FROM dbo.orders WHERE CONVERT(int, shipped_at - ordered_at) > 0
-- =>
SELECT CAST(FLOOR((TIMESTAMPDIFF(MICROSECOND, ordered_at, shipped_at) + 43200000000) / 86400000000) AS SIGNED) AS days FROM orders WHERE CAST(FLOOR((TIMESTAMPDIFF(MICROSECOND, ordered_at, shipped_at) + 43200000000) / 86400000000) AS SIGNED) > 0;

-- 264 [rewritten QY38] datetime - datetime compared with a number of days
SELECT id FROM dbo.orders WHERE shipped_at - ordered_at < 2
-- =>
SELECT id FROM orders WHERE TIMESTAMPDIFF(MICROSECOND, ordered_at, shipped_at) < 2 * 86400000000;

-- 265 [rewritten QY38] datetime - datetime as a value is a datetime after 1900-01-01
SELECT shipped_at - ordered_at FROM dbo.orders
-- =>
SELECT DATE_ADD(CAST('1900-01-01' AS DATETIME(3)), INTERVAL (TIMESTAMPDIFF(MICROSECOND, ordered_at, shipped_at)) MICROSECOND) FROM orders;

-- 266 [rewritten QY38] datetime truncated to its day through float
SELECT CAST(FLOOR(CAST(ordered_at AS float)) AS datetime) FROM dbo.orders
-- =>
SELECT CAST(DATE_ADD(CAST('1900-01-01' AS DATETIME(3)), INTERVAL (ROUND(FLOOR(CAST(TIMESTAMPDIFF(MICROSECOND, CAST('1900-01-01' AS DATETIME(3)), ordered_at) AS DOUBLE) / 86400000000) * 86400000000)) MICROSECOND) AS DATETIME(3)) FROM orders;

-- 267 [rewritten QY38] datetime + datetime adds the second's days
SELECT ordered_at + CAST('1900-01-01 06:00' AS datetime) FROM dbo.orders
-- =>
SELECT DATE_ADD(ordered_at, INTERVAL (TIMESTAMPDIFF(MICROSECOND, CAST('1900-01-01' AS DATETIME(3)), CAST('1900-01-01 06:00' AS DATETIME(3)))) MICROSECOND) FROM orders;

-- 268 [rewritten QY38] A number converted to datetime counts days from 1900-01-01
SELECT CAST(45000 AS datetime), CONVERT(datetime, 1.25)
-- =>
SELECT CAST(DATE_ADD(CAST('1900-01-01' AS DATETIME(3)), INTERVAL (45000 * 86400000000) MICROSECOND) AS DATETIME(3)), CAST(DATE_ADD(CAST('1900-01-01' AS DATETIME(3)), INTERVAL (ROUND(1.25 * 86400000000)) MICROSECOND) AS DATETIME(3));

-- 269 [review QY26 QY38] datetime minus a parameter of unknown type is flagged
SELECT id FROM dbo.orders WHERE ordered_at > GETDATE() - @days
-- =>
-- parameters: @days
SELECT id FROM orders WHERE ordered_at > CURRENT_TIMESTAMP(3) - ?;

-- ==================== Output TiDB's grammar accepts: LIMIT values, ROLLUP, time units

-- 270 [rewritten QY14] OFFSET and FETCH computed from parameters become a window filter
(@page int,@size int)SELECT id, amount FROM dbo.orders ORDER BY id OFFSET (@page - 1) * @size ROWS FETCH NEXT @size ROWS ONLY
-- =>
-- parameters: @page, @size, @page, @size, @size
SELECT id, amount FROM (SELECT id, amount, id AS __o1, ROW_NUMBER() OVER (ORDER BY id) AS __row FROM orders) AS __top WHERE __row > (? - 1) * ? AND __row <= (? - 1) * ? + ? ORDER BY __o1;

-- 271 [rewritten QY72] GROUP BY ROLLUP becomes WITH ROLLUP
SELECT status, customer_id, SUM(amount) AS total FROM dbo.orders GROUP BY ROLLUP (status, customer_id)
-- =>
SELECT status, customer_id, SUM(amount) AS total FROM orders GROUP BY status, customer_id WITH ROLLUP UNION ALL SELECT NULL, NULL, SUM(amount) AS total FROM orders HAVING COUNT(*) = 0;

-- 272 [rewritten QY72 QY75] GROUP BY ... WITH ROLLUP and GROUPING() keep their form
-- parse-only: MariaDB rejects ORDER BY with WITH ROLLUP (error 1221); TiDB accepts it
SELECT status, GROUPING(status) AS g, COUNT(*) FROM dbo.orders GROUP BY status WITH ROLLUP ORDER BY status
-- =>
SELECT status, GROUPING(status) AS g, COUNT(*) FROM orders GROUP BY status WITH ROLLUP UNION ALL SELECT NULL, 1 AS g, COUNT(*) FROM orders HAVING COUNT(*) = 0 ORDER BY 1;

-- 273 [unsupported QY52] GROUP BY CUBE has no TiDB form
SELECT status, customer_id, SUM(amount) FROM dbo.orders GROUP BY CUBE (status, customer_id)
-- =>
-- (no TiDB statement)

-- 274 [unsupported QY52] ROLLUP beside another column has no TiDB form
SELECT status, customer_id, SUM(amount) FROM dbo.orders GROUP BY status, ROLLUP (customer_id)
-- =>
-- (no TiDB statement)

-- 275 [review QY40] DATEADD in nanoseconds becomes whole microseconds
SELECT DATEADD(ns, 3000, at), DATEADD(nanosecond, 100, at) FROM dbo.events
-- =>
SELECT DATE_ADD(at, INTERVAL (3000 DIV 1000) MICROSECOND), DATE_ADD(at, INTERVAL (100 DIV 1000) MICROSECOND) FROM events;

-- ==================== MERGE whose INSERT does not write its ON key

-- 276 [review QY12 QY45] MERGE on an IDENTITY key the INSERT omits: UPDATE then INSERT ... WHERE NOT EXISTS, every parameter kept
(@P1 int,@P2 nvarchar(50))MERGE dbo.customers AS t USING (VALUES (@P1, @P2)) AS s (id, first_name) ON t.id = s.id WHEN MATCHED THEN UPDATE SET first_name = s.first_name WHEN NOT MATCHED THEN INSERT (first_name, active, created_at) VALUES (s.first_name, 1, GETDATE());
-- =>
-- parameters: @P1, @P2, @P2, @P1
UPDATE customers AS t JOIN (SELECT ? AS id, ? AS first_name) AS s ON t.id = s.id SET t.first_name = s.first_name;
INSERT INTO customers (first_name, active, created_at) SELECT ?, 1, CURRENT_TIMESTAMP(3) FROM DUAL WHERE NOT EXISTS(SELECT 1 FROM customers AS t WHERE t.id = ?);

-- 277 [review QY12] MERGE whose INSERT writes the key with another value
(@P1 int,@P2 nvarchar(50))MERGE dbo.kv AS t USING (SELECT @P1 AS k, @P2 AS v) AS s ON t.k = s.k WHEN MATCHED THEN UPDATE SET t.v = s.v WHEN NOT MATCHED THEN INSERT (k, v) VALUES (s.k + 100, s.v);
-- =>
-- parameters: @P1, @P2, @P1, @P2, @P1
UPDATE kv AS t JOIN (SELECT ? AS k, ? AS v) AS s ON t.k = s.k SET t.v = s.v;
INSERT INTO kv (k, v) SELECT ? + 100, ? FROM DUAL WHERE NOT EXISTS(SELECT 1 FROM kv AS t WHERE t.k = ?);

-- 278 [unsupported QY12 QY78] MERGE whose UPDATE changes the key the INSERT omits
MERGE dbo.orders AS t USING dbo.order_lines AS l ON t.id = l.order_id WHEN MATCHED THEN UPDATE SET id = l.order_id + 1 WHEN NOT MATCHED THEN INSERT (customer_id, status, amount, qty, ordered_at) VALUES (1, 'new', l.price, l.qty, GETDATE());
-- =>
-- (no TiDB statement)

-- ==================== UPDATE and DELETE through a CTE

-- 279 [rewritten QY05] DELETE through a CTE with ROW_NUMBER() joins the base table on its key
WITH x AS (SELECT id, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY ordered_at DESC) AS rn FROM dbo.orders) DELETE FROM x WHERE rn > 1
-- =>
DELETE orders FROM orders JOIN (SELECT id, ROW_NUMBER() OVER (PARTITION BY customer_id ORDER BY ordered_at DESC) AS rn, orders.id AS __k1 FROM orders) AS x ON orders.id = x.__k1 WHERE x.rn > 1;

-- 280 [rewritten QY05] UPDATE through a CTE with TOP
WITH x AS (SELECT TOP 2 * FROM dbo.orders ORDER BY amount DESC) UPDATE x SET status = 'top'
-- =>
UPDATE orders JOIN (SELECT *, orders.id AS __k1 FROM orders ORDER BY amount DESC LIMIT 2) AS x ON orders.id = x.__k1 SET orders.status = 'top';

-- 281 [rewritten QY05] UPDATE through a CTE with a column list and a correlated value
WITH x (k, q) AS (SELECT id, qty FROM dbo.orders WHERE status = 'paid') UPDATE x SET q = q + 1 WHERE k > 1
-- =>
UPDATE orders JOIN (SELECT id AS k, qty AS q, orders.id AS __k1 FROM orders WHERE status = 'paid') AS x ON orders.id = x.__k1 SET orders.qty = x.q + 1 WHERE x.k > 1;

-- 282 [unsupported QY05] DELETE through an aggregating CTE has no form
WITH x AS (SELECT customer_id, COUNT(*) AS n FROM dbo.orders GROUP BY customer_id) DELETE FROM x WHERE n > 1
-- =>
-- (no TiDB statement)

-- 283 [unsupported QY05] UPDATE through a CTE over a join has no form
WITH x AS (SELECT o.status FROM dbo.orders o JOIN dbo.customers c ON c.id = o.customer_id) UPDATE x SET status = 'x'
-- =>
-- (no TiDB statement)

-- ==================== Start positions below 1 and random order

-- 284 [rewritten QY36] SUBSTRING and CHARINDEX with literal starts below 1
SELECT SUBSTRING(first_name, 0, 3), SUBSTRING(first_name, -2, 4), CHARINDEX('n', first_name, 0) FROM dbo.customers
-- =>
SELECT SUBSTRING(first_name, 1, 2), SUBSTRING(first_name, 1, 1), LOCATE('n', first_name) FROM customers;

-- 285 [rewritten QY36] CHARINDEX with a computed start
SELECT CHARINDEX('n', first_name, score - 5), CHARINDEX('n', first_name, CHARINDEX('n', first_name) + 1) FROM dbo.customers
-- =>
SELECT LOCATE('n', first_name, GREATEST(score - 5, 1)), LOCATE('n', first_name, LOCATE('n', first_name) + 1) FROM customers;

-- 286 [review QY36] SUBSTRING with a computed start that may be below 1 is flagged
SELECT SUBSTRING(email, CHARINDEX('@', email) - 1, 5), SUBSTRING(email, CHARINDEX('@', email) + 1, 100) FROM dbo.customers
-- =>
SELECT SUBSTRING(email, LOCATE('@', email) - 1, 5), SUBSTRING(email, LOCATE('@', email) + 1, 100) FROM customers;

-- 287 [rewritten QY36] ORDER BY NEWID() picks rows at random
SELECT TOP 1 id, first_name FROM dbo.customers ORDER BY NEWID()
-- =>
SELECT id, first_name FROM customers ORDER BY RAND() LIMIT 1;

-- ==================== A string added to a number

-- 288 [review QY03] nvarchar + int is flagged: SQL Server converts the string or fails
SELECT first_name + score FROM dbo.customers
-- =>
SELECT first_name + score FROM customers;

-- 289 [rewritten QY03] A numeric string literal + int adds on both
SELECT '10' + score, code + N'x' FROM dbo.customers
-- =>
SELECT '10' + score, CONCAT(RPAD(code, 5, ' '), N'x') FROM customers;

-- 290 [review QY38] datetime + string is flagged
SELECT ordered_at + '00:10' FROM dbo.orders
-- =>
SELECT ordered_at + '00:10' FROM orders;

-- ==================== REPLICATE counts, ISNULL types, SCOPE_IDENTITY without IDENTITY, LOCK_TIMEOUT 0

-- 291 [rewritten QY03 QY35 QY36] REPLICATE with a count that may be negative returns NULL
SELECT REPLICATE('0', 5 - LEN(first_name)) + first_name, REPLICATE('*', -1), REPLICATE('-', 3) FROM dbo.customers
-- =>
SELECT CONCAT(REPEAT('0', NULLIF(GREATEST(5 - CHAR_LENGTH(RTRIM(first_name)), -1), -1)), first_name), REPEAT('*', NULL), REPEAT('-', 3) FROM customers;

-- 292 [rewritten QY36] ISNULL converts its replacement to the first argument's type
SELECT ISNULL(code, 'toolong'), ISNULL(code, first_name), ISNULL(score, 2.5) FROM dbo.customers
-- =>
SELECT COALESCE(code, 'toolo'), COALESCE(code, LEFT(first_name, 5)), COALESCE(score, 2) FROM customers;

-- 293 [review QY18] SCOPE_IDENTITY after an INSERT into a table without IDENTITY is flagged
INSERT INTO dbo.products (id, name, price) VALUES (9, N'Fig', 2); SELECT SCOPE_IDENTITY() AS id
-- =>
INSERT INTO products (id, name, price) VALUES (9, N'Fig', 2);
SELECT LAST_INSERT_ID() AS id;

-- 294 [review QY39] SET LOCK_TIMEOUT 0 becomes the shortest TiDB wait, flagged
SET LOCK_TIMEOUT 0
-- =>
SET SESSION innodb_lock_wait_timeout = 1;

-- ==================== Honest notes: XML methods, dynamic SQL, INSERT ... EXEC

-- 295 [review QY03 QY09] FOR XML PATH(''), TYPE).value('.') string aggregation becomes GROUP_CONCAT
SELECT c.id, STUFF((SELECT ',' + o.status FROM dbo.orders o WHERE o.customer_id = c.id ORDER BY o.status FOR XML PATH(''), TYPE).value('.', 'nvarchar(max)'), 1, 1, '') AS statuses FROM dbo.customers c
-- =>
SELECT c.id, INSERT((SELECT GROUP_CONCAT(CONCAT(',', o.status) ORDER BY o.status SEPARATOR '') FROM orders AS o WHERE o.customer_id = c.id), 1, 1, '') AS statuses FROM customers AS c;

-- 296 [unsupported QY09] An XML method on a subquery is an XML method, not a user-defined function
SELECT (SELECT status FROM dbo.orders FOR XML PATH('s'), TYPE).value('(/s)[1]', 'varchar(10)')
-- =>
-- (no TiDB statement)

-- 297 [unsupported QY25 QY26] EXEC of SQL built at run time is dynamic SQL
DECLARE @t nvarchar(50) = N'orders'; EXEC('SELECT * FROM dbo.' + @t)
-- =>
-- (no TiDB statement)

-- 298 [unsupported QY24] INSERT ... EXEC of a procedure
INSERT #t EXEC dbo.refresh_totals
-- =>
-- (no TiDB statement)

-- 299 [rewritten QY38 QY59] A time without a date converted to a datetime is on 1900-01-01, then added
SELECT ordered_at + CAST('6:30 PM' AS datetime) FROM dbo.orders
-- =>
SELECT DATE_ADD(ordered_at, INTERVAL (TIMESTAMPDIFF(MICROSECOND, CAST('1900-01-01' AS DATETIME(3)), CAST('1900-01-01 18:30:00' AS DATETIME(3)))) MICROSECOND) FROM orders;

-- 300 [rewritten QY36] ISNULL of an int with a money replacement rounds it to the int, as SQL Server converts it
SELECT ISNULL(score, balance) FROM dbo.customers
-- =>
SELECT COALESCE(score, CAST(balance AS SIGNED)) FROM customers;

-- 301 [rewritten QY13] Query hints sqlglot cannot read (OPTIMIZE FOR a value, USE HINT) are dropped with the others
SELECT id FROM dbo.orders WHERE status = 'open' OPTION (OPTIMIZE FOR UNKNOWN, USE HINT ('DISABLE_OPTIMIZER_ROWGOAL'), MAXDOP 1)
-- =>
SELECT id FROM orders WHERE status = 'open';

-- ==================== Proven by execution: shapes TiDB refuses and meanings it reads differently

-- 302 [rewritten QY53] FULL OUTER JOIN on columns: LEFT JOIN UNION ALL the RIGHT JOIN's unmatched rows, ordered by position
SELECT TOP 5 c.id, o.id AS order_id FROM dbo.customers c FULL OUTER JOIN dbo.orders o ON o.customer_id = c.id WHERE o.status <> 'void' OR o.id IS NULL ORDER BY o.id DESC
-- =>
SELECT c.id, o.id AS order_id FROM customers AS c LEFT OUTER JOIN orders AS o ON o.customer_id = c.id WHERE o.status <> 'void' OR o.id IS NULL UNION ALL SELECT c.id, o.id AS order_id FROM customers AS c RIGHT OUTER JOIN orders AS o ON o.customer_id = c.id WHERE (o.status <> 'void' OR o.id IS NULL) AND c.id IS NULL ORDER BY 2 DESC LIMIT 5;

-- 303 [rewritten QY53] FULL JOIN in SELECT DISTINCT: the halves are UNIONed without duplicates
SELECT DISTINCT c.last_name, o.status FROM dbo.customers c FULL JOIN dbo.orders o ON c.id = o.customer_id
-- =>
SELECT DISTINCT c.last_name, o.status FROM customers AS c LEFT JOIN orders AS o ON c.id = o.customer_id UNION SELECT DISTINCT c.last_name, o.status FROM customers AS c RIGHT JOIN orders AS o ON c.id = o.customer_id WHERE c.id IS NULL;

-- 304 [rewritten QY53] FULL JOIN as an operand of a UNION becomes a derived table
SELECT id FROM dbo.products UNION SELECT o.id FROM dbo.orders o FULL JOIN dbo.order_lines l ON l.order_id = o.id
-- =>
SELECT id FROM products UNION SELECT * FROM (SELECT o.id FROM orders AS o LEFT JOIN order_lines AS l ON l.order_id = o.id UNION ALL SELECT o.id FROM orders AS o RIGHT JOIN order_lines AS l ON l.order_id = o.id WHERE o.id IS NULL) AS __full;

-- 305 [unsupported QY53] FULL JOIN on a condition that is no column equality has no rewrite
SELECT c.id, o.id FROM dbo.customers c FULL JOIN dbo.orders o ON o.amount > c.score
-- =>
-- (no TiDB statement)

-- 306 [unsupported QY53] Two FULL JOINs in one query have no rewrite
SELECT * FROM dbo.customers c FULL JOIN dbo.orders o ON o.customer_id = c.id FULL JOIN dbo.order_lines l ON l.order_id = o.id
-- =>
-- (no TiDB statement)

-- 307 [unsupported QY53] FULL JOIN in a grouped query has no rewrite (each half would be grouped apart)
SELECT c.id, COUNT(o.id) FROM dbo.customers c FULL JOIN dbo.orders o ON o.customer_id = c.id GROUP BY c.id
-- =>
-- (no TiDB statement)

-- 308 [rewritten QY55] A bare * after other select items becomes the source's t.*
SELECT id AS [Customer Link], * FROM dbo.customers WHERE active = 1
-- =>
SELECT id AS `Customer Link`, customers.* FROM customers WHERE active = 1;

-- 309 [rewritten QY55] A bare * after other items, over a join: each source's t.* in FROM order
SELECT o.id AS [Order Link], * FROM dbo.orders o JOIN dbo.customers c ON c.id = o.customer_id
-- =>
SELECT o.id AS `Order Link`, o.*, c.* FROM orders AS o JOIN customers AS c ON c.id = o.customer_id;

-- 310 [rewritten QY03 QY56] GROUP BY expressions inside a larger expression and in HAVING become MIN(expression)
SELECT CAST(YEAR(ordered_at) AS varchar) + '-' + CAST(MONTH(ordered_at) AS varchar) AS ym, COUNT(*) AS n FROM dbo.orders GROUP BY YEAR(ordered_at), MONTH(ordered_at) HAVING YEAR(ordered_at) >= 2020 ORDER BY YEAR(ordered_at) * 100 + MONTH(ordered_at)
-- =>
SELECT CONCAT(CAST(MIN(YEAR(ordered_at)) AS CHAR), '-', CAST(MIN(MONTH(ordered_at)) AS CHAR)) AS ym, COUNT(*) AS n FROM orders GROUP BY YEAR(ordered_at), MONTH(ordered_at) HAVING MIN(YEAR(ordered_at)) >= 2020 ORDER BY MIN(YEAR(ordered_at)) * 100 + MIN(MONTH(ordered_at));

-- 311 [review QY42] DATEPART(week) in the select list and GROUP BY: one rewrite, the same text in both
SELECT DATEPART(week, ordered_at) AS wk, COUNT(*) FROM dbo.orders GROUP BY DATEPART(week, ordered_at) ORDER BY DATEPART(week, ordered_at)
-- =>
SELECT ((DAYOFYEAR(ordered_at) + DAYOFWEEK(MAKEDATE(YEAR(ordered_at), 1)) - 2) DIV 7 + 1) AS wk, COUNT(*) FROM orders GROUP BY ((DAYOFYEAR(ordered_at) + DAYOFWEEK(MAKEDATE(YEAR(ordered_at), 1)) - 2) DIV 7 + 1) ORDER BY ((DAYOFYEAR(ordered_at) + DAYOFWEEK(MAKEDATE(YEAR(ordered_at), 1)) - 2) DIV 7 + 1);

-- 312 [rewritten QY02 QY56] DATEDIFF(month, GETDATE(), d) grouped, and used inside a larger expression
SELECT DATEDIFF(month, GETDATE(), ordered_at) AS months, -DATEDIFF(month, GETDATE(), ordered_at) + 1 AS age, COUNT(*) FROM dbo.orders GROUP BY DATEDIFF(month, GETDATE(), ordered_at)
-- =>
SELECT ((YEAR(ordered_at) - YEAR(CURRENT_TIMESTAMP(3))) * 12 + MONTH(ordered_at) - MONTH(CURRENT_TIMESTAMP(3))) AS months, -(MIN((YEAR(ordered_at) - YEAR(CURRENT_TIMESTAMP(3))) * 12 + MONTH(ordered_at) - MONTH(CURRENT_TIMESTAMP(3)))) + 1 AS age, COUNT(*) FROM orders GROUP BY ((YEAR(ordered_at) - YEAR(CURRENT_TIMESTAMP(3))) * 12 + MONTH(ordered_at) - MONTH(CURRENT_TIMESTAMP(3)));

-- 313 [rewritten QY03 QY20 QY56] CONVERT(varchar, d, 111) grouped and concatenated
SELECT CONVERT(varchar, ordered_at, 111) + ' total' AS day_label, SUM(amount) FROM dbo.orders GROUP BY CONVERT(varchar, ordered_at, 111)
-- =>
SELECT CONCAT(MIN(DATE_FORMAT(ordered_at, '%Y/%m/%d')), ' total') AS day_label, SUM(amount) FROM orders GROUP BY DATE_FORMAT(ordered_at, '%Y/%m/%d');

-- 314 [rewritten QY56] An outer column beside an aggregate in a subquery moves out of it
SELECT c.id, (SELECT c.score * SUM(o.qty) FROM dbo.orders o WHERE o.customer_id = c.id) AS weighted FROM dbo.customers c
-- =>
SELECT c.id, (c.score * (SELECT SUM(o.qty) FROM orders AS o WHERE o.customer_id = c.id)) AS weighted FROM customers AS c;

-- 315 [rewritten QY57] TOP in an IN subquery moves into a derived table (MySQL and MariaDB refuse LIMIT there)
SELECT id FROM dbo.customers WHERE id IN (SELECT TOP 2 customer_id FROM dbo.orders ORDER BY amount DESC)
-- =>
SELECT id FROM customers WHERE id IN (SELECT * FROM (SELECT customer_id FROM orders ORDER BY amount DESC LIMIT 2) AS __in);

-- 316 [rewritten QY57] TOP in an ALL subquery moves into a derived table
SELECT id FROM dbo.orders WHERE amount >= ALL (SELECT TOP 3 amount FROM dbo.orders WHERE status = 'paid' ORDER BY amount DESC)
-- =>
SELECT id FROM orders WHERE amount >= ALL (SELECT * FROM (SELECT amount FROM orders WHERE status = 'paid' ORDER BY amount DESC LIMIT 3) AS __in);

-- 317 [rewritten QY54] ORDER BY of a UNION with a table prefix names the column by position
SELECT c.id, c.first_name FROM dbo.customers c UNION SELECT s.id, s.region FROM sales.customers s ORDER BY c.first_name
-- =>
SELECT c.id, c.first_name FROM customers AS c UNION SELECT s.id, s.region FROM sales_customers AS s ORDER BY 2;

-- 318 [rewritten QY54] ORDER BY of an INTERSECT with an expression of the select list
SELECT COALESCE(shipped_at, ordered_at) FROM dbo.orders WHERE qty > 1 INTERSECT SELECT COALESCE(shipped_at, ordered_at) FROM dbo.orders WHERE amount > 0 ORDER BY COALESCE(shipped_at, ordered_at) DESC
-- =>
SELECT COALESCE(shipped_at, ordered_at) FROM orders WHERE qty > 1 INTERSECT SELECT COALESCE(shipped_at, ordered_at) FROM orders WHERE amount > 0 ORDER BY 1 DESC;

-- 319 [translated] Table names and aliases in another case are spelled as the schema and the alias's definition spell them
SELECT C.id, o.AMOUNT FROM CUSTOMERS c JOIN dbo.Orders AS O ON o.customer_id = C.id WHERE EXISTS (SELECT 1 FROM dbo.KV WHERE kv.k = c.id)
-- =>
SELECT c.id, O.AMOUNT FROM customers AS c JOIN orders AS O ON O.customer_id = c.id WHERE EXISTS(SELECT 1 FROM kv WHERE kv.k = c.id);

-- 320 [translated] A quoted name with trailing spaces is the name without them, as SQL Server compares names
SELECT [id ] FROM [dbo].[customers ] WHERE [score ] > 1
-- =>
SELECT `id` FROM `customers` WHERE `score` > 1;

-- 321 [rewritten QY58] A subquery in an inner join's ON condition moves to WHERE
SELECT c.id, o.id FROM dbo.customers c JOIN dbo.orders o ON o.customer_id = c.id AND o.status IN (SELECT v FROM dbo.kv)
-- =>
SELECT c.id, o.id FROM customers AS c JOIN orders AS o ON o.customer_id = c.id WHERE o.status IN (SELECT v FROM kv);

-- 322 [rewritten QY58] A subquery on the joined table in a LEFT JOIN's ON filters that table in a derived table
SELECT c.id, o.id FROM dbo.customers c LEFT JOIN dbo.orders o ON o.customer_id = c.id AND o.status IN (SELECT v FROM dbo.kv)
-- =>
SELECT c.id, o.id FROM customers AS c LEFT JOIN (SELECT * FROM orders AS o WHERE o.status IN (SELECT v FROM kv)) AS o ON o.customer_id = c.id;

-- 323 [rewritten QY58] A subquery on the preserved table in a LEFT JOIN's ON is computed in a derived table of it
SELECT c.id, o.id FROM dbo.customers c LEFT JOIN dbo.orders o ON o.customer_id = c.id AND NOT c.id IN (SELECT k FROM dbo.kv)
-- =>
SELECT c.id, o.id FROM (SELECT c.*, NOT c.id IN (SELECT k FROM kv) AS __on1 FROM customers AS c) AS c LEFT JOIN orders AS o ON o.customer_id = c.id AND c.__on1;

-- 324 [rewritten QY62] WITH ... INSERT ... SELECT: the CTEs move into the INSERT's SELECT
WITH big AS (SELECT id, customer_id FROM dbo.orders WHERE amount > 100) INSERT INTO dbo.kv (k, v) SELECT id, 'big' FROM big
-- =>
INSERT INTO kv (k, v) WITH big AS (SELECT id, customer_id FROM orders WHERE amount > 100) SELECT id, 'big' FROM big;

-- 325 [unsupported QY63] FOR SYSTEM_TIME reads temporal history, which TiDB does not keep
SELECT id FROM dbo.orders FOR SYSTEM_TIME AS OF '2024-01-01' WHERE qty > 1
-- =>
-- (no TiDB statement)

-- 326 [rewritten QY59] A string compared with a datetime is read as SQL Server reads it: a year alone, month/day/year
SELECT id FROM dbo.orders WHERE ordered_at > '2019' AND ordered_at BETWEEN '1/1/2016' AND '12-31-2030' AND shipped_at IN ('Apr 15 2024', '2024-04-16')
-- =>
SELECT id FROM orders WHERE ordered_at > '2019-01-01 00:00:00' AND ordered_at BETWEEN '2016-01-01 00:00:00' AND '2030-12-31 00:00:00' AND shipped_at IN ('2024-04-15 00:00:00', '2024-04-16');

-- 327 [rewritten QY59] A date compared with a datetime string drops the time, as SQL Server converts the string to a date
SELECT id FROM dbo.customers WHERE birth_date = '1990-05-01 10:00' OR birth_date < '5/1/1970'
-- =>
SELECT id FROM customers WHERE birth_date = '1990-05-01' OR birth_date < '1970-05-01';

-- 328 [review QY59] A string SQL Server cannot read as a date is flagged
SELECT id FROM dbo.orders WHERE ordered_at > 'yesterday'
-- =>
SELECT id FROM orders WHERE ordered_at > 'yesterday';

-- 329 [rewritten QY41] AVG of an int column is an integer whatever schema prefix the query gives the table
SELECT AVG(qty) FROM other.orders
-- =>
SELECT (SUM(qty) DIV COUNT(qty)) FROM orders;

-- 330 [rewritten QY60] decimal / decimal keeps SQL Server's type: decimal(37, 19) for two decimal(18, 0)
SELECT id, CAST(amount AS decimal) / CAST(NULLIF(qty, 0) AS decimal) AS ratio FROM dbo.orders ORDER BY ratio
-- =>
SELECT id, CAST(TRUNCATE(CAST(CAST(amount AS DECIMAL(18, 0)) AS DECIMAL(65, 23)) / CAST(NULLIF(qty, 0) AS DECIMAL(18, 0)), 19) AS DECIMAL(37, 19)) AS ratio FROM orders ORDER BY ratio;

-- 331 [review QY60 QY61] A divisor that may be 0: SQL Server fails the query, TiDB returns NULL
SELECT id, amount / qty FROM dbo.orders
-- =>
SELECT id, CAST(TRUNCATE(CAST(amount AS DECIMAL(65, 17)) / qty, 13) AS DECIMAL(21, 13)) FROM orders;

-- 332 [rewritten QY37 QY60] A guarded divisor and a division in an UPDATE (which fails on 0 on both) are not flagged
UPDATE dbo.orders SET qty = qty / NULLIF(qty, 0) WHERE amount / qty > 1
-- =>
UPDATE orders SET qty = qty DIV NULLIF(qty, 0) WHERE CAST(TRUNCATE(CAST(amount AS DECIMAL(65, 17)) / qty, 13) AS DECIMAL(21, 13)) > 1;

-- 333 [rewritten QY64] Money times a real column is real: SQL Server computes it in single precision, TiDB in double (182.88 against 182.87)
SELECT id, CONVERT(money, price * qty * (1 - rate) / 100) * 100 AS net FROM dbo.promotions ORDER BY id
-- =>
SELECT id, CAST(CAST(((CAST(((CAST(((price * qty) * 536870913E0) - (((price * qty) * 536870913E0) - (price * qty)) AS FLOAT) * (CAST(((1 - rate) * 536870913E0) - (((1 - rate) * 536870913E0) - (1 - rate)) AS FLOAT))) * 536870913E0) - (((CAST(((price * qty) * 536870913E0) - (((price * qty) * 536870913E0) - (price * qty)) AS FLOAT) * (CAST(((1 - rate) * 536870913E0) - (((1 - rate) * 536870913E0) - (1 - rate)) AS FLOAT))) * 536870913E0) - (CAST(((price * qty) * 536870913E0) - (((price * qty) * 536870913E0) - (price * qty)) AS FLOAT) * (CAST(((1 - rate) * 536870913E0) - (((1 - rate) * 536870913E0) - (1 - rate)) AS FLOAT)))) AS FLOAT) / 100) * 536870913E0) - (((CAST(((CAST(((price * qty) * 536870913E0) - (((price * qty) * 536870913E0) - (price * qty)) AS FLOAT) * (CAST(((1 - rate) * 536870913E0) - (((1 - rate) * 536870913E0) - (1 - rate)) AS FLOAT))) * 536870913E0) - (((CAST(((price * qty) * 536870913E0) - (((price * qty) * 536870913E0) - (price * qty)) AS FLOAT) * (CAST(((1 - rate) * 536870913E0) - (((1 - rate) * 536870913E0) - (1 - rate)) AS FLOAT))) * 536870913E0) - (CAST(((price * qty) * 536870913E0) - (((price * qty) * 536870913E0) - (price * qty)) AS FLOAT) * (CAST(((1 - rate) * 536870913E0) - (((1 - rate) * 536870913E0) - (1 - rate)) AS FLOAT)))) AS FLOAT) / 100) * 536870913E0) - (CAST(((CAST(((price * qty) * 536870913E0) - (((price * qty) * 536870913E0) - (price * qty)) AS FLOAT) * (CAST(((1 - rate) * 536870913E0) - (((1 - rate) * 536870913E0) - (1 - rate)) AS FLOAT))) * 536870913E0) - (((CAST(((price * qty) * 536870913E0) - (((price * qty) * 536870913E0) - (price * qty)) AS FLOAT) * (CAST(((1 - rate) * 536870913E0) - (((1 - rate) * 536870913E0) - (1 - rate)) AS FLOAT))) * 536870913E0) - (CAST(((price * qty) * 536870913E0) - (((price * qty) * 536870913E0) - (price * qty)) AS FLOAT) * (CAST(((1 - rate) * 536870913E0) - (((1 - rate) * 536870913E0) - (1 - rate)) AS FLOAT)))) AS FLOAT) / 100)) AS FLOAT) AS DECIMAL(19, 4)) * 100 AS net FROM promotions ORDER BY id;

-- 334 [rewritten QY60] Money divided by an integer is money, truncated to 4 places (9.99 / 7 is 1.4271, not 1.4271428)
SELECT id, price / 7 AS seventh FROM dbo.products ORDER BY id
-- =>
SELECT id, CAST(TRUNCATE(CAST(price AS DECIMAL(65, 8)) / 7, 4) AS DECIMAL(19, 4)) AS seventh FROM products ORDER BY id;

-- 335 [rewritten QY66] AVG of money is money, truncated (0.5, 0.3, 1.25, 9.99 average 3.01)
SELECT AVG(price) AS average FROM dbo.products
-- =>
SELECT CAST(TRUNCATE(CAST(SUM(price) AS DECIMAL(65, 8)) / COUNT(price), 4) AS DECIMAL(19, 4)) AS average FROM products;

-- 336 [rewritten QY66] AVG of decimal(10, 2) is decimal(38, 6), truncated
SELECT customer_id, AVG(amount) AS average FROM dbo.orders GROUP BY customer_id
-- =>
SELECT customer_id, CAST(TRUNCATE(CAST(SUM(amount) AS DECIMAL(65, 10)) / COUNT(amount), 6) AS DECIMAL(38, 6)) AS average FROM orders GROUP BY customer_id;

-- 337 [rewritten QY68] ROUND of an integer to tens rounds half away from zero (25 is 30; TiDB gives 20)
SELECT id, qty * 5 AS five, ROUND(qty * 5, -1) AS tens FROM dbo.orders ORDER BY id
-- =>
SELECT id, qty * 5 AS five, CAST(ROUND(CAST(qty * 5 AS DECIMAL(38, 0)), -1) AS SIGNED) AS tens FROM orders ORDER BY id;

-- 338 [rewritten QY68] ROUND of a float rounds half away from zero (2.5E0 is 3, -0.5E0 is -1; TiDB gives 2 and -0)
SELECT ROUND(CAST(2.5 AS float), 0) AS a, ROUND(CAST(-0.5 AS float), 0) AS b, ROUND(CAST(0.125 AS float), 2) AS c
-- =>
SELECT CAST(ROUND(CAST(CAST(2.5 AS DOUBLE) AS DECIMAL(65, 20)), 0) AS DOUBLE) AS a, CAST(ROUND(CAST(CAST(-0.5 AS DOUBLE) AS DECIMAL(65, 20)), 0) AS DOUBLE) AS b, CAST(ROUND(CAST(CAST(0.125 AS DOUBLE) AS DECIMAL(65, 20)), 2) AS DOUBLE) AS c;

-- 339 [rewritten QY70] DATEADD of a string is a datetime, not a string
SELECT DATEADD(dd, 3, '1970-01-05') AS d
-- =>
SELECT DATE_ADD(CAST('1970-01-05' AS DATETIME(3)), INTERVAL 3 DAY) AS d;

-- 340 [rewritten QY69] POWER has its first argument's type: POWER(2, 0.5) is 1, POWER(10, -1) is 0
SELECT POWER(2, 0.5) AS a, POWER(10, -1) AS b, POWER(2.0, 0.5) AS c
-- =>
SELECT CAST(TRUNCATE(POWER(2, 0.5), 0) AS SIGNED) AS a, CAST(TRUNCATE(POWER(10, -1), 0) AS SIGNED) AS b, CAST(POWER(2.0, 0.5) AS DECIMAL(38, 1)) AS c;

-- 341 [rewritten QY64] A number compared with a real column is converted to real first: rate = 0.1 finds the row
SELECT id FROM dbo.promotions WHERE rate = 0.1
-- =>
SELECT id FROM promotions WHERE rate = CAST((0.1 * 536870913E0) - ((0.1 * 536870913E0) - 0.1) AS FLOAT);

-- 342 [translated] A column named # (a regular identifier may start with #)
SELECT #, id FROM (SELECT qty AS [#], id FROM dbo.orders) AS t ORDER BY id
-- =>
SELECT `#`, id FROM (SELECT qty AS `#`, id FROM orders) AS t ORDER BY id;

-- 343 [rewritten QY60] A number with a trailing point is numeric: 86400. keeps its meaning and TiDB reads it
SELECT id, qty / 86400. AS days FROM dbo.orders ORDER BY id
-- =>
SELECT id, CAST(TRUNCATE(CAST(qty AS DECIMAL(65, 10)) / 86400.0, 6) AS DECIMAL(16, 6)) AS days FROM orders ORDER BY id;

-- 344 [unsupported QY71] A constant in ORDER BY is refused by SQL Server (Msg 408), not sorted by
SELECT TOP 2 id, amount AS 'Amount' FROM dbo.orders ORDER BY 'Amount' DESC
-- =>
-- (no TiDB statement)

-- 345 [unsupported QY71] A derived table without an alias is refused by SQL Server
SELECT * FROM (SELECT id FROM dbo.orders)
-- =>
-- (no TiDB statement)

-- 346 [rewritten QY72] GROUP BY ROLLUP over no rows returns the grand total row
SELECT status, COUNT(*) AS n, SUM(amount) AS total FROM dbo.orders WHERE qty < 0 GROUP BY ROLLUP (status)
-- =>
SELECT status, COUNT(*) AS n, SUM(amount) AS total FROM orders WHERE qty < 0 GROUP BY status WITH ROLLUP UNION ALL SELECT NULL, COUNT(*) AS n, SUM(amount) AS total FROM orders WHERE qty < 0 HAVING COUNT(*) = 0;

-- 347 [rewritten QY67] Money times money is money, 4 places
SELECT id, price * price AS square FROM dbo.products ORDER BY id
-- =>
SELECT id, CAST(price * price AS DECIMAL(19, 4)) AS square FROM products ORDER BY id;

-- 348 [rewritten QY60] A decimal constant divided by an integer constant: decimal(7, 6), truncated (0.666666)
SELECT 2.0 / 3 AS q
-- =>
SELECT CAST(TRUNCATE(CAST(2.0 AS DECIMAL(65, 10)) / 3, 6) AS DECIMAL(7, 6)) AS q;

-- 349 [rewritten QY64] A real converted to money is rounded from its single-precision value (1.63625 is 1.6362500190734863 as real: 1.6363)
SELECT CONVERT(money, CAST(1.63625 AS real)) AS m, CONVERT(money, CAST(9.21375 AS real)) AS n
-- =>
SELECT CAST(CAST((1.63625 * 536870913E0) - ((1.63625 * 536870913E0) - 1.63625) AS FLOAT) AS DECIMAL(19, 4)) AS m, CAST(CAST((9.21375 * 536870913E0) - ((9.21375 * 536870913E0) - 9.21375) AS FLOAT) AS DECIMAL(19, 4)) AS n;

-- 350 [rewritten QY73] The string 'true' compared with a bit is 1 in SQL Server; TiDB reads it as 0
SELECT id FROM dbo.customers WHERE active = 'true' ORDER BY id
-- =>
SELECT id FROM customers WHERE active = 1 ORDER BY id;

-- 351 [rewritten QY74] Arithmetic with a tinyint is signed in SQL Server; TiDB's TINYINT UNSIGNED fails on a negative result
SELECT id, CAST(qty AS tinyint) - 10 AS below FROM dbo.orders ORDER BY id
-- =>
SELECT id, CAST(CAST(qty AS UNSIGNED) AS SIGNED) - 10 AS below FROM orders ORDER BY id;

-- 352 [rewritten QY02] DATEDIFF(week) counts the Sundays crossed: Saturday to Sunday is 1, Sunday to Saturday 0
SELECT DATEDIFF(wk, '1900-01-01', '2017-05-27') AS a, DATEDIFF(week, '2024-03-02', '2024-03-03') AS b, DATEDIFF(week, '2024-03-03', '2024-03-09') AS c
-- =>
SELECT (FLOOR(DATEDIFF('2017-05-27', '1900-01-07') / 7) - FLOOR(DATEDIFF('1900-01-01', '1900-01-07') / 7)) AS a, (FLOOR(DATEDIFF('2024-03-03', '1900-01-07') / 7) - FLOOR(DATEDIFF('2024-03-02', '1900-01-07') / 7)) AS b, (FLOOR(DATEDIFF('2024-03-09', '1900-01-07') / 7) - FLOOR(DATEDIFF('2024-03-03', '1900-01-07') / 7)) AS c;

-- 353 [rewritten QY76] REPLACE matches without case under a case-insensitive collation: 'Ann' loses its 'a' too
SELECT id, REPLACE(first_name, 'a', '*') AS starred FROM dbo.customers ORDER BY id
-- =>
SELECT id, REGEXP_REPLACE(first_name, '(?i)a', '*') AS starred FROM customers ORDER BY id;

-- 354 [rewritten QY77] A datetime converted to text is written in style 0 ('Mar  1 2024 10:59AM'), not as an ISO date
SELECT id, CAST(ordered_at AS varchar) AS written, CONVERT(varchar(20), ordered_at, 100) AS styled FROM dbo.orders ORDER BY id
-- =>
SELECT id, CAST(CONCAT(DATE_FORMAT(ordered_at, '%b '), LPAD(DAY(ordered_at), 2, ' '), DATE_FORMAT(ordered_at, ' %Y '), LPAD(DATE_FORMAT(ordered_at, '%l'), 2, ' '), DATE_FORMAT(ordered_at, ':%i%p')) AS CHAR(30)) AS written, CAST(CONCAT(DATE_FORMAT(ordered_at, '%b '), LPAD(DAY(ordered_at), 2, ' '), DATE_FORMAT(ordered_at, ' %Y '), LPAD(DATE_FORMAT(ordered_at, '%l'), 2, ' '), DATE_FORMAT(ordered_at, ':%i%p')) AS CHAR(20)) AS styled FROM orders ORDER BY id;

-- 355 [rewritten QY77] money converted to text has two decimals (1.25, 9.99)
SELECT id, CAST(price AS varchar(10)) AS written FROM dbo.products ORDER BY id
-- =>
SELECT id, CAST(CAST(price AS DECIMAL(19, 2)) AS CHAR(10)) AS written FROM products ORDER BY id;

-- 356 [rewritten QY35 QY77] varchar without a length is 30 characters in a CAST: longer text is cut
SELECT CAST(REPLICATE('x', 40) AS varchar) AS cut, LEN(CAST(REPLICATE('y', 35) AS nvarchar)) AS length
-- =>
SELECT CAST(REPEAT('x', 40) AS CHAR(30)) AS cut, CHAR_LENGTH(RTRIM(CAST(REPEAT('y', 35) AS CHAR(30)))) AS length;

-- 357 [rewritten QY36] HASHBYTES of an nvarchar hashes its UTF-16LE bytes and answers varbinary
-- parse-only: MariaDB's recursive common table expressions cannot read the outer row
SELECT id, HASHBYTES('SHA2_256', first_name) AS hashed FROM dbo.customers ORDER BY id
-- =>
SELECT id, UNHEX(SHA2(UNHEX(CASE WHEN CHAR_LENGTH(first_name) = LENGTH(first_name) THEN REGEXP_REPLACE(HEX(first_name), '(..)', '\\100') ELSE (WITH RECURSIVE sqlsrv2tidb_u(sqlsrv2tidb_i, sqlsrv2tidb_c, sqlsrv2tidb_h) AS (SELECT 0, 0, CAST('' AS CHAR(60000)) UNION ALL SELECT sqlsrv2tidb_u.sqlsrv2tidb_i + 1, (CASE WHEN ORD(SUBSTRING(first_name, sqlsrv2tidb_u.sqlsrv2tidb_i + 1, 1)) < 128 THEN ORD(SUBSTRING(first_name, sqlsrv2tidb_u.sqlsrv2tidb_i + 1, 1)) WHEN ORD(SUBSTRING(first_name, sqlsrv2tidb_u.sqlsrv2tidb_i + 1, 1)) < 57344 THEN ((ORD(SUBSTRING(first_name, sqlsrv2tidb_u.sqlsrv2tidb_i + 1, 1)) >> 8) & 31) << 6 | (ORD(SUBSTRING(first_name, sqlsrv2tidb_u.sqlsrv2tidb_i + 1, 1)) & 63) WHEN ORD(SUBSTRING(first_name, sqlsrv2tidb_u.sqlsrv2tidb_i + 1, 1)) < 15728640 THEN ((ORD(SUBSTRING(first_name, sqlsrv2tidb_u.sqlsrv2tidb_i + 1, 1)) >> 16) & 15) << 12 | ((ORD(SUBSTRING(first_name, sqlsrv2tidb_u.sqlsrv2tidb_i + 1, 1)) >> 8) & 63) << 6 | (ORD(SUBSTRING(first_name, sqlsrv2tidb_u.sqlsrv2tidb_i + 1, 1)) & 63) ELSE ((ORD(SUBSTRING(first_name, sqlsrv2tidb_u.sqlsrv2tidb_i + 1, 1)) >> 24) & 7) << 18 | ((ORD(SUBSTRING(first_name, sqlsrv2tidb_u.sqlsrv2tidb_i + 1, 1)) >> 16) & 63) << 12 | ((ORD(SUBSTRING(first_name, sqlsrv2tidb_u.sqlsrv2tidb_i + 1, 1)) >> 8) & 63) << 6 | (ORD(SUBSTRING(first_name, sqlsrv2tidb_u.sqlsrv2tidb_i + 1, 1)) & 63) END), CONCAT(sqlsrv2tidb_u.sqlsrv2tidb_h, (CASE WHEN sqlsrv2tidb_u.sqlsrv2tidb_i = 0 THEN '' WHEN sqlsrv2tidb_u.sqlsrv2tidb_c < 65536 THEN CONCAT(LPAD(HEX((sqlsrv2tidb_u.sqlsrv2tidb_c) & 255), 2, '0'), LPAD(HEX((sqlsrv2tidb_u.sqlsrv2tidb_c) >> 8), 2, '0')) ELSE CONCAT(CONCAT(LPAD(HEX((55296 + ((sqlsrv2tidb_u.sqlsrv2tidb_c - 65536) >> 10)) & 255), 2, '0'), LPAD(HEX((55296 + ((sqlsrv2tidb_u.sqlsrv2tidb_c - 65536) >> 10)) >> 8), 2, '0')), CONCAT(LPAD(HEX((56320 + ((sqlsrv2tidb_u.sqlsrv2tidb_c - 65536) & 1023)) & 255), 2, '0'), LPAD(HEX((56320 + ((sqlsrv2tidb_u.sqlsrv2tidb_c - 65536) & 1023)) >> 8), 2, '0'))) END)) FROM sqlsrv2tidb_u WHERE sqlsrv2tidb_u.sqlsrv2tidb_i <= CHAR_LENGTH(first_name)) SELECT sqlsrv2tidb_h FROM sqlsrv2tidb_u ORDER BY sqlsrv2tidb_i DESC LIMIT 1) END), 256)) AS hashed FROM customers ORDER BY id;

-- 358 [review QY36] HASHBYTES of a varchar hashes its bytes as stored (the same for ASCII)
SELECT id, HASHBYTES('MD5', category) AS hashed FROM dbo.products ORDER BY id
-- =>
SELECT id, UNHEX(MD5(category)) AS hashed FROM products ORDER BY id;

-- 359 [rewritten QY36] CHECKSUM(NEWID()) is a random integer of int's range
SELECT ABS(CHECKSUM(NEWID())) % 8 AS bucket
-- =>
SELECT ABS(CAST(FLOOR(RAND() * 4294967296) - 2147483648 AS SIGNED)) % 8 AS bucket;

-- 360 [review QY36] CHECKSUM over values becomes CRC32 in int's range: other values, the same use
SELECT id, CHECKSUM(first_name, code) AS changed FROM dbo.customers ORDER BY id
-- =>
SELECT id, CAST(CRC32(CONCAT_WS(CHAR(31), COALESCE(CAST(first_name AS CHAR), CHAR(0)), COALESCE(CAST(code AS CHAR), CHAR(0)))) AS SIGNED) - 2147483648 AS changed FROM customers ORDER BY id;

-- 361 [review QY36] JSON_VALUE is NULL for an object, an array or a JSON null; ISJSON is 1 for an object or an array
SELECT id, JSON_VALUE(notes, '$.tier') AS tier, ISJSON(notes) AS valid FROM dbo.customers ORDER BY id
-- =>
SELECT id, CASE JSON_TYPE(JSON_EXTRACT(notes, '$.tier')) WHEN 'OBJECT' THEN NULL WHEN 'ARRAY' THEN NULL WHEN 'NULL' THEN NULL ELSE JSON_UNQUOTE(JSON_EXTRACT(notes, '$.tier')) END AS tier, CASE WHEN notes IS NULL THEN NULL WHEN JSON_VALID(notes) AND notes REGEXP '^[[:space:]]*[[{]' THEN 1 ELSE 0 END AS valid FROM customers ORDER BY id;

-- 362 [review QY36] JSON_MODIFY sets a property, and deletes it when the value is NULL
SELECT id, JSON_MODIFY(notes, '$.tier', N'gold') AS upgraded FROM dbo.customers WHERE ISJSON(notes) = 1 ORDER BY id
-- =>
SELECT id, CAST(CASE WHEN N'gold' IS NULL THEN JSON_REMOVE(notes, '$.tier') ELSE JSON_SET(notes, '$.tier', N'gold') END AS CHAR) AS upgraded FROM customers WHERE CASE WHEN notes IS NULL THEN NULL WHEN JSON_VALID(notes) AND notes REGEXP '^[[:space:]]*[[{]' THEN 1 ELSE 0 END = 1 ORDER BY id;

-- 363 [translated] STRING_ESCAPE(x, 'json') escapes as JSON, the slash too
SELECT id, STRING_ESCAPE(first_name, 'json') AS escaped FROM dbo.customers ORDER BY id
-- =>
SELECT id, (REPLACE(SUBSTRING(JSON_QUOTE(first_name), 2, CHAR_LENGTH(JSON_QUOTE(first_name)) - 2), '/', '\\/')) AS `escaped` FROM customers ORDER BY id;

-- 364 [review QY36] SERVERPROPERTY answers what TiDB is: no In-Memory OLTP, no SQL Server edition
SELECT SERVERPROPERTY('IsXTPSupported') AS xtp, SERVERPROPERTY('EngineEdition') AS edition
-- =>
SELECT 0 AS xtp, 2 AS edition;

-- 365 [review QY49] OBJECT_ID and COL_LENGTH are answered from information_schema for the migrated names
SELECT CASE WHEN OBJECT_ID(N'dbo.orders') IS NOT NULL THEN 1 ELSE 0 END AS has_orders, COL_LENGTH(N'dbo.customers', N'first_name') AS bytes
-- =>
SELECT CASE WHEN NOT (SELECT CAST(CRC32(LOWER(t.TABLE_NAME)) & 2147483647 AS SIGNED) FROM information_schema.TABLES AS t WHERE t.TABLE_SCHEMA = SCHEMA() AND LOWER(t.TABLE_NAME) = 'orders' LIMIT 1) IS NULL THEN 1 ELSE 0 END AS has_orders, (SELECT 100 FROM information_schema.COLUMNS AS c WHERE c.TABLE_SCHEMA = SCHEMA() AND LOWER(c.TABLE_NAME) = 'customers' AND LOWER(c.COLUMN_NAME) = 'first_name' LIMIT 1) AS bytes;

-- 366 [rewritten QY49] A catalog view in a condition is answered from information_schema, with SQL Server's names and schemas
SELECT t.name, SCHEMA_NAME(t.schema_id) AS sch FROM sys.tables AS t WHERE t.is_memory_optimized = 0 AND t.name = N'customers' ORDER BY sch
-- =>
SELECT t.name, CASE t.schema_id WHEN 1 THEN 'dbo' WHEN 5 THEN 'sales' END AS sch FROM (SELECT COALESCE(m.name, t.TABLE_NAME) AS name, CAST(CRC32(LOWER(t.TABLE_NAME)) & 2147483647 AS SIGNED) AS object_id, NULL AS principal_id, COALESCE(m.schema_id, 1) AS schema_id, 0 AS parent_object_id, 'U' AS type, 'USER_TABLE' AS type_desc, t.CREATE_TIME AS create_date, COALESCE(t.UPDATE_TIME, t.CREATE_TIME) AS modify_date, 0 AS is_ms_shipped, 0 AS is_published, 0 AS is_schema_published, 0 AS is_memory_optimized, 1 AS durability, COALESCE(m.temporal, 0) AS temporal_type, 0 AS is_external, NULL AS history_table_id, 0 AS is_replicated, 0 AS has_replication_filter FROM information_schema.TABLES AS t LEFT JOIN (SELECT 'customers' AS tidb, 1 AS schema_id, 'customers' AS name, 0 AS temporal UNION ALL SELECT 'products' AS tidb, 1 AS schema_id, 'products' AS name, 0 AS temporal UNION ALL SELECT 'orders' AS tidb, 1 AS schema_id, 'orders' AS name, 0 AS temporal UNION ALL SELECT 'order_lines' AS tidb, 1 AS schema_id, 'order_lines' AS name, 0 AS temporal UNION ALL SELECT 'kv' AS tidb, 1 AS schema_id, 'kv' AS name, 0 AS temporal UNION ALL SELECT 'events' AS tidb, 1 AS schema_id, 'events' AS name, 0 AS temporal UNION ALL SELECT 'quarterly' AS tidb, 1 AS schema_id, 'quarterly' AS name, 0 AS temporal UNION ALL SELECT 'sales_customers' AS tidb, 5 AS schema_id, 'customers' AS name, 0 AS temporal UNION ALL SELECT 'promotions' AS tidb, 1 AS schema_id, 'promotions' AS name, 0 AS temporal UNION ALL SELECT 'org' AS tidb, 1 AS schema_id, 'org' AS name, 0 AS temporal) AS m ON m.tidb = LOWER(t.TABLE_NAME) WHERE t.TABLE_SCHEMA = SCHEMA() AND t.TABLE_TYPE = 'BASE TABLE') AS t WHERE t.is_memory_optimized = 0 AND t.name = N'customers' ORDER BY sch;

-- ==================== hierarchyid

-- 367 [rewritten QY80] hierarchyid methods over the stored path: each node with its level and parent, depth-first
SELECT c.id, c.node.ToString() AS path, c.node.GetLevel() AS lvl, p.id AS parent FROM dbo.org AS c LEFT JOIN dbo.org AS p ON c.node.GetAncestor(1) = p.node ORDER BY c.node
-- =>
SELECT c.id, REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(c.node, 'a', ''), 'b', ''), 'c', ''), 'd', ''), 'e', ''), 'f', ''), 'g', ''), 'h', ''), 'i', ''), 'j', ''), 'k', ''), 'l', ''), 'm', ''), 'n', ''), 'o', ''), 'O', '-'), 'N', '-'), 'M', '-'), 'L', '-'), 'K', '-'), 'J', '-'), 'I', '-'), 'H', '-'), 'G', '-'), 'F', '-'), 'E', '-'), 'D', '-'), 'C', '-'), 'B', '-'), 'A', '-'), 'y', '0'), 'x', '1'), 'w', '2'), 'v', '3'), 'u', '4'), 't', '5'), 's', '6'), 'r', '7'), 'q', '8'), 'p', '9'), ':', '.') AS path, CHAR_LENGTH(c.node) - CHAR_LENGTH(REPLACE(c.node, '/', '')) - 1 AS lvl, p.id AS parent FROM org AS c LEFT JOIN org AS p ON CASE WHEN 1 > (CHAR_LENGTH(c.node) - CHAR_LENGTH(REPLACE(c.node, '/', '')) - 1) THEN NULL ELSE CONCAT(SUBSTRING_INDEX(c.node, '/', (CHAR_LENGTH(c.node) - CHAR_LENGTH(REPLACE(c.node, '/', '')) - 1)), '/') END = p.node ORDER BY c.node;

-- 368 [rewritten QY80] hierarchyid::Parse and GetRoot of constants are stored paths: the subtree of /1/ without the root
SELECT id FROM dbo.org WHERE node.IsDescendantOf(hierarchyid::Parse('/1/')) = 1 AND node <> hierarchyid::GetRoot() ORDER BY id
-- =>
SELECT id FROM org WHERE (LEFT(node, CHAR_LENGTH('/a1/')) = '/a1/') = 1 AND node <> '/' ORDER BY id;

-- 369 [rewritten QY80] CAST to and from hierarchyid: the nodes after /1/1/ in depth-first order, as text
SELECT id, CAST(node AS nvarchar(100)) AS path FROM dbo.org WHERE node > CAST('/1/1/' AS hierarchyid) ORDER BY node
-- =>
SELECT id, REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(REPLACE(node, 'a', ''), 'b', ''), 'c', ''), 'd', ''), 'e', ''), 'f', ''), 'g', ''), 'h', ''), 'i', ''), 'j', ''), 'k', ''), 'l', ''), 'm', ''), 'n', ''), 'o', ''), 'O', '-'), 'N', '-'), 'M', '-'), 'L', '-'), 'K', '-'), 'J', '-'), 'I', '-'), 'H', '-'), 'G', '-'), 'F', '-'), 'E', '-'), 'D', '-'), 'C', '-'), 'B', '-'), 'A', '-'), 'y', '0'), 'x', '1'), 'w', '2'), 'v', '3'), 'u', '4'), 't', '5'), 's', '6'), 'r', '7'), 'q', '8'), 'p', '9'), ':', '.') AS path FROM org WHERE node > '/a1/a1/' ORDER BY node;

-- 370 [rewritten QY80] A text constant compared with a hierarchyid is read as a path
SELECT id FROM dbo.org WHERE node = '/1/10/'
-- =>
SELECT id FROM org WHERE node = '/a1/b10/';

-- ==================== STRING_SPLIT and TRY_CONVERT of text

-- 371 [rewritten QY81] STRING_SPLIT of a constant list becomes a derived table of its pieces
SELECT id FROM dbo.customers WHERE CAST(id AS nvarchar(10)) IN (SELECT value FROM STRING_SPLIT(N'1,3', ',')) ORDER BY id
-- =>
SELECT id FROM customers WHERE CAST(id AS CHAR(10)) IN (SELECT value FROM (WITH RECURSIVE sqlsrv2tidb_split(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM sqlsrv2tidb_split WHERE n <= CHAR_LENGTH(N'1,3') - CHAR_LENGTH(REPLACE(N'1,3', ',', ''))) SELECT SUBSTRING_INDEX(SUBSTRING_INDEX(N'1,3', ',', n), ',', -1) AS value FROM sqlsrv2tidb_split WHERE NOT N'1,3' IS NULL) AS value) ORDER BY id;

-- 372 [rewritten QY75 QY81] CROSS APPLY STRING_SPLIT over a column becomes a join with piece numbers
SELECT c.id, s.value FROM dbo.customers AS c CROSS APPLY STRING_SPLIT(c.first_name, 'a') AS s ORDER BY c.id, s.value
-- =>
SELECT c.id, SUBSTRING_INDEX(SUBSTRING_INDEX(c.first_name, 'a', s_sqlsrv2tidb_split.n), 'a', -1) AS value FROM customers AS c JOIN (WITH RECURSIVE sqlsrv2tidb_split(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM sqlsrv2tidb_split WHERE n < 1000) SELECT n FROM sqlsrv2tidb_split) AS s_sqlsrv2tidb_split ON s_sqlsrv2tidb_split.n <= CHAR_LENGTH(c.first_name) - CHAR_LENGTH(REPLACE(c.first_name, 'a', '')) + 1 ORDER BY c.id, SUBSTRING_INDEX(SUBSTRING_INDEX(c.first_name, 'a', s_sqlsrv2tidb_split.n), 'a', -1);

-- 373 [rewritten QY07] TRY_CONVERT of text to a number is NULL unless the text is one
SELECT id, TRY_CONVERT(int, first_name) AS n, TRY_CAST(N' 42 ' AS smallint) AS m FROM dbo.customers ORDER BY id
-- =>
SELECT id, CASE WHEN TRIM(first_name) = '' THEN 0 WHEN first_name REGEXP '^ *[-+]?[0-9]+ *$' THEN CASE WHEN CAST(TRIM(first_name) AS DECIMAL(65, 0)) BETWEEN -2147483648 AND 2147483647 THEN CAST(TRIM(first_name) AS SIGNED) END END AS n, CASE WHEN TRIM(N' 42 ') = '' THEN 0 WHEN N' 42 ' REGEXP '^ *[-+]?[0-9]+ *$' THEN CASE WHEN CAST(TRIM(N' 42 ') AS DECIMAL(65, 0)) BETWEEN -32768 AND 32767 THEN CAST(TRIM(N' 42 ') AS SIGNED) END END AS m FROM customers ORDER BY id;
