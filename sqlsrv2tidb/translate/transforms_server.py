"""SERVERPROPERTY answered from what the target is: the features it has, its version, its name.

A procedure asks SERVERPROPERTY to choose a path: `IF SERVERPROPERTY('IsXTPSupported') = 0` skips its
in-memory tables, `IsFullTextInstalled` its full-text index, `EngineEdition` its Enterprise-only
options. Once the application runs on TiDB, the honest answers are TiDB's: it has no In-Memory OLTP,
no full-text search, no PolyBase, no Always On; its version is VERSION(). An edition is a SQL Server
licence TiDB has none of: Standard (2) is answered, so no code takes an Enterprise-only path, and the
answer is flagged for review. A name SERVERPROPERTY does not know is NULL, as in SQL Server.
https://learn.microsoft.com/sql/t-sql/functions/serverproperty-transact-sql
"""

from __future__ import annotations

from sqlglot import exp

from .context import Context, applies_to
from .expression_types import remember_type
from .templates import fill

_FEATURES_TIDB_LACKS = {
    "isxtpsupported": "In-Memory OLTP", "isfulltextinstalled": "full-text search", "ispolybaseinstalled": "PolyBase",
    "ishadrenabled": "Always On availability groups", "isclustered": "a failover cluster instance",
    "isadvancedanalyticsinstalled": "Machine Learning Services", "isbigdatacluster": "Big Data Clusters",
    "islocaldb": "LocalDB", "issingleuser": "single-user mode", "isintegratedsecurityonly": "Windows-only logins",
    "istempdbmetadatamemoryoptimized": "memory-optimized tempdb metadata",
    "isexternalauthenticationonly": "external-only authentication", "isexternalgovernanceenabled": "external governance",
}
_DOCS = "https://learn.microsoft.com/sql/t-sql/functions/serverproperty-transact-sql"
_KNOWN = {
    "enginedition", "edition", "editionid", "productversion", "productmajorversion", "productminorversion",
    "productbuild", "productlevel", "productupdatelevel", "productbuildtype", "productupdatereference", "servername",
    "machinename", "instancename", "collation", "collationid", "comparisonstyle", "lcid", "sqlcharset",
    "sqlcharsetname", "sqlsortorder", "sqlsortordername", "processid", "buildclrversion", "resourcelastupdatedatetime",
    "resourceversion", "computernamephysicalnetbios", "instancedefaultdatapath", "instancedefaultlogpath",
    "instancedefaultbackuppath", "filestreamconfiguredlevel", "filestreameffectivelevel", "filestreamsharename",
    "hadrmanagerstatus", "licensetype", "numlicenses", "engineedition", "suspendedforsnapshotbackup",
    "pathseparator", "isnonsuperuserenabled",
}


@applies_to(exp.Anonymous)
def server_property(node: exp.Expr, ctx: Context) -> exp.Expr:
    """`SERVERPROPERTY('IsXTPSupported')` -> 0; `SERVERPROPERTY('ProductVersion')` -> VERSION();
    `SERVERPROPERTY('EngineEdition')` -> 2 (review); an unknown name -> NULL. (module docstring)"""
    if node.name.upper() != "SERVERPROPERTY" or len(node.expressions) != 1:
        return node
    argument = node.expressions[0]
    if not (isinstance(argument, exp.National) or (isinstance(argument, exp.Literal) and argument.is_string)):
        ctx.note("QY36", "unsupported", f"SERVERPROPERTY of a name known only at run time: TiDB has no such function ({_DOCS}).")
        return node
    name = argument.name.strip().lower()
    if name in _FEATURES_TIDB_LACKS:
        ctx.note("QY36", "rewritten", f"SERVERPROPERTY('{argument.name}') is 0: TiDB has no {_FEATURES_TIDB_LACKS[name]}.")
        return remember_type(fill("0"), exp.DataType.build("int"))
    if name == "engineedition":
        ctx.note("QY36", "review", "SERVERPROPERTY('EngineEdition') is 2 (Standard): TiDB is no SQL Server edition, and "
                                   "this answer sends no code down an Enterprise-only path.")
        return remember_type(fill("2"), exp.DataType.build("int"))
    answers = {"productversion": "VERSION()", "productmajorversion": "SUBSTRING_INDEX(VERSION(), '.', 1)",
               "edition": "'TiDB'", "servername": "@@hostname", "machinename": "@@hostname", "instancename": "NULL",
               "collation": "@@collation_database", "productlevel": "NULL", "productupdatelevel": "NULL"}
    if name in answers:
        ctx.note("QY36", "review", f"SERVERPROPERTY('{argument.name}') is TiDB's own ({answers[name]}): code that reads "
                                   "it as SQL Server's may take another path.")
        return remember_type(fill(answers[name]), exp.DataType.build("nvarchar(128)", dialect="tsql"))
    if name in _KNOWN:
        ctx.note("QY36", "unsupported", f"SERVERPROPERTY('{argument.name}') describes SQL Server's instance: TiDB has no "
                                        f"counterpart ({_DOCS}).")
        return node
    ctx.note("QY36", "rewritten", f"SERVERPROPERTY('{argument.name}') is NULL: SQL Server answers NULL for a name it "
                                  "does not know.")
    return fill("NULL")


REWRITES = (server_property,)
