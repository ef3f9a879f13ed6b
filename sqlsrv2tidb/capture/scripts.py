"""T-SQL schema scripts and SSDT projects -> the schema model.

`capture/sources.py` sends every file that `looks_like_schema` here, all together: SSMS "Generate
Scripts" output, install scripts such as Northwind or AdventureWorks (SQLCMD mode included), and
the one-object-per-file folders of SSDT projects, whose files may come in any order. The work is
done by the `ddl` package; this module is its entry point and the content sniffing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from ..model import Database, Finding
from ..progress import Task
from .ddl.batches import BatchSplitter, SqlcmdState, included_paths
from .ddl.builder import build
from .ddl.context import Context
from .ddl.problems import Findings
from .ddl.statements import StatementReader
from .textfile import TextFile

_NAME = r"(?:\[[^\]\n]*\]|\"[^\"\n]*\"|[^\W\d][\w@$#]*)"
_OBJECT = rf"{_NAME}(?:\s*\.\s*{_NAME}){{0,3}}"
# Statements that only a schema or deployment script contains (DDL, permissions, descriptions). A
# captured workload may create or drop temporary tables (#t), so names starting with # or @ do not count.
_SCHEMA_DDL = re.compile(
    rf"""\b(?:
        CREATE\s+(?:OR\s+ALTER\s+)?(?:TABLE|VIEW|PROC|PROCEDURE|FUNCTION|TRIGGER|TYPE|SEQUENCE|SYNONYM|SCHEMA
            |AGGREGATE|RULE|DEFAULT|ROLE|USER|LOGIN|DATABASE|ASSEMBLY|SECURITY\s+POLICY|STATISTICS
            |PARTITION\s+(?:FUNCTION|SCHEME)|XML\s+SCHEMA\s+COLLECTION|FULLTEXT\s+(?:INDEX|CATALOG))\s+(?=[^\s#@])
      | CREATE\s+(?:UNIQUE\s+)?(?:(?:NON)?CLUSTERED\s+)?(?:COLUMNSTORE\s+|(?:PRIMARY\s+)?XML\s+|SPATIAL\s+)?INDEX
            \s+{_NAME}\s+ON\s+(?=[^\s#@])
      | ALTER\s+(?:PROC|PROCEDURE|VIEW|FUNCTION|TRIGGER|DATABASE|INDEX|SCHEMA|ROLE)\b
      | DROP\s+(?:TABLE|VIEW|PROC|PROCEDURE|FUNCTION|TRIGGER|TYPE|SEQUENCE|SYNONYM|SCHEMA)\s+(?:IF\s+EXISTS\s+|(?!IF\s))(?=[^\s#@])
      | ALTER\s+TABLE\s+(?=[^\s#@]){_OBJECT}\s+(?:WITH\s+(?:NO)?CHECK\s+)?(?:ADD|(?:NO)?CHECK\s+CONSTRAINT|SET|ALTER)\b
      | (?:GRANT|DENY|REVOKE)\s+[\w\s,]+?\s+(?:ON|TO)\b
      | sp_addtype\b | sp_addextendedproperty\b
    )""",
    re.IGNORECASE | re.VERBOSE,
)
_SQLCMD_LINE = re.compile(r"^[ \t]*:(?:setvar|r|on\s+error)\b", re.IGNORECASE | re.MULTILINE)
_SKIP = re.compile(r"N?'(?:[^']|'')*'|--[^\n]*|/\*.*?\*/", re.DOTALL)
_OPENED = re.compile(r"'|/\*")
_CODE_KEPT = 1 << 16
"""Of a long stretch of code with no string or comment, the part kept to be searched with the next block."""


def looks_like_schema(text: str | Iterable[str]) -> bool:
    """True if the text defines schema (DDL, SQLCMD deployment commands); False for plain DML/SELECT.

    The text may come whole or in blocks that end at line ends (`TextFile.chunks()`); a schema script
    usually says so in its first block, and only a file of statements is read to its end.
    """
    chunks = [text] if isinstance(text, str) else text
    pending = ""  # text from the start of a string or comment, or of code, that the next block may go on
    found = False
    for chunk in chunks:
        if found or _SQLCMD_LINE.search(chunk):
            return True
        text = pending + chunk
        settled, pending = _settled(text)
        # Confirm outside strings and comments: `-- CREATE TABLE` or a logged 'CREATE TABLE ...' is not DDL.
        found = bool(_SCHEMA_DDL.search(settled)) and any(_SCHEMA_DDL.search(part) for part in _SKIP.split(settled))
        if len(pending) > 2 * _CODE_KEPT and not _OPENED.search(pending):  # code only: keep its last lines
            found = found or any(_SCHEMA_DDL.search(part) for part in _SKIP.split(pending))
            cut = pending.find("\n", len(pending) - _CODE_KEPT) + 1
            pending = pending[cut:] if cut > 0 else pending[-_CODE_KEPT:]
    if not found and pending:
        found = any(_SCHEMA_DDL.search(part) for part in _SKIP.split(pending))
    return found


def _settled(text: str) -> tuple[str, str]:
    """Split `text` where every string and comment before is closed: (settled, the rest).

    A quote or `/*` whose end is not in the text yet, and code after the last string or comment,
    may go on in the next block, so they wait for it. A quote that never closes at all reads as
    code, as it does in the whole text, once the text has ended (`looks_like_schema`).
    """
    end = 0
    for m in _SKIP.finditer(text):
        if _OPENED.search(text, end, m.start()):
            break  # an opening before this match never closed
        end = m.end()
    opened = _OPENED.search(text, end)
    if opened is not None:
        return text[:opened.start()], text[opened.start():]
    return text[:end], text[end:]


def read_scripts(files: list[TextFile], progress: Task, pass_over: bool = True) -> tuple[Database, list[Finding]]:
    """Read all script files together into one Database; unreadable statements become findings.

    `pass_over=False` cuts every statement into tokens, data included: the slow way the streaming
    reader must agree with (tests compare the two).
    """
    findings = Findings()
    ctx = Context(findings)
    reader = StatementReader(ctx)
    given = {f.path.resolve() for f in files}
    for text_file in files:
        path = Path(text_file.path)
        ctx.state = SqlcmdState()  # each file starts with no SQLCMD variables, as a new sqlcmd run would
        splitter = BatchSplitter(findings, ctx.state, skip_include=lambda p: p.resolve() in given, pass_over=pass_over,
                                 defined=ctx.defines)
        for batch in splitter.batches(text_file, path):
            reader.read_batch(batch)
        progress.advance()
    database = build(ctx.actions, findings)
    order = {str(f.path): i for i, f in enumerate(files)}
    return database, sorted(findings.items, key=lambda f: (order.get(f.file or "", len(order)), f.file or "", f.line or 0))


def included_files(files: list[TextFile]) -> set[Path]:
    """Files that these scripts pull in with SQLCMD `:r` (resolved paths).

    An SSDT post-deployment script includes its data files this way; their INSERTs are the
    database's seed rows (counted in Table.scripted_rows), not workload a server ran.
    """
    found: set[Path] = set()
    for text_file in files:
        found |= included_paths(text_file, Path(text_file.path))
    return found
