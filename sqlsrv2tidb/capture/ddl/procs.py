"""EXEC at the top level of a script: the system procedures that define schema, and dynamic SQL.

Deployment scripts define alias types with `sp_addtype`
(https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-addtype-transact-sql),
describe tables and columns with `sp_addextendedproperty`
(https://learn.microsoft.com/sql/relational-databases/system-stored-procedures/sp-addextendedproperty-transact-sql),
and wrap DDL in `EXEC('CREATE ...')` or `sp_executesql N'...'` so it can sit inside IF blocks.
Literal dynamic SQL is read like any other script text; SQL built from variables cannot be and
becomes a finding. Other procedures are not run, and a call to one says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ...model import Severity
from .actions import Action, CreateAliasType, DatabaseName, Description
from .context import Context
from .cursor import STATEMENT_STARTS as _STOP
from .cursor import Cursor, ParseError, continues_statement
from .tokens import NUMBER, OP, QUOTED, STRING, VARIABLE, WORD, Problem, Source, Token, tokenize
from .types import parse_type

ReadSql = Callable[[Source], None]

# Descriptions: SSMS and the catalog use MS_Description; SSDT projects (WideWorldImporters among
# them) often use a property named Description. Both mean the same to a DBA.
_DESCRIPTION_PROPERTIES = frozenset({"ms_description", "description"})
_EXTENDED_PROPERTY_PARAMS = ("@name", "@value", "@level0type", "@level0name", "@level1type", "@level1name",
                             "@level2type", "@level2name")
_ADDTYPE_PARAMS = ("@typename", "@phystype", "@nulltype", "@owner")
# Server and security housekeeping that changes nothing in the schema model.
_IGNORED = frozenset({
    "sp_dboption", "sp_configure", "sp_fulltext_database", "sp_fulltext_catalog", "sp_fulltext_table",
    "sp_fulltext_column", "sp_changedbowner", "sp_addrolemember", "sp_droprolemember", "sp_addlogin",
    "sp_adduser", "sp_grantdbaccess", "sp_grantlogin", "sp_addsrvrolemember", "sp_dropextendedproperty",
    "sp_droptype", "sp_tableoption", "sp_settriggerorder", "sp_helptext", "sp_help", "sp_addumpdevice",
    "sp_detach_db", "sp_attach_db", "sp_defaultdb", "sp_defaultlanguage", "sp_password", "sp_dropuser",
    "sp_droplogin", "sp_revokedbaccess", "sp_addapprole", "sp_addrole", "sp_droprole", "sp_set_session_context",
    "sp_refreshview", "sp_recompile", "sp_updatestats", "sp_flush_cte", "sp_db_vardecimal_storage_format",
})
_BOUND_RULES = frozenset({"sp_bindrule", "sp_bindefault", "sp_unbindrule", "sp_unbindefault"})
_CREATE_DATABASE = re.compile(r"^\s*CREATE\s+DATABASE\s+(\[(?:[^\]]|\]\])+\]|\"[^\"]+\"|[\w@#$]+)", re.IGNORECASE)


@dataclass
class Argument:
    name: str | None
    """`@name` of a named argument, lower case."""
    tokens: list[Token]

    @property
    def single(self) -> Token | None:
        return self.tokens[0] if len(self.tokens) == 1 else None

    def text(self) -> str | None:
        """A literal or name argument as text; NULL and anything computed give None."""
        tok = self.single
        if tok is None or tok.is_word("NULL"):
            return None
        if tok.kind in (STRING, QUOTED):
            return tok.value
        if tok.kind in (WORD, NUMBER):
            return tok.text
        return None


def parse_exec(cur: Cursor, ctx: Context, start: Token, read_sql: ReadSql) -> Action | None:
    """After EXEC/EXECUTE."""
    if cur.at_op("("):
        _dynamic(cur, ctx, start, read_sql)
        return None
    if cur.peek() is not None and cur.peek().kind == VARIABLE and cur.peek(1) is not None \
            and cur.peek(1).is_op("="):  # type: ignore[union-attr]
        cur.pos += 2  # EXEC @rc = proc
    tok = cur.peek()
    if tok is None or tok.kind == VARIABLE:
        cur.skip_rest()
        return None
    name = cur.qualified_name()
    procedure = name[-1].lower()
    args = _arguments(cur)
    cur.accept_op(";")
    if procedure in ("sp_addextendedproperty", "sp_updateextendedproperty"):
        return _extended_property(start, _bind(args, _EXTENDED_PROPERTY_PARAMS))
    if procedure == "sp_addtype":
        return _addtype(ctx, start, _bind(args, _ADDTYPE_PARAMS))
    if procedure == "sp_executesql":
        if args and (literal := args[0].single) is not None and literal.kind == STRING:
            read_sql(Source(literal.source.path, literal.value, literal.line))
        else:
            _not_read(ctx, start, "sp_executesql with SQL built at run time")
        return None
    if procedure == "sp_dbcmptlevel":
        return None
    if procedure in _IGNORED:
        return None
    if procedure in _BOUND_RULES:
        ctx.findings.add("IN12", Severity.INFO, ".".join(name), f"{procedure} binds a legacy rule or default object;"
                         " the binding is not kept in the schema model", start, statement=start)
        return None
    called = ".".join(p for p in name if p)
    if ctx.findings.first_time("IN13", start.source.path, called.casefold()):
        ctx.findings.add(
            "IN13", Severity.INFO, called,
            f"EXEC {called}: the reader does not run procedures, so objects or rows it creates are not in the"
            " schema model (reported once per file)", start, statement=start,
        )
    return None


def _arguments(cur: Cursor) -> list[Argument]:
    args: list[Argument] = []
    while not cur.done and not cur.at_op(";"):
        tok = cur.peek()
        assert tok is not None
        if tok.kind == WORD and tok.value in _STOP and not continues_statement(cur.previous, tok):
            break
        name = None
        if tok.kind == VARIABLE and cur.peek(1) is not None and cur.peek(1).is_op("="):  # type: ignore[union-attr]
            name = tok.text.lower()
            cur.pos += 2
        value: list[Token] = []
        depth = 0
        while not cur.done:
            t = cur.peek()
            assert t is not None
            if t.kind == OP:
                if t.text == "(":
                    depth += 1
                elif t.text == ")":
                    depth -= 1
                elif depth == 0 and t.text in (",", ";"):
                    break
            elif depth == 0 and value and t.kind == WORD and t.value in _STOP:
                break
            elif depth == 0 and value and t.kind != OP and value[-1].kind != OP:
                if not t.is_word("OUTPUT", "OUT"):
                    break  # two values side by side: the next statement began without a keyword we know
            value.append(cur.next())
        if value and value[-1].is_word("OUTPUT", "OUT"):
            value.pop()
        args.append(Argument(name, value))
        if not cur.accept_op(","):
            break
    return args


def _bind(args: list[Argument], params: tuple[str, ...]) -> dict[str, Argument]:
    """Positional and `@name = value` arguments by parameter name."""
    bound: dict[str, Argument] = {}
    for i, arg in enumerate(args):
        key = arg.name if arg.name is not None else (params[i] if i < len(params) else f"#{i}")
        bound[key] = arg
    return bound


def _text(bound: dict[str, Argument], key: str) -> str | None:
    arg = bound.get(key)
    return arg.text() if arg is not None else None


def _extended_property(start: Token, bound: dict[str, Argument]) -> Action | None:
    name = (_text(bound, "@name") or "").lower()
    if name not in _DESCRIPTION_PROPERTIES:
        return None
    value = _text(bound, "@value")
    level0 = (_text(bound, "@level0type") or "").upper()
    level1 = (_text(bound, "@level1type") or "").upper()
    level2 = (_text(bound, "@level2type") or "").upper()
    schema, table = _text(bound, "@level0name"), _text(bound, "@level1name")
    if value is None or level0 not in ("SCHEMA", "USER") or level1 != "TABLE" or not schema or not table:
        return None  # descriptions of schemas, views, procedures, indexes... have no place in the model
    if level2 == "":
        return Description(start, (schema, table), None, value)
    if level2 == "COLUMN" and (column := _text(bound, "@level2name")):
        return Description(start, (schema, table), column, value)
    return None


def _addtype(ctx: Context, start: Token, bound: dict[str, Argument]) -> Action | None:
    type_name, physical = _text(bound, "@typename"), _text(bound, "@phystype")
    if not type_name or not physical:
        raise ParseError("sp_addtype needs a type name and a system type", start)
    problems: list[Problem] = []
    type_tokens = list(tokenize(Source(start.source.path, physical, start.line), problems, sqlcmd=False))
    base = parse_type(Cursor(type_tokens))
    null_type = (_text(bound, "@nulltype") or "NULL").upper()
    owner = _text(bound, "@owner") or "dbo"
    return CreateAliasType(start, (owner, type_name), base, nullable=null_type == "NULL")


def _dynamic(cur: Cursor, ctx: Context, start: Token, read_sql: ReadSql) -> None:
    """`EXEC ( 'sql' [+ 'sql' ...] )`: literal SQL is read; SQL built from variables is reported."""
    inner, close = cur.skip_parens()
    pieces = cur.tokens[inner:close]
    cur.skip_rest()  # AS USER = '...' / AT linked_server
    strings = [t for t in pieces if t.kind == STRING]
    if strings and all(t.kind == STRING or t.is_op("+") for t in pieces):
        first = strings[0]
        read_sql(Source(first.source.path, "".join(t.value for t in strings), first.line))
        return
    if strings and pieces[0].kind == STRING and (m := _CREATE_DATABASE.match(pieces[0].value)):
        # Northwind's install script: EXECUTE (N'CREATE DATABASE Northwind ON PRIMARY (... ' + @dir + N'...')
        name_tokens = list(tokenize(Source(start.source.path, m.group(1), pieces[0].line), [], sqlcmd=False))
        if name_tokens:
            ctx.add(DatabaseName(start, name_tokens[0].name, created=True))
            return
    _not_read(ctx, start, "EXEC of SQL built at run time")


def _not_read(ctx: Context, start: Token, what: str) -> None:
    ctx.findings.add("IN10", Severity.LOW, start.source.path,
                     f"{what}: the statement it runs is not known until then, so it is not read", start, statement=start)
