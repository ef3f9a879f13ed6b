"""Procedures that administer the database rather than carry the application's logic, and what TiDB does instead.

A schema's procedures include some that configure the server or the database: they switch on auditing,
build columnstore indexes or partitions, make tables memory-optimized, attach PolyBase sources, apply
row-level security, create roles. They are run by a DBA once, not by the application, and on TiDB the
same needs are met by the cluster's own configuration and the migration's DDL. Such a procedure is
classed as administration, with what TiDB does instead, and is not counted against the application's
coverage (it still runs through the runner where it can: most look at SERVERPROPERTY first and stop).

A procedure is administration when its text (its dynamic SQL's strings included) does one of these
things and does not read or change the application's rows outside the catalog.
https://learn.microsoft.com/sql/relational-databases/security/auditing/sql-server-audit-database-engine
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import Module


@dataclass(frozen=True)
class Administration:
    """What an administration procedure configures, and what TiDB does instead."""

    kind: str
    instead: str


_KINDS: tuple[tuple[str, str, str], ...] = (
    ("auditing", r"\b(?:SERVER\s+AUDIT|DATABASE\s+AUDIT\s+SPECIFICATION|AUDIT_GUID)\b",
     "TiDB's audit log is configured on the cluster (the audit log plugin), not by procedures"),
    ("row-level security", r"\bSECURITY\s+POLICY\b",
     "TiDB has no row-level security policies: views or the application filter the rows"),
    ("in-memory tables", r"\bMEMORY_OPTIMIZED\s*=\s*ON\b|\bMEMORY_OPTIMIZED_DATA\b",
     "TiDB has no memory-optimized tables: its storage and cache serve the same tables"),
    ("PolyBase", r"\bEXTERNAL\s+(?:TABLE|DATA\s+SOURCE|FILE\s+FORMAT)\b",
     "TiDB reads outside data through its import tools (IMPORT INTO, TiDB Lightning), not external tables"),
    ("partitioning", r"\bPARTITION\s+(?:FUNCTION|SCHEME)\b",
     "TiDB partitions a table in its CREATE TABLE (PARTITION BY): the migration's DDL plans it"),
    ("columnstore indexing", r"\bCOLUMNSTORE\b",
     "TiFlash replicas (ALTER TABLE ... SET TIFLASH REPLICA) give TiDB columnar reads"),
    ("full-text indexing", r"\bFULLTEXT\s+(?:INDEX|CATALOG)\b",
     "a full-text index is an external search service, or TiDB Cloud's full-text search"),
    ("system versioning", r"\bSYSTEM_VERSIONING\s*=",
     "TiDB has no system versioning to switch on or off: the history tables are the application's to keep"),
    ("roles and permissions", r"\b(?:CREATE|ALTER|DROP)\s+ROLE\b|\bsp_addrolemember\b|\bdatabase_role_members\b",
     "TiDB's roles and grants (CREATE ROLE, GRANT) are the DBA's, applied outside the application"),
)
_APPLICATION_ROWS = re.compile(r"\b(?:INSERT|UPDATE|DELETE|MERGE)\b(?!\s+(?:STATISTICS|TRIGGER))", re.IGNORECASE)


def _text(definition: str) -> str:
    """The definition without comments (its strings kept: dynamic SQL says what it does in them)."""
    return re.sub(r"--[^\n]*|/\*.*?\*/", " ", definition, flags=re.S)


def administration(module: Module, calls: tuple[str, ...] = (), called: dict[str, Administration] | None = None
                   ) -> Administration | None:
    """The administration a procedure does, or None for the application's own logic. A procedure that only calls
    administration procedures (and changes no rows itself) is one too."""
    text = _text(module.definition or "")
    for kind, pattern, instead in _KINDS:
        if re.search(pattern, text, re.IGNORECASE):
            return Administration(kind, instead)
    if called and calls and all(c.casefold() in called for c in calls) and not _APPLICATION_ROWS.search(
            re.sub(r"N?'(?:[^']|'')*'", " ", text)):
        first = called[calls[0].casefold()]
        return Administration(first.kind, first.instead)
    return None
