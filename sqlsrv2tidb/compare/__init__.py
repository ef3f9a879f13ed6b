"""Whether a read query means the same on SQL Server and on the target: both run it, the answers compared."""
