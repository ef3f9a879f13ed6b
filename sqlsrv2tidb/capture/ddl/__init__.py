"""Reading SQL Server DDL scripts without a SQL Server: tokenizer, batches, statement parsers, model building.

sqlglot's T-SQL parser is built for queries and breaks on much of the DDL that SSMS and SSDT write
(`ON [PRIMARY]`, `WITH (MEMORY_OPTIMIZED = ON)`, `PERIOD FOR SYSTEM_TIME`, `GO`), so schema scripts
are read here with a small tokenizer of our own and hand-written recursive-descent parsers for the
statements that define a schema. Everything else in a script is recognised well enough to be
skipped, and what is not understood becomes a finding with its file and line.

The stages, each in its own module:
    stream       a file's text, a block at a time -> the text to tokenize, and the data statements passed over
    insert_text  the patterns stream reads INSERT ... VALUES rows with, without tokens
    tokens       text -> tokens that know their file and line
    batches      SQLCMD (`:setvar`, `$(var)`, `:r`) and `GO` -> batches of tokens
    statements   one batch -> statements, unwrapping IF / BEGIN...END / EXEC('...')
    tables, indexes, objects, modules, procs (with cursor, options, types)   the parsers -> `actions`
    builder      all actions of all files -> the `Database` model (with tablestate, resolve)
    problems     the findings, with file, line and the start of the statement

Only the schema-script reader uses this parser, so it lives in `capture/`; what capture shares with
the other stages about T-SQL text (fingerprints, literals) is the top-level `tsql` package.
"""
