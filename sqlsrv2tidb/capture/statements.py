"""Splits a T-SQL batch into statements, and turns its literal-valued variables into parameters.

T-SQL does not need semicolons: `SELECT 1 SELECT 2` is two statements, `INSERT ... SELECT` is
one, and `IF ... ELSE ...` or `BEGIN ... END` is one block. The splitter finds where each
statement ends from its keywords, with the cases that continue a statement spelled out
(`UNION SELECT`, `UPDATE ... SET`, `MERGE ... THEN DELETE`, `ON DELETE CASCADE`, `CURSOR FOR
SELECT`, `OFFSET ... FETCH`, `DROP TABLE IF EXISTS`). A module's CREATE runs to the end of its
batch, as SQL Server requires. (https://learn.microsoft.com/sql/t-sql/language-elements/transact-sql-syntax-conventions-transact-sql)

`DECLARE @id int = 5` and `SET @id = 6` with literals are bindings, not workload statements: the
statements after them that use `@id` get it as a declared parameter with its value, so a batch
typed by hand reads like a parameterised call. Batches from `.sql` files and Extended Events
(`sql_batch_completed`, and the statement inside `sp_executesql`) all go through here.

A statement that uses what an earlier statement of its batch made, and that no parameter stands
for (a temp table `#t` it does not create itself, a table variable, a variable set by a query),
keeps its batch through its own end (`Piece.batch`), so that it can be run after them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model.workload import Parameter, Scalar
from ..tsql.literals import NotALiteral, Token, literal_value, tokens, tsql_literal, typed_value
from ..tsql.parameterize import slot_value, value_slots
from .executions import Piece, TextCache

_LITERAL_KINDS = ("str", "num", "bin")


class SplitError(ValueError):
    """A batch whose text cannot be tokenized (an unterminated string or bracket)."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


# Words that begin a statement; a statement without `;` ends where one of these starts, unless
# the word continues the current statement (INSERT ... SELECT, UPDATE ... SET, MERGE ... THEN DELETE).
_STARTERS = {
    "SELECT", "INSERT", "UPDATE", "DELETE", "MERGE", "DECLARE", "SET", "EXEC", "EXECUTE", "CREATE", "ALTER",
    "DROP", "TRUNCATE", "IF", "WHILE", "BEGIN", "COMMIT", "ROLLBACK", "SAVE", "PRINT", "RETURN", "USE", "GRANT",
    "REVOKE", "DENY", "RAISERROR", "THROW", "BREAK", "CONTINUE", "GOTO", "WAITFOR", "OPEN", "CLOSE", "FETCH",
    "DEALLOCATE", "BULK", "DBCC", "BACKUP", "RESTORE", "CHECKPOINT", "KILL", "RECONFIGURE", "SHUTDOWN",
}
_OBJECT_TYPES = {
    "TABLE", "VIEW", "PROC", "PROCEDURE", "FUNCTION", "TRIGGER", "INDEX", "SCHEMA", "SEQUENCE", "TYPE", "DATABASE",
    "USER", "LOGIN", "ROLE", "SYNONYM", "STATISTICS", "COLUMN", "CONSTRAINT", "ASSEMBLY", "DEFAULT", "RULE",
}
BODY_OBJECTS = frozenset({"PROC", "PROCEDURE", "FUNCTION", "TRIGGER", "VIEW"})
"""What CREATE/ALTER makes a module of: its body runs to the end of the batch."""
NOT_BLOCKS = frozenset({"TRAN", "TRANSACTION", "DISTRIBUTED", "DIALOG", "CONVERSATION"})
"""Words after BEGIN (or END) that make a statement, not a BEGIN ... END block."""
_DML = {"SELECT", "INSERT", "UPDATE", "DELETE", "MERGE"}


def _word(toks: list[Token], i: int) -> str:
    return toks[i].upper if 0 <= i < len(toks) and toks[i].kind == "word" else ""


def split_tokens(toks: list[Token]) -> list[tuple[int, int]]:
    """Statement boundaries as (first, past-last) token indexes; `;` tokens belong to no statement."""
    out = []
    i = 0
    while i < len(toks):
        if toks[i].text == ";":
            i += 1
            continue
        j = max(_statement(toks, i), i + 1)
        out.append((i, j))
        i = j
    return out


def _statement(toks: list[Token], i: int) -> int:
    w = _word(toks, i)
    n = len(toks)
    if w in ("IF", "WHILE"):
        j = _condition(toks, i + 1)
        j = _statement(toks, j) if j < n else j
        if w == "IF":
            k = j + 1 if j < n and toks[j].text == ";" else j
            if _word(toks, k) == "ELSE":
                j = _statement(toks, k + 1) if k + 1 < n else k + 1
        return j
    if w == "BEGIN" and _word(toks, i + 1) not in NOT_BLOCKS:
        j = i + 2 if _word(toks, i + 1) in ("TRY", "CATCH") else i + 1
        while j < n and _word(toks, j) != "END":
            j = j + 1 if toks[j].text == ";" else max(_statement(toks, j), j + 1)
        j += 1
        return j + 1 if _word(toks, j) in ("TRY", "CATCH") else j
    if w in ("CREATE", "ALTER"):
        k = i + 1
        if _word(toks, k) == "OR":  # CREATE OR ALTER
            k += 2
        if _word(toks, k) in BODY_OBJECTS:
            return n  # a module's body runs to the end of its batch, as SQL Server requires
    return _simple(toks, i)


def _condition(toks: list[Token], i: int) -> int:
    depth = 0
    while i < len(toks):
        text = toks[i].text
        if text == "(":
            depth += 1
        elif text == ")":
            depth -= 1
        elif depth == 0 and _word(toks, i) in _STARTERS:
            return i
        i += 1
    return i


def _simple(toks: list[Token], i: int) -> int:
    head = _word(toks, i)
    depth = cases = 0
    seen: set[str] = set()
    j = i + 1
    while j < len(toks):
        tok = toks[j]
        if tok.text == "(":
            depth += 1
        elif tok.text == ")":
            depth -= 1
            if depth < 0:
                return j
        elif depth == 0:
            if tok.text == ";":
                return j
            w = _word(toks, j)
            if w == "CASE":
                cases += 1
            elif w == "END":
                if not cases:
                    return j
                cases -= 1
            elif w == "ELSE" and not cases:
                return j
            elif w in _STARTERS and not _continues(head, w, toks, j, seen):
                return j
            if w:
                seen.add(w)
                if head == "WITH" and w in _DML:
                    head = w  # the statement a CTE feeds decides what follows
                    seen = {w}
        j += 1
    return j


def _continues(head: str, w: str, toks: list[Token], j: int, seen: set[str]) -> bool:
    """Whether the statement word `w` at `j` belongs to the statement that began with `head`."""
    prev, nxt = _word(toks, j - 1), _word(toks, j + 1)
    if prev in ("THEN", "FOR", "ON", "BULK") or (w == "SELECT" and prev in ("UNION", "ALL", "EXCEPT", "INTERSECT")):
        return True  # MERGE ... THEN DELETE, CURSOR FOR SELECT, ON DELETE CASCADE, UNION ALL SELECT
    if w == "IF" and prev in _OBJECT_TYPES:
        return True  # DROP TABLE IF EXISTS
    if w == "FETCH" and prev in ("ROW", "ROWS"):
        return True  # OFFSET ... ROWS FETCH NEXT
    if w == "SET" and (prev in ("UPDATE", "DELETE") or head == "ALTER" or (head == "UPDATE" and "SET" not in seen)):
        return True
    if head == "WITH" and w in _DML:
        return True
    if head == "INSERT" and w in ("SELECT", "EXEC", "EXECUTE") and not seen & {"SELECT", "VALUES", "EXEC", "EXECUTE"}:
        return True
    if head == "ALTER" and w in ("ALTER", "DROP") and nxt not in _OBJECT_TYPES - {"COLUMN", "CONSTRAINT", "INDEX"}:
        return True  # ALTER TABLE t ALTER COLUMN / DROP CONSTRAINT
    if head in ("GRANT", "REVOKE", "DENY") and not seen & {"TO", "FROM"}:
        return True
    return False


def incomplete(text: str) -> str | None:
    """Why a statement stops short of being one, or None: `IF cond` with nothing to run, a BEGIN
    without END, `CREATE TABLE` without a name. (The T-SQL parser accepts some of these shapes.)"""
    toks = tokens(text)
    head = _word(toks, 0)
    if head in ("IF", "WHILE") and _condition(toks, 1) >= len(toks):
        return f"{head} has no statement after its condition"
    if head in ("CREATE", "ALTER", "DROP") and len(toks) <= 2:
        return f"{' '.join(t.upper for t in toks)} names no object"
    blocks = 0
    for i in range(len(toks)):
        word = _word(toks, i)
        if word in ("BEGIN", "CASE") and not (word == "BEGIN" and _word(toks, i + 1) in NOT_BLOCKS):
            blocks += 1
        elif word == "END" and _word(toks, i + 1) != "CONVERSATION":
            blocks -= 1
    if blocks > 0:
        return "a BEGIN (or CASE) has no END"
    return None


_SPLIT_CACHE: TextCache[list[tuple[int, int]]] = TextCache(5_000_000)


def shape_key(toks: list[Token]) -> str:
    """The statement with every literal as `?`: equal keys split and fingerprint the same way."""
    return " ".join("?" if t.kind in _LITERAL_KINDS else t.text for t in toks)


def split_batch(
    text: str, parameters: tuple[Parameter, ...] = (), values: tuple[Scalar, ...] | None = (),
    enclosing: str | None = None,
) -> list[Piece]:
    """The statements of one batch, with the parameters (inherited or DECLAREd) each one uses.

    `parameters`/`values` come from a wrapper (`sp_executesql`); each statement keeps those it
    references. `DECLARE @x int = 5` and `SET @x = 6` with literals are bindings, not statements.
    A statement that uses what its batch made before it keeps the batch through its own end; when
    `text` is one statement of a larger batch (`enclosing`, an Extended Events statement's
    `sql_text`), that batch is the one kept. Raises SplitError for text that cannot be tokenized.
    """
    parts = _ANALYSED.get(text)
    if parts is None:
        parts = _analyse(text)
        _ANALYSED.put(text, parts, sum(len(p.text) + len(p.key) for p in parts))
    inherited = {p.name.casefold(): (p, None if values is None else values[i]) for i, p in enumerate(parameters)}
    pieces = []
    for part in parts:
        params: list[Parameter] = []
        vals: list[Scalar] = []
        known = values is not None
        leans = part.temps
        for name, param, value, has_value in part.refs:
            if param is not None:
                known = known and has_value
            elif name in inherited:
                param, value = inherited[name]
            else:
                leans = True  # a table variable, a cursor, a variable no DECLARE with a type gave
                continue
            params.append(param)
            vals.append(value)
        literals = () if params else part.literals
        pieces.append(Piece(part.text, part.key, part.line, tuple(params), tuple(vals) if known else None, literals,
                            _batch_through(text, part, enclosing, parameters, values) if leans else None))
    return pieces


def _batch_through(text: str, part: _Part, enclosing: str | None, parameters: tuple[Parameter, ...],
                   values: tuple[Scalar, ...] | None) -> str | None:
    """The batch from its start through the end of `part` (in `enclosing` when `text` is part of it); None
    when no statement comes before it. A wrapper's parameters (`sp_executesql`) are declared in front with
    this execution's values, as the wrapper binds them, so the batch reads as one execution ran it."""
    if enclosing is not None:
        at = enclosing.find(text)
        return enclosing[:at + part.end] if at >= 0 and enclosing[:at + part.start].strip() else None
    if not text[:part.start].strip():
        return None
    if not parameters:
        return text[:part.end]
    declared = ", ".join(f"{p.name} {p.type or 'sql_variant'}" + (
        f" = {tsql_literal(values[i], p.type)}" if values is not None and i < len(values) else "")
        for i, p in enumerate(parameters))
    return f"DECLARE {declared};\n{text[:part.end]}"


@dataclass(frozen=True)
class _Part:
    """A statement of a batch, and each variable it uses: (name, DECLAREd parameter or None, value, known)."""

    text: str
    key: str
    line: int
    refs: tuple[tuple[str, Parameter | None, Scalar, bool], ...]
    literals: tuple[Scalar, ...] = ()
    """The values of its literals in value positions (`tsql.parameterize`), in text order."""
    start: int = 0
    end: int = 0
    """Where the statement starts and ends in its batch's text."""
    temps: bool = False
    """It uses a temp table (`#t`) it does not create itself."""


# Drivers send the same statement text again and again with new values; analysing it once is
# what keeps a capture of many executions of few statements fast.
_ANALYSED: TextCache[list[_Part]] = TextCache()


def _analyse(text: str) -> list[_Part]:
    toks = tokens(text)
    for tok in toks:
        if tok.kind == "punct" and tok.text in ("'", "["):
            kind = "string" if tok.text == "'" else "bracketed name"
            raise SplitError(f"unterminated {kind}", tok.start)
    key = shape_key(toks)
    spans = _SPLIT_CACHE.get(key)
    if spans is None:
        spans = split_tokens(toks)
        _SPLIT_CACHE.put(key, spans, 8 * len(spans))
    bound: dict[str, tuple[Parameter, Scalar, bool]] = {}
    parts = []
    for first, last in spans:
        part = toks[first:last]
        if _bind_variables(part, text, bound):
            continue
        refs: dict[str, tuple[str, Parameter | None, Scalar, bool]] = {}
        for tok in part:
            if tok.kind != "var" or tok.text.startswith("@@"):
                continue
            name = tok.text.casefold()
            if name not in refs:
                refs[name] = (name, *bound[name]) if name in bound else (name, None, None, True)
        start, end = part[0].start, part[-1].start + len(part[-1].text)
        key = shape_key(part)
        slots = _SLOTS.get(key)
        if slots is None:
            slots = value_slots(part)
            _SLOTS.put(key, slots, 8 * len(slots))
        try:
            literals = tuple(slot_value(part, s) for s in slots)
        except NotALiteral:  # `- 'x'`: the shape's number slot holds no number in this execution
            literals = ()
        parts.append(_Part(text[start:end], key, text.count("\n", 0, start) + 1, tuple(refs.values()), literals, start,
                           end, bool(temp_tables_used(part))))
        for name in _assigned(part):  # set by a query now: what the DECLARE gave no longer holds
            if name in bound:
                bound[name] = (bound[name][0], None, False)
    return parts


def _assigned(toks: list[Token]) -> set[str]:
    """Variables a statement sets from what it reads: `SELECT @x = col, @y = ...`, `FETCH ... INTO @x`,
    `EXEC @rc = p`."""
    head = _word(toks, 0)
    found, depth = set(), 0
    for i, tok in enumerate(toks):
        depth += (tok.text == "(") - (tok.text == ")")
        if tok.kind != "var" or depth:
            continue
        before = toks[i - 1].text.upper() if i else ""
        after = toks[i + 1].text if i + 1 < len(toks) else ""
        if (head == "SELECT" and after == "=" and before in ("SELECT", "DISTINCT", ",")) or (
                head in ("EXEC", "EXECUTE") and after == "=" and i == 1) or (head == "FETCH" and before in ("INTO", ",")):
            found.add(tok.text.casefold())
    return found


_TABLE_BEFORE = {"FROM", "JOIN", "INTO", "UPDATE", "TABLE", "EXISTS", "ON", "MERGE", "USING", "APPLY"}
"""Words after which a name is a table's (a `#name` elsewhere is a column alias: `COUNT(*) AS [# answers]`)."""
_TEMP_NAME = re.compile(r"#[\w#$@]+")


def temp_table_name(tok: Token) -> str | None:
    """The temp table a token names (`#t`, `[#t]`), case-folded, or None."""
    name = tok.text[1:-1] if tok.kind == "ident" and tok.text.startswith("[") else tok.text if tok.kind == "word" else ""
    return name.casefold() if _TEMP_NAME.fullmatch(name) else None


def temp_tables(toks: list[Token]) -> tuple[set[str], set[str]]:
    """(the temp tables a statement uses, those it creates: `SELECT ... INTO #t`, `CREATE TABLE #t`)."""
    used, made = set(), set()
    head = _word(toks, 0)
    for i, tok in enumerate(toks):
        name = temp_table_name(tok)
        before = _word(toks, i - 1) or (toks[i - 1].text if i else "")
        if name is None or not (before in _TABLE_BEFORE or (before == "," and tok.kind == "word")):
            continue
        if (before == "INTO" and head in ("SELECT", "WITH")) or (before == "TABLE" and _word(toks, i - 2) == "CREATE"):
            made.add(name)
        else:
            used.add(name)
    return used, made


def temp_tables_used(toks: list[Token]) -> set[str]:
    """The temp tables a statement uses but does not create itself."""
    used, made = temp_tables(toks)
    return used - made


_SLOTS: TextCache[tuple[int, ...]] = TextCache(5_000_000)
"""Where a statement shape holds its values: the same for every execution of the shape."""


def _bind_variables(part: list[Token], text: str, bound: dict[str, tuple[Parameter, Scalar, bool]]) -> bool:
    """Record `DECLARE @x type [= literal], ...` and `SET @x = literal`; True if that is all the statement does."""
    head = part[0].upper if part[0].kind == "word" else ""
    if head == "SET" and len(part) >= 4 and part[1].kind == "var" and part[2].text == "=":
        name = part[1].text.casefold()
        param = bound[name][0] if name in bound else Parameter(part[1].text, "sql_variant")
        try:
            value = literal_value(list(part[3:]))
        except NotALiteral:
            bound[name] = (param, None, False)
            return False
        bound[name] = (param, typed_value(value, param.type), True)
        return True
    if head != "DECLARE":
        return False
    pure = True
    for item in _top_level_items(part[1:]):
        if not item or item[0].kind != "var":
            return False  # DECLARE c CURSOR FOR ...
        eq = next((k for k, t in enumerate(item) if t.text == "="), len(item))
        type_toks = item[1:eq]
        if type_toks and type_toks[0].upper == "AS":
            type_toks = type_toks[1:]
        if not type_toks or type_toks[0].upper in ("TABLE", "CURSOR"):
            pure = False
            continue
        type_text = " ".join(text[type_toks[0].start:type_toks[-1].start + len(type_toks[-1].text)].split()).lower()
        param = Parameter(item[0].text, type_text)
        if eq == len(item):
            bound[item[0].text.casefold()] = (param, None, True)  # declared, still NULL
            continue
        try:
            value = typed_value(literal_value(list(item[eq + 1:])), type_text)
            bound[item[0].text.casefold()] = (param, value, True)
        except NotALiteral:
            bound[item[0].text.casefold()] = (param, None, False)
            pure = False
    return pure


def _top_level_items(toks: list[Token]) -> list[list[Token]]:
    items: list[list[Token]] = [[]]
    depth = 0
    for tok in toks:
        if tok.text == "(":
            depth += 1
        elif tok.text == ")":
            depth -= 1
        if tok.text == "," and depth == 0:
            items.append([])
        else:
            items[-1].append(tok)
    return items
