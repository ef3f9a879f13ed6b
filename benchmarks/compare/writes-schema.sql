CREATE TABLE dbo.big (id int NOT NULL PRIMARY KEY, grp int NOT NULL, v int NOT NULL, note varchar(20) NULL);
GO
