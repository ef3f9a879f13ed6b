-- `+` on strings concatenates, and a NULL operand makes the whole NULL.
-- Kept by the rewrite string_plus (CONCAT, which is NULL when an operand is); without it the target adds numbers.
SELECT id, first_name + ' ' + middle_name AS full_name FROM dbo.visits
