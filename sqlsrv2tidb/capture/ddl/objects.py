"""The smaller CREATE statements: schema, sequence, type, synonym, partition function and scheme, XML schema
collection and database.

Grammar references:
https://learn.microsoft.com/sql/t-sql/statements/create-schema-transact-sql
https://learn.microsoft.com/sql/t-sql/statements/create-sequence-transact-sql
https://learn.microsoft.com/sql/t-sql/statements/create-type-transact-sql
https://learn.microsoft.com/sql/t-sql/statements/create-synonym-transact-sql
https://learn.microsoft.com/sql/t-sql/statements/create-partition-function-transact-sql
https://learn.microsoft.com/sql/t-sql/statements/create-partition-scheme-transact-sql
https://learn.microsoft.com/sql/t-sql/statements/create-xml-schema-collection-transact-sql
https://learn.microsoft.com/sql/t-sql/statements/create-database-transact-sql
"""

from __future__ import annotations

from ...model import Module
from .actions import (
    Action,
    CreateAliasType,
    CreateModule,
    CreatePartitionFunction,
    CreatePartitionScheme,
    CreateSchema,
    CreateSequence,
    CreateTableType,
    CreateXmlSchemaCollection,
    DatabaseName,
    TableDraft,
)
from .context import Context, split_name
from .cursor import Cursor, ParseError, span_text
from .tables import parse_elements, parse_table_tail
from .tokens import NUMBER, Token
from .types import parse_type


def parse_create_schema(cur: Cursor, ctx: Context, start: Token) -> Action | None:
    """After CREATE SCHEMA: `name [AUTHORIZATION owner]`; schema elements that follow are read as statements."""
    if cur.at("AUTHORIZATION"):
        cur.next()
        cur.identifier()
        return None
    name = cur.identifier()
    if cur.accept("AUTHORIZATION"):
        cur.identifier()
    cur.accept_op(";")
    return CreateSchema(start, name)


def parse_create_sequence(cur: Cursor, ctx: Context, start: Token) -> Action:
    seq = CreateSequence(start, cur.qualified_name())
    while not cur.done and not cur.at_op(";"):
        if cur.accept("AS"):
            seq.type = parse_type(cur)
        elif cur.accept("START"):
            cur.expect("WITH")
            seq.start = _signed(cur)
        elif cur.accept("INCREMENT"):
            cur.expect("BY")
            seq.increment = _signed(cur)
        elif cur.accept("MINVALUE"):
            seq.minimum = _signed(cur)
        elif cur.accept("MAXVALUE"):
            seq.maximum = _signed(cur)
        elif cur.accept("CYCLE"):
            seq.cycle = True
        elif cur.accept("CACHE"):
            seq.cached = True
            tok = cur.peek()
            if tok is not None and tok.kind == NUMBER:
                seq.cache_size = _signed(cur)
        elif cur.accept("NO"):
            what = cur.expect("MINVALUE", "MAXVALUE", "CYCLE", "CACHE").value
            if what == "CYCLE":
                seq.cycle = False
            elif what == "CACHE":
                seq.cached = False
        else:
            break
    cur.accept_op(";")
    return seq


def _signed(cur: Cursor) -> int:
    sign = -1 if cur.accept_op("-") else 1
    cur.accept_op("+")
    tok = cur.next()
    if tok.kind != NUMBER:
        raise ParseError(f"expected a number, found {tok.text!r}", tok)
    return sign * int(float(tok.text))


def parse_create_type(cur: Cursor, ctx: Context, start: Token) -> Action | None:
    """After CREATE TYPE: `name FROM base [NULL|NOT NULL]`, `name AS TABLE (...)`, or a CLR type."""
    name = cur.qualified_name()
    if cur.accept("FROM"):
        base = parse_type(cur)
        nullable = True
        if cur.accept_sequence("NOT", "NULL"):
            nullable = False
        else:
            cur.accept("NULL")
        cur.accept_op(";")
        return CreateAliasType(start, name, base, nullable)
    if cur.accept("AS"):
        cur.expect("TABLE")
        cur.expect_op("(")
        draft = TableDraft(name, source=ctx.ref(start))
        draft.elements = parse_elements(cur, ctx)
        cur.expect_op(")")
        parse_table_tail(cur, draft)
        return CreateTableType(start, name, draft)
    cur.expect("EXTERNAL")  # a CLR user-defined type; columns of it keep the type's own name
    cur.skip_rest()
    return None


def parse_create_synonym(cur: Cursor, ctx: Context, start: Token) -> Action:
    schema, name = split_name(cur.qualified_name())
    cur.expect("FOR")
    first = cur.pos
    base = cur.qualified_name()
    cur.accept_op(";")
    definition = span_text(cur.tokens, start_index(cur, start), cur.pos - 1)
    base_object = ".".join(f"[{part}]" for part in base if part) if base else span_text(cur.tokens, first, cur.pos - 1)
    module = Module(schema, name, "synonym", definition=definition, base_object=base_object, source=ctx.ref(start))
    return CreateModule(start, module)


def start_index(cur: Cursor, start: Token) -> int:
    """Index of the statement's first token (it is behind the cursor)."""
    i = cur.pos - 1
    while i > 0 and cur.tokens[i] is not start:
        i -= 1
    return i


def parse_partition_function(cur: Cursor, ctx: Context, start: Token) -> Action:
    """After CREATE PARTITION FUNCTION: `name (type) AS RANGE [LEFT|RIGHT] FOR VALUES (v, ...)`."""
    name = cur.identifier()
    cur.expect_op("(")
    type_spec = parse_type(cur)
    cur.expect_op(")")
    cur.expect("AS")
    cur.expect("RANGE")
    right = False
    if cur.accept("RIGHT"):
        right = True
    else:
        cur.accept("LEFT")
    cur.expect("FOR")
    cur.expect("VALUES")
    cur.expect_op("(")
    boundaries: list[str] = []
    if not cur.accept_op(")"):
        while True:
            boundaries.append(cur.expression())
            if cur.accept_op(")"):
                break
            cur.expect_op(",")
    cur.accept_op(";")
    return CreatePartitionFunction(start, name, type_spec, tuple(boundaries), right)


def parse_partition_scheme(cur: Cursor, ctx: Context, start: Token) -> Action:
    """After CREATE PARTITION SCHEME: `name AS PARTITION fn [ALL] TO (fg, ...)`."""
    name = cur.identifier()
    cur.expect("AS")
    cur.expect("PARTITION")
    function = cur.identifier()
    cur.accept("ALL")
    cur.expect("TO")
    cur.expect_op("(")
    filegroups = [cur.identifier()]
    while cur.accept_op(","):
        filegroups.append(cur.identifier())
    cur.expect_op(")")
    cur.accept_op(";")
    return CreatePartitionScheme(start, name, function, tuple(filegroups))


def parse_xml_schema_collection(cur: Cursor, ctx: Context, start: Token) -> Action:
    """After CREATE XML SCHEMA COLLECTION: `name AS <xsd string or variable>`."""
    name = cur.qualified_name()
    cur.expect("AS")
    cur.skip_rest()
    return CreateXmlSchemaCollection(start, name)


def parse_create_database(cur: Cursor, ctx: Context, start: Token) -> Action:
    """After CREATE DATABASE: the name, and `COLLATE x` wherever it appears in the options."""
    name = cur.identifier()
    collation = None
    depth = 0
    while not cur.done:
        tok = cur.peek()
        assert tok is not None
        if tok.is_op("("):
            depth += 1
        elif tok.is_op(")"):
            depth -= 1
        elif tok.is_op(";") and depth == 0:
            cur.next()
            break
        elif depth == 0 and tok.is_word("COLLATE"):
            cur.next()
            collation = cur.identifier()
            continue
        elif depth == 0 and tok.is_word("GO", "USE", "ALTER", "CREATE", "IF", "EXEC", "EXECUTE", "PRINT", "SET"):
            break
        cur.next()
    return DatabaseName(start, name, created=True, collation=collation)
