"""CREATE INDEX in all its kinds, and ALTER INDEX ... DISABLE / REBUILD.

Rowstore (https://learn.microsoft.com/sql/t-sql/statements/create-index-transact-sql), columnstore
(https://learn.microsoft.com/sql/t-sql/statements/create-columnstore-index-transact-sql), XML
(https://learn.microsoft.com/sql/t-sql/statements/create-xml-index-transact-sql), spatial
(https://learn.microsoft.com/sql/t-sql/statements/create-spatial-index-transact-sql) and full-text
(https://learn.microsoft.com/sql/t-sql/statements/create-fulltext-index-transact-sql). The index
may be on a view (an indexed view); the builder decides which once every object is known.
"""

from __future__ import annotations

from ...model import IndexColumn
from .actions import Action, CreateIndex, IndexDraft, IndexState
from .context import Context, is_temporary
from .cursor import Cursor
from .options import parse_storage, parse_with
from .tokens import Token


def parse_create_index(cur: Cursor, ctx: Context, start: Token) -> Action | None:
    """At the words after CREATE: `[UNIQUE] [CLUSTERED|NONCLUSTERED] [COLUMNSTORE] INDEX`, XML, SPATIAL."""
    index = IndexDraft(None, [], source=ctx.ref(start))
    if cur.accept("PRIMARY"):
        cur.expect("XML")
        index.kind = "xml"
        index.clustered = True  # the primary XML index is the clustered one of its internal table
    elif cur.accept("XML"):
        index.kind = "xml"
    elif cur.accept("SPATIAL"):
        index.kind = "spatial"
    else:
        index.unique = bool(cur.accept("UNIQUE"))
        if cur.accept("CLUSTERED"):
            index.clustered = True
        else:
            cur.accept("NONCLUSTERED")
        if cur.accept("COLUMNSTORE"):
            index.kind = "columnstore"
    cur.expect("INDEX")
    index.name = cur.identifier()
    cur.expect("ON")
    target = cur.qualified_name()
    if cur.at_op("("):
        index.columns = [IndexColumn(n, d) for n, d in cur.name_list()]
    if cur.accept("USING"):  # XML: USING XML INDEX x FOR PATH; spatial: USING GEOMETRY_GRID ...
        while not cur.done and not cur.at("WITH", "ON") and not cur.at_op(";"):
            cur.next()
    if cur.accept("INCLUDE"):
        index.include = [n for n, _ in cur.name_list()]
    if cur.accept("WHERE"):
        index.filter = cur.expression(frozenset({"WITH", "ON"}))
    while not cur.done:
        if cur.accept("WITH"):
            parse_with(cur)
        elif cur.accept("ON"):
            index.storage = parse_storage(cur) or index.storage
        elif cur.accept("FILESTREAM_ON"):
            cur.identifier()
        else:
            break
    cur.accept_op(";")
    if is_temporary(target):
        return None
    return CreateIndex(start, target, index)


def parse_fulltext_index(cur: Cursor, ctx: Context, start: Token) -> Action:
    """After `CREATE FULLTEXT INDEX`: `ON t (col [TYPE COLUMN c] [LANGUAGE l] [STATISTICAL_SEMANTICS], ...)`."""
    cur.expect("ON")
    target = cur.qualified_name()
    columns: list[IndexColumn] = []
    if cur.accept_op("("):
        while True:
            columns.append(IndexColumn(cur.identifier()))
            while not cur.done and not cur.at_op(",") and not cur.at_op(")"):
                if cur.accept("TYPE"):
                    cur.expect("COLUMN")
                    cur.identifier()
                elif cur.accept("LANGUAGE"):
                    cur.next()
                else:
                    cur.next()
            if cur.accept_op(")"):
                break
            cur.expect_op(",")
    cur.skip_rest()  # KEY INDEX pk [ON catalog] [WITH ...]
    return CreateIndex(start, target, IndexDraft(None, columns, kind="fulltext", source=ctx.ref(start)))


def parse_alter_index(cur: Cursor, ctx: Context, start: Token) -> Action | None:
    """After `ALTER INDEX`: `{name | ALL} ON t {DISABLE | REBUILD ...}`; other changes keep the model as is."""
    name = None if cur.accept("ALL") else cur.identifier()
    cur.expect("ON")
    target = cur.qualified_name()
    what = cur.accept("DISABLE", "REBUILD")
    cur.skip_rest()
    if what is None or is_temporary(target):
        return None
    return IndexState(start, target, name, disabled=what.value == "DISABLE")
