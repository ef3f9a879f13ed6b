"""Same answers on both sides: each read query class run on SQL Server and, translated, on the target.

`classes` chooses the classes (reads only) and their parameter sets, `sides` runs a statement on
either server with a timeout, `values` makes one row of each side comparable under the target
column's type, `answers` compares two streams of rows in bounded memory, `runner` strings these
together per class into verdicts, and `document` writes compare.json and its findings.
"""
