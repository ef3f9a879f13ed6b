-- Under SQL Server's default collation (SQL_Latin1_General_CP1_CI_AS) 'paris' equals 'Paris' and 'PARIS'.
-- Kept by the DDL's collation mapping, switch case_insensitive_collation (the column is utf8mb4_general_ci);
-- without it the column gets the target's utf8mb4_bin and the comparison is case-sensitive.
SELECT id FROM dbo.visits WHERE city = 'paris'
