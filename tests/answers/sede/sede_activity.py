"""What happens around the generated posts: comments, votes, badges, revisions and links, and reputation.

Each row comes after what it refers to (a comment after its post, a vote on a later day than its post,
a badge after its user joined, a revision when its post was made or edited), and every id it holds is a
row of the table it names. Counts agree where the site keeps them: a post's CommentCount is its
comments, an accepted answer has its AcceptedByOriginator vote, a closed question its Post Closed
revision (the close reason id in Comment, the voters as JSON in Text, as SEDE has them). Ids grow with
time, with gaps, as on the site.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sede_lists import BADGES, MIGRATED_FROM, TAGS
from sede_people import COMMUNITY, People
from sede_posts import Post, Site, license_at
from sede_random import END, Draw, day_of, running
from sede_text import comment

_BOUNTIES = (50, 100, 150, 200, 250, 300, 350, 400, 450, 500)


def numbered(draw: Draw, rows: list[dict], when: str, first: int = 1) -> list[dict]:
    """Rows given ids in the order of their `when` column, increasing with gaps."""
    rows.sort(key=lambda r: (r[when] is None, r[when] or datetime.min))
    next_id = first
    for row in rows:
        row["Id"] = next_id
        next_id += 1 + draw.heavy(1.2, 50)
    return rows


def comment_rows(seed: int, site: Site, people: People, phrases: tuple[tuple[str, ...], ...]) -> list[dict]:
    draw = Draw(seed, "Comments")
    rows = []
    for post in site.posts.values():
        count = 0 if draw.chance(0.5) else draw.heavy(1.6, 30) + 1
        for _ in range(count):
            moment = draw.after(post.created, 86_400, END)
            user = people.pick(draw, moment)
            tag = (post.parent or post).tags[0] if (post.parent or post).tags else "sql"
            rows.append({"PostId": post.id, "Score": 0 if draw.chance(0.75) else draw.heavy(1.1, 900) + 1,
                         "Text": comment(draw, tag, phrases, [post.id]), "CreationDate": moment,
                         "UserDisplayName": None if user else draw.pick(("user5544", "Ann O'Nymous", "Чебурашка")),
                         "UserId": user.id if user else None, "ContentLicense": license_at(moment)})
        post.comments = count
    return numbered(draw, rows, "CreationDate")


def vote_rows(seed: int, site: Site, people: People) -> list[dict]:
    """Up and down votes following each post's score, acceptances, favorites, bounties, close votes and the rest.
    SEDE keeps only the day of a vote, and the voter only for favorites and bounties."""
    draw = Draw(seed, "Votes")
    rows = []

    def vote(post: Post, kind: int, user: int | None = None, bounty: int | None = None, typical: float = 86_400 * 3):
        day = day_of(draw.after(post.created, typical, END))
        if day <= post.created:
            day = day_of(post.created) + timedelta(days=1)
        if day <= END:
            rows.append({"PostId": post.id, "VoteTypeId": kind, "UserId": user, "CreationDate": day,
                         "BountyAmount": bounty})

    for post in site.posts.values():
        extra = 1 if draw.chance(0.1) else 0
        for _ in range(min(max(post.score, 0), 6) + extra):
            vote(post, 2)
        for _ in range(min(max(-post.score, 0), 20) + extra):
            vote(post, 3)
        if post.parent is not None and post.parent.accepted is post:
            vote(post, 1)
        for _ in range(min(post.favorites or 0, 2)):
            user = people.pick(draw, post.created + timedelta(days=1))
            vote(post, 5, user.id if user else None)
        if post.type == 1 and draw.chance(0.015):
            amount = draw.pick(_BOUNTIES)
            user = people.pick(draw, post.created + timedelta(days=2))
            vote(post, 8, user.id if user else None, amount, typical=86_400 * 2)
            vote(post, 9, None, amount, typical=86_400 * 9)
        if post.closed is not None:
            for _ in range(1 + draw.below(3)):
                vote(post, 6)
            if post.reopened is not None:
                vote(post, 7)
        if draw.chance(0.01):
            vote(post, draw.pick((4, 10, 11, 12, 15, 16)))
    return numbered(draw, rows, "CreationDate")


def badge_rows(seed: int, people: People) -> list[dict]:
    """Badges: every badge name at least once, bronze most often, some tag badges; after the user joined."""
    draw = Draw(seed, "Badges")
    names = list(BADGES)
    weights = running([{1: 0.4, 2: 3.0, 3: 12.0}[BADGES[n]] for n in names])
    users = [u for u in people.users if u.id != COMMUNITY]
    rows = []

    def award(user, name: str, klass: int, tag: bool) -> None:
        rows.append({"UserId": user.id, "Name": name, "Date": draw.after(user.created, 86_400 * 200, END),
                     "Class": klass, "TagBased": tag})
        user.badges.append(name)

    for name in names:
        award(users[draw.below(len(users))], name, BADGES[name], False)
    for user in users:
        for _ in range(draw.heavy(1.3, 60) if user.activity > 1.5 else draw.below(2)):
            if draw.chance(0.06):
                award(user, draw.pick(TAGS[:30]), draw.pick((3, 3, 3, 2, 1)), True)
            else:
                name = draw.weighted(names, weights)
                award(user, name, BADGES[name], False)
    return numbered(draw, rows, "Date")


def history_rows(seed: int, site: Site, people: People) -> list[dict]:
    """Each post's revisions: its initial title, body and tags, its last edit, closes, reopens, community wiki,
    migrations and the like."""
    draw = Draw(seed, "PostHistory")
    rows = []

    def revision(post: Post, kind: int, moment: datetime, guid: str, *, user=None, comment: str | None = None,
                 text: str | None = None) -> None:
        who = user if user is not None else post.owner
        rows.append({"PostHistoryTypeId": kind, "PostId": post.id, "RevisionGUID": guid, "CreationDate": moment,
                     "UserId": COMMUNITY if post.community_owner and user is None else who.id if who else None,
                     "UserDisplayName": post.owner_name if who is None and not post.community_owner else None,
                     "Comment": comment, "Text": text, "ContentLicense": license_at(moment) if kind in (1, 2, 3, 4, 5, 6) else None})

    for post in site.posts.values():
        guid = draw.guid()
        if post.type == 1:
            revision(post, 1, post.created, guid, text=post.title)
            revision(post, 3, post.created, guid, text=post.tag_text)
        revision(post, 2, post.created, guid, text=post.body)
        if draw.chance(0.01) and post.type == 1:
            revision(post, 36, post.created, draw.guid(), comment=f"from https://{draw.pick(MIGRATED_FROM)}/questions/"
                     f"{draw.between(1000, 400_000)}")
        if post.edited is not None:
            kinds = (5,) if post.type != 1 else draw.pick(((5,), (4, 5), (5, 6), (4,), (6,)))
            guid = draw.guid()
            for kind in kinds:
                text = post.body if kind == 5 else post.title if kind == 4 else post.tag_text
                revision(post, kind, post.edited, guid, user=post.editor,
                         comment=draw.pick(("edited body", "added 12 characters in body", "fixed formatting",
                                            "Rollback to Revision 1", "edited tags", None)), text=text)
        if post.closed is not None:
            voters = [people.pick(draw, post.closed) for _ in range(3)]
            names = ",".join(f'{{"Id":{u.id},"DisplayName":"{(u.name or "").strip()}"}}' for u in voters if u)
            revision(post, 10, post.closed, draw.guid(), user=voters[0], comment=str(post.close_reason),
                     text=f'{{"Voters":[{names}]}}')
            if post.reopened is not None:
                revision(post, 11, post.reopened, draw.guid(), user=people.pick(draw, post.reopened),
                         text=f'{{"Voters":[{names}]}}')
        if post.community is not None:
            revision(post, 16, post.community, draw.guid())
        if draw.chance(0.004):
            revision(post, draw.pick((14, 19, 25, 50)), draw.after(post.created, 86_400 * 90, END), draw.guid(),
                     user=people.by_id[COMMUNITY])
    return numbered(draw, rows, "CreationDate")


def link_rows(seed: int, site: Site) -> list[dict]:
    """Duplicates (LinkTypeId 3) for questions closed as one, and links (1) between questions."""
    draw = Draw(seed, "PostLinks")
    questions = site.questions
    rows = []
    for i, q in enumerate(questions):
        if i == 0:
            continue
        earlier = questions[draw.below(i)]
        if q.closed is not None and q.close_reason in (1, 101):
            rows.append({"CreationDate": q.closed, "PostId": q.id, "RelatedPostId": earlier.id, "LinkTypeId": 3})
        elif draw.chance(0.06):
            rows.append({"CreationDate": draw.after(q.created, 86_400 * 10, END), "PostId": q.id,
                         "RelatedPostId": earlier.id, "LinkTypeId": 1})
    return numbered(draw, rows, "CreationDate")


def reputation(site: Site, people: People, seed: int) -> dict[int, datetime]:
    """Each user's reputation from their posts' scores (10 an answer vote, 5 a question vote, 15 an accepted
    answer, 1 at least, 101 with the association bonus) and down votes cast; returns each user's last post."""
    draw = Draw(seed, "Reputation")
    last: dict[int, datetime] = {}
    gained: dict[int, int] = {}
    for post in site.posts.values():
        if post.owner is None:
            continue
        points = post.score * (10 if post.type == 2 else 5) + (15 if post.parent and post.parent.accepted is post else 0)
        gained[post.owner.id] = gained.get(post.owner.id, 0) + points
        last[post.owner.id] = max(last.get(post.owner.id, post.created), post.created)
    for user in people.users:
        bonus = 100 if draw.chance(0.08) else 0
        user.reputation = max(1, 1 + gained.get(user.id, 0) + bonus)
        user.down_votes = 0 if draw.chance(0.6) else draw.heavy(1.0, 20_000)
        user.up_votes += draw.heavy(0.8, 60_000) if user.activity > 1.2 else draw.heavy(2.0, 10)
    people.by_id[COMMUNITY].reputation = 1
    return last
