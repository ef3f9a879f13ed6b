"""The procedure runner: a stored procedure's body run on a MySQL-protocol target as the application will run it.

TiDB runs no stored procedures, so a procedure's logic moves into the application, which sends the
procedure's statements one by one. This package is the one place procedural T-SQL is interpreted:
`header` and `blocks` read a procedure, `compiler` turns it into a `Program` of steps whose
statements the translator wrote, `calls` runs a program on a `TargetSession` (the connection replay
and compare pass in; `sending`, `transactions`, `cursors`, `raising` beside it), `catalog` holds a
schema's procedures compiled once, and `workload` finds the captured classes that call one.
docs/procedures.md says what runs and what does not.
"""
