"""What a write-heavy SQL Server workload meets on InnoDB, from the captured sizes and write rates (MySQL only).

- MY13: every write to a table updates its clustered index and each secondary index; a secondary
  index that is unique must be read to check the key, so InnoDB's change buffer cannot defer it, and
  one with a descending key part is not buffered either
  (https://dev.mysql.com/doc/refman/8.4/en/innodb-change-buffer.html). A table written at
  `thresholds.innodb_write_qps` or more gets the list of indexes each of its writes maintains.
- MY14: the buffer pool is InnoDB's cache of table and index pages; SQL Server kept the same pages in
  its buffer pool. The captured used size of the tables (data and indexes) is what
  `innodb_buffer_pool_size` must hold for the working set to stay in memory; MySQL's default is 128 MiB
  (https://dev.mysql.com/doc/refman/8.4/en/innodb-buffer-pool-resize.html).
- MY15: InnoDB writes each flushed page twice, first to the doublewrite buffer, so a torn page can be
  repaired; on storage that guarantees atomic 16 KiB page writes the copy is pure cost, and seed 003
  measured +47% write QPS (sysbench oltp_write_only) on a managed MySQL with it off
  (https://dev.mysql.com/doc/refman/8.4/en/innodb-doublewrite-buffer.html).
"""

from __future__ import annotations

import math

from ..model import Capture, Finding, Severity, Table
from ..options import Options, Version
from ..translate.ddl import IndexDdl
from ..workload_rates import class_rates, peak_window
from .config import PlanConfig
from .table_rates import WorkloadRates

DOUBLEWRITE_MODES_SINCE = Version(8, 0, 30)
"""innodb_doublewrite takes DETECT_ONLY and DETECT_AND_RECOVER from 8.0.30, and changes between ON modes at run time."""
DEFAULT_BUFFER_POOL = 128 * 1024 ** 2
_GIB = 1024 ** 3
_CHUNK = 128 * 1024 ** 2
"""innodb_buffer_pool_size is a multiple of chunk size times instances; 128 MiB chunks by default."""


def innodb_findings(capture: Capture, tables: list[tuple[Table, list[IndexDdl]]], rates: WorkloadRates,
                    config: PlanConfig, options: Options) -> list[Finding]:
    """MY13 per write-heavy table with secondary indexes, MY14 for the buffer pool, MY15 for doublewrite.

    `tables` pairs each table with the secondary indexes the plan creates after the load."""
    out = [f for table, indexes in tables if (f := _index_write_cost(table, indexes, rates, config)) is not None]
    pool = _buffer_pool(capture)
    if pool is not None:
        out.append(pool)
    doublewrite = _doublewrite(capture, rates, config, options)
    if doublewrite is not None:
        out.append(doublewrite)
    return out


def _index_write_cost(table: Table, indexes: list[IndexDdl], rates: WorkloadRates,
                      config: PlanConfig) -> Finding | None:
    rate = rates.rate(table.schema, table.name)
    if rate is None or rate.load < config.innodb_write_qps or not indexes:
        return None
    unique = [ix for ix in indexes if ix.unique]
    descending = [ix for ix in indexes if any(c.endswith(" DESC") for c in ix.columns)]
    names = [ix.name.strip("`") for ix in indexes]
    where = f" in window {rate.window!r}" if rate.window else ""
    unbuffered = []
    if unique:
        unbuffered.append(f"{len(unique)} unique (the key is read to check it)")
    if descending:
        unbuffered.append(f"{len(descending)} with a descending key part")
    return Finding(
        rule="MY13", severity=Severity.MEDIUM if len(indexes) >= 3 or unique else Severity.LOW,
        object=table.qualified_name,
        message=f"{rate.load:,.0f} writes/s{where}: each write updates the clustered index and {len(indexes)} secondary "
                f"index(es) ({', '.join(names)})"
                + (f", of which {' and '.join(unbuffered)} the change buffer cannot defer" if unbuffered else "")
                + "; drop the ones no query needs, and measure the rest under the captured rate",
        file=table.source.file, line=table.source.line,
        details={"write_qps": round(rate.load, 1), "secondary_indexes": names, "unique": len(unique)})


def _buffer_pool(capture: Capture) -> Finding | None:
    sized = [t for t in capture.database.tables if t.size_bytes]
    if not sized:
        return None
    used = sum(t.size_bytes or 0 for t in sized)
    pool = max(DEFAULT_BUFFER_POOL, math.ceil(used * 1.1 / _CHUNK) * _CHUNK)  # room for growth and the adaptive hash
    memory = math.ceil(pool / 0.75 / _GIB)
    unknown = len(capture.database.tables) - len(sized)
    return Finding(
        rule="MY14", severity=Severity.LOW if pool > DEFAULT_BUFFER_POOL else Severity.INFO,
        object=capture.database.name or "database",
        message=f"the captured tables and their indexes use {_size(used)} on SQL Server"
                + (f" ({unknown} table(s) without a size)" if unknown else "")
                + f": set innodb_buffer_pool_size = {_size(pool)} (MySQL's default is 128 MiB) so they stay in memory, "
                f"on a server with about {memory} GiB of RAM (the pool at 75%), or innodb_dedicated_server = ON on a "
                f"server of its own",
        details={"used_bytes": used, "innodb_buffer_pool_size": pool, "server_memory_gib": memory,
                 "tables_sized": len(sized), "tables_unsized": unknown})


def _doublewrite(capture: Capture, table_rates: WorkloadRates, config: PlanConfig, options: Options) -> Finding | None:
    """The workload's writes per second at its peak, into tables of the schema (an INSERT, UPDATE or MERGE whose
    table is elsewhere writes no page here)."""
    workload = capture.workload
    peak = peak_window(workload)
    if peak is None:
        return None
    rates = class_rates(workload, peak)
    elsewhere = set(table_rates.unmatched)
    writes = sum(rates.get(q.id, 0.0) for q in workload.queries
                 if q.kind in ("insert", "update", "delete", "merge") and q.id not in elsewhere)
    if writes < config.innodb_write_qps:
        return None
    where = f" in window {peak.name!r}" if peak.name != "all" else ""
    modes = (" From 8.0.30, innodb_doublewrite = DETECT_ONLY keeps torn-page detection without the copy of the data."
             if options.mysql_version >= DOUBLEWRITE_MODES_SINCE else "")
    return Finding(
        rule="MY15", severity=Severity.INFO, object=capture.database.name or "database",
        message=f"the workload writes {writes:,.0f} statements/s at its peak{where}: InnoDB writes every flushed page "
                "twice (the doublewrite buffer). Where the storage guarantees atomic 16 KiB page writes, "
                "innodb_doublewrite = OFF removes the second write (seed 003: +47% write QPS on a managed MySQL); "
                "elsewhere keep it on, since a torn page could not be repaired." + modes,
        details={"writes_qps": round(writes, 1), "window": peak.name})


def _size(n: float) -> str:
    return f"{n / _GIB:,.1f} GiB" if n >= _GIB else f"{n / 1024 ** 2:,.0f} MiB"
