"""TiDB DDL text, rendered from prepared view models through the Jinja2 templates in templates/ddl/.

The planner (sqlsrv2tidb/plan/) decides everything: names, types, defaults, keys, TiDB options.
This module only turns those decisions into statements, one template per statement kind, so a DBA
can change the look of the DDL by dropping a single file into a `--templates` folder. DDL is never
produced by transpiling SQL Server's CREATE TABLE text (sqlglot mangles it; see the reference's
§3.6), and never re-emitted through sqlglot, which breaks TiDB's `/*T! ... */` comments.

TiDB-only options are written in TiDB's executable-comment form (`/*T![clustered_index] CLUSTERED */`,
`/*T! SHARD_ROW_ID_BITS=4 PRE_SPLIT_REGIONS=4 */`): TiDB runs them, MySQL and MariaDB read a comment
(https://docs.pingcap.com/tidb/stable/comment-syntax).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from ..resources import search_path


@dataclass(frozen=True)
class ColumnDef:
    name: str
    type: str
    collate: str | None = None
    nullable: bool = True
    auto: str | None = None
    """`AUTO_INCREMENT` or `/*T![auto_rand] AUTO_RANDOM(5) */`."""
    default: str | None = None
    """The whole clause after the type: `DEFAULT 0`, `DEFAULT NEXT VALUE FOR s`, `/*T! DEFAULT (...) */`."""
    generated: str | None = None
    """`(expr) STORED` or `(expr) VIRTUAL` for a computed column."""
    comment: str | None = None
    """Already a SQL string literal."""


@dataclass(frozen=True)
class TableDdl:
    name: str
    columns: tuple[ColumnDef, ...]
    keys: tuple[str, ...] = ()
    """PRIMARY KEY and the few keys that must exist at CREATE time, each rendered."""
    checks: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    partition: str | None = None
    notes: tuple[str, ...] = ()
    """Comment lines written above the statement: source location and decisions."""


@dataclass(frozen=True)
class IndexDdl:
    table: str
    name: str
    columns: tuple[str, ...]
    unique: bool = False
    global_index: bool = False
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class ForeignKeyDdl:
    table: str
    name: str
    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str, ...]
    on_delete: str | None = None
    on_update: str | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class SequenceDdl:
    name: str
    start: int
    increment: int
    minimum: int
    maximum: int
    cache: int | None
    cycle: bool
    notes: tuple[str, ...] = ()
    draw: str | None = None
    """On MySQL, which has no sequences: the statement that draws from the sequence's table."""
    bounds: tuple[int, int] | None = None
    """On MySQL: the range the table's next value must stay in (a CHECK), so drawing past MAXVALUE fails."""


@dataclass(frozen=True)
class ViewDdl:
    name: str
    body: str
    columns: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class SourceBlock:
    """Code TiDB cannot run, kept as `--` comment lines so nothing is lost."""

    title: str
    lines: tuple[str, ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class FileDdl:
    title: str
    header: tuple[str, ...] = ()
    statements: tuple[str, ...] = field(default=())


class DdlRenderer:
    """Renders the view models; `templates_dir` (the user's --templates) overrides single files."""

    def __init__(self, templates_dir: Path | None = None) -> None:
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader([str(p) for p in search_path("templates", templates_dir)]),
            autoescape=False,  # SQL, not HTML: quoting is done by the planner
            undefined=jinja2.StrictUndefined,
            keep_trailing_newline=False,
            trim_blocks=True,
            lstrip_blocks=True,
        )

    def _render(self, name: str, **context: object) -> str:
        return self.env.get_template(f"ddl/{name}").render(**context).strip()

    def create_table(self, table: TableDdl) -> str:
        return self._render("create_table.sql", t=table)

    def create_index(self, index: IndexDdl) -> str:
        return self._render("create_index.sql", ix=index)

    def add_foreign_key(self, fk: ForeignKeyDdl) -> str:
        return self._render("add_foreign_key.sql", fk=fk)

    def create_sequence(self, seq: SequenceDdl) -> str:
        return self._render("create_sequence.sql", s=seq)

    def create_sequence_table(self, seq: SequenceDdl) -> str:
        """A sequence as MySQL can hold it: a one-row table, and (as a comment) the statement that draws from it."""
        return self._render("create_sequence_table.sql", s=seq)

    def create_view(self, view: ViewDdl) -> str:
        return self._render("create_view.sql", v=view)

    def source_block(self, block: SourceBlock) -> str:
        return self._render("module_source.sql", m=block)

    def tidb_statement(self, sql: str, notes: tuple[str, ...] = ()) -> str:
        return self._render("tidb_statement.sql", sql=sql, notes=notes)

    def file(self, ddl_file: FileDdl) -> str:
        return self._render("file.sql", f=ddl_file) + "\n"


def split_statements(text: str) -> list[str]:
    """Split a DDL file on `;` outside quotes, backticks and comments; comment-only pieces are kept.

    >>> split_statements("-- a;b\\nCREATE TABLE t (c CHAR(1) DEFAULT ';');\\n/*T! SET x = 1 */;")
    ["-- a;b\\nCREATE TABLE t (c CHAR(1) DEFAULT ';')", '/*T! SET x = 1 */']
    """
    out, buf = [], []
    i, n = 0, len(text)
    quote: str | None = None
    while i < n:
        ch = text[i]
        if quote:
            buf.append(ch)
            if ch == "\\" and quote != "`" and i + 1 < n:
                buf.append(text[i + 1])
                i += 2
                continue
            if ch == quote:
                if i + 1 < n and text[i + 1] == quote:
                    buf.append(text[i + 1])
                    i += 2
                    continue
                quote = None
            i += 1
            continue
        if ch in ("'", '"', "`"):
            quote = ch
        elif text.startswith("--", i) or ch == "#":
            end = text.find("\n", i)
            end = n if end < 0 else end
            buf.append(text[i:end])
            i = end
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            buf.append(text[i:end])
            i = end
            continue
        elif ch == ";":
            piece = "".join(buf).strip()
            if piece:
                out.append(piece)
            buf = []
            i += 1
            continue
        buf.append(ch)
        i += 1
    tail = "".join(buf).strip()
    if tail:
        out.append(tail)
    return out


def is_comment_only(statement: str) -> bool:
    """True for a piece with nothing but `--` and plain `/* */` comments (a `/*T!` one runs on TiDB)."""
    import re

    stripped = re.sub(r"--[^\n]*|#[^\n]*", "", statement)
    stripped = re.sub(r"/\*(?!T!).*?\*/", "", stripped, flags=re.S)
    return not stripped.strip()
