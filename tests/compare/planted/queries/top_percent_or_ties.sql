-- TOP (n) WITH TIES returns the first n rows and every row tied with the last of them on the ORDER BY keys:
-- four rows here (the 90 and the three 80s), not two.
-- Kept by the rewrite top_percent_or_ties (RANK() <= n); without it the target's LIMIT 2 drops the ties.
SELECT TOP 2 WITH TIES id, score FROM dbo.visits ORDER BY score DESC
