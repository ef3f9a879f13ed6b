"""The plan's TiDB designs on a real TiDB, checked by what the server does with them.

- 04-indexes.sql builds its indexes with the planned number of workers and leaves the cluster's
  settings as it found them;
- identity: AUTO_ID_CACHE=1 hands concurrent sessions consecutive ids; a SEQUENCE is NOCACHE or
  CACHE n as seed 002 and the planner say (in order across a restart, or a new block per server);
- distribution: each design has the Region layout the plan claims (`SHOW TABLE ... REGIONS`), and
  rows inserted into it land where the design says (one Region, or many).

The test TiDB is one `tidb-server` on unistore: Region splits and layouts are TiDB's own, but every
Region's leader is on one store, so how writes spread over TiKV nodes is measured on a cluster.
"""

from __future__ import annotations

import re
import sys
import threading
from pathlib import Path

import pytest
from ddl_apply import apply, statements

from sqlsrv2tidb.model import Column, DataType, Identity, Table
from sqlsrv2tidb.options import Options, Version
from sqlsrv2tidb.plan.migration import build_plan

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "plan"))
from plan_models import capture, col, entities, insert_workload, keywords, pk  # noqa: E402


def _plan(*tables: Table, qps: float | None = None, version: str = "8.5", tikv: int = 3, config: dict | None = None):
    workload = insert_workload(f"dbo.{tables[0].name}", qps) if qps else None
    return build_plan(capture(*tables, workload=workload),
                      Options(tidb_version=Version.parse(version), tikv_nodes=tikv, config=config or {}))


def _globals(cur) -> tuple[int, int]:
    cur.execute("SELECT @@GLOBAL.tidb_ddl_reorg_worker_cnt, @@GLOBAL.tidb_ddl_enable_fast_reorg")
    return tuple(int(v) for v in cur.fetchone())


@pytest.mark.parametrize("version", ["8.5", "8.2"])
def test_the_index_file_builds_with_its_workers_and_puts_back_what_it_found(version, tidb, tidb_database):
    """From v8.3 the worker count is a session setting that the file's own index jobs take; before, it is
    global and the file puts it back. Either way the cluster's settings are as the file found them."""
    plan = _plan(keywords(), version=version)
    with tidb.connect(tidb_database) as conn, conn.cursor() as cur:
        original = _globals(cur)
        cur.execute("SET GLOBAL tidb_ddl_reorg_worker_cnt = 3")
        cur.execute("SET GLOBAL tidb_ddl_enable_fast_reorg = OFF")
        try:
            with tidb.connect(tidb_database) as session, session.cursor() as run:  # a fresh session, as `mysql` is
                loaded = False
                for name, sql in statements(plan):
                    if name == "04-indexes.sql" and not loaded:  # the data load: index builds with rows to backfill
                        run.executemany("INSERT INTO keywords VALUES (%s, %s, 1, %s, 1, 1, 1)",
                                        [(i % 8, i, i) for i in range(200)])
                        loaded = True
                    if name == "04-indexes.sql" and "CREATE INDEX" in sql:
                        assert _globals(run) == (3 if version == "8.5" else 16, 1), "the file's settings are on"
                    run.execute(sql)
                assert _globals(run) == (3, 0), "the file put back the values it found"
            cur.execute("ADMIN SHOW DDL JOBS 5 WHERE db_name = %s AND job_type = 'add index'", (tidb_database,))
            comments = [row[-1] for row in cur.fetchall()]
            assert comments, "the index jobs are listed"
            if version == "8.5":
                assert all("thread=16" in c for c in comments), comments  # the session's 16, not the global 3
        finally:
            cur.execute(f"SET GLOBAL tidb_ddl_reorg_worker_cnt = {original[0]}")
            cur.execute(f"SET GLOBAL tidb_ddl_enable_fast_reorg = {original[1]}")


def test_the_tables_file_turns_check_constraints_on_so_tidb_keeps_and_enforces_them(tidb, tidb_database):
    """TiDB drops a CHECK created while tidb_enable_check_constraint is OFF (its default): 02-tables.sql starts by
    turning it on, and leaves it on; the table then refuses a row that breaks its CHECK (error 3819)."""
    from sqlsrv2tidb.model import CheckConstraint

    priced = Table("dbo", "priced", (col("id", "int"), col("price", "int", nullable=True)), primary_key=pk("id"),
                   checks=(CheckConstraint("ck_price", "([price]>=(0))"),))
    plan = _plan(priced)
    tables = next(f.content for f in plan.files if f.name == "02-tables.sql")
    assert "/*T! SET GLOBAL tidb_enable_check_constraint = ON */;" in tables
    assert "SET GLOBAL tidb_enable_check_constraint" not in next(
        f.content for f in _plan(keywords()).files if f.name == "02-tables.sql")  # no CHECK, no setting
    with tidb.connect() as conn, conn.cursor() as cur:
        cur.execute("SELECT @@GLOBAL.tidb_enable_check_constraint")
        original = int(cur.fetchone()[0])
        cur.execute("SET GLOBAL tidb_enable_check_constraint = OFF")
        try:
            with tidb.connect(tidb_database) as session, session.cursor() as run:
                for _, sql in statements(plan, only="02-tables.sql"):
                    run.execute(sql)
                run.execute("SELECT constraint_name FROM information_schema.tidb_check_constraints "
                            "WHERE constraint_schema = DATABASE() AND table_name = 'priced'")
                assert [r[0] for r in run.fetchall()] == ["ck_price"]
                with pytest.raises(Exception, match="3819"):
                    run.execute("INSERT INTO priced VALUES (1, -5)")
            cur.execute("SELECT @@GLOBAL.tidb_enable_check_constraint")
            assert int(cur.fetchone()[0]) == 1, "the file leaves it on"
        finally:
            cur.execute(f"SET GLOBAL tidb_enable_check_constraint = {'ON' if original else 'OFF'}")


def _ids_table(name: str) -> Table:
    return Table("dbo", name, (Column("id", DataType("bigint"), False, identity=Identity(1, 1)), col("ref", "int")),
                 primary_key=pk("id"))


IDENTITY_DESIGNS = {
    # table: (how the plan is made, the table option or sequence it must write)
    "auto_id": ({}, "AUTO_ID_CACHE=1"),
    "auto_old": ({"version": "6.3"}, "AUTO_INCREMENT"),  # before v6.4: TiDB's default cache of 30,000 ids
    "seq_slow": ({"qps": 10, "config": {"tables": {"dbo.seq_slow": {"identity": "sequence"}}}}, "NOCACHE"),
    "seq_fast": ({"qps": 1000, "config": {"tables": {"dbo.seq_fast": {"identity": "sequence"}}}}, "CACHE 1000"),
}


def _insert_concurrently(tidb, database: str, tables: list[str], sessions: int = 4, rows: int = 25) -> None:
    def work() -> None:
        with tidb.connect(database) as conn, conn.cursor() as cur:
            for i in range(rows):
                for table in tables:
                    cur.execute(f"INSERT INTO {table} (ref) VALUES (%s)", (i,))

    threads = [threading.Thread(target=work) for _ in range(sessions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def _ids(cur, table: str) -> list[int]:
    cur.execute(f"SELECT id FROM {table} ORDER BY id")
    return [r[0] for r in cur.fetchall()]


def test_identity_designs_hand_out_ids_as_planned(tidb, tidb_database):
    """AUTO_ID_CACHE=1 and a NOCACHE sequence give concurrent sessions consecutive ids; across a restart of the
    TiDB server the NOCACHE sequence goes on in order, CACHE 1000 starts a new block, AUTO_ID_CACHE=1 stays
    increasing and TiDB's default cache jumps by 30,000 (seed 002, https://docs.pingcap.com/tidb/stable/auto-increment)."""
    with tidb.connect(tidb_database) as conn:
        for table, (how, written) in IDENTITY_DESIGNS.items():
            plan = _plan(_ids_table(table), **how)
            ddl = "\n".join(f.content for f in plan.files)
            assert written in ddl, (table, written)
            if table == "auto_old":
                assert "AUTO_ID_CACHE" not in ddl
            assert apply(conn, plan, "tidb") == []
    tables = list(IDENTITY_DESIGNS)
    _insert_concurrently(tidb, tidb_database, tables)
    with tidb.connect(tidb_database) as conn, conn.cursor() as cur:
        for table in tables:
            assert _ids(cur, table) == list(range(1, 101)), table  # one server: every design is consecutive here
    if not getattr(tidb, "started_here", False):
        return  # a TiDB of the user's (SQLSRV2TIDB_TEST_TIDB) is not restarted by the tests
    tidb.stop()
    tidb.start()
    _insert_concurrently(tidb, tidb_database, tables, sessions=1, rows=1)
    with tidb.connect(tidb_database) as conn, conn.cursor() as cur:
        after = {table: _ids(cur, table)[-1] for table in tables}
    assert after["seq_slow"] == 101, "NOCACHE: every value is stored, so a new server goes on in order"
    assert after["seq_fast"] == 1001, "CACHE 1000: a new server takes the next block (not in order across servers)"
    assert after["auto_old"] == 30_001, "TiDB's default id cache: a new server starts 30,000 further on"
    assert 101 <= after["auto_id"] < 30_001, "AUTO_ID_CACHE=1: unique and increasing; a restart may skip a few"


_KEY = re.compile(r"^t_(\d+)_(?:(r|i)_(-?\d+)?.*)?$")


def _regions(cur, table: str) -> list[tuple[int, int | None, int | None]]:
    """The Regions of `SHOW TABLE ... REGIONS` that hold rows, as (table or partition id, first handle, end
    handle), None where a Region is open on that side; Regions of index entries only are left out."""
    cur.execute(f"SHOW TABLE {table} REGIONS")
    names = [d[0] for d in cur.description]
    rows = []
    for row in cur.fetchall():
        rec = dict(zip(names, row, strict=True))
        start, end = _KEY.match(rec["START_KEY"]), _KEY.match(rec["END_KEY"])
        assert start and end, (rec["START_KEY"], rec["END_KEY"])
        same = end[1] == start[1]
        if same and end[2] == "i":  # ends before the table's rows
            continue
        low = int(start[3]) if start[2] == "r" and start[3] else None  # from the table's start or an index key
        high = int(end[3]) if same and end[2] == "r" and end[3] else None  # to the next table: open
        rows.append((int(start[1]), low, high))
    return rows


def _regions_hit(regions, handles: list[int]) -> int:
    hit = set()
    for h in handles:
        for i, (_, low, high) in enumerate(regions):
            if (low is None or h >= low) and (high is None or h < high):
                hit.add(i)
                break
    return len(hit)


DESIGNS = {
    # name: (tables, plan arguments, strategy the plan must choose)
    "none": ((keywords(),), {}, "none"),
    "key_partition": ((keywords(),), {"qps": 50_000, "tikv": 4}, "key_partition"),
    # A foreign key rules KEY partitioning out: the planner pre-splits instead (2 shard bits for 4 nodes).
    "pre_split": ((keywords(fk=True), entities()), {"qps": 50_000, "tikv": 4}, "pre_split"),
    "auto_random": ((_ids_table("events"),),
                    {"config": {"tables": {"dbo.events": {"distribution": "auto_random", "pre_split_regions": 2}}}},
                    "auto_random"),
}


@pytest.mark.parametrize("design", list(DESIGNS))
def test_each_distribution_design_has_the_region_layout_the_plan_claims(design, tidb, tidb_database):
    tables, how, strategy = DESIGNS[design]
    plan = _plan(*tables, **how)
    table = plan.tables[0]
    dist = table.distribution
    assert dist.strategy == strategy
    rows = 200
    with tidb.connect(tidb_database) as conn, conn.cursor() as cur:
        assert apply(conn, plan, "tidb") == []  # one session, as the files are applied: 02's settings hold for it
        regions = _regions(cur, table.target)
        # Single-row autocommit inserts, as the captured workload sends them: TiDB draws the shard bits of
        # AUTO_RANDOM and SHARD_ROW_ID_BITS once per transaction, so a multi-row INSERT lands on one shard.
        if strategy == "auto_random":
            for i in range(rows):
                cur.execute(f"INSERT INTO {table.target} (ref) VALUES (%s)", (i,))
            cur.execute(f"SELECT id FROM {table.target}")
        else:
            if strategy == "pre_split":
                cur.executemany("INSERT INTO entities (e_id, name) VALUES (%s, 'e')", [(i,) for i in range(rows)])
            for i in range(rows):
                cur.execute(f"INSERT INTO {table.target} VALUES (%s, %s, %s, %s, 1, 1, 1)",
                            (1 + i % 8, i, 1 + i % 3, 7919 * i % 100_000))
            cur.execute(f"SELECT _tidb_rowid FROM {table.target}" if strategy == "pre_split" else "SELECT 0")
        handles = [r[0] for r in cur.fetchall()]
        if strategy == "key_partition":
            # One Region per partition: each partition is its own physical table, split when it is created.
            cur.execute("SELECT partition_name, tidb_partition_id, table_rows FROM information_schema.partitions "
                        "WHERE table_schema = %s AND table_name = %s", (tidb_database, table.name))
            partitions = cur.fetchall()
            assert len(partitions) == dist.partitions == 4
            assert sorted(r[0] for r in regions) == sorted(p[1] for p in partitions)
            filled = 0
            for name, _, _ in partitions:
                cur.execute(f"SELECT COUNT(*) FROM {table.target} PARTITION ({name})")
                filled += cur.fetchone()[0] > 0
            assert filled == 4, "the inserts spread over every partition"
        elif strategy == "pre_split":
            # SHARD_ROW_ID_BITS scatters _tidb_rowid over 2^bits shards; PRE_SPLIT_REGIONS made 2^n Regions.
            assert (dist.shard_row_id_bits, dist.pre_split_regions) == (2, 2)
            assert len(regions) == 2 ** dist.pre_split_regions
            assert _regions_hit(regions, handles) == len(regions), "the inserts spread over every Region"
        elif strategy == "auto_random":
            assert len(regions) == 2 ** dist.pre_split_regions == 4
            assert _regions_hit(regions, handles) == len(regions), "AUTO_RANDOM ids land in every Region"
            cur.execute(f"INSERT INTO {table.target} (ref) VALUES " + ", ".join(["(-1)"] * 50))
            cur.execute(f"SELECT id FROM {table.target} WHERE ref = -1")
            assert _regions_hit(regions, [r[0] for r in cur.fetchall()]) == 1, "one statement, one shard"
        else:
            # As captured: the table starts as one Region, and every insert goes to it.
            assert len(regions) == 1
