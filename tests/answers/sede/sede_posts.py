"""The posts of the generated Stack Exchange site: questions, their answers, tag wikis, and deleted posts.

Ids grow with time as on the site, with more posts in the busy years; an answer comes after its
question, an accepted answer is one of the question's answers, and a question's owner had joined
before asking. Scores, views, answer and favorite counts are heavy-tailed with many ties (most posts
score 0 or 1, a few hundreds; some are negative). Tags are drawn most-used first, in the `<c#><sql-server>`
form, and every tag of the list and of the queries is on at least one question, so PostTags and
Tags.Count agree with Posts.Tags (`tag_rows`).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sede_lists import CONTENT_LICENSES, TAGS
from sede_people import COMMUNITY, People, User
from sede_random import END, START, Draw, running
from sede_text import body, title

MAX_POST_ID = 77_000_000
_YEARS = (0.4, 1.5, 2.6, 3.6, 4.4, 5.0, 5.1, 5.0, 4.9, 4.6, 4.1, 3.7, 4.0, 3.1, 2.4, 1.5)
"""Posts per year from 2008 (its last five months) to 2023, relative: the site grew, then slowed."""
_KNOTS = [START] + [datetime(year, 1, 1) for year in range(2009, 2024)] + [END]
_SHARES = [0.0] + [s / sum(_YEARS) for s in running(_YEARS)]


def post_time(post_id: int) -> datetime:
    """When the post of this id was made (ids grow with time)."""
    share = min(max(post_id / MAX_POST_ID, 0.0), 1.0)
    k = min(bisect_right(_SHARES, share) - 1, len(_YEARS) - 1)
    part = (share - _SHARES[k]) / (_SHARES[k + 1] - _SHARES[k])
    moment = _KNOTS[k] + (_KNOTS[k + 1] - _KNOTS[k]) * part
    return moment.replace(microsecond=(moment.microsecond // 10_000) * 10_000)


def post_id_at(moment: datetime) -> int:
    """The id a post made at `moment` gets (the inverse of `post_time`)."""
    k = min(max(bisect_right(_KNOTS, moment) - 1, 0), len(_YEARS) - 1)
    part = (moment - _KNOTS[k]) / (_KNOTS[k + 1] - _KNOTS[k])
    return max(1, int((_SHARES[k] + (_SHARES[k + 1] - _SHARES[k]) * part) * MAX_POST_ID))


def license_at(moment: datetime) -> str:
    return next(name for year, month, name in CONTENT_LICENSES if (moment.year, moment.month) < (year, month))


@dataclass
class Post:
    id: int
    type: int
    created: datetime
    score: int = 0
    owner: User | None = None
    owner_name: str | None = None
    parent: Post | None = None
    title: str | None = None
    tags: list[str] = field(default_factory=list)
    body: str = ""
    answers: list[Post] = field(default_factory=list)
    accepted: Post | None = None
    views: int | None = None
    favorites: int | None = None
    closed: datetime | None = None
    close_reason: int | None = None
    reopened: datetime | None = None
    community: datetime | None = None
    edited: datetime | None = None
    editor: User | None = None
    comments: int = 0
    deleted: datetime | None = None
    community_owner: bool = False
    """Owned by the Community user (tag wikis and the like)."""

    @property
    def last_activity(self) -> datetime:
        moments = [self.created, self.edited, self.closed, self.reopened, *(a.created for a in self.answers)]
        return max(m for m in moments if m is not None)

    @property
    def tag_text(self) -> str | None:
        return "".join(f"<{t}>" for t in self.tags) or None


class Site:
    """Every post, by id; questions and answers apart; ids in use."""

    def __init__(self) -> None:
        self.posts: dict[int, Post] = {}
        self.deleted: dict[int, Post] = {}

    def free_id(self, moment: datetime) -> int:
        post_id = post_id_at(moment)
        while post_id in self.posts or post_id in self.deleted:
            post_id += 1
        return post_id

    @property
    def questions(self) -> list[Post]:
        return [p for p in self.posts.values() if p.type == 1]

    @property
    def answers(self) -> list[Post]:
        return [p for p in self.posts.values() if p.type == 2]


def _score(draw: Draw, answer: bool) -> int:
    r = draw.random()
    if r < (0.08 if answer else 0.12):
        return -(1 + draw.heavy(1.8, 30))
    if r < (0.45 if answer else 0.40):
        return 0
    return 1 + draw.heavy(1.15, 9000)


def make_posts(seed: int, questions: int, people: People, literal_ids: tuple[int, ...], tag_names: list[str],
               phrases: tuple[tuple[str, ...], ...]) -> Site:
    """Questions (the literal ids among them), their answers and acceptances, and the tags they carry."""
    draw = Draw(seed, "Posts")
    site = Site()
    ids = set(literal_ids)
    last = post_id_at(END - timedelta(days=7))
    while len(ids) < questions:
        ids.add(draw.between(1, last))
    weights = running([1.0 / (i + 2) ** 0.9 if i < len(TAGS) else 0.004 for i in range(len(tag_names))])
    recent: list[int] = []
    for post_id in sorted(ids):
        created = post_time(post_id)
        owner = people.pick(draw, created)
        tags: list[str] = []
        for _ in range(draw.pick((1, 2, 2, 3, 3, 3, 4, 4, 5))):
            tag = draw.weighted(tag_names, weights)
            if tag not in tags:
                tags.append(tag)
        q = Post(post_id, 1, created, _score(draw, False), owner, tags=tags)
        q.title = title(draw, tags[0], phrases)
        q.body = body(draw, tags[0], phrases, recent[-50:])
        recent.append(post_id)
        q.favorites = None if draw.chance(0.3) else draw.heavy(1.0, 3000) if q.score > 0 else 0
        site.posts[post_id] = q
    for q in site.questions:
        for _ in range(draw.heavy(1.6, 40)):
            moment = draw.after(q.created, 4 * 3600, END - timedelta(days=1))
            owner = people.pick(draw, moment, besides=q.owner.id if q.owner else None)
            answer = Post(site.free_id(moment), 2, moment, _score(draw, True), owner, parent=q)
            answer.body = body(draw, q.tags[0], phrases, [q.id])
            q.answers.append(answer)
            site.posts[answer.id] = answer
        if q.answers and q.owner is not None and draw.chance(0.7):
            q.accepted = max(q.answers, key=lambda a: (a.score, -a.id))
            q.accepted.score += draw.below(3)
        q.views = max(1, int(draw.lognormal(5.0, 1.3) * (1 + max(q.score, 0)) ** 0.6) + 7 * len(q.answers))
    for post in list(site.posts.values()):
        _history(draw, people, post)
    _ensure_every_tag(draw, site, tag_names)
    site.posts = dict(sorted(site.posts.items()))
    return site


def _history(draw: Draw, people: People, post: Post) -> None:
    """Ownerless posts, edits, closes, community wikis: what happened to a post after it was made."""
    if post.owner is None or draw.chance(0.03):
        post.owner, post.owner_name = None, draw.pick((f"user{draw.below(10**7)}", "anonymous", "Guest ", "Zoë"))
    if draw.chance(0.35):
        post.edited = draw.after(post.created, 86_400 * 3, END)
        post.editor = post.owner if post.owner and draw.chance(0.6) else people.pick(draw, post.edited)
    if post.type == 1 and draw.chance(0.08):
        post.closed = draw.after(post.created, 86_400, END)
        post.close_reason = draw.pick((101, 102, 103, 104, 105)) if post.closed >= datetime(2013, 6, 25) \
            else draw.pick((1, 2, 3, 4, 7, 10))
        if draw.chance(0.15):
            post.reopened = draw.after(post.closed, 86_400 * 5, END)
    if draw.chance(0.01):
        post.community = draw.after(post.created, 86_400 * 30, END)


def _ensure_every_tag(draw: Draw, site: Site, tag_names: list[str]) -> None:
    """Every tag on at least one question (one with room for another tag)."""
    used = {t for q in site.questions for t in q.tags}
    roomy = [q for q in site.questions if len(q.tags) < 5]
    for tag in tag_names:
        if tag not in used and roomy:
            q = roomy[draw.below(len(roomy))]
            q.tags.append(tag)
            if len(q.tags) == 5:
                roomy.remove(q)


def add_wikis(seed: int, site: Site, people: People, tag_names: list[str]) -> dict[str, tuple[int, int]]:
    """Tag wiki excerpts (type 4) and wikis (type 5) for some tags, owned by Community, and a few posts of the
    other types; returns each wiki'd tag's (excerpt id, wiki id)."""
    draw = Draw(seed, "Wikis")
    first: dict[str, datetime] = {}
    for q in site.questions:
        for tag in q.tags:
            first.setdefault(tag, q.created)
    wikis = {}
    for tag in tag_names:
        if tag in first and draw.chance(0.4):
            pair = []
            for kind in (4, 5):
                moment = draw.after(first[tag], 86_400 * 20, END)
                post = Post(site.free_id(moment), kind, moment, 0, owner=None)
                post.body = f"<p>{tag} is a tag for questions about {tag}.</p>" if kind == 4 else \
                    f"<p>The <strong>{tag}</strong> tag wiki.</p>\n<pre><code>{tag} --version\n</code></pre>\n"
                post.community_owner = True
                site.posts[post.id] = post
                pair.append(post.id)
            wikis[tag] = (pair[0], pair[1])
    for kind, count in ((3, 2), (6, 3), (7, 1), (8, 2)):
        for _ in range(count):
            moment = draw.moment(datetime(2010, 1, 1), END - timedelta(days=30))
            post = Post(site.free_id(moment), kind, moment, draw.below(20) if kind == 6 else 0)
            post.body = f"<p>{'Nomination' if kind == 6 else 'Wiki'} text.</p>\n"
            post.community_owner = kind != 6
            if kind == 6:  # a moderator nomination is its candidate's
                post.owner = people.pick(draw, moment)
            site.posts[post.id] = post
    site.posts = dict(sorted(site.posts.items()))
    return wikis


def add_deleted(seed: int, site: Site, share: float) -> None:
    """Deleted questions and answers, which only PostsWithDeleted holds (with few of their columns)."""
    draw = Draw(seed, "Deleted")
    questions = site.questions
    for _ in range(int(len(site.posts) * share)):
        if draw.chance(0.5) and questions:
            parent = questions[draw.below(len(questions))]
            moment = draw.after(parent.created, 86_400, END - timedelta(days=1))
            post = Post(site.free_id(moment), 2, moment, _score(draw, True) - 1, parent=parent)
        else:
            moment = draw.moment(START + timedelta(days=10), END - timedelta(days=2))
            post = Post(site.free_id(moment), 1, moment, _score(draw, False) - 1,
                        tags=[draw.pick(TAGS[:40]) for _ in range(1 + draw.below(2))])
            post.tags = list(dict.fromkeys(post.tags))
        post.deleted = draw.after(moment, 86_400 * 2, END)
        site.deleted[post.id] = post


def post_row(post: Post, with_deleted: bool = False) -> dict:
    """A post as its Posts (or PostsWithDeleted) row."""
    if post.deleted is not None:
        return {"Id": post.id, "PostTypeId": post.type, "ParentId": post.parent.id if post.parent else None,
                "CreationDate": post.created, "DeletionDate": post.deleted, "Score": post.score,
                "Tags": post.tag_text if post.type == 1 else None}
    community = post.community_owner
    question = post.type == 1
    return {
        "Id": post.id, "PostTypeId": post.type, "AcceptedAnswerId": post.accepted.id if post.accepted else None,
        "ParentId": post.parent.id if post.parent else None, "CreationDate": post.created, "DeletionDate": None,
        "Score": post.score, "ViewCount": post.views if question else None, "Body": post.body,
        "OwnerUserId": COMMUNITY if community else post.owner.id if post.owner else None,
        "OwnerDisplayName": None if community else post.owner_name,
        "LastEditorUserId": post.editor.id if post.editor else None,
        "LastEditorDisplayName": "anonymous" if post.edited and post.editor is None else None,
        "LastEditDate": post.edited, "LastActivityDate": post.last_activity,
        "Title": post.title if question else None, "Tags": post.tag_text if question else None,
        "AnswerCount": len(post.answers) if question else None, "CommentCount": post.comments,
        "FavoriteCount": post.favorites if question else None,
        "ClosedDate": post.closed if post.reopened is None else None, "CommunityOwnedDate": post.community,
        "ContentLicense": license_at(post.created)}


def tag_rows(seed: int, site: Site, tag_names: list[str], literal_ids: tuple[int, ...],
             wikis: dict[str, tuple[int, int]]) -> tuple[list[dict], list[dict]]:
    """Tags (ids small for the most used, the queries' ids among them) and PostTags, from the questions' tags."""
    draw = Draw(seed, "Tags")
    ids = set(literal_ids)
    next_id = 1
    while len(ids) < len(tag_names):
        ids.add(next_id)
        next_id += 1 + draw.heavy(0.7, 3000)
    tag_id = dict(zip(tag_names, sorted(ids), strict=True))
    counts = dict.fromkeys(tag_names, 0)
    post_tags = []
    for q in site.questions:
        for tag in q.tags:
            counts[tag] += 1
            post_tags.append({"PostId": q.id, "TagId": tag_id[tag]})
    tags = [{"Id": tag_id[t], "TagName": t, "Count": counts[t], "ExcerptPostId": wikis.get(t, (None, None))[0],
             "WikiPostId": wikis.get(t, (None, None))[1]} for t in tag_names]
    return sorted(tags, key=lambda r: r["Id"]), sorted(post_tags, key=lambda r: (r["PostId"], r["TagId"]))
