"""A hierarchyid in its three forms: its text, SQL Server's bytes ([MS-SSCLRT] HIERARCHYID) and the path the target stores.

The bytes are pinned by the specification's own examples and by AdventureWorks's published values; SQL Server orders
nodes by their bytes, so the stored path must order every pair as the bytes do (and as the documented depth-first
order of labels does).
https://learn.microsoft.com/openspecs/sql_server_protocols/ms-ssclrt/eed8aa55-6eb3-4962-acd4-633e3cfe9242
"""

from __future__ import annotations

import random

import pytest

from sqlsrv2tidb.capture.live import clr_value, open_session, parse_connection
from sqlsrv2tidb.model.hierarchy_path import NotAPath, decode, encode, from_sql_server, to_sql_server

EDGES = [0, 3, 4, 7, 8, 15, 16, 79, 80, 1103, 1104, 5199, 5200, 4294972495, 4294972496, 281479271683150,
         -1, -8, -9, -72, -73, -4168, -4169, -4294971464, -4294971465, -281479271682120]
"""Each end of each of SQL Server's label ranges."""


def paths(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out = ["/"]
    while len(out) < count:
        levels = [".".join(str(rng.choice([*EDGES, rng.randint(-100, 100), rng.randint(-10**12, 10**12)]))
                           for _ in range(rng.choice([1, 1, 1, 2, 3]))) for _ in range(rng.randint(1, 5))]
        path = "/" + "".join(f"{level}/" for level in levels)
        try:
            to_sql_server(path)
        except NotAPath:
            continue  # a label before a dot at the top of its range: SQL Server has no bytes for it either
        out.append(path)
    return out


@pytest.mark.parametrize("path, stored", [
    ("/", ""), ("/1/", "58"), ("/1/-2.18/", "59FB0540"),  # [MS-SSCLRT] 3.2, examples 1 and 2
    ("/1/1/", "5AC0"), ("/1/2/", "5B40"),  # AdventureWorks's HumanResources.Employee
])
def test_sql_server_bytes_are_the_documented_ones(path, stored):
    assert to_sql_server(path).hex().upper() == stored
    assert from_sql_server(bytes.fromhex(stored)) == path


def test_every_form_round_trips_and_orders_nodes_as_sql_server_bytes_do():
    sample = paths(3000)
    for path in sample:
        assert from_sql_server(to_sql_server(path)) == path
        assert decode(encode(path)) == path
    by_bytes = sorted(sample, key=to_sql_server)
    assert sorted(sample, key=lambda p: encode(p).encode("ascii")) == by_bytes
    labels = lambda p: [[int(x) for x in level.split(".")] for level in p.strip("/").split("/")] if p != "/" else []  # noqa: E731
    assert sorted(sample, key=labels) == by_bytes  # depth-first, each level's labels as numbers


def test_what_is_no_hierarchyid_is_said_so():
    for text in ["1/2/", "/1//", "/a/", "/1.2", "/281479271683152/"]:
        with pytest.raises(NotAPath):
            encode(text)
    with pytest.raises(NotAPath):
        from_sql_server(bytes.fromhex("E6100000010C000000000000F03F0000000000005940"))  # a geography POINT


def test_a_clr_value_read_from_sql_server_is_what_the_target_holds(mssql):
    """pyodbc cannot read ODBC type -151 (hierarchyid, geometry, geography): each SQL Server session converts it."""
    session = open_session(parse_connection(mssql.connection_string()), timeout=10)
    try:
        convert = session.handle.get_output_converter(-151)
    finally:
        session.handle.close()
    assert convert is clr_value
    assert convert(bytes.fromhex("5AC0")) == "/a1/a1/" == encode("/1/1/")
    point = bytes.fromhex("E6100000010C000000000000F03F0000000000005940")
    assert convert(point) == point and convert(None) is None
