"""Loads a corpus script (Northwind, Chinook, AdventureWorks) into the SQL Server-protocol test server.

What any server needs, done always: the script is decoded (UTF-16 or UTF-8), SQLCMD's `:setvar`
and `$(name)` are applied as sqlcmd would (with `DatabaseName` set to the database loaded into),
and the text is split into batches at `GO`. The loader creates the database itself, so batches
that create, alter, drop or `USE` a database are left out (`SKIPPED`). Each batch runs in its own
transaction with XACT_ABORT on, so a batch that fails leaves nothing behind: the script "as
executed" is exactly the batches that succeeded.

What a Babelfish target needs besides, and nothing on a real SQL Server: the adaptations in
`BABELFISH_ADAPTATIONS`, each named with the Babelfish difference that makes it necessary. Every
adapted batch is recorded as executed, so a test can read the very text the server ran.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from paths import CORPUS

SCRIPTS = {
    "northwind": CORPUS / "northwind" / "instnwnd.sql",
    "chinook": CORPUS / "chinook" / "Chinook_SqlServer.sql",
    "adventureworks": CORPUS / "adventureworks-oltp" / "instawdb.sql",
}
"""The corpus databases the TDS tests load, by the database name they are loaded as."""

_GO = re.compile(r"^[ \t]*GO[ \t]*(?:--.*)?$", re.I | re.M)
_SETVAR = re.compile(r'^[ \t]*:setvar[ \t]+(\w+)[ \t]+"([^"]*)"[ \t]*$', re.I | re.M)
_VARIABLE = re.compile(r"\$\((\w+)\)")
_DATABASE_BATCH = re.compile(r"\b(?:CREATE|ALTER|DROP)\s+DATABASE\b|^\s*USE\s", re.I | re.M)


@dataclass(frozen=True)
class Adaptation:
    """One change a Babelfish target needs: `rewrite` changes a batch's text; without one, the
    adaptation is a setting of the loading session (applied in `load`)."""

    name: str
    reason: str
    rewrite: Callable[[str], str] | None = None


def _one_constraint_per_add(batch: str) -> str:
    """`ALTER TABLE t ADD CONSTRAINT a ..., CONSTRAINT b ...` as one ALTER TABLE per constraint."""
    match = re.match(r"(\s*ALTER\s+TABLE\s+(\S+)\s+(?:WITH\s+(?:NO)?CHECK\s+)?ADD\s+)(CONSTRAINT\b.*?);?\s*$", batch, re.I | re.S)
    if not match:
        return batch
    parts = re.split(r",\s*(?=CONSTRAINT\s)", match.group(3), flags=re.I)
    if len(parts) < 2:
        return batch
    return "".join(f"ALTER TABLE {match.group(2)} ADD {part.strip()};\n" for part in parts)


def _untyped_xml(batch: str) -> str:
    """`[xml](CONTENT [schema].[collection])` and `XML(schema.collection)` as plain `xml`."""
    return re.sub(r"(\[xml\]|\bxml\b)\s*\((?:\s*(?:CONTENT|DOCUMENT)\s+)?[\w\[\]. ]+\)", r"\1", batch, flags=re.I)


def _primary_column_quoted(batch: str) -> str:
    """A column named `[Primary]` written `"Primary"`; the filegroup `[PRIMARY]` stays."""

    def quote(match: re.Match[str]) -> str:
        before = batch[: match.start()].rstrip()
        filegroup = re.search(r"(?:\bON|TEXTIMAGE_ON|FILESTREAM_ON|N'FILEGROUP',)$", before, re.I)
        return match.group(0) if filegroup else f'"{match.group(1)}"'

    return re.sub(r"\[(primary)\]", quote, batch, flags=re.I)


_CLR_TYPES = {"hierarchyid": "varbinary(892)", "geography": "varbinary(max)", "geometry": "varbinary(max)"}


def _clr_types_as_varbinary(batch: str) -> str:
    if not re.match(r"\s*(?:--[^\n]*\n\s*)*CREATE\s+TABLE\b", batch, re.I):
        return batch
    return re.sub(r"\[?\b(hierarchyid|geography|geometry)\b\]?", lambda m: _CLR_TYPES[m.group(1).lower()], batch, flags=re.I)


_COMPUTED = re.compile(r"^([ \t]*\[\w+\][ \t]+AS[ \t]+(.*?))(,?)[ \t]*$", re.I | re.M)


def _stored_computed_columns_only(batch: str) -> str:
    """Computed columns whose expression calls anything but ISNULL are left out of CREATE TABLE."""
    if not re.match(r"\s*(?:--[^\n]*\n\s*)*CREATE\s+TABLE\b", batch, re.I):
        return batch

    def drop(match: re.Match[str]) -> str:
        calls = {c.upper() for c in re.findall(r"(\w+)\]?\s*\(", match.group(2))}
        return "" if calls - {"ISNULL"} else match.group(0)

    return _COMPUTED.sub(drop, batch)


BABELFISH_ADAPTATIONS: tuple[Adaptation, ...] = (
    Adaptation("escape-hatches-ignored",
               "Babelfish refuses by default syntax it accepts but does not implement (NOT FOR REPLICATION, "
               "WITH CHECK ADD, NOCHECK CONSTRAINT, filegroups); `sp_babelfish_configure '%', 'ignore'` lets the "
               "loading session go past it"),
    Adaptation("foreign-key-checks-off",
               "Babelfish has no ALTER TABLE ... NOCHECK CONSTRAINT, with which Northwind loads rows before the "
               "rows they reference; the loading session runs with PostgreSQL's session_replication_role = replica, "
               "which skips the foreign-key triggers (the constraints stay declared)"),
    Adaptation("one-constraint-per-add",
               "Babelfish's grammar refuses several constraints in one ALTER TABLE ... ADD (AdventureWorks' "
               "foreign keys); each constraint is added by its own ALTER TABLE", _one_constraint_per_add),
    Adaptation("untyped-xml",
               "Babelfish has no XML schema collections (`type modifier is not allowed for type \"xml\"`): "
               "typed xml columns are declared plain xml", _untyped_xml),
    Adaptation("primary-column-quoted",
               "Babelfish's grammar refuses the keyword PRIMARY as a bracketed column name ([Primary]); it "
               "takes it double-quoted", _primary_column_quoted),
    Adaptation("clr-types-as-varbinary",
               "this Babelfish build has neither hierarchyid nor the spatial types: such columns are declared "
               "varbinary (892 bytes, hierarchyid's limit; max for spatial)", _clr_types_as_varbinary),
    Adaptation("stored-computed-columns-only",
               "Babelfish stores a computed column as a PostgreSQL generated column, whose expression must be "
               "immutable (`generation expression is not immutable`): computed columns calling anything but ISNULL "
               "(CONVERT, a user function, a hierarchyid method) are left out of the table",
               _stored_computed_columns_only),
)


@dataclass(frozen=True)
class Batch:
    index: int
    """Position among the script's GO-separated batches (0-based)."""
    text: str
    """The text as sent to the server (after sqlcmd variables and any adaptations)."""
    adapted_by: tuple[str, ...] = ()

    @property
    def first_line(self) -> str:
        lines = [ln.strip() for ln in re.sub(r"/\*.*?\*/", "", self.text, flags=re.S).splitlines()]
        code = [ln for ln in lines if ln and not ln.startswith(("--", "PRINT"))]
        return (code or lines or [""])[0][:120]


@dataclass(frozen=True)
class Failure:
    batch: Batch
    error: str

    @property
    def reason(self) -> str:
        """The server's message without the driver's prefixes and codes."""
        text = re.sub(r"^\[\w+\] (?:\[[^\]]+\])+", "", self.error)
        return re.sub(r"\s*\(\d+\)\s*\(SQL\w+\)$", "", text).strip()


@dataclass
class LoadResult:
    database: str
    script: Path
    babelfish: bool
    executed: list[Batch] = field(default_factory=list)
    failed: list[Failure] = field(default_factory=list)
    skipped: list[Batch] = field(default_factory=list)
    """Batches left out: database-level statements, or using a sqlcmd variable that is not set."""
    adaptations: tuple[str, ...] = ()
    """Names of the adaptations applied (session settings and those that changed a batch)."""
    executed_path: Path | None = None
    """Where executed_script() was written, once it was."""

    def executed_script(self) -> str:
        """The script as the server ran it: the batches that succeeded, each ending in GO."""
        return "".join(f"{b.text.strip()}\nGO\n" for b in self.executed)

    def write_executed(self, path: Path) -> Path:
        path.write_text(self.executed_script(), encoding="utf-8")
        return path


def read_script(path: Path) -> str:
    raw = path.read_bytes()
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        text = raw.decode("utf-16")
    else:
        text = raw.decode("utf-8-sig")
    return text.replace("\r\n", "\n")


def batches(text: str, variables: dict[str, str]) -> list[tuple[str, bool]]:
    """(batch, every sqlcmd variable it uses is set) for each GO-separated batch, variables applied."""
    values = {k.lower(): v for k, v in variables.items()}
    out = []
    for chunk in _GO.split(text):
        for name, value in _SETVAR.findall(chunk):
            values.setdefault(name.lower(), value)
        chunk = _SETVAR.sub("", chunk)
        known = all(v.lower() in values for v in _VARIABLE.findall(chunk))
        out.append((_VARIABLE.sub(lambda m: values.get(m.group(1).lower(), m.group(0)), chunk), known))
    return out


def load(server, script: Path, database: str) -> LoadResult:
    """Create `database` on `server` (a tests/servers.py SqlServer) and run `script` into it."""
    babelfish = bool(getattr(server, "babelfish", False))
    adaptations = BABELFISH_ADAPTATIONS if babelfish else ()
    result = LoadResult(database, script, babelfish)
    server.create_database(database)
    applied: list[str] = []
    replica = babelfish and getattr(server, "started_here", False)
    if replica:  # new sessions of the login skip foreign-key triggers, until RESET below
        server.postgres("ALTER ROLE babel_login SET session_replication_role = replica")
        applied.append("foreign-key-checks-off")
    try:
        conn = server.connect(database)
    finally:
        if replica:
            server.postgres("ALTER ROLE babel_login RESET session_replication_role")
    try:
        cur = conn.cursor()
        cur.execute("SET XACT_ABORT ON")
        if babelfish:
            cur.execute("EXEC sp_babelfish_configure '%', 'ignore'")
            applied.append("escape-hatches-ignored")
        for index, (text, known) in enumerate(batches(read_script(script), {"DatabaseName": database})):
            if not text.strip() or not re.search(r"^\s*[^\s-]", re.sub(r"/\*.*?\*/", "", text, flags=re.S), re.M):
                continue  # only comments
            if not known or _DATABASE_BATCH.search(text):
                result.skipped.append(Batch(index, text))
                continue
            changed = []
            for adaptation in adaptations:
                if adaptation.rewrite is not None:
                    new = adaptation.rewrite(text)
                    if new != text:
                        changed.append(adaptation.name)
                        text = new
            batch = Batch(index, text, tuple(changed))
            cur.execute("BEGIN TRANSACTION")
            try:
                cur.execute(text)
                while cur.nextset():
                    pass
                cur.execute("IF @@TRANCOUNT > 0 COMMIT")
                result.executed.append(batch)
            except Exception as exc:  # noqa: BLE001 - every failing batch is recorded, the load goes on
                cur.execute("IF @@TRANCOUNT > 0 ROLLBACK")
                result.failed.append(Failure(batch, str(exc.args[1] if len(exc.args) > 1 else exc)))
    finally:
        conn.close()
    applied.extend(a.name for a in adaptations if any(a.name in b.adapted_by for b in result.executed + [f.batch for f in result.failed]))
    result.adaptations = tuple(applied)
    return result


def failure_reasons(result: LoadResult) -> dict[str, int]:
    """How many batches failed for each reason, object names in the message replaced by `…`."""
    counts: dict[str, int] = {}
    for failure in result.failed:
        reason = re.sub(r"'[^']*'|\"[^\"]*\"", "…", failure.reason)
        reason = re.sub(r"at line \d+ and character position \d+", "at …", reason)
        counts[reason] = counts.get(reason, 0) + 1
    return dict(sorted(counts.items()))


def run_like_sqlcmd(server, database: str, script: str) -> str:
    """What `sqlcmd -d DATABASE -i script.sql -o out -y 0 -h -1 -f o:65001` writes, as the capture-script's
    header tells a DBA to run it (sqlcmd itself is not on these machines): the script's GO batches in one
    session, each result row's value on its own line, no header, no width limit, and each error as sqlcmd
    prints it (`Msg N, Level 16, State 1, ...` and the message) before going on with the next batch."""
    lines: list[str] = []
    conn = server.connect(database)
    try:
        cur = conn.cursor()
        for text, _known in batches(script, {}):
            if not text.strip():
                continue
            try:
                cur.execute(text)
                while True:
                    if cur.description:
                        lines.extend("" if row[0] is None else str(row[0]) for row in cur.fetchall())
                    if not cur.nextset():
                        break
            except Exception as exc:  # noqa: BLE001 - sqlcmd prints the error and runs the next batch
                message = str(exc.args[1] if len(exc.args) > 1 else exc)
                number = re.search(r"\((\d+)\) \(SQL\w+\)$", message)
                lines.append(f"Msg {number.group(1) if number else 50000}, Level 16, State 1, Server {database}, Line 1")
                lines.append(Failure(Batch(0, text), message).reason)
    finally:
        conn.close()
    return "\n".join(lines) + "\n"
