"""Whether a read query means the same on SQL Server and on the target: both run it, the answers compared.

`classes` chooses the classes (reads only) and their parameter sets, `batches` says what a statement
needs of its batch and what runs with it, `shape` reads the T-SQL for what the comparison may rely on
(order, a total order, what ties leave open (`ties`), why it cannot be compared), `sides` runs a
statement on either server with a timeout, `values` makes one row of each side comparable under the
target column's type, `answers` compares two streams of rows in bounded memory (a tie group a limit
cut: `tie_groups`), `runner` strings these together per class into verdicts, `sessions` keeps both
sides' sessions usable through a long run (`reopen` waits for a server that went away), and `document`
writes compare.json and its findings.
"""
