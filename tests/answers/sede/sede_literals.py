"""What the corpus's Stack Exchange queries look for: the literals of tests/corpus/sede-val/val_original.jsonl.

The generated rows must hold what the 857 queries filter on, or their answers are empty: the tag names
(`TagName = 'python'`, `Tags LIKE '%<jquery>%'`), the user and post ids (`OwnerUserId = 1001643`), the
display names (`DisplayName IN ('Shog9', ...)`), the badge names (`Name = 'Nice Answer'`), the places
(`Location LIKE '%Greece%'`) and the words searched in titles, bodies and comments. They are read from the
queries themselves, so a query added to the corpus brings its literals along. Placeholders (`##TagName##`)
are not literals and are skipped; the compare stage gives them values from the rows.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "sede-val"
_TAG = re.compile(r"^[a-z0-9][a-z0-9#+.\-]{0,34}$")
_TEXT = r"N?'((?:[^']|'')*)'"
_USER_COLUMNS = {"owneruserid", "userid", "lasteditoruserid", "targetuserid", "approvedbyuserid", "deletionuserid"}
_POST_COLUMNS = {"postid", "parentid", "acceptedanswerid", "relatedpostid", "duplicateofquestionid", "excerptpostid",
                 "wikipostid"}


@dataclass(frozen=True)
class QueryLiterals:
    tags: tuple[str, ...]
    user_ids: tuple[int, ...]
    post_ids: tuple[int, ...]
    tag_ids: tuple[int, ...]
    display_names: tuple[str, ...]
    badge_names: tuple[str, ...]
    locations: tuple[str, ...]
    """Text a user's Location is searched for (`LIKE '%Greece%'`)."""
    phrases: tuple[tuple[str, ...], ...]
    """Pieces a title, body or comment is searched for, in order (`LIKE '%php%curl%'` -> ('php', 'curl'))."""


def _queries() -> list[str]:
    lines = (CORPUS / "val_original.jsonl").read_text(encoding="utf-8").splitlines()
    return [re.sub(r"--[^\n]*|/\*.*?\*/", " ", json.loads(line)["QueryBody"], flags=re.S) for line in lines]


def _text(literal: str) -> str:
    return literal.replace("''", "'")


def _compared(sql: str, columns: str) -> list[tuple[str, str]]:
    """(operator, literal) for `column = 'x'`, `column LIKE 'x'` and each literal of `column IN (...)`, the column
    maybe in LOWER() or UPPER(); `columns` is a regex of the column names."""
    out = []
    column = rf"(?:(?:lower|upper|ltrim|rtrim)\s*\(\s*)?(?:\b\w+\.)?\[?(?:{columns})\]?(?:\s*\))?"
    for m in re.finditer(rf"(?i){column}\s*(=|<>|!=|(?:not\s+)?like)\s*\(?\s*{_TEXT}", sql):
        out.append((m.group(1).lower(), _text(m.group(2))))
    for m in re.finditer(rf"(?i){column}\s+(?:not\s+)?in\s*\(([^()]*)\)", sql):
        out += [("in", _text(t)) for t in re.findall(_TEXT, m.group(1))]
    return out


def _numbers(sql: str) -> list[tuple[str, str, int]]:
    """(qualifier, column, number) for `x.column = 123` and each number of `column IN (1, 2)`."""
    out = []
    for m in re.finditer(r"(?i)(?:\b(\w+)\.)?\[?(\w+)\]?\s*=\s*(\d+)\b", sql):
        out.append(((m.group(1) or "").lower(), m.group(2).lower(), int(m.group(3))))
    for m in re.finditer(r"(?i)(?:\b(\w+)\.)?\[?(\w+)\]?\s+in\s*\(([\d\s,]+)\)", sql):
        out += [((m.group(1) or "").lower(), m.group(2).lower(), int(n)) for n in re.findall(r"\d+", m.group(3))]
    return out


def _only_table(sql: str) -> str | None:
    tables = {t.lower() for t in re.findall(r"(?i)\b(?:from|join)\s+(?:dbo\.)?\[?(\w+)\]?", sql)}
    return next(iter(tables)) if len(tables) == 1 else None


@cache
def query_literals() -> QueryLiterals:
    from sede_lists import BADGES

    tags: dict[str, None] = {}
    users: set[int] = set()
    posts: set[int] = set()
    tag_ids: set[int] = set()
    names: dict[str, None] = {}
    badges: dict[str, None] = {}
    places: dict[str, None] = {}
    phrases: dict[tuple[str, ...], None] = {}
    known_badges = {b.casefold(): b for b in BADGES}
    for sql in _queries():
        for op, text in _compared(sql, "tagname|tags|targettagname|sourcetagname"):
            if "##" in text:
                continue
            candidates = re.findall(r"<([^<>%]+)>", text) if "<" in text else [text] if "like" not in op else []
            tags.update((t.lower(), None) for t in candidates if _TAG.match(t.lower()))
        for op, text in _compared(sql, "displayname|ownerdisplayname|userdisplayname"):
            if "##" not in text and "%" not in text and "like" not in op and text.strip():
                names[text] = None
        for _, text in _compared(sql, "name"):
            if text.casefold() in known_badges:
                badges[known_badges[text.casefold()]] = None
        for op, text in _compared(sql, "location"):
            pieces = [p for p in text.split("%") if p and "##" not in p]
            if "like" in op and len(pieces) == 1:
                places[pieces[0]] = None
        for op, text in _compared(sql, "body|title|text|comment|aboutme"):
            pieces = tuple(p for p in text.split("%") if p.strip())
            if "like" in op and pieces and not any("##" in p or "_" in p or "[" in p for p in pieces):
                phrases[pieces] = None
        only = _only_table(sql)
        for qualifier, column, number in _numbers(sql):
            if number < 1:
                continue
            if column in _USER_COLUMNS or (column == "id" and (qualifier in ("u", "users") or only == "users")):
                users.add(number)
            elif column in _POST_COLUMNS or (column == "id" and (qualifier in ("p", "q", "a", "posts") or only == "posts")):
                posts.add(number)
            elif column == "tagid":
                tag_ids.add(number)
        for name, default in re.findall(r"##(\w+)(?::int)?\?(\d+)##", sql):
            (users if "user" in name.lower() else posts if "post" in name.lower() or "question" in name.lower()
             else set()).add(int(default))
    return QueryLiterals(tuple(tags), tuple(sorted(users)), tuple(sorted(posts)), tuple(sorted(tag_ids)),
                         tuple(names), tuple(badges), tuple(places), tuple(phrases))
