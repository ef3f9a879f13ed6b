-- LEN does not count trailing spaces: LEN('AB  ') is 2.
-- Kept by the rewrite len_trailing_spaces (CHAR_LENGTH(RTRIM(x))); without it the target counts them.
SELECT id, LEN(code) AS code_length FROM dbo.visits
