"""The SQL vocabulary `anonymize` keeps: words that look like names to a tokenizer but are not the user's.

sqlglot's tokenizers return many keywords, hints, date parts and TiDB options as plain names
(`NOLOCK`, `PARTITIONS`, `SHARD_ROW_ID_BITS`, `day`); replacing them would break the SQL. Numbers
right after a type or a size keyword (`VARCHAR(200)`, `TOP 10`, `PARTITIONS 12`) are structure,
not data, and stay too, as do the values of TiDB's options and system variables (`is_setting`).
"""

from __future__ import annotations

from sqlglot.parser import Parser

SIZED_AFTER = {t.name for t in Parser.TYPE_TOKENS} | {
    "IDENTITY", "AUTO_RANDOM", "FLOAT", "VARCHAR", "NVARCHAR", "CHAR", "NCHAR", "BINARY", "VARBINARY", "DECIMAL",
    "NUMERIC", "DATETIME", "DATETIME2", "DATETIMEOFFSET", "TIME", "TIMESTAMP", "TOP", "LIMIT", "OFFSET",
}
OPTION_WORDS = {"SHARD_ROW_ID_BITS", "PRE_SPLIT_REGIONS", "AUTO_ID_CACHE", "AUTO_INCREMENT", "PARTITIONS", "CACHE",
                 "INCREMENT", "START", "MINVALUE", "MAXVALUE", "TOP", "LIMIT", "OFFSET", "FETCH", "NEXT", "FIRST",
                 "ROWS", "KEY_BLOCK_SIZE", "MAXDOP", "FILLFACTOR", "REGIONS", "BY", "WITH"}
# Words sqlglot leaves as plain names that are really keywords, hints, date parts or session options.
KEEP_WORDS = {w.casefold() for w in """
NOLOCK ROWLOCK UPDLOCK HOLDLOCK READPAST TABLOCK TABLOCKX XLOCK PAGLOCK NOWAIT READCOMMITTED READUNCOMMITTED
REPEATABLEREAD SERIALIZABLE SNAPSHOT FORCESEEK FORCESCAN NOEXPAND RECOMPILE MAXDOP OPTIMIZE UNKNOWN LOOP HASH MERGE
year yy yyyy quarter qq q month mm m dayofyear dy y day dd d week wk ww weekday dw hour hh minute mi n second ss s
millisecond ms microsecond mcs nanosecond ns iso_week isowk isoww
NONCLUSTERED CLUSTERED SHARD_ROW_ID_BITS PRE_SPLIT_REGIONS AUTO_RANDOM AUTO_ID_CACHE ENGINE CHARSET utf8mb4 utf8mb4_bin
utf8mb4_general_ci utf8mb4_unicode_ci utf8mb4_0900_ai_ci binary latin1 ascii BTREE INPLACE INSTANT ALGORITHM SEPARATOR
NOCOUNT XACT_ABORT ANSI_NULLS QUOTED_IDENTIFIER ANSI_PADDING IDENTITY_INSERT ONLY INSERTED DELETED SIGNED UNSIGNED
ROWCOUNT IDENTITY SCOPE_IDENTITY TRANCOUNT ERROR FETCH_STATUS VERSION SPID merge_option deny allow ATTRIBUTES
tidb_scatter_region tidb_ddl_enable_fast_reorg tidb_ddl_reorg_worker_cnt GLOBAL SESSION
ADD ALGORITHM BY CASCADE RESTRICT ACTION NO DUPLICATE INCREMENT NOCACHE NOCYCLE CYCLE MINVALUE MAXVALUE NONE LOCK
PARTITIONS REGIONS SPLIT InnoDB INVISIBLE VISIBLE STORED VIRTUAL GENERATED ALWAYS FULLTEXT SPATIAL COLUMNS ROW_FORMAT
TEMPORARY IGNORE LOW_PRIORITY HIGH_PRIORITY DELAYED QUICK SQL_CALC_FOUND_ROWS SQL_NO_CACHE PRECEDING FOLLOWING
UNBOUNDED CURRENT PERCENT TIES TRY CATCH THROW TYPE PATH NOCHECK SCHEMABINDING ENCRYPTION RAISERROR PRINT WAITFOR DELAY
ISOLATION LEVEL READ COMMITTED UNCOMMITTED REPEATABLE WORK TRAN TRANSACTION SHARED EXCLUSIVE COPY AGAINST
as_captured key_partition pre_split auto_random
""".split()}
AFTER_KEEP = {"COLLATE", "CHARSET", "ENGINE", "SET"}  # what follows names a collation, engine or option
SETTING_WORDS = {"ATTRIBUTES"}
"""Statements whose quoted argument is an option the DDL writer chose (`ATTRIBUTES 'merge_option=deny'`)."""
SYSTEM_VARIABLE_PREFIXES = ("tidb_",)


def is_setting(word: str) -> bool:
    """A TiDB option or system variable: the literal after it (`= 16`, `= 'TABLE'`) is a setting, not the user's data.

    The DDL files set TiDB's variables (`SET GLOBAL tidb_ddl_reorg_worker_cnt = 16`) and attributes; those values
    are the tool's advice, and a pseudonym in their place would make the file wrong.
    """
    return word.upper() in SETTING_WORDS or word.casefold().startswith(SYSTEM_VARIABLE_PREFIXES)
