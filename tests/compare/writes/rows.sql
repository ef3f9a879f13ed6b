INSERT INTO dbo.authors VALUES ('172-32-1176', 'White', 'Menlo Park', 1), ('213-46-8915', 'Green', 'Oakland', 1),
  ('238-95-7766', 'Carson', 'Oakland', 0), ('267-41-2394', 'OLeary', 'Oakland', 1);
INSERT INTO dbo.titles VALUES ('BU1032', 'The Busy Executive', 19.99, 14, 4095), ('BU1111', 'Cooking with Computers', 11.95, 10, 3876),
  ('PC8888', 'Secrets of Silicon Valley', 20.00, 10, 4095);
INSERT INTO dbo.orders (title_id, qty, ordered, discount) VALUES ('BU1032', 5, '2024-01-01 09:00:00', 0),
  ('BU1111', 3, '2024-01-01 10:00:00', 1.5);
INSERT INTO dbo.order_lines VALUES (1, 1, 'a'), (1, 2, 'b'), (2, 1, 'c');
