-- The planted rows. Each column holds the values one planted change needs:
-- started_at/ended_at cross a year boundary in fewer days than a year (and stay in one year over many days),
-- middle_name is NULL on some rows, qty/boxes do not divide evenly, code ends in spaces,
-- city differs only by case, score ties at the second-highest value.
INSERT INTO dbo.visits (id, started_at, ended_at, first_name, middle_name, qty, boxes, code, city, score) VALUES
    (1, '2023-12-31 23:00:00', '2024-01-01 01:00:00', N'Ann',  N'Marie', 7, 2, 'AB  ',  N'Paris', 90),
    (2, '2023-06-01 08:00:00', '2024-01-02 09:00:00', N'Bob',  NULL,     9, 4, 'C ',    N'PARIS', 80),
    (3, '2024-01-01 00:00:00', '2024-12-31 23:59:00', N'Cid',  N'Lee',   5, 5, 'DEF',   N'paris', 80),
    (4, '2022-11-15 12:00:00', '2024-02-01 12:00:00', N'Dee',  NULL,     3, 2, 'G   ',  N'Lyon',  80),
    (5, '2024-03-01 00:00:00', '2024-03-02 00:00:00', N'Eve',  N'Jo',    1, 3, 'HI',    N'Nice',  70);
-- The tied scores: points 100, 90, then 80 five times (ids 8, 7, 6, 4, 2 in that order of insertion), then 70.
-- code spells 'ab' and 'cd' with and without trailing spaces, the first spelling inserted being a padded one;
-- id 2, the lowest id at 80, has a padded code, so LEN(code) counted with its spaces shows in its row.
INSERT INTO dbo.scores (id, player, points, code) VALUES
    (8, N'Hal', 80, 'ab  '),
    (7, N'Gus', 80, 'cd '),
    (6, N'Fay', 80, 'ab '),
    (5, N'Eve', 90, 'ef'),
    (4, N'Dee', 80, 'cd'),
    (3, N'Cid', 70, 'gh'),
    (2, N'Bob', 80, 'x  '),
    (1, N'Ann', 100, 'ab');
