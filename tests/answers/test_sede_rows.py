"""The Stack Exchange rows generator (tests/answers/sede/rows.py) and the schema it fills, in Python alone.

The rows must be the same for the same seed, hold the site's fixed lists, keep every foreign id and
every order of events, and have what makes the corpus queries' answers worth comparing: heavy tails
with ties, negative scores, NULLs where the site has them, names in many scripts with trailing spaces,
and the tags, ids, names and words the queries look for.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import datetime
from functools import cache
from statistics import median

import pytest
from rows import SedeRows, generate
from sede_literals import CORPUS, query_literals
from sede_references import REFERENCES
from sede_schema import SCHEMA, table_columns
from typer.testing import CliRunner

from sqlsrv2tidb import api
from sqlsrv2tidb.cli import app


@cache
def default_rows() -> SedeRows:
    return generate()


def _as_dicts(rows: SedeRows, table: str) -> list[dict]:
    names = [c for c, _ in table_columns()[table]]
    return [dict(zip(names, row, strict=True)) for row in rows.tables[table]]


def test_the_schema_has_every_table_and_column_of_the_corpus_and_its_keys():
    spec = json.loads((CORPUS / "tables_so.json").read_text(encoding="utf-8"))[0]
    wanted: dict[str, list[str]] = {}
    for table, column in spec["column_names_original"]:
        if table >= 0:
            wanted.setdefault(spec["table_names_original"][table], []).append(column)
    database = api.read([SCHEMA]).database
    assert {t.name: [c.name for c in t.columns] for t in database.tables} == wanted
    keys = {t.name: t.primary_key.column_names for t in database.tables}
    assert keys.pop("PostTags") == ("PostId", "TagId") and set(keys.values()) == {("Id",)} and len(keys) == 28
    types = {(t.name, c.name): str(c.type) for t in database.tables for c in t.columns}
    assert types[("Posts", "PostTypeId")] == "tinyint" and types[("Users", "DisplayName")] == "nvarchar(40)"
    assert types[("Posts", "Title")] == types[("Posts", "Tags")] == "nvarchar(250)"
    assert types[("Posts", "Body")] == "nvarchar(max)" and types[("Posts", "CreationDate")] == "datetime"
    assert types[("Badges", "TagBased")] == "bit" and types[("PostHistory", "RevisionGUID")] == "uniqueidentifier"
    result = CliRunner().invoke(app, ["schema", str(SCHEMA), "-q"])
    assert result.exit_code == 0 and "total       29      211            29" in result.output, result.output


def test_the_same_seed_gives_the_same_rows_and_another_seed_others():
    first, again = generate(0.3, seed=5), generate(0.3, seed=5)
    assert first.tables == again.tables and first.digest() == again.digest()
    other = generate(0.3, seed=6)
    assert other.digest() != first.digest()
    assert first.tables["PostTypes"] == other.tables["PostTypes"]  # the fixed lists do not depend on the seed
    assert first.tables["Posts"] != other.tables["Posts"] and first.tables["Users"] != other.tables["Users"]


def test_scale_sets_the_size_and_the_fixed_lists_stay_whole():
    rows, small = default_rows(), generate(0.2, seed=1)
    assert 50_000 <= sum(rows.counts.values()) <= 62_000, rows.counts
    assert sum(small.counts.values()) < sum(rows.counts.values()) / 3
    for table in ("PostTypes", "VoteTypes", "PostHistoryTypes", "CloseReasonTypes", "FlagTypes", "ReviewTaskTypes"):
        assert small.tables[table] == rows.tables[table]
    assert dict(rows.tables["PostTypes"])[1] == "Question" and dict(rows.tables["PostTypes"])[2] == "Answer"
    votes = dict(rows.tables["VoteTypes"])
    assert (votes[1], votes[2], votes[3], votes[8], votes[9]) == ("AcceptedByOriginator", "UpMod", "DownMod",
                                                                  "BountyStart", "BountyClose")
    assert dict(rows.tables["PostHistoryTypes"])[10] == "Post Closed"


@pytest.mark.parametrize("scale", [1.0, 0.2])
def test_every_foreign_id_is_a_row_of_its_table(scale):
    rows = default_rows() if scale == 1.0 else generate(scale, seed=3)
    for table, column, parent, parent_column in REFERENCES:
        held = set(rows.column(parent, parent_column))
        dangling = [v for v in rows.column(table, column) if v is not None and v not in held]
        assert not dangling, (table, column, dangling[:5])
    for table in table_columns():
        keys = [tuple(row[:2]) if table == "PostTags" else row[0] for row in rows.tables[table]]
        assert len(keys) == len(set(keys)), table


def test_events_come_in_their_order_and_within_2008_to_2023():
    rows = default_rows()
    posts = {p["Id"]: p for p in _as_dicts(rows, "Posts")}
    users = {u["Id"]: u for u in _as_dicts(rows, "Users")}
    for p in posts.values():
        assert datetime(2008, 7, 31) <= p["CreationDate"] <= p["LastActivityDate"] < datetime(2024, 1, 1), p["Id"]
        assert p["CreationDate"].microsecond // 1000 % 10 in (0, 3, 7)  # on SQL Server's datetime ticks
        if p["ParentId"] is not None:
            assert p["CreationDate"] > posts[p["ParentId"]]["CreationDate"] and p["PostTypeId"] == 2
        if p["AcceptedAnswerId"] is not None:
            assert posts[p["AcceptedAnswerId"]]["ParentId"] == p["Id"]
        if p["OwnerUserId"] is not None:
            assert users[p["OwnerUserId"]]["CreationDate"] <= p["CreationDate"]
        else:
            assert p["OwnerDisplayName"] is not None
    for table, when in (("Votes", "CreationDate"), ("Comments", "CreationDate"), ("PostLinks", "CreationDate")):
        for row in _as_dicts(rows, table):
            assert row[when] > posts[row["PostId"]]["CreationDate"], (table, row)
    assert len({p["CreationDate"].year for p in posts.values()}) == 16
    assert any(p["CreationDate"].microsecond for p in posts.values())  # milliseconds, not whole seconds


def test_counts_are_heavy_tailed_with_ties_and_negative_scores():
    rows = default_rows()
    posts = _as_dicts(rows, "Posts")
    for column in ("Score", "ViewCount", "AnswerCount", "FavoriteCount", "CommentCount"):
        values = [p[column] for p in posts if p[column] is not None and p["PostTypeId"] == 1]
        shared = sum(n for n in Counter(values).values() if n > 1)
        assert shared > len(values) / 4, column  # many rows share their value with another
        assert max(values) > 10 * max(median(values), 1), column  # and a long tail
    scores = [p["Score"] for p in posts]
    assert sum(s < 0 for s in scores) > 100 and sum(s == 0 for s in scores) > 1000 and max(scores) > 500
    reputation = rows.column("Users", "Reputation")
    assert Counter(reputation)[1] > 200 and max(reputation) > 100 * median(reputation)
    questions = [p for p in posts if p["PostTypeId"] == 1]
    for column, lowest, highest in (("ClosedDate", 0.02, 0.12), ("CommunityOwnedDate", 0.0, 0.03),
                                    ("AcceptedAnswerId", 0.2, 0.8), ("FavoriteCount", 0.15, 0.45)):
        share = sum(p[column] is not None for p in questions) / len(questions)
        if column == "FavoriteCount":
            share = 1 - share
        assert lowest <= share <= highest, (column, share)
    users = _as_dicts(rows, "Users")
    for column in ("Location", "WebsiteUrl", "AboutMe"):
        assert sum(u[column] is None for u in users) > 0.6 * len(users), column
        assert any(u[column] == "" for u in users), column


def test_names_carry_other_scripts_trailing_spaces_apostrophes_and_empties():
    names = [n for n in default_rows().column("Users", "DisplayName") if n is not None]
    assert any(n.endswith(" ") for n in names) and "" in names and any("'" in n for n in names)
    assert any(n != n.lower() and n != n.upper() for n in names)
    for letters in ("éèç", "ü", "ø", "ñ", "абвгдежзийклмнопрстуфхцчшщыэюяАБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЭЮЯ"):
        assert any(any(ch in n for ch in letters) for n in names), letters
    assert any(any("\u4e00" <= ch <= "\u9fff" for ch in n) for n in names)  # CJK


def test_what_the_queries_look_for_is_there():
    rows, literals = default_rows(), query_literals()
    tags = {t["TagName"]: t for t in _as_dicts(rows, "Tags")}
    for tag in ("sql-server", "c#", "python", "java", "javascript", "r", *literals.tags):
        assert tags[tag]["Count"] >= 1, tag
    assert {"jquery", "android", "homework", "angularjs"} <= set(literals.tags)
    tag_ids = {t["Id"] for t in tags.values()}
    assert set(literals.tag_ids) <= tag_ids
    users = {u["Id"]: u for u in _as_dicts(rows, "Users")}
    assert set(literals.user_ids) <= set(users) and -1 in users and users[-1]["DisplayName"] == "Community"
    owners = Counter(rows.column("Posts", "OwnerUserId"))
    assert all(owners[u] > 0 for u in literals.user_ids)
    assert set(literals.post_ids) <= set(rows.column("Posts", "Id"))
    names = set(rows.column("Users", "DisplayName"))
    assert set(literals.display_names) <= names and {"Shog9", "Monica Cellio"} <= names
    badges = set(rows.column("Badges", "Name"))
    assert {"Teacher", "Student", "Nice Answer", *literals.badge_names} <= badges
    places = [p for p in rows.column("Users", "Location") if p]
    assert all(any(text.casefold() in p.casefold() for p in places) for text in literals.locations)
    text = "\n".join([*filter(None, rows.column("Posts", "Body")), *filter(None, rows.column("Posts", "Title")),
                      *rows.column("Comments", "Text")])
    found = sum(all(piece in text for piece in phrase) for phrase in literals.phrases)
    assert found > 0.8 * len(literals.phrases)
    votes = Counter(rows.column("Votes", "VoteTypeId"))
    assert all(votes[k] > 0 for k in (1, 2, 3, 5, 6, 8, 9)) and votes[2] > votes[3]


def test_tags_post_tags_and_counts_agree_with_the_questions():
    rows = default_rows()
    tag_id = {t["TagName"]: t["Id"] for t in _as_dicts(rows, "Tags")}
    expected = set()
    for p in _as_dicts(rows, "Posts"):
        if p["PostTypeId"] == 1:
            assert p["Tags"].startswith("<") and p["Tags"].endswith(">") and p["Title"]
            expected |= {(p["Id"], tag_id[t]) for t in p["Tags"][1:-1].split("><")}
        else:
            assert p["Tags"] is None and p["Title"] is None
    assert set(rows.tables["PostTags"]) == expected
    counts = Counter(tag for _, tag in expected)
    assert all(t["Count"] == counts[t["Id"]] for t in _as_dicts(rows, "Tags"))


def test_posts_with_deleted_holds_posts_and_the_deleted_ones():
    rows = default_rows()
    live = {row[0]: row for row in rows.tables["Posts"]}
    deleted = [r for r in _as_dicts(rows, "PostsWithDeleted") if r["Id"] not in live]
    assert 0.03 * len(live) < len(deleted) < 0.1 * len(live)
    assert all(r["DeletionDate"] > r["CreationDate"] and r["Body"] is None for r in deleted)
    with_deleted = {row[0]: row for row in rows.tables["PostsWithDeleted"]}
    assert all(with_deleted[i] == row for i, row in live.items())
