"""`--anonymize`: a report that can leave the company, with every object name and literal replaced.

Names become stable pseudonyms (`table_001`, `col_004`, `schema_001`, `idx_002`, `obj_007`), string
literals `'str_001'`, numbers of two or more digits `1001`, `1002`, ..., file paths `file_001.sql`,
query ids `q0001`. The same original always gets the same pseudonym within one run, and pseudonyms
are handed out in a fixed order (tables and columns first, sorted), so the same inputs give the same
report. SQL keeps its structure: statements are re-assembled token by token (sqlglot's tokenizer),
keywords, functions, type sizes and TiDB options stay; comments are treated as text.

Two passes: the first reads every SQL text, finding object and query-only names, and collects the
literals; the second rewrites SQL and free text (messages, rationales, evidence) with everything
learnt, so a name first met in a query is also replaced in a finding's message.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any
from urllib.parse import urlsplit

from sqlglot.dialects.mysql import MySQL
from sqlglot.dialects.tsql import TSQL
from sqlglot.errors import TokenError
from sqlglot.tokens import TokenType

from ..outdir import write_json, write_text
from .inputs import ReportInputs, load_inputs
from .rulesinfo import RuleInfo
from .sqlwords import AFTER_KEEP, KEEP_WORDS, OPTION_WORDS, SIZED_AFTER

_TOKENIZERS = {"tsql": TSQL().tokenizer_class(), "mysql": MySQL().tokenizer_class()}
_NAME_TOKENS = {TokenType.VAR, TokenType.IDENTIFIER}
_STRINGS = {TokenType.STRING, TokenType.NATIONAL_STRING, TokenType.BYTE_STRING, TokenType.BIT_STRING,
            TokenType.RAW_STRING, TokenType.HEREDOC_STRING}
_WORD = re.compile(r"[A-Za-z_#][A-Za-z0-9_$#]*")
_QUOTED = re.compile(r"N?'(?:[^']|'')*'")
_NUMBER = re.compile(r"(?<![\w.])\d{2,}(?:\.\d+)?(?![\w.])")
_PATHLIKE = re.compile(
    r"[A-Za-z]:\\[^\s'\"<>]+"  # C:\\...
    r"|(?<![\w/:])/(?:[\w.\-]+/)+[\w.\-]+"  # /two/or/more/segments, not the // of a URL
    r"|(?<![\w/])[\w.\-]+(?:[/\\][\w.\-]+)*\.(?:sql|xml|xel|json|csv|ya?ml|sqlproj|txt)\b"
)
_URL = re.compile(r"https?://[^\s'\"<>]+")
_OBJECT = re.compile(r"[\w#@$ \[\]-]+(?:\.[\w#@$ \[\]-]+){0,3}")
_COMMENT = re.compile(r"/\*T!(\[[^\]]*\])?(.*?)\*/|/\*.*?\*/|--[^\n]*|#[^\n]*", re.S)
_QUERY_ID = re.compile(r"q[0-9a-f]{6,}")
_CODE_LINE = re.compile(
    r"\s{2,}\S|\s*(?:CREATE|ALTER|SELECT|INSERT|UPDATE|DELETE|MERGE|DECLARE|SET|IF|ELSE|BEGIN|END|EXEC|EXECUTE|RETURN|"
    r"WHILE|FROM|WHERE|JOIN|WITH|GO|OPEN|FETCH|CLOSE|DEALLOCATE|PRINT|RAISERROR|THROW|COMMIT|ROLLBACK)\b|.*[@;]\s*$",
    re.I,
)
"""A `--` comment that carries code (a module kept as source, indented by the DDL writer), not prose."""
_MODULE_TITLE = re.compile(r"^--\s*(?:PROCEDURE|FUNCTION|TRIGGER|DDL TRIGGER|SYNONYM|VIEW)\s+([^\s(]+)", re.M)
_SQL_FIELDS = {"source_sql": "tsql", "fingerprint": "tsql", "target_sql": "mysql", "ddl": "mysql",
               "post_data_ddl": "mysql", "default": "mysql", "sql": "mysql", "statement": "mysql", "content": "mysql"}
_KEEP_FIELDS = {"format", "tool_version", "status", "kind", "severity", "rule", "code", "strategy", "origin",
                "topology_yaml", "tidb_version", "source_type", "target_type", "identity", "layout", "category",
                "start", "end", "timestamp", "qps", "executions"}
_PATH_FIELDS = {"file", "sources", "path", "config_file"}
_MAP_FIELDS = {"evidence", "details", "before", "after", "leaders_by_store", "written_bytes_by_store", "qps_by_window",
               "per_query", "errors_by_message"}
_ENUM = re.compile(r"[A-Za-z0-9_.:+-]*")
"""Enum values, versions and timestamps: kept as they are unless they are also a name."""


class Anonymizer:
    """One run's pseudonyms; share one instance across every file written together."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}
        self.schema_names: set[str] = set()
        self._strings: dict[str, str] = {}
        self._numbers: dict[str, str] = {}
        self._files: dict[str, str] = {}
        self._queries: dict[str, str] = {}
        self._counters: dict[str, int] = {}
        self._sql_cache: dict[tuple[str, str], str] = {}
        self._multi: tuple[int, re.Pattern[str] | None] | None = None

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

    def string(self, value: str) -> str:
        if value not in self._strings:
            self._strings[value] = self._next("str_")
        return self._strings[value]

    def number(self, text: str) -> str:
        if text not in self._numbers:
            self._numbers[text] = str(1000 + len(self._numbers) + 1)
        return self._numbers[text]

    def path(self, original: str) -> str:
        if original not in self._files:
            pure = PureWindowsPath(original) if "\\" in original else PurePosixPath(original)
            self._files[original] = self._next("file_") + pure.suffix.lower()
        return self._files[original]

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
        try:
            tokens = _TOKENIZERS[dialect].tokenize(text)
        except TokenError:
            return self.text(text)  # half a statement: treat it as text rather than leak it
        out: list[str] = []
        pos = 0
        keep_parens: list[bool] = []
        for i, tok in enumerate(tokens):
            out.append(self._gap(text[pos:tok.start], dialect))
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
        out.append(self._gap(text[pos:], dialect))
        return "".join(out)

    def _token(self, tok: Any, span: str, prev: Any, nxt: Any, tokens: list[Any], i: int, in_sized: bool) -> str:
        tt = tok.token_type
        if tt in _STRINGS:
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
            return tok.text if keep or before in OPTION_WORDS else self.number(tok.text)
        if tt not in _NAME_TOKENS and tt != TokenType.HASH:
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
            return self.name(word, "p", schema_object=False)
        if tt == TokenType.VAR:
            qualified = prev is not None and prev.token_type == TokenType.DOT
            is_call = nxt is not None and nxt.token_type == TokenType.L_PAREN
            if word.casefold() not in self.names:
                if word.casefold() in KEEP_WORDS or (is_call and not qualified):
                    return span
                if prev is not None and prev.text.upper() in AFTER_KEEP:
                    return span
                if _QUERY_ID.fullmatch(word) and word.casefold() in self._queries:
                    return self._queries[word.casefold()]
        kind = "obj"
        if prev is not None and prev.text.upper() in ("INDEX", "KEY", "UNIQUE"):
            kind = "idx"
        elif prev is not None and prev.text.upper() == "CONSTRAINT":
            kind = "con"
        pseudo = self.name(word, kind, schema_object=False)
        opener = span[:1]
        closer = {"[": "]", "`": "`", '"': '"'}.get(opener)
        return f"{opener}{pseudo}{closer}" if closer and tt == TokenType.IDENTIFIER else pseudo

    def _gap(self, gap: str, dialect: str) -> str:
        """Whitespace and comments between tokens: TiDB's executable comments stay SQL, others are text."""
        if not gap.strip():
            return gap

        def comment(m: re.Match[str]) -> str:
            whole = m.group(0)
            if whole.startswith("/*T!"):
                return f"/*T!{m.group(1) or ''}{self.sql(m.group(2), 'mysql')}*/"
            if whole.startswith("--") and _CODE_LINE.match(whole[2:]):
                return "--" + self.sql(whole[2:], "tsql")  # a module kept as commented source: still code
            return self.text(whole)

        return _COMMENT.sub(comment, gap)

    # -- free text --------------------------------------------------------------------------------

    def _multi_word(self) -> re.Pattern[str] | None:
        """Names a word match cannot find (`Order Details`, `a-b`), as one pattern, rebuilt only when one is added."""
        if self._multi is None or self._multi[0] != len(self.schema_names):
            multi = [n for n in self.schema_names if not _WORD.fullmatch(n)]
            pattern = re.compile("|".join(re.escape(n) for n in sorted(multi, key=len, reverse=True)), re.I) if multi else None
            self._multi = (len(self.schema_names), pattern)
        return self._multi[1]

    def text(self, text: str) -> str:
        """Messages, rationales, evidence: known names, quoted literals, paths and long numbers go."""
        if not text:
            return text
        if _URL.search(text):  # links are ours (rules catalogue, TiDB docs): keep them whole
            pieces = _URL.split(text)
            urls = _URL.findall(text)
            return "".join(self.text(p) + (urls[i] if i < len(urls) else "") for i, p in enumerate(pieces))
        text = _PATHLIKE.sub(lambda m: self.path(m.group(0)), text)
        text = _QUOTED.sub(lambda m: f"'{self.string(m.group(0).lstrip('N')[1:-1])}'", text)
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
        return _NUMBER.sub(lambda m: self._numbers.get(m.group(0), m.group(0)), text)

    # -- documents --------------------------------------------------------------------------------

    def _walk(self, value: Any, key: str, visit: Callable[[str, str], str]) -> Any:
        if isinstance(value, dict):
            if key in _MAP_FIELDS:  # keyed by table, store, window or query: the keys are data too
                return {self._key(str(k)): self._walk(v, str(k), visit) for k, v in value.items()}
            return {k: self._walk(v, str(k), visit) for k, v in value.items()}
        if isinstance(value, list):  # strings keep the list's key (sources, parameters); records start afresh
            return [self._walk(v, key if not isinstance(v, dict) else f"{key}[]", visit) for v in value]
        if isinstance(value, str):
            return visit(key, value)
        return value

    def _key(self, key: str) -> str:
        folded = key.casefold()
        if folded in self._queries:
            return self._queries[folded]
        return self.names.get(folded) or self.text(key)

    def _field(self, key: str, value: str) -> str:
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
        if key == "parameters":
            return value if re.fullmatch(r"@P\d+", value, re.I) else "@" + self.name(value.lstrip("@"), "p", False)
        return self.text(value)

    def _learn(self, inputs: ReportInputs) -> None:
        doc = inputs.assessment
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
        for f in doc.get("findings") or ():
            obj = str(f.get("object") or "") if isinstance(f, dict) else ""
            if obj and not obj.startswith("query ") and _OBJECT.fullmatch(obj) and not _PATHLIKE.fullmatch(obj):
                for part in obj.split("."):
                    part = part.strip().strip("[]")
                    if part and not part.isdigit() and part.casefold() not in self.names:
                        self.name(part, "obj")
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
            ddl=[(name, self.sql(content, "mysql")) for name, content in inputs.ddl],
        )


    def rules(self, rules: dict[str, RuleInfo]) -> dict[str, RuleInfo]:
        """Catalogue prose with the same replacements (rule DI01's own example is a table called keywords)."""
        return {code: replace(r, name=self.text(r.name), summary=self.text(r.summary), remediation=self.text(r.remediation))
                for code, r in rules.items()}


def anonymize_outputs(out: Path) -> list[Path]:
    """Rewrite, in place, every file `assess` wrote into OUT (`assess --anonymize`)."""
    out = Path(out)
    anonymizer = Anonymizer()
    done = anonymizer.inputs(load_inputs(out))
    written = [write_json(out / "assessment.json", done.assessment)]
    if done.replay is not None:
        written.append(write_json(out / "replay.json", done.replay))
    if done.experiment is not None:
        written.append(write_json(out / "experiment.json", done.experiment))
    for name, content in done.ddl:
        written.append(write_text(out / "ddl" / name, content))
    queries_sql = out / "queries.sql"
    if queries_sql.is_file():
        written.append(write_text(queries_sql, anonymizer.sql(queries_sql.read_text(encoding="utf-8"), "mysql")))
    return written

