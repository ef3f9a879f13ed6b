"""One batch in, the schema statements in it out: dispatch on the first keyword, unwrap the wrappers.

Deployment scripts hide DDL inside `IF NOT EXISTS (...) CREATE ...`, `IF ... BEGIN ... END`,
`BEGIN TRY ... END TRY` and `EXEC('CREATE ...')`; all of these are opened and their statements
read as if they stood alone (every branch is read: the reader cannot evaluate conditions). DML,
variables, PRINT, SET options, DROP and permissions are recognised and skipped. Anything else is a
finding (IN01), and a schema statement whose shape is not understood is one too (IN02); reading
always goes on with the next statement.
"""

from __future__ import annotations

from ...model import Severity
from .actions import CreateModule, DatabaseName, InsertRows
from .batches import Batch
from .context import Context, is_temporary
from .cursor import SKIPPED_STATEMENTS, STATEMENT_STARTS, Cursor, ParseError, continues_statement
from .indexes import parse_alter_index, parse_create_index, parse_fulltext_index
from .modules import nested_modules, parse_aggregate, parse_module, unbalanced_block
from .objects import (
    parse_create_database,
    parse_create_schema,
    parse_create_sequence,
    parse_create_synonym,
    parse_create_type,
    parse_partition_function,
    parse_partition_scheme,
    parse_xml_schema_collection,
)
from .procs import parse_exec
from .tables import parse_alter_table, parse_create_table
from .tokens import OP, QUOTED, ROWS, WORD, Problem, RowsToken, Source, Token, tokenize

_MODULES = {"VIEW": "view", "PROC": "procedure", "PROCEDURE": "procedure", "FUNCTION": "function", "TRIGGER": "trigger"}
# CREATE statements for things the schema model has no place for, but that matter to a migration.
_NOT_MODELLED = {
    "SECURITY": "row-level security policy", "ASSEMBLY": "CLR assembly", "RULE": "legacy rule object",
    "DEFAULT": "legacy default object", "QUEUE": "Service Broker queue", "SERVICE": "Service Broker service",
    "EVENT": "event notification", "EXTERNAL": "external (PolyBase) object",
    "ROUTE": "Service Broker route", "CONTRACT": "Service Broker contract", "MESSAGE": "Service Broker message type",
    "REMOTE": "Service Broker binding",
}
# CREATE statements about security, storage or server settings: nothing for the schema model.
_NOT_SCHEMA = frozenset({
    "USER", "LOGIN", "ROLE", "APPLICATION", "CERTIFICATE", "MASTER", "SYMMETRIC", "ASYMMETRIC", "CREDENTIAL",
    "STATISTICS", "SERVER", "ENDPOINT", "WORKLOAD", "RESOURCE", "BROKER", "SEARCH", "CRYPTOGRAPHIC",
    "AVAILABILITY", "COLUMN", "SELECTIVE", "DATABASE_AUDIT", "FEDERATION",
})


class StatementReader:
    """Reads batches into `ctx.actions`, reporting what it cannot read into `ctx.findings`."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self._repeat = 1
        self._truncated = False

    def read_batch(self, batch: Batch) -> None:
        self._repeat = batch.repeat
        self._truncated = batch.truncated
        cur = Cursor(batch.tokens)
        while not cur.done:
            self.statement(cur)

    def statement(self, cur: Cursor) -> None:
        start = cur.peek()
        assert start is not None
        begin = cur.pos
        try:
            self._dispatch(cur, start, begin)
        except (ParseError, ValueError, IndexError, KeyError, AttributeError, TypeError) as exc:
            # Anything but a ParseError is a gap in the reader itself; the contract still holds:
            # one statement the reader cannot read never costs the others.
            if not isinstance(exc, ParseError):
                exc = ParseError(f"the reader failed on it ({type(exc).__name__}: {exc})", start)
            self._unreadable(start, exc, cur)
            if start.is_word("CREATE", "ALTER") and self._is_module(cur, begin):
                cur.skip_to_end()
            else:
                cur.pos = begin
                cur.skip_statement()
        if cur.pos == begin:  # never loop on a token no handler consumed
            cur.pos += 1

    # -- dispatch ------------------------------------------------------------------------------
    def _dispatch(self, cur: Cursor, start: Token, begin: int) -> None:
        if start.kind == OP and start.text == ";":
            cur.next()
            return
        if isinstance(start, RowsToken):  # INSERT ... VALUES statements the script stream passed over (stream.py)
            cur.next()
            last = self.ctx.actions[-1] if self.ctx.actions else None
            if (isinstance(last, InsertRows) and isinstance(last.token, RowsToken) and last.target == start.target
                    and self.ctx.defines(start.target)):  # only counted: one action for a table's rows, batch after batch
                last.rows = (last.rows or 0) + start.rows * self._repeat + start.sealed
            else:
                self.ctx.add(InsertRows(start, start.target, start.rows * self._repeat + start.sealed))
            return
        if start.kind != WORD:
            self._unknown(cur, start)
            return
        word = start.value
        nxt = cur.peek(1)
        if nxt is not None and nxt.is_op(":") and nxt.start == start.end:  # a GOTO label
            cur.pos += 2
            return
        cur.next()
        if word == "CREATE":
            self._create(cur, start, begin)
        elif word == "ALTER":
            self._alter(cur, start, begin)
        elif word in ("IF", "WHILE"):
            self._condition(cur)
            if not cur.done:
                self.statement(cur)
            if word == "IF" and cur.accept("ELSE") and not cur.done:
                self.statement(cur)
        elif word == "BEGIN":
            self._begin(cur, start)
        elif word in ("EXEC", "EXECUTE"):
            if cur.at("AS"):  # EXECUTE AS USER = '...': a change of security context
                cur.skip_rest()
            else:
                self.ctx.add(parse_exec(cur, self.ctx, start, self.read_sql))
        elif word == "INSERT":
            self._insert(cur, start)
        elif word == "BULK":
            cur.expect("INSERT")
            target = cur.qualified_name()
            cur.skip_rest()
            if not is_temporary(target):
                self.ctx.add(InsertRows(start, target, None, how="BULK INSERT"))
        elif word == "USE":
            self.ctx.add(DatabaseName(start, cur.identifier()))
            cur.accept_op(";")
        elif word == "WITH":  # a common table expression: the statement that uses it comes next
            cur.skip_rest()
        elif word == "UPDATE":  # its SET is not the start of a SET statement
            while not cur.done and not cur.at("SET") and not cur.at_op(";"):
                cur.next()
            if not cur.done:
                cur.skip_statement()
        elif word == "MERGE":
            while not cur.done and not cur.accept_op(";"):  # MERGE must end with ';'
                cur.next()
        elif word in SKIPPED_STATEMENTS:
            cur.pos = begin
            cur.skip_statement()
        else:
            cur.pos = begin
            self._unknown(cur, start)

    def _create(self, cur: Cursor, start: Token, begin: int) -> None:
        created_with = "create_or_alter" if cur.accept_sequence("OR", "ALTER") else "create"
        tok = cur.peek()
        if tok is None:
            raise ParseError("CREATE what?", start)
        word = tok.value if tok.kind == WORD else ""
        if word in _MODULES:
            cur.next()
            self._module(parse_module(cur, self.ctx, start, begin, _MODULES[word], created_with), cur, begin)  # type: ignore[arg-type]
            return
        if created_with != "create":
            raise ParseError(f"CREATE OR ALTER {tok.text} is not a statement SQL Server has", tok)
        if word == "TABLE":
            cur.next()
            self.ctx.add(parse_create_table(cur, self.ctx, start))
        elif word in ("UNIQUE", "CLUSTERED", "NONCLUSTERED", "INDEX", "COLUMNSTORE", "SPATIAL", "PRIMARY") or (
            word == "XML" and cur.peek(1) is not None and cur.peek(1).is_word("INDEX")  # type: ignore[union-attr]
        ):
            self.ctx.add(parse_create_index(cur, self.ctx, start))
        elif word == "XML" and cur.accept_sequence("XML", "SCHEMA", "COLLECTION"):
            self.ctx.add(parse_xml_schema_collection(cur, self.ctx, start))
        elif word == "FULLTEXT" and cur.accept_sequence("FULLTEXT", "INDEX"):
            self.ctx.add(parse_fulltext_index(cur, self.ctx, start))
        elif word == "TYPE":
            cur.next()
            self.ctx.add(parse_create_type(cur, self.ctx, start))
        elif word == "SEQUENCE":
            cur.next()
            self.ctx.add(parse_create_sequence(cur, self.ctx, start))
        elif word == "SCHEMA":
            cur.next()
            self.ctx.add(parse_create_schema(cur, self.ctx, start))
        elif word == "SYNONYM":
            cur.next()
            self.ctx.add(parse_create_synonym(cur, self.ctx, start))
        elif word == "AGGREGATE":
            cur.next()
            self.ctx.add(parse_aggregate(cur, self.ctx, start, begin))
        elif cur.accept_sequence("PARTITION", "FUNCTION"):
            self.ctx.add(parse_partition_function(cur, self.ctx, start))
        elif cur.accept_sequence("PARTITION", "SCHEME"):
            self.ctx.add(parse_partition_scheme(cur, self.ctx, start))
        elif word == "DATABASE" and not (cur.peek(1) is not None and cur.peek(1).is_word(  # type: ignore[union-attr]
                "AUDIT", "SCOPED", "ENCRYPTION")):
            cur.next()
            self.ctx.add(parse_create_database(cur, self.ctx, start))
        elif word in _NOT_MODELLED:
            self.ctx.findings.add("IN12", Severity.INFO, start.source.path,
                                  f"{_NOT_MODELLED[word]}: not carried into the schema model; review it by hand",
                                  start, statement=start)
            if word in ("RULE", "DEFAULT"):  # like modules, these are alone in their batch
                cur.skip_to_end()
            else:
                cur.skip_rest()
        elif word in _NOT_SCHEMA or word in ("FULLTEXT", "DATABASE"):
            cur.skip_rest()
        else:
            cur.pos = begin
            self._unknown(cur, start)

    def _alter(self, cur: Cursor, start: Token, begin: int) -> None:
        tok = cur.peek()
        word = tok.value if tok is not None and tok.kind == WORD else ""
        if word == "TABLE":
            cur.next()
            self.ctx.add(parse_alter_table(cur, self.ctx, start))
        elif word == "INDEX":
            cur.next()
            self.ctx.add(parse_alter_index(cur, self.ctx, start))
        elif word in _MODULES:
            cur.next()
            self._module(parse_module(cur, self.ctx, start, begin, _MODULES[word], "alter"), cur, begin)  # type: ignore[arg-type]
        elif word == "DATABASE":
            cur.next()
            cur.next()  # the name or CURRENT
            cur.accept("SET")  # ALTER DATABASE x SET options: the options are part of this statement
            cur.skip_rest()
        else:  # ALTER SCHEMA ... TRANSFER, ALTER ROLE, ALTER AUTHORIZATION, ALTER SEQUENCE ... RESTART, ...
            cur.skip_rest()

    def _module(self, action: CreateModule, cur: Cursor, begin: int) -> None:
        """Keep the module as written; a BEGIN/END that does not pair up is a finding at its line."""
        self.ctx.add(action)
        module = action.module
        what = f"{module.kind.replace('_', ' ')} {module.qualified_name}"
        for inner, words in nested_modules(cur.tokens, begin, cur.end):
            self.ctx.findings.add("IN02", Severity.HIGH, module.qualified_name,
                                  f"{what}: {words} at line {inner.line} is inside its text (a module must be alone "
                                  f"in its batch: is a GO missing before line {inner.line}?), so the module it defines "
                                  "is not read; the text is kept as written", inner, statement=inner)
        found = None if self._truncated else unbalanced_block(cur.tokens, begin, cur.end)
        if found is None:
            return
        tok, extra_end = found
        if extra_end is None:
            self.ctx.findings.add("IN03", Severity.HIGH, module.qualified_name,
                                  f"{what}: {tok.value} at line {tok.line} has no END before the end of the module, "
                                  "so its text was probably cut off; it is kept as written", tok, statement=tok)
        else:
            self.ctx.findings.add("IN02", Severity.HIGH, module.qualified_name,
                                  f"{what}: END at line {tok.line} closes no BEGIN or CASE, so SQL Server would "
                                  "reject the module; it is kept as written", tok, statement=tok)

    def _condition(self, cur: Cursor) -> None:
        """Skip the condition of IF/WHILE, up to the statement it controls."""
        depth = 0
        cases = 0
        while not cur.done:
            tok = cur.peek()
            assert tok is not None
            if tok.kind == OP:
                depth += 1 if tok.text == "(" else -1 if tok.text == ")" else 0
            elif tok.kind == ROWS:
                return
            elif depth == 0 and tok.kind == WORD:
                if tok.value == "CASE":
                    cases += 1
                elif tok.value == "END" and cases:
                    cases -= 1
                elif tok.value in STATEMENT_STARTS and not continues_statement(cur.previous, tok):
                    return
            cur.next()

    def _begin(self, cur: Cursor, start: Token) -> None:
        if cur.at("TRAN", "TRANSACTION", "DISTRIBUTED", "DIALOG", "CONVERSATION"):
            cur.skip_rest()
            return
        cur.accept("TRY", "CATCH")
        while not cur.done:
            if cur.accept("END"):
                cur.accept("TRY", "CATCH")
                cur.accept_op(";")
                return
            self.statement(cur)
        if not self._truncated:
            self.ctx.findings.add("IN03", Severity.HIGH, start.source.path,
                                  f"BEGIN at line {start.line} has no END before the end of the batch",
                                  start, statement=start)

    def _insert(self, cur: Cursor, start: Token) -> None:
        if cur.accept("TOP"):
            cur.skip_parens()
            cur.accept("PERCENT")
        cur.accept("INTO")
        if cur.peek() is None or cur.peek().kind not in (WORD, QUOTED):  # type: ignore[union-attr]
            cur.skip_rest()  # INSERT @table_variable ... or OPENQUERY(...)
            return
        target = cur.qualified_name()
        if cur.at("WITH"):
            cur.next()
            cur.skip_parens()
        if cur.at_op("("):
            cur.skip_parens()
        if cur.accept("OUTPUT"):
            while not cur.done and not cur.at("VALUES", "SELECT", "EXEC", "EXECUTE", "DEFAULT"):
                cur.next()
        rows: int | None
        how = "VALUES"
        if cur.accept("VALUES"):
            rows = 0
            while cur.at_op("("):
                cur.skip_parens()
                rows += 1
                if not cur.accept_op(","):
                    break
            cur.accept_op(";")
        elif cur.accept_sequence("DEFAULT", "VALUES"):
            rows = 1
            cur.accept_op(";")
        else:
            rows = None
            how = f"INSERT ... {cur.peek().text.upper() if cur.peek() else ''}".strip()
            if cur.at("SELECT", "EXEC", "EXECUTE", "WITH"):
                cur.skip_statement()
            else:
                cur.skip_rest()
        if not is_temporary(target):
            self.ctx.add(InsertRows(start, target, None if rows is None else rows * self._repeat, how))

    # -- dynamic SQL ---------------------------------------------------------------------------
    def read_sql(self, source: Source) -> None:
        """Read SQL found in an EXEC string as one batch of its own."""
        problems: list[Problem] = []
        tokens = list(tokenize(source, problems, sqlcmd=False))
        if problems:
            self.ctx.findings.add("IN02", Severity.MEDIUM, source.path,
                                  f"dynamic SQL could not be read: {problems[0].message}", (source, problems[0].offset))
            return
        repeat = self._repeat
        cur = Cursor(tokens)
        while not cur.done:
            self.statement(cur)
        self._repeat = repeat

    # -- problems ------------------------------------------------------------------------------
    def _is_module(self, cur: Cursor, begin: int) -> bool:
        words = [t.value for t in cur.tokens[begin + 1 : begin + 4] if t.kind == WORD]
        return any(w in _MODULES for w in words[:3])

    def _unknown(self, cur: Cursor, start: Token) -> None:
        self.ctx.findings.add("IN01", Severity.MEDIUM, start.source.path,
                              "statement not understood by the script reader; it is skipped", start, statement=start)
        cur.skip_statement()

    def _unreadable(self, start: Token, exc: ParseError, cur: Cursor) -> None:
        if self._truncated and (exc.token is None or exc.token is cur.tokens[-1]):
            return  # the truncation itself was reported (IN03)
        where = exc.token.line if exc.token is not None else start.line
        self.ctx.findings.add("IN02", Severity.HIGH, start.source.path,
                              f"could not read this statement ({exc} at line {where}); the object is missing or"
                              " incomplete in the schema model", start, statement=start)
