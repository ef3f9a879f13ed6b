-- DATEDIFF(year) counts the year boundaries crossed: 1 from 2023-12-31 23:00 to 2024-01-01 01:00, 0 over all of 2024.
-- Kept by the rewrite datediff_boundaries (YEAR(b) - YEAR(a)); without it the target counts days.
SELECT id, DATEDIFF(year, started_at, ended_at) AS years FROM dbo.visits
