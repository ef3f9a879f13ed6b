"""hierarchyid on the target: the DDL's column type, the stored path and the translated methods, run on TiDB and MySQL.

The expected answers are SQL Server's documented ones, computed here from the paths as lists of labels
(not with the tool's own encoding): GetLevel counts levels, GetAncestor(n) drops the last n (NULL above
the root), a node descends from itself and from each of its ancestors, ToString is the canonical path,
and nodes sort depth-first, each level's labels compared as numbers (`/1/` < `/1/1/` < `/1.1/` < `/2/`).
The endpoint has no hierarchyid (docs/babelfish.md), so the documented answers stand in for it.
https://learn.microsoft.com/sql/t-sql/data-types/hierarchyid-data-type-method-reference
"""

from __future__ import annotations

import pytest

from sqlsrv2tidb.model import Column, Database, DataType, IndexColumn, Key, Table
from sqlsrv2tidb.model.hierarchy_path import encode
from sqlsrv2tidb.options import Options
from sqlsrv2tidb.translate.naming import NameMap
from sqlsrv2tidb.translate.queries import translate_sql
from sqlsrv2tidb.translate.types import TypeMapper

PATHS = ["/", "/1/", "/1/1/", "/1/2/", "/1/10/", "/1/1/5/", "/1.1/", "/1.-1/", "/1/-3/", "/2/", "/10/", "/-1/",
         "/0/", "/1/2/0.5.7/", "/281479271682119/", "/-281479271682120/"]
DATABASE = Database(tables=(
    Table("dbo", "org", (Column("id", DataType("int")), Column("node", DataType("hierarchyid"))),
          primary_key=Key("PK_org", (IndexColumn("id"),))),
))


def labels(path: str) -> list[list[int]]:
    return [[int(x) for x in level.split(".")] for level in path.strip("/").split("/")] if path != "/" else []


def text(levels: list[list[int]]) -> str:
    return "/" + "".join(".".join(map(str, level)) + "/" for level in levels)


def ancestor(path: str, n: int) -> str | None:
    levels = labels(path)
    return None if n > len(levels) else text(levels[:len(levels) - n])


@pytest.fixture(scope="module", params=["tidb", "mysql"])
def org(request):
    server = request.getfixturevalue(request.param)
    name = server.create_database("t_hierarchy")
    column_type = TypeMapper(engine="mysql" if request.param == "mysql" else "tidb").map_type(DataType("hierarchyid")).target
    conn = server.connect(name)
    with conn.cursor() as cur:
        cur.execute(f"CREATE TABLE org (id INT PRIMARY KEY, node {column_type}, KEY ix_node (node))")
        cur.executemany("INSERT INTO org VALUES (%s, %s)", [(i, encode(p)) for i, p in enumerate(PATHS)])
    conn.commit()
    yield request.param, conn
    conn.close()


def run(org, tsql: str) -> list[tuple]:
    engine, conn = org
    result = translate_sql(tsql, database=DATABASE, names=NameMap.for_database(DATABASE),
                           options=Options(target_engine=engine))
    assert result.status == "rewritten" and "QY80" in {n.code for n in result.notes}, result.notes
    with conn.cursor() as cur:
        cur.execute(result.target_sql)
        return [tuple(r) for r in cur.fetchall()]


def test_the_column_type_keeps_the_path_in_one_byte_characters():
    mapped = TypeMapper().map_type(DataType("hierarchyid"))
    assert mapped.target.startswith("VARCHAR(") and "ascii_bin" in mapped.target
    assert [loss.rule for loss in mapped.losses] == ["TY09"]


def test_nodes_sort_depth_first_with_labels_compared_as_numbers(org):
    rows = run(org, "SELECT node.ToString() FROM dbo.org ORDER BY node")
    assert [r[0] for r in rows] == sorted(PATHS, key=labels)
    assert [r[0] for r in rows][:4] == ["/", "/-281479271682120/", "/-1/", "/0/"]


def test_to_string_and_get_level(org):
    rows = run(org, "SELECT id, node.ToString(), node.GetLevel() FROM dbo.org ORDER BY id")
    assert rows == [(i, p, len(labels(p))) for i, p in enumerate(PATHS)]


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_get_ancestor_drops_levels_and_is_null_above_the_root(org, n):
    rows = run(org, f"SELECT id, node.GetAncestor({n}).ToString() FROM dbo.org ORDER BY id")
    assert rows == [(i, ancestor(p, n)) for i, p in enumerate(PATHS)]


def test_get_ancestor_joins_a_node_to_its_parent(org):
    rows = run(org, "SELECT c.node.ToString(), p.node.ToString() FROM dbo.org c JOIN dbo.org p "
                    "ON c.node.GetAncestor(1) = p.node ORDER BY c.id")
    expected = [(p, ancestor(p, 1)) for p in PATHS if ancestor(p, 1) in PATHS]
    assert rows == expected and len(rows) > 5


def test_is_descendant_of_includes_the_node_itself(org):
    rows = run(org, "SELECT node.ToString() FROM dbo.org WHERE node.IsDescendantOf(hierarchyid::Parse('/1/')) = 1 ORDER BY node")
    expected = [p for p in PATHS if labels(p)[:1] == [[1]]]
    assert [r[0] for r in rows] == sorted(expected, key=labels)
    assert "/1/" in expected and "/1.1/" not in expected and "/10/" not in expected


def test_a_text_constant_compared_with_a_node_is_read_as_a_path(org):
    assert run(org, "SELECT id FROM dbo.org WHERE node = '/1/10/'") == [(PATHS.index("/1/10/"),)]
    assert run(org, "SELECT COUNT(*) FROM dbo.org WHERE node < CAST('/1.1/' AS hierarchyid)") == \
        [(sum(1 for p in PATHS if labels(p) < labels("/1.1/")),)]


def test_reparenting_root_and_first_child(org):
    rows = run(org, "SELECT node.GetReparentedValue(hierarchyid::Parse('/1/'), hierarchyid::Parse('/3/4/')).ToString(), "
                    "hierarchyid::GetRoot().ToString(), node.GetDescendant(NULL, NULL).ToString(), CAST(node AS nvarchar(100)) "
                    "FROM dbo.org WHERE id = 5")
    assert rows == [("/3/4/1/5/", "/", "/1/1/5/1/", "/1/1/5/")]


def test_what_cannot_be_written_is_unsupported_with_its_reason():
    for tsql, words in [("SELECT node.GetDescendant(node, NULL) FROM dbo.org", "GetDescendant"),
                        ("SELECT hierarchyid::Parse(CAST(id AS varchar(10))) FROM dbo.org", "run time"),
                        ("SELECT hierarchyid::Parse('1/2')", "not a hierarchyid path")]:
        result = translate_sql(tsql, database=DATABASE, names=NameMap.for_database(DATABASE), options=Options())
        assert result.status == "unsupported", (tsql, result.notes)
        assert any(n.code == "QY80" and words in n.message for n in result.notes), result.notes


def test_a_recursive_cte_walks_up_the_tree_as_adventureworks_managers_procedure_does(org):
    """uspGetEmployeeManagers's shape: the anchor is one node, each step joins the row whose node is the last one's
    parent; the levels and paths are SQL Server's for the chain of /1/1/5/."""
    rows = run(org, "WITH chain (node, step) AS (SELECT node, 0 FROM dbo.org WHERE id = 5 UNION ALL "
                    "SELECT o.node, step + 1 FROM dbo.org AS o INNER JOIN chain ON o.node = chain.node.GetAncestor(1)) "
                    "SELECT step, node.ToString() FROM chain ORDER BY step")
    assert PATHS[5] == "/1/1/5/"
    assert rows == [(0, "/1/1/5/"), (1, "/1/1/"), (2, "/1/"), (3, "/")]
