-- int / int is an integer division truncated toward zero: 7 / 2 is 3.
-- Kept by the rewrite integer_division (DIV); without it the target gives 3.5000.
SELECT id, qty / boxes AS per_box FROM dbo.visits
