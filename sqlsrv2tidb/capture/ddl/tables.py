"""CREATE TABLE and ALTER TABLE: columns, inline and added constraints, inline indexes, table options.

Follows the grammar of https://learn.microsoft.com/sql/t-sql/statements/create-table-transact-sql
and https://learn.microsoft.com/sql/t-sql/statements/alter-table-transact-sql as SSMS, SSDT and
people write it: column constraints in any order, `CONSTRAINT name` before any of them, the
2014+ inline `INDEX` (with `HASH WITH (BUCKET_COUNT = n)` for memory-optimized tables),
`PERIOD FOR SYSTEM_TIME`, and the placement/options tail (`ON ps(col)`, `TEXTIMAGE_ON`,
`WITH (MEMORY_OPTIMIZED = ON, SYSTEM_VERSIONING = ON (HISTORY_TABLE = ...))`).
"""

from __future__ import annotations

from ...model import Computed, Identity, IndexColumn
from .actions import (
    Action,
    AddElements,
    AlterColumn,
    CheckDraft,
    ColumnDraft,
    ConstraintState,
    CreateTable,
    DefaultDraft,
    ForeignKeyDraft,
    IndexDraft,
    KeyDraft,
    PeriodDraft,
    SetVersioning,
    TableDraft,
    TableElement,
)
from .context import Context, is_temporary
from .cursor import Cursor, ParseError, span_text
from .options import find, parse_option_list, parse_storage, parse_with
from .tokens import NUMBER, Token
from .types import parse_type

# Words that end a DEFAULT or computed-column expression written without parentheses.
_COLUMN_WORDS = frozenset({
    "CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "REFERENCES", "FOREIGN", "IDENTITY", "COLLATE", "ROWGUIDCOL",
    "SPARSE", "MASKED", "ENCRYPTED", "GENERATED", "HIDDEN", "FILESTREAM", "PERSISTED", "NULL", "NOT", "WITH",
    "FOR", "INDEX", "DEFAULT",
})
_ACTIONS = {"CASCADE": "cascade", "NO": "no_action", "SET": None}


def parse_create_table(cur: Cursor, ctx: Context, start: Token) -> Action | None:
    """After `CREATE TABLE`."""
    name = cur.qualified_name()
    if is_temporary(name):
        cur.skip_rest()
        return None
    draft = TableDraft(name, source=ctx.ref(start))
    if cur.accept("AS"):  # AS FILETABLE | NODE | EDGE
        cur.next()
    if cur.at_op("("):
        cur.expect_op("(")
        draft.elements = parse_elements(cur, ctx)
        cur.expect_op(")")
    parse_table_tail(cur, draft)
    return CreateTable(start, draft)


def parse_elements(cur: Cursor, ctx: Context) -> list[TableElement]:
    """Comma-separated column definitions and table constraints, up to (not including) `)` or the end."""
    elements: list[TableElement] = []
    while True:
        elements.extend(_element(cur, ctx))
        if not cur.accept_op(","):
            return elements
        if cur.at_op(")"):  # a trailing comma, which SQL Server tolerates in CREATE TABLE
            return elements


def parse_table_tail(cur: Cursor, draft: TableDraft) -> None:
    """Placement and options after the element list, in any order, up to the end of the statement."""
    while not cur.done:
        if cur.accept("ON"):
            draft.storage = parse_storage(cur) or draft.storage
        elif cur.accept("TEXTIMAGE_ON", "FILESTREAM_ON"):
            cur.identifier()
        elif cur.accept("WITH"):
            _table_options(parse_with(cur), draft)
        elif cur.at("AS") and cur.peek(1) is not None and cur.peek(1).is_word("NODE", "EDGE", "FILETABLE"):  # type: ignore[union-attr]
            cur.pos += 2  # graph and FileTable tables: their columns are the ones listed
        elif cur.at("AS"):
            raise ParseError("CREATE TABLE ... AS SELECT is Azure Synapse syntax, not SQL Server's; the table's"
                             " columns are not known", cur.peek())
        else:
            break
    cur.accept_op(";")


def _table_options(options: list, draft: TableDraft) -> None:
    if (opt := find(options, "MEMORY_OPTIMIZED")) is not None:
        draft.memory_optimized = opt.word == "ON"
    if (opt := find(options, "DURABILITY")) is not None:
        draft.durability = "schema_only" if opt.word == "SCHEMA_ONLY" else "schema_and_data"
    if (opt := find(options, "SYSTEM_VERSIONING")) is not None:
        draft.versioning = opt.word == "ON"
        history = find(opt.sub_options(), "HISTORY_TABLE")
        if history is not None:
            draft.history = history.name()


def _element(cur: Cursor, ctx: Context) -> list[TableElement]:
    tok = cur.peek()
    if tok is None:
        raise ParseError("expected a column or constraint", cur.previous)
    if cur.at("CONSTRAINT", "PRIMARY", "UNIQUE", "FOREIGN", "CHECK", "DEFAULT"):
        return [_table_constraint(cur, ctx)]
    if cur.at("INDEX"):
        cur.next()
        return [_inline_index(cur, ctx, tok, None)]
    if cur.at_sequence("PERIOD", "FOR"):
        cur.pos += 2
        cur.expect("SYSTEM_TIME")
        cur.expect_op("(")
        start = cur.identifier()
        cur.expect_op(",")
        end = cur.identifier()
        cur.expect_op(")")
        return [PeriodDraft(start, end)]
    return column_definition(cur, ctx)


def _table_constraint(cur: Cursor, ctx: Context) -> TableElement:
    first = cur.peek()
    assert first is not None
    name = cur.identifier() if cur.accept("CONSTRAINT") else None
    if cur.at("PRIMARY", "UNIQUE"):
        return _key(cur, ctx, name, first, None)
    if cur.accept("FOREIGN"):
        cur.expect("KEY")
        columns = [c for c, _ in cur.name_list()]
        return _references(cur, ctx, name, columns, first)
    if cur.at("CHECK"):
        return _check(cur, ctx, name, None, first)
    if cur.accept("DEFAULT"):
        expression = cur.expression(frozenset({"FOR"}))
        cur.expect("FOR")
        column = cur.identifier()
        cur.accept_sequence("WITH", "VALUES")
        return DefaultDraft(name, expression, column, ctx.ref(first))
    raise ParseError(f"unknown table constraint {cur.peek().text if cur.peek() else ''!r}", cur.peek())


def _key(cur: Cursor, ctx: Context, name: str | None, first: Token, column: str | None) -> KeyDraft:
    primary = bool(cur.accept("PRIMARY"))
    if primary:
        cur.expect("KEY")
    else:
        cur.expect("UNIQUE")
    clustered: bool | None = None
    if cur.accept("CLUSTERED"):
        clustered = True
    elif cur.accept("NONCLUSTERED"):
        clustered = False
    hashed = bool(cur.accept("HASH"))
    if cur.at_op("("):
        columns = [IndexColumn(n, d) for n, d in cur.name_list()]
    elif column is not None:
        columns = [IndexColumn(column)]
    else:
        raise ParseError("a table-level key needs its column list", cur.peek() or cur.previous)
    draft = KeyDraft(primary, name, columns, clustered, hashed, source=ctx.ref(first))
    _index_tail(cur, draft)
    return draft


def _index_tail(cur: Cursor, draft: KeyDraft | IndexDraft) -> None:
    """`WITH (...)`, `ON placement`, `NOT FOR REPLICATION` after a key or inline index."""
    while True:
        if cur.accept("WITH"):
            parse_with(cur)
        elif cur.at("ON") and not cur.at_sequence("ON", "DELETE") and not cur.at_sequence("ON", "UPDATE"):
            cur.next()
            draft.storage = parse_storage(cur) or draft.storage
        elif cur.accept("TEXTIMAGE_ON", "FILESTREAM_ON"):
            cur.identifier()
        elif cur.accept_sequence("NOT", "FOR", "REPLICATION"):
            pass
        else:
            return


def _references(cur: Cursor, ctx: Context, name: str | None, columns: list[str], first: Token) -> ForeignKeyDraft:
    cur.expect("REFERENCES")
    ref = cur.qualified_name()
    ref_columns = [c for c, _ in cur.name_list()] if cur.at_op("(") else []
    fk = ForeignKeyDraft(name, columns, ref, ref_columns, source=ctx.ref(first))
    while True:
        if cur.accept("ON"):
            which = cur.expect("DELETE", "UPDATE").value
            action = _referential_action(cur)
            if which == "DELETE":
                fk.on_delete = action
            else:
                fk.on_update = action
        elif cur.accept_sequence("NOT", "FOR", "REPLICATION"):
            pass
        else:
            return fk


def _referential_action(cur: Cursor):
    if cur.accept("CASCADE"):
        return "cascade"
    if cur.accept("NO"):
        cur.expect("ACTION")
        return "no_action"
    cur.expect("SET")
    return "set_null" if cur.expect("NULL", "DEFAULT").value == "NULL" else "set_default"


def _check(cur: Cursor, ctx: Context, name: str | None, column: str | None, first: Token) -> CheckDraft:
    cur.expect("CHECK")
    cur.accept_sequence("NOT", "FOR", "REPLICATION")
    open_at = cur.pos
    cur.skip_parens()
    return CheckDraft(name, span_text(cur.tokens, open_at, cur.pos - 1), column, ctx.ref(first))


def _inline_index(cur: Cursor, ctx: Context, first: Token, column: str | None) -> IndexDraft:
    """After INDEX: `name [UNIQUE] [CLUSTERED|NONCLUSTERED] [COLUMNSTORE] [HASH] (cols) [INCLUDE] [WHERE] ...`."""
    name = cur.identifier()
    index = IndexDraft(name, [], source=ctx.ref(first))
    index.unique = bool(cur.accept("UNIQUE"))
    if cur.accept("CLUSTERED"):
        index.clustered = True
    else:
        cur.accept("NONCLUSTERED")
    if cur.accept("COLUMNSTORE"):
        index.kind = "columnstore"
    elif cur.accept("HASH"):
        index.kind = "hash"
    if cur.at_op("("):
        index.columns = [IndexColumn(n, d) for n, d in cur.name_list()]
    elif column is not None:
        index.columns = [IndexColumn(column)]
    if cur.accept("INCLUDE"):
        index.include = [n for n, _ in cur.name_list()]
    if cur.accept("WHERE"):
        index.filter = cur.expression(frozenset({"WITH", "ON"}))
    _index_tail(cur, index)
    return index


def column_definition(cur: Cursor, ctx: Context) -> list[TableElement]:
    """`name type [options]` or `name AS expr [PERSISTED]`: the column and any constraints declared on it."""
    first = cur.peek()
    assert first is not None
    column = ColumnDraft(cur.identifier(), None, source=ctx.ref(first))
    extra: list[TableElement] = []
    if cur.accept("AS"):
        expression = cur.expression(_COLUMN_WORDS)
        column.computed = Computed(expression, persisted=False)
    else:
        column.type = parse_type(cur)
    _column_options(cur, ctx, column, extra)
    return [column, *extra]


def _column_options(cur: Cursor, ctx: Context, column: ColumnDraft, extra: list[TableElement]) -> None:
    while not cur.done and not cur.at_op(",") and not cur.at_op(")") and not cur.at_op(";"):
        first = cur.peek()
        assert first is not None
        name = cur.identifier() if cur.accept("CONSTRAINT") else None
        if cur.accept("NULL"):
            column.nullable = True
        elif cur.accept_sequence("NOT", "NULL"):
            column.nullable = False
        elif cur.accept_sequence("NOT", "FOR", "REPLICATION"):
            if column.identity is not None:
                column.identity = Identity(column.identity.seed, column.identity.increment, True)
        elif cur.accept("IDENTITY"):
            seed, increment = 1, 1
            if cur.accept_op("("):
                seed = _signed_int(cur)
                cur.expect_op(",")
                increment = _signed_int(cur)
                cur.expect_op(")")
            column.identity = Identity(seed, increment)
        elif cur.accept("DEFAULT"):
            column.default = cur.expression(_COLUMN_WORDS)
            column.default_name = name
            cur.accept_sequence("WITH", "VALUES")
        elif cur.at("PRIMARY", "UNIQUE"):
            extra.append(_key(cur, ctx, name, first, column.name))
        elif cur.at("REFERENCES"):
            extra.append(_references(cur, ctx, name, [column.name], first))
        elif cur.accept("FOREIGN"):
            cur.expect("KEY")
            extra.append(_references(cur, ctx, name, [column.name], first))
        elif cur.at("CHECK"):
            extra.append(_check(cur, ctx, name, column.name, first))
        elif cur.accept("COLLATE"):
            column.collation = cur.identifier()
        elif cur.accept("ROWGUIDCOL"):
            column.rowguidcol = True
        elif cur.accept("SPARSE"):
            column.sparse = True
        elif cur.accept("FILESTREAM"):
            pass
        elif cur.accept("PERSISTED"):
            if column.computed is not None:
                column.computed = Computed(column.computed.expression, persisted=True)
        elif cur.accept("HIDDEN"):
            column.hidden = True
        elif cur.accept("GENERATED"):
            cur.expect("ALWAYS")
            cur.expect("AS")
            what = cur.expect("ROW", "TRANSACTION_ID", "SEQUENCE_NUMBER").value
            edge = cur.expect("START", "END").value
            if what == "ROW":
                column.generated_always = "row_start" if edge == "START" else "row_end"
        elif cur.accept("MASKED"):
            cur.expect("WITH")
            parse_option_list(cur)
            column.masked = True
        elif cur.accept("ENCRYPTED"):
            cur.expect("WITH")
            parse_option_list(cur)
            column.encrypted = True
        elif cur.accept("INDEX"):
            extra.append(_inline_index(cur, ctx, first, column.name))
        elif cur.accept("COLUMN_SET"):
            cur.expect("FOR")
            cur.expect("ALL_SPARSE_COLUMNS")
        else:
            tok = cur.peek()
            found = repr(tok.text) if tok is not None else "the end of the statement"
            raise ParseError(f"unexpected {found} in the definition of column {column.name}", tok or cur.previous)


def _signed_int(cur: Cursor) -> int:
    negative = bool(cur.accept_op("-"))
    tok = cur.next()
    if tok.kind != NUMBER:
        raise ParseError(f"expected a number, found {tok.text!r}", tok)
    value = int(float(tok.text))
    return -value if negative else value


# ---- ALTER TABLE -----------------------------------------------------------------------------


def parse_alter_table(cur: Cursor, ctx: Context, start: Token) -> Action | None:
    """After `ALTER TABLE`; actions that do not change the model (DROP, SWITCH, REBUILD, ...) are skipped."""
    target = cur.qualified_name()
    if is_temporary(target):
        cur.skip_rest()
        return None
    with_check: bool | None = None
    if cur.accept("WITH"):
        with_check = cur.expect("CHECK", "NOCHECK").value == "CHECK"
    if cur.accept("ADD"):
        elements = parse_elements(cur, ctx)
        cur.accept_op(";")
        return AddElements(start, target, elements, nocheck=with_check is False)
    if cur.at("CHECK", "NOCHECK"):
        enabled = cur.next().value == "CHECK"
        cur.expect("CONSTRAINT")
        names: list[str] | None = None
        if not cur.accept("ALL"):
            names = [cur.identifier()]
            while cur.accept_op(","):
                names.append(cur.identifier())
        cur.accept_op(";")
        return ConstraintState(start, target, names, enabled, with_check=bool(with_check))
    if cur.accept_sequence("ALTER", "COLUMN"):
        if cur.peek(1) is not None and cur.peek(1).is_word("ADD", "DROP"):  # type: ignore[union-attr]
            cur.skip_rest()
            return None
        first = cur.peek()
        assert first is not None
        column = ColumnDraft(cur.identifier(), None, source=ctx.ref(first))
        column.type = parse_type(cur)
        _column_options(cur, ctx, column, [])
        cur.accept_op(";")
        return AlterColumn(start, target, column)
    if cur.accept("SET"):
        options = parse_option_list(cur)
        cur.accept_op(";")
        versioning = find(options, "SYSTEM_VERSIONING")
        if versioning is None:
            return None
        history = find(versioning.sub_options(), "HISTORY_TABLE")
        return SetVersioning(start, target, versioning.word == "ON", history.name() if history else None)
    cur.skip_statement()  # DROP, SWITCH, REBUILD, {ENABLE|DISABLE} TRIGGER, ...: no change to the model
    return None
