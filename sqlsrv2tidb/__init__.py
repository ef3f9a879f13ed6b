"""sqlsrv2tidb: assess, translate and replay a Microsoft SQL Server database and workload on TiDB."""

__version__ = "0.1.0"
