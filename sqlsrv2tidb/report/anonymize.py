"""`--anonymize`: a report that can leave the company, with every object name and literal replaced.

Only what came from the user is replaced: the names and literals of their schema and workload,
their window names and their descriptions. The tool's own words stay, so the shared report still
says the same thing: TiDB settings in the DDL (`tidb_ddl_reorg_worker_cnt = 16`,
`ATTRIBUTES 'merge_option=deny'`), its own file names (`02-tables.sql`, `topology.yaml`), its
prose and figures ("22,000 QPS per 16 cores") and its advice (`time_zone = '+00:00'`).

Names become stable pseudonyms (`table_001`, `col_004`, `schema_001`, `idx_002`, `obj_007`), user
windows `window_001`, string literals `'str_001'`, numbers of two or more digits `1001`, `1002`,
..., file paths `file_001.sql`, query ids `q0001`; descriptions written by the user (workload-spec
windows and queries) are withheld, and query names fall back to their (pseudonymised) SQL. The same
original always gets the same pseudonym within one run, and pseudonyms are handed out in a fixed
order (tables and columns first, sorted), so the same inputs give the same report. SQL keeps its
structure: statements are re-assembled token by token (sqlglot's tokenizer), keywords, functions,
type sizes and TiDB options stay; comments are treated as text.

Two passes: the first reads every SQL text, finding object and query-only names, and collects the
literals, and takes the names that findings and plans list (constraint names the DDL may not spell);
the second rewrites SQL and free text (messages, rationales, evidence) with everything learnt, so a
name first met in a query is also replaced in a finding's message. Modules kept as commented source
are code too, but what their lines name (variables, cursors, words of their own comments) gets
pseudonyms that stay in that file, so the tool's prose elsewhere keeps its words. SQL the tokenizer
cannot read (a line of a string that spans lines) is rewritten word by word: only SQL's own
vocabulary and built-in function names stay. Free text is read
in one of two ways. The tool's prose (messages, rationales, notes, DDL comments) loses known names,
paths, and the literals the user's SQL holds, but keeps other quoted text and the small numbers
that are its own figures. Text from the user or a server (T-SQL comments, replay error messages)
loses every quoted string as well.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any
from urllib.parse import urlsplit

from sqlglot.dialects.mysql import MySQL
from sqlglot.dialects.tsql import TSQL
from sqlglot.errors import TokenError
from sqlglot.parser import Parser
from sqlglot.tokens import TokenType

from ..outdir import write_json, write_text
from .inputs import ReportInputs, load_inputs
from .rulesinfo import RuleInfo
from .sqlwords import (
    AFTER_KEEP,
    BUILTIN_CALLS,
    KEEP_WORDS,
    OPTION_WORDS,
    SIZED_AFTER,
    SQL_KEYWORDS,
    is_setting,
)

_TOKENIZERS = {"tsql": TSQL().tokenizer_class(), "mysql": MySQL().tokenizer_class()}
_NAME_TOKENS = {TokenType.VAR, TokenType.IDENTIFIER}
_STRINGS = {TokenType.STRING, TokenType.NATIONAL_STRING, TokenType.BYTE_STRING, TokenType.BIT_STRING,
            TokenType.RAW_STRING, TokenType.HEREDOC_STRING}
_WORD = re.compile(r"[A-Za-z_#][A-Za-z0-9_$#]*")
_QUOTED = re.compile(r"(?<![\w'])(N?)'((?:[^']|'')*)'(?!\w)")
"""A quoted literal in free text; an apostrophe inside a word (`window's`, `TiDB's`) opens nothing."""
_NUMBER = re.compile(r"(?<![\w.])\d{2,}(?:\.\d+)?(?![\w.])")
PROSE_MIN_DIGITS = 4
"""In the tool's prose a learnt number is replaced only from this many digits: shorter ones are far more often
its own figures (16 cores, 120 MiB, 3 partitions) than a value copied from the user's SQL, and identify nobody."""
_PATHLIKE = re.compile(
    r"[A-Za-z]:\\[^\s'\"<>]+"  # C:\\...
    r"|(?<![\w/:])/(?:[\w.\-]+/)+[\w.\-]+"  # /two/or/more/segments, not the // of a URL
    r"|(?<![\w/])[\w.\-]+(?:[/\\][\w.\-]+)*\.(?:sql|xml|xel|json|csv|ya?ml|sqlproj|txt)\b"
)
_URL = re.compile(r"https?://[^\s'\"<>]+")
_OBJECT = re.compile(r"[\w#@$ \[\]-]+(?:\.[\w#@$ \[\]-]+){0,3}")
_MAY_COMMENT = re.compile(r"--|/\*|#")
_COMMENT = re.compile(r"/\*T!(\[[^\]]*\])?(.*?)\*/|/\*.*?\*/|--[^\n]*|#[^\n]*", re.S)
_QUERY_ID = re.compile(r"q[0-9a-f]{6,}")
_PSEUDONYM = re.compile(r"[a-z]+_\d{3,}|q\d{4,}")
"""What `name`, `string` and `query_id` hand out: never replaced again."""
_CODE_PIECE = re.compile(r"[Nn]?'(?:[^']|'')*'(?!')|'[^']*$|[^']+|'")
"""A line of code in pieces: a whole quoted literal, or a quote left open (or closed) from another line, or code."""
_COLLATION = re.compile(r"\w+_C[IS]_A[IS](?:_\w+)?", re.I)
"""SQL Server's collation names (`SQL_Latin1_General_CP1_CI_AS`): the product's words, like a type name."""
_CODE_LINE = re.compile(
    r"\s{2,}\S|\s*(?:CREATE|ALTER|SELECT|INSERT|UPDATE|DELETE|MERGE|DECLARE|SET|IF|ELSE|BEGIN|END|EXEC|EXECUTE|RETURN|"
    r"WHILE|FROM|WHERE|JOIN|WITH|GO|OPEN|FETCH|CLOSE|DEALLOCATE|PRINT|RAISERROR|THROW|COMMIT|ROLLBACK)\b|.*[@;]\s*$",
    re.I,
)
"""A `--` comment that carries code (a module kept as source, indented by the DDL writer), not prose."""
_MODULE_TITLE = re.compile(r"^--\s*(?:PROCEDURE|FUNCTION|TRIGGER|DDL TRIGGER|SYNONYM|VIEW)\s+([^\s(]+)", re.M)
_SQL_FIELDS = {"source_sql": "tsql", "sql_server_sql": "tsql", "fingerprint": "tsql", "target_sql": "mysql", "ddl": "mysql",
               "post_data_ddl": "mysql", "default": "mysql", "sql": "mysql", "statement": "mysql", "content": "mysql"}
_TOOL_FIELDS = {"topology_yaml", "method"}
"""Written by the tool alone from its own figures (sizing's method, the TiUP topology): kept whole."""
_WINDOW_FIELDS = {"window", "peak_window"}
_DATA_FIELDS = {"error_codes", "errors_by_message", "error", "hot_regions_error", "plan_cache_unqualified"}
"""Server messages (`Duplicate entry '77-123456'`): every quoted string in them is the user's data."""
USER_WINDOW_KINDS = {"spec", "user"}
"""Windows the user named and described; the readers' own (`busiest_hour`, `batch`) carry the tool's words."""
OWN_FILES = {"topology.yaml", "report.html", "assessment.json", "replay.json", "experiment.json", "queries.sql",
             "capture.json", "catalog.json", "data.json", "data-rejects.jsonl", "compare.json"}
"""File names the tool gives its outputs; a path that is one of these (or a ddl/ file) is not the user's."""
WITHHELD = "(withheld)"
_KEEP_FIELDS = {"format", "tool_version", "status", "kind", "severity", "rule", "code", "strategy", "origin",
                "topology_yaml", "tidb_version", "mysql_version", "target_engine", "assessed_for", "source_type",
                "target_type", "identity", "layout", "category",
                "start", "end", "timestamp", "qps", "executions", "source_collation", "table_collation"}
_PATH_FIELDS = {"file", "sources", "path", "config_file"}
_MAP_FIELDS = {"evidence", "details", "before", "after", "leaders_by_store", "written_bytes_by_store", "qps_by_window",
               "per_query", "errors_by_message", "key"}
_DETAIL_NAMES = {
    **dict.fromkeys(("constraints", "not_enforced", "foreign_keys", "referenced_by", "unique_keys"), "con"),
    **dict.fromkeys(("indexes", "clustered_index", "hash_indexes"), "idx"),
    **dict.fromkeys(("table", "history_table", "used_by", "examples", "columns", "column", "include", "key",
                     "primary_key", "period_start", "period_end", "function", "scheme",
                     "sql_server_partition_scheme"), "obj"),
}
"""Keys of a finding's details or a plan's evidence whose values are the user's object names, and their kind."""
_ENUM = re.compile(r"[A-Za-z0-9_.:+-]*")
"""Enum values, versions and timestamps: kept as they are unless they are also a name."""


def _alternatives(texts: Iterable[str]) -> str:
    """A regular-expression alternation of `texts` taken literally, longest first so none hides a longer one."""
    return "|".join(re.escape(t) for t in sorted(texts, key=len, reverse=True))


def _keyword_as_name(prev: Any, nxt: Any) -> bool:
    """A keyword token where SQL has a name: after a dot, or starting a column definition (`(Comment VARCHAR`)."""
    if prev is not None and prev.token_type == TokenType.DOT:
        return True
    return (prev is not None and prev.token_type in (TokenType.L_PAREN, TokenType.COMMA)
            and nxt is not None and nxt.token_type in Parser.TYPE_TOKENS)


class Anonymizer:
    """One run's pseudonyms; share one instance across every file written together."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.schema_names: set[str] = set()
        self._windows: dict[str, str] = {}
        self._tool_windows: set[str] = set()
        self._tool_descriptions: set[str] = set()
        self._own_files: set[str] = set(OWN_FILES)
        self._strings: dict[str, str] = {}
        self._code_words: dict[str, str] = {}
        """Words of code read as text (`_code_text`), kept apart from `names`."""
        self._known_paths: dict[str, str] = {}
        """Casefolded -> as written: every path a document names in a path field."""
        self._path_pattern: tuple[int, re.Pattern[str] | None] | None = None
        self._local = 0
        """Above 0 while a kept module's commented source is rewritten (see `_name_in_sql`)."""
        self._numbers: dict[str, str] = {}
        self._files: dict[str, str] = {}
        self._queries: dict[str, str] = {}
        self._counters: dict[str, int] = {}
        self._sql_cache: dict[tuple[str, str], str] = {}
        self._later: dict[tuple[str, str], tuple[list[str], list[tuple[int, str, str, str]]]] = {}
        """Cached SQL whose free-text parts are rewritten once learning is done (`_rewrite_later`)."""
        self._multi: tuple[int, re.Pattern[str] | None] | None = None
        self._window_words: tuple[int, re.Pattern[str] | None] | None = None
        self._hosts: dict[str, str] = {}
        """A cluster replay's machines (worker and scheduler hosts, as named or as addresses) -> `host_001`."""

    # -- pseudonyms -------------------------------------------------------------------------------

    def _next(self, prefix: str, width: int = 3) -> str:
        self._counters[prefix] = self._counters.get(prefix, 0) + 1
        return f"{prefix}{self._counters[prefix]:0{width}d}"

    def name(self, original: str, kind: str = "obj", schema_object: bool = True) -> str:
        key = original.casefold()
        if key not in self.names:
            self.names[key] = self._next(f"{kind}_")
        if schema_object:
            self.schema_names.add(key)
        return self.names[key]

    def query_id(self, original: str) -> str:
        key = original.casefold()
        if key not in self._queries:
            self._queries[key] = self._next("q", 4)
        return self._queries[key]

    def window(self, original: str) -> str:
        """A window the user named gets `window_001`; one the readers found (`peak`, `batch-1`) keeps its name."""
        key = original.casefold()
        if key in self._tool_windows:
            return original
        if key not in self._windows:
            self._windows[key] = self._next("window_")
        return self._windows[key]

    def string(self, value: str) -> str:
        if value not in self._strings:
            self._strings[value] = self._next("str_")
        return self._strings[value]

    def number(self, text: str) -> str:
        if text not in self._numbers:
            self._numbers[text] = str(1000 + len(self._numbers) + 1)
        return self._numbers[text]

    def own_files(self, names: list[str]) -> None:
        """File names the tool wrote (the ddl/ files): prose that names them is not naming the user's files."""
        self._own_files.update(names)

    def path(self, original: str) -> str:
        if original in self._own_files:
            return original
        if original not in self._files:
            pure = PureWindowsPath(original) if "\\" in original else PurePosixPath(original)
            self._files[original] = self._next("file_") + pure.suffix.lower()
        return self._files[original]

    def _paths(self, text: str) -> str:
        """File paths in free text: first the ones the documents name exactly (an SSDT folder like
        `Stored Procedures/` has spaces a pattern cannot tell from prose), then anything path-like."""
        known = self._known_path_pattern()
        if known is not None:
            text = known.sub(lambda m: self.path(self._known_paths[m.group(0).casefold()]), text)
        return _PATHLIKE.sub(lambda m: self.path(m.group(0)), text)

    def _known_path_pattern(self) -> re.Pattern[str] | None:
        if self._path_pattern is None or self._path_pattern[0] != len(self._known_paths):
            paths = _alternatives(self._known_paths)
            self._path_pattern = (len(self._known_paths), re.compile(paths, re.I) if paths else None)
        return self._path_pattern[1]

    def host(self, original: str) -> str:
        if original not in self._hosts:
            self._hosts[original] = self._next("host_")
        return self._hosts[original]

    def address(self, text: str) -> str:
        """`tcp://10.0.0.7:40211` -> `tcp://host_001:40211`: a cluster worker's or scheduler's address."""
        parts = urlsplit(text)
        try:
            port = f":{parts.port}" if parts.port else ""
        except ValueError:
            port = ""
        return f"{parts.scheme}://{self.host(parts.hostname or '')}{port}"

    def _learn_cluster(self, replay: Any) -> None:
        cluster = replay.get("cluster") if isinstance(replay, dict) else None
        if not isinstance(cluster, dict):
            return
        rows = [r for r in cluster.get("workers") or () if isinstance(r, dict)]
        for value in [cluster.get("scheduler"), *(r.get("worker") for r in rows)]:
            if isinstance(value, str) and "://" in value:
                self.address(value)
        for r in rows:
            if isinstance(r.get("host"), str) and r["host"]:
                self.host(r["host"])

    def _machines(self, text: str) -> str:
        """Free text (a lost worker's message) loses the cluster's machine names and addresses."""
        if not self._hosts:
            return text
        names = sorted((h for h in self._hosts if h), key=len, reverse=True)
        return re.sub(r"(?<![\w.-])(" + "|".join(map(re.escape, names)) + r")(?![\w-]|\.\w)",
                      lambda m: self._hosts[m.group(0)], text)

    def url(self, text: str) -> str:
        parts = urlsplit(text)
        database = parts.path.lstrip("/")
        db = self.name(database, "db") if database else ""
        try:
            port = f":{parts.port}" if parts.port else ""
        except ValueError:
            port = ""
        return f"{parts.scheme}://user@target-host{port}/{db}"

    # -- SQL --------------------------------------------------------------------------------------

    def sql(self, text: str, dialect: str = "tsql") -> str:
        key = (text, dialect)
        if key not in self._sql_cache:
            self._sql_cache[key] = self._sql(text, dialect)
        return self._sql_cache[key]

    def _sql(self, text: str, dialect: str) -> str:
        tokenizer = _TOKENIZERS[dialect]
        try:
            tokens = tokenizer.tokenize(text)
        except TokenError:
            # Half a statement (a line of a string that spans lines): words, not tokens.
            self._later[(text, dialect)] = ([""], [(0, "code", text, dialect)])
            return self._code_text(text)
        out: list[str] = []
        later: list[tuple[int, str, str, str]] = []

        def gap(piece: str) -> None:
            if _MAY_COMMENT.search(piece):
                later.append((len(out), "gap", piece, dialect))
            out.append(self._gap(piece, dialect))

        pos = 0
        keep_parens: list[bool] = []
        for i, tok in enumerate(tokens):
            if tok.token_type in _STRINGS and i and tokens[i - 1].token_type in tokenizer.COMMANDS:
                # What follows a command word (`FETCH ...`, MySQL's `REPLACE ...`) comes back as one string
                # token whose position covers only its last word: read that text as SQL of its own.
                rest = text.find(tok.text, pos)
                if tok.text and 0 <= rest <= tok.start:
                    gap(text[pos:rest])
                    if _MAY_COMMENT.search(tok.text):
                        later.append((len(out), "sql", tok.text, dialect))
                    out.append(self._sql(tok.text, dialect))
                    pos = rest + len(tok.text)
                    continue
            gap(text[pos:tok.start])
            span = text[tok.start:tok.end + 1]
            prev = tokens[i - 1] if i else None
            nxt = tokens[i + 1] if i + 1 < len(tokens) else None
            tt = tok.token_type
            if tt == TokenType.L_PAREN:
                keep_parens.append(bool(prev and (prev.token_type.name in SIZED_AFTER or prev.text.upper() in SIZED_AFTER)))
            elif tt == TokenType.R_PAREN and keep_parens:
                keep_parens.pop()
            out.append(self._token(tok, span, prev, nxt, tokens, i, bool(keep_parens and keep_parens[-1])))
            pos = tok.end + 1
        gap(text[pos:])
        if later:
            self._later[(text, dialect)] = (out, later)
        return "".join(out)

    def _rewrite_later(self) -> None:
        """Rewrite again, with every name now known, the parts of cached SQL that are free text
        (comments, lines read as words): a comment may name what a later statement defines. SQL
        tokens came out final already, every name met being learnt on the spot, so nothing is
        tokenized twice."""
        for key, (out, later) in self._later.items():
            if key not in self._sql_cache:
                continue
            for index, kind, text, dialect in later:
                if kind == "gap":
                    out[index] = self._gap(text, dialect)
                elif kind == "sql":
                    out[index] = self._sql(text, dialect)
                else:
                    out[index] = self._code_text(text)
            self._sql_cache[key] = "".join(out)
        self._later.clear()

    def _token(self, tok: Any, span: str, prev: Any, nxt: Any, tokens: list[Any], i: int, in_sized: bool) -> str:
        tt = tok.token_type
        setting = self._is_setting_value(prev, tokens, i)
        if tt in _STRINGS:
            if setting:
                return span
            quote = span.find("'") if "'" in span else span.find('"')
            prefix = span[:quote] if quote > 0 else ""
            return f"{prefix}'{self.string(tok.text)}'"
        if tt == TokenType.HEX_STRING:
            return "0x" + format(int(self.number("0x" + tok.text)), "X")
        if tt == TokenType.NUMBER:
            keep = in_sized or len(tok.text.lstrip("-").split(".")[0]) < 2 and "." not in tok.text
            before = prev.text.upper() if prev else ""
            if prev and prev.token_type == TokenType.EQ and i >= 2:
                before = tokens[i - 2].text.upper()
            return tok.text if keep or setting or before in OPTION_WORDS else self.number(tok.text)
        if tt not in _NAME_TOKENS and tt != TokenType.HASH:
            if tok.text.casefold() in self.schema_names and _keyword_as_name(prev, nxt):
                return self.names[tok.text.casefold()]  # a column called `Comment` or `Object`
            return span
        if tt == TokenType.HASH:
            return span
        word = tok.text
        if "__" in word and word.casefold() not in self.names and word.split("__", 1)[0].casefold() in self.names:
            pseudo = "__".join(self.names.get(p.casefold(), p if p.casefold() in KEEP_WORDS else self.name(p, "obj", False))
                               for p in word.split("__"))
            opener = span[:1] if tt == TokenType.IDENTIFIER else ""
            closer = {"[": "]", "`": "`", '"': '"'}.get(opener, "")
            return f"{opener}{pseudo}{closer}"
        after_at = prev is not None and prev.token_type == TokenType.PARAMETER
        if after_at:
            two_at = i >= 2 and tokens[i - 2].token_type == TokenType.PARAMETER
            if two_at or re.fullmatch(r"P\d+", word, re.I):
                return span
            return self._name_in_sql(word, "p")
        if tt == TokenType.VAR:
            qualified = prev is not None and prev.token_type == TokenType.DOT
            is_call = nxt is not None and nxt.token_type == TokenType.L_PAREN
            if word.casefold() not in self.names:
                if word.casefold() in KEEP_WORDS or (is_call and not qualified and word.casefold() in BUILTIN_CALLS):
                    return span  # a built-in function; `PF_Dates(...)` or `#t (a, b)` are the user's names
                if prev is not None and prev.text.upper() in AFTER_KEEP:
                    return span
                if _QUERY_ID.fullmatch(word) and word.casefold() in self._queries:
                    return self._queries[word.casefold()]
        kind = "obj"
        if prev is not None and prev.text.upper() in ("INDEX", "KEY", "UNIQUE"):
            kind = "idx"
        elif prev is not None and prev.text.upper() == "CONSTRAINT":
            kind = "con"
        pseudo = self._name_in_sql(word, kind)
        opener = span[:1]
        closer = {"[": "]", "`": "`", '"': '"'}.get(opener)
        return f"{opener}{pseudo}{closer}" if closer and tt == TokenType.IDENTIFIER else pseudo

    def _name_in_sql(self, word: str, kind: str) -> str:
        """A name met in SQL: learnt for every later text, unless the SQL is a kept module's source."""
        if self._local and word.casefold() not in self.names:
            return self._code_word(word, kind)
        return self.name(word, kind, schema_object=False)

    def _code_word(self, word: str, kind: str = "obj") -> str:
        """A pseudonym that stays where it was made: `names` (and so free text) never learns it."""
        key = word.casefold()
        if key not in self._code_words:
            self._code_words[key] = self._next(f"{kind}_")
        return self._code_words[key]

    def _is_setting_value(self, prev: Any, tokens: list[Any], i: int) -> bool:
        """The literal of `tidb_x = 16`, `SET GLOBAL tidb_x = 'TABLE'` or `ATTRIBUTES '...'`: a TiDB setting."""
        if prev is None:
            return False
        word = prev
        if prev.token_type == TokenType.EQ and i >= 2:
            word = tokens[i - 2]
        if word.token_type not in _NAME_TOKENS and word.text.upper() not in OPTION_WORDS:
            return False
        return word.text.casefold() not in self.names and is_setting(word.text)

    def _gap(self, gap: str, dialect: str) -> str:
        """Whitespace and comments between tokens: TiDB's executable comments stay SQL, others are text."""
        if not gap.strip():
            return gap

        def comment(m: re.Match[str]) -> str:
            whole = m.group(0)
            if whole.startswith("/*T!"):
                return f"/*T!{m.group(1) or ''}{self.sql(m.group(2), 'mysql')}*/"
            if whole.startswith("--") and _CODE_LINE.match(whole[2:]):
                # A module kept as commented source: still code, but its lines also hold the module's own
                # comments and messages in prose, so what they name is not learnt for other text.
                self._local += 1
                try:
                    return "--" + self._sql(whole[2:], "tsql")
                finally:
                    self._local -= 1
            if dialect == "tsql":  # the user's own comment (`-- written for <customer> by <author>`): every word goes
                return self._code_text(whole)
            return self.text(whole)  # the DDL writer's prose

        return _COMMENT.sub(comment, gap)

    def _code_text(self, text: str) -> str:
        """SQL the tokenizer cannot read (one line of a string literal that spans lines), and the user's
        comments: every word that is not SQL's own vocabulary or a built-in function is a name, inside
        quotes too (such a line is often code within a dynamic-SQL string), and every number of two
        digits or more is data."""
        text = self._paths(text)

        def word(m: re.Match[str]) -> str:
            w = m.group(0)
            key = w.casefold()
            if key in self.names:
                return self.names[key]
            if key in self._queries:
                return self._queries[key]
            if key in KEEP_WORDS or key in SQL_KEYWORDS or key in BUILTIN_CALLS or w.upper() in SIZED_AFTER \
                    or _PSEUDONYM.fullmatch(w) or (len(w) == 1 and w in "Nn"):
                return w
            # Not learnt as a name: such a line may be a comment in prose, and its words must not become
            # names that free text elsewhere (the tool's own prose) then loses.
            return self._code_word(w)

        def piece(m: re.Match[str]) -> str:
            quoted = m.group(0)
            if len(quoted) > 1 and quoted.endswith("'") and quoted.startswith(("'", "N'", "n'")):
                prefix = quoted[:quoted.index("'")]
                return f"{prefix}'{self.string(quoted[len(prefix) + 1:-1])}'"
            return _WORD.sub(word, quoted)

        out = _CODE_PIECE.sub(piece, text)
        return _NUMBER.sub(lambda m: self.number(m.group(0)), out)  # a ticket, a phone number: data

    # -- free text --------------------------------------------------------------------------------

    def _multi_word(self) -> re.Pattern[str] | None:
        """Names a word match cannot find (`Order Details`, `a-b`), as one pattern, rebuilt only when one is added.

        Every such name counts, the schema's and those first met in SQL (`[Current Product List]`, a view): a name
        with a space in it is no word of the tool's prose.
        """
        if self._multi is None or self._multi[0] != len(self.names):
            multi = _alternatives(n for n in self.names if not _WORD.fullmatch(n) and (n in self.schema_names or len(n) >= 4))
            self._multi = (len(self.names), re.compile(rf"(?<!\w)(?:{multi})(?!\w)", re.I) if multi else None)
        return self._multi[1]

    def _quoted(self, m: re.Match[str], strict: bool) -> str:
        prefix, inner = m.group(1), m.group(2)
        if inner in self._strings:
            return f"{prefix}'{self._strings[inner]}'"
        key = inner.casefold()
        if key in self._windows:  # "in window 'nightly'"
            return f"{prefix}'{self._windows[key]}'"
        if key in self.names and key in self.schema_names:
            return f"{prefix}'{self.names[key]}'"
        if strict:
            return f"{prefix}'{self.string(inner)}'"
        return m.group(0)  # the tool's own ('+00:00', 'merge_option=deny') or a fragment whose names go below

    def _window_word(self) -> re.Pattern[str] | None:
        """A user's window named beside the word window, unquoted ("the nightly window", "window normal")."""
        if self._window_words is None or self._window_words[0] != len(self._windows):
            names = _alternatives(self._windows)
            pattern = re.compile(rf"(?<=\bwindow )(?:{names})\b|\b(?:{names})(?= window\b)", re.I) if names else None
            self._window_words = (len(self._windows), pattern)
        return self._window_words[1]

    def text(self, text: str, strict: bool = False) -> str:
        """Free text: known names, paths, the user's literals and their long numbers go.

        `strict` is for text that is the user's or a server's (T-SQL comments, error messages): every quoted
        string in it goes too, and every learnt number. Otherwise the text is the tool's prose, whose own
        quoted advice and small figures stay.
        """
        if not text:
            return text
        text = self._machines(text)
        if _URL.search(text):  # links are ours (rules catalogue, TiDB docs): keep them whole
            pieces = _URL.split(text)
            urls = _URL.findall(text)
            return "".join(self.text(p, strict) + (urls[i] if i < len(urls) else "") for i, p in enumerate(pieces))
        text = self._paths(text)
        text = _QUOTED.sub(lambda m: self._quoted(m, strict), text)
        windows = self._window_word()
        if windows is not None:
            text = windows.sub(lambda m: self._windows[m.group(0).casefold()], text)
        pattern = self._multi_word()
        if pattern is not None:
            text = pattern.sub(lambda m: self.names[m.group(0).casefold()], text)

        def word(w: str) -> str:
            key = w.casefold()
            if "__" in w and key not in self.names:  # keywords__key_partition: a table's experiment variant
                return "__".join(word(p) if p else p for p in w.split("__"))
            if key in self._queries:
                return self._queries[key]
            pseudo = self.names.get(key)
            if pseudo and (key in self.schema_names or len(w) >= 4):
                return pseudo
            return w

        text = _WORD.sub(lambda m: word(m.group(0)), text)

        def number(m: re.Match[str]) -> str:
            digits = m.group(0).split(".")[0]
            if not strict and len(digits) < PROSE_MIN_DIGITS:
                return m.group(0)
            return self._numbers.get(m.group(0), m.group(0))

        return _NUMBER.sub(number, text)

    # -- documents --------------------------------------------------------------------------------

    def _walk(self, value: Any, key: str, visit: Callable[[str, str, str, bool], Any], parent: str = "",
              strict: bool = False) -> Any:
        strict = strict or key in _DATA_FIELDS
        if isinstance(value, dict):
            if key in _MAP_FIELDS:  # keyed by table, store, window or query: the keys are data too
                return {self._key(str(k), key, strict): self._walk(v, str(k), visit, key, strict) for k, v in value.items()}
            return {k: self._walk(v, str(k), visit, key, strict) for k, v in value.items()}
        if isinstance(value, list):  # strings keep the list's key (sources, parameters); records start afresh
            return [self._walk(v, key if not isinstance(v, dict) else f"{key}[]", visit, parent, strict) for v in value]
        if isinstance(value, str):
            return visit(key, value, parent, strict)
        return value

    def _key(self, key: str, field: str, strict: bool) -> str:
        if field == "qps_by_window":
            return self.window(key)
        folded = key.casefold()
        if folded in self._queries:
            return self._queries[folded]
        return self.names.get(folded) or self.text(key, strict)

    def _field(self, key: str, value: str, parent: str = "", strict: bool = False) -> str | None:
        if key in _TOOL_FIELDS:
            return value
        if key in _WINDOW_FIELDS or key == "name" and parent in ("windows[]", "window"):
            return self.window(value)
        if key == "description":
            return self.text(value) if value in self._tool_descriptions else WITHHELD
        if key == "name" and parent == "queries[]":
            return None  # the user's label for a query: the report shows its (pseudonymised) SQL instead
        if key in _SQL_FIELDS:
            return self.sql(value, _SQL_FIELDS[key])
        if key in _KEEP_FIELDS and _ENUM.fullmatch(value) and value.casefold() not in self.names:
            return value
        if key in _PATH_FIELDS:
            return self.path(value)
        if key in ("id", "query_id", "query") and _QUERY_ID.fullmatch(value):
            return self.query_id(value)
        if key == "target" and "://" in value:
            return self.url(value)
        if key in ("worker", "scheduler") and "://" in value:
            return self.address(value)
        if key == "host" and parent == "workers[]":
            return self.host(value)
        if key == "parameters":
            return value if re.fullmatch(r"@P\d+", value, re.I) else "@" + self.name(value.lstrip("@"), "p", False)
        return self.text(value, strict)

    def _learn(self, inputs: ReportInputs) -> None:
        doc = inputs.assessment
        self._learn_paths(doc)
        for extra in (inputs.replay, inputs.experiment):
            if isinstance(extra, dict):
                self._learn_paths(extra)
        self._learn_cluster(inputs.replay)
        source = doc.get("source") or {}
        if source.get("database"):
            self.name(str(source["database"]), "db")
        tables = sorted((t for t in doc.get("tables") or () if isinstance(t, dict)),
                        key=lambda t: (str(t.get("schema", "")).casefold(), str(t.get("name", "")).casefold()))
        for t in tables:
            if t.get("schema"):
                self.name(str(t["schema"]), "schema")
        for t in tables:
            self.name(str(t.get("name", "")), "table")
        for t in tables:
            for c in t.get("columns") or ():
                if isinstance(c, dict) and c.get("name"):
                    self.name(str(c["name"]), "col")
            for part in re.findall(r"[`\[\"]?([^`\[\]\".]+)[`\]\"]?", str(t.get("target") or "")):
                self.name(part, "table")
        for q in doc.get("queries") or ():
            if isinstance(q, dict) and q.get("id"):
                self.query_id(str(q["id"]))
        workload = doc.get("workload") if isinstance(doc.get("workload"), dict) else {}
        for w in workload.get("windows") or ():
            if isinstance(w, dict) and isinstance(w.get("name"), str):
                if w.get("kind") in USER_WINDOW_KINDS or not w.get("kind"):
                    self.window(w["name"])
                else:
                    self._tool_windows.add(w["name"].casefold())
                    if isinstance(w.get("description"), str):
                        self._tool_descriptions.add(w["description"])
        self.own_files([name for name, _ in inputs.ddl])
        self.own_files([str(f["name"]) for f in doc.get("ddl_files") or () if isinstance(f, dict) and f.get("name")])
        for f in doc.get("findings") or ():
            obj = str(f.get("object") or "") if isinstance(f, dict) else ""
            if obj and not obj.startswith("query ") and _OBJECT.fullmatch(obj) and not _PATHLIKE.fullmatch(obj) \
                    and not _COLLATION.fullmatch(obj):
                for part in obj.split("."):
                    part = part.strip().strip("[]")
                    if part and not part.isdigit() and part.casefold() not in self.names:
                        self.name(part, "obj")
        for f in doc.get("findings") or ():
            if isinstance(f, dict) and isinstance(f.get("details"), dict):
                self._learn_details(f["details"])
        for t in tables:
            for part in ("distribution", "identity"):
                if isinstance(t.get(part), dict) and isinstance(t[part].get("evidence"), dict):
                    self._learn_details(t[part]["evidence"])
        for t in tables:
            for field in ("ddl", "post_data_ddl"):
                for s in t.get(field) if isinstance(t.get(field), list) else [t.get(field)]:
                    if isinstance(s, str):
                        self.sql(s, "mysql")
        for _, content in inputs.ddl:
            for title in _MODULE_TITLE.findall(content):  # kept modules are named only in their block's title
                for part in title.split("."):
                    if part and part.casefold() not in self.names:
                        self.name(part.strip("[]`\""), "obj")
        for _, content in inputs.ddl:
            self.sql(content, "mysql")
        for q in doc.get("queries") or ():
            if isinstance(q, dict):
                for field in ("source_sql", "fingerprint", "target_sql"):
                    if isinstance(q.get(field), str):
                        self.sql(q[field], _SQL_FIELDS[field])
        # A comment rewritten while learning may name something learnt later (a comment before the
        # statement that defines the name).
        self._rewrite_later()

    def _learn_paths(self, value: Any, key: str = "") -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                self._learn_paths(v, str(k))
        elif isinstance(value, list):
            for v in value:
                self._learn_paths(v, key)
        elif isinstance(value, str) and key in _PATH_FIELDS and value and value not in self._own_files \
                and ("/" in value or "\\" in value or "." in value):
            self._known_paths.setdefault(value.casefold(), value)

    def _learn_details(self, details: dict[str, Any]) -> None:
        """Names that findings and plans list (constraints, foreign keys, partition schemes): the DDL may never
        spell them (a primary key's name, a name over TiDB's 64 characters that was shortened), so they are
        learnt here, or free text that repeats them would keep them."""
        for key, value in details.items():
            kind = _DETAIL_NAMES.get(key)
            if kind is None:
                continue
            for item in value if isinstance(value, list) else [value]:
                if not isinstance(item, str):
                    continue
                head, _, inside = item.partition("(")  # `UQ_x (col)`, `PS_dates(col)`
                for part in [*head.split("."), *inside.rstrip(") ").split(",")]:
                    part = part.strip().strip("[]`\"")
                    if part and not part.isdigit() and part.casefold() not in self.names and _OBJECT.fullmatch(part):
                        self.name(part, kind)

    def document(self, doc: dict[str, Any]) -> dict[str, Any]:
        out = self._walk(doc, "", self._field)  # builds new containers: the caller's document is untouched
        for mine, original in zip(out.get("ddl_files") or (), doc.get("ddl_files") or (), strict=False):
            if isinstance(mine, dict) and isinstance(original, dict) and "name" in original:
                mine["name"] = original["name"]  # our own file names (02-tables.sql): the ddl/ files keep them
        source = out.get("source")
        if isinstance(source, dict):
            if source.get("database"):
                source["database"] = self.name(str(doc["source"]["database"]), "db")
            server = source.get("server")
            if isinstance(server, dict) and server.get("instance"):
                server["instance"] = "server_001"
        return out

    def inputs(self, inputs: ReportInputs) -> ReportInputs:
        """Pseudonymised copies of every document of one OUT folder."""
        self._learn(inputs)
        assessment = self.document(inputs.assessment)
        assessment["anonymized"] = True  # the report says so, even when re-rendered from these files
        return ReportInputs(
            assessment=assessment,
            replay=self.document(inputs.replay) if inputs.replay is not None else None,
            experiment=self.document(inputs.experiment) if inputs.experiment is not None else None,
            data=self.document(inputs.data) if inputs.data is not None else None,
            compare=self.compare(inputs.compare) if inputs.compare is not None else None,
            ddl=[(name, self.sql(content, "mysql")) for name, content in inputs.ddl],
        )


    def compare(self, doc: dict[str, Any]) -> dict[str, Any]:
        """compare.json without the user's rows: the differing rows' values and the parameter values are
        withheld (their shape kept: which side had a row, how many columns), the rest pseudonymised."""
        out = self.document({k: v for k, v in doc.items() if k not in ("queries", "stopped")})
        if doc.get("stopped"):
            out["stopped"] = self.text(str(doc["stopped"]), True)  # a server's last words, quoting what it liked
        queries = []
        for q in doc.get("queries") or ():
            if not isinstance(q, dict):
                continue
            rows = [{"position": d.get("position"),
                     **{side: None if d.get(side) is None else [None if v is None else WITHHELD for v in d[side]]
                        for side in ("sql_server", "target")}}
                    for d in q.get("first_differences") or () if isinstance(d, dict)]
            kept = {k: v for k, v in q.items() if k not in ("first_differences", "values", "reason", "columns", "retried",
                                                            "reconnected")}
            mine = self.document(kept)
            if q.get("retried"):
                mine["retried"] = self.text(str(q["retried"]), True)
            if isinstance(q.get("reconnected"), list):
                mine["reconnected"] = [{**self.document({k: v for k, v in r.items() if k != "why"}),
                                        "why": self.text(str(r.get("why") or ""), True)}
                                       for r in q["reconnected"] if isinstance(r, dict)]
            mine["first_differences"] = rows
            mine["values"] = {self._field("parameters", str(name)) or WITHHELD: WITHHELD for name in q.get("values") or {}}
            mine["columns"] = {side: [self.text(str(c)) for c in names] for side, names in (q.get("columns") or {}).items()
                               if isinstance(names, list)}
            mine["reason"] = self.text(str(q.get("reason") or ""), True)
            queries.append(mine)
        out["queries"] = queries
        return out

    def rules(self, rules: dict[str, RuleInfo]) -> dict[str, RuleInfo]:
        """Catalogue prose with the same replacements (rule DI01's own example is a table called keywords)."""
        return {code: replace(r, name=self.text(r.name), summary=self.text(r.summary), remediation=self.text(r.remediation))
                for code, r in rules.items()}


def write_anonymized(out: Path, dest: Path, anonymizer: Anonymizer) -> tuple[ReportInputs, list[Path]]:
    """Pseudonymised copies of every file a run left in OUT, written into DEST (OUT itself for `assess --anonymize`).

    Every file gets the same pseudonyms as the page rendered from the returned inputs, so a report shared with
    its assessment.json and ddl/ reads as one. A ddl/ file of an earlier copy that this run has no more is removed.
    """
    out, dest = Path(out), Path(dest)
    queries_sql = out / "queries.sql"
    queries_text = queries_sql.read_text(encoding="utf-8") if queries_sql.is_file() else None
    done = anonymizer.inputs(load_inputs(out))
    written = [write_json(dest / "assessment.json", done.assessment)]
    for name, doc in (("replay.json", done.replay), ("experiment.json", done.experiment), ("data.json", done.data),
                      ("compare.json", done.compare)):
        if doc is not None:
            written.append(write_json(dest / name, doc))
        elif dest != out:
            (dest / name).unlink(missing_ok=True)  # from an earlier copy, of a run that had one
    names = {name for name, _ in done.ddl}
    if dest != out and (dest / "ddl").is_dir():
        for stale in (dest / "ddl").glob("*.sql"):
            if stale.name not in names:
                stale.unlink()
    for name, content in done.ddl:
        written.append(write_text(dest / "ddl" / name, content))
    if queries_text is not None:
        written.append(write_text(dest / "queries.sql", anonymizer.sql(queries_text, "mysql")))
    return done, written


def anonymize_outputs(out: Path) -> list[Path]:
    """Rewrite, in place, every file `assess` wrote into OUT (the data files of `assess --anonymize`)."""
    return write_anonymized(out, out, Anonymizer())[1]
