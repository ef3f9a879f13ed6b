"""A read statement that leans on its batch: what it needs of it, and the batch it is run with.

A capture gives statements one by one (Query Store and statement events by nature, a workload file's
or batch event's batches split into statements), so a statement that ran after others of its batch
comes alone: `SELECT ... FROM #recent` after `SELECT ... INTO #recent`, `SELECT ... FROM @t` after
`DECLARE @t TABLE ...`. Alone it fails on both servers for want of what its batch made; `needs` says
what that is ("needs @t declared in its batch", "reads #recent created in its batch").

When the capture holds the batch (`QueryClass.batch`), the statement is run after the statements
before it that make things for the session alone, and its answer is compared (`batch_run`): DECLARE
and SET, `SELECT ... INTO #t` and `SELECT @x = ...`, CREATE, ALTER, DROP and TRUNCATE of a temp table
and its indexes, INSERT, UPDATE, DELETE and MERGE into a temp table or a table variable, and `IF
OBJECT_ID('tempdb..#t') IS NOT NULL DROP TABLE #t`. A statement before it that only returns rows is
left out (its answer is not this class's); anything else before it (a write to a real table, a
procedure call, control flow) keeps the class out, saying which. A class whose own text is such a
batch (DECLARE, SET, then its query) is run the same way.

On the target the batch's translation runs statement by statement on one session; what comes before
the query may only set variables and create and write temporary tables (`unsafe_setup`), which are
dropped before the batch runs and after its answer is read. Nothing else is written on either side;
on SQL Server the batch runs in the transaction every class runs in, rolled back after it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..capture.statements import split_tokens, temp_table_name, temp_tables, temp_tables_used
from ..model import Parameter
from ..tsql.literals import Token, tokens

_DROP_IF_EXISTS = re.compile(
    r"IF\s+OBJECT_ID\s*\(\s*N?'tempdb\.\.(#[\w#$]+)'\s*(?:,\s*N?'U'\s*)?\)\s+IS\s+NOT\s+NULL\s+"
    r"(?:BEGIN\s+)?DROP\s+TABLE\s+(#[\w#$]+)\s*;?\s*(?:END\s*)?;?", re.I)
_WRITES = ("INSERT", "UPDATE", "DELETE", "MERGE", "TRUNCATE")


@dataclass(frozen=True)
class BatchRun:
    """What runs for a class that leans on its batch: the statements kept, then the class's own."""

    tsql: str
    """The statements kept and the class's statement, each ended by `;`."""
    setup: int
    """How many statements run before the class's own."""
    left: int
    """Statements of the batch left out because they only return rows."""

    def describe(self, target_statements: int = 1) -> str:
        """How the class ran, in words; `target_statements`: how many statements its translation runs."""
        if not self.setup and not self.left:
            return f"its translation runs {target_statements - 1} statement(s) before its query on the target"
        text = f"run after {self.setup} statement(s) of its batch"
        return text + (f" ({self.left} that only return rows left out)" if self.left else "")


def _local(tok: Token | None) -> bool:
    """A temp table (`#t`, `[#t]`) or a table variable (`@t`): private to the session or the batch."""
    return tok is not None and (temp_table_name(tok) is not None or tok.kind == "var")


def _after(toks: Sequence[Token], *words: str) -> Token | None:
    """The token after the first of `words` (as words) in `toks`, skipping INTO/FROM/TABLE."""
    for i, tok in enumerate(toks):
        if tok.kind == "word" and tok.upper in words:
            j = i + 1
            while j < len(toks) and toks[j].kind == "word" and toks[j].upper in ("INTO", "FROM", "TABLE", "TOP"):
                j += 1
            return toks[j] if j < len(toks) else None
    return None


def setup_kind(toks: Sequence[Token]) -> str:
    """`setup` (it makes only what the session keeps to itself), `rows` (it only returns rows), or the
    statement's leading keyword(s) when it does something else (a write to a real table, a call, control
    flow)."""
    if not toks:
        return "setup"
    head = toks[0].upper if toks[0].kind == "word" else toks[0].text
    second = toks[1].upper if len(toks) > 1 and toks[1].kind == "word" else ""
    words = f"{head} {second}" if head in ("CREATE", "ALTER", "DROP") and second else head
    text = " ".join(t.text for t in toks)
    if any(t.kind == "word" and t.upper in ("EXEC", "EXECUTE") for t in toks):
        return "EXEC" if head in ("EXEC", "EXECUTE") else f"{head} ... EXEC"
    if head == "DECLARE":
        return "setup" if not any(t.kind == "word" and t.upper == "CURSOR" for t in toks) else words
    if head == "SET":
        return "setup"
    if head in ("SELECT", "WITH"):
        into = _after(toks, "INTO")
        if into is not None:
            return "setup" if _local(into) else words
        assigns = any(t.kind == "var" and i + 1 < len(toks) and toks[i + 1].text == "="
                      and toks[i - 1].upper in ("SELECT", "DISTINCT", ",") for i, t in enumerate(toks) if i)
        return "setup" if assigns else "rows"
    if head in _WRITES:
        target = _after(toks, head) if head != "MERGE" else _after(toks, "MERGE")
        return "setup" if _local(target) else words
    if head in ("CREATE", "ALTER", "DROP"):
        at = next((i for i, t in enumerate(toks) if t.kind == "word" and t.upper in ("TABLE", "ON")), None)
        target = next((t for t in toks[at + 1:] if not (t.kind == "word" and t.upper in ("IF", "NOT", "EXISTS"))),
                      None) if at is not None else None
        return "setup" if _local(target) else words
    if head == "IF" and (found := _DROP_IF_EXISTS.fullmatch(text.strip())) and found[1].casefold() == found[2].casefold():
        return "setup"
    return words


def needs(text: str, parameters: Sequence[Parameter] = ()) -> list[str]:
    """What `text` uses that none of its own statements makes and no parameter stands for: each variable
    ("needs @t declared in its batch") and each temp table ("reads #recent created in its batch")."""
    toks = tokens(text)
    declared = {p.name.casefold() if p.name.startswith("@") else "@" + p.name.casefold() for p in parameters}
    made: set[str] = set()
    wanted_vars: list[str] = []
    wanted_temps: list[str] = []
    for first, last in split_tokens(toks):
        statement = toks[first:last]
        if statement and statement[0].kind == "word" and statement[0].upper == "DECLARE":
            declared |= _declared(statement)
        for tok in statement:
            name = tok.text.casefold()
            if tok.kind == "var" and not name.startswith("@@") and name not in declared and tok.text not in wanted_vars:
                wanted_vars.append(tok.text)
        for name in sorted(temp_tables_used(statement) - made):
            if name not in (w.casefold() for w in wanted_temps):
                wanted_temps.append(name)
        made |= temp_tables(statement)[1]
    return ([f"needs {v} declared in its batch" for v in wanted_vars]
            + [f"reads {t} created in its batch" for t in wanted_temps])


def declared_variables(text: str) -> set[str]:
    """The variables the DECLAREs of `text` name, case-folded."""
    toks = tokens(text)
    found: set[str] = set()
    for first, last in split_tokens(toks):
        if toks[first].kind == "word" and toks[first].upper == "DECLARE":
            found |= _declared(toks[first:last])
    return found


def _declared(toks: Sequence[Token]) -> set[str]:
    """The variables a DECLARE names: the first token of each of its top-level items."""
    found, depth, start = set(), 0, True
    for tok in toks[1:]:
        if start and tok.kind == "var":
            found.add(tok.text.casefold())
        start = False
        depth += (tok.text == "(") - (tok.text == ")")
        start = depth == 0 and tok.text == ","
    return found


def batch_run(batch: str, parameters: Sequence[Parameter] = ()) -> BatchRun | str:
    """The batch as it is run for its last statement (see the module docstring), or why it cannot be."""
    toks = tokens(batch)
    spans = split_tokens(toks)
    if not spans:
        return "its batch holds no statement"
    pieces = [(toks[a:b], batch[toks[a].start:toks[b - 1].start + len(toks[b - 1].text)]) for a, b in spans]
    *before, (last_toks, last_text) = pieces
    last_kind = setup_kind(last_toks)
    if last_kind == "setup":
        return "it returns no rows: it only sets variables or makes temp tables (the statements that read them are compared)"
    if last_kind != "rows":
        return f"not a read: it runs {last_kind}"
    kept, left = [], 0
    for statement, text in before:
        kind = setup_kind(statement)
        if kind == "rows":
            left += 1
        elif kind == "setup":
            kept.append(text.rstrip().rstrip(";"))
        else:
            return (f"its batch runs {kind} before it ({_clip(text)}), which compare never runs: only statements "
                    "that set variables or make temp tables are run with it")
    tsql = "".join(f"{text};\n" for text in kept) + last_text.rstrip().rstrip(";")
    missing = needs(tsql, parameters)
    if missing:
        return f"{missing[0]}, and its batch does not make it before it"
    return BatchRun(tsql, len(kept), left)


def _clip(text: str, limit: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


# The target's side -------------------------------------------------------------------------------

_TEMPORARY = re.compile(r"^\s*(?:CREATE|DROP)\s+TEMPORARY\s+TABLE\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?`?([\w$]+)`?", re.I)
_WRITES_TO = re.compile(
    r"^\s*(?:INSERT\s+(?:IGNORE\s+)?INTO|REPLACE\s+INTO|UPDATE|DELETE\s+FROM|TRUNCATE\s+TABLE|ALTER\s+TABLE|"
    r"CREATE\s+(?:UNIQUE\s+)?INDEX\s+`?[\w$]+`?\s+ON)\s+`?([\w$]+)`?", re.I)


def temporary_tables(statements: Sequence[str]) -> tuple[str, ...]:
    """The temporary tables a translated batch creates or drops, in order, each once."""
    return tuple(dict.fromkeys(m[1] for s in statements if (m := _TEMPORARY.match(s))))


def unsafe_setup(statements: Sequence[str]) -> str | None:
    """Why a translated batch's statements before its query cannot run on the target, or None: they may
    set variables, create or drop temporary tables and write into those, and nothing else."""
    temporary = {name.casefold() for name in temporary_tables(statements)}
    for statement in statements:
        head = statement.lstrip()[:40].upper()
        if head.startswith("SET @") or _TEMPORARY.match(statement):
            continue
        written = _WRITES_TO.match(statement)
        if written and written[1].casefold() in temporary:
            continue
        if head.startswith("SELECT") and not re.search(r"\bINTO\s+(?:OUTFILE|DUMPFILE)\b", statement, re.I):
            continue
        return f"its batch's translation runs {_clip(statement)}, which compare never runs on the target"
    return None
