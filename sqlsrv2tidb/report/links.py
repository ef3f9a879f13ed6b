"""Where the report points: element anchors, source-file locations, documentation links, query labels.

Every section of the page links findings to tables and query classes, sources to their files and
rules to their documentation, so these helpers are shared by `build` and every `build_*` section
module; they live here so that a section depends on them and not on the module that assembles
the page.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any
from urllib.parse import quote

from .rulesinfo import RuleInfo
from .viewmodel import Link

SAFE_SCHEMES = ("https://", "http://", "file:")


class Anchors:
    """Unique, URL-safe element ids for tables, query classes and files, so findings can link to them.

    `report_dir` is the folder the page is written to: a source file named by a relative path is
    linked relative to it (see `location`).
    """

    def __init__(self, report_dir: Path | None = None) -> None:
        self.report_dir = report_dir
        self._used: set[str] = set()
        self.tables: dict[str, str] = {}
        self.queries: dict[str, str] = {}
        self.labels: dict[str, str] = {}
        """Query id -> what the page calls the class (`query_label`)."""
        self.unlisted_queries: set[str] = set()
        """Query classes the page leaves out (a large workload: `build_workload.listed_query_ids`)."""
        self._files: dict[str, Link | None] = {}

    def make(self, prefix: str, text: str) -> str:
        slug = re.sub(r"[^A-Za-z0-9_-]+", "-", text).strip("-").lower()[:60] or "x"
        anchor, n = f"{prefix}-{slug}", 1
        while anchor in self._used:
            n += 1
            anchor = f"{prefix}-{slug}-{n}"
        self._used.add(anchor)
        return anchor

    def table(self, schema: str, name: str) -> str:
        key = f"{schema}.{name}".casefold()
        if key not in self.tables:
            self.tables[key] = self.make("t", f"{schema}-{name}")
        return self.tables[key]

    def query(self, query_id: str) -> str:
        if query_id not in self.queries:
            self.queries[query_id] = self.make("q", query_id)
        return self.queries[query_id]

    def for_object(self, obj: str) -> str | None:
        """The anchor of the table or query class a finding names (`dbo.T`, `dbo.T.col`, `query q1…`)."""
        if obj.startswith("query "):
            return self.queries.get(obj[6:].strip())
        parts = obj.split(".")
        for n in (2, 1):
            if len(parts) >= n:
                key = ".".join(parts[:2]).casefold() if n == 2 else f"dbo.{parts[0]}".casefold()
                if key in self.tables:
                    return self.tables[key]
        return None

    def source(self, file: Any, line: Any) -> Link | None:
        """`file:line` of a statement the tool read, linked from where this page is written.

        The link is worked out once per file: a 100,000-class Query Store export names one file."""
        if not isinstance(file, str) or not file:
            return None
        if file not in self._files:
            self._files[file] = location(file, None, self.report_dir)
        found = self._files[file]
        return Link(f"{file}:{line}" if isinstance(line, int) and line > 0 else file, found.href if found else None)


LABEL_CHARS = 60


def query_label(q: dict[str, Any]) -> str:
    """The user's name for a query class (a workload spec's `name:`), else the start of its SQL on one line."""
    name = q.get("name")
    if isinstance(name, str) and name.strip():
        return name.strip()
    sql = " ".join(str(q.get("source_sql") or q.get("fingerprint") or "").split())
    if not sql:
        return str(q.get("id", ""))
    return sql if len(sql) <= LABEL_CHARS else sql[:LABEL_CHARS].rstrip() + "…"


MAX_SQL_CHARS = 4000
"""Longer statements are cut in the page (assessment.json and compare.json keep them whole), so 10,000 classes
stay light."""


def cut_sql(text: str) -> tuple[str, bool]:
    """A statement as the page shows it, and whether it was cut."""
    if len(text) <= MAX_SQL_CHARS:
        return text, False
    return text[:MAX_SQL_CHARS] + "\n…", True


def safe_href(url: str) -> str | None:
    """Only web and file links: a rule file from a user's --rules folder must not smuggle `javascript:`."""
    return url if url.lower().startswith(SAFE_SCHEMES) else None


def location(file: Any, line: Any, report_dir: Path | None = None) -> Link | None:
    """`file:line`, linked to the file.

    An absolute path becomes a `file:` URL. A relative path was relative to the folder the tool ran
    in; it is linked relative to `report_dir` (so the link survives moving both folders together)
    only while it still names a file from here, since `report OUT` may run from anywhere.
    """
    if not isinstance(file, str) or not file:
        return None
    text = f"{file}:{line}" if isinstance(line, int) and line > 0 else file
    if PurePosixPath(file).is_absolute():
        return Link(text, PurePosixPath(file).as_uri())
    windows = PureWindowsPath(file)
    if windows.is_absolute() and windows.drive:
        return Link(text, windows.as_uri())
    if report_dir is not None and not windows.drive and Path(file).is_file():
        relative = os.path.relpath(Path(file).resolve(), Path(report_dir).resolve())
        return Link(text, quote(Path(relative).as_posix()))
    return Link(text)


def docs_links(rule: RuleInfo) -> tuple[Link, ...]:
    links = []
    for url in rule.references:
        href = safe_href(url)
        if href:
            links.append(Link(_link_text(url), href))
    return tuple(links)


def _link_text(url: str) -> str:
    tail = url.rstrip("/").rsplit("/", 1)[-1]
    return tail.split("#", 1)[-1] if "#" in tail else (tail or url)
